//! Enterprise-managed authorization (SEP-990): the context handed to the assertion
//! provider, and the RFC 8693 token exchange that turns the user's ID token into an
//! ID-JAG at the identity provider (the JWT-bearer grant that follows is the provider's,
//! shared with workload identity federation).

use std::time::Duration;

use reqwest::Url;
use serde_json::Value;

use super::client_auth::ClientAuth;
use super::discovery::ServerMetadata;
use super::error::OAuthError;
use super::http::{OAuthHttp, endpoint};
use super::token::{self, Identity};

/// The token type of an ID-JAG (RFC 8693 `requested_token_type`, `issued_token_type`).
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// What the ID-JAG must be issued for, resolved by discovery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdentityAssertionContext {
    pub(crate) audience: String,
    pub(crate) resource: String,
    pub(crate) client_id: String,
    pub(crate) scopes: Vec<String>,
}

impl IdentityAssertionContext {
    /// A context (for tests of providers).
    pub fn new(
        audience: impl Into<String>,
        resource: impl Into<String>,
        client_id: impl Into<String>,
        scopes: Vec<String>,
    ) -> Self {
        Self {
            audience: audience.into(),
            resource: resource.into(),
            client_id: client_id.into(),
            scopes,
        }
    }

    /// The resource authorization server's issuer (the ID-JAG's `aud`).
    pub fn audience(&self) -> &str {
        &self.audience
    }

    /// The MCP server's resource identifier.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The client's ID at the resource authorization server.
    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    /// The scopes the access token is requested with.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }
}

/// The client's registration at the enterprise identity provider.
#[derive(Clone, Debug)]
#[must_use]
pub struct IdentityProviderConfig {
    issuer: String,
    client_id: String,
    auth: ClientAuth,
    token_endpoint: Option<String>,
    timeout: Duration,
}

impl IdentityProviderConfig {
    /// The identity provider `issuer` and the client's ID there (a public client unless
    /// [`auth`](Self::auth) is set).
    pub fn new(issuer: impl Into<String>, client_id: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            client_id: client_id.into(),
            auth: ClientAuth::none(),
            token_endpoint: None,
            timeout: Duration::from_secs(30),
        }
    }

    /// The client's authentication at the identity provider.
    pub fn auth(mut self, auth: ClientAuth) -> Self {
        self.auth = auth;
        self
    }

    /// The token endpoint (default: from the issuer's OpenID or RFC 8414 metadata).
    pub fn token_endpoint(mut self, url: impl Into<String>) -> Self {
        self.token_endpoint = Some(url.into());
        self
    }

    /// The time each exchange may take (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// Exchanges the user's OpenID Connect `id_token` for an ID-JAG at the identity provider
/// (RFC 8693: `subject_token_type` `id_token`, `requested_token_type` `id-jag`, with the
/// context's audience, resource and scopes). A rejection is an
/// [`OAuthError::Token`] carrying the provider's OAuth error response (for example
/// `insufficient_user_authentication`: the user must sign in again); an answer whose
/// `issued_token_type` is not `id-jag` is refused.
pub async fn exchange_id_token_for_id_jag(
    id_token: &str,
    context: &IdentityAssertionContext,
    idp: &IdentityProviderConfig,
) -> Result<String, OAuthError> {
    let http = OAuthHttp::standalone(idp.timeout)?;
    let issuer = endpoint(&idp.issuer)?;
    let token_endpoint = match &idp.token_endpoint {
        Some(url) => endpoint(url)?,
        None => discover_token_endpoint(&http, &issuer).await?,
    };
    let metadata = ServerMetadata {
        issuer: idp.issuer.clone(),
        ..ServerMetadata::default()
    };
    let client = Identity::resolve(&idp.client_id, &idp.auth, &metadata);
    let scope = context.scopes.join(" ");
    let mut params = vec![
        (
            "grant_type",
            "urn:ietf:params:oauth:grant-type:token-exchange",
        ),
        ("requested_token_type", ID_JAG),
        ("subject_token", id_token),
        (
            "subject_token_type",
            "urn:ietf:params:oauth:token-type:id_token",
        ),
        ("audience", context.audience.as_str()),
        ("resource", context.resource.as_str()),
    ];
    if !scope.is_empty() {
        params.push(("scope", &scope));
    }
    let response = token::request(
        &http,
        &token_endpoint,
        &client,
        &idp.issuer,
        &params,
        token::Expect::Any,
        None,
    )
    .await?;
    match response.issued_token_type.as_deref() {
        None | Some(ID_JAG) => Ok(response.access_token),
        Some(other) => Err(OAuthError::invalid(
            token_endpoint.as_str(),
            format!("the token exchange issued a {other}, not an ID-JAG"),
        )),
    }
}

async fn discover_token_endpoint(http: &OAuthHttp, issuer: &Url) -> Result<Url, OAuthError> {
    let base = issuer.as_str().trim_end_matches('/');
    for suffix in [
        "/.well-known/openid-configuration",
        "/.well-known/oauth-authorization-server",
    ] {
        let url = endpoint(&format!("{base}{suffix}"))?;
        if let Some(doc) = http.get_metadata(&url).await? {
            let token = doc
                .get("token_endpoint")
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    OAuthError::invalid(url.as_str(), "the metadata has no token_endpoint")
                })?;
            return endpoint(token);
        }
    }
    Err(OAuthError::Discovery {
        resource: issuer.to_string(),
        reason: "the identity provider publishes no metadata".into(),
    })
}
