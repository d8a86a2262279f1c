//! One DPoP proof (RFC 9449 §4.2), read and checked as §4.3 requires: a compact JWS whose
//! protected header is `typ: dpop+jwt`, an asymmetric `alg` of the configured list and a
//! public `jwk` (no private members) that verifies the signature; claims `jti`, `htm`,
//! `htu`, `iat` and `ath` matching the request and its access token. The nonce and the
//! `jti` replay check are the caller's (they need the server's state).
//!
//! Every refusal names the check that failed in words of its own: nothing of the proof or
//! the token is echoed.

use std::str::FromStr as _;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};
use subtle::ConstantTimeEq as _;

use crate::auth::AuthError;

/// The longest proof read (a 4096-bit RSA key and signature fit with room to spare).
pub(crate) const MAX_PROOF_BYTES: usize = 8 << 10;
/// The longest `jti` accepted (RFC 9449 asks for 96 bits of randomness or more; a UUID is 36).
const MAX_JTI_BYTES: usize = 256;
/// The smallest RSA modulus accepted, in bytes (2048 bits).
const MIN_RSA_BYTES: usize = 256;

const MALFORMED: AuthError = AuthError::InvalidProof("Invalid DPoP proof");
const UNUSABLE: AuthError = AuthError::InvalidProof("Invalid DPoP proof: unusable jwk");

/// What a proof must match: the request it came with and its access token, at `now`.
pub(crate) struct Expected<'a> {
    /// The request method (`htm`, compared exactly: methods are case-sensitive).
    pub(crate) method: &'a str,
    /// The URLs the client may have addressed the request to, without query and fragment
    /// (`htu` must be one of them).
    pub(crate) urls: &'a [reqwest::Url],
    /// The access token of the `Authorization` header (`ath` is its SHA-256).
    pub(crate) token: &'a str,
    /// Seconds since the Unix epoch.
    pub(crate) now: f64,
    /// How old `iat` may be, in seconds.
    pub(crate) max_age: f64,
    /// How far in the future `iat` may be, in seconds.
    pub(crate) skew: f64,
    /// The algorithms accepted.
    pub(crate) algorithms: &'a [Algorithm],
}

/// A proof that passed every check of this module.
#[derive(Debug)]
pub(crate) struct Proof {
    /// The RFC 7638 SHA-256 thumbprint of the proof's key, base64url.
    pub(crate) jkt: String,
    /// The proof's unique identifier.
    pub(crate) jti: String,
    /// When the proof was made (seconds since the Unix epoch).
    pub(crate) iat: f64,
    /// The server nonce the proof carries, if any.
    pub(crate) nonce: Option<String>,
}

/// Reads `proof` and checks it against `expected`.
pub(crate) fn verify(proof: &str, expected: &Expected<'_>) -> Result<Proof, AuthError> {
    if proof.len() > MAX_PROOF_BYTES {
        return Err(AuthError::InvalidProof("DPoP proof is too large"));
    }
    let mut parts = proof.split('.');
    let (Some(header), Some(payload), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(MALFORMED);
    };
    let header_json = object(header)?;
    if header_json.contains_key("crit") {
        return Err(AuthError::InvalidProof(
            "Invalid DPoP proof: unsupported critical header parameter",
        ));
    }
    let typ = header_json.get("typ").and_then(Value::as_str);
    if !typ.is_some_and(|t| {
        t.eq_ignore_ascii_case("dpop+jwt") || t.eq_ignore_ascii_case("application/dpop+jwt")
    }) {
        return Err(AuthError::InvalidProof(
            "Invalid DPoP proof: typ is not dpop+jwt",
        ));
    }
    let alg = header_json
        .get("alg")
        .and_then(Value::as_str)
        .and_then(|a| Algorithm::from_str(a).ok())
        .filter(|a| expected.algorithms.contains(a))
        .ok_or(AuthError::InvalidProof(
            "Invalid DPoP proof: unsupported algorithm",
        ))?;
    let Some(Value::Object(jwk)) = header_json.get("jwk") else {
        return Err(AuthError::InvalidProof("Invalid DPoP proof: no jwk"));
    };
    let key = PublicKey::from_jwk(jwk, alg)?;
    let message = &proof[..header.len() + 1 + payload.len()];
    match jsonwebtoken::crypto::verify(signature, message.as_bytes(), &key.key, alg) {
        Ok(true) => {}
        Ok(false) | Err(_) => {
            return Err(AuthError::InvalidProof("Invalid DPoP proof signature"));
        }
    }
    let claims = object(payload)?;
    check_claims(&claims, expected)?;
    let text = |k: &str| claims.get(k).and_then(Value::as_str).map(str::to_owned);
    Ok(Proof {
        jkt: key.thumbprint,
        jti: text("jti").unwrap_or_default(),
        iat: claims
            .get("iat")
            .and_then(Value::as_f64)
            .unwrap_or_default(),
        nonce: text("nonce"),
    })
}

