//! Runtime parameters a tool can bind besides its arguments.

use std::collections::BTreeSet;
use std::ops::Deref;

use serde_json::Value;

use crate::protocol::JsonObject;

/// The request's `_meta` object, without the reserved envelope keys. Bind it as
/// `Option<mcp::RequestMeta>`: clients may omit it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RequestMeta(pub JsonObject);

impl Deref for RequestMeta {
    type Target = JsonObject;
    fn deref(&self) -> &JsonObject {
        &self.0
    }
}

impl RequestMeta {
    /// The progress token of the request, if any.
    pub fn progress_token(&self) -> Option<&Value> {
        self.0.get("progressToken")
    }
}

/// The authenticated caller of a request. Bind it as `mcp::AuthContext` on protected
/// services or `Option<mcp::AuthContext>` elsewhere; advanced services read it with
/// [`RequestContext::auth`](crate::RequestContext::auth).
///
/// The OAuth layer ([`ServerBuilder::oauth`](crate::ServerBuilder::oauth)) and listener
/// authentication set it. **Custom authentication** is a tower layer of your own in front of
/// the endpoint that checks the request its way and inserts an `AuthContext` into the
/// request's extensions: tools then receive it, and the caller's identity (issuer, client,
/// subject) owns its legacy sessions and binds its request states, exactly as with OAuth.
/// A caller that names neither a subject nor a client is treated as anonymous.
///
/// **`Debug`** shows who the caller is and never the credential, so `tracing::debug!(?auth)`
/// is safe: the subject, issuer, client, scopes, the token's expiry (its `exp` claim), the
/// *names* of its claims (their values may be personal data; read `auth.claims` for them)
/// and, instead of the token, its fingerprint `<redacted sha256:1a2b3c4d>` — the first 8 hex
/// digits of its SHA-256, which `printf %s "$TOKEN" | sha256sum | cut -c1-8` reproduces (and
/// which the client's `StoredToken` shows too). A
/// default context shows `<empty>` for its token.
///
/// ```
/// use axum::extract::Request;
/// use axum::middleware::{self, Next};
///
/// struct Who;
///
/// #[mcp::service(name = "who", version = "1.0.0")]
/// impl Who {
///     /// Who is calling.
///     pub fn whoami(&self, caller: Option<mcp::AuthContext>) -> String {
///         caller.and_then(|c| c.subject).unwrap_or_else(|| "anonymous".into())
///     }
/// }
///
/// async fn api_keys(mut request: Request, next: Next) -> axum::response::Response {
///     let key = request.headers().get("x-api-key").and_then(|v| v.to_str().ok());
///     if key == Some("let-me-in") {
///         let caller = mcp::AuthContext::new()
///             .with_issuer("api-keys")
///             .with_subject("alice");
///         request.extensions_mut().insert(caller);
///     }
///     next.run(request).await
/// }
///
/// let server = mcp::Server::builder(Who).build()?;
/// let app: axum::Router = axum::Router::new()
///     .nest_service("/mcp", mcp::McpService::new(server))
///     .layer(middleware::from_fn(api_keys));
/// # let _ = app;
/// # Ok::<(), mcp::Error>(())
/// ```
#[derive(Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct AuthContext {
    /// The token's subject (`sub`).
    pub subject: Option<String>,
    /// The issuer that validated the token.
    pub issuer: Option<String>,
    /// The client the token was issued to.
    pub client_id: Option<String>,
    /// Granted scopes, including the ones the scope hierarchy implies.
    pub scopes: BTreeSet<String>,
    /// All claims of the token.
    pub claims: JsonObject,
    /// The raw bearer token.
    pub token: String,
}

impl std::fmt::Debug for AuthContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthContext")
            .field("subject", &self.subject)
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("scopes", &self.scopes)
            .field("exp", &self.claims.get("exp").and_then(Value::as_i64))
            .field("claims", &self.claims.keys().collect::<Vec<_>>())
            .field("token", &crate::redact::Redacted::fingerprint(&self.token))
            .finish()
    }
}

impl AuthContext {
    /// A caller with no identity yet: add it with the `with_*` methods.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the subject (`sub`).
    pub fn with_subject(mut self, subject: impl Into<String>) -> Self {
        self.subject = Some(subject.into());
        self
    }

