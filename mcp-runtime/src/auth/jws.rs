//! Compact JWS access tokens, read as strictly as RFC 7515 and RFC 7519 require: the
//! protected header is parsed here (not by `jsonwebtoken`, whose header type refuses private
//! members that are not strings), a `crit` header is refused because this validator
//! understands no extension (RFC 7515 §4.1.11), the signature is checked with
//! `jsonwebtoken`'s crypto, and then the registered claims.

use std::str::FromStr as _;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::{Map, Value};

use super::AuthError;

/// Leeway for `exp` and `nbf`, in seconds.
pub(crate) const LEEWAY_SECS: u64 = 60;

/// A compact JWS whose header has been read; nothing is verified yet.
pub(crate) struct Jws<'a> {
    /// The signing algorithm the header names.
    pub(crate) alg: Algorithm,
    /// The key id the header names.
    pub(crate) kid: Option<String>,
    /// `header.payload`, the signed bytes.
    message: &'a str,
    payload: &'a str,
    signature: &'a str,
}

/// What the claims of a verified token must satisfy besides `exp` and `nbf`.
pub(crate) struct Expected<'a> {
    /// The issuer `iss` must equal; `None` accepts any (or none).
    pub(crate) issuer: Option<&'a str>,
    /// The audience `aud` must name; `None` ignores `aud`.
    pub(crate) audience: Option<&'a str>,
}

const MALFORMED: AuthError =
    AuthError::InvalidToken("Invalid token: unsupported or malformed header");

impl<'a> Jws<'a> {
    /// Reads the header of `token`: three base64url segments, the first a JSON object whose
    /// `alg` is a known algorithm and whose `kid`, when present, is a string. Any other
    /// member is ignored, whatever its type, except `crit`: a token that marks a header
    /// parameter critical is refused.
    pub(crate) fn parse(token: &'a str) -> Result<Self, AuthError> {
        let mut parts = token.split('.');
        let (Some(header), Some(payload), Some(signature), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(AuthError::InvalidToken("Invalid token"));
        };
        let bytes = URL_SAFE_NO_PAD.decode(header).map_err(|_| MALFORMED)?;
        let Ok(Value::Object(header_json)) = serde_json::from_slice::<Value>(&bytes) else {
            return Err(MALFORMED);
        };
        if header_json.contains_key("crit") {
            tracing::debug!("refusing a JWT with a critical header parameter");
            return Err(AuthError::InvalidToken(
                "Invalid token: unsupported critical header parameter",
            ));
        }
        let alg = header_json
            .get("alg")
            .and_then(Value::as_str)
            .and_then(|a| Algorithm::from_str(a).ok())
            .ok_or(MALFORMED)?;
        let kid = match header_json.get("kid") {
            None => None,
            Some(Value::String(k)) => Some(k.clone()),
            Some(_) => return Err(MALFORMED),
        };
        Ok(Self {
            alg,
            kid,
            message: &token[..header.len() + 1 + payload.len()],
            payload,
            signature,
        })
    }

