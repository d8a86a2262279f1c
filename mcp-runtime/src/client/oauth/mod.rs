//! Client OAuth: discovery (RFC 9728, RFC 8414, OpenID), the authorization code grant with
//! PKCE, client credentials, workload identity federation and enterprise-managed
//! authorization (the JWT-bearer grant), refresh and step-up, DPoP-bound tokens (RFC 9449),
//! with tokens kept behind a [`TokenStore`].
//!
//! Configure it with [`ClientConfig::oauth`](crate::client::ClientConfig::oauth); the
//! client then answers `401` and `403 insufficient_scope` challenges itself. A token is
//! only sent to the MCP server it was issued for: the resource metadata must name the
//! server, the authorization server must be one it lists, and every endpoint must use
//! HTTPS (plain HTTP only on loopback).

mod assertion;
mod client_auth;
mod config;
mod discovery;
mod dpop;
mod error;
mod handler;
mod http;
mod id_jag;
mod provider;
mod store;
mod token;

#[cfg(test)]
mod dpop_tests;
#[cfg(test)]
mod tests;

pub use assertion::{AssertionProvider, AssertionSource, WorkloadIdentity};
pub use client_auth::ClientAuth;
pub use config::{ClientRegistration, OAuthConfig};
pub use dpop::{DpopKey, DpopPolicy};
pub use error::{OAuthError, OAuthErrorResponse, OAuthTokenError};
pub use handler::{AuthorizationHandler, LoopbackBrowser, ProgrammaticAuthorization};
pub use id_jag::{IdentityAssertionContext, IdentityProviderConfig, exchange_id_token_for_id_jag};
pub use store::{MemoryTokenStore, StoredToken, TokenStore};

pub(crate) use http::OAuthHttp;
pub(crate) use provider::OAuthProvider;