/// A base64url segment holding a JSON object.
fn object(segment: &str) -> Result<Map<String, Value>, AuthError> {
    let bytes = URL_SAFE_NO_PAD.decode(segment).map_err(|_| MALFORMED)?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(MALFORMED),
    }
}

/// `jti`, `htm`, `htu`, `iat` and `ath` (RFC 9449 §4.3, checks 3 and 8–12).
fn check_claims(claims: &Map<String, Value>, expected: &Expected<'_>) -> Result<(), AuthError> {
    let text = |k: &str| claims.get(k).and_then(Value::as_str);
    if !text("jti").is_some_and(|j| !j.is_empty() && j.len() <= MAX_JTI_BYTES) {
        return Err(AuthError::InvalidProof(
            "Invalid DPoP proof: missing or invalid jti",
        ));
    }
    if text("htm") != Some(expected.method) {
        return Err(AuthError::InvalidProof(
            "DPoP proof is for another HTTP method",
        ));
    }
    let htu = text("htu")
        .and_then(|u| reqwest::Url::parse(u).ok())
        .map(|mut u| {
            u.set_query(None);
            u.set_fragment(None);
            u
        });
    if !htu.is_some_and(|u| expected.urls.contains(&u)) {
        return Err(AuthError::InvalidProof("DPoP proof is for another URL"));
    }
    let iat = claims
        .get("iat")
        .and_then(Value::as_f64)
        .filter(|t| t.is_finite())
        .ok_or(AuthError::InvalidProof(
            "Invalid DPoP proof: missing or invalid iat",
        ))?;
    if iat < expected.now - expected.max_age {
        return Err(AuthError::InvalidProof("DPoP proof is too old"));
    }
    if iat > expected.now + expected.skew {
        return Err(AuthError::InvalidProof(
            "DPoP proof is issued in the future",
        ));
    }
    let ath = text("ath").ok_or(AuthError::InvalidProof("Invalid DPoP proof: missing ath"))?;
    if !bool::from(
        ath.as_bytes()
            .ct_eq(access_token_hash(expected.token).as_bytes()),
    ) {
        return Err(AuthError::InvalidProof(
            "DPoP proof is for another access token",
        ));
    }
    if claims.get("nonce").is_some_and(|n| !n.is_string()) {
        return Err(AuthError::InvalidProof("Invalid DPoP proof: invalid nonce"));
    }
    Ok(())
}

/// `ath`: the base64url SHA-256 of the access token's ASCII bytes.
pub(crate) fn access_token_hash(token: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()))
}

/// The proof's public key, ready to verify, with its RFC 7638 thumbprint.
struct PublicKey {
    key: DecodingKey,
    thumbprint: String,
}

/// The JWK members that hold private key material (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037
/// §2): their presence in a proof's `jwk` is refused, whatever the key type.
const PRIVATE_MEMBERS: [&str; 8] = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

impl PublicKey {
    /// The public key of `jwk` for `alg`: its type and curve must be the ones `alg` uses
    /// (P-256 for ES256, P-384 for ES384, RSA of 2048 bits or more for RS*/PS*, Ed25519 for
    /// EdDSA), and it must hold no private member.
    fn from_jwk(jwk: &Map<String, Value>, alg: Algorithm) -> Result<Self, AuthError> {
        if PRIVATE_MEMBERS.iter().any(|m| jwk.contains_key(*m)) {
            return Err(AuthError::InvalidProof(
                "Invalid DPoP proof: the jwk holds a private key",
            ));
        }
        let member = |k: &str| {
            jwk.get(k)
                .and_then(Value::as_str)
                .filter(|v| !v.is_empty())
                .ok_or(UNUSABLE)
        };
        let decoded =
            |k: &str| member(k).and_then(|v| URL_SAFE_NO_PAD.decode(v).map_err(|_| UNUSABLE));
        let kty = member("kty")?;
        // RFC 7638 §3.2: the required members, in lexicographic order, as JSON strings.
        let (key, canonical) = match (kty, alg) {
            ("EC", Algorithm::ES256 | Algorithm::ES384) => {
                let (crv, size) = if alg == Algorithm::ES256 {
                    ("P-256", 32)
                } else {
                    ("P-384", 48)
                };
                if member("crv")? != crv
                    || decoded("x")?.len() != size
                    || decoded("y")?.len() != size
                {
                    return Err(UNUSABLE);
                }
                let (x, y) = (member("x")?, member("y")?);
                let key = DecodingKey::from_ec_components(x, y).map_err(|_| UNUSABLE)?;
                (
                    key,
                    format!(
                        r#"{{"crv":{},"kty":"EC","x":{},"y":{}}}"#,
                        json_string(crv),
                        json_string(x),
                        json_string(y)
                    ),
                )
            }
            (
                "RSA",
                Algorithm::RS256
                | Algorithm::RS384
                | Algorithm::RS512
                | Algorithm::PS256
                | Algorithm::PS384
                | Algorithm::PS512,
            ) => {
                let modulus = decoded("n")?;
                let significant = modulus.iter().skip_while(|b| **b == 0).count();
                if significant < MIN_RSA_BYTES || decoded("e")?.is_empty() {
                    return Err(UNUSABLE);
                }
                let (n, e) = (member("n")?, member("e")?);
                let key = DecodingKey::from_rsa_components(n, e).map_err(|_| UNUSABLE)?;
                (
                    key,
                    format!(
                        r#"{{"e":{},"kty":"RSA","n":{}}}"#,
                        json_string(e),
                        json_string(n)
                    ),
                )
            }
            ("OKP", Algorithm::EdDSA) => {
                if member("crv")? != "Ed25519" || decoded("x")?.len() != 32 {
                    return Err(UNUSABLE);
                }
                let x = member("x")?;
                let key = DecodingKey::from_ed_components(x).map_err(|_| UNUSABLE)?;
                (
                    key,
                    format!(r#"{{"crv":"Ed25519","kty":"OKP","x":{}}}"#, json_string(x)),
                )
            }
            _ => return Err(UNUSABLE),
        };
        Ok(Self {
            key,
            thumbprint: URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes())),
        })
    }
}

