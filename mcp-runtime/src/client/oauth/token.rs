//! Token endpoint requests: client authentication (`none`, `client_secret_basic`,
//! `client_secret_post`, `private_key_jwt`), the token response checks, PKCE and dynamic
//! client registration (RFC 7591).

use std::time::{Duration, SystemTime};

use base64::Engine as _;
use reqwest::Url;
use serde_json::{Value, json};
use sha2::Digest as _;

use super::client_auth::{AuthKind, ClientAuth};
use super::discovery::ServerMetadata;
use super::dpop::{DpopKey, Prover};
use super::error::{OAuthError, OAuthErrorResponse, OAuthTokenError, shown};
use super::http::OAuthHttp;
use super::store::StoredToken;

/// How a client authenticates at the token endpoint, resolved against the metadata.
#[derive(Clone)]
pub(crate) enum Method {
    /// No client at all: no `client_id` (an assertion grant of a workload, RFC 7521 §4.2).
    Anonymous,
    /// A public client: its `client_id` in the body.
    None,
    Basic(String),
    Post(String),
    Jwt(ClientAuth),
}

/// A client identity at one authorization server.
#[derive(Clone)]
pub(crate) struct Identity {
    pub(crate) client_id: String,
    pub(crate) method: Method,
}

impl Identity {
    /// `client_id` with `auth`, the method picked from what `server` supports.
    pub(crate) fn resolve(client_id: &str, auth: &ClientAuth, server: &ServerMetadata) -> Self {
        let method = match &auth.0 {
            AuthKind::None => Method::None,
            AuthKind::Basic(s) => Method::Basic(s.clone()),
            AuthKind::Post(s) => Method::Post(s.clone()),
            AuthKind::Secret(s) => {
                if !server.supports_auth_method("client_secret_basic")
                    && server.supports_auth_method("client_secret_post")
                {
                    Method::Post(s.clone())
                } else {
                    Method::Basic(s.clone())
                }
            }
            AuthKind::Jwt { .. } => Method::Jwt(auth.clone()),
        };
        Self {
            client_id: client_id.to_owned(),
            method,
        }
    }

    /// A workload (workload identity federation): a public client when it has an ID, no
    /// client at all otherwise.
    pub(crate) fn workload(client_id: Option<&str>) -> Self {
        match client_id {
            Some(id) => Self {
                client_id: id.to_owned(),
                method: Method::None,
            },
            None => Self {
                client_id: String::new(),
                method: Method::Anonymous,
            },
        }
    }
}

/// The grant type of RFC 7523 §2.1.
pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// A successful token response.
pub(crate) struct TokenResponse {
    pub(crate) access_token: String,
    pub(crate) refresh_token: Option<String>,
    pub(crate) expires_in: Option<u64>,
    pub(crate) scope: Option<String>,
    /// The key a `DPoP` token is bound to (`None`: a bearer token).
    pub(crate) dpop_key: Option<DpopKey>,
    /// A token exchange's `issued_token_type` (RFC 8693 §2.2.1).
    pub(crate) issued_token_type: Option<String>,
}

impl TokenResponse {
    /// The token to store; `requested` stands in for a missing `scope`.
    pub(crate) fn into_stored(self, requested: &[String], keep_refresh: bool) -> StoredToken {
        let scopes = match self.scope.as_deref().filter(|s| !s.trim().is_empty()) {
            Some(s) => s.split_whitespace().map(str::to_owned).collect(),
            None => requested.to_vec(),
        };
        let token = StoredToken::issued(
            self.access_token,
            self.refresh_token.filter(|_| keep_refresh),
            self.expires_in.map(Duration::from_secs),
            scopes,
        );
        match self.dpop_key {
            Some(key) => token.with_dpop_key(key),
            None => token,
        }
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A signed client assertion (RFC 7523 §2.2) for `audience`.
fn client_assertion(
    client_id: &str,
    auth: &ClientAuth,
    audience: &str,
) -> Result<String, OAuthError> {
    let AuthKind::Jwt { key, alg } = &auth.0 else {
        return Err(OAuthError::Config("not a private_key_jwt client".into()));
    };
    let now = now_secs();
    let claims = json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + 300,
        "jti": uuid::Uuid::new_v4().to_string(),
    });
    jsonwebtoken::encode(&jsonwebtoken::Header::new(*alg), &claims, key)
        .map_err(|e| OAuthError::Config(format!("cannot sign the client assertion: {e}")))
}

