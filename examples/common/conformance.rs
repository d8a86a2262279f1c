//! The fixtures the official MCP conformance suite's server scenarios call
//! (`@modelcontextprotocol/conformance`, run by `interop/run-conformance.sh`), as far as
//! the framework serves them today: tools only. The contents match the suite's scenario
//! descriptions and the reference fixtures of the TypeScript peer
//! (`interop/server.mjs --conformance`).
//!
//! Resources, prompts and completion are served by the hooks below, from
//! [`conformance_features`](crate::conformance_features). Logging, progress, sampling and
//! SSE stream control go through [`mcp::Context`]
//! ([`Context::from_call`](mcp::Context::from_call) in this hand-written service).

use std::net::SocketAddr;

use mcp::protocol::{JsonObject, ResourceContents};
use mcp::{
    AdvancedService, CallToolParams, CallToolResponse, CallToolResult, Content, ListToolsResult,
    RequestContext, ServerError, Tool,
};
use serde_json::{Value, json};

use std::time::Duration;

use mcp::{LogLevel, SamplingMessage, SamplingRequest};
use tokio::time::sleep;

use crate::echo::object;

/// A 1×1 PNG, base64 (the suite's "minimal test image").
pub const TEST_IMAGE_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A minimal WAV file (header and one silent sample), base64.
pub const TEST_AUDIO_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The text of `test_simple_text`.
pub const SIMPLE_TEXT: &str = "This is a simple text response for testing.";

/// The message of the `isError` result of `test_error_handling`.
pub const ERROR_MESSAGE: &str = "This tool intentionally returns an error for testing";

/// The name of the tool with a JSON Schema 2020-12 input schema (SEP-1613).
pub const JSON_SCHEMA_2020_12_TOOL: &str = "json_schema_2020_12_tool";

/// The conformance fixture service.
#[derive(Clone, Debug)]
pub struct Conformance {
    tools: Vec<Tool>,
}

impl Default for Conformance {
    fn default() -> Self {
        Self::new()
    }
}

fn no_arguments() -> JsonObject {
    object(json!({"type": "object", "properties": {}}))
}

/// The input schema of [`JSON_SCHEMA_2020_12_TOOL`], exactly as the suite's
/// `json-schema-2020-12` scenario describes it.
pub fn json_schema_2020_12() -> JsonObject {
    object(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
        "additionalProperties": false
    }))
}

impl Conformance {
    /// The service with its tool definitions.
    pub fn new() -> Self {
        let tool = |name: &str, description: &str| {
            Tool::new(name, no_arguments()).with_description(description)
        };
        Self {
            tools: vec![
                tool("test_simple_text", "Returns simple text content"),
                tool("test_image_content", "Returns image content"),
                tool("test_audio_content", "Returns audio content"),
                tool("test_embedded_resource", "Returns an embedded resource"),
                tool(
                    "test_multiple_content_types",
                    "Returns text, image and resource content",
                ),
                tool("test_error_handling", "Always fails with a tool error"),
                Tool::new(
                    "test_elicitation",
                    object(json!({
                        "type": "object",
                        "properties": {"message": {"type": "string", "description": "The message to show the user"}},
                        "required": ["message"]
                    })),
                )
                .with_description("Asks the client for user input"),
                tool(
                    "test_elicitation_sep1034_defaults",
                    "Elicitation whose fields all carry defaults (SEP-1034)",
                ),
                tool(
                    "test_elicitation_sep1330_enums",
                    "Elicitation with the five enum schema variants (SEP-1330)",
                ),
                tool(
                    "test_tool_with_logging",
                    "Emits three log notifications while running",
                ),
                tool(
                    "test_tool_with_progress",
                    "Reports progress 0/50/100 when given a progress token",
                ),
                tool(
                    "test_reconnection",
                    "Closes its SSE stream mid-call (SEP-1699); the result arrives after the client reconnects",
                ),
                Tool::new(
                    "test_sampling",
                    object(json!({
                        "type": "object",
                        "properties": {"prompt": {"type": "string", "description": "The prompt to send to the LLM"}},
                        "required": ["prompt"]
                    })),
                )
                .with_description("Asks the client for an LLM completion"),
                Tool::new(JSON_SCHEMA_2020_12_TOOL, json_schema_2020_12())
                    .with_description("Tool with JSON Schema 2020-12 features (SEP-1613)"),
            ]
            .into_iter()
            .chain(crate::conformance_input::tools())
            .chain(crate::conformance_tasks::tools())
            .collect(),
        }
    }

    /// The tool definitions, in listing order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }
}

/// An embedded text resource with a MIME type.
fn embedded(uri: &str, mime_type: &str, text: String) -> Content {
    Content::resource(ResourceContents::text(uri, text).with_mime_type(mime_type))
}

impl AdvancedService for Conformance {
    fn info(&self) -> mcp::Implementation {
        mcp::Implementation::new("mcp-conformance", env!("CARGO_PKG_VERSION"))
    }

    fn features(&self) -> mcp::Features {
        crate::conformance_features::features()
    }

