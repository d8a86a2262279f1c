//! RFC 7662 token introspection.

use serde_json::{Map, Value};

use super::AuthError;
use super::jws::LEEWAY_SECS;

/// Asks the introspection endpoint about `token`. An unreachable endpoint, an error status
/// or an unreadable answer is [`AuthError::Unavailable`] (503: the client keeps its token);
/// `active: false` is `invalid_token`. An active token's `iss` (when present) must be
/// `issuer`, its `aud` (when present) must contain `audience`, and it must not be expired.
pub(crate) async fn introspect(
    http: &reqwest::Client,
    url: &str,
    credentials: Option<(&str, &str)>,
    token: &str,
    issuer: &str,
    audience: &str,
) -> Result<Map<String, Value>, AuthError> {
    let unavailable = || AuthError::Unavailable("The token introspection endpoint is unavailable");
    let mut request = http
        .post(url)
        .header(http::header::ACCEPT, "application/json")
        .form(&[("token", token), ("token_type_hint", "access_token")]);
    if let Some((id, secret)) = credentials {
        request = request.basic_auth(id, Some(secret));
    }
    let response = request.send().await.map_err(|e| {
        tracing::warn!(endpoint = %url, error = %e, "token introspection failed");
        unavailable()
    })?;
    if !response.status().is_success() {
        tracing::warn!(endpoint = %url, status = %response.status(), "token introspection failed");
        return Err(unavailable());
    }
    let body: Value = response.json().await.map_err(|e| {
        tracing::warn!(endpoint = %url, error = %e, "unreadable token introspection answer");
        unavailable()
    })?;
    let Value::Object(claims) = body else {
        return Err(unavailable());
    };
    if claims.get("active") != Some(&Value::Bool(true)) {
        return Err(AuthError::InvalidToken("Token is not active"));
    }
    if claims
        .get("iss")
        .is_some_and(|i| i.as_str() != Some(issuer))
    {
        return Err(AuthError::InvalidToken("Token issuer is not trusted"));
    }
    if let Some(aud) = claims.get("aud") {
        let ok = match aud {
            Value::String(a) => a == audience,
            Value::Array(list) => list.iter().any(|a| a.as_str() == Some(audience)),
            _ => false,
        };
        if !ok {
            return Err(AuthError::InvalidToken(
                "Token was not issued for this resource",
            ));
        }
    }
    if let Some(exp) = claims.get("exp") {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        match exp.as_u64() {
            Some(exp) if exp + LEEWAY_SECS >= now => {}
            _ => return Err(AuthError::InvalidToken("Token has expired")),
        }
    }
    Ok(claims)
}
