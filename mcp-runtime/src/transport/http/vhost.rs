//! Virtual hosts: several services on one listener, chosen by the request's host, each with
//! its own routes, configuration and (for OAuth-protected services) its own protected
//! resource metadata document, so the same path can be used on different hosts.

use axum::Router;
use axum::body::Body;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, Request, StatusCode, Uri, header};
use tower::ServiceExt as _;

/// Routers chosen by host.
///
/// ```
/// # struct Svc;
/// # #[mcp::service(name = "svc", version = "1.0.0")]
/// # impl Svc { pub fn ping(&self) -> String { "pong".into() } }
/// use mcp::transport::http::{VirtualHosts, router};
/// let a = mcp::Server::builder(Svc).build().unwrap();
/// let b = mcp::Server::builder(Svc).build().unwrap();
/// let app: axum::Router = VirtualHosts::new()
///     .host("a.example.com", router("/mcp", a))
///     .host("b.example.com", router("/mcp", b))
///     .into_router();
/// ```
#[derive(Clone, Default)]
pub struct VirtualHosts {
    hosts: Vec<(String, Router)>,
    fallback: Option<Router>,
}

impl std::fmt::Debug for VirtualHosts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hosts: Vec<_> = self.hosts.iter().map(|(h, _)| h.as_str()).collect();
        f.debug_struct("VirtualHosts")
            .field("hosts", &hosts)
            .finish_non_exhaustive()
    }
}

impl VirtualHosts {
    /// No hosts yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Serves `router` for requests to `host` (a host name, compared case-insensitively and
    /// without the port). Requests routed this way pass the services' `Host` check (the
    /// application chose the name); those of the fallback do not.
    pub fn host(mut self, host: &str, router: Router) -> Self {
        self.hosts.push((host.to_ascii_lowercase(), router));
        self
    }

    /// Serves `router` for requests to any other host (default: 404).
    pub fn fallback(mut self, router: Router) -> Self {
        self.fallback = Some(router);
        self
    }

    /// One router dispatching by host.
    pub fn into_router(self) -> Router {
        Router::new().fallback(move |mut request: Request<Body>| {
            let listed = host_of(request.headers(), request.uri()).and_then(|h| {
                self.hosts
                    .iter()
                    .find(|(name, _)| *name == h)
                    .map(|(_, r)| r.clone())
            });
            if listed.is_some() {
                // A host the application listed passes the services' `Host` check.
                request.extensions_mut().insert(super::ListedHost);
            }
            let chosen = listed.or_else(|| self.fallback.clone());
            async move {
                match chosen {
                    Some(router) => match router.oneshot(request).await {
                        Ok(response) => response,
                        Err(never) => match never {},
                    },
                    None => unknown_host(),
                }
            }
        })
    }
}

fn unknown_host() -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/plain")],
        "unknown host",
    )
        .into_response()
}

/// The request's host, lowercase, without the port: the `Host` header (HTTP/1.1) or the
/// URI's authority (HTTP/2).
fn host_of(headers: &HeaderMap, uri: &Uri) -> Option<String> {
    let raw = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| uri.host())?;
    let host = if raw.starts_with('[') {
        raw.split(']').next().map(|h| format!("{h}]"))?
    } else {
        raw.split(':').next()?.to_owned()
    };
    Some(host.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_read_without_port_and_case() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, "API.Example.com:8443".parse().unwrap());
        assert_eq!(
            host_of(&h, &Uri::from_static("/mcp")).as_deref(),
            Some("api.example.com")
        );
        h.insert(header::HOST, "[::1]:3000".parse().unwrap());
        assert_eq!(
            host_of(&h, &Uri::from_static("/mcp")).as_deref(),
            Some("[::1]")
        );
        let uri = Uri::from_static("https://b.example.com/mcp");
        assert_eq!(
            host_of(&HeaderMap::new(), &uri).as_deref(),
            Some("b.example.com")
        );
    }
}
