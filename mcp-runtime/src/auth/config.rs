//! The OAuth protected resource configuration and its checks.

use std::collections::BTreeMap;
use std::time::Duration;

use super::DpopConfig;
use crate::error::Error;
use crate::redact::Redacted;

/// How an OAuth protected resource validates bearer tokens: which authorization servers it
/// trusts, which scopes every request needs, and how scopes imply each other.
///
/// Build it with [`OAuthConfig::new`] and the builder methods, and attach it with
/// [`ServerBuilder::oauth`](crate::ServerBuilder::oauth); it is checked when the server is
/// built.
#[derive(Clone, Debug)]
#[non_exhaustive]
#[must_use = "an OAuth configuration does nothing until it is given to `ServerBuilder::oauth`"]
pub struct OAuthConfig {
    /// The canonical URI clients use to reach the service (an absolute `http(s)` URL). Set it
    /// explicitly behind a proxy. Tokens must be issued for it.
    pub(crate) resource: String,
    /// The trusted authorization servers; their issuers are advertised in the metadata.
    pub(crate) authorization_servers: Vec<AuthorizationServer>,
    /// Scopes every request needs (local policy, not a metadata field).
    pub(crate) required_scopes: Vec<String>,
    /// The metadata's informational `scopes_supported`; `None` means `required_scopes`.
    pub(crate) scopes_supported: Option<Vec<String>>,
    /// Scope hierarchy keyed by the broader scope: a token granted the key also holds every
    /// scope listed, transitively.
    pub(crate) scope_hierarchy: BTreeMap<String, Vec<String>>,
    /// The metadata's `resource_name`.
    pub(crate) resource_name: Option<String>,
    /// The metadata's `resource_documentation` (an absolute URL).
    pub(crate) resource_documentation: Option<String>,
    /// The shortest time between two JWKS fetches triggered by an unknown `kid` (default
    /// 30 s), so that tokens with made-up key ids cannot make the server hammer the
    /// authorization server.
    pub(crate) jwks_min_refresh: Duration,
    /// How long fetched JWKS keys are used before they are fetched again (default 1 h).
    pub(crate) jwks_max_age: Duration,
    /// Timeout of JWKS and introspection requests (default 10 s).
    pub(crate) http_timeout: Duration,
    /// DPoP-bound access tokens (RFC 9449), when accepted.
    pub(crate) dpop: Option<Box<DpopConfig>>,
}

impl OAuthConfig {
    /// A configuration for `resource`, with no authorization server yet.
    pub fn new(resource: impl Into<String>) -> Self {
        Self {
            resource: resource.into(),
            authorization_servers: Vec::new(),
            required_scopes: Vec::new(),
            scopes_supported: None,
            scope_hierarchy: BTreeMap::new(),
            resource_name: None,
            resource_documentation: None,
            jwks_min_refresh: Duration::from_secs(30),
            jwks_max_age: Duration::from_secs(3600),
            http_timeout: Duration::from_secs(10),
            dpop: None,
        }
    }

    /// Trusts one more authorization server.
    pub fn authorization_server(mut self, server: AuthorizationServer) -> Self {
        self.authorization_servers.push(server);
        self
    }

    /// Scopes every request needs.
    pub fn required_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The metadata's `scopes_supported` (defaults to the required scopes).
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scopes_supported = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Declares that a token granted `broader` also holds every scope in `implied`.
    pub fn scope_hierarchy<S: Into<String>>(
        mut self,
        broader: impl Into<String>,
        implied: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scope_hierarchy
            .entry(broader.into())
            .or_default()
            .extend(implied.into_iter().map(Into::into));
        self
    }

    /// The metadata's `resource_name`.
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// The metadata's `resource_documentation`.
    pub fn resource_documentation(mut self, url: impl Into<String>) -> Self {
        self.resource_documentation = Some(url.into());
        self
    }

    /// The shortest time between two JWKS fetches triggered by an unknown `kid`.
    pub fn jwks_min_refresh(mut self, interval: Duration) -> Self {
        self.jwks_min_refresh = interval;
        self
    }

