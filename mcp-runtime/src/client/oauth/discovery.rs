//! Discovery: the protected resource metadata (RFC 9728) from the challenge's
//! `resource_metadata` or the well-known URLs (path-aware, then root), the resource check,
//! then the authorization server metadata (RFC 8414 and OpenID discovery, in the order of
//! the MCP specification), with the 2025-03-26 fallbacks when the server has no resource
//! metadata.

use reqwest::Url;
use serde_json::Value;

use super::error::{OAuthError, shown};
use super::http::{OAuthHttp, endpoint};
use crate::client::AuthChallenge;

/// The authorization server's metadata, as far as the flows need it.
#[derive(Clone, Debug, Default)]
pub(crate) struct ServerMetadata {
    pub(crate) issuer: String,
    /// Whether `issuer` comes from a metadata document (not synthesized for a 2025-03-26
    /// server without one): only then can an authorization response's `iss` be checked.
    pub(crate) issuer_recorded: bool,
    /// RFC 9207 `authorization_response_iss_parameter_supported`: every authorization
    /// response must then carry `iss`.
    pub(crate) iss_parameter_supported: bool,
    pub(crate) authorization_endpoint: Option<Url>,
    pub(crate) token_endpoint: Option<Url>,
    pub(crate) registration_endpoint: Option<Url>,
    pub(crate) scopes_supported: Option<Vec<String>>,
    pub(crate) auth_methods: Option<Vec<String>>,
    pub(crate) client_id_metadata_document_supported: bool,
    /// RFC 9449 §5.1 `dpop_signing_alg_values_supported`: the server accepts DPoP proofs
    /// signed with these.
    pub(crate) dpop_algs: Option<Vec<String>>,
}

impl ServerMetadata {
    /// Whether the server lists `method` (an absent list means `client_secret_basic`).
    pub(crate) fn supports_auth_method(&self, method: &str) -> bool {
        match &self.auth_methods {
            Some(methods) => methods.iter().any(|m| m == method),
            None => method == "client_secret_basic",
        }
    }

    /// The token endpoint (required by every grant).
    pub(crate) fn token_endpoint(&self) -> Result<&Url, OAuthError> {
        self.token_endpoint
            .as_ref()
            .ok_or_else(|| OAuthError::invalid(&self.issuer, "the metadata has no token_endpoint"))
    }

    /// RFC 9207 §2.4: checks the `iss` of an authorization response (success or error)
    /// before anything else in it is used. A present `iss` must equal the recorded issuer
    /// by simple string comparison (no normalization: a trailing slash differs), whatever
    /// the metadata advertises; when the metadata advertises
    /// `authorization_response_iss_parameter_supported`, a missing `iss` is refused too.
    pub(crate) fn check_response_issuer(&self, iss: Option<&str>) -> Result<(), OAuthError> {
        match iss {
            Some(iss) if self.issuer_recorded && iss != self.issuer => {
                Err(OAuthError::IssuerMismatch {
                    expected: shown(&self.issuer),
                    received: shown(iss),
                })
            }
            None if self.iss_parameter_supported => Err(OAuthError::IssuerMissing {
                issuer: shown(&self.issuer),
            }),
            _ => Ok(()),
        }
    }
}

/// What discovery found for one MCP server.
#[derive(Clone, Debug)]
pub(crate) struct Discovered {
    /// The `resource` parameter to send (the metadata's resource; none for 2025-03-26 servers).
    pub(crate) resource: Option<String>,
    /// The resource's `scopes_supported`.
    pub(crate) scopes_supported: Option<Vec<String>>,
    /// The resource's `dpop_bound_access_tokens_required` (RFC 9728).
    pub(crate) dpop_required: bool,
    /// The chosen authorization server.
    pub(crate) server: ServerMetadata,
}

fn strings(value: &Value, key: &str) -> Option<Vec<String>> {
    value.get(key)?.as_array().map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    })
}

fn optional_endpoint(value: &Value, key: &str, url: &Url) -> Result<Option<Url>, OAuthError> {
    match value.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => endpoint(s).map(Some),
        Some(_) => Err(OAuthError::invalid(
            url.as_str(),
            format!("{key} is not a string"),
        )),
    }
}

