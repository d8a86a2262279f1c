//! The core's request and response: what every transport hands the dispatcher
//! ([`McpRequest`], built by one constructor) and what it gets back ([`McpResponse`]).
//!
//! A request carries the decoded message, its era and protocol version, what the client
//! declared, the caller's identity, the legacy session it belongs to, the channel back to
//! the client and its cancellation, and the facts only its transport knows as typed
//! extensions: the HTTP transport adds the request's `http::request::Parts` (headers,
//! URI, the peer address among its extensions); stdio and in-process add nothing. Nothing
//! here is invented to look like HTTP.

use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::channel::ClientChannel;
use super::{LogLevel, Reply};
use crate::base::{AuthContext, Caller, Extensions};
use crate::protocol::{
    CallToolParams, ClientCapabilities, Era, ErrorObject, Implementation, JsonObject, Request,
    RequestId,
};
use crate::session::Session;

/// The params of a request, read once by the transport's decoder
/// ([`protocol::wire`](crate::protocol)): the params of a `tools/call` read straight into
/// their type by the fast read, or the params object of any other request.
#[derive(Debug)]
pub(crate) enum Params {
    /// The params object, if the request has one.
    Object(Option<JsonObject>),
    /// The params of a `tools/call`, read typed.
    Call(Box<CallToolParams>),
}

impl Params {
    /// The params as an object (a typed call written back, which no transport routes to
    /// another method than `tools/call`).
    pub(crate) fn into_object(self) -> Option<JsonObject> {
        match self {
            Self::Object(o) => o,
            Self::Call(call) => match serde_json::to_value(*call) {
                Ok(Value::Object(o)) => Some(o),
                _ => None,
            },
        }
    }
}

/// One incoming MCP request, as every transport hands it to the core: build it with
/// [`McpRequest::new`], then add what the transport knows.
///
/// The core ([`Server`](crate::Server) as a [`tower::Service<McpRequest>`]) answers it with
/// an [`McpResponse`]; what the handler sends to the client before that (log messages,
/// progress, server→client requests) travels on the request's channel.
pub struct McpRequest {
    pub(crate) id: RequestId,
    pub(crate) method: String,
    pub(crate) params: Params,
    pub(crate) era: Era,
    pub(crate) version: Arc<str>,
    pub(crate) client_capabilities: Arc<ClientCapabilities>,
    pub(crate) client_info: Option<Arc<Implementation>>,
    /// A modern request's `io.modelcontextprotocol/logLevel`.
    pub(crate) log_level: Option<LogLevel>,
    /// Boxed: most requests have none, and the request is moved whole several times.
    pub(crate) auth: Option<Box<AuthContext>>,
    pub(crate) session: Option<Session>,
    pub(crate) extensions: Extensions,
    pub(crate) channel: Option<Arc<dyn ClientChannel>>,
    /// The channel may carry server→client requests (the legacy elicitation shim).
    pub(crate) requests: bool,
    /// The token the transport cancels the request with (`None`: the core makes one).
    pub(crate) cancel: Option<CancellationToken>,
    /// The transport that carried the request.
    pub(crate) transport: TransportKind,
    /// The connection an anonymous caller is charged to (stdio, in-process).
    pub(crate) connection: Option<Caller>,
}

/// The transport that carried a request: [`McpRequest::transport`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransportKind {
    /// Streamable HTTP.
    Http,
    /// stdio, or any reader/writer pair framed as stdio.
    Stdio,
    /// In the same process ([`Server::in_process`](crate::Server::in_process), or a request
    /// built with [`McpRequest::new`] and handed to the server as a `tower::Service`).
    InProcess,
}

impl TransportKind {
    /// Its name in logs: `http`, `stdio` or `in-process`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Http => "http",
            Self::Stdio => "stdio",
            Self::InProcess => "in-process",
        }
    }
}

impl std::fmt::Display for TransportKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for McpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpRequest")
            .field("id", &self.id)
            .field("method", &self.method)
            .field("era", &self.era)
            .field("version", &self.version)
            .field("session", &self.session)
            .field("transport", &self.transport)
            .finish_non_exhaustive()
    }
}

