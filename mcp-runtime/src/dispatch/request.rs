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
use crate::base::{AuthContext, Extensions};
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
}

impl std::fmt::Debug for McpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpRequest")
            .field("id", &self.id)
            .field("method", &self.method)
            .field("era", &self.era)
            .field("version", &self.version)
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

impl McpRequest {
    /// A request of `era` and `protocol_version` with nothing known about its client: no
    /// declared capabilities, no caller, no session, no channel back, no extensions.
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

    /// The token that cancels the request (the transport cancels it when the client does).
    #[must_use]
    pub(crate) fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = Some(cancel);
        self
    }
}

/// What the core answers a request with: a result or an error. The messages sent before it
/// went out on the request's channel.
#[derive(Debug)]
pub struct McpResponse(pub(crate) Reply);

impl McpResponse {
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
