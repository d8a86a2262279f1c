//! DPoP-bound access tokens on the protected resource (RFC 9449 §7): the configuration
//! ([`DpopConfig`]), the checked state the auth layer uses, and the proof, nonce and replay
//! rooms.

mod nonce;
mod proof;
mod replay;

use std::str::FromStr as _;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::{HeaderMap, HeaderValue, Method, Uri};
use jsonwebtoken::Algorithm;
use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

#[cfg(feature = "redis")]
pub use replay::RedisReplayStore;
pub use replay::{DpopReplayStore, MemoryReplayStore};

use super::AuthError;
use crate::error::Error;
use crate::redact::Redacted;

/// Every proof algorithm the server can verify, in the order advertised by default.
const ALGORITHMS: [&str; 9] = [
    "ES256", "ES384", "EdDSA", "PS256", "PS384", "PS512", "RS256", "RS384", "RS512",
];
/// The shortest nonce secret accepted.
const MIN_NONCE_SECRET_BYTES: usize = 32;
/// The longest wait for the replay store before the request is answered `503`.
const REPLAY_STORE_TIMEOUT: Duration = Duration::from_secs(2);

/// The `DPoP` request header.
pub(crate) const DPOP: http::HeaderName = http::HeaderName::from_static("dpop");
/// The `DPoP-Nonce` response header.
pub(crate) const DPOP_NONCE: http::HeaderName = http::HeaderName::from_static("dpop-nonce");

/// DPoP-bound access tokens (RFC 9449): how the protected resource checks the proof of
/// possession a client sends with `Authorization: DPoP <token>`. Give it to
/// [`OAuthConfig::dpop`](super::OAuthConfig::dpop).
///
/// Every request with the `DPoP` scheme carries exactly one `DPoP` header: a JWT with `typ`
/// `dpop+jwt`, signed with one of the [`algorithms`](Self::algorithms) by the public key in
/// its `jwk` header, whose claims name the request (`htm`, the method; `htu`, the URL
/// without query and fragment), the access token (`ath`, its SHA-256), when it was made
/// (`iat`, within the [`iat_window`](Self::iat_window)) and a unique `jti`, accepted once
/// ([`replay_store`](Self::replay_store)). The token must be bound to that key: its `cnf.jkt`
/// (a JWT claim, or a member of the introspection answer) is the key's RFC 7638 thumbprint.
///
/// `htu` is compared with the URL the client used: the origin of the configured resource
/// URL (scheme, host and port, as [`OAuthConfig::new`](super::OAuthConfig::new) names them)
/// and the path the request arrived with (before any `nest_service` stripped a prefix). A
/// reverse proxy may terminate TLS and change the host, but must keep the path: behind one
/// that rewrites paths, no proof matches.
///
/// By default DPoP is accepted next to plain bearer tokens, and a token bound to a key
/// (one with `cnf.jkt`) is refused as a bearer token: [`require`](Self::require) refuses
/// bearer tokens altogether. [`nonce`](Self::nonce) makes proofs carry a nonce the server
/// hands out (RFC 9449 §9).
///
/// ```
/// use std::time::Duration;
/// use mcp::auth::{AuthorizationServer, DpopConfig, OAuthConfig};
///
/// let nonce_secret = [7u8; 32]; // the same on every replica; keep it out of the code
/// let oauth = OAuthConfig::new("https://mcp.example.com/mcp")
///     .authorization_server(AuthorizationServer::jwt(
///         "https://login.example.com",
///         "https://login.example.com/jwks",
///     ))
///     .dpop(
///         DpopConfig::new()
///             .require()
///             .algorithms(["ES256", "EdDSA"])
///             .nonce(nonce_secret)
///             .iat_window(Duration::from_secs(60), Duration::from_secs(5)),
///     );
/// # let _ = oauth;
/// ```
#[derive(Clone)]
#[must_use = "a DPoP configuration does nothing until it is given to `OAuthConfig::dpop`"]
pub struct DpopConfig {
    required: bool,
    algorithms: Vec<String>,
    nonce_secret: Option<Vec<u8>>,
    nonce_lifetime: Duration,
    max_age: Duration,
    skew: Duration,
    replay: Option<Arc<dyn DpopReplayStore>>,
}

