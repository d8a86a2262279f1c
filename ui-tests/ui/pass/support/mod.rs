//! Helpers shared by the pass cases: drive a generated service in-process, through its
//! `mcp::__private::ServiceHandler` methods (the macro's generated handler, or the runtime's
//! bridge for an advanced service: [`advanced`]) or through the Streamable HTTP router.
#![allow(dead_code)]

use mcp::protocol::Era;
use mcp::__private::ServiceHandler;
use mcp::{CallToolParams, CallToolResponse, CallToolResult, RequestContext, ServerError, Tool};
use serde_json::Value;

/// A request context of `era` with the given headers.
pub fn request(era: Era, headers: &[(&'static str, &str)]) -> RequestContext {
    let mut builder = http::Request::builder().method("POST").uri("/mcp");
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    let version = match era {
        Era::Modern => "2026-07-28",
        Era::Legacy => "2025-03-26",
    };
    let mut cx = RequestContext::new(era, version);
    let parts = builder.body(()).unwrap().into_parts().0;
    cx.extensions_mut().insert(parts);
    cx
}

/// Runs a future to completion on a fresh single-threaded runtime.
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

/// The service's tools, as `tools/list` lists them.
pub fn tools(svc: &impl ServiceHandler) -> Vec<Tool> {
    block_on(svc.list_tools(None, &request(Era::Modern, &[]))).unwrap().tools
}

/// The listed tool `name`, as JSON.
pub fn tool(svc: &impl ServiceHandler, name: &str) -> Value {
    let tool = tools(svc).into_iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no tool `{name}`"));
    serde_json::to_value(tool).unwrap()
}

/// Calls tool `name` with `arguments` in `cx`.
pub fn call_in(svc: &impl ServiceHandler, cx: &RequestContext, name: &str, arguments: Value) -> Result<CallToolResponse, ServerError> {
    let mut params = CallToolParams::new(name);
    params.arguments = arguments.as_object().cloned();
    block_on(svc.call_tool(&mut params, cx))
}

/// Calls tool `name` with `arguments` on a modern request, and returns the params as the
/// dispatcher holds them afterwards (what it binds a request state to).
pub fn call_and_params(svc: &impl ServiceHandler, name: &str, arguments: Value) -> (Result<CallToolResponse, ServerError>, CallToolParams) {
    let mut params = CallToolParams::new(name);
    params.arguments = arguments.as_object().cloned();
    let response = block_on(svc.call_tool(&mut params, &request(Era::Modern, &[])));
    (response, params)
}

/// Calls tool `name` on a modern request without headers.
pub fn call(svc: &impl ServiceHandler, name: &str, arguments: Value) -> Result<CallToolResponse, ServerError> {
    call_in(svc, &request(Era::Modern, &[]), name, arguments)
}

/// The complete result of a call that must succeed.
pub fn complete(response: Result<CallToolResponse, ServerError>) -> CallToolResult {
    match response {
        Ok(CallToolResponse::Complete(result)) => result,
        other => panic!("expected a complete result, got {other:?}"),
    }
}

/// The complete result of calling tool `name` on a modern request.
pub fn result(svc: &impl ServiceHandler, name: &str, arguments: Value) -> CallToolResult {
    complete(call(svc, name, arguments))
}

/// An advanced service as the dispatcher sees it.
pub fn advanced(svc: impl mcp::AdvancedService) -> impl ServiceHandler {
    mcp::__private::advanced_handler(svc)
}

/// A service's server, as `mcp::Server::builder(..).build()` checks it.
pub fn server(svc: impl mcp::IntoService) -> mcp::Server {
    mcp::Server::builder(svc).build().expect("the generated configuration is valid")
}

/// The text of the first contents of a read of resource `uri` on a modern request.
pub fn read_text(svc: &impl ServiceHandler, uri: &str) -> Result<String, ServerError> {
    let params = mcp::ReadResourceParams::new(uri);
    let result = block_on(svc.read_resource(params, &request(Era::Modern, &[])))?;
    let contents = serde_json::to_value(&result.contents[0]).unwrap();
    Ok(contents["text"].as_str().expect("text contents").to_owned())
}

/// The text of the first message of prompt `name` with `arguments`, on a modern request.
pub fn prompt_text(svc: &impl ServiceHandler, name: &str, arguments: &[(&str, &str)]) -> Result<String, ServerError> {
    let mut params = mcp::GetPromptParams::new(name);
    for (argument, value) in arguments {
        params = params.with_argument(*argument, *value);
    }
    let mcp::GetPromptResponse::Complete(result) = block_on(svc.get_prompt(params, &request(Era::Modern, &[])))? else {
        panic!("prompt `{name}` asked for input");
    };
    let message = serde_json::to_value(&result.messages[0]).unwrap();
    Ok(message["content"]["text"].as_str().expect("a text message").to_owned())
}

/// The values completing `argument` (partly `value`) of `reference`, on a modern request.
pub fn completions(svc: &impl ServiceHandler, reference: mcp::Reference, argument: &str, value: &str) -> Result<Vec<String>, ServerError> {
    let params = mcp::CompleteParams::new(reference, argument, value);
    Ok(block_on(svc.complete(params, &request(Era::Modern, &[])))?.completion.values)
}
