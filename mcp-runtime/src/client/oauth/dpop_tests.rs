//! DPoP end to end against a local authorization server that checks proofs the way RFC 9449
//! §4.3 says (signature by the `jwk` header, `typ`, `htm`, `htu`, `ath`, `nonce`) and binds
//! tokens to the proof key's thumbprint: binding, presentation, a refresh with the token's
//! own key, the policies, and the nonce games of a server that keeps asking for a new nonce.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use serde_json::{Value, json};
use sha2::Digest as _;

use super::dpop::jwk_thumbprint;
use super::*;
use crate::client::auth::TokenPresenter;
use crate::client::{AuthChallenge, ClientError, TokenProvider};

/// How the token endpoint behaves.
#[derive(Clone, Copy, Default, PartialEq)]
enum Mode {
    /// Binds a token to the proof's key (`token_type` `DPoP`).
    #[default]
    Bind,
    /// Wants the nonce `as-nonce` in the proof (`400 use_dpop_nonce` until then).
    RequireNonce,
    /// Answers every request `400 use_dpop_nonce` with a new nonce.
    NonceGame,
    /// Issues bearer tokens whatever the request carries.
    BearerOnly,
}

/// A checked proof: its claims and its key's thumbprint.
#[derive(Clone, Debug)]
struct Proof {
    claims: Value,
    jkt: String,
}

/// A token request: its form and its checked proof.
type Recorded = (HashMap<String, String>, Option<Proof>);

#[derive(Clone, Default)]
struct Server {
    origin: Arc<Mutex<String>>,
    mode: Mode,
    /// `dpop_signing_alg_values_supported` (none when `None`).
    algs: Option<Vec<&'static str>>,
    /// Each token request: its form and its checked proof.
    requests: Arc<Mutex<Vec<Recorded>>>,
    /// The key thumbprint each issued token is bound to.
    bound: Arc<Mutex<HashMap<String, String>>>,
    /// MCP requests that carried a token.
    presented: Arc<AtomicUsize>,
    lifetime: u64,
}

fn b64_json(part: &str) -> Option<Value> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(part)
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Checks a proof as RFC 9449 §4.3 says, for a `method` request to `url`.
fn check_proof(proof: &str, method: &str, url: &str) -> Result<Proof, String> {
    let header = b64_json(proof.split('.').next().unwrap_or_default()).ok_or("no header")?;
    if header["typ"] != "dpop+jwt" || header["alg"] != "ES256" {
        return Err(format!("bad header {header}"));
    }
    let jwk = &header["jwk"];
    if jwk.get("d").is_some() {
        return Err("a private key in the jwk".into());
    }
    let key = jsonwebtoken::DecodingKey::from_ec_components(
        jwk["x"].as_str().ok_or("no x")?,
        jwk["y"].as_str().ok_or("no y")?,
    )
    .map_err(|e| e.to_string())?;
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
    validation.required_spec_claims.clear();
    validation.validate_exp = false;
    let claims = jsonwebtoken::decode::<Value>(proof, &key, &validation)
        .map_err(|e| e.to_string())?
        .claims;
    if claims["htm"] != method || claims["htu"] != url || claims["jti"].as_str().is_none() {
        return Err(format!("bad claims {claims}"));
    }
    Ok(Proof {
        claims,
        jkt: jwk_thumbprint(jwk).ok_or("no thumbprint")?,
    })
}

impl Server {
    async fn start(mode: Mode, algs: Option<Vec<&'static str>>) -> Self {
        let server = Self {
            mode,
            algs,
            lifetime: 3600,
            ..Self::default()
        };
        let app = Router::new()
            .route("/.well-known/oauth-protected-resource/mcp", get(prm))
            .route("/.well-known/oauth-authorization-server", get(metadata))
            .route("/token", post(token))
            .route("/mcp", post(mcp))
            .with_state(server.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        *server.origin.lock().unwrap() = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        server
    }

    fn origin(&self) -> String {
        self.origin.lock().unwrap().clone()
    }

    fn provider(&self, config: OAuthConfig) -> OAuthProvider {
        let url = reqwest::Url::parse(&format!("{}/mcp?q=1", self.origin())).unwrap();
        let http = OAuthHttp::standalone(Duration::from_secs(5)).unwrap();
        OAuthProvider::new(url, config, http)
    }

    fn challenge(&self) -> AuthChallenge {
        AuthChallenge::parse(
            401,
            &format!(
                r#"DPoP resource_metadata="{}/.well-known/oauth-protected-resource/mcp""#,
                self.origin()
            ),
        )
    }

    fn proofs(&self) -> Vec<Option<Proof>> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .map(|(_, p)| p.clone())
            .collect()
    }

