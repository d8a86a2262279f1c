//! The bodies of the 2026-07-28 conformance fixtures (suite 0.2.0-alpha.12) that ask for
//! input: the multi-round `input_required` tools (SEP-2322, `input-required-result-*`) and
//! the diagnostic tools of `server-stateless` (SEP-2575). Their tools (and the
//! `Mcp-Param-*` header tool of `http-custom-header-server-validation`, SEP-2243) are
//! methods of [`Conformance`], which calls these.
//!
//! Each reads the answers of the round from [`mcp::Context`] and asks for what is missing
//! with [`mcp::InputRequired`] (elicitation and roots) or
//! [`Context::sample`](mcp::Context::sample) (sampling); the server signs the request state
//! it hands back and rejects a tampered one before the tool runs.
//!
//! [`Conformance`]: crate::conformance::Conformance

use mcp::{
    Context, InputRequired, SamplingError, SamplingMessage, SamplingRequest, ToolError, ToolOutput,
};
use serde::Deserialize;

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

/// The name question (`user_name`, and the steps of the multi-round tool).
fn ask_name(message: &str) -> mcp::ElicitRequest {
    mcp::elicit_form(message, mcp::form_of::<Name>())
}

fn capital_question() -> SamplingRequest {
    SamplingRequest::new(
        vec![SamplingMessage::user("What is the capital of France?")],
        100,
    )
}

/// A sampling failure as the tool's error (a modern round that still asks gets an
/// `input_required` result instead).
fn failed(e: &SamplingError) -> ToolError {
    ToolError::new(e.to_string())
}

/// `user_name`: asked until answered (a wrong or missing answer asks again).
pub fn elicitation(ctx: &Context) -> ToolOutput<String> {
    match ctx.accepted_content::<Name>("user_name") {
        Some(Name { name }) => ToolOutput::Done(format!("Hello, {name}!")),
        None => InputRequired::new()
            .elicit("user_name", ask_name("What is your name?"))
            .into(),
    }
}

/// Asks the model, then reports its answer.
pub async fn sampling(ctx: &Context) -> Result<String, ToolError> {
    let answer = ctx
        .sample(capital_question())
        .await
        .map_err(|e| failed(&e))?;
    Ok(format!(
        "The model answered: {}",
        answer.text().unwrap_or_default()
    ))
}

/// `test_missing_capability`: the answer of the model (`-32021` for a client without the
/// sampling capability).
pub async fn missing_capability(ctx: &Context) -> Result<String, ToolError> {
    let answer = ctx
        .sample(capital_question())
        .await
        .map_err(|e| failed(&e))?;
    Ok(answer.text().unwrap_or_default().to_owned())
}

/// `client_roots`: the client's roots.
pub fn list_roots(ctx: &Context) -> ToolOutput<String> {
    match ctx.roots("client_roots") {
        Some(roots) => {
            let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
            ToolOutput::Done(format!("Roots: {}", uris.join(", ")))
        }
        None => InputRequired::new().list_roots("client_roots").into(),
    }
}

/// A confirmation, answered with the state handed out in the first round.
pub fn request_state(ctx: &Context) -> ToolOutput<String> {
    let confirmed = ctx.accepted_content::<Confirm>("confirm");
    match (ctx.request_state(), confirmed) {
        (Some("awaiting-confirmation"), Some(Confirm { ok })) => {
            ToolOutput::Done(format!("state-ok: confirmed={ok}"))
        }
        _ => ask_confirm("awaiting-confirmation").into(),
    }
}

fn ask_confirm(state: &str) -> InputRequired {
    InputRequired::new()
        .elicit(
            "confirm",
            mcp::elicit_form("Please confirm", mcp::form_of::<Confirm>()),
        )
        .state(state)
}

/// Three inputs of three kinds in one round; the sampling question rides along with the
/// tool's own requests when it is not answered yet.
pub async fn multiple_inputs(ctx: &Context) -> Result<ToolOutput<String>, ToolError> {
    let ask = SamplingRequest::new(vec![SamplingMessage::user("Generate a greeting")], 50);
    let greeting = match ctx.sample(ask).await {
        Ok(answer) => Some(answer.text().unwrap_or_default().to_owned()),
        Err(SamplingError::InputRequired) => None,
        Err(e) => return Err(failed(&e)),
    };
    let name = ctx.accepted_content::<Name>("user_name");
    let roots = ctx.roots("client_roots");
    Ok(match (greeting, name, roots) {
        (Some(greeting), Some(Name { name }), Some(roots)) => {
            ToolOutput::Done(format!("{greeting} {name} ({} roots)", roots.len()))
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
    })
}

/// Round 1 asks `step1`, round 2 (state `step1`) asks `step2`, round 3 answers.
pub fn multi_round(ctx: &Context) -> ToolOutput<String> {
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
                Some(Color { color }) => ToolOutput::Done(format!("{name} likes {color}")),
                None => ask_step1(),
            }
        }
        _ => ask_step1(),
    }
}

fn ask_step1() -> ToolOutput<String> {
    InputRequired::new()
        .elicit("step1", ask_name("Step 1: What is your name?"))
        .state("step1")
        .into()
}

/// The state it hands out is signed by the server, which rejects a tampered one (`-32602`)
/// before the tool runs.
pub fn tampered_state(ctx: &Context) -> ToolOutput<String> {
    match (
        ctx.request_state(),
        ctx.accepted_content::<Confirm>("confirm"),
    ) {
        (Some("integrity-protected"), Some(Confirm { ok })) => {
            ToolOutput::Done(format!("state verified: confirmed={ok}"))
        }
        _ => ask_confirm("integrity-protected").into(),
    }
}

/// Asks the model always, and the user only when the client can show a form (its declared
/// capabilities, [`Context::client_capabilities`]).
pub async fn capabilities(ctx: &Context) -> Result<ToolOutput<String>, ToolError> {
    let can_elicit = ctx
        .client_capabilities()
        .is_some_and(|c| c.elicitation.is_some());
    let answer = match ctx.sample(capital_question()).await {
        Ok(answer) => Some(answer.text().unwrap_or_default().to_owned()),
        Err(SamplingError::InputRequired) => None,
        Err(e) => return Err(failed(&e)),
    };
    let name = ctx.accepted_content::<Name>("user_name");
    Ok(match answer {
        Some(answer) if name.is_some() || !can_elicit => {
            ToolOutput::Done(format!("The model answered: {answer}"))
        }
        _ if can_elicit && name.is_none() => InputRequired::new()
            .elicit("user_name", ask_name("What is your name?"))
            .state("capabilities")
            .into(),
        _ => InputRequired::new().state("capabilities").into(),
    })
}
