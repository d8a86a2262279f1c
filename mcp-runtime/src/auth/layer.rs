//! The authentication middleware of the MCP route (bearer and DPoP-bound tokens, challenges)
//! and the route of the public metadata document (written by `metadata`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{NestedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::{HeaderMap, HeaderValue, StatusCode, header};
use serde_json::{Map, Value, json};

use super::config::{OAuthConfig, TokenValidator};
use super::dpop::{self, DPOP_NONCE, Dpop};
use super::listener::{Listener, ListenerAuth};
use super::{AuthError, introspect, jwt, metadata};
use crate::base::AuthContext;
use crate::base::ScopeChallenge;
use crate::error::Error;

/// The authentication attached to a server.
pub(crate) enum AuthConfig {
    OAuth(OAuthConfig),
    Listener(Vec<ListenerAuth>),
}

/// The checked, ready authentication layer of a server.
pub(crate) struct Guard {
    kind: Kind,
}

enum Kind {
    OAuth(Box<Protected>),
    Listener(Listener),
}

struct Protected {
    required: Arc<[String]>,
    hierarchy: BTreeMap<String, Vec<String>>,
    servers: Vec<TrustedServer>,
    http: reqwest::Client,
    metadata_path: String,
    metadata_url: String,
    metadata: Arc<Vec<u8>>,
    /// DPoP-bound tokens, when accepted.
    dpop: Option<Box<Dpop>>,
}

struct TrustedServer {
    issuer: String,
    audience: String,
    validator: Validator,
}

enum Validator {
    Jwks(jwt::Jwks),
    Introspection {
        url: String,
        credentials: Option<(String, String)>,
    },
}

