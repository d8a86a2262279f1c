//! The inventory service: change notifications and replicas. Its tools announce changes
//! (`restock`, `touch`, `toggle`), ask for a confirmation (`confirm`: an elicitation, or a
//! modern `input_required` round with a signed request state), count calls in a legacy
//! session (`count`) and name the replica that served them (`replica`), so a test behind a
//! round-robin load balancer can see requests alternate.

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
