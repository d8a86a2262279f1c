//! The traits services implement.

use std::future::Future;

use super::{Features, RequestContext};
use crate::error::ServerError;
use crate::protocol::{
    CallToolParams, CallToolResponse, CompleteParams, CompleteResult, GetPromptParams,
    GetPromptResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, ReadResourceParams, ReadResourceResult, Tool,
};

use crate::base::BoxFuture;

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

    /// `tools/call`. The params are lent, not given: the dispatcher keeps them to bind a
    /// request state to an input-required answer. A tool that can never answer
    /// input-required (no [`Context`](crate::Context) parameter, a return type that cannot
    /// ask) takes its arguments out of them instead of copying each one.
    fn call_tool<'a>(
        &'a self,
        params: &'a mut CallToolParams,
        request: &'a RequestContext,
    ) -> BoxFuture<'a, Result<CallToolResponse, ServerError>>;

    /// Which features beyond tools the service has: they decide the capabilities sent in
    /// `initialize` and `server/discover`, and a method of a feature the service lacks is
    /// answered "method not found" without calling the hooks below.
    fn features(&self) -> Features {
        Features::default()
    }

    /// `resources/list`.
    fn list_resources<'a>(
        &'a self,
        cursor: Option<String>,
        request: &'a RequestContext,
    ) -> BoxFuture<'a, Result<ListResourcesResult, ServerError>> {
        let _ = (cursor, request);
        Box::pin(std::future::ready(Err(ServerError::method_not_found())))
    }

    /// `resources/templates/list`.
    fn list_resource_templates<'a>(
        &'a self,
        cursor: Option<String>,
        request: &'a RequestContext,
    ) -> BoxFuture<'a, Result<ListResourceTemplatesResult, ServerError>> {
        let _ = (cursor, request);
        Box::pin(std::future::ready(Err(ServerError::method_not_found())))
    }

    /// `resources/read`.
    fn read_resource<'a>(
        &'a self,
        params: ReadResourceParams,
        request: &'a RequestContext,
    ) -> BoxFuture<'a, Result<ReadResourceResult, ServerError>> {
        let _ = (params, request);
        Box::pin(std::future::ready(Err(ServerError::method_not_found())))
    }

    /// `prompts/list`.
    fn list_prompts<'a>(
        &'a self,
        cursor: Option<String>,
        request: &'a RequestContext,
    ) -> BoxFuture<'a, Result<ListPromptsResult, ServerError>> {
        let _ = (cursor, request);
        Box::pin(std::future::ready(Err(ServerError::method_not_found())))
    }

    /// `prompts/get`.
    fn get_prompt<'a>(
        &'a self,
        params: GetPromptParams,
        request: &'a RequestContext,
    ) -> BoxFuture<'a, Result<GetPromptResult, ServerError>> {
        let _ = (params, request);
        Box::pin(std::future::ready(Err(ServerError::method_not_found())))
    }

    /// `completion/complete`.
    fn complete<'a>(
        &'a self,
        params: CompleteParams,
        request: &'a RequestContext,
    ) -> BoxFuture<'a, Result<CompleteResult, ServerError>> {
        let _ = (params, request);
        Box::pin(std::future::ready(Err(ServerError::method_not_found())))
    }
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

    /// Which features beyond tools the service has (none by default): declare the ones
    /// whose hooks you define, so that the capabilities name them and their methods reach
    /// the hooks.
    fn features(&self) -> Features {
        Features::default()
    }

    /// Lists one page of resources (`resources/list`). Default: "method not found".
    fn on_list_resources(
        &self,
        cursor: Option<String>,
        request: &RequestContext,
    ) -> impl Future<Output = Result<ListResourcesResult, ServerError>> + Send {
        let _ = (cursor, request);
        std::future::ready(Err(ServerError::method_not_found()))
    }

    /// Lists one page of resource templates (`resources/templates/list`). Default: "method
    /// not found".
    fn on_list_resource_templates(
        &self,
        cursor: Option<String>,
        request: &RequestContext,
    ) -> impl Future<Output = Result<ListResourceTemplatesResult, ServerError>> + Send {
        let _ = (cursor, request);
        std::future::ready(Err(ServerError::method_not_found()))
    }

    /// Reads a resource (`resources/read`); answer an unknown URI with
    /// [`ServerError::resource_not_found`]. Default: "method not found".
    fn on_read_resource(
        &self,
        params: ReadResourceParams,
        request: &RequestContext,
    ) -> impl Future<Output = Result<ReadResourceResult, ServerError>> + Send {
        let _ = (params, request);
        std::future::ready(Err(ServerError::method_not_found()))
    }

    /// Lists one page of prompts (`prompts/list`). Default: "method not found".
    fn on_list_prompts(
        &self,
        cursor: Option<String>,
        request: &RequestContext,
    ) -> impl Future<Output = Result<ListPromptsResult, ServerError>> + Send {
        let _ = (cursor, request);
        std::future::ready(Err(ServerError::method_not_found()))
    }

    /// Gets a prompt (`prompts/get`); answer an unknown prompt with
    /// [`ServerError::prompt_not_found`]. Default: "method not found".
    fn on_get_prompt(
        &self,
        params: GetPromptParams,
        request: &RequestContext,
    ) -> impl Future<Output = Result<GetPromptResult, ServerError>> + Send {
        let _ = (params, request);
        std::future::ready(Err(ServerError::method_not_found()))
    }

    /// Completes an argument (`completion/complete`). Default: "method not found".
    fn on_complete(
        &self,
        params: CompleteParams,
        request: &RequestContext,
    ) -> impl Future<Output = Result<CompleteResult, ServerError>> + Send {
        let _ = (params, request);
        std::future::ready(Err(ServerError::method_not_found()))
    }
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
        params: &'a mut CallToolParams,
        request: &'a RequestContext,
    ) -> BoxFuture<'a, Result<CallToolResponse, ServerError>> {
        // An advanced tool may answer input-required at any time: its arguments stay here.
        Box::pin(self.service.on_call_tool(params.clone(), request))
    }

    fn features(&self) -> Features {
        self.service.features()
    }

    fn list_resources<'a>(
        &'a self,
        cursor: Option<String>,
        request: &'a RequestContext,
    ) -> BoxFuture<'a, Result<ListResourcesResult, ServerError>> {
        Box::pin(self.service.on_list_resources(cursor, request))
    }

    fn list_resource_templates<'a>(
        &'a self,
        cursor: Option<String>,
        request: &'a RequestContext,
    ) -> BoxFuture<'a, Result<ListResourceTemplatesResult, ServerError>> {
        Box::pin(self.service.on_list_resource_templates(cursor, request))
    }

    fn read_resource<'a>(
        &'a self,
        params: ReadResourceParams,
        request: &'a RequestContext,
    ) -> BoxFuture<'a, Result<ReadResourceResult, ServerError>> {
        Box::pin(self.service.on_read_resource(params, request))
    }

    fn list_prompts<'a>(
        &'a self,
        cursor: Option<String>,
        request: &'a RequestContext,
    ) -> BoxFuture<'a, Result<ListPromptsResult, ServerError>> {
        Box::pin(self.service.on_list_prompts(cursor, request))
    }

    fn get_prompt<'a>(
        &'a self,
        params: GetPromptParams,
        request: &'a RequestContext,
    ) -> BoxFuture<'a, Result<GetPromptResult, ServerError>> {
        Box::pin(self.service.on_get_prompt(params, request))
    }

    fn complete<'a>(
        &'a self,
        params: CompleteParams,
        request: &'a RequestContext,
    ) -> BoxFuture<'a, Result<CompleteResult, ServerError>> {
        Box::pin(self.service.on_complete(params, request))
    }
}
