//! DPoP, sender-constrained tokens (RFC 9449, MCP SEP-1932): the client's proof key
//! ([`DpopKey`]), when the client uses it ([`DpopPolicy`]), the proofs it signs for token
//! and resource requests, and the nonces servers hand out.
//!
//! The key is ES256 (ECDSA on P-256 with SHA-256), generated, exported and used for signing
//! with the RustCrypto `p256` crate: it is already compiled as `jsonwebtoken`'s ES256
//! backend, and `jsonwebtoken` itself can neither generate a key nor give the public half of
//! a private key, which every proof carries in its `jwk` header. Signatures are
//! deterministic (RFC 6979), so no signing step needs a random number generator.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use base64::Engine as _;
use p256::ecdsa::signature::Signer as _;
use p256::ecdsa::{Signature, SigningKey};
use p256::pkcs8::{DecodePrivateKey as _, EncodePrivateKey as _, LineEnding};
use reqwest::Url;
use serde_json::{Value, json};
use sha2::Digest as _;

use super::error::OAuthError;

/// The only proof algorithm the client signs with.
pub(crate) const ALGORITHM: &str = "ES256";

/// When the client asks for DPoP-bound tokens ([`OAuthConfig::dpop`](super::OAuthConfig::dpop)).
///
/// The default, [`Auto`](Self::Auto), uses DPoP exactly when the authorization server
/// advertises it with ES256 in `dpop_signing_alg_values_supported` (or the resource's
/// metadata says `dpop_bound_access_tokens_required`): such a server binds its tokens to the
/// client's key, and a stolen token is then useless without it. A server that does not
/// advertise DPoP gets bearer token requests, as before.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum DpopPolicy {
    /// DPoP when the authorization server advertises ES256 (or the resource requires it).
    #[default]
    Auto,
    /// Always: proofs on every token request even when the metadata says nothing, and a
    /// token the server issues as `Bearer` anyway is refused.
    Required,
    /// Never: bearer tokens only.
    Disabled,
}

/// An ES256 (P-256) key pair that DPoP-bound tokens are bound to. Cloning is cheap (the key
/// is shared). `Debug` shows the thumbprint, never the private key.
///
/// The client generates one per [`OAuthConfig`](super::OAuthConfig) unless given one
/// ([`OAuthConfig::dpop_key`](super::OAuthConfig::dpop_key)); each token keeps the key it
/// is bound to ([`StoredToken::dpop_key`](super::StoredToken::dpop_key)), so a persistent
/// [`TokenStore`](super::TokenStore) must keep the key too
/// ([`to_pkcs8_pem`](Self::to_pkcs8_pem), [`from_pkcs8_pem`](Self::from_pkcs8_pem)).
///
/// ```
/// use mcp::client::oauth::DpopKey;
///
/// let key = DpopKey::generate();
/// let pem = key.to_pkcs8_pem();
/// let again = DpopKey::from_pkcs8_pem(&pem)?;
/// assert_eq!(again.thumbprint(), key.thumbprint());
/// assert_eq!(key.public_jwk()["kty"], "EC");
/// # Ok::<(), mcp::client::oauth::OAuthError>(())
/// ```
#[derive(Clone)]
pub struct DpopKey(Arc<KeyInner>);

struct KeyInner {
    signing: SigningKey,
    /// The public JWK (`kty`, `crv`, `x`, `y`).
    jwk: Value,
    thumbprint: String,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey")
            .field("alg", &ALGORITHM)
            .field("thumbprint", &self.0.thumbprint)
            .finish_non_exhaustive()
    }
}

impl PartialEq for DpopKey {
    fn eq(&self, other: &Self) -> bool {
        self.0.thumbprint == other.0.thumbprint
    }
}

impl Eq for DpopKey {}

fn b64(bytes: impl AsRef<[u8]>) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

impl DpopKey {
    /// A new random key (32 bytes from the thread's CSPRNG, which the OS seeds).
    pub fn generate() -> Self {
        loop {
            let bytes: [u8; 32] = rand::random();
            // A value of zero or at least the group order is not a key (odds ~2^-128).
            if let Ok(signing) = SigningKey::from_bytes(&bytes.into()) {
                return Self::from_signing(signing);
            }
        }
    }

    /// A key from a PKCS#8 PEM P-256 private key (`-----BEGIN PRIVATE KEY-----`).
    pub fn from_pkcs8_pem(pem: &str) -> Result<Self, OAuthError> {
        SigningKey::from_pkcs8_pem(pem)
            .map(Self::from_signing)
            .map_err(|e| OAuthError::Config(format!("not a PKCS#8 P-256 private key: {e}")))
    }

    /// The private key as PKCS#8 PEM, for a token store that keeps keys. It is a secret,
    /// worth as much as the tokens bound to it.
    pub fn to_pkcs8_pem(&self) -> String {
        self.0
            .signing
            .to_pkcs8_pem(LineEnding::LF)
            .map(|pem| pem.as_str().to_owned())
            // Encoding a valid P-256 key cannot fail.
            .unwrap_or_default()
    }

