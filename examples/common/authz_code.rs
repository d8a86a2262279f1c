//! The authorization code side of the local authorization server ([`LocalAuthServer`]):
//! RFC 8414 metadata, dynamic client registration, an authorization endpoint that approves
//! at once and redirects (no user: for tests and demos), and a token endpoint that checks
//! PKCE (S256), the redirect URI and the client, issues JWT access tokens for the requested
//! `resource` and scopes, and refresh tokens when `offline_access` was asked for. With
//! DPoP on ([`LocalAuthServer::enable_dpop`]) it advertises ES256 proofs and binds the
//! tokens of a request with a valid proof to its key (`cnf.jkt`, `token_type` `DPoP`; a
//! refresh needs the same key), as RFC 9449 §5 describes.
//!
//! [`LocalAuthServer::enable_dpop`]: crate::authz::LocalAuthServer::enable_dpop
//!
//! [`LocalAuthServer`]: crate::authz::LocalAuthServer

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use axum::Router;
use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use serde_json::{Value, json};
use sha2::Digest as _;

use crate::authz::{SigningKey, now};

/// What an authorization code or a refresh token stands for.
#[derive(Clone)]
struct Grant {
    client_id: String,
    redirect_uri: String,
    challenge: String,
    scope: Vec<String>,
    resource: String,
    /// The DPoP key (thumbprint) the grant's tokens are bound to.
    jkt: Option<String>,
}

/// The code flow's state.
#[derive(Default)]
pub(crate) struct CodeFlow {
    issuer: OnceLock<String>,
    key: Mutex<Option<(SigningKey, u64)>>,
    clients: Mutex<HashMap<String, Vec<String>>>,
    codes: Mutex<HashMap<String, Grant>>,
    refresh: Mutex<HashMap<String, Grant>>,
    registrations: AtomicUsize,
    authorizations: AtomicUsize,
    code_grants: AtomicUsize,
    refresh_grants: AtomicUsize,
    dpop: AtomicBool,
}

impl CodeFlow {
    pub(crate) fn set_issuer(&self, issuer: &str) {
        let _ = self.issuer.set(issuer.to_owned());
    }

    /// Enables the flow: tokens signed with `key`, valid for `lifetime` seconds.
    pub(crate) fn enable(&self, key: SigningKey, lifetime: u64) {
        *self.key.lock().expect("lock") = Some((key, lifetime));
    }

    /// Binds tokens to the DPoP key of the token request's proof.
    pub(crate) fn enable_dpop(&self) {
        self.dpop.store(true, Ordering::SeqCst);
    }

    /// Counts: (registrations, authorizations, code grants, refresh grants).
    pub(crate) fn counts(&self) -> (usize, usize, usize, usize) {
        (
            self.registrations.load(Ordering::SeqCst),
            self.authorizations.load(Ordering::SeqCst),
            self.code_grants.load(Ordering::SeqCst),
            self.refresh_grants.load(Ordering::SeqCst),
        )
    }

    fn issuer(&self) -> String {
        self.issuer.get().cloned().unwrap_or_default()
    }
}

/// The routes of the flow.
pub(crate) fn router(flow: Arc<CodeFlow>) -> Router {
    Router::new()
        .route("/.well-known/oauth-authorization-server", get(metadata))
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .with_state(flow)
}

fn error(status: StatusCode, code: &str, description: &str) -> Response {
    (
        status,
        axum::Json(json!({"error": code, "error_description": description})),
    )
        .into_response()
}

fn random() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

async fn metadata(State(flow): State<Arc<CodeFlow>>) -> Response {
    let issuer = flow.issuer();
    let mut doc = json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "registration_endpoint": format!("{issuer}/register"),
        "jwks_uri": format!("{issuer}/jwks"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": ["files:read", "files:write", "files:admin", "offline_access"],
    });
    if flow.dpop.load(Ordering::SeqCst) {
        doc["dpop_signing_alg_values_supported"] = json!(["ES256"]);
    }
    axum::Json(doc).into_response()
}

async fn register(
    State(flow): State<Arc<CodeFlow>>,
    axum::Json(body): axum::Json<Value>,
) -> Response {
    let uris: Vec<String> = body["redirect_uris"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    if uris.is_empty() {
        return error(
            StatusCode::BAD_REQUEST,
            "invalid_redirect_uri",
            "redirect_uris is required",
        );
    }
    flow.registrations.fetch_add(1, Ordering::SeqCst);
    let client_id = format!("client-{}", random());
    flow.clients
        .lock()
        .expect("lock")
        .insert(client_id.clone(), uris.clone());
    (
        StatusCode::CREATED,
        axum::Json(json!({
            "client_id": client_id,
            "redirect_uris": uris,
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
        })),
    )
        .into_response()
}

async fn authorize(
    State(flow): State<Arc<CodeFlow>>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let get = |k: &str| q.get(k).cloned().unwrap_or_default();
    let (client_id, redirect_uri) = (get("client_id"), get("redirect_uri"));
    let known = flow
        .clients
        .lock()
        .expect("lock")
        .get(&client_id)
        .is_some_and(|uris| uris.contains(&redirect_uri));
    // Errors that cannot be redirected (unknown client or redirect URI) are shown here.
    if !known {
        return error(
            StatusCode::BAD_REQUEST,
            "invalid_client",
            "unknown client or redirect_uri",
        );
    }
    if get("response_type") != "code"
        || get("code_challenge").is_empty()
        || get("code_challenge_method") != "S256"
    {
        return error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "code + PKCE S256 required",
        );
    }
    flow.authorizations.fetch_add(1, Ordering::SeqCst);
    let code = random();
    flow.codes.lock().expect("lock").insert(
        code.clone(),
        Grant {
            client_id,
            redirect_uri: redirect_uri.clone(),
            challenge: get("code_challenge"),
            scope: get("scope").split_whitespace().map(str::to_owned).collect(),
            resource: get("resource"),
            jkt: None,
        },
    );
    let mut target = reqwest::Url::parse(&redirect_uri).expect("a registered URL");
    target
        .query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", &get("state"));
    Redirect::to(target.as_str()).into_response()
}