/// Reads authorization server metadata fetched from `url`.
fn parse_server_metadata(value: &Value, url: &Url) -> Result<ServerMetadata, OAuthError> {
    if !value.is_object() {
        return Err(OAuthError::invalid(
            url.as_str(),
            "the metadata is not a JSON object",
        ));
    }
    let issuer = value.get("issuer").and_then(Value::as_str);
    Ok(ServerMetadata {
        issuer: issuer.unwrap_or_default().to_owned(),
        issuer_recorded: issuer.is_some_and(|i| !i.is_empty()),
        iss_parameter_supported: value
            .get("authorization_response_iss_parameter_supported")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        authorization_endpoint: optional_endpoint(value, "authorization_endpoint", url)?,
        token_endpoint: optional_endpoint(value, "token_endpoint", url)?,
        registration_endpoint: optional_endpoint(value, "registration_endpoint", url)?,
        scopes_supported: strings(value, "scopes_supported"),
        auth_methods: strings(value, "token_endpoint_auth_methods_supported"),
        client_id_metadata_document_supported: value
            .get("client_id_metadata_document_supported")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        dpop_algs: strings(value, "dpop_signing_alg_values_supported"),
    })
}

/// `origin` + `path` (for well-known URLs).
fn at(base: &Url, path: &str) -> Url {
    let mut url = base.clone();
    url.set_path(path);
    url.set_query(None);
    url.set_fragment(None);
    url
}

fn trimmed_path(url: &Url) -> &str {
    url.path().trim_end_matches('/')
}

/// The well-known URLs of the protected resource metadata: path-aware first, then root.
pub(crate) fn resource_metadata_urls(server: &Url) -> Vec<Url> {
    let path = trimmed_path(server);
    let mut urls = Vec::new();
    if !path.is_empty() {
        urls.push(at(
            server,
            &format!("/.well-known/oauth-protected-resource{path}"),
        ));
    }
    urls.push(at(server, "/.well-known/oauth-protected-resource"));
    urls
}

/// The metadata URLs of an issuer, in the MCP specification's order: RFC 8414 with the
/// path inserted, OpenID discovery with the path inserted, OpenID with the path appended
/// (or, without a path, RFC 8414 then OpenID at the root).
pub(crate) fn server_metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = trimmed_path(issuer);
    if path.is_empty() {
        vec![
            at(issuer, "/.well-known/oauth-authorization-server"),
            at(issuer, "/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            at(
                issuer,
                &format!("/.well-known/oauth-authorization-server{path}"),
            ),
            at(issuer, &format!("/.well-known/openid-configuration{path}")),
            at(issuer, &format!("{path}/.well-known/openid-configuration")),
        ]
    }
}

/// Whether the metadata's `resource` covers the MCP server: same scheme, host and port,
/// and a path that is the server's or one of its parents (segment-wise).
pub(crate) fn resource_matches(server: &Url, advertised: &str) -> bool {
    let Ok(advertised) = Url::parse(advertised) else {
        return false;
    };
    if advertised.fragment().is_some()
        || server.scheme() != advertised.scheme()
        || server.host_str().map(str::to_ascii_lowercase)
            != advertised.host_str().map(str::to_ascii_lowercase)
        || server.port_or_known_default() != advertised.port_or_known_default()
    {
        return false;
    }
    let want = trimmed_path(&advertised);
    let have = trimmed_path(server);
    have == want || have.starts_with(&format!("{want}/"))
}

