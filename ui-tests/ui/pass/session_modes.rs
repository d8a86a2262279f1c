//! One service per session mode, with the session parameters each allows without warnings.
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use mcp::protocol::Era;
use mcp::SessionMode;
use serde_json::json;
use support::*;

struct Auto;

#[mcp::service(name = "auto", session_mode = "auto")]
impl Auto {
    pub fn ping(&self) -> &'static str {
        "pong"
    }
}

struct Stateful;

#[mcp::service(name = "cart", protocol_mode = "legacy", session_mode = "stateful")]
impl Stateful {
    /// A required session is fine for a legacy-only stateful service.
    pub fn add_item(&self, session: mcp::Session, item: String) -> String {
        let _ = session;
        format!("added {item}")
    }
}

struct Stateless;

#[mcp::service(name = "stateless", protocol_mode = "legacy", session_mode = "stateless")]
impl Stateless {
    /// An optional session is allowed (and always `None`) in a stateless service.
    pub fn has_session(&self, session: Option<mcp::Session>) -> bool {
        session.is_some()
    }
}

fn main() {
    assert_eq!(mcp::Server::builder(Auto).build().unwrap().session_mode(), SessionMode::Auto);
    assert_eq!(mcp::Server::builder(Stateful).build().unwrap().session_mode(), SessionMode::Stateful);
    assert_eq!(mcp::Server::builder(Stateless).build().unwrap().session_mode(), SessionMode::Stateless);

    assert_eq!(result(&Auto, "ping", json!({})).joined_text(), "pong");

    // Runtime parameters stay out of the input schema.
    let add = tool(&Stateful, "add_item");
    assert_eq!(add["inputSchema"]["properties"], json!({"item": {"type": "string"}}));
    // Without a session, a tool that requires one is rejected, not run.
    let cx = request(Era::Legacy, &[]);
    let err = call_in(&Stateful, &cx, "add_item", json!({"item": "apple"})).unwrap_err();
    assert!(err.to_string().contains("session"), "{err}");

    let cx = request(Era::Legacy, &[]);
    let r = complete(call_in(&Stateless, &cx, "has_session", json!({})));
    assert_eq!(r.joined_text(), "false");

    let _ = (server(Auto), server(Stateful), server(Stateless));
}
