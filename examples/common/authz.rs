//! A small local OAuth authorization server for tests and demos: it publishes a JWKS (RSA
//! and EC keys), issues JWT access tokens signed with those keys, and answers RFC 7662
//! introspection for opaque tokens it registered. With
//! [`enable_code_flow`](LocalAuthServer::enable_code_flow) it also runs the authorization
//! code flow (`authz_code`: metadata, registration, PKCE, refresh). It never authenticates
//! anyone: it is a stand-in for a real identity provider, bound to loopback.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Form, State};
use axum::routing::{get, post};
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

/// Test-only RSA key (PKCS#1 PEM).
pub const RSA1_PEM: &str = include_str!("../tests/keys/rsa1.pem");
/// A second test-only RSA key, for key rotation.
pub const RSA2_PEM: &str = include_str!("../tests/keys/rsa2.pem");
/// Test-only EC P-256 key (PKCS#8 PEM).
pub const EC1_PEM: &str = include_str!("../tests/keys/ec1.pem");
/// The public half of [`RSA1_PEM`] (SPKI PEM).
pub const RSA1_PUBLIC_PEM: &str = include_str!("../tests/keys/rsa1.pub.pem");

/// A signing key with its key id and algorithm.
#[derive(Clone)]
pub struct SigningKey {
    kid: String,
    alg: Algorithm,
    key: EncodingKey,
    jwk: Value,
}

impl SigningKey {
    /// An RS256 key from a PKCS#1 PEM.
    pub fn rsa(kid: &str, pem: &str) -> Self {
        Self::new(
            kid,
            Algorithm::RS256,
            EncodingKey::from_rsa_pem(pem.as_bytes()),
        )
    }

    /// An ES256 key from a PKCS#8 PEM.
    pub fn ec(kid: &str, pem: &str) -> Self {
        Self::new(
            kid,
            Algorithm::ES256,
            EncodingKey::from_ec_pem(pem.as_bytes()),
        )
    }

    fn new(kid: &str, alg: Algorithm, key: jsonwebtoken::errors::Result<EncodingKey>) -> Self {
        let key = key.expect("a valid test key");
        let mut jwk =
            serde_json::to_value(Jwk::from_encoding_key(&key, alg).expect("a public JWK"))
                .expect("a JWK serializes");
        jwk["kid"] = json!(kid);
        Self {
            kid: kid.to_owned(),
            alg,
            key,
            jwk,
        }
    }

    /// The key id.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// Signs `claims` as a JWT naming this key.
    pub fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, claims, &self.key).expect("signing works")
    }

    /// Signs `claims` as a JWT naming this key, with the members of `extra` added to (or
    /// replacing those of) its header, for tests of header handling (`crit`, private
    /// members of any JSON type).
    pub fn sign_with_header(&self, extra: &Value, claims: &Value) -> String {
        use base64::Engine as _;
        let mut header = json!({"typ": "JWT", "alg": self.alg, "kid": self.kid});
        for (k, v) in extra.as_object().into_iter().flatten() {
            header[k.as_str()] = v.clone();
        }
        let b64 =
            |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
        let message = format!("{}.{}", b64(&header), b64(claims));
        let signature = jsonwebtoken::crypto::sign(message.as_bytes(), &self.key, self.alg)
            .expect("signing works");
        format!("{message}.{signature}")
    }
}

#[derive(Default)]
struct Shared {
    jwks: Mutex<Vec<Value>>,
    opaque: Mutex<HashMap<String, Value>>,
    jwks_fetches: AtomicUsize,
    introspections: AtomicUsize,
}

/// A running local authorization server.
pub struct LocalAuthServer {
    /// Its issuer identifier (`http://127.0.0.1:<port>`).
    pub issuer: String,
    /// Its JWKS URL.
    pub jwks_url: String,
    /// Its introspection endpoint.
    pub introspection_url: String,
    addr: SocketAddr,
    shared: Arc<Shared>,
    flow: Arc<crate::authz_code::CodeFlow>,
}