    /// Checks the signature with `key`, then the claims: `exp` (required), `nbf`, and what
    /// `expected` asks for. Returns the claims.
    pub(crate) fn verify(
        &self,
        key: &DecodingKey,
        expected: &Expected<'_>,
    ) -> Result<Map<String, Value>, AuthError> {
        match jsonwebtoken::crypto::verify(self.signature, self.message.as_bytes(), key, self.alg) {
            Ok(true) => {}
            Ok(false) => return Err(AuthError::InvalidToken("Invalid token signature")),
            Err(e) => {
                tracing::debug!(error = %e, "refusing a JWT whose signature cannot be checked");
                return Err(AuthError::InvalidToken("Invalid token"));
            }
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(self.payload)
            .map_err(|_| AuthError::InvalidToken("Invalid token"))?;
        let Ok(Value::Object(claims)) = serde_json::from_slice::<Value>(&bytes) else {
            return Err(AuthError::InvalidToken("Invalid token"));
        };
        check_claims(&claims, expected, now())?;
        Ok(claims)
    }
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The registered claims at time `now`: `exp` required and not past (with
/// [`LEEWAY_SECS`]), `nbf` not in the future, `iss` and `aud` as `expected` says (each
/// required when expected).
fn check_claims(
    claims: &Map<String, Value>,
    expected: &Expected<'_>,
    now: u64,
) -> Result<(), AuthError> {
    let missing = AuthError::InvalidToken("Invalid token: a required claim is missing");
    let iss = claims.get("iss").and_then(Value::as_str);
    let aud = claims.get("aud");
    if !claims.contains_key("exp")
        || (expected.issuer.is_some() && iss.is_none())
        || (expected.audience.is_some() && aud.is_none())
    {
        return Err(missing);
    }
    // NumericDate: a JSON number of seconds, possibly fractional (RFC 7519 §2).
    let date = |name: &str| match claims.get(name) {
        None => Ok(None),
        Some(v) => v
            .as_f64()
            .filter(|d| d.is_finite())
            .map(Some)
            .ok_or(AuthError::InvalidToken("Invalid token")),
    };
    let (now, leeway) = (now as f64, LEEWAY_SECS as f64);
    if date("exp")?.is_some_and(|exp| exp < now - leeway) {
        return Err(AuthError::InvalidToken("Token has expired"));
    }
    if date("nbf")?.is_some_and(|nbf| nbf > now + leeway) {
        return Err(AuthError::InvalidToken("Token is not yet valid"));
    }
    if let Some(issuer) = expected.issuer
        && iss != Some(issuer)
    {
        return Err(AuthError::InvalidToken("Token issuer is not trusted"));
    }
    if let Some(audience) = expected.audience {
        let names = match aud {
            Some(Value::String(a)) => a == audience,
            Some(Value::Array(list)) => list.iter().any(|a| a.as_str() == Some(audience)),
            _ => false,
        };
        if !names {
            return Err(AuthError::InvalidToken(
                "Token was not issued for this resource",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn b64(v: &Value) -> String {
        URL_SAFE_NO_PAD.encode(v.to_string())
    }

    fn token(header: Value) -> String {
        format!("{}.{}.c2ln", b64(&header), b64(&json!({})))
    }

    fn refusal(token: &str) -> String {
        match Jws::parse(token) {
            Ok(_) => "accepted".into(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn headers_are_read_strictly_where_the_rfc_requires_it() {
        // Private members of any JSON type are ignored.
        let private = token(json!({"alg": "RS256", "kid": "k", "n": 1,
            "obj": {"a": [1, null]}, "flag": true, "none": null}));
        let jws = Jws::parse(&private).expect("readable");
        assert_eq!((jws.alg, jws.kid.as_deref()), (Algorithm::RS256, Some("k")));
        let plain = token(json!({"alg": "ES256"}));
        assert!(Jws::parse(&plain).is_ok_and(|j| j.kid.is_none()));
        // Any critical parameter, listed or not understood, or malformed.
        for crit in [
            json!(["exp"]),
            json!(["b64"]),
            json!([]),
            json!("b64"),
            json!(null),
        ] {
            assert_eq!(
                refusal(&token(
                    json!({"alg": "RS256", "crit": crit, "exp": 1, "b64": false})
                )),
                "Invalid token: unsupported critical header parameter"
            );
        }
        for bad in [
            token(json!({"alg": "none"})),
            token(json!({"alg": 256})),
            token(json!({"kid": "k"})),
            token(json!({"alg": "RS256", "kid": 7})),
            token(json!(["alg", "RS256"])),
            format!("{}.e30.c2ln", URL_SAFE_NO_PAD.encode("{")),
            "!!.e30.c2ln".into(),
        ] {
            assert_eq!(
                refusal(&bad),
                "Invalid token: unsupported or malformed header",
                "{bad}"
            );
        }
        for shape in ["a.b", "a.b.c.d", ""] {
            assert_eq!(refusal(shape), "Invalid token");
        }
    }

    #[test]
    fn registered_claims() {
        let strict = Expected {
            issuer: Some("https://as"),
            audience: Some("https://rs"),
        };
        let lax = Expected {
            issuer: None,
            audience: None,
        };
        let check = |claims: Value, expected: &Expected<'_>| {
            let claims = claims.as_object().cloned().unwrap_or_default();
            match check_claims(&claims, expected, 1_000_000) {
                Ok(()) => "ok".to_owned(),
                Err(e) => e.to_string(),
            }
        };
        let good = json!({"iss": "https://as", "aud": "https://rs", "exp": 1_000_100});
        assert_eq!(check(good.clone(), &strict), "ok");
        assert_eq!(
            check(
                json!({"iss": "https://as", "aud": ["x", "https://rs"], "exp": 1_000_000.5, "nbf": 1_000_030}),
                &strict
            ),
            "ok"
        );
        let missing = "Invalid token: a required claim is missing";
        assert_eq!(check(json!({"exp": 1_000_100}), &strict), missing);
        assert_eq!(
            check(json!({"aud": "https://rs", "exp": 1_000_100}), &strict),
            missing
        );
        assert_eq!(
            check(json!({"iss": "https://as", "exp": 1_000_100}), &strict),
            missing
        );
        assert_eq!(
            check(json!({"iss": "https://as", "aud": "https://rs"}), &strict),
            missing
        );
        assert_eq!(check(json!({}), &lax), missing);
        assert_eq!(check(json!({"exp": 1_000_100}), &lax), "ok");
        assert_eq!(check(json!({"exp": "soon"}), &lax), "Invalid token");
        assert_eq!(
            check(json!({"exp": 1_000_100, "nbf": "x"}), &lax),
            "Invalid token"
        );
        assert_eq!(check(json!({"exp": 999_939}), &lax), "Token has expired");
        assert_eq!(check(json!({"exp": 999_940}), &lax), "ok");
        assert_eq!(
            check(json!({"exp": 1_000_100, "nbf": 1_000_061}), &lax),
            "Token is not yet valid"
        );
        assert_eq!(
            check(
                json!({"iss": "https://evil", "aud": "https://rs", "exp": 1_000_100}),
                &strict
            ),
            "Token issuer is not trusted"
        );
        for aud in [
            json!("https://other"),
            json!(["https://other"]),
            json!(7),
            json!([]),
        ] {
            assert_eq!(
                check(
                    json!({"iss": "https://as", "aud": aud, "exp": 1_000_100}),
                    &strict
                ),
                "Token was not issued for this resource"
            );
        }
    }
}
