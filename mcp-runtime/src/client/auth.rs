//! Bearer authentication hooks: a [`TokenProvider`] supplies the `Authorization` token of
//! each request and is told about `401` and `insufficient_scope` challenges. Full OAuth
//! flows (discovery, authorization, refresh) are built on this hook: `mcp::client::oauth`
//! and `ClientConfig::oauth`, with the `oauth` feature, whose DPoP-bound tokens go out
//! with the `DPoP` scheme and a proof per request (a [`TokenPresenter`]).

use std::future::Future;

use http::HeaderName;

use super::ClientError;
use crate::base::BoxFuture;

/// The header of a DPoP proof (RFC 9449 §4.1).
pub(crate) const DPOP: HeaderName = HeaderName::from_static("dpop");
/// The header of a server-supplied DPoP nonce (RFC 9449 §8, §9).
pub(crate) const DPOP_NONCE: HeaderName = HeaderName::from_static("dpop-nonce");

/// A parsed `WWW-Authenticate` challenge of a `401` or `403` response.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthChallenge {
    status: u16,
    scheme: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
    scope: Option<String>,
    resource_metadata: Option<String>,
    /// The `DPoP-Nonce` header sent with the challenge.
    dpop_nonce: Option<String>,
    /// The SHA-256 of the token the challenged request carried (`None`: no token).
    rejected: Option<[u8; 32]>,
}

impl AuthChallenge {
    /// The HTTP status (`401` or `403`).
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The auth scheme (`Bearer`, `DPoP`).
    pub fn scheme(&self) -> Option<&str> {
        self.scheme.as_deref()
    }

    /// The `error` parameter (`invalid_token`, `insufficient_scope`).
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The `error_description` parameter.
    pub fn error_description(&self) -> Option<&str> {
        self.error_description.as_deref()
    }

    /// The `scope` parameter (space-separated scopes).
    pub fn scope(&self) -> Option<&str> {
        self.scope.as_deref()
    }

    /// The `resource_metadata` parameter (URL of the protected resource metadata).
    pub fn resource_metadata(&self) -> Option<&str> {
        self.resource_metadata.as_deref()
    }

    /// The `DPoP-Nonce` the server sent with the challenge (RFC 9449 §9: with
    /// `error="use_dpop_nonce"` it asks for a proof carrying it).
    pub fn dpop_nonce(&self) -> Option<&str> {
        self.dpop_nonce.as_deref()
    }

    /// Records the `DPoP-Nonce` header of the challenged response.
    pub(crate) fn with_dpop_nonce(mut self, nonce: Option<&str>) -> Self {
        self.dpop_nonce = nonce.map(str::to_owned);
        self
    }

    /// A `401` with `error="use_dpop_nonce"` and a nonce: retry with a proof carrying it.
    pub(crate) fn is_dpop_nonce_request(&self) -> bool {
        self.status == 401
            && self.error.as_deref() == Some("use_dpop_nonce")
            && self.dpop_nonce.is_some()
    }

    /// Parses a `WWW-Authenticate` value (parameters quoted or bare; unknown ones ignored).
    ///
    /// ```
    /// use mcp::client::AuthChallenge;
    ///
    /// let c = AuthChallenge::parse(403, r#"Bearer error="insufficient_scope", scope="a b""#);
    /// assert!(c.is_insufficient_scope());
    /// assert_eq!(c.scope(), Some("a b"));
    /// ```
    pub fn parse(status: u16, header: &str) -> Self {
        let mut out = Self {
            status,
            ..Self::default()
        };
        let header = header.trim();
        let (scheme, mut rest) = match header.split_once(char::is_whitespace) {
            Some((s, r)) if !s.contains('=') => (Some(s), r),
            _ if !header.contains('=') && !header.is_empty() => (Some(header), ""),
            _ => (None, header),
        };
        out.scheme = scheme.map(str::to_owned);
        loop {
            rest = rest.trim_start_matches([' ', '\t', ',']);
            let Some((key, after)) = rest.split_once('=') else {
                break;
            };
            let key = key.trim().to_ascii_lowercase();
            let after = after.trim_start();
            let (value, next) = if let Some(quoted) = after.strip_prefix('"') {
                let mut value = String::new();
                let mut chars = quoted.char_indices();
                let mut end = quoted.len();
                while let Some((i, c)) = chars.next() {
                    match c {
                        '\\' => {
                            if let Some((_, escaped)) = chars.next() {
                                value.push(escaped);
                            }
                        }
                        '"' => {
                            end = i + 1;
                            break;
                        }
                        c => value.push(c),
                    }
                }
                (value, &quoted[end.min(quoted.len())..])
            } else {
                let end = after.find(',').unwrap_or(after.len());
                (after[..end].trim().to_owned(), &after[end..])
            };
            match key.as_str() {
                "error" => out.error = Some(value),
                "error_description" => out.error_description = Some(value),
                "scope" => out.scope = Some(value),
                "resource_metadata" => out.resource_metadata = Some(value),
                _ => {}
            }
            rest = next;
        }
        out
    }

