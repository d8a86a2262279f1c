//! The errors of the OAuth flows: [`OAuthError`] for every way a flow can fail, and
//! [`OAuthTokenError`] for an endpoint that rejected a token request, with its OAuth error
//! response.

use serde_json::{Map, Value};

use crate::client::BoxError;

/// The OAuth error response of a token endpoint (RFC 6749 §5.2): `error`,
/// `error_description`, `error_uri` and any other members (such as `max_age`). `Debug` hides
/// the value of a member named like a credential (`access_token`, `id_token`, …), should a
/// server echo one.
#[derive(Clone, PartialEq)]
pub struct OAuthErrorResponse {
    code: String,
    description: Option<String>,
    uri: Option<String>,
    extra: Map<String, Value>,
}

impl std::fmt::Debug for OAuthErrorResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthErrorResponse")
            .field("code", &self.code)
            .field("description", &self.description)
            .field("uri", &self.uri)
            .field("extra", &crate::redact::JsonMembers(&self.extra))
            .finish()
    }
}

impl OAuthErrorResponse {
    pub(crate) fn new(code: String, description: Option<String>) -> Self {
        Self {
            code,
            description,
            uri: None,
            extra: Map::new(),
        }
    }

    /// Reads an error response; `None` when `body` has no string `error` member.
    pub(crate) fn from_json(body: &Value) -> Option<Self> {
        let object = body.as_object()?;
        let code = object.get("error")?.as_str()?.to_owned();
        let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
        let extra = object
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "error" | "error_description" | "error_uri"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Some(Self {
            description: text("error_description"),
            uri: text("error_uri"),
            code,
            extra,
        })
    }

    /// The `error` code (`invalid_grant`, `insufficient_user_authentication`, …).
    pub fn code(&self) -> &str {
        &self.code
    }

    /// The `error_description`.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The `error_uri`.
    pub fn uri(&self) -> Option<&str> {
        self.uri.as_deref()
    }

    /// Another member of the response (for example `max_age`).
    pub fn get(&self, member: &str) -> Option<&Value> {
        self.extra.get(member)
    }
}

/// A token endpoint (of the authorization server, or of the identity provider in a token
/// exchange) rejected a request. [`response`](Self::response) carries its OAuth error
/// response when it sent one.
///
/// It sits in the [`source`](std::error::Error::source) chain of the
/// [`ClientError`](crate::client::ClientError) a call returns:
///
/// ```
/// use mcp::client::oauth::OAuthTokenError;
///
/// fn needs_reauthentication(err: &(dyn std::error::Error + 'static)) -> bool {
///     let mut current = Some(err);
///     while let Some(e) = current {
///         if let Some(token) = e.downcast_ref::<OAuthTokenError>() {
///             return token.response().map(|r| r.code()) == Some("insufficient_user_authentication");
///         }
///         current = e.source();
///     }
///     false
/// }
/// # let _ = needs_reauthentication;
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("the token endpoint {} answered HTTP {}{}", .0.endpoint, .0.status, describe(.0.response.as_ref()))]
pub struct OAuthTokenError(Box<TokenRejection>);

#[derive(Clone, Debug, PartialEq)]
struct TokenRejection {
    endpoint: String,
    status: u16,
    response: Option<OAuthErrorResponse>,
}

fn describe(response: Option<&OAuthErrorResponse>) -> String {
    match response {
        Some(r) => match r.description() {
            Some(d) => format!(": {} ({d})", r.code()),
            None => format!(": {}", r.code()),
        },
        None => " without an OAuth error response".into(),
    }
}

impl OAuthTokenError {
    pub(crate) fn new(endpoint: &str, status: u16, response: Option<OAuthErrorResponse>) -> Self {
        Self(Box::new(TokenRejection {
            endpoint: shown(endpoint),
            status,
            response,
        }))
    }

    /// The token endpoint's URL.
    pub fn endpoint(&self) -> &str {
        &self.0.endpoint
    }

    /// The HTTP status of the rejection.
    pub fn status(&self) -> u16 {
        self.0.status
    }

    /// The endpoint's OAuth error response, if its body was one.
    pub fn response(&self) -> Option<&OAuthErrorResponse> {
        self.0.response.as_ref()
    }
}

