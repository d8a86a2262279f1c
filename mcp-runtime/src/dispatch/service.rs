//! The traits services implement.

use std::future::Future;
use std::pin::Pin;

use super::RequestContext;
use crate::error::ServerError;
use crate::protocol::{CallToolParams, CallToolResponse, ListToolsResult, Tool};

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Whether a service's tools are generated (basic) or listed and dispatched by the
/// application (advanced). It decides the legacy wire shape of results (macro plumbing,
/// not public API).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ServiceKind {
    /// Generated from an annotated impl block: legacy clients get the 1.x shape (text only,
    /// no output schema), unless `legacy_structured_output` sends structured output to
    /// clients of 2025-06-18 or later.
    Basic,
    /// Application-defined: legacy clients get the results with non-object
    /// `outputSchema` / `structuredContent` removed.
    Advanced,
}

/// The dispatch interface of a service (macro plumbing, not public API).
/// `#[mcp::service]` implements it; an application writing its own discovery and dispatch
/// implements [`AdvancedService`] instead.
#[doc(hidden)]
pub trait ServiceHandler: Send + Sync + 'static {
    /// Basic or advanced.
    fn kind(&self) -> ServiceKind;

    /// The tool definitions when they are fixed (basic services). Modern `tools/call` then
    /// finds a tool's header declarations without listing pages.
    fn static_tools(&self) -> Option<&[Tool]> {
        None
    }

    /// The OAuth scopes calling tool `name` needs (`#[tool(scopes = [...])]`), enforced on
    /// `tools/call` of OAuth-protected services and never listed.
    fn tool_scopes(&self, name: &str) -> &'static [&'static str] {
        let _ = name;
        &[]
    }

    /// Whether legacy clients that negotiated 2025-06-18 or later get tool `name`'s output
    /// schema and structured content (`#[tool(legacy_structured_output = ...)]`); `None`
    /// follows [`ServerBuilder::legacy_structured_output`](crate::ServerBuilder::legacy_structured_output). Basic services only.
    fn legacy_structured_output(&self, name: &str) -> Option<bool> {
        let _ = name;
        None
    }

    /// `tools/list`.
    fn list_tools<'a>(
        &'a self,
        cursor: Option<String>,
        request: &'a RequestContext,
    ) -> BoxFuture<'a, Result<ListToolsResult, ServerError>>;

    /// `tools/call`.
    fn call_tool<'a>(
        &'a self,
        params: CallToolParams,
        request: &'a RequestContext,
    ) -> BoxFuture<'a, Result<CallToolResponse, ServerError>>;
}

/// A service that defines tool discovery and dispatch itself (the seed's advanced service).
///
/// ```
/// use mcp::{AdvancedService, CallToolParams, CallToolResponse, CallToolResult, ListToolsResult,
///           RequestContext, ServerError, Tool};
/// use serde_json::json;
///
/// struct Echo;
///
/// impl AdvancedService for Echo {
///     async fn on_list_tools(&self, cursor: Option<String>, _request: &RequestContext)
///         -> Result<ListToolsResult, ServerError> {
///         if cursor.is_some() {
///             return Err(ServerError::invalid_params("Unknown cursor"));
///         }
///         let schema = json!({"type": "object", "properties": {"value": {"type": "string"}},
///                             "required": ["value"]});
///         Ok(ListToolsResult::new(vec![Tool::new("echo", schema)]))
///     }
///
///     async fn on_call_tool(&self, params: CallToolParams, _request: &RequestContext)
///         -> Result<CallToolResponse, ServerError> {
///         if params.name != "echo" {
///             return Err(ServerError::invalid_params(format!("Unknown tool: {}", params.name)));
///         }
///         let value = params.arguments.unwrap_or_default().remove("value").unwrap_or_default();
///         Ok(CallToolResult::text(value.to_string()).with_structured(value).into())
///     }
/// }
///
/// let server = mcp::Server::builder(Echo).info("echo", "1.0.0").build();
/// assert!(server.is_ok());
/// ```
pub trait AdvancedService: Send + Sync + 'static {
    /// Lists one page of tools. `cursor` is `None` for the first page; set `next_cursor`
    /// on every page but the last, and answer an unknown cursor with
    /// [`ServerError::InvalidParams`].
    fn on_list_tools(
        &self,
        cursor: Option<String>,
        request: &RequestContext,
    ) -> impl Future<Output = Result<ListToolsResult, ServerError>> + Send;

    /// Calls a tool. An unknown tool should be answered with
    /// [`ServerError::InvalidParams`].
    fn on_call_tool(
        &self,
        params: CallToolParams,
        request: &RequestContext,
    ) -> impl Future<Output = Result<CallToolResponse, ServerError>> + Send;
}

/// Runs an [`AdvancedService`] as a [`ServiceHandler`].
pub(crate) struct Advanced<T> {
    pub(crate) service: T,
}

impl<T: AdvancedService> ServiceHandler for Advanced<T> {
    fn kind(&self) -> ServiceKind {
        ServiceKind::Advanced
    }

    fn list_tools<'a>(
        &'a self,
        cursor: Option<String>,
        request: &'a RequestContext,
    ) -> BoxFuture<'a, Result<ListToolsResult, ServerError>> {
        Box::pin(self.service.on_list_tools(cursor, request))
    }

    fn call_tool<'a>(
        &'a self,
        params: CallToolParams,
        request: &'a RequestContext,
    ) -> BoxFuture<'a, Result<CallToolResponse, ServerError>> {
        Box::pin(self.service.on_call_tool(params, request))
    }
}
