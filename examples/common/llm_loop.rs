//! A complete tool-calling loop: an MCP server's tools offered to a model through an
//! OpenAI-compatible Chat Completions endpoint, the model's tool calls run on the MCP
//! server, their text sent back, until the model answers. The requests and answers use the
//! `async-openai` crate's types through `mcp-runtime`'s `openai` feature.
//!
//! [`scripted_model`] is such an endpoint written for tests: it asks for one tool call, then
//! answers with what the tool returned, so the loop runs end to end without a network.

use std::net::SocketAddr;

use async_openai::types::chat::{
    ChatCompletionMessageToolCalls, ChatCompletionRequestMessage, ChatCompletionResponseMessage,
};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use mcp::client::Client;
use mcp::client::llm::{FunctionCallError, chat_tool_message};
use serde_json::{Value, json};

/// The most model turns one question may take.
pub const MAX_TURNS: usize = 8;

/// What went wrong in the loop.
#[derive(Debug)]
pub struct LoopError(pub String);

impl std::fmt::Display for LoopError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LoopError {}

/// Asks `question` of the model at `base_url` (`…/v1`, with `api_key` as bearer token if
/// given), offering the MCP server's tools; returns the model's final answer and the
/// conversation.
pub async fn ask(
    mcp: &Client,
    base_url: &str,
    api_key: Option<&str>,
    model: &str,
    question: &str,
) -> Result<(String, Vec<Value>), LoopError> {
    let tools = mcp
        .function_tools()
        .await
        .map_err(|e| LoopError(format!("listing the MCP tools failed: {e}")))?;
    let http = reqwest::Client::new();
    let mut messages = vec![json!({"role": "user", "content": question})];
    for _ in 0..MAX_TURNS {
        let body =
            json!({"model": model, "messages": messages, "tools": tools.chat_completion_tools()});
        let mut request = http
            .post(format!(
                "{}/chat/completions",
                base_url.trim_end_matches('/')
            ))
            .json(&body);
        if let Some(key) = api_key {
            request = request.bearer_auth(key);
        }
        let response = request
            .send()
            .await
            .map_err(|e| LoopError(format!("the model endpoint failed: {e}")))?;
        let status = response.status();
        let reply: Value = response
            .json()
            .await
            .map_err(|e| LoopError(format!("the model's answer is not JSON ({status}): {e}")))?;
        if !status.is_success() {
            return Err(LoopError(format!(
                "the model endpoint answered {status}: {reply}"
            )));
        }
        let message: ChatCompletionResponseMessage =
            serde_json::from_value(reply["choices"][0]["message"].clone()).map_err(|e| {
                LoopError(format!(
                    "the model's answer has no valid message ({e}): {reply}"
                ))
            })?;
        messages.push(reply["choices"][0]["message"].clone());
        let calls = message.tool_calls.unwrap_or_default();
        if calls.is_empty() {
            return Ok((message.content.unwrap_or_default(), messages));
        }
        for call in calls {
            let ChatCompletionMessageToolCalls::Function(call) = call else {
                return Err(LoopError("the model called a custom tool".into()));
            };
            let content = match mcp.call_chat_tool_call(&call).await {
                Ok(text) => text,
                Err(FunctionCallError::Tool(text)) => format!("Error: {text}"),
                Err(FunctionCallError::Arguments(e)) => format!("Error: invalid arguments: {e}"),
                Err(e) => {
                    let name = &call.function.name;
                    return Err(LoopError(format!("calling {name} failed: {e}")));
                }
            };
            let answer = ChatCompletionRequestMessage::Tool(chat_tool_message(call.id, content));
            messages.push(json!(answer));
        }
    }
    Err(LoopError(format!("no answer after {MAX_TURNS} turns")))
}

/// The script of [`scripted_model`]: the tool it calls and the arguments it passes.
#[derive(Clone, Debug)]
pub struct Script {
    /// The function to call.
    pub tool: String,
    /// Its arguments, as the JSON text a model writes.
    pub arguments: String,
}

/// Serves a scripted Chat Completions endpoint on `addr`: `POST /v1/chat/completions`
/// answers a conversation whose last message is not a tool result with a call of the
/// script's tool (`400` if the request offers no such tool), and one that ends with tool
/// results with a final answer quoting them. Returns the bound address.
pub async fn scripted_model(addr: &str, script: Script) -> std::io::Result<SocketAddr> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let app = axum::Router::new()
        .route("/v1/chat/completions", post(completion))
        .with_state(script);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(local)
}

async fn completion(
    State(script): State<Script>,
    Json(body): Json<Value>,
) -> (StatusCode, Json<Value>) {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let results: Vec<&str> = messages
        .iter()
        .rev()
        .take_while(|m| m["role"] == "tool")
        .filter_map(|m| m["content"].as_str())
        .collect();
    if !results.is_empty() {
        let answer = format!("According to the tool: {}", results.join("; "));
        return (
            StatusCode::OK,
            Json(choice(
                json!({"role": "assistant", "content": answer}),
                "stop",
            )),
        );
    }
    let offered = body["tools"].as_array().is_some_and(|tools| {
        tools
            .iter()
            .any(|t| t["type"] == "function" && t["function"]["name"] == script.tool.as_str())
    });
    if !offered {
        let error = json!({"error": {"message": format!("no function {} offered", script.tool),
                                     "type": "invalid_request_error"}});
        return (StatusCode::BAD_REQUEST, Json(error));
    }
    let call = json!({"id": "call_1", "type": "function",
                      "function": {"name": script.tool, "arguments": script.arguments}});
    let message = json!({"role": "assistant", "content": null, "tool_calls": [call]});
    (StatusCode::OK, Json(choice(message, "tool_calls")))
}

fn choice(message: Value, finish_reason: &str) -> Value {
    json!({"id": "chatcmpl-scripted", "object": "chat.completion", "model": "scripted",
           "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}]})
}
