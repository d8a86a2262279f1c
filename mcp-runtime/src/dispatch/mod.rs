//! Method routing for both eras: `server/discover`, `initialize`, `ping`, `tools/list`,
//! `tools/call`, the era-specific result shapes and the mapping of handler failures to
//! JSON-RPC errors.
//!
//! This layer sees classified JSON-RPC requests and answers `Reply` values; it knows
//! nothing of axum. The HTTP status it attaches to an error is the one MCP's Streamable
//! HTTP rules give that error.

mod builder;
mod channel;
mod config;
mod context;
mod elicit;
mod features;
mod input_checks;
mod layer;
mod legacy;
#[cfg(feature = "otel")]
mod observe;
mod params;
mod prompts;
mod reply;
mod request;
mod rounds;
mod serve;
pub(crate) mod service;
mod shim;
mod talk;
mod tasks;
mod trace_bridge;
mod uri_template;

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt as _;
use http::StatusCode;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

pub use crate::base::{AuthContext, BoxFuture};
pub use crate::error::ToolError;
pub use builder::{IntoServer, IntoService, ServerBuilder};
pub use channel::{ClientChannel, LogLevel};
pub(crate) use config::ServiceConfig;
pub use config::{CacheHint, ProtocolMode, SessionMode};
pub use context::RequestContext;
pub(crate) use context::{capabilities_of, version_of};
pub use elicit::{
    __form_field, Form, FormEnum, FormField, FormOf, FormSchema, InputRequired, IntoFormSchema,
    ToolOutput, elicit_form, elicit_url, form_of,
};
pub use features::Features;
pub use layer::{LayerResponse, McpLayer, Next, Refusal, error_object};
pub(crate) use layer::{Layers, Target, Wrap, Wraps};
#[cfg(feature = "otel")]
pub(crate) use observe::network_of;
pub use params::{Context, RequestMeta};
pub(crate) use reply::{
    JsonText, Reply, Stamped, header_mismatch, internal_error, invalid_request_state,
    method_not_found,
};
pub(crate) use reply::{unsupported_version, write_reply};
pub(crate) use request::Params;
pub use request::{McpRequest, McpResponse, TransportKind};
pub(crate) use serve::current_notifier;
pub use service::AdvancedService;
pub(crate) use service::{ServiceHandler, ServiceKind};
pub(crate) use shim::Requester;
pub use shim::{ClientRequester, MAX_LEGACY_ROUNDS};
pub use talk::SamplingError;
pub(crate) use tasks::TaskReporter;
pub use tasks::TaskSupport;
pub use trace_bridge::ClientLogLayer;
#[cfg(feature = "client")]
pub(crate) use uri_template::expand_template;
pub use uri_template::{MAX_URI_BYTES, UriTemplate, UriTemplateError};

use crate::error::{Error, InsufficientScopeError, ServerError};
use crate::protocol::{
    CallToolParams, CallToolResponse, CallToolResult, DiscoverResult, ErrorCode, ErrorObject,
    InitializeParams, InitializeResult, InputRequiredResult, JsonObject, ListToolsParams,
    ListToolsResult, META_SERVER_INFO, MODERN_VERSIONS, RequestEnvelope, ResultType,
    ServerCapabilities, Tool, ToolsCapability, negotiate_legacy_version,
};
use crate::schema::headers::{self, HeaderDecl};
use crate::schema::is_object_schema;
use crate::session::streams::Streams;
use crate::session::{DynSessionStore, MemoryStore, Session};
use crate::state::{Binding, Signer, Subject};

/// How many `tools/list` pages a modern `tools/call` reads to find the called tool.
pub(crate) const MAX_TOOL_LOOKUP_PAGES: usize = 100;

/// A service ready to be served: its handler, its checked configuration, and what is
/// computed once (discovery result, header declarations).
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