impl std::fmt::Debug for DpopConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopConfig")
            .field("required", &self.required)
            .field("algorithms", &self.algorithms)
            .field(
                "nonce_secret",
                &self.nonce_secret.as_ref().map(|_| Redacted::HIDDEN),
            )
            .field("nonce_lifetime", &self.nonce_lifetime)
            .field("max_age", &self.max_age)
            .field("skew", &self.skew)
            .field("replay_store", &self.replay.as_ref().map(|_| "custom"))
            .finish()
    }
}

impl Default for DpopConfig {
    fn default() -> Self {
        Self::new()
    }
}

impl DpopConfig {
    /// DPoP accepted next to bearer tokens: every algorithm the server verifies (`ES256`,
    /// `ES384`, `EdDSA` (Ed25519), `PS256`, `PS384`, `PS512`, `RS256`, `RS384`, `RS512`),
    /// no server nonce, proofs at most 60 s old and 5 s ahead of the server's clock, and an
    /// in-memory replay cache of 100,000 proofs ([`MemoryReplayStore`]).
    pub fn new() -> Self {
        Self {
            required: false,
            algorithms: ALGORITHMS.iter().map(|a| (*a).to_owned()).collect(),
            nonce_secret: None,
            nonce_lifetime: Duration::from_secs(300),
            max_age: Duration::from_secs(60),
            skew: Duration::from_secs(5),
            replay: None,
        }
    }

    /// Requires DPoP for every token: a request with `Authorization: Bearer` is refused
    /// (`401`, `error="invalid_token"`) before its token is checked, and the metadata says
    /// `dpop_bound_access_tokens_required: true`.
    pub fn require(mut self) -> Self {
        self.required = true;
        self
    }

    /// The algorithms proofs may be signed with (checked when the server is built: each
    /// one of those [`new`](Self::new) lists), advertised as
    /// `dpop_signing_alg_values_supported` and in the `DPoP` challenge's `algs`.
    pub fn algorithms<S: Into<String>>(mut self, algorithms: impl IntoIterator<Item = S>) -> Self {
        self.algorithms = algorithms.into_iter().map(Into::into).collect();
        self
    }

    /// Makes proofs carry a server nonce (RFC 9449 §9): a proof without the current one is
    /// refused with `401`, `WWW-Authenticate: DPoP error="use_dpop_nonce"` and the nonce in
    /// a `DPoP-Nonce` header; the client retries with it.
    ///
    /// Nonces are stateless: the nonce of each [`nonce_lifetime`](Self::nonce_lifetime)
    /// slot is an HMAC-SHA256 of the slot under `secret` (at least 32 bytes), so replicas
    /// that share the secret share the nonces without sharing state. A nonce is accepted
    /// for one to two lifetimes; once it is the previous slot's, responses carry the
    /// current one in `DPoP-Nonce`.
    pub fn nonce(mut self, secret: impl AsRef<[u8]>) -> Self {
        self.nonce_secret = Some(secret.as_ref().to_vec());
        self
    }

    /// How often the nonce changes (default 5 minutes, at least one second).
    pub fn nonce_lifetime(mut self, lifetime: Duration) -> Self {
        self.nonce_lifetime = lifetime;
        self
    }

    /// How far a proof's `iat` may lie in the past (`max_age`, default 60 s) and in the
    /// future (`skew`, the clients' clock error, default 5 s). A proof is remembered by the
    /// replay cache for `max_age` after its `iat`.
    pub fn iat_window(mut self, max_age: Duration, skew: Duration) -> Self {
        self.max_age = max_age;
        self.skew = skew;
        self
    }

    /// Where accepted proofs are remembered so each is accepted once (default: a
    /// [`MemoryReplayStore`] of 100,000 proofs per server). Replicas behind a load
    /// balancer share one: [`RedisReplayStore`](crate::auth::RedisReplayStore) (feature
    /// `redis`) or a [`DpopReplayStore`] of your own.
    pub fn replay_store(mut self, store: impl DpopReplayStore) -> Self {
        self.replay = Some(Arc::new(store));
        self
    }
}