impl Guard {
    /// Checks `auth` (and the tools' scopes) and prepares the layer.
    pub(crate) fn new<'a>(
        auth: AuthConfig,
        tool_scopes: impl Iterator<Item = (&'a str, &'a [&'static str])>,
    ) -> Result<Self, Error> {
        let config = match auth {
            AuthConfig::Listener(list) => {
                return Ok(Self {
                    kind: Kind::Listener(Listener::new(list)?),
                });
            }
            AuthConfig::OAuth(config) => config,
        };
        config.validate(tool_scopes)?;
        let resource = reqwest::Url::parse(&config.resource)
            .map_err(|e| Error::Config(format!("OAuth: invalid resource: {e}")))?;
        let path = resource.path().trim_end_matches('/');
        let metadata_path = format!("/.well-known/oauth-protected-resource{path}");
        if metadata_path.contains(['{', '}', '*']) {
            return Err(Error::Config(
                "OAuth: the resource path cannot contain `{`, `}` or `*`".into(),
            ));
        }
        let metadata_url = format!("{}{metadata_path}", resource.origin().ascii_serialization());
        let dpop = match &config.dpop {
            Some(d) => Some(Box::new(Dpop::new(d, &resource)?)),
            None => None,
        };
        let metadata = metadata::document(&config, dpop.as_deref())?;
        let http = reqwest::Client::builder()
            .timeout(config.http_timeout)
            .build()
            .map_err(|e| Error::Config(format!("OAuth: cannot build the HTTP client: {e}")))?;
        let servers = config
            .authorization_servers
            .iter()
            .map(|s| TrustedServer {
                issuer: s.issuer.clone(),
                audience: s
                    .audience
                    .clone()
                    .unwrap_or_else(|| config.resource.clone()),
                validator: match &s.validator {
                    TokenValidator::Jwt { jwks_url } => Validator::Jwks(jwt::Jwks::new(
                        jwks_url.clone(),
                        config.jwks_min_refresh,
                        config.jwks_max_age,
                    )),
                    TokenValidator::Introspection {
                        url,
                        client_id,
                        client_secret,
                    } => Validator::Introspection {
                        url: url.clone(),
                        credentials: client_id
                            .clone()
                            .map(|id| (id, client_secret.clone().unwrap_or_default())),
                    },
                },
            })
            .collect();
        Ok(Self {
            kind: Kind::OAuth(Box::new(Protected {
                required: config.required_scopes.clone().into(),
                hierarchy: config.scope_hierarchy.clone(),
                servers,
                http,
                metadata_path,
                metadata_url,
                metadata: Arc::new(metadata),
                dpop,
            })),
        })
    }

    /// The scopes every request needs, on OAuth-protected services (`None` for listener
    /// authentication, where tool scopes are not available).
    pub(crate) fn required_scopes(&self) -> Option<Arc<[String]>> {
        match &self.kind {
            Kind::OAuth(p) => Some(p.required.clone()),
            Kind::Listener(_) => None,
        }
    }
}

/// The middleware of the MCP route: authenticates the request (a bearer token, or a
/// DPoP-bound token and its proof), checks the required scopes, inserts the caller into the
/// request extensions, and turns a handler's scope refusal into a challenge.
pub(crate) async fn require_auth(
    State(guard): State<Arc<Guard>>,
    mut request: Request,
    next: Next,
) -> Response {
    let protected = match &guard.kind {
        Kind::Listener(listener) => {
            return match listener.authenticate(request.headers()) {
                Ok(owner) => {
                    request.extensions_mut().insert(owner);
                    next.run(request).await
                }
                Err(response) => response,
            };
        }
        Kind::OAuth(p) => p,
    };
    let dpop = protected.dpop.as_deref();
    let (scheme, token) = match credentials(request.headers(), dpop) {
        Ok((scheme, token)) => (scheme, token.to_owned()),
        Err(e) => return protected.refusal(&e, None),
    };
    let proof = match (scheme, dpop) {
        (Scheme::Dpop, Some(d)) => {
            let nested = request.extensions().get::<NestedPath>();
            let checked = d.check_proof(
                request.method(),
                request.uri(),
                nested.map(NestedPath::as_str),
                request.headers(),
                &token,
            );
            match checked {
                Ok(checked) => Some((d, checked)),
                Err(e) => return protected.refusal(&e, Some(scheme)),
            }
        }
        (Scheme::Bearer, Some(d)) if d.required => {
            let e = AuthError::InvalidToken("This resource requires DPoP-bound access tokens");
            return protected.refusal(&e, Some(scheme));
        }
        _ => None,
    };
    let auth = match protected.authenticate(token).await {
        Ok(a) => a,
        Err(e) => return protected.refusal(&e, Some(scheme)),
    };
    let bound = match &proof {
        Some((d, checked)) => d.bind(checked, &auth.claims).await,
        // A token bound to a key is no bearer token, whether DPoP is configured or not.
        None => match dpop::bound_key(&auth.claims) {
            Ok(None) => Ok(()),
            Ok(Some(_)) => Err(AuthError::InvalidToken(
                "A DPoP-bound token cannot be used as a bearer token",
            )),
            Err(e) => Err(e),
        },
    };
    if let Err(e) = bound {
        return protected.refusal(&e, Some(scheme));
    }
    if !protected.required.iter().all(|s| auth.scopes.contains(s)) {
        tracing::debug!("refusing a token that lacks the required scopes");
        return protected.insufficient_scope(&protected.required, "Insufficient scope", scheme);
    }
    request.extensions_mut().insert(auth);
    let mut response = next.run(request).await;
    if let Some(challenge) = response.extensions_mut().remove::<ScopeChallenge>() {
        let value = protected.challenge(
            scheme,
            Some(("insufficient_scope", &challenge.description)),
            Some(&challenge.scopes),
        );
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    if let Some((d, checked)) = &proof
        && checked.renew_nonce
        && let Some(nonce) = d.current_nonce()
    {
        response.headers_mut().insert(DPOP_NONCE, nonce);
    }
    response
}

/// The `Authorization` scheme of a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scheme {
    Bearer,
    /// RFC 9449's `DPoP`, accepted when DPoP is configured.
    Dpop,
}

/// The scheme and token of the `Authorization` header (`DPoP` only when `dpop` is set).
fn credentials<'a>(
    headers: &'a HeaderMap,
    dpop: Option<&Dpop>,
) -> Result<(Scheme, &'a str), AuthError> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return Err(if headers.contains_key(header::AUTHORIZATION) {
            AuthError::InvalidToken("Invalid Authorization header")
        } else {
            AuthError::InvalidToken("Missing Authorization header")
        });
    };
    let invalid = AuthError::InvalidToken(match dpop {
        None => "Invalid Authorization header, expected 'Bearer TOKEN'",
        Some(d) if d.required => "Invalid Authorization header, expected 'DPoP TOKEN'",
        Some(_) => "Invalid Authorization header, expected 'Bearer TOKEN' or 'DPoP TOKEN'",
    });
    let value = value
        .to_str()
        .map_err(|_| AuthError::InvalidToken("Invalid Authorization header"))?;
    let Some((scheme, token)) = value.split_once(' ') else {
        return Err(invalid);
    };
    let token = token.trim();
    let token68 = |t: &str| {
        !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._~+/=".contains(&b))
    };
    let scheme = if scheme.eq_ignore_ascii_case("bearer") {
        Scheme::Bearer
    } else if dpop.is_some() && scheme.eq_ignore_ascii_case("dpop") {
        Scheme::Dpop
    } else {
        return Err(invalid);
    };
    if !token68(token) {
        return Err(invalid);
    }
    Ok((scheme, token))
}

