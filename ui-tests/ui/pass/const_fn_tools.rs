//! `const fn` methods are tools like any other.
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use serde_json::json;
use support::*;

struct Limits;

#[mcp::service(name = "limits")]
impl Limits {
    /// The largest page size.
    pub const fn max_page(&self) -> u32 {
        100
    }

    pub const fn double(&self, n: u32) -> u32 {
        n * 2
    }
}

const PAGE: u32 = Limits.max_page();

fn main() {
    assert_eq!(PAGE, 100);
    assert_eq!(result(&Limits, "max_page", json!({})).content[0], mcp::Content::text("100"));
    assert_eq!(result(&Limits, "double", json!({"n": 21})).content[0], mcp::Content::text("42"));
    assert_eq!(tool(&Limits, "max_page")["description"], "The largest page size.");
}