/// `s` as a JSON string (quoted and escaped as RFC 7638 §3 requires).
fn json_string(s: &str) -> String {
    Value::from(s).to_string()
}

/// The RFC 7638 SHA-256 thumbprint of a public JWK, for tests.
#[cfg(test)]
pub(crate) fn thumbprint(jwk: &Value, alg: Algorithm) -> Result<String, AuthError> {
    let Value::Object(jwk) = jwk else {
        return Err(MALFORMED);
    };
    PublicKey::from_jwk(jwk, alg).map(|k| k.thumbprint)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// RFC 9449 §4.2's example key and §6.1's thumbprint of it; §7.1's token and its `ath`.
    #[test]
    fn rfc_9449_vectors() {
        let jwk = json!({"kty": "EC", "x": "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs",
                         "y": "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA", "crv": "P-256"});
        assert_eq!(
            thumbprint(&jwk, Algorithm::ES256).expect("a usable key"),
            "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
        );
        assert_eq!(
            access_token_hash("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"),
            "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"
        );
    }

    #[test]
    fn keys_must_fit_their_algorithm_and_be_public() {
        let p256 = json!({"kty": "EC", "crv": "P-256",
            "x": "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs",
            "y": "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA"});
        let refusal = |jwk: &Value, alg| match thumbprint(jwk, alg) {
            Ok(_) => "usable".to_owned(),
            Err(e) => e.to_string(),
        };
        assert_eq!(refusal(&p256, Algorithm::ES256), "usable");
        let unusable = "Invalid DPoP proof: unusable jwk";
        // Another algorithm, curve or key type than the header names.
        for alg in [Algorithm::ES384, Algorithm::RS256, Algorithm::EdDSA] {
            assert_eq!(refusal(&p256, alg), unusable, "{alg:?}");
        }
        let mut other_curve = p256.clone();
        other_curve["crv"] = json!("Ed25519");
        assert_eq!(refusal(&other_curve, Algorithm::ES256), unusable);
        let mut short = p256.clone();
        short["x"] = json!("AAAA");
        assert_eq!(refusal(&short, Algorithm::ES256), unusable);
        let mut not_b64 = p256.clone();
        not_b64["y"] = json!("!!!");
        assert_eq!(refusal(&not_b64, Algorithm::ES256), unusable);
        let mut number = p256.clone();
        number["x"] = json!(7);
        assert_eq!(refusal(&number, Algorithm::ES256), unusable);
        // Private members, even empty or of another key type.
        for private in PRIVATE_MEMBERS {
            let mut leaked = p256.clone();
            leaked[private] = json!("");
            assert_eq!(
                refusal(&leaked, Algorithm::ES256),
                "Invalid DPoP proof: the jwk holds a private key"
            );
        }
        // Symmetric keys and small RSA moduli.
        let oct = json!({"kty": "oct", "k": "c2VjcmV0"});
        assert_eq!(
            refusal(&oct, Algorithm::ES256),
            "Invalid DPoP proof: the jwk holds a private key"
        );
        let small = json!({"kty": "RSA", "e": "AQAB", "n": URL_SAFE_NO_PAD.encode([0xc5; 128])});
        assert_eq!(refusal(&small, Algorithm::RS256), unusable);
        let padded = json!({"kty": "RSA", "e": "AQAB",
            "n": URL_SAFE_NO_PAD.encode([&[0u8; 200][..], &[0xc5; 128]].concat())});
        assert_eq!(refusal(&padded, Algorithm::RS256), unusable);
    }
}