struct Inner {
    /// The service's tasks (the tasks extension).
    tasks: Arc<tasks::Tasks>,
    signer: Signer,
    sessions: Option<DynSessionStore>,
    streams: Arc<Streams>,
    hub: Arc<crate::notify::Hub>,
    /// The handler's features, with the builder's additions.
    features: Features,
    handler: Box<dyn ServiceHandler>,
    kind: ServiceKind,
    legacy_shape: legacy::LegacyShape,
    config: ServiceConfig,
    header_decls: HashMap<String, Decls>,
    decl_cache: std::sync::Mutex<Option<(std::time::Instant, HashMap<String, Decls>)>>,
    server_info_meta: JsonObject,
    /// [`Inner::server_info_meta`] serialized, for [`Stamped`] results.
    server_info_meta_raw: Box<RawValue>,
    capabilities: ServerCapabilities,
    discover: Arc<str>,
    /// The first page of a modern `tools/list` of a service whose tools are fixed
    /// ([`ServiceHandler::static_tools`]), serialized by the first such request.
    tools_page: std::sync::OnceLock<Arc<str>>,
    /// The same for legacy `tools/list`: before and from
    /// [`legacy::STRUCTURED_OUTPUT_SINCE`] (the output schemas legacy clients get differ).
    legacy_tools_pages: [std::sync::OnceLock<Arc<str>>; 2],
    /// `Some` on OAuth-protected services: the scopes every request needs (tool scopes are
    /// then enforced on `tools/call`).
    required_scopes: Option<Arc<[String]>>,
    #[cfg(feature = "oauth")]
    guard: Option<Arc<crate::auth::Guard>>,
    /// The middleware: the server's layers and each tool's, prompt's and resource's.
    layers: Layers,
    /// What records the server's traffic (the `otel` feature).
    #[cfg(feature = "otel")]
    telemetry: Option<observe::Observed>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("kind", &self.inner.kind)
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts building a server for `service`: a type annotated with `#[mcp::service]`
    /// (starting from its attribute's settings) or an [`AdvancedService`] (name it with
    /// [`ServerBuilder::info`]). Set the rest with the builder's methods, then
    /// [`build`](ServerBuilder::build).
    ///
    /// ```
    /// struct Greeter;
    ///
    /// #[mcp::service(name = "greeter", version = "1.0.0")]
    /// impl Greeter {
    ///     /// Greets someone.
    ///     pub fn greet(&self, name: String) -> String { format!("Hello, {name}!") }
    /// }
    ///
    /// let server = mcp::Server::builder(Greeter)
    ///     .session_mode(mcp::SessionMode::Stateless)
    ///     .build()?;
    /// assert_eq!(server.session_mode(), mcp::SessionMode::Stateless);
    /// # Ok::<(), mcp::Error>(())
    /// ```
    pub fn builder(service: impl IntoService) -> ServerBuilder {
        service.into_builder()
    }

    /// The checked configuration.
    pub(crate) fn config(&self) -> &ServiceConfig {
        &self.inner.config
    }

    /// The server identity.
    pub fn info(&self) -> &crate::protocol::Implementation {
        &self.inner.config.info
    }

    /// The protocol era(s) served.
    pub fn protocol_mode(&self) -> ProtocolMode {
        self.inner.config.protocol_mode
    }

    /// The session mode of legacy requests.
    pub fn session_mode(&self) -> SessionMode {
        self.inner.config.session_mode
    }

    /// The limits of legacy sessions.
    pub fn session_limits(&self) -> crate::session::SessionLimits {
        self.inner.config.session_limits
    }

    /// Whether legacy clients of 2025-06-18 or later get structured output from basic
    /// services' tools by default.
    pub fn legacy_structured_output(&self) -> bool {
        self.inner.config.legacy_structured_output
    }

    /// The session store (`None` for stateless services).
    pub fn session_store(&self) -> Option<&DynSessionStore> {
        self.inner.sessions.as_ref()
    }

    /// What records the server's traffic, if it records it.
    #[cfg(feature = "otel")]
    pub(crate) fn observed(&self) -> Option<&observe::Observed> {
        self.inner.telemetry.as_ref()
    }

