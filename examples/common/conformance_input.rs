//! The fixtures of the 2026-07-28 conformance scenarios (suite 0.2.0-alpha.12): the
//! multi-round `input_required` tools (SEP-2322, `input-required-result-*`), the tool with an
//! `Mcp-Param-*` header argument (SEP-2243, `http-custom-header-server-validation`) and the
//! diagnostic tools of `server-stateless` (SEP-2575).
//!
//! Each tool is written as a user writes one: it reads the answers of the round from
//! [`mcp::Context`] and asks for what is missing with [`mcp::InputRequired`] (elicitation
//! and roots) or [`Context::sample`](mcp::Context::sample) (sampling); the server signs the
//! request state it hands back and rejects a tampered one. [`Conformance`] serves them
//! from its `on_call_tool` ([`call`]).
//!
//! [`Conformance`]: crate::conformance::Conformance

use mcp::protocol::JsonObject;
use mcp::{
    CallToolResponse, CallToolResult, Context, InputRequired, LogLevel, RequestContext,
    SamplingError, SamplingMessage, SamplingRequest, Tool,
};
use serde::Deserialize;
use serde_json::json;

use crate::echo::object;

/// The tool with an `x-mcp-header` argument.
pub const HEADER_TOOL: &str = "test_custom_header";

/// The answer to the name question.
#[derive(Deserialize, schemars::JsonSchema, mcp::Form)]
pub struct Name {
    /// The name.
    pub name: String,
}

/// The answer to the confirmation question.
#[derive(Deserialize, schemars::JsonSchema, mcp::Form)]
pub struct Confirm {
    /// Whether the user confirms.
    pub ok: bool,
}

/// The answer to the colour question.
#[derive(Deserialize, schemars::JsonSchema, mcp::Form)]
pub struct Color {
    /// The favourite colour.
    pub color: String,
}

/// The answer to the prompt-context question.
#[derive(Deserialize, schemars::JsonSchema, mcp::Form)]
pub struct PromptContext {
    /// The context the prompt should use.
    pub context: String,
}

fn no_arguments() -> JsonObject {
    object(json!({"type": "object", "properties": {}}))
}

/// The definitions of the tools of this module, in listing order.
pub fn tools() -> Vec<Tool> {
    let tool = |name: &str, description: &str| {
        Tool::new(name, no_arguments()).with_description(description)
    };
    vec![
        tool(
            "test_input_required_result_elicitation",
            "Asks for the user's name (input_required, elicitation)",
        ),
        tool(
            "test_input_required_result_sampling",
            "Asks the client's model a question (input_required, sampling)",
        ),
        tool(
            "test_input_required_result_list_roots",
            "Asks for the client's roots (input_required, roots/list)",
        ),
        tool(
            "test_input_required_result_request_state",
            "Asks for a confirmation and checks the request state it handed out",
        ),
        tool(
            "test_input_required_result_multiple_inputs",
            "Asks for a name, a model greeting and the roots in one round",
        ),
        tool(
            "test_input_required_result_multi_round",
            "Asks two questions in two rounds",
        ),
        tool(
            "test_input_required_result_tampered_state",
            "Hands out a (signed) request state; a tampered one is rejected",
        ),
        tool(
            "test_input_required_result_capabilities",
            "Asks only for the inputs the client's capabilities allow",
        ),
        Tool::new(
            HEADER_TOOL,
            object(json!({
                "type": "object",
                "properties": {
                    "value": {"type": "string", "description": "Mirrored into the Mcp-Param-Value header", "x-mcp-header": "Value"}
                },
                "required": ["value"]
            })),
        )
        .with_description("Echoes an argument the client also sends as the Mcp-Param-Value header (SEP-2243)"),
        tool(
            "test_missing_capability",
            "Needs the client's sampling capability (-32021 without it)",
        ),
        tool(
            "test_streaming_elicitation",
            "Reports progress, then asks for the user's name",
        ),
        tool(
            "test_logging_tool",
            "Logs (only to clients that asked for a log level)",
        ),
    ]
}

/// The name question (`user_name`, and the steps of the multi-round tool).
fn ask_name(message: &str) -> mcp::ElicitRequest {
    mcp::elicit_form(message, mcp::form_of::<Name>())
}

/// Calls tool `name` of this module; `None` when it is not one of them.
pub async fn call(
    name: &str,
    arguments: Option<&JsonObject>,
    ctx: &Context,
    request: &RequestContext,
) -> Option<CallToolResponse> {
    Some(match name {
        "test_input_required_result_elicitation" => elicitation(ctx),
        "test_input_required_result_sampling" => sampling(ctx).await,
        "test_input_required_result_list_roots" => list_roots(ctx),
        "test_input_required_result_request_state" => request_state(ctx),
        "test_input_required_result_multiple_inputs" => multiple_inputs(ctx).await,
        "test_input_required_result_multi_round" => multi_round(ctx),
        "test_input_required_result_tampered_state" => tampered_state(ctx),
        "test_input_required_result_capabilities" => {
            let can_elicit = request.client_capabilities().elicitation.is_some();
            capabilities(ctx, can_elicit).await
        }
        HEADER_TOOL => {
            let value = arguments
                .and_then(|a| a.get("value"))
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default();
            CallToolResult::text(format!("value: {value}")).into()
        }
        "test_missing_capability" => match ctx.sample(capital_question()).await {
            Ok(answer) => CallToolResult::text(answer.text().unwrap_or_default()).into(),
            Err(e) => CallToolResult::error(e.to_string()).into(),
        },
        "test_streaming_elicitation" => {
            ctx.progress(0.0, 1.0, Some("asking for the name")).await;
            elicitation(ctx)
        }
        "test_logging_tool" => {
            ctx.log(LogLevel::Info, "test_logging_tool ran").await;
            CallToolResult::text("Logged (if the request asked for a log level)").into()
        }
        _ => return None,
    })
}