impl McpRequest {
    /// A request of `era` and `protocol_version` with nothing known about its client: no
    /// declared capabilities, no caller, no session, no channel back, no extensions; its
    /// transport is [`TransportKind::InProcess`].
    pub fn new(request: Request, era: Era, protocol_version: &str) -> Self {
        Self {
            id: request.id,
            method: request.method,
            params: Params::Object(request.params),
            era,
            version: super::version_of(protocol_version),
            client_capabilities: super::context::no_capabilities(),
            client_info: None,
            log_level: None,
            auth: None,
            session: None,
            extensions: Extensions::new(),
            channel: None,
            requests: false,
            cancel: None,
            transport: TransportKind::InProcess,
            connection: None,
        }
    }

    /// The request's id.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The method.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The protocol era.
    pub fn era(&self) -> Era {
        self.era
    }

    /// The protocol version.
    pub fn protocol_version(&self) -> &str {
        &self.version
    }

    /// The authenticated caller, if any.
    pub fn auth(&self) -> Option<&AuthContext> {
        self.auth.as_deref()
    }

    /// Who the request is charged to: the authenticated caller's identity, else the address
    /// an anonymous HTTP caller connects from, else its stdio or in-process connection (see
    /// [`Caller`]).
    pub fn caller(&self) -> Caller {
        crate::session::identity::caller_of(
            self.auth.as_deref(),
            self.extensions
                .get::<http::request::Parts>()
                .map(|p| &p.extensions),
            self.connection.as_ref(),
        )
    }

    /// The transport that carried the request.
    pub fn transport(&self) -> TransportKind {
        self.transport
    }

    /// The legacy session the request belongs to, if any.
    pub fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    /// What the request names within its method: the tool of a `tools/call`, the prompt of
    /// a `prompts/get`, the URI of a `resources/read`, `resources/subscribe` or
    /// `resources/unsubscribe`; `None` for other methods.
    pub fn target(&self) -> Option<&str> {
        match &self.params {
            Params::Call(call) => Some(&call.name),
            Params::Object(params) => {
                let key = target_key(&self.method)?;
                params.as_ref()?.get(key)?.as_str()
            }
        }
    }

    /// The arguments of a `tools/call` or a `prompts/get`, if it has any.
    pub fn arguments(&self) -> Option<&JsonObject> {
        match &self.params {
            Params::Call(call) => call.arguments.as_ref(),
            Params::Object(params) if has_arguments(&self.method) => {
                params.as_ref()?.get("arguments")?.as_object()
            }
            Params::Object(_) => None,
        }
    }

    /// The arguments of a `tools/call` or a `prompts/get`, to change (`None` for other
    /// methods). An absent `arguments` becomes an empty object first.
    pub fn arguments_mut(&mut self) -> Option<&mut JsonObject> {
        if !has_arguments(&self.method) {
            return None;
        }
        match &mut self.params {
            Params::Call(call) => Some(call.arguments.get_or_insert_with(JsonObject::new)),
            Params::Object(params) => {
                let entry = params
                    .get_or_insert_with(JsonObject::new)
                    .entry("arguments")
                    .or_insert_with(|| Value::Object(JsonObject::new()));
                if !entry.is_object() {
                    *entry = Value::Object(JsonObject::new());
                }
                entry.as_object_mut()
            }
        }
    }

    /// Whether the request continues a multi-round call: a modern `tools/call` or
    /// `prompts/get` that answers an `input_required` result (it carries `inputResponses` or
    /// a `requestState`).
    ///
    /// ```
    /// use mcp::protocol::{Era, Request, RequestId};
    ///
    /// let continued = |method: &str| {
    ///     let params = serde_json::json!({"name": "review", "requestState": "v1.x.y"});
    ///     let request = Request {
    ///         id: RequestId::Number(1),
    ///         method: method.into(),
    ///         params: params.as_object().cloned(),
    ///     };
    ///     mcp::McpRequest::new(request, Era::Modern, "2026-07-28").is_continuation()
    /// };
    /// assert!(continued("tools/call") && continued("prompts/get"));
    /// assert!(!continued("resources/read"));
    /// ```
    pub fn is_continuation(&self) -> bool {
        match &self.params {
            Params::Call(call) => call.input_responses.is_some() || call.request_state.is_some(),
            Params::Object(Some(params))
                if self.method == "tools/call" || self.method == "prompts/get" =>
            {
                params.contains_key("inputResponses") || params.contains_key("requestState")
            }
            Params::Object(_) => false,
        }
    }

    /// The caller's identity: the one an authentication layer established.
    #[must_use]
    pub fn with_auth(mut self, auth: Option<AuthContext>) -> Self {
        self.auth = auth.map(Box::new);
        self
    }

