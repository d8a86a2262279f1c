//! The fixtures the official MCP conformance suite's server scenarios call
//! (`@modelcontextprotocol/conformance`, run by `interop/run-conformance.sh`), written the
//! way a user writes a service: one `#[mcp::service]` impl whose `#[tool]`, `#[resource]`,
//! `#[prompt]` and `#[complete]` methods take typed arguments (their schemas generated,
//! described by doc comments) and talk to the client through [`mcp::Context`] (logging,
//! progress, SSE stream control, sampling, elicitation, [`mcp::InputRequired`] rounds). The
//! contents match the suite's scenario descriptions and the reference fixtures of the
//! TypeScript peer (`interop/server.mjs --conformance`).
//!
//! The impl lists every fixture; the longer bodies sit with their scenarios' other fixtures:
//! [`conformance_input`](crate::conformance_input) (the 2026-07-28 input-required tools,
//! the `Mcp-Param-*` header tool and the diagnostic tools of `server-stateless`),
//! [`conformance_tasks`](crate::conformance_tasks) (the tasks extension's tools, declared
//! with `#[tool(task = ...)]`) and [`conformance_features`](crate::conformance_features)
//! (resource, prompt and completion contents).
//!
//! # What stays hand-written, and why
//!
//! - `json_schema_2020_12_tool`'s input schema is given verbatim (`#[tool(schema = ...)]`):
//!   the scenario checks JSON Schema 2020-12 keywords (`$schema`, `$defs` with a `$ref`) that
//!   the generated schemas spell differently (schemars names a definition after its type).
//! - The SEP-1034 form (`test_elicitation_sep1034_defaults`) is a [`mcp::FormSchema`] read
//!   from JSON: `#[derive(mcp::Form)]` declares no default values, and the scenario checks
//!   them (and an untitled `enum`).
//! - The SEP-1330 form (`test_elicitation_sep1330_enums`) is JSON sent unchecked on the
//!   legacy session ([`Context::send_request`](mcp::Context::send_request)): its deprecated
//!   `enumNames` form is refused by the framework's form checks.
//! - Resource subscriptions are turned on in [`server`]
//!   ([`ServerBuilder::resource_subscriptions`](mcp::ServerBuilder::resource_subscriptions)):
//!   the attribute has no key for them.

use std::net::SocketAddr;
use std::time::Duration;

use mcp::protocol::ResourceContents;
use mcp::{
    Content, Context, LogLevel, PromptMessage, SamplingMessage, SamplingRequest, ServerError,
    ToolError, ToolOutput,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::time::sleep;

use crate::{conformance_features as features, conformance_input as input};
use crate::{conformance_tasks as tasks, conformance_tasks::Confirmation};

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
#[derive(Clone, Copy, Debug, Default)]
pub struct Conformance;

/// The address of `json_schema_2020_12_tool` (its `$defs/address`).
#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct Address {
    /// The street.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub street: Option<String>,
    /// The city.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
}

/// The answer to `test_elicitation`'s question.
#[derive(Deserialize, mcp::Form)]
pub struct UserResponse {
    /// User's response
    pub username: String,
    /// User's email address
    pub email: String,
}

#[mcp::service(
    name = "mcp-conformance",
    instructions = "Fixtures for the MCP conformance suite's server scenarios."
)]
impl Conformance {
    // ---------------------------------------------------------------- content

    /// Returns simple text content
    pub fn test_simple_text(&self) -> String {
        SIMPLE_TEXT.to_owned()
    }

    /// Returns image content
    pub fn test_image_content(&self) -> Content {
        Content::image(TEST_IMAGE_BASE64, "image/png")
    }

    /// Returns audio content
    pub fn test_audio_content(&self) -> Content {
        Content::audio(TEST_AUDIO_BASE64, "audio/wav")
    }

    /// Returns an embedded resource
    pub fn test_embedded_resource(&self) -> Content {
        embedded(
            "test://embedded-resource",
            "text/plain",
            "This is an embedded resource content.".to_owned(),
        )
    }

    /// Returns text, image and resource content
    pub fn test_multiple_content_types(&self) -> Vec<Content> {
        vec![
            Content::text("Multiple content types test:"),
            Content::image(TEST_IMAGE_BASE64, "image/png"),
            embedded(
                "test://mixed-content-resource",
                "application/json",
                json!({"test": "data", "value": 123}).to_string(),
            ),
        ]
    }

    /// Always fails with a tool error
    pub fn test_error_handling(&self) -> Result<String, ToolError> {
        Err(ToolError::new(ERROR_MESSAGE))
    }