fn capital_question() -> SamplingRequest {
    SamplingRequest::new(
        vec![SamplingMessage::user("What is the capital of France?")],
        100,
    )
}

/// `user_name`: asked until answered (a wrong or missing answer asks again).
fn elicitation(ctx: &Context) -> CallToolResponse {
    match ctx.accepted_content::<Name>("user_name") {
        Some(Name { name }) => CallToolResult::text(format!("Hello, {name}!")).into(),
        None => InputRequired::new()
            .elicit("user_name", ask_name("What is your name?"))
            .into(),
    }
}

async fn sampling(ctx: &Context) -> CallToolResponse {
    match ctx.sample(capital_question()).await {
        Ok(answer) => CallToolResult::text(format!(
            "The model answered: {}",
            answer.text().unwrap_or_default()
        ))
        .into(),
        Err(e) => CallToolResult::error(e.to_string()).into(),
    }
}

fn list_roots(ctx: &Context) -> CallToolResponse {
    match ctx.roots("client_roots") {
        Some(roots) => {
            let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
            CallToolResult::text(format!("Roots: {}", uris.join(", "))).into()
        }
        None => InputRequired::new().list_roots("client_roots").into(),
    }
}

fn request_state(ctx: &Context) -> CallToolResponse {
    let confirmed = ctx.accepted_content::<Confirm>("confirm");
    match (ctx.request_state(), confirmed) {
        (Some("awaiting-confirmation"), Some(Confirm { ok })) => {
            CallToolResult::text(format!("state-ok: confirmed={ok}")).into()
        }
        _ => InputRequired::new()
            .elicit(
                "confirm",
                mcp::elicit_form("Please confirm", mcp::form_of::<Confirm>()),
            )
            .state("awaiting-confirmation")
            .into(),
    }
}

/// Three inputs of three kinds in one round; the sampling question rides along with the
/// tool's own requests when it is not answered yet.
async fn multiple_inputs(ctx: &Context) -> CallToolResponse {
    let ask = SamplingRequest::new(vec![SamplingMessage::user("Generate a greeting")], 50);
    let greeting = match ctx.sample(ask).await {
        Ok(answer) => Some(answer.text().unwrap_or_default().to_owned()),
        Err(SamplingError::InputRequired) => None,
        Err(e) => return CallToolResult::error(e.to_string()).into(),
    };
    let name = ctx.accepted_content::<Name>("user_name");
    let roots = ctx.roots("client_roots");
    match (greeting, name, roots) {
        (Some(greeting), Some(Name { name }), Some(roots)) => {
            CallToolResult::text(format!("{greeting} {name} ({} roots)", roots.len())).into()
        }
        (_, name, roots) => {
            let mut ask = InputRequired::new().state("multiple-inputs");
            if name.is_none() {
                ask = ask.elicit("user_name", ask_name("What is your name?"));
            }
            if roots.is_none() {
                ask = ask.list_roots("client_roots");
            }
            ask.into()
        }
    }
}

/// Round 1 asks `step1`, round 2 (state `step1`) asks `step2`, round 3 answers.
fn multi_round(ctx: &Context) -> CallToolResponse {
    match ctx.request_state() {
        Some("step1") => match ctx.accepted_content::<Name>("step1") {
            Some(Name { name }) => InputRequired::new()
                .elicit(
                    "step2",
                    mcp::elicit_form(
                        "Step 2: What is your favorite color?",
                        mcp::form_of::<Color>(),
                    ),
                )
                .state(format!("step2:{name}"))
                .into(),
            None => ask_step1(),
        },
        Some(state) if state.starts_with("step2:") => {
            let name = &state["step2:".len()..];
            match ctx.accepted_content::<Color>("step2") {
                Some(Color { color }) => {
                    CallToolResult::text(format!("{name} likes {color}")).into()
                }
                None => ask_step1(),
            }
        }
        _ => ask_step1(),
    }
}

fn ask_step1() -> CallToolResponse {
    InputRequired::new()
        .elicit("step1", ask_name("Step 1: What is your name?"))
        .state("step1")
        .into()
}

/// The state it hands out is signed by the server, which rejects a tampered one (`-32602`)
/// before the tool runs.
fn tampered_state(ctx: &Context) -> CallToolResponse {
    match (
        ctx.request_state(),
        ctx.accepted_content::<Confirm>("confirm"),
    ) {
        (Some("integrity-protected"), Some(Confirm { ok })) => {
            CallToolResult::text(format!("state verified: confirmed={ok}")).into()
        }
        _ => InputRequired::new()
            .elicit(
                "confirm",
                mcp::elicit_form("Please confirm", mcp::form_of::<Confirm>()),
            )
            .state("integrity-protected")
            .into(),
    }
}

/// Asks the model always, and the user only when the client can show a form.
async fn capabilities(ctx: &Context, can_elicit: bool) -> CallToolResponse {
    let answer = match ctx.sample(capital_question()).await {
        Ok(answer) => Some(answer.text().unwrap_or_default().to_owned()),
        Err(SamplingError::InputRequired) => None,
        Err(e) => return CallToolResult::error(e.to_string()).into(),
    };
    let name = ctx.accepted_content::<Name>("user_name");
    match answer {
        Some(answer) if name.is_some() || !can_elicit => {
            CallToolResult::text(format!("The model answered: {answer}")).into()
        }
        _ if can_elicit && name.is_none() => InputRequired::new()
            .elicit("user_name", ask_name("What is your name?"))
            .state("capabilities")
            .into(),
        _ => InputRequired::new().state("capabilities").into(),
    }
}