    /// Records the token the challenged request carried (as a digest, never the token).
    pub(crate) fn with_rejected_token(mut self, token: Option<&str>) -> Self {
        use sha2::Digest as _;
        self.rejected = token.map(|t| sha2::Sha256::digest(t.as_bytes()).into());
        self
    }

    /// Whether the challenged request carried `token`.
    #[cfg(feature = "oauth")]
    pub(crate) fn rejected_token_is(&self, token: &str) -> bool {
        use sha2::Digest as _;
        self.rejected
            .is_some_and(|d| d == <[u8; 32]>::from(sha2::Sha256::digest(token.as_bytes())))
    }

    /// `true` for a `403` with `error="insufficient_scope"`.
    pub fn is_insufficient_scope(&self) -> bool {
        self.status == 403 && self.error.as_deref() == Some("insufficient_scope")
    }
}

/// Supplies bearer tokens to a client and reacts to authorization challenges.
///
/// The client calls [`token`](Self::token) before every request (return the cached token;
/// refreshing an expired one there keeps the `tools/list` cache). On a `401`, or a `403`
/// with `error="insufficient_scope"`, it calls [`on_challenge`](Self::on_challenge); a
/// different token returned there drops the `tools/list` cache (a step-up can change the
/// tool list) and the request is retried with it, at most three times per request (a `401`
/// then a `403` step-up needs two).
///
/// Implement it with `async fn`, like `mcp::AdvancedService`; the
/// client boxes the futures itself.
///
/// ```
/// use mcp::client::{AuthChallenge, ClientConfig, ClientError, TokenProvider};
///
/// struct FromEnv;
///
/// impl TokenProvider for FromEnv {
///     async fn token(&self) -> Result<Option<String>, ClientError> {
///         Ok(std::env::var("MCP_TOKEN").ok())
///     }
///
///     async fn on_challenge(
///         &self,
///         challenge: &AuthChallenge,
///     ) -> Result<Option<String>, ClientError> {
///         // A real provider would run an OAuth flow for `challenge.scope()` here.
///         let _ = challenge;
///         Ok(None)
///     }
/// }
///
/// let config = ClientConfig::new().token_provider(FromEnv);
/// # drop(config);
/// ```
pub trait TokenProvider: Send + Sync + 'static {
    /// The token for the next request; `None` sends no `Authorization` header.
    fn token(&self) -> impl Future<Output = Result<Option<String>, ClientError>> + Send;

    /// Called on a `401` or `insufficient_scope` challenge. Return a new token to retry the
    /// request with it, or `None` to fail with the challenge. The default gives up.
    fn on_challenge(
        &self,
        challenge: &AuthChallenge,
    ) -> impl Future<Output = Result<Option<String>, ClientError>> + Send {
        let _ = challenge;
        async { Ok(None) }
    }
}

impl<T: TokenProvider> TokenProvider for std::sync::Arc<T> {
    async fn token(&self) -> Result<Option<String>, ClientError> {
        (**self).token().await
    }