/// Why an OAuth flow failed. No variant carries a token or a client secret, and the URLs
/// they quote (the `url` fields, the transport error's message) have their credentials
/// masked: a password, and the values of query parameters such as `code`, `state` or
/// `client_secret`, read `***`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    /// A token endpoint rejected the request.
    #[error("{0}")]
    Token(#[source] OAuthTokenError),
    /// An HTTP exchange with a metadata, registration or token endpoint failed.
    #[error("HTTP request to {url} failed")]
    Http {
        /// The endpoint.
        url: String,
        /// The transport error.
        #[source]
        source: reqwest::Error,
    },
    /// An endpoint did not answer within the client's timeout.
    #[error("{url} did not answer in time")]
    Timeout {
        /// The endpoint.
        url: String,
    },
    /// An endpoint answered something other than JSON (an HTML error page, …).
    #[error("{url} answered HTTP {status} with {content_type:?} instead of JSON")]
    NotJson {
        /// The endpoint.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The `Content-Type` it sent.
        content_type: String,
    },
    /// An endpoint answered a status the flow cannot use.
    #[error("{url} answered HTTP {status}")]
    Status {
        /// The endpoint.
        url: String,
        /// The HTTP status.
        status: u16,
    },
    /// A JSON document (metadata, registration or token response) is not what the
    /// specification requires.
    #[error("invalid response from {url}: {reason}")]
    InvalidResponse {
        /// The endpoint.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// An endpoint, or a redirect, uses plain HTTP on a host other than loopback.
    #[error("refusing the non-HTTPS endpoint {url} (only loopback may use http)")]
    InsecureEndpoint {
        /// The URL.
        url: String,
    },
    /// Neither the protected resource metadata nor the authorization server metadata
    /// could be found, and the server gave nothing to fall back on.
    #[error("no authorization server found for {resource}: {reason}")]
    Discovery {
        /// The MCP server.
        resource: String,
        /// What was tried.
        reason: String,
    },
    /// The protected resource metadata names another resource than the MCP server.
    #[error("the protected resource metadata names the resource {advertised}, not {server}")]
    ResourceMismatch {
        /// The URL of the MCP server.
        server: String,
        /// The `resource` of the metadata.
        advertised: String,
    },
    /// The authorization server is not one the resource lists, or its metadata names
    /// another issuer.
    #[error("untrusted authorization server {issuer}: {reason}")]
    UntrustedAuthorizationServer {
        /// The issuer.
        issuer: String,
        /// Why it is not trusted.
        reason: String,
    },
    /// No client identity fits the authorization server: no pre-registered client, no
    /// Client ID Metadata Document support, no dynamic registration.
    #[error("no way to register a client with {issuer}: {reason}")]
    NoClientRegistration {
        /// The authorization server.
        issuer: String,
        /// What is missing.
        reason: String,
    },
    /// Dynamic client registration was refused.
    #[error("dynamic client registration at {url} failed with HTTP {status}{}", describe(.response.as_deref()))]
    Registration {
        /// The registration endpoint.
        url: String,
        /// The HTTP status.
        status: u16,
        /// Its OAuth error response, if any.
        response: Option<Box<OAuthErrorResponse>>,
    },
    /// The authorization response's `state` is not the one sent.
    #[error("the authorization response carries the wrong state")]
    StateMismatch,
    /// The authorization response's `iss` (RFC 9207) is not the issuer of the authorization
    /// server the request went to (simple string comparison): it may come from another
    /// server (a mix-up attack). The code is not exchanged.
    #[error("the authorization response comes from the issuer {received}, not {expected}")]
    IssuerMismatch {
        /// The issuer of the authorization server's metadata.
        expected: String,
        /// The `iss` of the response.
        received: String,
    },
    /// The authorization server advertises `authorization_response_iss_parameter_supported`
    /// (RFC 9207) but its authorization response carries no `iss`. The code is not
    /// exchanged.
    #[error("the authorization response carries no iss although {issuer} advertises it")]
    IssuerMissing {
        /// The issuer of the authorization server's metadata.
        issuer: String,
    },
    /// The authorization server redirected back with an error.
    #[error("the authorization was refused{}", describe(Some(.0.as_ref())))]
    AuthorizationDenied(Box<OAuthErrorResponse>),
    /// The authorization handler failed, or the redirect it returned is unusable.
    #[error("the authorization step failed: {message}")]
    Authorization {
        /// What failed.
        message: String,
        /// The underlying error.
        #[source]
        source: Option<BoxError>,
    },
    /// The assertion of a JWT-bearer grant could not be obtained: its provider failed, its
    /// file or environment variable cannot be read, or it is empty.
    #[error("the assertion could not be obtained")]
    Assertion(#[source] BoxError),
    /// The assertion of a JWT-bearer grant names another audience than the authorization
    /// server it would go to (RFC 7523 §3); it was not sent.
    #[error("the assertion is for {audience:?}, not the authorization server {issuer}; not sent")]
    AssertionAudience {
        /// The authorization server's issuer.
        issuer: String,
        /// The assertion's `aud` values (none when it has no `aud` or is not a JWT).
        audience: Vec<String>,
    },
    /// The server keeps asking for scopes the current token already has: a new
    /// authorization would not help.
    #[error("the server refuses scopes already granted ({scopes}); not authorizing again")]
    ScopeNotGranted {
        /// The scopes of the challenge.
        scopes: String,
    },
    /// The OAuth configuration is invalid.
    #[error("invalid OAuth configuration: {0}")]
    Config(String),
}

impl OAuthError {
    pub(crate) fn authorization(message: impl Into<String>) -> Self {
        Self::Authorization {
            message: message.into(),
            source: None,
        }
    }

    pub(crate) fn invalid(url: &str, reason: impl Into<String>) -> Self {
        Self::InvalidResponse {
            url: shown(url),
            reason: reason.into(),
        }
    }

    /// An HTTP exchange with `url` failed.
    pub(crate) fn http(url: &str, source: reqwest::Error) -> Self {
        Self::Http {
            url: shown(url),
            source: crate::redact::reqwest_error(source),
        }
    }

    /// `url` did not answer in time.
    pub(crate) fn timeout(url: &str) -> Self {
        Self::Timeout { url: shown(url) }
    }
}

/// `url` as the errors quote it: its credentials masked.
pub(crate) fn shown(url: &str) -> String {
    crate::redact::url(url).into_owned()
}
