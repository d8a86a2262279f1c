//! The fixtures of the tasks scenarios (`io.modelcontextprotocol/tasks`, SEP-2663; suite
//! 0.2.0-alpha.12, `tasks-*`): `greet` (never a task), `slow_compute` and the input tools
//! (tasks when the client declares the extension), `failing_job` and `test_tool_with_task`
//! (only as tasks). [`Conformance`] lists them, serves them from its `on_call_tool`
//! ([`call`]) and declares their task support ([`task_support`]).
//!
//! Each is written as a tool of a basic service would be: it reads its answers from
//! [`mcp::Context`], asks with [`mcp::InputRequired`], reports progress (which a task turns
//! into its status message) and stops when the task is cancelled.
//!
//! [`Conformance`]: crate::conformance::Conformance

use std::time::Duration;

use mcp::protocol::JsonObject;
use mcp::{
    CallToolResponse, CallToolResult, Context, InputRequired, ServerError, TaskSupport, Tool,
};
use serde::Deserialize;
use serde_json::json;

use crate::conformance_input::Name;
use crate::echo::object;

/// The answer to a yes/no question.
#[derive(Deserialize, schemars::JsonSchema, mcp::Form)]
pub struct Confirmation {
    /// Whether the user confirms.
    pub confirm: bool,
}

/// The definitions of the tools of this module, in listing order.
pub fn tools() -> Vec<Tool> {
    let none = || object(json!({"type": "object", "properties": {}}));
    vec![
        Tool::new(
            "greet",
            object(json!({
                "type": "object",
                "properties": {"name": {"type": "string", "description": "Who to greet"}},
                "required": ["name"]
            })),
        )
        .with_description("Greets someone (never a task)"),
        Tool::new(
            "slow_compute",
            object(json!({
                "type": "object",
                "properties": {
                    "seconds": {"type": "number", "description": "How long to work"},
                    "label": {"type": "string", "description": "A label echoed in the result"}
                },
                "required": ["seconds"]
            })),
        )
        .with_description("Works for `seconds` seconds, reporting progress (a task when the client declares the tasks extension)"),
        Tool::new("failing_job", none())
            .with_description("Fails with a tool error after a second (only as a task)"),
        Tool::new("protocol_error_job", none())
            .with_description("Fails with a JSON-RPC error (a task when the client declares the tasks extension)"),
        Tool::new(
            "confirm_delete",
            object(json!({
                "type": "object",
                "properties": {"filename": {"type": "string", "description": "The file to delete"}},
                "required": ["filename"]
            })),
        )
        .with_description("Asks for a confirmation before deleting a file"),
        Tool::new("multi_input", none())
            .with_description("Asks two questions at once"),
        Tool::new("test_tool_with_task", none()).with_description(
            "Asks for the user's name in the request, then greets as a task (only as a task)",
        ),
    ]
}

/// How tool `name` of this module may run as a task (`Forbidden` for every other tool).
pub fn task_support(name: &str) -> TaskSupport {
    match name {
        "slow_compute" | "protocol_error_job" | "confirm_delete" | "multi_input" => {
            TaskSupport::Optional
        }
        "failing_job" | "test_tool_with_task" => TaskSupport::Required,
        _ => TaskSupport::Forbidden,
    }
}

/// Calls tool `name` of this module; `None` when it is not one of them.
pub async fn call(
    name: &str,
    arguments: Option<&JsonObject>,
    ctx: &Context,
) -> Option<Result<CallToolResponse, ServerError>> {
    let text = |key: &str| {
        arguments
            .and_then(|a| a.get(key))
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    Some(Ok(match name {
        "greet" => CallToolResult::text(format!("Hello, {}!", text("name"))).into(),
        "slow_compute" => {
            let seconds = arguments
                .and_then(|a| a.get("seconds"))
                .and_then(serde_json::Value::as_f64)
                .unwrap_or(0.0)
                .clamp(0.0, 3600.0);
            slow_compute(ctx, seconds, &text("label")).await
        }
        "failing_job" => {
            tokio::time::sleep(Duration::from_secs(1)).await;
            CallToolResult::error("The job failed: the input data is invalid").into()
        }
        "protocol_error_job" => {
            tokio::time::sleep(Duration::from_millis(200)).await;
            return Some(Err(ServerError::client_message("The job's worker crashed")));
        }
        "confirm_delete" => match ctx.accepted_content::<Confirmation>("confirm") {
            Some(Confirmation { confirm: true }) => {
                CallToolResult::text(format!("Deleted {}", text("filename"))).into()
            }
            Some(Confirmation { confirm: false }) => {
                CallToolResult::text(format!("Kept {}", text("filename"))).into()
            }
            None => InputRequired::new()
                .elicit(
                    "confirm",
                    mcp::elicit_form(
                        format!("Delete {}?", text("filename")),
                        mcp::form_of::<Confirmation>(),
                    ),
                )
                .into(),
        },
        "multi_input" => {
            let name = ctx.accepted_content::<Name>("name");
            let confirm = ctx.accepted_content::<Confirmation>("confirm");
            match (name, confirm) {
                (Some(Name { name }), Some(Confirmation { confirm })) => {
                    CallToolResult::text(format!("name: {name}, confirmed: {confirm}")).into()
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
        "test_tool_with_task" => match ctx.accepted_content::<Name>("user_name") {
            Some(Name { name }) => {
                tokio::time::sleep(Duration::from_millis(500)).await;
                CallToolResult::text(format!("Hello, {name}! (greeted by a task)")).into()
            }
            None => InputRequired::new()
                .elicit(
                    "user_name",
                    mcp::elicit_form("What is your name?", mcp::form_of::<Name>()),
                )
                .before_task()
                .into(),
        },
        _ => return None,
    }))
}

/// Works for `seconds`, reporting progress every tenth; stops at once when cancelled.
async fn slow_compute(ctx: &Context, seconds: f64, label: &str) -> CallToolResponse {
    let step = Duration::from_secs_f64(seconds / 10.0);
    for done in 0..10u8 {
        if seconds > 0.0 {
            tokio::select! {
                () = tokio::time::sleep(step) => {}
                () = ctx.cancelled() => return CallToolResult::error("cancelled").into(),
            }
        }
        ctx.progress(
            f64::from(done + 1),
            10.0,
            Some(&format!("{}0% done", done + 1)),
        )
        .await;
    }
    CallToolResult::text(format!("Computed {label} in {seconds}s")).into()
}