/// The checked DPoP settings of a protected server.
pub(crate) struct Dpop {
    pub(crate) required: bool,
    algorithms: Vec<Algorithm>,
    /// `algs="…"`'s value.
    algs: String,
    nonces: Option<nonce::Nonces>,
    max_age: Duration,
    skew: Duration,
    replay: Arc<dyn DpopReplayStore>,
    /// The resource's origin (`https://host[:port]`), the start of every `htu`.
    origin: String,
}

/// A proof that passed its own checks; the token's binding and the replay check follow.
pub(crate) struct Checked {
    jkt: String,
    /// The replay cache's id of the proof.
    id: String,
    /// When the proof is too old to be accepted anyway.
    until: SystemTime,
    /// The proof's nonce is the previous slot's: the response hands out the current one.
    pub(crate) renew_nonce: bool,
}

impl Dpop {
    /// Checks `config` for the resource at `resource`.
    pub(crate) fn new(config: &DpopConfig, resource: &reqwest::Url) -> Result<Self, Error> {
        let bad = |m: String| Error::Config(format!("OAuth: DPoP: {m}"));
        let mut algorithms = Vec::new();
        let mut names = Vec::new();
        for name in &config.algorithms {
            if !ALGORITHMS.contains(&name.as_str()) {
                return Err(bad(format!(
                    "unsupported proof algorithm `{name}` (supported: {})",
                    ALGORITHMS.join(", ")
                )));
            }
            let alg = Algorithm::from_str(name)
                .map_err(|_| bad(format!("unsupported proof algorithm `{name}`")))?;
            if !algorithms.contains(&alg) {
                algorithms.push(alg);
                names.push(name.as_str());
            }
        }
        if algorithms.is_empty() {
            return Err(bad("at least one proof algorithm is required".into()));
        }
        let nonces = match &config.nonce_secret {
            None => None,
            Some(secret) if secret.len() < MIN_NONCE_SECRET_BYTES => {
                return Err(bad(format!(
                    "the nonce secret is {} bytes; it must be at least {MIN_NONCE_SECRET_BYTES}",
                    secret.len()
                )));
            }
            Some(secret) => {
                if config.nonce_lifetime < Duration::from_secs(1) {
                    return Err(bad("the nonce lifetime must be at least one second".into()));
                }
                Some(nonce::Nonces::new(secret, config.nonce_lifetime.as_secs()))
            }
        };
        if config.max_age.is_zero() {
            return Err(bad("the iat window's max_age must not be zero".into()));
        }
        let replay = config
            .replay
            .clone()
            .unwrap_or_else(|| Arc::new(MemoryReplayStore::default()));
        Ok(Self {
            required: config.required,
            algorithms,
            algs: names.join(" "),
            nonces,
            max_age: config.max_age,
            skew: config.skew,
            replay,
            origin: resource.origin().ascii_serialization(),
        })
    }

    /// The `algs` value of the `DPoP` challenge.
    pub(crate) fn algs(&self) -> &str {
        &self.algs
    }

    /// The nonce to hand out now, when nonces are on.
    pub(crate) fn current_nonce(&self) -> Option<HeaderValue> {
        let nonce = self.nonces.as_ref()?.current(unix_now().as_secs());
        HeaderValue::from_str(&nonce).ok()
    }