    // ------------------------------------------------------ talking to the client

    /// Asks the client for user input
    ///
    /// # Arguments
    /// * `message` - The message to show the user
    pub fn test_elicitation(&self, message: String, ctx: Context) -> ToolOutput<String> {
        let ask = || mcp::elicit_form(message.clone(), mcp::form_of::<UserResponse>());
        answered(&ctx, "User response", ask)
    }

    /// Elicitation whose fields all carry defaults (SEP-1034)
    pub fn test_elicitation_sep1034_defaults(&self, ctx: Context) -> ToolOutput<String> {
        let ask = || {
            mcp::elicit_form(
                "Please review and update the form fields with defaults",
                mcp::FormSchema::from_json(sep1034_form()),
            )
        };
        answered(&ctx, "Elicitation completed", ask)
    }

    /// Elicitation with the five enum schema variants (SEP-1330)
    pub async fn test_elicitation_sep1330_enums(&self, ctx: Context) -> Result<String, ToolError> {
        let params = json!({
            "message": "Please select options from the enum fields",
            "requestedSchema": sep1330_form(),
        });
        let answer = ctx
            .send_request(mcp::protocol::ELICITATION_CREATE, params)
            .await
            .map_err(|e| ToolError::new(e.message))?;
        Ok(format!(
            "Elicitation completed: {}",
            action_and_content(&answer)
        ))
    }

    /// Emits three log notifications while running
    pub async fn test_tool_with_logging(&self, ctx: Context) -> String {
        ctx.log(LogLevel::Info, "Tool execution started").await;
        sleep(Duration::from_millis(50)).await;
        ctx.log(LogLevel::Info, "Tool processing data").await;
        sleep(Duration::from_millis(50)).await;
        ctx.log(LogLevel::Info, "Tool execution completed").await;
        "Tool with logging executed successfully".to_owned()
    }

    /// Reports progress 0/50/100 when given a progress token
    pub async fn test_tool_with_progress(&self, ctx: Context) -> String {
        for step in [0.0, 50.0, 100.0] {
            let message = format!("Completed step {step} of 100");
            ctx.progress(step, 100.0, Some(&message)).await;
            if step < 100.0 {
                sleep(Duration::from_millis(50)).await;
            }
        }
        ctx.progress_token().map_or_else(
            || "no progress token".to_owned(),
            |t| t.as_str().map_or_else(|| t.to_string(), str::to_owned),
        )
    }

    /// Closes its SSE stream mid-call (SEP-1699); the result arrives after the client reconnects
    pub async fn test_reconnection(&self, ctx: Context) -> String {
        ctx.close_stream(Duration::from_millis(500)).await;
        sleep(Duration::from_millis(100)).await;
        "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.".to_owned()
    }

    /// Asks the client for an LLM completion
    ///
    /// # Arguments
    /// * `prompt` - The prompt to send to the LLM
    pub async fn test_sampling(&self, prompt: String, ctx: Context) -> Result<String, ToolError> {
        let ask = SamplingRequest::new(vec![SamplingMessage::user(prompt)], 100);
        let answer = ctx
            .sample(ask)
            .await
            .map_err(|e| ToolError::new(e.to_string()))?;
        Ok(format!(
            "LLM response: {}",
            answer.text().unwrap_or("No response")
        ))
    }