    /// Ends every standalone SSE stream now, and every `subscriptions/listen` stream with
    /// its graceful result (HTTP and stdio); requests keep being served. Shutdown does not
    /// need it: [`HttpServer`](crate::HttpServer) and
    /// [`McpService::with_shutdown`](crate::McpService::with_shutdown) end the streams by
    /// themselves.
    pub fn close_streams(&self) {
        self.inner.streams.close_all();
        self.inner.hub.listeners.close_all();
    }

    /// The authentication layer of a protected service.
    #[cfg(feature = "oauth")]
    pub(crate) fn guard(&self) -> Option<&Arc<crate::auth::Guard>> {
        self.inner.guard.as_ref()
    }

    /// Refuses a `tools/call` whose caller lacks the tool's scopes (protected services only).
    /// The challenge names every scope the call needs: the required ones and the tool's.
    fn check_tool_scopes(&self, tool: &str, cx: &RequestContext) -> Option<Reply> {
        let required = self.inner.required_scopes.as_ref()?;
        let scopes = self.inner.handler.tool_scopes(tool);
        let granted = cx.auth.as_ref().map(|a| &a.scopes);
        if scopes
            .iter()
            .all(|s| granted.is_some_and(|g| g.contains(*s)))
        {
            return None;
        }
        let mut needed = required.to_vec();
        for s in scopes {
            if !needed.iter().any(|n| n == s) {
                needed.push((*s).to_owned());
            }
        }
        tracing::debug!(tool, "refusing a tool call that lacks scopes");
        Some(Reply::InsufficientScope(InsufficientScopeError::new(
            "Insufficient scope",
            needed,
        )))
    }

    /// The handle that announces changes to this server's clients (on every replica sharing
    /// its [`event_bus`](ServerBuilder::event_bus)).
    pub fn notifier(&self) -> crate::notify::Notifier {
        crate::notify::Notifier::new(self.inner.hub.clone())
    }

    pub(crate) fn hub(&self) -> &Arc<crate::notify::Hub> {
        &self.inner.hub
    }

    pub(crate) fn streams(&self) -> &Arc<Streams> {
        &self.inner.streams
    }

    /// A handle of session `id`, for tools.
    pub(crate) fn session_handle(&self, id: &str) -> Option<Session> {
        let store = self.inner.sessions.clone()?;
        Some(Session::new(id.into(), store, self.inner.streams.clone()))
    }

    /// Answers one modern request whose envelope is valid and whose standard headers have
    /// been checked, in the call scope [`Server::serve`] sets up.
    async fn handle_modern(&self, method: &str, params: Params, cx: RequestContext) -> Reply {
        match method {
            "server/discover" => Reply::Ok(JsonText::Shared(self.inner.discover.clone())),
            "tools/list" => self.modern_list_tools(params.into_object(), cx).await,
            "tools/call" => self.modern_call_tool(params, cx).await,
            crate::protocol::TASKS_GET
            | crate::protocol::TASKS_UPDATE
            | crate::protocol::TASKS_CANCEL => {
                self.task_method(method, params.into_object(), cx).await
            }
            m if features::METHODS.contains(&m) => {
                self.handle_feature(m, params.into_object(), cx).await
            }
            _ => method_not_found(StatusCode::NOT_FOUND),
        }
    }

    /// Answers one legacy request (run as [`Server::handle_modern`] is).
    async fn handle_legacy(&self, method: &str, params: Params, cx: RequestContext) -> Reply {
        match method {
            "initialize" => self.initialize(params.into_object()),
            "ping" => Reply::result(&json!({})),
            "tools/list" => self.legacy_list_tools(params.into_object(), cx).await,
            "tools/call" => self.legacy_call_tool(params, cx).await,
            "logging/setLevel" => talk::set_log_level(params.into_object(), &cx).await,
            m if features::METHODS.contains(&m) => {
                self.handle_feature(m, params.into_object(), cx).await
            }
            _ => method_not_found(StatusCode::OK),
        }
    }

