//! Lifetime parameters do not make a tool generic: only type and const parameters do
//! (MCP_201). Returned borrows of `self` or of an argument work.
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use serde_json::json;
use support::*;

struct Store {
    motto: String,
}

#[mcp::service(name = "store")]
impl Store {
    pub fn echo<'a>(&'a self, text: &'a str) -> &'a str {
        text
    }

    pub fn motto<'a>(&'a self) -> &'a str {
        &self.motto
    }

    pub fn elided(&self) -> &str {
        &self.motto
    }

    pub fn longest<'a, 'b>(&self, a: &'a str, b: &'b str) -> String
    where
        'b: 'a,
    {
        if a.len() >= b.len() { a.to_owned() } else { b.to_owned() }
    }
}

fn main() {
    let svc = Store { motto: "keep it".into() };
    assert_eq!(result(&svc, "echo", json!({"text": "x"})).content[0], mcp::Content::text("x"));
    assert_eq!(result(&svc, "motto", json!({})).content[0], mcp::Content::text("keep it"));
    assert_eq!(result(&svc, "elided", json!({})).content[0], mcp::Content::text("keep it"));
    let r = result(&svc, "longest", json!({"a": "ab", "b": "abc"}));
    assert_eq!(r.content[0], mcp::Content::text("abc"));
    assert_eq!(tool(&svc, "echo")["inputSchema"]["properties"]["text"]["type"], "string");
}