async fn token(
    State(flow): State<Arc<CodeFlow>>,
    headers: HeaderMap,
    Form(f): Form<HashMap<String, String>>,
) -> Response {
    let get = |k: &str| f.get(k).cloned().unwrap_or_default();
    let jkt = match headers.get("dpop") {
        Some(proof) if flow.dpop.load(Ordering::SeqCst) => {
            match dpop_thumbprint(proof, &format!("{}/token", flow.issuer())) {
                Some(jkt) => Some(jkt),
                None => {
                    return error(
                        StatusCode::BAD_REQUEST,
                        "invalid_dpop_proof",
                        "bad DPoP proof",
                    );
                }
            }
        }
        _ => None,
    };
    let mut grant = match get("grant_type").as_str() {
        "authorization_code" => {
            let Some(grant) = flow.codes.lock().expect("lock").remove(&get("code")) else {
                return error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "unknown or used code",
                );
            };
            let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode(sha2::Sha256::digest(get("code_verifier").as_bytes()));
            if computed != grant.challenge
                || grant.redirect_uri != get("redirect_uri")
                || grant.client_id != get("client_id")
                || grant.resource != get("resource")
            {
                return error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "PKCE, client, redirect_uri or resource mismatch",
                );
            }
            flow.code_grants.fetch_add(1, Ordering::SeqCst);
            grant
        }
        "refresh_token" => {
            let Some(grant) = flow
                .refresh
                .lock()
                .expect("lock")
                .remove(&get("refresh_token"))
            else {
                return error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "unknown refresh token",
                );
            };
            if grant.client_id != get("client_id") {
                return error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "another client's token",
                );
            }
            if grant.jkt.is_some() && grant.jkt != jkt {
                return error(
                    StatusCode::BAD_REQUEST,
                    "invalid_dpop_proof",
                    "the refresh token is bound to another key",
                );
            }
            flow.refresh_grants.fetch_add(1, Ordering::SeqCst);
            grant
        }
        _ => {
            return error(
                StatusCode::BAD_REQUEST,
                "unsupported_grant_type",
                "code or refresh only",
            );
        }
    };
    let Some((key, lifetime)) = flow.key.lock().expect("lock").clone() else {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "temporarily_unavailable",
            "no signing key",
        );
    };
    let now = now();
    let scope = grant.scope.join(" ");
    let mut claims = json!({
        "iss": flow.issuer(), "sub": "demo-user", "client_id": grant.client_id,
        "aud": grant.resource, "scope": scope, "iat": now, "exp": now + lifetime,
        "jti": random(),
    });
    if let Some(jkt) = &jkt {
        claims["cnf"] = json!({"jkt": jkt});
    }
    grant.jkt.clone_from(&jkt);
    let access = key.sign(&claims);
    let token_type = if jkt.is_some() { "DPoP" } else { "Bearer" };
    let mut answer = json!({
        "access_token": access, "token_type": token_type, "expires_in": lifetime, "scope": scope,
    });
    if grant.scope.iter().any(|s| s == "offline_access") {
        let refresh = random();
        flow.refresh
            .lock()
            .expect("lock")
            .insert(refresh.clone(), grant);
        answer["refresh_token"] = json!(refresh);
    }
    ([(header::CACHE_CONTROL, "no-store")], axum::Json(answer)).into_response()
}

/// The RFC 7638 thumbprint of the key of a DPoP proof for a POST to `htu`: an ES256 proof
/// (`typ` `dpop+jwt`) whose signature verifies with its P-256 `jwk`. Enough for a test
/// server: no `jti` replay or `iat` checks.
fn dpop_thumbprint(proof: &HeaderValue, htu: &str) -> Option<String> {
    use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, ThumbprintHash};
    let proof = proof.to_str().ok()?;
    let mut parts = proof.split('.');
    let (header, claims, signature) = (parts.next()?, parts.next()?, parts.next()?);
    let decode = |segment: &str| {
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(segment)
            .ok()?;
        serde_json::from_slice::<Value>(&bytes).ok()
    };
    let (h, c) = (decode(header)?, decode(claims)?);
    if h["typ"] != "dpop+jwt" || h["alg"] != "ES256" || c["htm"] != "POST" || c["htu"] != htu {
        return None;
    }
    let jwk: Jwk = serde_json::from_value(h.get("jwk")?.clone()).ok()?;
    if !matches!(&jwk.algorithm, AlgorithmParameters::EllipticCurve(p) if p.curve == EllipticCurve::P256)
    {
        return None;
    }
    let key = jsonwebtoken::DecodingKey::from_jwk(&jwk).ok()?;
    let message = format!("{header}.{claims}");
    jsonwebtoken::crypto::verify(
        signature,
        message.as_bytes(),
        &key,
        jsonwebtoken::Algorithm::ES256,
    )
    .ok()
    .filter(|ok| *ok)?;
    Some(jwk.thumbprint(ThumbprintHash::SHA256))
}
