//! JWT access tokens: the JWKS cache of one authorization server and signature and claim
//! validation.

use std::time::{Duration, Instant};

use base64::Engine as _;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::{Map, Value};
use tokio::sync::Mutex;

use super::AuthError;
use super::jws::{Expected, Jws};

/// The decoded, unverified header and payload of a compact JWS, for routing only.
pub(crate) struct Peeked {
    pub(crate) payload: Map<String, Value>,
}

/// `Some` when `token` has the shape of a JWT (three segments whose first two are
/// base64url JSON objects); anything else is an opaque token.
pub(crate) fn peek(token: &str) -> Option<Peeked> {
    let mut parts = token.split('.');
    let (header, payload, _sig) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let decode = |s: &str| {
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(s)
            .ok()?;
        match serde_json::from_slice::<Value>(&bytes).ok()? {
            Value::Object(m) => Some(m),
            _ => None,
        }
    };
    decode(header)?;
    Some(Peeked {
        payload: decode(payload)?,
    })
}

struct CachedKey {
    kid: Option<String>,
    algorithms: Vec<Algorithm>,
    key: DecodingKey,
}

#[derive(Default)]
struct State {
    keys: Vec<CachedKey>,
    fetched: Option<Instant>,
}

/// The signing keys of one authorization server, fetched from its JWKS URL.
pub(crate) struct Jwks {
    url: String,
    min_refresh: Duration,
    max_age: Duration,
    state: Mutex<State>,
}

impl Jwks {
    pub(crate) fn new(url: String, min_refresh: Duration, max_age: Duration) -> Self {
        Self {
            url,
            min_refresh,
            max_age,
            state: Mutex::default(),
        }
    }

    /// The key for (`kid`, `alg`): from the cache, fetching the JWKS when it is stale or
    /// (rate-limited) when `kid` is unknown.
    async fn key(
        &self,
        http: &reqwest::Client,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<DecodingKey, AuthError> {
        let mut state = self.state.lock().await;
        let stale = state.fetched.is_none_or(|t| t.elapsed() >= self.max_age);
        if stale {
            self.refresh(http, &mut state).await?;
        }
        if let Some(key) = find(&state.keys, kid, alg) {
            return Ok(key);
        }
        let may_refetch = !stale
            && kid.is_some()
            && state
                .fetched
                .is_none_or(|t| t.elapsed() >= self.min_refresh);
        if may_refetch {
            tracing::debug!(jwks = %self.url, "unknown key id; fetching the JWKS again");
            self.refresh(http, &mut state).await?;
            if let Some(key) = find(&state.keys, kid, alg) {
                return Ok(key);
            }
        }
        Err(AuthError::InvalidToken(
            "Invalid token: unknown signing key",
        ))
    }

    async fn refresh(&self, http: &reqwest::Client, state: &mut State) -> Result<(), AuthError> {
        match fetch(http, &self.url).await {
            Ok(keys) => {
                state.keys = keys;
                state.fetched = Some(Instant::now());
                Ok(())
            }
            Err(e) => {
                tracing::warn!(jwks = %self.url, error = %e, "cannot fetch the JWKS");
                if state.keys.is_empty() {
                    Err(AuthError::Unavailable(
                        "The authorization server's keys cannot be fetched",
                    ))
                } else {
                    // Keep the keys we have; try again after `min_refresh`.
                    state.fetched = Some(Instant::now());
                    Ok(())
                }
            }
        }
    }

    /// Verifies `token`'s signature with the key its header names and checks `exp`, `nbf`,
    /// `iss` and `aud` ([`Jws`] reads the header as strictly as RFC 7515 requires). Returns
    /// the claims.
    pub(crate) async fn verify(
        &self,
        http: &reqwest::Client,
        token: &str,
        issuer: &str,
        audience: &str,
    ) -> Result<Map<String, Value>, AuthError> {
        let jws = Jws::parse(token)?;
        if matches!(
            jws.alg,
            Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512
        ) {
            return Err(AuthError::InvalidToken(
                "Invalid token: symmetric algorithms are not accepted",
            ));
        }
        let key = self.key(http, jws.kid.as_deref(), jws.alg).await?;
        jws.verify(
            &key,
            &Expected {
                issuer: Some(issuer),
                audience: Some(audience),
            },
        )
    }
}

fn find(keys: &[CachedKey], kid: Option<&str>, alg: Algorithm) -> Option<DecodingKey> {
    keys.iter()
        .filter(|k| k.algorithms.contains(&alg))
        .find(|k| match kid {
            Some(kid) => k.kid.as_deref() == Some(kid),
            None => true,
        })
        .map(|k| k.key.clone())
}

async fn fetch(http: &reqwest::Client, url: &str) -> Result<Vec<CachedKey>, String> {
    let response = http
        .get(url)
        .header(http::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !response.status().is_success() {
        return Err(format!("HTTP {}", response.status()));
    }
    let doc: Value = response.json().await.map_err(|e| e.to_string())?;
    let keys = doc
        .get("keys")
        .and_then(Value::as_array)
        .ok_or("the document has no `keys` array")?;
    Ok(keys.iter().filter_map(cached_key).collect())
}

/// A JWK usable for signature verification, with the algorithms it may verify: its `alg`
/// when present, otherwise the ones its key type allows. Symmetric keys are skipped.
fn cached_key(value: &Value) -> Option<CachedKey> {
    let jwk: Jwk = serde_json::from_value(value.clone()).ok()?;
    if matches!(jwk.common.public_key_use, Some(ref u) if *u != PublicKeyUse::Signature) {
        return None;
    }
    let by_type: Vec<Algorithm> = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => vec![
            Algorithm::RS256,
            Algorithm::RS384,
            Algorithm::RS512,
            Algorithm::PS256,
            Algorithm::PS384,
            Algorithm::PS512,
        ],
        AlgorithmParameters::EllipticCurve(p) => match p.curve {
            EllipticCurve::P256 => vec![Algorithm::ES256],
            EllipticCurve::P384 => vec![Algorithm::ES384],
            _ => return None,
        },
        AlgorithmParameters::OctetKeyPair(_) => vec![Algorithm::EdDSA],
        AlgorithmParameters::OctetKey(_) => return None,
    };
    let algorithms = match jwk.common.key_algorithm {
        Some(ka) => {
            let alg = ka.to_string().parse::<Algorithm>().ok()?;
            if !by_type.contains(&alg) {
                return None;
            }
            vec![alg]
        }
        None => by_type,
    };
    let key = DecodingKey::from_jwk(&jwk).ok()?;
    Some(CachedKey {
        kid: jwk.common.key_id.clone(),
        algorithms,
        key,
    })
}