    async fn on_challenge(&self, challenge: &AuthChallenge) -> Result<Option<String>, ClientError> {
        (**self).on_challenge(challenge).await
    }
}

/// [`TokenProvider`] with boxed futures, so the configuration can hold any provider.
pub(crate) trait DynTokenProvider: Send + Sync + 'static {
    fn dyn_token(&self) -> BoxFuture<'_, Result<Option<String>, ClientError>>;

    fn dyn_on_challenge<'a>(
        &'a self,
        challenge: &'a AuthChallenge,
    ) -> BoxFuture<'a, Result<Option<String>, ClientError>>;
}

impl<T: TokenProvider> DynTokenProvider for T {
    fn dyn_token(&self) -> BoxFuture<'_, Result<Option<String>, ClientError>> {
        Box::pin(self.token())
    }

    fn dyn_on_challenge<'a>(
        &'a self,
        challenge: &'a AuthChallenge,
    ) -> BoxFuture<'a, Result<Option<String>, ClientError>> {
        Box::pin(self.on_challenge(challenge))
    }
}

/// How a token goes out on one request: its `Authorization` scheme and, for a DPoP-bound
/// token, the proof for the `DPoP` header.
pub(crate) struct Presentation {
    pub(crate) scheme: &'static str,
    pub(crate) proof: Option<String>,
}

impl Presentation {
    /// A bearer token (RFC 6750).
    pub(crate) const BEARER: Self = Self {
        scheme: "Bearer",
        proof: None,
    };
}

/// Presents the tokens of a provider that binds them to a key (DPoP, RFC 9449): the OAuth
/// provider implements it; every other provider's tokens are bearer tokens.
pub(crate) trait TokenPresenter: Send + Sync + 'static {
    /// How `token` goes out on a `method` request to `url`.
    fn present(&self, token: &str, method: &http::Method, url: &reqwest::Url) -> Presentation;

    /// Records a `DPoP-Nonce` the server at `url` sent.
    fn nonce(&self, url: &reqwest::Url, nonce: &str);
}

/// A fixed bearer token. `Debug` never shows it.
#[derive(Clone)]
pub struct StaticToken(String);

impl StaticToken {
    /// A provider that always sends `token`.
    pub fn new(token: impl Into<String>) -> Self {
        Self(token.into())
    }
}

impl std::fmt::Debug for StaticToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("StaticToken")
            .field(&crate::redact::Redacted::HIDDEN)
            .finish()
    }
}

impl TokenProvider for StaticToken {
    async fn token(&self) -> Result<Option<String>, ClientError> {
        Ok(Some(self.0.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_ts_challenges() {
        let c = AuthChallenge::parse(
            401,
            r#"Bearer error="invalid_token", error_description="Missing \"Authorization\" header", resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/mcp""#,
        );
        assert_eq!(c.scheme(), Some("Bearer"));
        assert_eq!(c.error(), Some("invalid_token"));
        assert_eq!(
            c.error_description(),
            Some(r#"Missing "Authorization" header"#)
        );
        assert_eq!(
            c.resource_metadata(),
            Some("https://api.example.com/.well-known/oauth-protected-resource/mcp")
        );
        assert!(!c.is_insufficient_scope());
        let c = AuthChallenge::parse(403, "Bearer error=insufficient_scope, scope=files:write");
        assert!(c.is_insufficient_scope());
        assert_eq!(c.scope(), Some("files:write"));
        let c = AuthChallenge::parse(401, "Bearer");
        assert_eq!(c.scheme(), Some("Bearer"));
        assert_eq!(c.error(), None);
        let c = AuthChallenge::parse(401, r#"DPoP error="use_dpop_nonce", algs="ES256""#);
        assert_eq!(c.scheme(), Some("DPoP"));
        assert!(!c.is_dpop_nonce_request(), "no nonce header");
        let c = c.with_dpop_nonce(Some("n-1"));
        assert_eq!(c.dpop_nonce(), Some("n-1"));
        assert!(c.is_dpop_nonce_request());
    }
}