impl Protected {
    /// Validates `token` with the one authorization server that could have issued it.
    async fn authenticate(&self, token: String) -> Result<AuthContext, AuthError> {
        let (server, claims) = match jwt::peek(&token) {
            Some(peeked) => {
                let iss = peeked
                    .payload
                    .get("iss")
                    .and_then(Value::as_str)
                    .ok_or(AuthError::InvalidToken("Invalid token: no issuer"))?;
                let server = self
                    .servers
                    .iter()
                    .find(|s| s.issuer == iss)
                    .ok_or(AuthError::InvalidToken("Token issuer is not trusted"))?;
                let claims = self.validate_with(server, &token).await?;
                (server, claims)
            }
            None => {
                let server = self
                    .servers
                    .iter()
                    .find(|s| matches!(s.validator, Validator::Introspection { .. }))
                    .ok_or(AuthError::InvalidToken("Invalid token"))?;
                let claims = self.validate_with(server, &token).await?;
                (server, claims)
            }
        };
        // An empty claim names nothing: `sub: ""` is no subject.
        let text = |k: &str| {
            claims
                .get(k)
                .and_then(Value::as_str)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
        };
        let subject = text("sub");
        let client_id = text("client_id").or_else(|| text("azp"));
        let scopes = self.expand(granted_scopes(&claims));
        Ok(AuthContext {
            subject,
            issuer: Some(server.issuer.clone()),
            client_id,
            scopes,
            claims,
            token,
        })
    }

    async fn validate_with(
        &self,
        server: &TrustedServer,
        token: &str,
    ) -> Result<Map<String, Value>, AuthError> {
        match &server.validator {
            Validator::Jwks(jwks) => {
                jwks.verify(&self.http, token, &server.issuer, &server.audience)
                    .await
            }
            Validator::Introspection { url, credentials } => {
                introspect::introspect(
                    &self.http,
                    url,
                    credentials.as_ref().map(|(i, s)| (i.as_str(), s.as_str())),
                    token,
                    &server.issuer,
                    &server.audience,
                )
                .await
            }
        }
    }

    /// The granted scopes plus every scope they imply, transitively.
    fn expand(&self, granted: BTreeSet<String>) -> BTreeSet<String> {
        let mut all = granted.clone();
        let mut todo: Vec<String> = granted.into_iter().collect();
        while let Some(scope) = todo.pop() {
            for implied in self.hierarchy.get(&scope).into_iter().flatten() {
                if all.insert(implied.clone()) {
                    todo.push(implied.clone());
                }
            }
        }
        all
    }

    /// The answer to a refused request. `scheme` is the one the request used, when known:
    /// on a service that accepts DPoP, the challenge of the scheme the error concerns
    /// carries it (first), and the other scheme's challenge, when accepted, is offered
    /// without one.
    fn refusal(&self, e: &AuthError, scheme: Option<Scheme>) -> Response {
        let description = e.to_string();
        let mut r = error_json(e.status(), e.code(), &description);
        if let AuthError::Unavailable(_) = e {
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
            return r;
        }
        let error = Some((e.code(), description.as_str()));
        let Some(dpop) = self.dpop.as_deref() else {
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                self.challenge(Scheme::Bearer, error, None),
            );
            return r;
        };
        let about_dpop = dpop.required
            || scheme == Some(Scheme::Dpop)
            || matches!(e, AuthError::InvalidProof(_) | AuthError::UseNonce(_));
        let (first, second) = if about_dpop {
            (Scheme::Dpop, (!dpop.required).then_some(Scheme::Bearer))
        } else {
            (Scheme::Bearer, Some(Scheme::Dpop))
        };
        let h = r.headers_mut();
        h.append(header::WWW_AUTHENTICATE, self.challenge(first, error, None));
        if let Some(second) = second {
            h.append(header::WWW_AUTHENTICATE, self.challenge(second, None, None));
        }
        if let Some(nonce) = dpop.current_nonce() {
            h.insert(DPOP_NONCE, nonce);
        }
        r
    }

    fn insufficient_scope(&self, scopes: &[String], description: &str, scheme: Scheme) -> Response {
        let mut r = error_json(StatusCode::FORBIDDEN, "insufficient_scope", description);
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            self.challenge(
                scheme,
                Some(("insufficient_scope", description)),
                Some(scopes),
            ),
        );
        r
    }

    /// The challenge of `scheme` with `error` (code, description) and `scopes`; `DPoP`'s
    /// names the accepted algorithms (`algs`).
    fn challenge(
        &self,
        scheme: Scheme,
        error: Option<(&str, &str)>,
        scopes: Option<&[String]>,
    ) -> HeaderValue {
        let (name, algs) = match (scheme, self.dpop.as_deref()) {
            (Scheme::Dpop, Some(d)) => ("DPoP", Some(d.algs())),
            _ => ("Bearer", None),
        };
        challenge(name, error, scopes, algs, &self.metadata_url)
    }
}