    fn task_support(&self, tool: &str) -> mcp::TaskSupport {
        crate::conformance_tasks::task_support(tool)
    }

    fn serves_tasks(&self) -> bool {
        true
    }

    async fn on_list_resources(
        &self,
        cursor: Option<String>,
        _request: &RequestContext,
    ) -> Result<mcp::ListResourcesResult, ServerError> {
        crate::conformance_features::list_resources(cursor)
    }

    async fn on_list_resource_templates(
        &self,
        cursor: Option<String>,
        _request: &RequestContext,
    ) -> Result<mcp::ListResourceTemplatesResult, ServerError> {
        crate::conformance_features::list_templates(cursor)
    }

    async fn on_read_resource(
        &self,
        params: mcp::ReadResourceParams,
        _request: &RequestContext,
    ) -> Result<mcp::ReadResourceResult, ServerError> {
        crate::conformance_features::read(&params)
    }

    async fn on_list_prompts(
        &self,
        cursor: Option<String>,
        _request: &RequestContext,
    ) -> Result<mcp::ListPromptsResult, ServerError> {
        crate::conformance_features::list_prompts(cursor)
    }

    async fn on_get_prompt(
        &self,
        params: mcp::GetPromptParams,
        request: &RequestContext,
    ) -> Result<mcp::GetPromptResponse, ServerError> {
        let ctx = mcp::Context::from_prompt(&params, request);
        crate::conformance_features::get_prompt(&params, &ctx)
    }

    async fn on_complete(
        &self,
        params: mcp::CompleteParams,
        _request: &RequestContext,
    ) -> Result<mcp::CompleteResult, ServerError> {
        crate::conformance_features::complete(&params)
    }

    async fn on_list_tools(
        &self,
        cursor: Option<String>,
        _request: &RequestContext,
    ) -> Result<ListToolsResult, ServerError> {
        if let Some(cursor) = cursor {
            return Err(ServerError::invalid_params(format!(
                "Unknown cursor: {cursor}"
            )));
        }
        Ok(ListToolsResult::new(self.tools.clone()))
    }

    async fn on_call_tool(
        &self,
        params: CallToolParams,
        request: &RequestContext,
    ) -> Result<CallToolResponse, ServerError> {
        let ctx = mcp::Context::from_call(&params, request);
        if let Some(response) =
            crate::conformance_tasks::call(&params.name, params.arguments.as_ref(), &ctx).await
        {
            return response;
        }
        if let Some(response) =
            crate::conformance_input::call(&params.name, params.arguments.as_ref(), &ctx, request)
                .await
        {
            return Ok(response);
        }
        let result = match params.name.as_str() {
            "test_simple_text" => CallToolResult::text(SIMPLE_TEXT),
            "test_image_content" => {
                CallToolResult::content(vec![Content::image(TEST_IMAGE_BASE64, "image/png")])
            }
            "test_audio_content" => {
                CallToolResult::content(vec![Content::audio(TEST_AUDIO_BASE64, "audio/wav")])
            }
            "test_embedded_resource" => CallToolResult::content(vec![embedded(
                "test://embedded-resource",
                "text/plain",
                "This is an embedded resource content.".to_owned(),
            )]),
            "test_multiple_content_types" => CallToolResult::content(vec![
                Content::text("Multiple content types test:"),
                Content::image(TEST_IMAGE_BASE64, "image/png"),
                embedded(
                    "test://mixed-content-resource",
                    "application/json",
                    json!({"test": "data", "value": 123}).to_string(),
                ),
            ]),
            "test_error_handling" => CallToolResult::error(ERROR_MESSAGE),
            "test_elicitation" | "test_elicitation_sep1034_defaults" => {
                return Ok(elicitation_fixture(&params));
            }
            "test_tool_with_logging" => {
                ctx.log(LogLevel::Info, "Tool execution started").await;
                sleep(Duration::from_millis(50)).await;
                ctx.log(LogLevel::Info, "Tool processing data").await;
                sleep(Duration::from_millis(50)).await;
                ctx.log(LogLevel::Info, "Tool execution completed").await;
                CallToolResult::text("Tool with logging executed successfully")
            }
            "test_tool_with_progress" => {
                for step in [0.0, 50.0, 100.0] {
                    let message = format!("Completed step {step} of 100");
                    ctx.progress(step, 100.0, Some(&message)).await;
                    if step < 100.0 {
                        sleep(Duration::from_millis(50)).await;
                    }
                }
                let token = ctx.progress_token().map_or_else(
                    || "no progress token".to_owned(),
                    |t| t.as_str().map_or_else(|| t.to_string(), str::to_owned),
                );
                CallToolResult::text(token)
            }
            "test_reconnection" => {
                ctx.close_stream(Duration::from_millis(500)).await;
                sleep(Duration::from_millis(100)).await;
                CallToolResult::text(
                    "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.",
                )
            }
            "test_sampling" => {
                let prompt = params
                    .arguments
                    .as_ref()
                    .and_then(|a| a.get("prompt"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let ask = SamplingRequest::new(vec![SamplingMessage::user(prompt)], 100);
                match ctx.sample(ask).await {
                    Ok(answer) => CallToolResult::text(format!(
                        "LLM response: {}",
                        answer.text().unwrap_or("No response")
                    )),
                    Err(e) => CallToolResult::error(e.to_string()),
                }
            }
            "test_elicitation_sep1330_enums" => return Ok(sep1330_fixture(&ctx).await),
            JSON_SCHEMA_2020_12_TOOL => {
                let args = Value::Object(params.arguments.unwrap_or_default());
                CallToolResult::text(format!("JSON Schema 2020-12 tool called with: {args}"))
            }
            other => {
                return Err(ServerError::invalid_params(format!(
                    "Unknown tool: {other}"
                )));
            }
        };
        Ok(result.into())
    }
}

/// The elicitation fixtures: ask one form question (an input-required result; legacy
/// clients on a session get it as a real `elicitation/create`), then report the answer.
fn elicitation_fixture(params: &CallToolParams) -> CallToolResponse {
    let (prefix, message, schema) = if params.name == "test_elicitation" {
        let message = params
            .arguments
            .as_ref()
            .and_then(|a| a.get("message"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let schema = json!({
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"}
            },
            "required": ["username", "email"]
        });
        ("User response", message.to_owned(), schema)
    } else {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "description": "User age", "default": 30},
                "score": {"type": "number", "description": "User score", "default": 95.5},
                "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "description": "Verification status", "default": true}
            },
            "required": []
        });
        (
            "Elicitation completed",
            "Please review and update the form fields with defaults".to_owned(),
            schema,
        )
    };
    match params
        .input_responses
        .as_ref()
        .and_then(|r| r.get("answer"))
    {
        None => mcp::InputRequired::new()
            .elicit(
                "answer",
                mcp::elicit_form(message, mcp::FormSchema::from_json(schema)),
            )
            .into(),
        Some(answer) => {
            let action = answer
                .get("action")
                .and_then(Value::as_str)
                .unwrap_or("cancel");
            let content = answer.get("content").cloned().unwrap_or_else(|| json!({}));
            CallToolResult::text(format!("{prefix}: action={action}, content={content}")).into()
        }
    }
}

