//! Server authorization: protect a service as an OAuth protected resource (RFC 9728), or
//! with plain listener authentication (HTTP Basic, JWTs checked against fixed keys).
//!
//! With [`ServerBuilder::oauth`](crate::ServerBuilder::oauth) the service
//!
//! - publishes protected resource metadata at
//!   `<origin>/.well-known/oauth-protected-resource<path of resource>` (public, CORS `*`),
//! - answers requests without a valid bearer token with `401` and a `WWW-Authenticate:
//!   Bearer error="invalid_token", …, resource_metadata="…"` challenge,
//! - accepts only tokens issued for it (their audience is the resource, or the
//!   authorization server's configured audience),
//! - answers callers that lack a required scope, a tool's scope
//!   (`#[tool(scopes = [...])]`) or a scope a tool asks for at runtime
//!   ([`InsufficientScopeError`](crate::InsufficientScopeError)) with `403` and
//!   `error="insufficient_scope"`, naming exactly the scopes the operation needs, and
//! - answers `503` when the introspection endpoint cannot be reached, so clients keep their
//!   token and retry.
//!
//! A JWT is validated only by the authorization server named in its `iss` claim (keys from
//! that server's JWKS, refetched when a token names an unknown `kid`, at most once per
//! [`OAuthConfig::jwks_min_refresh`]; the algorithm is pinned to the key and HMAC algorithms
//! are refused). An opaque token goes to the one authorization server that uses RFC 7662
//! introspection. The authenticated caller is available to tools as
//! [`AuthContext`](crate::AuthContext), and owns the legacy sessions it creates.
//!
//! **DPoP-bound tokens** (RFC 9449): with [`OAuthConfig::dpop`] the service also accepts
//! `Authorization: DPoP <token>` with one `DPoP` header, a proof JWT the client signs for
//! each request. The proof is checked as RFC 9449 §4.3 requires (`typ` `dpop+jwt`, an
//! asymmetric `alg` of [`DpopConfig::algorithms`], a public `jwk` that verifies the
//! signature, `htm`, `htu`, `iat` within [`DpopConfig::iat_window`], `ath`), the token must be
//! bound to the proof's key (its `cnf.jkt`, a JWT claim or an introspection member, is the
//! RFC 7638 thumbprint of the `jwk`), and each proof is accepted once ([`DpopReplayStore`]:
//! a bounded [`MemoryReplayStore`] by default, `RedisReplayStore` (feature `redis`) for
//! replicas). `htu` is compared with the origin of the configured resource URL and the path
//! the request arrived with (a `nest_service` prefix put back), so a TLS-terminating proxy
//! is fine as long as it keeps the path. A token bound to a key is refused as a bearer
//! token, with or without DPoP configured; [`DpopConfig::require`] refuses bearer tokens
//! altogether, and [`DpopConfig::nonce`] adds server nonces (stateless: an HMAC of a time
//! slot, shared by replicas through the secret). A refusal carries its error in the
//! challenge of the scheme the request used, the other accepted scheme's challenge without
//! one:
//!
//! ```text
//! HTTP/1.1 401 Unauthorized
//! WWW-Authenticate: DPoP error="invalid_dpop_proof", error_description="DPoP proof is too old", algs="ES256 EdDSA", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
//! WWW-Authenticate: Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
//! ```
//!
//! `invalid_dpop_proof` is a proof that failed a check, `invalid_token` the token or its
//! binding, `use_dpop_nonce` a missing or stale nonce (with the current one in a
//! `DPoP-Nonce` header); a replay store that fails is answered `503`. A tool tells a caller
//! that proved possession of a key by its token's `cnf.jkt` claim
//! ([`AuthContext::claims`](crate::AuthContext)): bound tokens pass only with their proof.
//!
//! JWTs are read as strictly as RFC 7515 requires: a token whose header has a `crit` member
//! is refused (this validator understands no extension), and private header members of any
//! JSON type are ignored. `scope` is split on single spaces (RFC 6749 §3.3); a piece that is
//! not a valid scope token (a TAB or a line break inside it) grants nothing.
//!
//! Caller identity: a legacy session, the per-owner session limit and a request state all
//! belong to the same [`Owner`](crate::session::Owner) — the issuer, client and subject of
//! the token (here, or a JWT of [`ListenerAuth`]), or the user name of Basic credentials. A
//! token that names neither a subject nor a client (both absent or empty) gets no session,
//! since every such token would share it: a [`SessionMode::Stateful`](crate::SessionMode)
//! service refuses its `initialize` with `403` (JSON-RPC `-32000`, naming the reason), an
//! `Auto` one serves it without a session.
//!
//! ```no_run
//! use mcp::auth::{AuthorizationServer, OAuthConfig};
//! # struct Files;
//! # #[mcp::service(name = "files", version = "1.0.0")]
//! # impl Files { pub fn ping(&self) -> String { "pong".into() } }
//! # async fn run() -> Result<(), mcp::Error> {
//! let oauth = OAuthConfig::new("https://mcp.example.com/files")
//!     .authorization_server(AuthorizationServer::jwt(
//!         "https://login.example.com",
//!         "https://login.example.com/oauth2/jwks",
//!     ))
//!     .authorization_server(
//!         AuthorizationServer::introspection(
//!             "https://partner-idp.example.com",
//!             "https://partner-idp.example.com/oauth2/introspect",
//!         )
//!         .audience("api://files"),
//!     )
//!     .required_scopes(["files:read"])
//!     .scope_hierarchy("files:admin", ["files:write"])
//!     .scope_hierarchy("files:write", ["files:read"]);
//! let server = mcp::Server::builder(Files).oauth(oauth);
//! let app = mcp::transport::http::router("/files", server.build()?);
//! mcp::HttpServer::bind("127.0.0.1:9090")
//!     .await?
//!     .serve(app.into_make_service())
//!     .with_graceful_shutdown(mcp::transport::shutdown_signal())
//!     .await
//! # }
//! ```

