//! Every spelling of a shared receiver makes a tool: `&self`, `&'a self`, `self: &Self`,
//! `self: &'a Self` and `self: &TheType`.
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use serde_json::json;
use support::*;

struct Greeter {
    greeting: &'static str,
}

#[mcp::service(name = "greeter")]
impl Greeter {
    pub fn plain(&self, name: String) -> String {
        format!("{} {name}", self.greeting)
    }

    pub fn typed(self: &Self, name: String) -> String {
        format!("{} {name}", self.greeting)
    }

    pub fn typed_lifetime<'a>(self: &'a Self, name: String) -> String {
        format!("{} {name}", self.greeting)
    }

    pub fn named(self: &Greeter, name: String) -> String {
        format!("{} {name}", self.greeting)
    }

    pub async fn later(self: &Self) -> &'static str {
        self.greeting
    }
}

fn main() {
    let svc = Greeter { greeting: "hello" };
    let names: Vec<_> = tools(&svc).into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["plain", "typed", "typed_lifetime", "named", "later"]);
    for name in ["plain", "typed", "typed_lifetime", "named"] {
        let text = result(&svc, name, json!({"name": "Ada"})).content[0].clone();
        assert_eq!(text, mcp::Content::text("hello Ada"), "{name}");
    }
    assert_eq!(result(&svc, "later", json!({})).content[0], mcp::Content::text("hello"));
}
