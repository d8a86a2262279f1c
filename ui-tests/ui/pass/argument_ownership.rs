//! A tool that cannot answer input-required takes its arguments out of the call's params (a
//! bound `String` is moved, not copied); a tool that can (its return type can be
//! input-required, or it binds a `Context`) leaves them for the request state's binding.
//! Judged on types, so aliases count as what they name. Either way an unknown argument is
//! reported the same way.
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use serde_json::json;
use support::*;

type Ctx = mcp::Context;
type Asking = mcp::ToolOutput<String>;
type Text = String;

struct Owner;

#[mcp::service(name = "owner")]
impl Owner {
    pub fn plain(&self, text: String) -> usize {
        text.len()
    }

    pub fn fallible(&self, text: Text, times: Option<u32>) -> Result<Text, mcp::ToolError> {
        Ok(text.repeat(times.unwrap_or(1) as usize))
    }

    pub fn raw(&self, text: String) -> mcp::CallToolResult {
        mcp::CallToolResult::text(text)
    }

    pub fn confirm(&self, text: String, confirmed: Option<bool>) -> mcp::ToolOutput<String> {
        match confirmed {
            Some(true) => mcp::ToolOutput::Done(text),
            _ => mcp::InputRequired::new()
                .elicit("confirm", mcp::elicit_url("Confirm", "https://example.com/confirm"))
                .into(),
        }
    }

    pub fn aliased_output(&self, text: String) -> Asking {
        mcp::ToolOutput::Done(text)
    }

    pub fn with_context(&self, text: String, ctx: mcp::Context) -> String {
        let _ = ctx;
        text
    }

    pub fn aliased_context(&self, ctx: Ctx, text: String) -> String {
        let _ = ctx;
        text
    }

    pub fn response(&self, text: String) -> Result<mcp::CallToolResponse, mcp::ServerError> {
        Ok(mcp::CallToolResult::text(text).into())
    }
}

fn main() {
    let args = json!({"text": "hello"});
    // Taken: the dispatcher is left without arguments.
    for tool in ["plain", "fallible", "raw"] {
        let (response, params) = call_and_params(&Owner, tool, args.clone());
        assert!(matches!(response, Ok(mcp::CallToolResponse::Complete(_))), "{tool}: {response:?}");
        assert_eq!(params.arguments, None, "{tool} should take its arguments");
        assert_eq!(params.name, tool);
    }
    // Kept: every tool that may ask, by return type or parameter, aliases included.
    for tool in ["confirm", "aliased_output", "with_context", "aliased_context", "response"] {
        let (response, params) = call_and_params(&Owner, tool, args.clone());
        assert!(response.is_ok(), "{tool}: {response:?}");
        assert_eq!(params.arguments, args.as_object().cloned(), "{tool} should keep its arguments");
    }
    let (response, _) = call_and_params(&Owner, "confirm", args.clone());
    assert!(matches!(response, Ok(mcp::CallToolResponse::InputRequired(_))));

    // The values still arrive whole.
    let text = "x".repeat(100_000);
    let result = complete(call(&Owner, "fallible", json!({"text": text, "times": 2})));
    assert_eq!(result.content.len(), 1);
    assert_eq!(serde_json::to_value(&result.content[0]).unwrap()["text"].as_str().map(str::len), Some(200_000));

    // The first unknown argument in order is named, whether the arguments are taken or kept.
    let extra = json!({"text": "hi", "zeta": 1, "beta": 2, "times": 1});
    for tool in ["fallible", "with_context"] {
        match call(&Owner, tool, extra.clone()) {
            Err(mcp::ServerError::InvalidParams(message)) => {
                assert_eq!(message, format!("Unknown argument `beta` for tool `{tool}`"), "{tool}")
            }
            other => panic!("{tool}: expected invalid params, got {other:?}"),
        }
    }
    // A missing or mistyped argument of a tool that takes its arguments.
    match call(&Owner, "plain", json!({"text": 5})) {
        Err(mcp::ServerError::InvalidParams(message)) => assert!(message.starts_with("Invalid argument `text`"), "{message}"),
        other => panic!("expected invalid params, got {other:?}"),
    }
}