    fn grants(&self) -> Vec<String> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .map(|(f, _)| f["grant_type"].clone())
            .collect()
    }
}

async fn prm(State(s): State<Server>) -> axum::Json<Value> {
    let origin = s.origin();
    axum::Json(json!({"resource": format!("{origin}/mcp"), "authorization_servers": [origin]}))
}

async fn metadata(State(s): State<Server>) -> axum::Json<Value> {
    let origin = s.origin();
    let mut doc = json!({"issuer": origin, "token_endpoint": format!("{origin}/token")});
    if let Some(algs) = &s.algs {
        doc["dpop_signing_alg_values_supported"] = json!(algs);
    }
    axum::Json(doc)
}

async fn token(State(s): State<Server>, headers: HeaderMap, body: String) -> Response {
    let form: HashMap<String, String> = reqwest::Url::parse(&format!("http://form/?{body}"))
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect();
    let endpoint = format!("{}/token", s.origin());
    let proof = match headers.get("dpop").map(|v| v.to_str().unwrap()) {
        Some(p) => match check_proof(p, "POST", &endpoint) {
            Ok(proof) => Some(proof),
            Err(e) => return (StatusCode::BAD_REQUEST, e).into_response(),
        },
        None => None,
    };
    let n = {
        let mut requests = s.requests.lock().unwrap();
        requests.push((form, proof.clone()));
        requests.len()
    };
    let use_nonce = |nonce: String| {
        (
            StatusCode::BAD_REQUEST,
            [("dpop-nonce", nonce)],
            axum::Json(json!({"error": "use_dpop_nonce"})),
        )
            .into_response()
    };
    match s.mode {
        Mode::NonceGame => return use_nonce(format!("game-{n}")),
        Mode::RequireNonce
            if proof
                .as_ref()
                .is_some_and(|p| p.claims.get("nonce") != Some(&json!("as-nonce"))) =>
        {
            return use_nonce("as-nonce".into());
        }
        _ => {}
    }
    let access = format!("t{n}");
    let token_type = match (&proof, s.mode) {
        (Some(p), Mode::Bind | Mode::RequireNonce) => {
            s.bound
                .lock()
                .unwrap()
                .insert(access.clone(), p.jkt.clone());
            "DPoP"
        }
        _ => "Bearer",
    };
    axum::Json(json!({
        "access_token": access, "token_type": token_type, "expires_in": s.lifetime,
        "refresh_token": format!("r{n}"),
    }))
    .into_response()
}