    /// How long fetched JWKS keys are used before they are fetched again (default 1 h).
    pub fn jwks_max_age(mut self, max_age: Duration) -> Self {
        self.jwks_max_age = max_age;
        self
    }

    /// Timeout of JWKS and introspection requests.
    pub fn http_timeout(mut self, timeout: Duration) -> Self {
        self.http_timeout = timeout;
        self
    }

    /// Accepts DPoP-bound access tokens (RFC 9449): `Authorization: DPoP <token>` with a
    /// `DPoP` proof of possession of the key the token is bound to. The metadata then lists
    /// `dpop_signing_alg_values_supported` and `dpop_bound_access_tokens_required`, and
    /// `401` answers carry a `DPoP` challenge next to (or, with
    /// [`DpopConfig::require`], instead of) the `Bearer` one.
    ///
    /// A token bound to a key (one with `cnf.jkt`) is refused as a bearer token whether or
    /// not DPoP is configured: the key binding could not be checked.
    ///
    /// ```
    /// use mcp::auth::{AuthorizationServer, DpopConfig, OAuthConfig};
    ///
    /// let oauth = OAuthConfig::new("https://mcp.example.com/mcp")
    ///     .authorization_server(AuthorizationServer::jwt(
    ///         "https://login.example.com",
    ///         "https://login.example.com/jwks",
    ///     ))
    ///     .dpop(DpopConfig::new().require());
    /// # let _ = oauth;
    /// ```
    pub fn dpop(mut self, dpop: DpopConfig) -> Self {
        self.dpop = Some(Box::new(dpop));
        self
    }

    /// The scopes advertised in the metadata.
    pub(crate) fn advertised_scopes(&self) -> &[String] {
        self.scopes_supported
            .as_deref()
            .unwrap_or(&self.required_scopes)
    }

    /// Checks the configuration; `tool_scopes` are the scopes of each tool.
    pub(crate) fn validate<'a>(
        &self,
        tool_scopes: impl Iterator<Item = (&'a str, &'a [&'static str])>,
    ) -> Result<(), Error> {
        let bad = |m: String| Err(Error::Config(format!("OAuth: {m}")));
        absolute_url("resource", &self.resource)?;
        if self.authorization_servers.is_empty() {
            return bad("at least one authorization server is required".into());
        }
        let mut introspection = 0;
        for (i, server) in self.authorization_servers.iter().enumerate() {
            absolute_url("an authorization server's issuer", &server.issuer)?;
            if self.authorization_servers[..i]
                .iter()
                .any(|s| s.issuer == server.issuer)
            {
                return bad(format!(
                    "authorization server `{}` is listed twice",
                    server.issuer
                ));
            }
            if server.audience.as_deref().is_some_and(str::is_empty) {
                return bad(format!(
                    "the audience of authorization server `{}` is empty",
                    server.issuer
                ));
            }
            match &server.validator {
                TokenValidator::Jwt { jwks_url } => {
                    absolute_url("a JWKS URL", jwks_url)?;
                }
                TokenValidator::Introspection { url, .. } => {
                    absolute_url("an introspection URL", url)?;
                    introspection += 1;
                }
            }
        }
        if introspection > 1 {
            return bad("at most one authorization server can use introspection: an opaque token names no issuer, so it could only be sent to all of them; use JWT access tokens, or a separate service".into());
        }
        if let Some(doc) = &self.resource_documentation {
            absolute_url("resource_documentation", doc)?;
        }
        check_scopes(
            "required scopes",
            self.required_scopes.iter().map(String::as_str),
        )?;
        if let Some(supported) = &self.scopes_supported {
            check_scopes("supported scopes", supported.iter().map(String::as_str))?;
        }
        for (broader, implied) in &self.scope_hierarchy {
            check_scopes(
                "the scope hierarchy",
                std::iter::once(broader.as_str()).chain(implied.iter().map(String::as_str)),
            )?;
        }
        for (tool, scopes) in tool_scopes {
            check_scopes(
                &format!("the scopes of tool `{tool}`"),
                scopes.iter().copied(),
            )?;
        }
        Ok(())
    }
}

/// One trusted authorization server: its issuer, the audience its tokens carry for this
/// service, and how its tokens are validated.
#[derive(Clone, Debug)]
#[non_exhaustive]
#[must_use = "an authorization server is only trusted once given to `OAuthConfig::authorization_server`"]
pub struct AuthorizationServer {
    /// The issuer identifier (the `iss` of its tokens, advertised in the metadata).
    pub(crate) issuer: String,
    /// The audience its tokens name for this service when it is not the resource URI (the
    /// server's own identifier for the API).
    pub(crate) audience: Option<String>,
    /// How its tokens are validated.
    pub(crate) validator: TokenValidator,
}

impl AuthorizationServer {
    /// An authorization server issuing JWT access tokens signed with the keys published at
    /// `jwks_url`.
    pub fn jwt(issuer: impl Into<String>, jwks_url: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            audience: None,
            validator: TokenValidator::Jwt {
                jwks_url: jwks_url.into(),
            },
        }
    }

