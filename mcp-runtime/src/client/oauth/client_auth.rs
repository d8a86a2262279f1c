//! How the client authenticates itself at the token endpoint ([`ClientAuth`]): below the
//! configuration, the token requests and the ID-JAG exchange, which all read it.

use super::error::OAuthError;
use crate::redact::Redacted;

/// How the client authenticates at the token endpoint. `Debug` shows the method (and the
/// algorithm of a `private_key_jwt` key), never the secret or the key.
#[derive(Clone)]
pub struct ClientAuth(pub(crate) AuthKind);

#[derive(Clone)]
pub(crate) enum AuthKind {
    None,
    Secret(String),
    Basic(String),
    Post(String),
    Jwt {
        key: jsonwebtoken::EncodingKey,
        alg: jsonwebtoken::Algorithm,
    },
}

impl std::fmt::Debug for ClientAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secret = match &self.0 {
            AuthKind::None => return f.write_str("ClientAuth::None"),
            AuthKind::Secret(_) => "ClientAuth::Secret",
            AuthKind::Basic(_) => "ClientAuth::ClientSecretBasic",
            AuthKind::Post(_) => "ClientAuth::ClientSecretPost",
            AuthKind::Jwt { alg, .. } => {
                return f
                    .debug_struct("ClientAuth::PrivateKeyJwt")
                    .field("alg", alg)
                    .field("key", &Redacted::HIDDEN)
                    .finish();
            }
        };
        f.debug_tuple(secret).field(&Redacted::HIDDEN).finish()
    }
}

impl ClientAuth {
    /// A public client (`none`: the `client_id` in the body).
    pub fn none() -> Self {
        Self(AuthKind::None)
    }

    /// A client secret, sent as `client_secret_basic` unless the authorization server
    /// supports only `client_secret_post`.
    pub fn client_secret(secret: impl Into<String>) -> Self {
        Self(AuthKind::Secret(secret.into()))
    }

    /// A client secret, always sent with HTTP Basic (`client_secret_basic`).
    pub fn client_secret_basic(secret: impl Into<String>) -> Self {
        Self(AuthKind::Basic(secret.into()))
    }

    /// A client secret, always sent in the body (`client_secret_post`).
    pub fn client_secret_post(secret: impl Into<String>) -> Self {
        Self(AuthKind::Post(secret.into()))
    }

    /// A signed JWT assertion (`private_key_jwt`, RFC 7523) with a PEM private key (PKCS#8
    /// EC for `ES256`/`ES384`, PKCS#1 or PKCS#8 RSA for `RS256`/`RS384`/`RS512`/`PS256`…).
    pub fn private_key_jwt(pem: &str, algorithm: &str) -> Result<Self, OAuthError> {
        use jsonwebtoken::{Algorithm, EncodingKey};
        let alg: Algorithm = algorithm
            .parse()
            .map_err(|_| OAuthError::Config(format!("unknown JWT algorithm {algorithm:?}")))?;
        let key = match alg {
            Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem.as_bytes()),
            Algorithm::EdDSA => EncodingKey::from_ed_pem(pem.as_bytes()),
            Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => {
                return Err(OAuthError::Config(
                    "private_key_jwt needs an asymmetric algorithm".into(),
                ));
            }
            _ => EncodingKey::from_rsa_pem(pem.as_bytes()),
        }
        .map_err(|e| OAuthError::Config(format!("invalid {algorithm} private key: {e}")))?;
        Ok(Self(AuthKind::Jwt { key, alg }))
    }
}