/// The MCP endpoint of the nonce game: a token is refused with `use_dpop_nonce` and a new
/// nonce every time; no token gets the challenge that starts the flow.
async fn mcp(State(s): State<Server>, headers: HeaderMap) -> Response {
    let origin = s.origin();
    if headers.contains_key("authorization") {
        let n = s.presented.fetch_add(1, Ordering::SeqCst);
        return (
            StatusCode::UNAUTHORIZED,
            [
                (
                    "www-authenticate",
                    r#"DPoP error="use_dpop_nonce""#.to_owned(),
                ),
                ("dpop-nonce", format!("rs-{n}")),
            ],
        )
            .into_response();
    }
    let challenge =
        format!(r#"DPoP resource_metadata="{origin}/.well-known/oauth-protected-resource/mcp""#);
    (StatusCode::UNAUTHORIZED, [("www-authenticate", challenge)]).into_response()
}

fn machine() -> OAuthConfig {
    OAuthConfig::client_credentials("svc", ClientAuth::client_secret("pw"))
}

#[tokio::test]
async fn a_dpop_token_is_bound_presented_and_refreshed_with_its_own_key() {
    let server = Server::start(Mode::Bind, Some(vec!["RS256", "ES256"])).await;
    let store = Arc::new(MemoryTokenStore::new());
    let provider = server.provider(machine().token_store(store.clone()));
    let token = provider.on_challenge(&server.challenge()).await.unwrap();
    assert_eq!(token.as_deref(), Some("t1"));
    // The token request carried a proof (no ath, no nonce) and the token is bound to it.
    let proof = server.proofs()[0]
        .clone()
        .expect("a proof at the token endpoint");
    assert!(proof.claims.get("ath").is_none() && proof.claims.get("nonce").is_none());
    let key = format!("{}/mcp?q=1", server.origin());
    let stored = store.load(&key).unwrap();
    let bound = stored.dpop_key().expect("the token keeps its key").clone();
    assert_eq!(bound.thumbprint(), proof.jkt);
    assert_eq!(server.bound.lock().unwrap()["t1"], proof.jkt);

    // Presented with the DPoP scheme and a proof of the same key for this request.
    let url = reqwest::Url::parse(&key).unwrap();
    let presentation = provider.present("t1", &::http::Method::POST, &url);
    assert_eq!(presentation.scheme, "DPoP");
    let mcp = format!("{}/mcp", server.origin());
    let on_request = check_proof(&presentation.proof.unwrap(), "POST", &mcp).unwrap();
    assert_eq!(on_request.jkt, proof.jkt);
    let ath = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(b"t1"));
    assert_eq!(on_request.claims["ath"], ath.as_str());
    // A token the store does not hold with a key goes out as a bearer token.
    assert_eq!(
        provider.present("other", &::http::Method::GET, &url).scheme,
        "Bearer"
    );

    // Another client with its own configured key, sharing the store: the expired token is
    // refreshed with the key it is bound to, and stays bound to it.
    let expired = SystemTime::now() - Duration::from_secs(1);
    store.save(
        &key,
        StoredToken::new("t1", Some("r1".into()), Some(expired), Vec::new())
            .with_issuer(server.origin())
            .with_dpop_key(bound.clone()),
    );
    let other_key = DpopKey::generate();
    let second = server.provider(
        machine()
            .token_store(store.clone())
            .dpop_key(other_key.clone()),
    );
    assert_eq!(second.token().await.unwrap().as_deref(), Some("t2"));
    assert_eq!(server.grants(), ["client_credentials", "refresh_token"]);
    assert_eq!(server.proofs()[1].as_ref().unwrap().jkt, bound.thumbprint());
    assert_eq!(store.load(&key).unwrap().dpop_key(), Some(&bound));
    // A new authorization binds the new token to the client's configured key.
    let token = second
        .on_challenge(&server.challenge().with_rejected_token(Some("t2")))
        .await
        .unwrap();
    assert_eq!(token.as_deref(), Some("t3"));
    assert_eq!(
        server.proofs()[2].as_ref().unwrap().jkt,
        other_key.thumbprint()
    );
    assert_eq!(store.load(&key).unwrap().dpop_key(), Some(&other_key));
}

#[tokio::test]
async fn the_token_endpoint_nonce_is_retried_once() {
    let server = Server::start(Mode::RequireNonce, Some(vec!["ES256"])).await;
    let provider = server.provider(machine());
    let token = provider.on_challenge(&server.challenge()).await.unwrap();
    assert_eq!(token.as_deref(), Some("t2"));
    let proofs = server.proofs();
    assert_eq!(proofs.len(), 2);
    assert!(proofs[0].as_ref().unwrap().claims.get("nonce").is_none());
    assert_eq!(proofs[1].as_ref().unwrap().claims["nonce"], "as-nonce");
    assert_ne!(
        proofs[0].as_ref().unwrap().claims["jti"],
        proofs[1].as_ref().unwrap().claims["jti"]
    );
}

