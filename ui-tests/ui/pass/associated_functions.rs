//! Constructors and other associated functions (no receiver) may live in the service's
//! impl and are not tools; `#[tool(skip)]` keeps a `pub` method out of the tool list, in
//! basic and advanced services.
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use serde_json::json;
use support::*;

struct Counter {
    start: u32,
}

#[mcp::service(name = "counter")]
impl Counter {
    pub fn new() -> Self {
        Self { start: 7 }
    }

    pub fn with_start(start: u32) -> Self {
        Self { start }
    }

    pub fn current(&self) -> u32 {
        self.doubled() / 2
    }

    #[tool(skip)]
    pub fn doubled(&self) -> u32 {
        self.start * 2
    }

    #[tool(skip)]
    pub fn into_start(self) -> u32 {
        self.start
    }

    #[tool(skip)]
    pub fn bump(&mut self) {
        self.start += 1;
    }
}

struct Router;

#[mcp::service(name = "router", advanced)]
impl Router {
    pub fn new() -> Self {
        Router
    }

    pub fn on_list_tools(&self) -> mcp::ListToolsResult {
        mcp::ListToolsResult::default()
    }

    pub fn on_call_tool(&self, params: mcp::CallToolParams) -> mcp::CallToolResult {
        mcp::CallToolResult::text(self.label(&params.name))
    }

    #[tool(skip)]
    pub fn label(&self, name: &str) -> String {
        format!("called {name}")
    }
}

fn main() {
    let mut svc = Counter::new();
    svc.bump();
    let names: Vec<_> = tools(&svc).into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["current"]);
    assert_eq!(result(&svc, "current", json!({})).content[0], mcp::Content::text("8"));
    assert_eq!(Counter::with_start(3).into_start(), 3);
    let routed = complete(call(&advanced(Router::new()), "x", json!({})));
    assert_eq!(routed.content[0], mcp::Content::text("called x"));
}