    fn initialize(&self, params: Option<JsonObject>) -> Reply {
        let params: InitializeParams = match parse_params(params) {
            Ok(p) => p,
            Err(r) => return r,
        };
        let result = InitializeResult {
            protocol_version: negotiate_legacy_version(&params.protocol_version).to_owned(),
            capabilities: self.inner.capabilities.clone(),
            server_info: self.inner.config.info.clone(),
            instructions: self.inner.config.instructions.clone(),
            meta: None,
        };
        Reply::result(&result)
    }

    async fn list_page(
        &self,
        params: Option<JsonObject>,
        cx: &RequestContext,
    ) -> Result<ListToolsResult, Reply> {
        let params: ListToolsParams = parse_params(params)?;
        let fut = self.inner.handler.list_tools(params.cursor, cx);
        let mut page = guarded(fut)
            .await
            .map_err(|e| e.unwrap_or_else(internal_error))?;
        if self.inner.hub.any_disabled() {
            page.tools.retain(|t| !self.inner.hub.is_disabled(&t.name));
        }
        Ok(page)
    }

    /// A call to a tool disabled at run time is refused like a call to an unknown tool.
    fn refuse_disabled(&self, tool: &str) -> Option<Reply> {
        self.inner
            .hub
            .is_disabled(tool)
            .then(|| Reply::from_server_error(&crate::error::unknown_tool(tool)))
    }

    /// Whether a `tools/list` asks for the first page of fixed tools, which is the same for
    /// every request (of one era, and on legacy of one side of
    /// [`legacy::STRUCTURED_OUTPUT_SINCE`]): it is then serialized once. Not while a tool is
    /// disabled at run time: that page is filtered per request.
    fn first_fixed_page(&self, params: Option<&JsonObject>) -> bool {
        self.inner.handler.static_tools().is_some()
            && !self.inner.hub.any_disabled()
            && params.is_none_or(|p| p.iter().all(|(k, v)| k == "_meta" && v.is_object()))
    }

    async fn modern_list_tools(&self, params: Option<JsonObject>, cx: RequestContext) -> Reply {
        let first_fixed = self.first_fixed_page(params.as_ref());
        if let Some(page) = self.inner.tools_page.get().filter(|_| first_fixed) {
            return Reply::Ok(JsonText::Shared(page.clone()));
        }
        let reply = self.modern_list_tools_page(params, cx).await;
        if let (true, Reply::Ok(page)) = (first_fixed, &reply) {
            let _ = self.inner.tools_page.set(page.share());
        }
        reply
    }

    async fn modern_list_tools_page(
        &self,
        params: Option<JsonObject>,
        cx: RequestContext,
    ) -> Reply {
        let cx = cx.with_meta(None);
        let mut page = match self.list_page(params, &cx).await {
            Ok(p) => p,
            Err(r) => return r,
        };
        let hint = self.inner.config.cache_hints.list_tools;
        page.ttl_ms = Some(match page.ttl_ms {
            Some(ttl) if ttl < 0 => {
                tracing::error!(ttl, "on_list_tools returned a negative ttlMs; sending 0");
                0
            }
            Some(ttl) => ttl,
            None => hint.ttl_ms,
        });
        page.cache_scope = Some(page.cache_scope.unwrap_or(hint.scope));
        page.result_type = Some(ResultType::Complete);
        page.meta = Some(self.stamp(page.meta.take()));
        Reply::result(&page)
    }

    async fn legacy_list_tools(&self, params: Option<JsonObject>, cx: RequestContext) -> Reply {
        let first_fixed = self.first_fixed_page(params.as_ref());
        let with_output = cx.protocol_version() >= legacy::STRUCTURED_OUTPUT_SINCE;
        let slot = &self.inner.legacy_tools_pages[usize::from(with_output)];
        if let Some(page) = slot.get().filter(|_| first_fixed) {
            return Reply::Ok(JsonText::Shared(page.clone()));
        }
        let mut page = match self.list_page(params, &cx).await {
            Ok(p) => p,
            Err(r) => return r,
        };
        page.ttl_ms = None;
        page.cache_scope = None;
        page.result_type = None;
        self.inner
            .legacy_shape
            .tools(&mut page.tools, cx.protocol_version());
        let reply = Reply::result(&page);
        if let (true, Reply::Ok(page)) = (first_fixed, &reply) {
            let _ = slot.set(page.share());
        }
        reply
    }

