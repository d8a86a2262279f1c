//! The HTTP side of the OAuth flows: JSON documents fetched and forms posted with the
//! client's timeout and a size limit, redirects followed only to HTTPS (or loopback), and
//! every endpoint checked before anything is sent to it.

use std::time::Duration;

use reqwest::{Method, StatusCode, Url};
use serde_json::Value;

use super::error::{OAuthError, shown};
use crate::client::auth::{DPOP, DPOP_NONCE};

/// The largest OAuth document read (metadata, registration, token responses).
const MAX_DOCUMENT_BYTES: usize = 1 << 20;
/// How many redirects a metadata fetch follows.
const MAX_REDIRECTS: usize = 3;

/// Whether `url` is on a loopback host (`localhost`, `127.0.0.0/8`, `::1`).
pub(crate) fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Parses an endpoint URL, refusing anything but HTTPS, or HTTP on loopback.
pub(crate) fn endpoint(url: &str) -> Result<Url, OAuthError> {
    let parsed =
        Url::parse(url).map_err(|e| OAuthError::invalid(url, format!("not a URL: {e}")))?;
    check(&parsed)?;
    Ok(parsed)
}

/// Refuses a URL that is neither HTTPS nor HTTP on loopback.
pub(crate) fn check(url: &Url) -> Result<(), OAuthError> {
    match url.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(url) => Ok(()),
        _ => Err(OAuthError::InsecureEndpoint {
            url: shown(url.as_str()),
        }),
    }
}

/// An answer: its status and JSON body (`None` when the body is not JSON).
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) json: Option<Value>,
    pub(crate) content_type: String,
    /// The `DPoP-Nonce` header (RFC 9449 §8), if any.
    pub(crate) dpop_nonce: Option<String>,
}

/// The HTTP client of the OAuth flows.
#[derive(Clone, Debug)]
pub(crate) struct OAuthHttp {
    client: reqwest::Client,
    timeout: Duration,
}

impl OAuthHttp {
    /// Uses `client` (which must not follow redirects) with `timeout` per exchange.
    pub(crate) fn new(client: reqwest::Client, timeout: Duration) -> Self {
        Self { client, timeout }
    }

