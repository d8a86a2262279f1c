//! The inventory service: change notifications and replicas. Its tools announce changes
//! (`restock`, `touch`, `toggle`), ask for a confirmation (`confirm`: an elicitation, or a
//! modern `input_required` round with a signed request state), count calls in a legacy
//! session (`count`) and name the replica that served them (`replica`), so a test behind a
//! round-robin load balancer can see requests alternate. `audit` runs as a task (the tasks
//! extension): it asks for a confirmation through the task, then works for a while,
//! naming in its status message and result the replica that ran each part.

use mcp::{ElicitAction, InputRequired, ToolOutput};
use serde::Deserialize;

/// A confirmation form.
#[derive(Deserialize, mcp::Form)]
pub struct Confirm {
    /// Go ahead
    pub ok: bool,
}

/// The inventory service; `name` is the replica's name (`MCP_REPLICA` in the example).
#[derive(Clone, Debug)]
pub struct Inventory {
    name: String,
}

impl Inventory {
    /// A replica called `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self { name: name.into() }
    }

    /// The server this replica serves: list changes advertised, resource subscriptions on.
    pub fn builder(self) -> mcp::ServerBuilder {
        mcp::Server::builder(self)
            .list_changed(true)
            .resource_subscriptions(true)
    }
}

#[mcp::service(name = "inventory", version = "1.0.0")]
impl Inventory {
    /// The stock level.
    #[resource(uri = "inventory://stock", mime_type = "application/json")]
    fn stock(&self) -> String {
        r#"{"apples": 3}"#.into()
    }

    /// Echoes `value` (the benchmarks' call).
    pub fn echo(&self, value: String) -> String {
        value
    }

    /// Which replica served this call.
    pub fn replica(&self) -> String {
        self.name.clone()
    }

    /// Announces that the tool list changed.
    pub fn restock(&self, ctx: mcp::Context) -> Result<String, mcp::ToolError> {
        let notifier = ctx
            .notifier()
            .ok_or_else(|| mcp::ToolError::new("no notifier"))?;
        notifier.tools_changed();
        Ok(format!("announced by {}", self.name))
    }

    /// Announces that resource `uri` changed.
    pub fn touch(&self, uri: String, ctx: mcp::Context) -> Result<String, mcp::ToolError> {
        let notifier = ctx
            .notifier()
            .ok_or_else(|| mcp::ToolError::new("no notifier"))?;
        notifier.resource_updated(uri.clone());
        Ok(format!("touched {uri} on {}", self.name))
    }

    /// Enables or disables a tool on every replica.
    pub fn toggle(
        &self,
        tool: String,
        enabled: bool,
        ctx: mcp::Context,
    ) -> Result<String, mcp::ToolError> {
        let notifier = ctx
            .notifier()
            .ok_or_else(|| mcp::ToolError::new("no notifier"))?;
        if enabled {
            notifier.enable_tool(&tool);
        } else {
            notifier.disable_tool(&tool);
        }
        Ok(format!("{tool} enabled: {enabled}"))
    }

    /// Asks for a confirmation.
    pub async fn confirm(
        &self,
        context: mcp::Context,
    ) -> Result<ToolOutput<String>, mcp::ToolError> {
        match context.elicit_result("c") {
            None => Ok(InputRequired::new()
                .elicit("c", mcp::elicit_form("Sure?", mcp::form_of::<Confirm>()))
                .state(format!("asked by {}", self.name))
                .into()),
            Some(r) if r.action == ElicitAction::Accept => {
                let ok = context
                    .accepted_content::<Confirm>("c")
                    .is_some_and(|c| c.ok);
                let state = context.request_state().unwrap_or("no state");
                Ok(ToolOutput::Done(format!(
                    "confirmed {ok} ({state}, answered on {})",
                    self.name
                )))
            }
            Some(_) => Ok(ToolOutput::Done("declined".into())),
        }
    }

    /// Audits `warehouse` for `seconds` seconds after a confirmation, as a task when the
    /// client declares the tasks extension: the confirmation is asked through the task,
    /// progress goes to the task's status message, and the result names the replica that
    /// did the work.
    #[tool(task = "optional")]
    pub async fn audit(
        &self,
        ctx: mcp::Context,
        warehouse: String,
        seconds: f64,
    ) -> Result<ToolOutput<String>, mcp::ToolError> {
        let Some(Confirm { ok }) = ctx.accepted_content::<Confirm>("go") else {
            return Ok(InputRequired::new()
                .elicit(
                    "go",
                    mcp::elicit_form(format!("Audit {warehouse}?"), mcp::form_of::<Confirm>()),
                )
                .into());
        };
        if !ok {
            return Ok(ToolOutput::Done(format!("audit of {warehouse} declined")));
        }
        let steps = 10u32;
        let step = std::time::Duration::from_secs_f64(seconds.clamp(0.0, 600.0) / f64::from(steps));
        for done in 1..=steps {
            tokio::select! {
                () = tokio::time::sleep(step) => {}
                () = ctx.cancelled() => {
                    tracing::warn!(replica = %self.name, %warehouse, "audit cancelled");
                    return Err(mcp::ToolError::new("cancelled"));
                }
            }
            let message = format!("{done}/{steps} aisles on {}", self.name);
            ctx.progress(f64::from(done), f64::from(steps), Some(&message))
                .await;
        }
        Ok(ToolOutput::Done(format!(
            "audited {warehouse} on {}",
            self.name
        )))
    }

    /// Counts the calls of this legacy session (modern calls have no session): `"<n> on
    /// <replica>"`.
    #[expect(deprecated)]
    pub async fn count(&self, session: Option<mcp::Session>) -> Result<String, mcp::ToolError> {
        let Some(session) = session else {
            return Err(mcp::ToolError::new("no session"));
        };
        let n = session
            .update("count", |n: Option<i64>| n.unwrap_or(0) + 1)
            .await
            .map_err(|e| mcp::ToolError::new(e.to_string()))?;
        Ok(format!("{n} on {}", self.name))
    }
}
