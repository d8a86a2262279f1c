//! The JWT-bearer grant's assertions (RFC 7523): where one comes from
//! ([`AssertionSource`]: a file, an environment variable, a value or a callback), workload
//! identity federation ([`WorkloadIdentity`], MCP SEP-1933), and the audience check that
//! keeps an assertion from going to an authorization server it does not name.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use base64::Engine as _;
use serde_json::Value;

use super::error::{OAuthError, shown};
use super::id_jag::IdentityAssertionContext;
use crate::base::BoxFuture;
use crate::redact::Redacted;

/// Supplies the ID-JAG of enterprise-managed authorization (see
/// [`OAuthConfig::identity_assertion`](super::OAuthConfig::identity_assertion)). Implemented by closures
/// `Fn(IdentityAssertionContext) -> impl Future<Output = Result<String, OAuthError>>`.
pub trait AssertionProvider: Send + Sync + 'static {
    /// An ID-JAG for `context` (typically from
    /// [`exchange_id_token_for_id_jag`](super::exchange_id_token_for_id_jag)).
    fn assertion(
        &self,
        context: IdentityAssertionContext,
    ) -> impl Future<Output = Result<String, OAuthError>> + Send;
}

impl<F, Fut> AssertionProvider for F
where
    F: Fn(IdentityAssertionContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<String, OAuthError>> + Send,
{
    fn assertion(
        &self,
        context: IdentityAssertionContext,
    ) -> impl Future<Output = Result<String, OAuthError>> + Send {
        self(context)
    }
}

pub(crate) trait DynAssertionProvider: Send + Sync + 'static {
    fn dyn_assertion(
        &self,
        context: IdentityAssertionContext,
    ) -> BoxFuture<'_, Result<String, OAuthError>>;
}

impl<T: AssertionProvider> DynAssertionProvider for T {
    fn dyn_assertion(
        &self,
        context: IdentityAssertionContext,
    ) -> BoxFuture<'_, Result<String, OAuthError>> {
        Box::pin(self.assertion(context))
    }
}

/// Where an assertion (a workload's platform-issued JWT, a user's ID token) comes from. It
/// is read each time the client needs a token, so a file the platform rotates (a Kubernetes
/// projected service account token, a SPIFFE JWT-SVID) is always read fresh.
///
/// ```
/// use mcp::client::oauth::{AssertionSource, IdentityAssertionContext, OAuthError};
///
/// // Kubernetes: a projected service account token with the authorization server as audience.
/// let file = AssertionSource::file("/var/run/secrets/tokens/mcp-token");
/// // CI: a token the job exports.
/// let env = AssertionSource::env("MCP_WORKLOAD_TOKEN");
/// // A cloud metadata endpoint, asked for a token for this authorization server.
/// let fetched = AssertionSource::provider(|ctx: IdentityAssertionContext| async move {
///     let audience = ctx.audience().to_owned();
///     Ok::<_, OAuthError>(format!("a JWT for {audience}"))
/// });
/// # drop((file, env, fetched));
/// ```
#[derive(Clone)]
pub struct AssertionSource(Source);

#[derive(Clone)]
enum Source {
    File(PathBuf),
    Env(String),
    Value(String),
    Provider(Arc<dyn DynAssertionProvider>),
}

impl std::fmt::Debug for AssertionSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Source::File(path) => f.debug_tuple("AssertionSource::File").field(path).finish(),
            Source::Env(name) => f.debug_tuple("AssertionSource::Env").field(name).finish(),
            Source::Value(_) => f
                .debug_tuple("AssertionSource::Value")
                .field(&Redacted::HIDDEN)
                .finish(),
            Source::Provider(_) => f.write_str("AssertionSource::Provider"),
        }
    }
}

fn failed(message: String) -> OAuthError {
    OAuthError::Assertion(message.into())
}

impl AssertionSource {
    /// The contents of the file at `path` (surrounding whitespace trimmed), read at each use.
    pub fn file(path: impl Into<PathBuf>) -> Self {
        Self(Source::File(path.into()))
    }