    /// Tool with JSON Schema 2020-12 features (SEP-1613)
    #[tool(schema = r##"{
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
    }"##)]
    pub fn json_schema_2020_12_tool(
        &self,
        name: Option<String>,
        address: Option<Address>,
    ) -> String {
        let mut args = serde_json::Map::new();
        if let Some(name) = name {
            args.insert("name".into(), Value::String(name));
        }
        if let Some(address) = address {
            args.insert("address".into(), json!(address));
        }
        format!(
            "JSON Schema 2020-12 tool called with: {}",
            Value::Object(args)
        )
    }

    // ------------------------------------------- input_required (2026-07-28, SEP-2322)

    /// Asks for the user's name (input_required, elicitation)
    pub fn test_input_required_result_elicitation(&self, ctx: Context) -> ToolOutput<String> {
        input::elicitation(&ctx)
    }

    /// Asks the client's model a question (input_required, sampling)
    pub async fn test_input_required_result_sampling(
        &self,
        ctx: Context,
    ) -> Result<String, ToolError> {
        input::sampling(&ctx).await
    }

    /// Asks for the client's roots (input_required, roots/list)
    pub fn test_input_required_result_list_roots(&self, ctx: Context) -> ToolOutput<String> {
        input::list_roots(&ctx)
    }

    /// Asks for a confirmation and checks the request state it handed out
    pub fn test_input_required_result_request_state(&self, ctx: Context) -> ToolOutput<String> {
        input::request_state(&ctx)
    }

    /// Asks for a name, a model greeting and the roots in one round
    pub async fn test_input_required_result_multiple_inputs(
        &self,
        ctx: Context,
    ) -> Result<ToolOutput<String>, ToolError> {
        input::multiple_inputs(&ctx).await
    }

    /// Asks two questions in two rounds
    pub fn test_input_required_result_multi_round(&self, ctx: Context) -> ToolOutput<String> {
        input::multi_round(&ctx)
    }

    /// Hands out a (signed) request state; a tampered one is rejected
    pub fn test_input_required_result_tampered_state(&self, ctx: Context) -> ToolOutput<String> {
        input::tampered_state(&ctx)
    }

    /// Asks only for the inputs the client's capabilities allow
    pub async fn test_input_required_result_capabilities(
        &self,
        ctx: Context,
    ) -> Result<ToolOutput<String>, ToolError> {
        input::capabilities(&ctx).await
    }

    /// Echoes an argument the client also sends as the Mcp-Param-Value header (SEP-2243)
    pub fn test_custom_header(
        &self,
        #[argument(
            header = "Value",
            description = "Mirrored into the Mcp-Param-Value header"
        )]
        value: String,
    ) -> String {
        format!("value: {value}")
    }

    /// Needs the client's sampling capability (-32021 without it)
    pub async fn test_missing_capability(&self, ctx: Context) -> Result<String, ToolError> {
        input::missing_capability(&ctx).await
    }

    /// Reports progress, then asks for the user's name
    pub async fn test_streaming_elicitation(&self, ctx: Context) -> ToolOutput<String> {
        ctx.progress(0.0, 1.0, Some("asking for the name")).await;
        input::elicitation(&ctx)
    }

    /// Logs (only to clients that asked for a log level)
    pub async fn test_logging_tool(&self, ctx: Context) -> String {
        ctx.log(LogLevel::Info, "test_logging_tool ran").await;
        "Logged (if the request asked for a log level)".to_owned()
    }

    // ------------------------------------------ tasks (io.modelcontextprotocol/tasks)

    /// Greets someone (never a task)
    ///
    /// # Arguments
    /// * `name` - Who to greet
    pub fn greet(&self, name: String) -> String {
        format!("Hello, {name}!")
    }

    /// Works for `seconds` seconds, reporting progress (a task when the client declares the tasks extension)
    ///
    /// # Arguments
    /// * `seconds` - How long to work
    /// * `label` - A label echoed in the result
    #[tool(task = "optional")]
    pub async fn slow_compute(
        &self,
        ctx: Context,
        seconds: f64,
        label: Option<String>,
    ) -> Result<String, ToolError> {
        tasks::slow_compute(&ctx, seconds, &label.unwrap_or_default()).await
    }

    /// Fails with a tool error after a second (only as a task)
    #[tool(task = "required")]
    pub async fn failing_job(&self) -> Result<String, ToolError> {
        sleep(Duration::from_secs(1)).await;
        Err(ToolError::new("The job failed: the input data is invalid"))
    }

    /// Fails with a JSON-RPC error (a task when the client declares the tasks extension)
    #[tool(task = "optional")]
    pub async fn protocol_error_job(&self) -> Result<String, ServerError> {
        sleep(Duration::from_millis(200)).await;
        Err(ServerError::client_message("The job's worker crashed"))
    }

    /// Asks for a confirmation before deleting a file
    ///
    /// # Arguments
    /// * `filename` - The file to delete
    #[tool(task = "optional")]
    pub fn confirm_delete(&self, filename: String, ctx: Context) -> ToolOutput<String> {
        match ctx.accepted_content::<Confirmation>("confirm") {
            Some(Confirmation { confirm: true }) => ToolOutput::Done(format!("Deleted {filename}")),
            Some(Confirmation { confirm: false }) => ToolOutput::Done(format!("Kept {filename}")),
            None => tasks::ask_confirmation(&format!("Delete {filename}?")).into(),
        }
    }

    /// Asks two questions at once
    #[tool(task = "optional")]
    pub fn multi_input(&self, ctx: Context) -> ToolOutput<String> {
        tasks::multi_input(&ctx)
    }

    /// Asks for the user's name in the request, then greets as a task (only as a task)
    #[tool(task = "required")]
    pub async fn test_tool_with_task(&self, ctx: Context) -> ToolOutput<String> {
        tasks::greet_after_asking(&ctx).await
    }

    // ------------------------------------------------------------------ resources

    /// A static text resource
    #[resource(
        uri = "test://static-text",
        name = "static-text",
        title = "Static text",
        mime_type = "text/plain"
    )]
    fn static_text(&self) -> &'static str {
        features::STATIC_TEXT
    }

    /// A static binary resource (a 1x1 PNG)
    #[resource(
        uri = "test://static-binary",
        name = "static-binary",
        mime_type = "image/png"
    )]
    fn static_binary(&self) -> ResourceContents {
        ResourceContents::blob(features::STATIC_BINARY_URI, TEST_IMAGE_BASE64)
            .with_mime_type("image/png")
    }

    /// A resource template with an id
    #[resource(
        template = "test://template/{id}/data",
        name = "template",
        mime_type = "application/json"
    )]
    fn template(&self, id: String) -> String {
        json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
    }

    // -------------------------------------------------------------------- prompts

    /// A simple prompt without arguments
    #[prompt]
    fn test_simple_prompt(&self) -> String {
        "This is a simple prompt for testing.".to_owned()
    }

    /// A prompt with two required arguments
    ///
    /// # Arguments
    /// * `arg1` - First test argument
    /// * `arg2` - Second test argument
    #[prompt]
    fn test_prompt_with_arguments(&self, arg1: String, arg2: String) -> String {
        format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
    }

    /// A prompt that embeds a resource
    ///
    /// # Arguments
    /// * `resourceUri` - URI of the resource to embed
    #[prompt]
    #[allow(non_snake_case)] // the suite's argument name
    fn test_prompt_with_embedded_resource(&self, resourceUri: String) -> Vec<PromptMessage> {
        features::embedded_resource_prompt(resourceUri)
    }

    /// A prompt with an image
    #[prompt]
    fn test_prompt_with_image(&self) -> Vec<PromptMessage> {
        features::image_prompt()
    }

    /// Asks the user for context first (input_required, elicitation)
    #[prompt]
    fn test_input_required_result_prompt(&self, ctx: Context) -> ToolOutput<String> {
        features::input_required_prompt(&ctx)
    }

    // ----------------------------------------------------------------- completion

    #[complete(prompt = "test_prompt_with_arguments", argument = "arg1")]
    fn complete_arg1(&self, prefix: String) -> Vec<String> {
        features::starting_with(&["test1", "test2", "testValue1", "value"], &prefix)
    }

    #[complete(template = "test://template/{id}/data", argument = "id")]
    fn complete_id(&self, prefix: String) -> Vec<String> {
        features::starting_with(&["1", "12", "123"], &prefix)
    }
}