    fn from_signing(signing: SigningKey) -> Self {
        let point = signing.verifying_key().to_encoded_point(false);
        let (x, y) = (
            point.x().map(b64).unwrap_or_default(),
            point.y().map(b64).unwrap_or_default(),
        );
        let jwk = json!({"kty": "EC", "crv": "P-256", "x": x, "y": y});
        let thumbprint = jwk_thumbprint(&jwk).unwrap_or_default();
        Self(Arc::new(KeyInner {
            signing,
            jwk,
            thumbprint,
        }))
    }

    /// The public key as a JWK (`kty`, `crv`, `x`, `y`): what each proof's `jwk` header
    /// carries.
    pub fn public_jwk(&self) -> &Value {
        &self.0.jwk
    }

    /// The JWK SHA-256 thumbprint (RFC 7638), base64url: the `jkt` in the `cnf` claim of a
    /// token bound to this key.
    pub fn thumbprint(&self) -> &str {
        &self.0.thumbprint
    }

    /// A fresh proof (RFC 9449 §4.2) for a `method` request to `url`: `typ` `dpop+jwt`,
    /// the public `jwk`, a random `jti`, `htm`, `htu` (the URL without query and fragment),
    /// `iat`, `ath` (the access token's SHA-256) when a token is presented, and the server's
    /// `nonce` when it gave one.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &Url,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> String {
        let header = json!({"typ": "dpop+jwt", "alg": ALGORITHM, "jwk": self.0.jwk});
        let mut claims = json!({
            "jti": b64(rand::random::<[u8; 16]>()),
            "htm": method,
            "htu": htu(url),
            "iat": SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        });
        if let Some(token) = access_token {
            claims["ath"] = json!(b64(sha2::Sha256::digest(token.as_bytes())));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        let input = format!("{}.{}", b64(header.to_string()), b64(claims.to_string()));
        let signature: Signature = self.0.signing.sign(input.as_bytes());
        format!("{input}.{}", b64(signature.to_bytes()))
    }
}

/// `htu`: the request URL without its query and fragment (RFC 9449 §4.2).
fn htu(url: &Url) -> String {
    let mut url = url.clone();
    url.set_query(None);
    url.set_fragment(None);
    url.to_string()
}

/// The RFC 7638 SHA-256 thumbprint of a public JWK (EC, RSA or OKP): the required members
/// in lexicographic order, no whitespace, base64url of the digest. `None` for another key
/// type or a missing member.
pub(crate) fn jwk_thumbprint(jwk: &Value) -> Option<String> {
    let members: &[&str] = match jwk.get("kty")?.as_str()? {
        "EC" => &["crv", "kty", "x", "y"],
        "RSA" => &["e", "kty", "n"],
        "OKP" => &["crv", "kty", "x"],
        _ => return None,
    };
    let mut canonical = String::from("{");
    for (i, name) in members.iter().enumerate() {
        let value = jwk.get(*name)?.as_str()?;
        if i > 0 {
            canonical.push(',');
        }
        // Names and values as JSON strings (the serializer escapes what needs it).
        canonical.push_str(&Value::from(*name).to_string());
        canonical.push(':');
        canonical.push_str(&Value::from(value).to_string());
    }
    canonical.push('}');
    Some(b64(sha2::Sha256::digest(canonical.as_bytes())))
}

/// The longest nonce kept; a longer one is ignored.
const MAX_NONCE_LEN: usize = 1024;

/// The latest `DPoP-Nonce` each server (by origin) handed out.
#[derive(Debug, Default)]
pub(crate) struct Nonces(Mutex<HashMap<String, String>>);

impl Nonces {
    /// The nonce to put in the next proof for `url`.
    pub(crate) fn get(&self, url: &Url) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&url.origin().ascii_serialization())
            .cloned()
    }

    /// Records a nonce `url`'s server supplied (RFC 9449 §8, §9: the latest one replaces
    /// the last). One that is empty, too long or not printable ASCII is ignored.
    pub(crate) fn set(&self, url: &Url, nonce: &str) {
        let printable = nonce.bytes().all(|b| (0x21..=0x7e).contains(&b));
        if nonce.is_empty() || nonce.len() > MAX_NONCE_LEN || !printable {
            tracing::debug!("ignoring an unusable DPoP-Nonce");
            return;
        }
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(url.origin().ascii_serialization(), nonce.to_owned());
    }
}

/// DPoP for the token requests of one flow: the key and the nonces seen so far.
#[derive(Clone, Copy)]
pub(crate) struct Prover<'a> {
    pub(crate) key: &'a DpopKey,
    pub(crate) nonces: &'a Nonces,
}

