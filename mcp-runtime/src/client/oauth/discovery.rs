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
    pub(crate) authorization_endpoint: Option<Url>,
    pub(crate) token_endpoint: Option<Url>,
    pub(crate) registration_endpoint: Option<Url>,
    pub(crate) scopes_supported: Option<Vec<String>>,
    pub(crate) auth_methods: Option<Vec<String>>,
    pub(crate) client_id_metadata_document_supported: bool,
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
}

/// What discovery found for one MCP server.
#[derive(Clone, Debug)]
pub(crate) struct Discovered {
    /// The `resource` parameter to send (the metadata's resource; none for 2025-03-26 servers).
    pub(crate) resource: Option<String>,
    /// The resource's `scopes_supported`.
    pub(crate) scopes_supported: Option<Vec<String>>,
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
    Ok(ServerMetadata {
        issuer: value
            .get("issuer")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        authorization_endpoint: optional_endpoint(value, "authorization_endpoint", url)?,
        token_endpoint: optional_endpoint(value, "token_endpoint", url)?,
        registration_endpoint: optional_endpoint(value, "registration_endpoint", url)?,
        scopes_supported: strings(value, "scopes_supported"),
        auth_methods: strings(value, "token_endpoint_auth_methods_supported"),
        client_id_metadata_document_supported: value
            .get("client_id_metadata_document_supported")
            .and_then(Value::as_bool)
            .unwrap_or(false),
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
    // RFC 8414 §3.3: the metadata must name the issuer it was fetched for; anything else
    // could send the client's credentials to another server.
    if !same_issuer(&metadata.issuer, &chosen) {
        return Err(OAuthError::UntrustedAuthorizationServer {
            issuer: metadata.issuer,
            reason: format!("the metadata fetched for {chosen} names another issuer"),
        });
    }
    Ok(Discovered {
        resource: Some(advertised.to_owned()),
        scopes_supported: strings(&prm, "scopes_supported"),
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
                server: parse_server_metadata(&doc, &url)?,
            });
        }
    }
    crate::client::oauth::http::check(&origin)?;
    Ok(Discovered {
        resource: None,
        scopes_supported: None,
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
}