    /// The value of the environment variable `name`, read at each use.
    pub fn env(name: impl Into<String>) -> Self {
        Self(Source::Env(name.into()))
    }

    /// A fixed assertion (for a short-lived process; it is not renewed).
    pub fn value(assertion: impl Into<String>) -> Self {
        Self(Source::Value(assertion.into()))
    }

    /// A callback, given the audience, resource, client ID and scopes the assertion is for:
    /// for a platform that issues a token per audience (a cloud metadata endpoint, a CI
    /// job's OIDC token request). It runs under the client's authorization lock.
    pub fn provider(provider: impl AssertionProvider) -> Self {
        Self(Source::Provider(Arc::new(provider)))
    }

    /// Reads the assertion for `context`.
    pub(crate) async fn read(
        &self,
        context: IdentityAssertionContext,
    ) -> Result<String, OAuthError> {
        let assertion = match &self.0 {
            Source::File(path) => tokio::fs::read_to_string(path)
                .await
                .map_err(|e| failed(format!("cannot read {}: {e}", path.display())))?,
            Source::Env(name) => std::env::var(name)
                .map_err(|_| failed(format!("the environment variable {name} is not set")))?,
            Source::Value(value) => value.clone(),
            Source::Provider(provider) => provider.dyn_assertion(context).await?,
        };
        let assertion = assertion.trim();
        if assertion.is_empty() {
            return Err(failed("the assertion is empty".into()));
        }
        Ok(assertion.to_owned())
    }
}

/// Workload identity federation (MCP SEP-1933): a workload with no user and no registered
/// client presents its platform-issued JWT with the JWT-bearer grant (RFC 7523:
/// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`, `assertion`, `resource`, and
/// `scope` when known) at the authorization server the MCP server lists. The server trusts
/// the JWT's issuer; nothing is registered and no secret is kept.
///
/// The assertion is sent only to an authorization server its `aud` names: the server's
/// issuer, its token endpoint, or an [`audience`](Self::audience) configured here; any
/// other is refused before the request ([`OAuthError::AssertionAudience`]), since the
/// server it went to could replay it. A rejection (`invalid_grant`, `invalid_scope`,
/// `unauthorized_client`) is returned as is: no retry, no other grant.
///
/// ```
/// use mcp::client::{Client, ClientConfig};
/// use mcp::client::oauth::{AssertionSource, OAuthConfig, WorkloadIdentity};
///
/// let workload = WorkloadIdentity::new(AssertionSource::file("/var/run/secrets/tokens/mcp-token"))
///     .issuer("https://as.example.com");
/// let config = ClientConfig::new().oauth(OAuthConfig::workload_identity(workload));
/// let client = Client::new("https://mcp.example.com/mcp", config)?;
/// # drop(client);
/// # Ok::<(), mcp::client::ClientError>(())
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct WorkloadIdentity {
    pub(crate) source: AssertionSource,
    pub(crate) client_id: Option<String>,
    pub(crate) issuer: Option<String>,
    pub(crate) audiences: Vec<String>,
}

impl WorkloadIdentity {
    /// Presents the JWT `source` yields.
    pub fn new(source: AssertionSource) -> Self {
        Self {
            source,
            client_id: None,
            issuer: None,
            audiences: Vec::new(),
        }
    }

    /// A client ID to send with the grant (as a public client), for an authorization
    /// server that wants one; by default none is sent.
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The authorization server that trusts the workload's issuer; the MCP server must list
    /// it (default: the first one it lists).
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Another `aud` value the authorization server accepts in assertions (some expect a
    /// fixed audience rather than their issuer).
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }
}

/// The `aud` of a JWT (a string or an array of strings); `None` when it is not a JWT.
fn audiences(jwt: &str) -> Option<Vec<String>> {
    let payload = jwt.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    let claims: Value = serde_json::from_slice(&bytes).ok()?;
    Some(match claims.get("aud") {
        Some(Value::String(aud)) => vec![aud.clone()],
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    })
}

