//! DPoP proofs (RFC 9449) for the tests of the server's DPoP support (`tests/dpop.rs`,
//! the DPoP theme of `tests/hostile.rs`): a client key that signs proofs with real crypto,
//! and its RFC 7638 thumbprint computed by `jsonwebtoken`'s own code (not the server's).

#![allow(dead_code)] // each test crate uses a different subset

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{Jwk, ThumbprintHash};
use jsonwebtoken::{Algorithm, EncodingKey};
use serde_json::{Value, json};
use sha2::Digest as _;

/// The well-behaved client's DPoP key (P-256, PKCS#8).
pub const EC2_PEM: &str = include_str!("../keys/ec2.pem");
/// Another client's DPoP key (P-256, PKCS#8).
pub const EC3_PEM: &str = include_str!("../keys/ec3.pem");
/// An Ed25519 DPoP key (PKCS#8).
pub const ED1_PEM: &str = include_str!("../keys/ed1.pem");
/// The public key of [`ED1_PEM`] (`openssl pkey -in ed1.pem -pubout -outform DER | tail -c 32`,
/// base64url): `jsonwebtoken` cannot derive it.
const ED1_X: &str = "geEK5ArhjVOYkghusq2rFEulEKeK9eJtQft5B2uEQSw";

/// A client's proof-of-possession key.
#[derive(Clone)]
pub struct ProofKey {
    alg: Algorithm,
    key: EncodingKey,
    jwk: Value,
}

impl ProofKey {
    /// An ES256 key from a PKCS#8 PEM.
    pub fn es256(pem: &str) -> Self {
        let key = EncodingKey::from_ec_pem(pem.as_bytes()).expect("a P-256 test key");
        Self::with_jwk(Algorithm::ES256, key)
    }

    /// An RS256 key from a PKCS#1 PEM.
    pub fn rs256(pem: &str) -> Self {
        let key = EncodingKey::from_rsa_pem(pem.as_bytes()).expect("an RSA test key");
        Self::with_jwk(Algorithm::RS256, key)
    }

    /// The EdDSA key of [`ED1_PEM`].
    pub fn ed25519() -> Self {
        Self {
            alg: Algorithm::EdDSA,
            key: EncodingKey::from_ed_pem(ED1_PEM.as_bytes()).expect("an Ed25519 test key"),
            jwk: json!({"kty": "OKP", "crv": "Ed25519", "x": ED1_X}),
        }
    }

    fn with_jwk(alg: Algorithm, key: EncodingKey) -> Self {
        let jwk = Jwk::from_encoding_key(&key, alg).expect("a public JWK");
        let mut jwk = serde_json::to_value(jwk).expect("a JWK serializes");
        if let Some(jwk) = jwk.as_object_mut() {
            jwk.remove("alg");
        }
        Self { alg, key, jwk }
    }

    /// The public JWK a proof carries.
    pub fn jwk(&self) -> &Value {
        &self.jwk
    }

    /// The RFC 7638 SHA-256 thumbprint (the `cnf.jkt` of tokens bound to this key).
    pub fn jkt(&self) -> String {
        if self.alg == Algorithm::EdDSA {
            let canonical = format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{ED1_X}"}}"#);
            return URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(canonical.as_bytes()));
        }
        let jwk: Jwk = serde_json::from_value(self.jwk.clone()).expect("a JWK");
        jwk.thumbprint(ThumbprintHash::SHA256)
    }

    /// A good proof for `method` `htu` with `token`: a fresh `jti`, `iat` now.
    pub fn proof(&self, method: &str, htu: &str, token: &str) -> String {
        self.proof_with(method, htu, token, json!({}), json!({}))
    }

    /// A good proof with `nonce`.
    pub fn proof_with_nonce(&self, method: &str, htu: &str, token: &str, nonce: &str) -> String {
        self.proof_with(method, htu, token, json!({}), json!({"nonce": nonce}))
    }

    /// A proof whose header and claims are a good proof's with the members of `header`
    /// and `claims` set (or removed, for `null`).
    pub fn proof_with(
        &self,
        method: &str,
        htu: &str,
        token: &str,
        header: Value,
        claims: Value,
    ) -> String {
        let mut h = json!({"typ": "dpop+jwt", "alg": self.alg, "jwk": self.jwk});
        merge(&mut h, header);
        let mut c = json!({
            "jti": uuid::Uuid::new_v4().to_string(),
            "htm": method,
            "htu": htu,
            "iat": mcp_examples::authz::now(),
            "ath": ath(token),
        });
        merge(&mut c, claims);
        self.sign_raw(&h, &c)
    }

    /// `header` and `claims` signed as they are.
    pub fn sign_raw(&self, header: &Value, claims: &Value) -> String {
        let message = format!("{}.{}", b64(header), b64(claims));
        let signature = jsonwebtoken::crypto::sign(message.as_bytes(), &self.key, self.alg)
            .expect("signing works");
        format!("{message}.{signature}")
    }
}

/// `ath`: the base64url SHA-256 of an access token.
pub fn ath(token: &str) -> String {
    URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(token.as_bytes()))
}

/// A value as base64url JSON.
pub fn b64(value: &Value) -> String {
    URL_SAFE_NO_PAD.encode(value.to_string())
}

/// Sets (or, for `null`, removes) each member of `extra` in `target`.
fn merge(target: &mut Value, extra: Value) {
    let (Some(target), Value::Object(extra)) = (target.as_object_mut(), extra) else {
        return;
    };
    for (k, v) in extra {
        if v.is_null() {
            target.remove(&k);
        } else {
            target.insert(k, v);
        }
    }
}