/// What a token request must yield.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expect {
    /// An access token for the MCP server: `Bearer`, or `DPoP` when proofs were sent.
    AccessToken,
    /// An access token only bound to the DPoP key (`DPoP` policy `Required`).
    DpopBound,
    /// Any token type (a token exchange issues others).
    Any,
}

/// Posts a token request with the client's authentication and checks the answer. With a
/// DPoP `prover`, each attempt carries a fresh proof, and a `400 use_dpop_nonce` answer with
/// a `DPoP-Nonce` is retried once with that nonce (RFC 9449 §8); a server that asks again
/// gets no third request.
pub(crate) async fn request(
    http: &OAuthHttp,
    endpoint: &Url,
    client: &Identity,
    audience: &str,
    params: &[(&str, &str)],
    expect: Expect,
    prover: Option<Prover<'_>>,
) -> Result<TokenResponse, OAuthError> {
    let mut retried = false;
    let answer = loop {
        let answer = post(http, endpoint, client, audience, params, prover).await?;
        let Some(prover) = prover else { break answer };
        let Some(nonce) = &answer.dpop_nonce else {
            break answer;
        };
        prover.nonces.set(endpoint, nonce);
        let wants_nonce = answer.status == 400
            && answer
                .json
                .as_ref()
                .and_then(|j| j.get("error"))
                .and_then(Value::as_str)
                == Some("use_dpop_nonce");
        if !wants_nonce || retried {
            break answer;
        }
        tracing::debug!("the token endpoint asked for a DPoP nonce; retrying once");
        retried = true;
    };
    let url = endpoint.as_str();
    if !(200..300).contains(&answer.status) {
        let response = answer.json.as_ref().and_then(OAuthErrorResponse::from_json);
        return Err(OAuthError::Token(OAuthTokenError::new(
            url,
            answer.status,
            response,
        )));
    }
    let Some(json) = answer.json else {
        return Err(OAuthError::NotJson {
            url: shown(url),
            status: answer.status,
            content_type: answer.content_type,
        });
    };
    let access_token = json
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| OAuthError::invalid(url, "the token response has no access_token"))?;
    let token_type = json
        .get("token_type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let bearer = token_type.eq_ignore_ascii_case("bearer");
    let dpop = token_type.eq_ignore_ascii_case("dpop");
    // RFC 9449 §5: a server may still issue a bearer token to a DPoP request.
    let accepted = match expect {
        Expect::Any => true,
        Expect::AccessToken => bearer || (dpop && prover.is_some()),
        Expect::DpopBound => dpop && prover.is_some(),
    };
    if !accepted {
        let wanted = match (expect, prover.is_some()) {
            (Expect::DpopBound, _) => "DPoP",
            (_, true) => "Bearer or DPoP",
            _ => "Bearer",
        };
        return Err(OAuthError::invalid(
            url,
            format!("the token_type is {token_type:?}, not {wanted}"),
        ));
    }
    Ok(TokenResponse {
        access_token: access_token.to_owned(),
        refresh_token: json
            .get("refresh_token")
            .and_then(Value::as_str)
            .map(str::to_owned),
        expires_in: json.get("expires_in").and_then(Value::as_u64),
        scope: json.get("scope").and_then(Value::as_str).map(str::to_owned),
        dpop_key: prover.filter(|_| dpop).map(|p| p.key.clone()),
        issued_token_type: json
            .get("issued_token_type")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

/// One token request: the form with the client's authentication (a fresh client assertion
/// each time) and a fresh DPoP proof.
async fn post(
    http: &OAuthHttp,
    endpoint: &Url,
    client: &Identity,
    audience: &str,
    params: &[(&str, &str)],
    prover: Option<Prover<'_>>,
) -> Result<super::http::Answer, OAuthError> {
    let mut form: Vec<(&str, &str)> = params.to_vec();
    let assertion;
    let mut basic = None;
    match &client.method {
        Method::Anonymous => {}
        Method::None => form.push(("client_id", &client.client_id)),
        Method::Basic(secret) => basic = Some((client.client_id.as_str(), secret.as_str())),
        Method::Post(secret) => {
            form.push(("client_id", &client.client_id));
            form.push(("client_secret", secret));
        }
        Method::Jwt(auth) => {
            assertion = client_assertion(&client.client_id, auth, audience)?;
            form.push(("client_id", &client.client_id));
            form.push((
                "client_assertion_type",
                "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            ));
            form.push(("client_assertion", &assertion));
        }
    }
    let proof = prover.map(|p| p.token_request(endpoint));
    http.post_form(endpoint, &form, basic, proof.as_deref())
        .await
}

/// A PKCE verifier and its S256 challenge (RFC 7636).
pub(crate) struct Pkce {
    pub(crate) verifier: String,
    pub(crate) challenge: String,
}

impl Pkce {
    pub(crate) fn new() -> Self {
        let bytes: [u8; 32] = rand::random();
        let verifier = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
        let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(sha2::Sha256::digest(verifier.as_bytes()));
        Self {
            verifier,
            challenge,
        }
    }
}

/// A random `state`.
pub(crate) fn random_state() -> String {
    let bytes: [u8; 16] = rand::random();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The `application_type` a client registers with (SEP-837, OpenID Connect Dynamic Client
/// Registration): `native` for a redirect to the loopback interface or to a custom scheme
/// (an app on the user's device), `web` for an `https` redirect to a host.
fn application_type(redirect_uri: &str) -> &'static str {
    let Ok(url) = Url::parse(redirect_uri) else {
        return "native";
    };
    let loopback = match url.host_str() {
        Some(host) => {
            host.eq_ignore_ascii_case("localhost")
                || host
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        }
        None => true,
    };
    if loopback || !matches!(url.scheme(), "http" | "https") {
        "native"
    } else {
        "web"
    }
}

/// Registers a client (RFC 7591) for `redirect_uri`.
pub(crate) async fn register(
    http: &OAuthHttp,
    endpoint: &Url,
    server: &ServerMetadata,
    client_name: &str,
    redirect_uri: &str,
) -> Result<Identity, OAuthError> {
    let method = if server.supports_auth_method("none") {
        "none"
    } else if server.supports_auth_method("client_secret_basic") {
        "client_secret_basic"
    } else if server.supports_auth_method("client_secret_post") {
        "client_secret_post"
    } else {
        "none"
    };
    let body = json!({
        "client_name": client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": application_type(redirect_uri),
    });
    let answer = http.post_json(endpoint, &body).await?;
    let url = endpoint.as_str();
    if !(200..300).contains(&answer.status) {
        return Err(OAuthError::Registration {
            url: shown(url),
            status: answer.status,
            response: answer
                .json
                .as_ref()
                .and_then(OAuthErrorResponse::from_json)
                .map(Box::new),
        });
    }
    let json = answer.json.ok_or_else(|| OAuthError::NotJson {
        url: shown(url),
        status: answer.status,
        content_type: answer.content_type.clone(),
    })?;
    let client_id = json
        .get("client_id")
        .and_then(Value::as_str)
        .filter(|c| !c.is_empty())
        .ok_or_else(|| OAuthError::invalid(url, "the registration response has no client_id"))?;
    let secret = json.get("client_secret").and_then(Value::as_str);
    let granted = json
        .get("token_endpoint_auth_method")
        .and_then(Value::as_str)
        .unwrap_or(method);
    let method = match (secret, granted) {
        (None, _) | (_, "none") => Method::None,
        (Some(s), "client_secret_post") => Method::Post(s.to_owned()),
        (Some(s), _) => Method::Basic(s.to_owned()),
    };
    Ok(Identity {
        client_id: client_id.to_owned(),
        method,
    })
}

#[cfg(test)]
mod application_type_tests {
    use super::application_type;

    #[test]
    fn native_for_loopback_and_custom_schemes_web_otherwise() {
        assert_eq!(application_type("http://127.0.0.1:8123/callback"), "native");
        assert_eq!(application_type("http://localhost/cb"), "native");
        assert_eq!(application_type("http://[::1]:9/cb"), "native");
        assert_eq!(application_type("com.example.app:/oauth"), "native");
        assert_eq!(application_type("https://app.example.com/cb"), "web");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_is_s256_of_the_verifier() {
        let p = Pkce::new();
        assert!(p.verifier.len() >= 43);
        let expected = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(sha2::Sha256::digest(p.verifier.as_bytes()));
        assert_eq!(p.challenge, expected);
        assert_ne!(Pkce::new().verifier, p.verifier);
        assert_ne!(random_state(), random_state());
    }
}