/// RFC 7523 §3: the assertion must name the authorization server `issuer` in its `aud`
/// (the issuer, one of `accepted` such as the token endpoint; a trailing slash aside), or
/// it is not sent.
pub(crate) fn check_audience(
    assertion: &str,
    issuer: &str,
    accepted: &[&str],
) -> Result<(), OAuthError> {
    let trim = |s: &str| s.trim_end_matches('/').to_owned();
    let found = audiences(assertion).unwrap_or_default();
    let ok = found.iter().any(|aud| {
        let aud = trim(aud);
        !aud.is_empty() && (aud == trim(issuer) || accepted.iter().any(|a| trim(a) == aud))
    });
    if ok {
        return Ok(());
    }
    Err(OAuthError::AssertionAudience {
        issuer: shown(issuer),
        audience: found.iter().map(|a| shown(a)).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jwt(claims: Value) -> String {
        let b64 = |v: Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
        format!(
            "{}.{}.sig",
            b64(serde_json::json!({"alg": "ES256"})),
            b64(claims)
        )
    }

    #[test]
    fn the_audience_must_name_the_authorization_server() {
        const AS: &str = "https://as.example.com";
        let token = "https://as.example.com/token";
        let ok = |aud: Value| check_audience(&jwt(serde_json::json!({"aud": aud})), AS, &[token]);
        assert!(ok(serde_json::json!(AS)).is_ok());
        assert!(ok(serde_json::json!("https://as.example.com/")).is_ok());
        assert!(ok(serde_json::json!(token)).is_ok());
        assert!(ok(serde_json::json!(["https://other.example", AS])).is_ok());
        for bad in [
            serde_json::json!("https://wrong.example"),
            serde_json::json!("https://as.example.com.evil.example"),
            serde_json::json!(["https://wrong.example"]),
            serde_json::json!(""),
            serde_json::json!(42),
        ] {
            let err = ok(bad.clone()).unwrap_err();
            assert!(
                matches!(&err, OAuthError::AssertionAudience { issuer, .. } if issuer == AS),
                "{bad}: {err:?}"
            );
        }
        let err = check_audience(
            &jwt(serde_json::json!({"aud": "https://wrong.example"})),
            AS,
            &[],
        )
        .unwrap_err();
        assert!(err.to_string().contains("https://wrong.example"), "{err}");
        // No aud, or not a JWT at all.
        assert!(check_audience(&jwt(serde_json::json!({"sub": "w"})), AS, &[]).is_err());
        assert!(check_audience("opaque-token", AS, &[]).is_err());
        // A configured audience.
        let fixed = jwt(serde_json::json!({"aud": "api://TokenExchange"}));
        assert!(check_audience(&fixed, AS, &["api://TokenExchange"]).is_ok());
    }

    #[tokio::test]
    async fn sources_are_read_at_each_use_and_trimmed() {
        let context = IdentityAssertionContext::new("https://as", "https://rs/mcp", "", Vec::new());
        let dir = std::env::temp_dir().join(format!("mcp-assertion-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("token");
        std::fs::write(&path, "first\n").unwrap();
        let file = AssertionSource::file(&path);
        assert_eq!(file.read(context.clone()).await.unwrap(), "first");
        std::fs::write(&path, "rotated").unwrap();
        assert_eq!(file.read(context.clone()).await.unwrap(), "rotated");
        std::fs::write(&path, "  \n").unwrap();
        assert!(matches!(
            file.read(context.clone()).await,
            Err(OAuthError::Assertion(_))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
        let err = file.read(context.clone()).await.unwrap_err();
        let source = std::error::Error::source(&err).unwrap().to_string();
        assert!(source.contains("cannot read"), "{source}");

        let missing = AssertionSource::env("MCP_TEST_SURELY_UNSET_VARIABLE");
        assert!(missing.read(context.clone()).await.is_err());
        let value = AssertionSource::value("secret-assertion");
        assert_eq!(
            value.read(context.clone()).await.unwrap(),
            "secret-assertion"
        );
        assert!(!format!("{value:?}").contains("secret-assertion"));
        let provider = AssertionSource::provider(|ctx: IdentityAssertionContext| async move {
            Ok(format!("for {}", ctx.audience()))
        });
        assert_eq!(provider.read(context).await.unwrap(), "for https://as");
    }
}
