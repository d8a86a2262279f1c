//! One service per protocol mode; each attribute becomes the service's configuration.
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use mcp::ProtocolMode;
use serde_json::json;
use support::*;

struct Auto;

#[mcp::service(name = "auto", version = "1.0.0", protocol_mode = "auto")]
impl Auto {
    /// Add two numbers.
    pub fn add(&self, left: i64, right: i64) -> i64 {
        left + right
    }
}

struct Modern;

#[mcp::service(name = "modern", version = "2.0.0", title = "Modern only", protocol_mode = "modern")]
impl Modern {
    /// Multiply two numbers.
    pub async fn multiply(&self, left: i64, right: i64) -> i64 {
        left * right
    }
}

struct Legacy;

#[mcp::service(name = "legacy", version = "3.0.0", protocol_mode = "legacy", instructions = "Old clients only.")]
impl Legacy {
    /// Subtract.
    pub fn subtract(&self, left: i64, right: i64) -> i64 {
        left - right
    }
}

fn main() {
    assert_eq!(mcp::Server::builder(Auto).build().unwrap().protocol_mode(), ProtocolMode::Auto);
    assert_eq!(mcp::Server::builder(Modern).build().unwrap().protocol_mode(), ProtocolMode::Modern);
    assert_eq!(mcp::Server::builder(Legacy).build().unwrap().protocol_mode(), ProtocolMode::Legacy);
    assert_eq!(support::server(Modern).info().version, "2.0.0");

    assert_eq!(result(&Auto, "add", json!({"left": 2, "right": 3})).joined_text(), "5");
    assert_eq!(result(&Modern, "multiply", json!({"left": 2, "right": 3})).joined_text(), "6");
    assert_eq!(result(&Legacy, "subtract", json!({"left": 2, "right": 3})).joined_text(), "-1");

    let add = tool(&Auto, "add");
    assert_eq!(add["description"], "Add two numbers.");
    assert_eq!(add["inputSchema"]["required"], json!(["left", "right"]));
    assert_eq!(add["outputSchema"]["type"], "integer");

    for svc in [server(Auto), server(Modern), server(Legacy)] {
        let _ = mcp::transport::http::router("/mcp", svc);
    }
}