impl LocalAuthServer {
    /// Binds `127.0.0.1:0` and serves in the background.
    pub async fn start() -> Self {
        Self::start_on("127.0.0.1:0").await
    }

    /// Binds `addr` and serves in the background.
    pub async fn start_on(addr: &str) -> Self {
        let shared = Arc::new(Shared::default());
        let flow = Arc::new(crate::authz_code::CodeFlow::default());
        let app = Router::new()
            .route("/jwks", get(jwks))
            .route("/introspect", post(introspect))
            .with_state(shared.clone())
            .merge(crate::authz_code::router(flow.clone()));
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .expect("bind the authorization server");
        let addr = listener.local_addr().expect("bound address");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        let issuer = format!("http://{addr}");
        flow.set_issuer(&issuer);
        Self {
            flow,
            jwks_url: format!("{issuer}/jwks"),
            introspection_url: format!("{issuer}/introspect"),
            issuer,
            addr,
            shared,
        }
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Runs the authorization code flow: tokens signed with `key` (published), valid for
    /// `lifetime_secs`.
    pub fn enable_code_flow(&self, key: &SigningKey, lifetime_secs: u64) {
        self.publish(key);
        self.flow.enable(key.clone(), lifetime_secs);
    }

    /// Makes the code flow bind tokens to the client's DPoP key (RFC 9449 §5): the metadata
    /// advertises ES256 proofs, and a token request with a valid proof gets a `DPoP` token
    /// whose `cnf.jkt` is the proof key's thumbprint.
    pub fn enable_dpop(&self) {
        self.flow.enable_dpop();
    }

    /// The code flow's counts: (registrations, authorizations, code grants, refresh grants).
    pub fn code_flow_counts(&self) -> (usize, usize, usize, usize) {
        self.flow.counts()
    }

    /// Adds `key` to the published JWKS.
    pub fn publish(&self, key: &SigningKey) {
        self.shared.jwks.lock().expect("lock").push(key.jwk.clone());
    }

    /// Issues a token signed with `key`: `iss` is this server, `iat`/`exp` (one hour) are
    /// filled in, and `claims` (for example `sub`, `aud`, `scope`) are added or override.
    pub fn issue(&self, key: &SigningKey, claims: &Value) -> String {
        let now = now();
        let mut full = json!({"iss": self.issuer, "iat": now, "exp": now + 3600});
        if let (Some(full), Some(extra)) = (full.as_object_mut(), claims.as_object()) {
            for (k, v) in extra {
                full.insert(k.clone(), v.clone());
            }
        }
        key.sign(&full)
    }

    /// Registers an opaque token that introspection reports as `active` with `claims`.
    pub fn register_opaque(&self, token: &str, claims: &Value) {
        let mut answer = json!({"active": true, "iss": self.issuer});
        if let (Some(a), Some(extra)) = (answer.as_object_mut(), claims.as_object()) {
            for (k, v) in extra {
                a.insert(k.clone(), v.clone());
            }
        }
        self.shared
            .opaque
            .lock()
            .expect("lock")
            .insert(token.to_owned(), answer);
    }

    /// How many times the JWKS was fetched.
    pub fn jwks_fetches(&self) -> usize {
        self.shared.jwks_fetches.load(Ordering::SeqCst)
    }

    /// How many introspection requests were answered.
    pub fn introspections(&self) -> usize {
        self.shared.introspections.load(Ordering::SeqCst)
    }
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

async fn jwks(State(shared): State<Arc<Shared>>) -> axum::Json<Value> {
    shared.jwks_fetches.fetch_add(1, Ordering::SeqCst);
    let keys = shared.jwks.lock().expect("lock").clone();
    axum::Json(json!({"keys": keys}))
}

async fn introspect(
    State(shared): State<Arc<Shared>>,
    Form(form): Form<HashMap<String, String>>,
) -> axum::Json<Value> {
    shared.introspections.fetch_add(1, Ordering::SeqCst);
    let token = form.get("token").map(String::as_str).unwrap_or_default();
    let answer = shared.opaque.lock().expect("lock").get(token).cloned();
    axum::Json(answer.unwrap_or_else(|| json!({"active": false})))
}