    /// What the transport knows besides the message (HTTP: its `http::request::Parts`).
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// The extensions, to add to.
    pub fn extensions_mut(&mut self) -> &mut Extensions {
        &mut self.extensions
    }

    /// The capabilities and identity the client declared (a modern request's envelope, a
    /// legacy session's `initialize`).
    #[must_use]
    pub(crate) fn with_client(
        mut self,
        capabilities: Arc<ClientCapabilities>,
        info: Option<Arc<Implementation>>,
    ) -> Self {
        self.client_capabilities = capabilities;
        self.client_info = info;
        self
    }

    /// A modern request's log threshold.
    #[must_use]
    pub(crate) fn with_log_level(mut self, level: Option<LogLevel>) -> Self {
        self.log_level = level;
        self
    }

    /// The params of a `tools/call` the transport's fast read took typed.
    #[must_use]
    pub(crate) fn with_call_params(mut self, call: Option<Box<CallToolParams>>) -> Self {
        if let Some(call) = call {
            self.params = Params::Call(call);
        }
        self
    }

    /// The legacy session the request belongs to.
    #[must_use]
    pub(crate) fn with_session(mut self, session: Option<Session>) -> Self {
        self.session = session;
        self
    }

    /// The channel back to the client; `requests` when it can carry server→client requests
    /// and their answers.
    #[must_use]
    pub(crate) fn with_channel(mut self, channel: Arc<dyn ClientChannel>, requests: bool) -> Self {
        self.channel = Some(channel);
        self.requests = requests;
        self
    }

    /// The transport that carried the request, and the connection an anonymous caller on it
    /// is charged to (stdio, in-process).
    #[must_use]
    pub(crate) fn with_transport(
        mut self,
        transport: TransportKind,
        connection: Option<Caller>,
    ) -> Self {
        self.transport = transport;
        self.connection = connection;
        self
    }

    /// The token that cancels the request (the transport cancels it when the client does).
    #[must_use]
    pub(crate) fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = Some(cancel);
        self
    }
}

/// The params key that names a request's target ([`McpRequest::target`]).
fn target_key(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => Some("uri"),
        _ => None,
    }
}

/// Whether a method's params carry `arguments`.
fn has_arguments(method: &str) -> bool {
    matches!(method, "tools/call" | "prompts/get")
}

/// What the core answers a request with: a result or an error. The messages sent before it
/// went out on the request's channel.
#[derive(Debug)]
pub struct McpResponse(pub(crate) Reply);

impl McpResponse {
    /// A response with the result `result` (a layer that answers in the handler's place).
    ///
    /// # Errors
    ///
    /// When `result` does not serialize to JSON.
    pub fn from_result(result: &impl serde::Serialize) -> Result<Self, serde_json::Error> {
        let text = serde_json::to_string(result)?;
        Ok(Self(Reply::Ok(super::JsonText::Owned(text))))
    }

    /// A response with the JSON-RPC error `error` (a layer that refuses the request).
    pub fn from_error(error: ErrorObject) -> Self {
        Self(Reply::in_band(error))
    }

    /// Whether the request failed (a JSON-RPC error).
    pub fn is_error(&self) -> bool {
        !matches!(self.0, Reply::Ok(_))
    }

    /// The result as a JSON value, to read or change (then answer
    /// [`from_result`](Self::from_result) of it).
    pub fn result_value(&self) -> Option<Value> {
        serde_json::from_str(self.result()?).ok()
    }

    /// The result's JSON text, if the request succeeded.
    pub fn result(&self) -> Option<&str> {
        match &self.0 {
            Reply::Ok(text) => Some(text.get()),
            _ => None,
        }
    }

    /// The JSON-RPC error, if the request failed (a caller lacking scopes is `-32600`
    /// `Insufficient scope` here; over HTTP it is a 403 challenge).
    pub fn error(&self) -> Option<ErrorObject> {
        match &self.0 {
            Reply::Ok(_) => None,
            Reply::Err { error, .. } => Some(error.clone()),
            Reply::InsufficientScope(e) => {
                Some(crate::error::ServerError::InsufficientScope(e.clone()).to_error_object())
            }
        }
    }

    /// The answer as the transport writes it.
    pub(crate) fn into_reply(self) -> Reply {
        self.0
    }
}

impl From<Reply> for McpResponse {
    fn from(reply: Reply) -> Self {
        Self(reply)
    }
}