    async fn modern_call_tool(&self, params: Params, cx: RequestContext) -> Reply {
        if let Params::Object(Some(object)) = &params
            && object.get("requestState").is_some_and(|s| !s.is_string())
        {
            tracing::debug!(reason = "not a string", "refusing a request state");
            return invalid_request_state();
        }
        let mut params = match call_params(params) {
            Ok(p) => p,
            Err(r) => return r,
        };
        if let Some(refusal) = self.refuse_disabled(&params.name) {
            return refusal;
        }
        if let Some(refusal) = self.check_tool_scopes(&params.name, &cx) {
            return refusal;
        }
        let cx = cx.with_meta(RequestEnvelope::strip(params.meta.take()));
        params.meta = cx.meta.clone();
        let who = caller(&cx);
        let mut first_round = None;
        if let Some(token) = params.request_state.take() {
            let bind = binding(&params.name, params.arguments.as_ref(), who.as_deref());
            match self.inner.signer.open(&token, &bind) {
                Ok(plain) => {
                    let (first, plain) = rounds::split(plain);
                    #[cfg(feature = "otel")]
                    if let Some(first) = &first {
                        rounds::link_to(first);
                    }
                    first_round = first;
                    params.request_state = plain;
                }
                Err(reason) => {
                    tracing::debug!(%reason, tool = %params.name, "refusing a request state");
                    return invalid_request_state();
                }
            }
        }
        let decls = match self.header_decls(&params.name, &cx).await {
            Ok(d) => d,
            Err(r) => return r,
        };
        // Without HTTP headers (stdio, in-process) the body is the only signal: there is
        // nothing to cross-check.
        if let (Some(decls), Some(sent)) = (decls, cx.headers()) {
            let lookup = |name: &str| sent.get(name).map(|v| v.as_bytes());
            if let Err(m) = headers::check_params(&decls, params.arguments.as_ref(), lookup) {
                return header_mismatch(&m.header, &m.problem);
            }
        }
        match self.inner.handler.task_support(&params.name) {
            TaskSupport::Forbidden => {}
            _ if crate::protocol::declares_tasks(&cx.client_capabilities) => {
                let name = params.name.clone();
                let arguments = params.arguments.clone();
                let answer = |result| {
                    let bind = binding(&name, arguments.as_ref(), who.as_deref());
                    self.input_required(result, &cx, &bind, first_round)
                };
                return self
                    .call_as_task(params, cx.clone(), who.clone(), answer)
                    .await;
            }
            TaskSupport::Required => {
                return Reply::in_band(tasks::missing_extension(format!(
                    "Tool {} runs only as a task: declare the {} extension in the request's client capabilities",
                    params.name,
                    crate::protocol::TASKS_EXTENSION
                )));
            }
            TaskSupport::Optional => {}
        }
        let outcome = guarded(self.inner.handler.call_tool(&mut params, &cx)).await;
        let response = match talk::settle_modern(&cx, outcome, params.request_state.clone()) {
            Ok(r) => r,
            Err(e) => return e.unwrap_or_else(internal_error),
        };
        match response {
            CallToolResponse::Complete(mut result) => {
                result.result_type = Some(ResultType::Complete);
                if result.meta.is_none() {
                    return Reply::result(&Stamped {
                        result: &result,
                        meta: &self.inner.server_info_meta_raw,
                    });
                }
                result.meta = Some(self.stamp(result.meta.take()));
                Reply::result(&result)
            }
            CallToolResponse::InputRequired(result) => {
                let bind = binding(&params.name, params.arguments.as_ref(), who.as_deref());
                self.input_required(result, &cx, &bind, first_round)
            }
        }
    }