#[tokio::test]
async fn a_token_endpoint_that_keeps_asking_for_a_new_nonce_gets_one_retry() {
    let server = Server::start(Mode::NonceGame, Some(vec!["ES256"])).await;
    let provider = server.provider(machine());
    let err = provider
        .on_challenge(&server.challenge())
        .await
        .unwrap_err();
    let ClientError::OAuth(OAuthError::Token(rejection)) = &err else {
        panic!("not a token error: {err:?}");
    };
    assert_eq!(rejection.response().unwrap().code(), "use_dpop_nonce");
    // The first request and one retry with the nonce it was given; no third.
    let proofs = server.proofs();
    assert_eq!(proofs.len(), 2);
    assert_eq!(proofs[1].as_ref().unwrap().claims["nonce"], "game-1");
}

#[tokio::test]
async fn the_policy_decides_when_proofs_are_sent() {
    // Auto without ES256 advertised: bearer token requests.
    for algs in [None, Some(vec!["RS256"])] {
        let server = Server::start(Mode::Bind, algs).await;
        let provider = server.provider(machine());
        provider.on_challenge(&server.challenge()).await.unwrap();
        assert!(server.proofs()[0].is_none());
    }
    // Disabled: no proof even when advertised.
    let server = Server::start(Mode::Bind, Some(vec!["ES256"])).await;
    let provider = server.provider(machine().dpop(DpopPolicy::Disabled));
    provider.on_challenge(&server.challenge()).await.unwrap();
    assert!(server.proofs()[0].is_none());
    // Required: a proof even when the metadata says nothing …
    let server = Server::start(Mode::Bind, None).await;
    let provider = server.provider(machine().dpop(DpopPolicy::Required));
    provider.on_challenge(&server.challenge()).await.unwrap();
    assert!(server.proofs()[0].is_some());
    // … a bearer token is refused …
    let server = Server::start(Mode::BearerOnly, Some(vec!["ES256"])).await;
    let provider = server.provider(machine().dpop(DpopPolicy::Required));
    let err = provider
        .on_challenge(&server.challenge())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ClientError::OAuth(OAuthError::InvalidResponse { reason, .. }) if reason.contains("not DPoP")),
        "{err:?}"
    );
    // … (Auto takes the bearer token the server chose to issue) …
    let provider = server.provider(machine());
    let token = provider.on_challenge(&server.challenge()).await.unwrap();
    let url = reqwest::Url::parse(&format!("{}/mcp", server.origin())).unwrap();
    let presentation = provider.present(token.as_deref().unwrap(), &::http::Method::POST, &url);
    assert_eq!(presentation.scheme, "Bearer");
    assert!(presentation.proof.is_none());
    // … and a server that signs with other algorithms only is refused before any request.
    let server = Server::start(Mode::Bind, Some(vec!["RS256"])).await;
    let provider = server.provider(machine().dpop(DpopPolicy::Required));
    let err = provider
        .on_challenge(&server.challenge())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ClientError::OAuth(OAuthError::InvalidResponse { reason, .. }) if reason.contains("ES256")),
        "{err:?}"
    );
    assert!(server.proofs().is_empty());
}

#[tokio::test]
async fn a_resource_that_keeps_asking_for_a_new_nonce_gets_one_retry() {
    let server = Server::start(Mode::Bind, Some(vec!["ES256"])).await;
    let config = crate::client::ClientConfig::new()
        .protocol_mode(crate::client::ProtocolMode::Legacy)
        .timeout(Duration::from_secs(5))
        .oauth(machine());
    let client = crate::client::Client::new(format!("{}/mcp", server.origin()), config).unwrap();
    let options = crate::client::ConnectOptions::new(crate::Implementation::new("t", "1"));
    let err = tokio::time::timeout(Duration::from_secs(20), client.connect(options))
        .await
        .expect("no loop")
        .expect_err("the server never accepts the token");
    assert_eq!(err.http_status(), Some(401), "{err:?}");
    // One token, presented twice: once, then once more with the nonce it was given.
    assert_eq!(server.grants(), ["client_credentials"]);
    assert_eq!(server.presented.load(Ordering::SeqCst), 2);
}