impl Prover<'_> {
    /// A proof for a token request to `endpoint` (`POST`, no access token).
    pub(crate) fn token_request(&self, endpoint: &Url) -> String {
        let nonce = self.nonces.get(endpoint);
        self.key.proof("POST", endpoint, None, nonce.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use jsonwebtoken::{Algorithm, DecodingKey, Validation};

    use super::*;

    /// RFC 7638 §3.1: the thumbprint of the RFC 7517 Appendix A.1 RSA key.
    #[test]
    fn thumbprint_matches_the_rfc_7638_example() {
        let jwk = json!({
            "kty": "RSA",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
            "e": "AQAB",
            "alg": "RS256",
            "kid": "2011-04-29"
        });
        assert_eq!(
            jwk_thumbprint(&jwk).as_deref(),
            Some("NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        );
    }

    /// RFC 9449 §6.1: the `jkt` of the EC key of the proof examples (Figure 3 ff.).
    #[test]
    fn thumbprint_matches_the_rfc_9449_example() {
        let jwk = json!({
            "kty": "EC",
            "x": "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs",
            "y": "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA",
            "crv": "P-256"
        });
        assert_eq!(
            jwk_thumbprint(&jwk).as_deref(),
            Some("0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
        );
        assert_eq!(jwk_thumbprint(&json!({"kty": "oct", "k": "x"})), None);
        assert_eq!(jwk_thumbprint(&json!({"kty": "EC", "crv": "P-256"})), None);
    }

    fn decode_part(part: &str) -> Value {
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(part)
            .unwrap();
        serde_json::from_slice(&bytes).unwrap()
    }

    #[test]
    fn a_proof_verifies_with_its_own_public_key() {
        let key = DpopKey::generate();
        let url = Url::parse("https://rs.example.com:8443/mcp?x=1#frag").unwrap();
        let token = "an-access-token";
        let proof = key.proof("POST", &url, Some(token), Some("n-1"));
        let parts: Vec<&str> = proof.split('.').collect();
        assert_eq!(parts.len(), 3);
        let header = decode_part(parts[0]);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(&header["jwk"], key.public_jwk());
        assert!(header["jwk"].get("d").is_none(), "no private member");
        assert_eq!(jwk_thumbprint(&header["jwk"]).unwrap(), key.thumbprint());

        // jsonwebtoken verifies the signature with the JWK's coordinates.
        let jwk = key.public_jwk();
        let decoding =
            DecodingKey::from_ec_components(jwk["x"].as_str().unwrap(), jwk["y"].as_str().unwrap())
                .unwrap();
        let mut validation = Validation::new(Algorithm::ES256);
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        let claims = jsonwebtoken::decode::<Value>(&proof, &decoding, &validation)
            .expect("the proof verifies")
            .claims;
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://rs.example.com:8443/mcp");
        assert_eq!(claims["nonce"], "n-1");
        let ath = b64(sha2::Sha256::digest(token.as_bytes()));
        assert_eq!(claims["ath"], ath.as_str());
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        assert!(claims["iat"].as_u64().unwrap().abs_diff(now) < 5);
        assert!(claims["jti"].as_str().unwrap().len() >= 16);

        // Another key's coordinates do not verify it.
        let other = DpopKey::generate();
        let wrong = DecodingKey::from_ec_components(
            other.public_jwk()["x"].as_str().unwrap(),
            other.public_jwk()["y"].as_str().unwrap(),
        )
        .unwrap();
        assert!(jsonwebtoken::decode::<Value>(&proof, &wrong, &validation).is_err());
    }

    #[test]
    fn every_proof_is_fresh_and_token_requests_carry_no_ath() {
        let key = DpopKey::generate();
        let url = Url::parse("http://127.0.0.1:9/token").unwrap();
        let nonces = Nonces::default();
        let prover = Prover {
            key: &key,
            nonces: &nonces,
        };
        let first = decode_part(prover.token_request(&url).split('.').nth(1).unwrap());
        let second = decode_part(prover.token_request(&url).split('.').nth(1).unwrap());
        assert_ne!(first["jti"], second["jti"]);
        assert!(first.get("ath").is_none() && first.get("nonce").is_none());
        // A nonce from the server's origin goes into the next proof, not another origin's.
        nonces.set(&Url::parse("http://127.0.0.1:9/elsewhere").unwrap(), "abc");
        nonces.set(&Url::parse("http://127.0.0.1:10/token").unwrap(), "other");
        let third = decode_part(prover.token_request(&url).split('.').nth(1).unwrap());
        assert_eq!(third["nonce"], "abc");
        // Unusable nonces are ignored.
        for bad in ["", "with space", "ctl\u{7}", &"n".repeat(MAX_NONCE_LEN + 1)] {
            nonces.set(&url, bad);
            assert_eq!(nonces.get(&url).as_deref(), Some("abc"));
        }
    }

    #[test]
    fn keys_round_trip_through_pem_and_hide_in_debug() {
        let key = DpopKey::generate();
        let pem = key.to_pkcs8_pem();
        assert!(pem.starts_with("-----BEGIN PRIVATE KEY-----"));
        let again = DpopKey::from_pkcs8_pem(&pem).unwrap();
        assert_eq!(again, key);
        assert_ne!(DpopKey::generate(), key);
        let shown = format!("{key:?}");
        assert!(shown.contains(key.thumbprint()) && !shown.contains("PRIVATE"));
        assert!(matches!(
            DpopKey::from_pkcs8_pem("not a key"),
            Err(OAuthError::Config(_))
        ));
    }
}
