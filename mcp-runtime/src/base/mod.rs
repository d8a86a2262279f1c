//! What every layer shares, below them all: the boxed future of the service traits and the
//! stores, and the authenticated caller ([`AuthContext`]), which the auth layer and custom
//! authentication put into a request, the session layer reads as the owner of sessions, and
//! tools bind. It imports nothing of the crate but `protocol` and `redact` (both leaves).
//!
//! Its two I/O pieces are shared by the server's and the client's transports alike:
//! [`frame`], newline-delimited framing with a size cap (stdio), and [`pipe`], the
//! in-process message pipe.

mod caller;
mod extensions;
pub(crate) mod frame;
pub(crate) mod host;
pub(crate) mod pipe;

pub use caller::Caller;
pub(crate) use caller::peer_of;
pub use extensions::Extensions;

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use crate::protocol::JsonObject;

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

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

/// Marks a 403 answer to a caller that lacks scopes; the OAuth layer turns it into an
/// `insufficient_scope` challenge naming these scopes.
#[derive(Clone, Debug)]
#[cfg_attr(not(feature = "oauth"), allow(dead_code))]
pub(crate) struct ScopeChallenge {
    /// The scopes the operation needs.
    pub(crate) scopes: Vec<String>,
    /// The `error_description`.
    pub(crate) description: String,
}

/// Settings of one transport that a server carries for it (the HTTP transport's
/// [`HttpConfig`](crate::transport::http::HttpConfig)): set with
/// [`ServerBuilder::transport`](crate::ServerBuilder::transport), checked by `build`, read
/// by the transport when it serves the server.
pub trait TransportConfig: Clone + Send + Sync + 'static {
    /// Checks the settings; the error is what `ServerBuilder::build` returns.
    fn validate(&self) -> Result<(), crate::error::Error>;
}