    /// A client of its own (no redirects, rustls, `timeout` per exchange).
    pub(crate) fn standalone(timeout: Duration) -> Result<Self, OAuthError> {
        let client = reqwest::Client::builder()
            .use_rustls_tls()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(timeout)
            .build()
            .map_err(|e| OAuthError::Config(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self::new(client, timeout))
    }

    /// Fetches a metadata document: `Ok(None)` when the server has none there (a 4xx),
    /// the JSON otherwise. Redirects are followed (at most 3) to HTTPS or loopback only.
    pub(crate) async fn get_metadata(&self, url: &Url) -> Result<Option<Value>, OAuthError> {
        let mut url = url.clone();
        for _ in 0..=MAX_REDIRECTS {
            check(&url)?;
            let request = self
                .client
                .request(Method::GET, url.clone())
                .header(http::header::ACCEPT, "application/json");
            let response = self.send(&url, request).await?;
            let status = response.status();
            if status.is_redirection() {
                let location = response
                    .headers()
                    .get(http::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|l| url.join(l).ok())
                    .ok_or_else(|| {
                        OAuthError::invalid(url.as_str(), "a redirect without a usable Location")
                    })?;
                url = location;
                continue;
            }
            if status.is_client_error() {
                return Ok(None);
            }
            let answer = self.read(&url, response).await?;
            return match (answer.status, answer.json) {
                (200, Some(json)) => Ok(Some(json)),
                (200, None) => Err(OAuthError::NotJson {
                    url: shown(url.as_str()),
                    status: 200,
                    content_type: answer.content_type,
                }),
                (status, _) => Err(OAuthError::Status {
                    url: shown(url.as_str()),
                    status,
                }),
            };
        }
        Err(OAuthError::invalid(url.as_str(), "too many redirects"))
    }

    /// Posts a form, with HTTP Basic client authentication when `basic` is given and a
    /// `DPoP` proof header when `dpop` is.
    pub(crate) async fn post_form(
        &self,
        url: &Url,
        form: &[(&str, &str)],
        basic: Option<(&str, &str)>,
        dpop: Option<&str>,
    ) -> Result<Answer, OAuthError> {
        check(url)?;
        let body = serde_urlencoded(form);
        let mut request = self
            .client
            .request(Method::POST, url.clone())
            .header(
                http::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .header(http::header::ACCEPT, "application/json")
            .body(body);
        if let Some((id, secret)) = basic {
            // RFC 6749 §2.3.1: both halves are form-urlencoded before Base64.
            use base64::Engine as _;
            let pair = format!("{}:{}", form_encode(id), form_encode(secret));
            let value = base64::engine::general_purpose::STANDARD.encode(pair);
            let mut value =
                http::HeaderValue::try_from(format!("Basic {value}")).map_err(|_| {
                    OAuthError::Config("the client credentials are not a valid header".into())
                })?;
            value.set_sensitive(true);
            request = request.header(http::header::AUTHORIZATION, value);
        }
        if let Some(proof) = dpop {
            request = request.header(DPOP, proof);
        }
        let response = self.send(url, request).await?;
        self.read(url, response).await
    }

    /// Posts a JSON document.
    pub(crate) async fn post_json(&self, url: &Url, body: &Value) -> Result<Answer, OAuthError> {
        check(url)?;
        let request = self
            .client
            .request(Method::POST, url.clone())
            .header(http::header::CONTENT_TYPE, "application/json")
            .header(http::header::ACCEPT, "application/json")
            .body(body.to_string());
        let response = self.send(url, request).await?;
        self.read(url, response).await
    }

    async fn send(
        &self,
        url: &Url,
        request: reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, OAuthError> {
        match tokio::time::timeout(self.timeout, request.send()).await {
            Err(_) => Err(OAuthError::timeout(url.as_str())),
            Ok(Err(source)) => Err(OAuthError::http(url.as_str(), source)),
            Ok(Ok(response)) => Ok(response),
        }
    }

    async fn read(&self, url: &Url, mut response: reqwest::Response) -> Result<Answer, OAuthError> {
        let status = response.status();
        let content_type = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let dpop_nonce = response
            .headers()
            .get(DPOP_NONCE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let mut body = Vec::new();
        let read = async {
            while let Some(chunk) = response.chunk().await? {
                if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
                    return Ok::<bool, reqwest::Error>(false);
                }
                body.extend_from_slice(&chunk);
            }
            Ok(true)
        };
        match tokio::time::timeout(self.timeout, read).await {
            Err(_) => return Err(OAuthError::timeout(url.as_str())),
            Ok(Err(source)) => return Err(OAuthError::http(url.as_str(), source)),
            Ok(Ok(false)) => {
                return Err(OAuthError::invalid(
                    url.as_str(),
                    format!("the body exceeds {MAX_DOCUMENT_BYTES} bytes"),
                ));
            }
            Ok(Ok(true)) => {}
        }
        let is_json = content_type
            .split(';')
            .next()
            .is_some_and(|t| t.trim().to_ascii_lowercase().ends_with("json"));
        let json = if is_json {
            serde_json::from_slice(&body).ok()
        } else {
            None
        };
        Ok(Answer {
            status: status_code(status),
            json,
            content_type,
            dpop_nonce,
        })
    }
}

fn status_code(status: StatusCode) -> u16 {
    status.as_u16()
}

/// `application/x-www-form-urlencoded` encoding of one value.
pub(crate) fn form_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(b as char);
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn serde_urlencoded(form: &[(&str, &str)]) -> String {
    form.iter()
        .map(|(k, v)| format!("{}={}", form_encode(k), form_encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_loopback_endpoints_pass() {
        assert!(endpoint("https://as.example.com/token").is_ok());
        assert!(endpoint("http://127.0.0.1:9/token").is_ok());
        assert!(endpoint("http://localhost:9/token").is_ok());
        assert!(endpoint("http://[::1]:9/token").is_ok());
        assert!(matches!(
            endpoint("http://as.example.com/token"),
            Err(OAuthError::InsecureEndpoint { .. })
        ));
        assert!(matches!(
            endpoint("ftp://127.0.0.1/token"),
            Err(OAuthError::InsecureEndpoint { .. })
        ));
        assert!(matches!(
            endpoint("not a url"),
            Err(OAuthError::InvalidResponse { .. })
        ));
    }

    #[test]
    fn form_encoding() {
        assert_eq!(form_encode("a b&c=d:é"), "a+b%26c%3Dd%3A%C3%A9");
        assert_eq!(serde_urlencoded(&[("x", "1"), ("y z", "/")]), "x=1&y+z=%2F");
    }
}