mod config;
mod dpop;
mod introspect;
mod jws;
mod jwt;
mod layer;
mod listener;
mod metadata;

pub use config::{AuthorizationServer, OAuthConfig, TokenValidator};
#[cfg(feature = "redis")]
pub use dpop::RedisReplayStore;
pub use dpop::{DpopConfig, DpopReplayStore, MemoryReplayStore};
pub(crate) use layer::{AuthConfig, Guard, metadata_router, require_auth};
pub use listener::ListenerAuth;

/// Why a request was refused by the authentication layer. The description is sent to the
/// client; it never contains the token or its claims.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum AuthError {
    /// No usable token, or a token that failed validation: 401 `invalid_token`.
    #[error("{0}")]
    InvalidToken(&'static str),
    /// A DPoP proof that failed a check (RFC 9449 §7.1): 401 `invalid_dpop_proof`.
    #[error("{0}")]
    InvalidProof(&'static str),
    /// A DPoP proof without the server's current nonce (RFC 9449 §9): 401
    /// `use_dpop_nonce`, with a `DPoP-Nonce` header.
    #[error("{0}")]
    UseNonce(&'static str),
    /// The token could not be checked (introspection or JWKS endpoint unreachable, the
    /// DPoP replay cache failing): 503.
    #[error("{0}")]
    Unavailable(&'static str),
}

impl AuthError {
    /// The HTTP status this refusal is answered with.
    pub(crate) fn status(&self) -> http::StatusCode {
        match self {
            Self::InvalidToken(_) | Self::InvalidProof(_) | Self::UseNonce(_) => {
                http::StatusCode::UNAUTHORIZED
            }
            Self::Unavailable(_) => http::StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// The OAuth `error` code of the answer.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            Self::InvalidToken(_) => "invalid_token",
            Self::InvalidProof(_) => "invalid_dpop_proof",
            Self::UseNonce(_) => "use_dpop_nonce",
            Self::Unavailable(_) => "temporarily_unavailable",
        }
    }
}

/// HTTP 401 with a JSON-RPC error body (`id` null, code `-32000`), the shape of every
/// refusal the HTTP transport answers before a request reaches the server.
fn unauthorized_response(message: &str) -> axum::response::Response {
    use crate::protocol::{ErrorCode, ErrorObject, JsonRpcError};
    let error = ErrorObject::new(ErrorCode::TRANSPORT, message);
    let body = serde_json::to_vec(&JsonRpcError::new(None, error)).unwrap_or_default();
    let mut r = axum::response::Response::new(axum::body::Body::from(body));
    *r.status_mut() = http::StatusCode::UNAUTHORIZED;
    r.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    r
}
