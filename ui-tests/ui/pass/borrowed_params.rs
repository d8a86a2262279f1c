//! Borrowed parameters: the argument is deserialized owned and lent to the method
//! (`&str` from a `String`, `&[T]` from a `Vec<T>`, `&T` from a `T`, `Cow<str>` owned), and
//! runtime parameters may be taken by reference too. The schema is the owned type's.
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use std::borrow::Cow;

use mcp::protocol::Era;
use serde_json::json;
use support::*;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Point {
    x: i32,
    y: i32,
}

struct Text;

#[mcp::service(name = "text", protocol_mode = "legacy")]
impl Text {
    pub fn shout(&self, text: &str) -> String {
        text.to_uppercase()
    }

    pub fn sum(&self, values: &[i64]) -> i64 {
        values.iter().sum()
    }

    pub fn norm(&self, p: &Point) -> i32 {
        p.x.abs() + p.y.abs()
    }

    pub fn cow(&self, text: Cow<str>, suffix: Option<Cow<'_, str>>) -> String {
        format!("{text}{}", suffix.unwrap_or_default())
    }

    pub fn grow(&self, list: &mut Vec<String>) -> usize {
        list.push("more".into());
        list.len()
    }

    pub fn trace(
        &self,
        headers: &http::HeaderMap,
        #[http_header("X-Trace")] trace: &str,
        context: &mcp::Context,
    ) -> String {
        let _ = context;
        format!("{trace}:{}", headers.len())
    }
}

struct Router;

#[mcp::service(name = "router", advanced)]
impl Router {
    pub fn on_list_tools(&self, cursor: &Option<String>) -> mcp::ListToolsResult {
        let _ = cursor;
        mcp::ListToolsResult::default()
    }

    pub fn on_call_tool(&self, params: &mcp::CallToolParams, headers: &http::HeaderMap) -> mcp::CallToolResult {
        let _ = headers;
        mcp::CallToolResult::text(params.name.clone())
    }
}

fn main() {
    assert_eq!(result(&Text, "shout", json!({"text": "hi"})).content[0], mcp::Content::text("HI"));
    assert_eq!(result(&Text, "sum", json!({"values": [1, 2, 3]})).content[0], mcp::Content::text("6"));
    assert_eq!(result(&Text, "norm", json!({"p": {"x": -2, "y": 3}})).content[0], mcp::Content::text("5"));
    let cow = result(&Text, "cow", json!({"text": "a", "suffix": "b"}));
    assert_eq!(cow.content[0], mcp::Content::text("ab"));
    assert_eq!(result(&Text, "grow", json!({"list": ["a"]})).content[0], mcp::Content::text("2"));
    let cx = request(Era::Legacy, &[("x-trace", "t1")]);
    let traced = complete(call_in(&Text, &cx, "trace", json!({})));
    assert_eq!(traced.content[0], mcp::Content::text("t1:1"));
    let shout = tool(&Text, "shout");
    assert_eq!(shout["inputSchema"]["properties"]["text"]["type"], "string");
    assert_eq!(shout["inputSchema"]["required"], json!(["text"]));
    assert_eq!(tool(&Text, "sum")["inputSchema"]["properties"]["values"]["type"], "array");
    assert_eq!(tool(&Text, "trace")["inputSchema"]["properties"], json!({}));
    let routed = complete(call(&advanced(Router), "anything", json!({})));
    assert_eq!(routed.content[0], mcp::Content::text("anything"));
}