/// `test_elicitation_sep1330_enums`: the five enum shapes of SEP-1330, one of them the
/// deprecated `enumNames` form the framework's form checks refuse in input-required results
/// (use `oneOf` with titles), so this fixture sends its `elicitation/create` unchecked on
/// the legacy session ([`Context::send_request`](mcp::Context::send_request)).
async fn sep1330_fixture(ctx: &mcp::Context) -> CallToolResponse {
    let titled = |prefix: &str, titles: [&str; 3]| -> Vec<Value> {
        titles
            .iter()
            .enumerate()
            .map(|(i, t)| json!({"const": format!("{prefix}{}", i + 1), "title": t}))
            .collect()
    };
    let params = json!({
        "message": "Please select options from the enum fields",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"]},
                "titledSingle": {"type": "string", "description": "Select one option with titles",
                    "oneOf": titled("value", ["First Option", "Second Option", "Third Option"])},
                "legacyEnum": {"type": "string", "description": "Select one option (legacy)",
                    "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
                "untitledMulti": {"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3,
                    "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                "titledMulti": {"type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3,
                    "items": {"anyOf": titled("value", ["First Choice", "Second Choice", "Third Choice"])}}
            },
            "required": []
        }
    });
    match ctx
        .send_request(mcp::protocol::ELICITATION_CREATE, params)
        .await
    {
        Ok(answer) => {
            let action = answer
                .get("action")
                .and_then(Value::as_str)
                .unwrap_or("cancel");
            let content = answer.get("content").cloned().unwrap_or_else(|| json!({}));
            CallToolResult::text(format!(
                "Elicitation completed: action={action}, content={content}"
            ))
            .into()
        }
        Err(e) => CallToolResult::error(e.message).into(),
    }
}

/// The conformance server, ready to serve. Browser origins are refused; see
/// [`server_at`] for the server that also accepts its own loopback origins.
pub fn server() -> mcp::ServerBuilder {
    mcp::Server::builder(Conformance::new())
        .instructions("Fixtures for the MCP conformance suite's server scenarios.")
}

/// The conformance server bound at `addr`: it accepts requests from the loopback origins
/// of that port ([`loopback_origins`]) and refuses every other browser origin, which is
/// what the suite's `dns-rebinding-protection` scenario checks.
pub fn server_at(addr: SocketAddr) -> mcp::ServerBuilder {
    server().transport(|http: mcp::transport::http::HttpConfig| {
        http.allowed_origins(loopback_origins(addr))
    })
}

/// `http://127.0.0.1:<port>`, `http://localhost:<port>` and `http://[::1]:<port>`: the
/// origins a page served by this machine on `addr`'s port has.
pub fn loopback_origins(addr: SocketAddr) -> Vec<String> {
    let port = addr.port();
    ["127.0.0.1", "localhost", "[::1]"]
        .iter()
        .map(|host| format!("http://{host}:{port}"))
        .collect()
}