    /// An authorization server whose tokens are checked at its RFC 7662 introspection
    /// endpoint `url`.
    pub fn introspection(issuer: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            audience: None,
            validator: TokenValidator::Introspection {
                url: url.into(),
                client_id: None,
                client_secret: None,
            },
        }
    }

    /// The audience this server's tokens carry for this service.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// The client credentials sent (HTTP Basic) to the introspection endpoint.
    pub fn client_credentials(mut self, id: impl Into<String>, secret: impl Into<String>) -> Self {
        if let TokenValidator::Introspection {
            client_id,
            client_secret,
            ..
        } = &mut self.validator
        {
            *client_id = Some(id.into());
            *client_secret = Some(secret.into());
        }
        self
    }
}

/// How an authorization server's tokens are validated. `Debug` never shows the client secret.
#[derive(Clone)]
#[non_exhaustive]
pub enum TokenValidator {
    /// JWT access tokens, verified with the keys of a JWKS document.
    Jwt {
        /// The JWKS URL.
        jwks_url: String,
    },
    /// Any token, sent to an RFC 7662 introspection endpoint.
    Introspection {
        /// The introspection endpoint.
        url: String,
        /// The client id sent with HTTP Basic, if the endpoint requires one.
        client_id: Option<String>,
        /// The client secret sent with HTTP Basic.
        client_secret: Option<String>,
    },
}

impl std::fmt::Debug for TokenValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Jwt { jwks_url } => f
                .debug_struct("Jwt")
                .field("jwks_url", &crate::redact::url(jwks_url))
                .finish(),
            Self::Introspection {
                url,
                client_id,
                client_secret,
            } => f
                .debug_struct("Introspection")
                .field("url", &crate::redact::url(url))
                .field("client_id", client_id)
                .field(
                    "client_secret",
                    &client_secret.as_ref().map(|_| Redacted::HIDDEN),
                )
                .finish(),
        }
    }
}

fn absolute_url(what: &str, value: &str) -> Result<reqwest::Url, Error> {
    match reqwest::Url::parse(value) {
        Ok(url)
            if matches!(url.scheme(), "http" | "https")
                && url.has_host()
                && url.fragment().is_none() =>
        {
            Ok(url)
        }
        _ => Err(Error::Config(format!(
            "OAuth: {what} `{}` is not an absolute http(s) URL without a fragment",
            crate::redact::url(value)
        ))),
    }
}

/// `true` for an RFC 6749 scope token: printable ASCII without space, `"` or `\`.
pub(crate) fn is_scope_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| (0x21..=0x7e).contains(&b) && b != b'"' && b != b'\\')
}

fn check_scopes<'a>(what: &str, scopes: impl Iterator<Item = &'a str>) -> Result<(), Error> {
    for scope in scopes {
        if !is_scope_token(scope) {
            return Err(Error::Config(format!(
                "OAuth: {what}: {scope:?} is not a valid scope (printable ASCII without spaces, `\"` or `\\`)"
            )));
        }
        if scope == "offline_access" {
            return Err(Error::Config(format!(
                "OAuth: {what}: `offline_access` asks for a refresh token rather than granting access to this server; clients request it themselves"
            )));
        }
    }
    Ok(())
}
