//! The fixtures the official MCP conformance suite's server scenarios call
//! (`@modelcontextprotocol/conformance`, run by `interop/run-conformance.sh`), as far as
//! the framework serves them today: tools only. The contents match the suite's scenario
//! descriptions and the reference fixtures of the TypeScript peer
//! (`interop/server.mjs --conformance`).
//!
//! Resources, prompts and completion are served by the hooks below, from
//! [`conformance_features`](crate::conformance_features).
//!
//! Not served yet, because the framework has no support for them: logging
//! (`test_tool_with_logging`), progress (`test_tool_with_progress`), SSE stream control
//! (`test_reconnection`), server→client requests (`test_sampling`, `test_elicitation*`).
//! `interop/conformance-baseline.yml` lists the scenarios that fail for that reason.

use std::net::SocketAddr;

use mcp::protocol::{JsonObject, ResourceContents};
use mcp::{
    AdvancedService, CallToolParams, CallToolResponse, CallToolResult, Content, ListToolsResult,
    RequestContext, ServerError, Tool,
};
use serde_json::{Value, json};

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
                Tool::new(JSON_SCHEMA_2020_12_TOOL, json_schema_2020_12())
                    .with_description("Tool with JSON Schema 2020-12 features (SEP-1613)"),
            ],
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
    fn features(&self) -> mcp::Features {
        crate::conformance_features::features()
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
        _request: &RequestContext,
    ) -> Result<mcp::GetPromptResult, ServerError> {
        crate::conformance_features::get_prompt(&params)
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
        _request: &RequestContext,
    ) -> Result<CallToolResponse, ServerError> {
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

/// The conformance server, ready to serve. Browser origins are refused; see
/// [`server_at`] for the server that also accepts its own loopback origins.
pub fn server() -> mcp::ServerBuilder {
    mcp::Server::builder(Conformance::new())
        .info("mcp-conformance", env!("CARGO_PKG_VERSION"))
        .instructions("Fixtures for the MCP conformance suite's server scenarios.")
}

/// The conformance server bound at `addr`: it accepts requests from the loopback origins
/// of that port ([`loopback_origins`]) and refuses every other browser origin, which is
/// what the suite's `dns-rebinding-protection` scenario checks.
pub fn server_at(addr: SocketAddr) -> mcp::ServerBuilder {
    server().allowed_origins(loopback_origins(addr))
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