/// Scopes of a token: the `scope` claim, or `scp` (a list or a string). A scope string is
/// split on single spaces only (RFC 6749 §3.3), and a piece that is not a valid scope token
/// (empty, or holding a TAB, a line break or another character outside `%x21 / %x23-5B /
/// %x5D-7E`) grants nothing: `"files:read\tfiles:write"` is not two scopes.
fn granted_scopes(claims: &Map<String, Value>) -> BTreeSet<String> {
    let valid = |s: &&str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b == 0x21 || (0x23..=0x5b).contains(&b) || (0x5d..=0x7e).contains(&b))
    };
    let split = |s: &str| {
        s.split(' ')
            .filter(valid)
            .map(str::to_owned)
            .collect::<BTreeSet<_>>()
    };
    match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(s)), _) | (None, Some(Value::String(s))) => split(s),
        (None, Some(Value::Array(list))) => list
            .iter()
            .filter_map(Value::as_str)
            .filter(valid)
            .map(str::to_owned)
            .collect(),
        _ => BTreeSet::new(),
    }
}

/// `WWW-Authenticate: <scheme> error="…", error_description="…", scope="…", algs="…",
/// resource_metadata="…"`: this order, each parameter when present (`error` and
/// `error_description` together; `algs` on `DPoP` challenges), every value quoted with `\`
/// and `"` escaped.
fn challenge(
    scheme: &str,
    error: Option<(&str, &str)>,
    scopes: Option<&[String]>,
    algs: Option<&str>,
    resource_metadata: &str,
) -> HeaderValue {
    let mut params = Vec::with_capacity(5);
    if let Some((error, description)) = error {
        params.push(("error", quote(error)));
        params.push(("error_description", quote(description)));
    }
    if let Some(scopes) = scopes.filter(|s| !s.is_empty()) {
        params.push(("scope", quote(&scopes.join(" "))));
    }
    if let Some(algs) = algs {
        params.push(("algs", quote(algs)));
    }
    params.push(("resource_metadata", quote(resource_metadata)));
    let mut v = String::from(scheme);
    for (i, (name, value)) in params.iter().enumerate() {
        v.push_str(if i == 0 { " " } else { ", " });
        v.push_str(name);
        v.push('=');
        v.push_str(value);
    }
    HeaderValue::from_str(&v).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
}

/// A quoted-string: `\` and `"` escaped, anything not printable ASCII replaced.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            _ => out.push('?'),
        }
    }
    out.push('"');
    out
}

fn error_json(status: StatusCode, error: &str, description: &str) -> Response {
    let body = json!({"error": error, "error_description": description});
    let mut r = Response::new(Body::from(serde_json::to_vec(&body).unwrap_or_default()));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// The public protected resource metadata route of an OAuth-protected server (empty for
/// listener authentication).
pub(crate) fn metadata_router(guard: &Arc<Guard>) -> Router {
    match &guard.kind {
        Kind::OAuth(p) => metadata::router(&p.metadata_path, p.metadata.clone()),
        Kind::Listener(_) => Router::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scopes(claims: Value) -> Vec<String> {
        granted_scopes(claims.as_object().expect("an object"))
            .into_iter()
            .collect()
    }

    #[test]
    fn scopes_split_on_single_spaces_only() {
        assert_eq!(scopes(json!({"scope": "b a"})), ["a", "b"]);
        assert_eq!(scopes(json!({"scope": " a  b "})), ["a", "b"]);
        for smuggled in ["a\tb", "a\nb", "a\r\nb", "a\u{b}b", "a\u{c}b", "a\u{a0}b"] {
            assert_eq!(
                scopes(json!({"scope": format!("x {smuggled}")})),
                ["x"],
                "{smuggled:?}"
            );
        }
        assert_eq!(scopes(json!({"scope": "a\"b c\\d é e"})), ["e"]);
        assert_eq!(scopes(json!({"scp": ["a", "b\tc", ""]})), ["a"]);
        assert_eq!(scopes(json!({"scp": "a b\tc"})), ["a"]);
        assert!(scopes(json!({"scope": 7})).is_empty());
    }
}