fn same_issuer(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

/// RFC 8414 §3.3: the metadata fetched for `chosen` must name `chosen` as its issuer,
/// identically (no normalization: a trailing slash differs); anything else could send the
/// client's credentials, and its authorization responses' `iss` checks, to another server.
fn check_metadata_issuer(metadata: &ServerMetadata, chosen: &str) -> Result<(), OAuthError> {
    if metadata.issuer == chosen {
        return Ok(());
    }
    Err(OAuthError::UntrustedAuthorizationServer {
        issuer: shown(&metadata.issuer),
        reason: format!(
            "the metadata fetched for {} names another issuer",
            shown(chosen)
        ),
    })
}

/// Runs discovery for `server`. `issuer` is the pre-registered client's authorization
/// server, which the resource must list.
pub(crate) async fn discover(
    http: &OAuthHttp,
    server: &Url,
    challenge: Option<&AuthChallenge>,
    issuer: Option<&str>,
) -> Result<Discovered, OAuthError> {
    let candidates = match challenge.and_then(AuthChallenge::resource_metadata) {
        Some(url) => vec![endpoint(url)?],
        None => resource_metadata_urls(server),
    };
    let mut prm = None;
    for url in &candidates {
        if let Some(doc) = http.get_metadata(url).await? {
            prm = Some((url.clone(), doc));
            break;
        }
    }
    let Some((prm_url, prm)) = prm else {
        return legacy(http, server).await;
    };
    let advertised = prm
        .get("resource")
        .and_then(Value::as_str)
        .ok_or_else(|| OAuthError::invalid(prm_url.as_str(), "the metadata has no resource"))?;
    if !resource_matches(server, advertised) {
        return Err(OAuthError::ResourceMismatch {
            server: shown(server.as_str()),
            advertised: shown(advertised),
        });
    }
    let listed = strings(&prm, "authorization_servers").unwrap_or_default();
    let chosen = match issuer {
        Some(issuer) => listed
            .iter()
            .find(|l| same_issuer(l, issuer))
            .cloned()
            .ok_or_else(|| OAuthError::UntrustedAuthorizationServer {
                issuer: issuer.to_owned(),
                reason: "the resource does not list it in authorization_servers".into(),
            })?,
        None => listed
            .first()
            .cloned()
            .ok_or_else(|| OAuthError::Discovery {
                resource: shown(server.as_str()),
                reason: format!("{prm_url} lists no authorization_servers"),
            })?,
    };
    let issuer_url = endpoint(&chosen)?;
    let mut metadata = None;
    for url in server_metadata_urls(&issuer_url) {
        if let Some(doc) = http.get_metadata(&url).await? {
            metadata = Some(parse_server_metadata(&doc, &url)?);
            break;
        }
    }
    let metadata = metadata.ok_or_else(|| OAuthError::Discovery {
        resource: shown(server.as_str()),
        reason: format!("no metadata found for the authorization server {chosen}"),
    })?;
    check_metadata_issuer(&metadata, &chosen)?;
    Ok(Discovered {
        resource: Some(advertised.to_owned()),
        scopes_supported: strings(&prm, "scopes_supported"),
        dpop_required: prm
            .get("dpop_bound_access_tokens_required")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        server: metadata,
    })
}

/// MCP 2025-03-26: the authorization server is the MCP server's origin; its metadata is
/// at the root, and without metadata the endpoints are `/authorize`, `/token` and
/// `/register`.
async fn legacy(http: &OAuthHttp, server: &Url) -> Result<Discovered, OAuthError> {
    let origin = at(server, "/");
    for url in server_metadata_urls(&origin) {
        if let Some(doc) = http.get_metadata(&url).await? {
            return Ok(Discovered {
                resource: None,
                scopes_supported: None,
                dpop_required: false,
                server: parse_server_metadata(&doc, &url)?,
            });
        }
    }
    crate::client::oauth::http::check(&origin)?;
    Ok(Discovered {
        resource: None,
        scopes_supported: None,
        dpop_required: false,
        server: ServerMetadata {
            issuer: origin.as_str().trim_end_matches('/').to_owned(),
            authorization_endpoint: Some(at(&origin, "/authorize")),
            token_endpoint: Some(at(&origin, "/token")),
            registration_endpoint: Some(at(&origin, "/register")),
            ..ServerMetadata::default()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn well_known_orders() {
        let prm: Vec<String> = resource_metadata_urls(&url("https://h.example/mcp"))
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            prm,
            [
                "https://h.example/.well-known/oauth-protected-resource/mcp",
                "https://h.example/.well-known/oauth-protected-resource"
            ]
        );
        let asm: Vec<String> = server_metadata_urls(&url("https://as.example/tenant1"))
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            asm,
            [
                "https://as.example/.well-known/oauth-authorization-server/tenant1",
                "https://as.example/.well-known/openid-configuration/tenant1",
                "https://as.example/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(server_metadata_urls(&url("https://as.example")).len(), 2);
    }

    #[test]
    fn resource_matching() {
        let server = url("https://h.example/mcp");
        assert!(resource_matches(&server, "https://h.example/mcp"));
        assert!(resource_matches(&server, "https://h.example/mcp/"));
        assert!(resource_matches(&server, "https://h.example"));
        assert!(resource_matches(&server, "https://H.example:443/"));
        assert!(!resource_matches(&server, "https://evil.example.com/mcp"));
        assert!(!resource_matches(&server, "http://h.example/mcp"));
        assert!(!resource_matches(&server, "https://h.example/mc"));
        assert!(!resource_matches(&server, "https://h.example/mcp/other"));
        assert!(!resource_matches(&server, "https://h.example/mcp#x"));
        assert!(!resource_matches(&server, "not a url"));
    }

    fn metadata(doc: Value) -> ServerMetadata {
        parse_server_metadata(&doc, &url("https://as.example/.well-known/x")).unwrap()
    }

    fn issuer_error(server: &ServerMetadata, iss: Option<&str>) -> Option<String> {
        server
            .check_response_issuer(iss)
            .err()
            .map(|e| e.to_string())
    }

    #[test]
    fn response_issuer_rules() {
        const AS: &str = "https://as.example/tenant";
        let supported = metadata(serde_json::json!({
            "issuer": AS, "authorization_response_iss_parameter_supported": true,
        }));
        assert!(supported.iss_parameter_supported);
        // Advertised: a matching iss passes; a missing, wrong or normalized one does not.
        assert!(supported.check_response_issuer(Some(AS)).is_ok());
        assert!(matches!(
            supported.check_response_issuer(None),
            Err(OAuthError::IssuerMissing { issuer }) if issuer == AS
        ));
        assert!(matches!(
            supported.check_response_issuer(Some("https://evil.example.com")),
            Err(OAuthError::IssuerMismatch { expected, received })
                if expected == AS && received == "https://evil.example.com"
        ));
        for variant in [
            "https://as.example/tenant/",
            "HTTPS://as.example/tenant",
            "https://AS.example/tenant",
            "https://as.example:443/tenant",
            "https://as.example/%74enant",
            "",
        ] {
            assert!(
                matches!(
                    supported.check_response_issuer(Some(variant)),
                    Err(OAuthError::IssuerMismatch { .. })
                ),
                "{variant:?} must not match {AS}"
            );
        }
        // Not advertised (absent or false): an absent iss passes, a present one is compared.
        for doc in [
            serde_json::json!({"issuer": AS}),
            serde_json::json!({"issuer": AS, "authorization_response_iss_parameter_supported": false}),
        ] {
            let plain = metadata(doc);
            assert!(!plain.iss_parameter_supported);
            assert!(plain.check_response_issuer(None).is_ok());
            assert!(plain.check_response_issuer(Some(AS)).is_ok());
            assert!(matches!(
                plain.check_response_issuer(Some("https://evil.example.com")),
                Err(OAuthError::IssuerMismatch { .. })
            ));
            assert!(issuer_error(&plain, Some("https://as.example/tenant/")).is_some());
        }
        // A 2025-03-26 server without metadata has no recorded issuer to compare with.
        let synthesized = ServerMetadata {
            issuer: "https://as.example".into(),
            ..ServerMetadata::default()
        };
        assert!(synthesized.check_response_issuer(None).is_ok());
        assert!(
            synthesized
                .check_response_issuer(Some("https://other.example"))
                .is_ok()
        );
        // The message names both issuers.
        let message = issuer_error(&supported, Some("https://evil.example.com")).unwrap();
        assert!(
            message.contains(AS) && message.contains("evil.example.com"),
            "{message}"
        );
    }

    #[test]
    fn metadata_issuer_must_be_identical() {
        const AS: &str = "https://as.example/tenant";
        assert!(check_metadata_issuer(&metadata(serde_json::json!({"issuer": AS})), AS).is_ok());
        for other in [
            "https://attacker.example.com",
            "https://as.example/tenant/",
            "https://AS.example/tenant",
            "",
        ] {
            let found = metadata(serde_json::json!({"issuer": other}));
            assert!(
                matches!(
                    check_metadata_issuer(&found, AS),
                    Err(OAuthError::UntrustedAuthorizationServer { issuer, .. }) if issuer == other
                ),
                "{other:?}"
            );
        }
        // No issuer at all.
        let missing = metadata(serde_json::json!({"token_endpoint": "https://as.example/t"}));
        assert!(check_metadata_issuer(&missing, AS).is_err());
    }
}
