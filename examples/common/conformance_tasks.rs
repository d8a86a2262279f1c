//! The bodies of the tasks scenarios' fixtures (`io.modelcontextprotocol/tasks`, SEP-2663;
//! suite 0.2.0-alpha.12, `tasks-*`). The tools are methods of [`Conformance`], their task
//! support declared with `#[tool(task = ...)]`: `greet` (never a task), `slow_compute`,
//! `protocol_error_job`, `confirm_delete` and `multi_input` (tasks when the client declares
//! the extension), `failing_job` and `test_tool_with_task` (only as tasks).
//!
//! Each is written as a tool of a basic service is: it reads its answers from
//! [`mcp::Context`], asks with [`mcp::InputRequired`], reports progress (which a task turns
//! into its status message) and stops when the task is cancelled.
//!
//! [`Conformance`]: crate::conformance::Conformance

use std::time::Duration;

use mcp::{Context, InputRequired, ToolError, ToolOutput};
use serde::Deserialize;

use crate::conformance_input::Name;

/// The answer to a yes/no question.
#[derive(Deserialize, schemars::JsonSchema, mcp::Form)]
pub struct Confirmation {
    /// Whether the user confirms.
    pub confirm: bool,
}

/// The yes/no question `confirm`.
pub fn ask_confirmation(message: &str) -> InputRequired {
    InputRequired::new().elicit(
        "confirm",
        mcp::elicit_form(message, mcp::form_of::<Confirmation>()),
    )
}

/// `slow_compute`: works for `seconds` (at most an hour), reporting progress every tenth;
/// stops at once when cancelled.
pub async fn slow_compute(ctx: &Context, seconds: f64, label: &str) -> Result<String, ToolError> {
    let seconds = seconds.clamp(0.0, 3600.0);
    let step = Duration::from_secs_f64(seconds / 10.0);
    for done in 0..10u8 {
        if seconds > 0.0 {
            tokio::select! {
                () = tokio::time::sleep(step) => {}
                () = ctx.cancelled() => return Err(ToolError::new("cancelled")),
            }
        }
        ctx.progress(
            f64::from(done + 1),
            10.0,
            Some(&format!("{}0% done", done + 1)),
        )
        .await;
    }
    Ok(format!("Computed {label} in {seconds}s"))
}

/// `multi_input`: a name and a confirmation, asked together.
pub fn multi_input(ctx: &Context) -> ToolOutput<String> {
    let name = ctx.accepted_content::<Name>("name");
    let confirm = ctx.accepted_content::<Confirmation>("confirm");
    match (name, confirm) {
        (Some(Name { name }), Some(Confirmation { confirm })) => {
            ToolOutput::Done(format!("name: {name}, confirmed: {confirm}"))
        }
        (name, confirm) => {
            let mut ask = InputRequired::new();
            if name.is_none() {
                ask = ask.elicit(
                    "name",
                    mcp::elicit_form("Your name?", mcp::form_of::<Name>()),
                );
            }
            if confirm.is_none() {
                ask = ask.elicit(
                    "confirm",
                    mcp::elicit_form("Proceed?", mcp::form_of::<Confirmation>()),
                );
            }
            ask.into()
        }
    }
}

/// `test_tool_with_task`: asks for the name in the request itself (before the call becomes
/// a task), then greets as a task.
pub async fn greet_after_asking(ctx: &Context) -> ToolOutput<String> {
    match ctx.accepted_content::<Name>("user_name") {
        Some(Name { name }) => {
            tokio::time::sleep(Duration::from_millis(500)).await;
            ToolOutput::Done(format!("Hello, {name}! (greeted by a task)"))
        }
        None => InputRequired::new()
            .elicit(
                "user_name",
                mcp::elicit_form("What is your name?", mcp::form_of::<Name>()),
            )
            .before_task()
            .into(),
    }
}