/// An embedded text resource with a MIME type.
fn embedded(uri: &str, mime_type: &str, text: String) -> Content {
    Content::resource(ResourceContents::text(uri, text).with_mime_type(mime_type))
}

/// The elicitation fixtures: ask one form question (`answer`: an input-required result; legacy
/// clients on a session get it as a real `elicitation/create`), then report the answer,
/// whatever the user did.
fn answered(
    ctx: &Context,
    prefix: &str,
    ask: impl FnOnce() -> mcp::ElicitRequest,
) -> ToolOutput<String> {
    match ctx.elicit_result("answer") {
        None => mcp::InputRequired::new().elicit("answer", ask()).into(),
        Some(answer) => {
            ToolOutput::Done(format!("{prefix}: {}", action_and_content(&json!(answer))))
        }
    }
}

/// `action=<action>, content=<content JSON>` of an elicitation's answer.
fn action_and_content(answer: &Value) -> String {
    let action = answer
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or("cancel");
    let content = answer.get("content").cloned().unwrap_or_else(|| json!({}));
    format!("action={action}, content={content}")
}

/// The SEP-1034 form: every field has a default.
fn sep1034_form() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "description": "Verification status", "default": true}
        },
        "required": []
    })
}

/// The SEP-1330 form: the five enum shapes, one of them the deprecated `enumNames` form.
fn sep1330_form() -> Value {
    let titled = |prefix: &str, titles: [&str; 3]| -> Vec<Value> {
        titles
            .iter()
            .enumerate()
            .map(|(i, t)| json!({"const": format!("{prefix}{}", i + 1), "title": t}))
            .collect()
    };
    json!({
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
    })
}

/// The conformance server, ready to serve. Browser origins are refused; see
/// [`server_at`] for the server that also accepts its own loopback origins.
pub fn server() -> mcp::ServerBuilder {
    mcp::Server::builder(Conformance).resource_subscriptions(true)
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
