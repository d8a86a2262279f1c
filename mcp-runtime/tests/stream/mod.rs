//! The service the message-stream transports' tests (stdio, in-process) serve: logs and
//! progress, slow and cancellable calls, a panic, an elicitation, a session counter, a
//! header argument, and tools reading the HTTP request those transports do not have.

use std::time::Duration;

use mcp::{ElicitAction, InputRequired, ToolOutput};

pub struct Svc;

#[derive(serde::Deserialize, mcp::Form)]
pub struct Confirm {
    /// Go ahead
    ok: bool,
}

#[mcp::service(name = "stdio-test", version = "1.0.0")]
impl Svc {
    /// Logs and reports progress, then answers.
    pub async fn work(&self, ctx: mcp::Context) -> String {
        ctx.log(mcp::LogLevel::Info, "working").await;
        ctx.progress(1.0, 2.0, None).await;
        "worked".into()
    }

    /// Echoes.
    pub fn echo(&self, text: String) -> String {
        text
    }

    /// Sleeps, then answers.
    pub async fn slow(&self, ms: u64) -> String {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        format!("slept {ms}")
    }

    /// Works `micros` microseconds, or stops when the call is cancelled, and says which.
    pub async fn race(&self, micros: u64, ctx: mcp::Context) -> String {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_micros(micros)) => "finished".into(),
            () = ctx.cancelled() => "cancelled".into(),
        }
    }

    /// Panics.
    pub fn boom(&self) -> String {
        panic!("secret detail /etc/passwd")
    }

    /// Asks for a confirmation.
    pub async fn confirm(
        &self,
        context: mcp::Context,
    ) -> Result<ToolOutput<String>, mcp::ToolError> {
        match context.elicit_result("c") {
            None => Ok(InputRequired::new()
                .elicit("c", mcp::elicit_form("Sure?", mcp::form_of::<Confirm>()))
                .into()),
            Some(r) if r.action == ElicitAction::Accept => {
                let ok = context
                    .accepted_content::<Confirm>("c")
                    .is_some_and(|c| c.ok);
                Ok(ToolOutput::Done(format!("confirmed {ok}")))
            }
            Some(_) => Ok(ToolOutput::Done("declined".into())),
        }
    }

    /// Counts calls in the legacy session (modern calls have none).
    #[expect(deprecated)]
    pub async fn count(&self, session: Option<mcp::Session>) -> Result<i64, mcp::ToolError> {
        let Some(session) = session else {
            return Err(mcp::ToolError::new("no session"));
        };
        Ok(session
            .update("n", |n: Option<i64>| n.unwrap_or(0) + 1)
            .await?)
    }

    /// A region that travels in a header over HTTP.
    pub fn region(&self, #[argument(header = "Region")] region: String) -> String {
        format!("region {region}")
    }

    /// How many HTTP headers the request had.
    pub fn headers(&self, headers: http::HeaderMap) -> usize {
        headers.len()
    }

    /// The HTTP request's path.
    pub fn path(&self, parts: http::request::Parts) -> String {
        parts.uri.path().to_owned()
    }
}
