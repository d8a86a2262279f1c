//! Every return shape, sync and async: the text content, `structuredContent` and output
//! schema each produces, and how each error type ends the call.
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use mcp::{CallToolResponse, Content, ServerError, ToolError};
use serde_json::json;
use support::*;

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Weather {
    city: String,
    celsius: f64,
}

struct Shapes;

#[mcp::service(name = "shapes")]
impl Shapes {
    pub fn unit(&self) {}

    pub async fn unit_explicit(&self) -> () {}

    pub fn text(&self) -> String {
        "plain".to_owned()
    }

    pub async fn record(&self) -> Weather {
        Weather { city: "Oslo".into(), celsius: -3.5 }
    }

    pub fn list(&self) -> Vec<i64> {
        vec![1, 2, 3]
    }

    pub async fn tool_error(&self, fail: bool) -> Result<Weather, ToolError> {
        if fail {
            return Err(ToolError::new("no such city"));
        }
        Ok(Weather { city: "Rome".into(), celsius: 21.0 })
    }

    pub fn server_error(&self, fail: bool) -> Result<String, ServerError> {
        if fail {
            return Err(ServerError::invalid_params("bad city"));
        }
        Ok("fine".into())
    }

    pub async fn io_error(&self, fail: bool) -> Result<u32, std::io::Error> {
        if fail {
            return Err(std::io::Error::other("disk on fire"));
        }
        Ok(7)
    }

    pub fn raw(&self) -> mcp::CallToolResult {
        mcp::CallToolResult::text("raw").with_structured(json!({"raw": true}))
    }

    pub fn blocks(&self) -> Vec<Content> {
        vec![Content::text("a"), Content::text("b")]
    }

    #[tool(structured_output = true)]
    pub fn required(&self) -> Vec<String> {
        vec!["x".into()]
    }

    #[tool(structured_output = true, output_schema = r#"{"type": "object"}"#)]
    pub fn required_with_schema(&self) -> mcp::CallToolResult {
        mcp::CallToolResult::text("{}").with_structured(json!({}))
    }

    #[tool(structured_output = false)]
    pub fn text_only(&self) -> Weather {
        Weather { city: "Lima".into(), celsius: 18.0 }
    }
}

fn main() {
    let svc = Shapes;
    let r = result(&svc, "unit", json!({}));
    assert!(r.content.is_empty() && r.structured_content.is_none());
    assert!(tool(&svc, "unit").get("outputSchema").is_none());
    assert!(result(&svc, "unit_explicit", json!({})).content.is_empty());

    let r = result(&svc, "text", json!({}));
    assert_eq!(r.joined_text(), "plain");
    assert_eq!(r.structured_content, Some(json!("plain")));

    let r = result(&svc, "record", json!({}));
    assert_eq!(r.structured_content, Some(json!({"city": "Oslo", "celsius": -3.5})));
    assert_eq!(tool(&svc, "record")["outputSchema"]["type"], "object");

    let r = result(&svc, "list", json!({}));
    assert_eq!(r.joined_text(), "[1,2,3]");
    assert_eq!(tool(&svc, "list")["outputSchema"]["type"], "array");

    let r = result(&svc, "tool_error", json!({"fail": true}));
    assert_eq!(r.is_error, Some(true));
    assert_eq!(r.joined_text(), "no such city");
    assert_eq!(result(&svc, "tool_error", json!({"fail": false})).structured_content.unwrap()["city"], "Rome");

    let err = call(&svc, "server_error", json!({"fail": true})).unwrap_err();
    assert!(matches!(err, ServerError::InvalidParams(_)), "{err:?}");
    assert_eq!(result(&svc, "server_error", json!({"fail": false})).joined_text(), "fine");

    let err = call(&svc, "io_error", json!({"fail": true})).unwrap_err();
    assert!(!err.to_string().contains("disk"), "internal details stay on the server: {err}");
    assert_eq!(result(&svc, "io_error", json!({"fail": false})).joined_text(), "7");

    let r = result(&svc, "raw", json!({}));
    assert_eq!(r.structured_content, Some(json!({"raw": true})));
    assert!(tool(&svc, "raw").get("outputSchema").is_none());

    assert_eq!(result(&svc, "blocks", json!({})).joined_text(), "a\nb");

    assert_eq!(tool(&svc, "required")["outputSchema"]["type"], "array");
    assert_eq!(tool(&svc, "required_with_schema")["outputSchema"], json!({"type": "object"}));

    let r = result(&svc, "text_only", json!({}));
    assert!(r.structured_content.is_none());
    assert!(tool(&svc, "text_only").get("outputSchema").is_none());

    assert!(matches!(call(&svc, "nope", json!({})), Err(ServerError::InvalidParams(_))));
    let _: fn(CallToolResponse) = drop;
    let _ = server(svc);
}