    /// An `input_required` result of a tool or a prompt, checked, its state sealed (with
    /// telemetry, marked with the call's first round, `first_round` when this is a later
    /// one).
    fn input_required(
        &self,
        mut result: InputRequiredResult,
        cx: &RequestContext,
        bind: &Binding<'_>,
        first_round: Option<rounds::FirstRound>,
    ) -> Reply {
        if let Err(refusal) = input_checks::check(&mut result, Some(&cx.client_capabilities)) {
            tracing::error!(
                subject = ?bind.subject,
                name = bind.name,
                ?refusal,
                "refusing to send an input-required result"
            );
            return Reply::in_band(refusal.to_error());
        }
        #[cfg(feature = "otel")]
        if let Some(first) = self.observed().and(rounds::first_or_current(first_round)) {
            let state = result.request_state.take();
            result.request_state = Some(rounds::mark(state.as_deref(), &first));
        }
        #[cfg(not(feature = "otel"))]
        let _ = first_round;
        if let Some(state) = result.request_state.take() {
            result.request_state = Some(self.inner.signer.seal(&state, bind));
        }
        result.result_type = Some(ResultType::InputRequired);
        result.meta = Some(self.stamp(result.meta.take()));
        Reply::result(&result)
    }

    async fn legacy_call_tool(&self, params: Params, cx: RequestContext) -> Reply {
        let mut params = match call_params(params) {
            Ok(p) => p,
            Err(r) => return r,
        };
        if let Some(refusal) = self.refuse_disabled(&params.name) {
            return refusal;
        }
        if let Some(refusal) = self.check_tool_scopes(&params.name, &cx) {
            return refusal;
        }
        // Legacy calls carry no continuation of their own.
        params.input_responses = None;
        params.request_state = None;
        let cx = cx.with_meta(params.meta.clone());
        let mut round = 0;
        loop {
            let outcome = guarded(self.inner.handler.call_tool(&mut params, &cx)).await;
            let response = match talk::settle_legacy(&cx, outcome) {
                Ok(r) => r,
                Err(e) => return e.unwrap_or_else(internal_error),
            };
            let result = match response {
                CallToolResponse::Complete(result) => {
                    return self.legacy_result(result, &params.name, &cx);
                }
                CallToolResponse::InputRequired(result) => result,
            };
            let timeout = self.inner.config.input_round_timeout;
            match shim::next_round(&cx, result, round, timeout, Subject::Tool, &params.name).await {
                Ok((answers, state)) => {
                    params.input_responses = Some(answers);
                    params.request_state = state;
                }
                Err(e) => return Reply::in_band(e),
            }
            round += 1;
        }
    }

    fn legacy_result(&self, mut result: CallToolResult, tool: &str, cx: &RequestContext) -> Reply {
        result.result_type = None;
        self.inner
            .legacy_shape
            .result(&mut result, tool, cx.protocol_version());
        Reply::result(&result)
    }

    /// The header declarations of the called tool: from the static definitions, or by
    /// reading up to [`MAX_TOOL_LOOKUP_PAGES`] pages of `tools/list`. `None` when the tool is
    /// not listed (the handler then decides how to answer).
    async fn header_decls(&self, name: &str, cx: &RequestContext) -> Result<Option<Decls>, Reply> {
        if self.inner.handler.static_tools().is_some() {
            return Ok(self.inner.header_decls.get(name).cloned());
        }
        // An advanced service's own list is reused while the cache hint it gives clients
        // says the list is fresh; with no hint (ttl 0) every call reads the pages.
        let now = std::time::Instant::now();
        {
            let cache = self
                .inner
                .decl_cache
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some((until, decls)) = cache.as_ref()
                && *until > now
            {
                return Ok(decls.get(name).cloned());
            }
        }
        let mut cursor = None;
        let mut seen = HashMap::new();
        let mut ttl = None;
        for _ in 0..MAX_TOOL_LOOKUP_PAGES {
            let page = guarded(self.inner.handler.list_tools(cursor.take(), cx))
                .await
                .map_err(|e| e.unwrap_or_else(internal_error))?;
            let page_ttl = page
                .ttl_ms
                .unwrap_or(self.inner.config.cache_hints.list_tools.ttl_ms)
                .max(0);
            ttl = Some(ttl.map_or(page_ttl, |t: i64| t.min(page_ttl)));
            if ttl == Some(0)
                && let Some(tool) = page.tools.iter().find(|t| t.name == name)
            {
                return Ok(Some(tool_decls(tool)));
            }
            for tool in &page.tools {
                seen.insert(tool.name.clone(), tool_decls(tool));
            }
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => {
                    let found = seen.get(name).cloned();
                    if let Some(ms) = ttl.filter(|t| *t > 0) {
                        let until = now + std::time::Duration::from_millis(ms.unsigned_abs());
                        *self
                            .inner
                            .decl_cache
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner) =
                            Some((until, seen));
                    }
                    return Ok(found);
                }
            }
        }
        Ok(seen.get(name).cloned())
    }

    fn stamp(&self, meta: Option<JsonObject>) -> JsonObject {
        match meta {
            None => self.inner.server_info_meta.clone(),
            Some(mut m) => {
                for (k, v) in &self.inner.server_info_meta {
                    m.insert(k.clone(), v.clone());
                }
                m
            }
        }
    }
}