    /// Sets the issuer that vouches for the caller.
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Sets the client the caller uses.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Sets the granted scopes.
    pub fn with_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the claims.
    pub fn with_claims(mut self, claims: JsonObject) -> Self {
        self.claims = claims;
        self
    }

    /// Sets the raw credential (never sent anywhere by the framework).
    pub fn with_token(mut self, token: impl Into<String>) -> Self {
        self.token = token.into();
        self
    }
}

/// What a tool (or resource, prompt) does *with* the client while it runs: log, report
/// progress, notice cancellation, ask the client's model ([`sample`](Self::sample)), and read
/// the answers of a multi-round call (elicitation).
///
/// Bind it as a runtime parameter `ctx: mcp::Context`. Its neighbours answer other
/// questions: [`RequestContext`](crate::RequestContext) describes the request (era, HTTP
/// parts, `_meta`, client capabilities) and is what advanced handlers receive;
/// [`AuthContext`] is the authenticated caller. `Context` is the only one that talks back.
///
/// | call | legacy (initialize, sessions) | modern (2026-07-28) |
/// | --- | --- | --- |
/// | [`log`](Self::log) | `notifications/message` on the request's stream, filtered by the session's `logging/setLevel` (every level when none) | sent only when the request's `_meta` carries `io.modelcontextprotocol/logLevel`, filtered by it |
/// | [`progress`](Self::progress) | `notifications/progress` with the request's `progressToken`; nothing without one | same |
/// | [`cancelled`](Self::cancelled) | a `notifications/cancelled` naming the request, or the client closing its connection | the client closing its request |
/// | [`sample`](Self::sample) | a `sampling/createMessage` request on the call's stream (needs a session) | an `input_required` round asking `sampling/createMessage` |
///
/// Over HTTP the response of a request that sends anything switches from JSON to an SSE
/// stream. A `Context` built outside a request (`Context::default()`) sends nothing.
#[derive(Clone, Debug, Default)]
pub struct Context {
    pub(crate) input_responses: Option<JsonObject>,
    pub(crate) request_state: Option<String>,
    pub(crate) call: Option<std::sync::Arc<super::channel::CallState>>,
    pub(crate) progress_token: Option<Value>,
    /// The round carries a request state the server signed (modern continuation).
    pub(crate) signed_round: bool,
}

impl PartialEq for Context {
    fn eq(&self, other: &Self) -> bool {
        self.input_responses == other.input_responses
            && self.request_state == other.request_state
            && self.progress_token == other.progress_token
            && self.signed_round == other.signed_round
            && match (&self.call, &other.call) {
                (None, None) => true,
                (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
                _ => false,
            }
    }
}

impl Context {
    /// The [`Notifier`](crate::Notifier) of the server running this handler (`None` outside
    /// a request): a tool announces changes through it.
    pub fn notifier(&self) -> Option<crate::Notifier> {
        crate::notify::current()
    }

    /// The answer to input request `key`: `None` when the client did not answer it (or sent
    /// a shape that is not an elicitation result).
    pub fn elicit_result(&self, key: &str) -> Option<crate::protocol::ElicitResult> {
        let value = self.input_responses.as_ref()?.get(key)?;
        serde_json::from_value(value.clone()).ok()
    }

    /// The content the user submitted for input request `key`, as `T`. `None` when the
    /// request was not answered, was declined or cancelled, or the content does not convert
    /// to `T`: treat `None` as "ask again".
    pub fn accepted_content<T: serde::de::DeserializeOwned>(&self, key: &str) -> Option<T> {
        let result = self.elicit_result(key)?;
        if result.action != crate::protocol::ElicitAction::Accept {
            return None;
        }
        serde_json::from_value(Value::Object(result.content?)).ok()
    }

    /// `true` when this round carries answers or state (a continuation).
    pub fn is_continuation(&self) -> bool {
        self.input_responses.is_some() || self.request_state.is_some()
    }

    /// The request state the tool returned in the previous round.
    pub fn request_state(&self) -> Option<&str> {
        self.request_state.as_deref()
    }
}