    /// Checks the request's one `DPoP` header for `token` (RFC 9449 §4.3, the server
    /// nonce of §9). `uri` is the request's, `nested` the path axum's `nest_service`
    /// stripped from it (its [`NestedPath`](axum::extract::NestedPath)).
    pub(crate) fn check_proof(
        &self,
        method: &Method,
        uri: &Uri,
        nested: Option<&str>,
        headers: &HeaderMap,
        token: &str,
    ) -> Result<Checked, AuthError> {
        let mut values = headers.get_all(DPOP).iter();
        let value = match (values.next(), values.next()) {
            (Some(value), None) => value,
            (None, _) => return Err(AuthError::InvalidProof("Missing DPoP proof")),
            (Some(_), Some(_)) => {
                return Err(AuthError::InvalidProof("More than one DPoP proof"));
            }
        };
        let value = value
            .to_str()
            .map_err(|_| AuthError::InvalidProof("Invalid DPoP proof"))?;
        let urls = self.urls(uri.path(), nested);
        let now = unix_now();
        let proof = proof::verify(
            value,
            &proof::Expected {
                method: method.as_str(),
                urls: &urls,
                token,
                now: now.as_secs_f64(),
                max_age: self.max_age.as_secs_f64(),
                skew: self.skew.as_secs_f64(),
                algorithms: &self.algorithms,
            },
        )?;
        let renew_nonce = match &self.nonces {
            None => false,
            Some(nonces) => match nonces.check(proof.nonce.as_deref(), now.as_secs()) {
                nonce::Check::Current => false,
                nonce::Check::Stale => true,
                nonce::Check::Refused if proof.nonce.is_none() => {
                    return Err(AuthError::UseNonce(
                        "Resource server requires nonce in DPoP proof",
                    ));
                }
                nonce::Check::Refused => {
                    return Err(AuthError::UseNonce("DPoP nonce is invalid or expired"));
                }
            },
        };
        let mut id = Sha256::new();
        id.update(proof.jkt.as_bytes());
        id.update(b"\n");
        id.update(proof.jti.as_bytes());
        // Remembered until the proof is too old anyway (rounded up, plus a second).
        let until = proof.iat + self.max_age.as_secs_f64();
        let until = UNIX_EPOCH + Duration::from_secs(until.max(0.0).ceil() as u64 + 1);
        Ok(Checked {
            jkt: proof.jkt,
            id: URL_SAFE_NO_PAD.encode(id.finalize()),
            until,
            renew_nonce,
        })
    }

    /// The URLs a request for `path` may have been sent to: the resource's origin and the
    /// path as the client sent it. Under `nest_service` the prefix is put back; axum strips
    /// `/mcp` and `/mcp/` alike to `/`, so both are candidates then.
    fn urls(&self, path: &str, nested: Option<&str>) -> Vec<reqwest::Url> {
        let url = |p: &str| reqwest::Url::parse(&format!("{}{p}", self.origin)).ok();
        match nested.map(|n| n.trim_end_matches('/')) {
            None | Some("") => url(path).into_iter().collect(),
            Some(prefix) if path == "/" => [url(prefix), url(&format!("{prefix}/"))]
                .into_iter()
                .flatten()
                .collect(),
            Some(prefix) => url(&format!("{prefix}{path}")).into_iter().collect(),
        }
    }

    /// Checks that the token whose `claims` these are is bound to the proof's key, then
    /// records the proof, refusing a replay.
    pub(crate) async fn bind(
        &self,
        checked: &Checked,
        claims: &Map<String, Value>,
    ) -> Result<(), AuthError> {
        match bound_key(claims)? {
            None => {
                return Err(AuthError::InvalidToken("Token is not bound to a DPoP key"));
            }
            Some(jkt) if jkt != checked.jkt => {
                return Err(AuthError::InvalidToken("Invalid DPoP key binding"));
            }
            Some(_) => {}
        }
        let first = tokio::time::timeout(
            REPLAY_STORE_TIMEOUT,
            self.replay.first_use(&checked.id, checked.until),
        )
        .await;
        match first {
            Ok(Ok(true)) => Ok(()),
            Ok(Ok(false)) => Err(AuthError::InvalidProof("DPoP proof has already been used")),
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "the DPoP replay store failed");
                Err(AuthError::Unavailable(
                    "The DPoP replay cache is unavailable",
                ))
            }
            Err(_) => {
                tracing::warn!("the DPoP replay store did not answer in time");
                Err(AuthError::Unavailable(
                    "The DPoP replay cache is unavailable",
                ))
            }
        }
    }
}

/// The key a token is bound to: its `cnf.jkt` (RFC 9449 §6), `None` for a token without
/// one. A `cnf.jkt` that is not a string makes the token invalid.
pub(crate) fn bound_key(claims: &Map<String, Value>) -> Result<Option<&str>, AuthError> {
    match claims.get("cnf").and_then(|c| c.get("jkt")) {
        None => Ok(None),
        Some(Value::String(jkt)) => Ok(Some(jkt)),
        Some(_) => Err(AuthError::InvalidToken("Invalid token: malformed cnf.jkt")),
    }
}

fn unix_now() -> Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