/// Header declarations of a listed tool; a tool whose declarations are invalid is still
/// called, and only its valid declarations (none) are checked.
fn tool_decls(tool: &Tool) -> Decls {
    headers::declarations(&tool.input_schema)
        .unwrap_or_else(|e| {
            tracing::warn!(tool = %tool.name, error = %e, "ignoring invalid x-mcp-header declarations");
            Vec::new()
        })
        .into()
}

/// The header declarations of one tool, shared.
type Decls = Arc<[HeaderDecl]>;

/// What a request state of a call of tool `name` with `arguments` is bound to, for
/// `caller` (see [`caller`]).
fn binding<'a>(
    name: &'a str,
    arguments: Option<&'a JsonObject>,
    caller: Option<&'a str>,
) -> Binding<'a> {
    Binding {
        subject: Subject::Tool,
        name,
        arguments,
        caller,
    }
}

/// The identity key a request state is bound to: the one that owns the caller's legacy
/// sessions (the issuer, client and subject of its token, or its Basic user name), `None`
/// for callers that cannot be told apart.
fn caller(cx: &RequestContext) -> Option<String> {
    let transport = cx.parts().map(|p| &p.extensions);
    match crate::session::identity::caller_identity(cx.auth.as_ref(), transport) {
        crate::session::Owner::Anonymous => None,
        crate::session::Owner::Caller(key) => Some(key.to_string()),
    }
}

fn parse_params<T: serde::de::DeserializeOwned>(params: Option<JsonObject>) -> Result<T, Reply> {
    let value = Value::Object(params.unwrap_or_default());
    serde_json::from_value(value).map_err(|e| {
        Reply::in_band(ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            format!("Invalid params: {e}"),
        ))
    })
}

/// [`parse_params`] for `tools/call`, without rebuilding its objects: the params the
/// transport's read took typed ([`Params::Call`], a valid `requestState` included), else
/// those of the `params` object (a message the fast read left to the strict one).
fn call_params(params: Params) -> Result<CallToolParams, Reply> {
    match params {
        Params::Call(typed) => Ok(*typed),
        Params::Object(object) => match CallToolParams::take(object.unwrap_or_default()) {
            Ok(params) => Ok(params),
            Err(map) => parse_params(Some(map)),
        },
    }
}

/// Runs a handler future, turning a [`ServerError`] into its reply and a panic into `None`
/// (a generic internal error; the panic message goes to `tracing` only).
async fn guarded<T>(fut: BoxFuture<'_, Result<T, ServerError>>) -> Result<T, Option<Reply>> {
    match AssertUnwindSafe(fut).catch_unwind().await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(Some(Reply::from_server_error(&e))),
        Err(panic) => {
            tracing::error!(panic = %panic_detail(&*panic), "a handler panicked");
            Err(None)
        }
    }
}

/// The message of a panic's payload, for the log (never for the client).
fn panic_detail(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("non-string panic payload")
}
