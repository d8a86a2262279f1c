//! The first steps of the MCP route: `Host` validation (DNS-rebinding protection), `Origin`
//! validation, and the CORS policy built from the same origin list.
//!
//! A page on an attacker's site whose name is made to resolve to 127.0.0.1 (DNS rebinding)
//! reaches a loopback server as a same-origin request: browsers send no `Origin` on
//! same-origin `GET`s, and the `Host` header names the attacker's site. So a server bound
//! to a loopback address accepts only `localhost` and loopback addresses with the bound
//! port as `Host` (like the TypeScript SDK's `localhostHostValidation`, but port-aware),
//! plus the names a service lists; both checks answer `403` with a JSON-RPC `-32000` body
//! before authentication, before the body is read, on every method of both eras.

use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode, header};
use axum::response::Response;
use futures_util::future::{Either, Ready, ready};
use http::uri::Authority;
use tower::{Layer, Service};
use tower_http::cors::{AllowOrigin, Cors, CorsLayer, ResponseFuture as CorsFuture};

use super::HttpConfig;
use crate::base::host::{bracketed_v6, split_host};
use crate::dispatch::ProtocolMode;
use crate::protocol::headers as names;

/// The address a listener is bound to, as a request extension, so that the MCP route knows
/// whether to apply the loopback `Host` rules and which port they expect.
///
/// [`HttpServer`](super::HttpServer) gives its routes the address by itself. When you
/// serve a [`router`](super::router) with something else (`axum::serve`, your own hyper
/// loop), add it yourself to get the same default, or list the accepted names with
/// [`HttpConfig::allowed_hosts`](super::HttpConfig::allowed_hosts); without either, no `Host` is checked.
///
/// ```
/// # struct Svc;
/// # #[mcp::service(name = "svc", version = "1.0.0")]
/// # impl Svc {
/// #     /// Echo.
/// #     pub fn echo(&self, text: String) -> String { text }
/// # }
/// # async fn run() -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:9090").await?;
/// let bound = mcp::transport::http::BoundAddr(listener.local_addr()?);
/// let server = mcp::Server::builder(Svc).build().unwrap();
/// let app = mcp::transport::http::router("/mcp", server).layer(axum::Extension(bound));
/// # let _ = app;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoundAddr(pub SocketAddr);

/// Marks a request that [`VirtualHosts`](super::VirtualHosts) routed by one of its listed
/// host names: the host was chosen by the application, so it passes the `Host` check.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ListedHost;

/// The request headers both eras use, allowed in preflights (`DPoP` carries the proof of
/// a DPoP-bound token, RFC 9449).
const REQUEST_HEADERS: [HeaderName; 9] = [
    header::CONTENT_TYPE,
    header::ACCEPT,
    header::AUTHORIZATION,
    HeaderName::from_static("dpop"),
    names::MCP_PROTOCOL_VERSION,
    names::MCP_SESSION_ID,
    names::MCP_METHOD,
    names::MCP_NAME,
    names::LAST_EVENT_ID,
];

/// The response headers a page may read (`DPoP-Nonce`: the server's DPoP nonce).
const EXPOSED_HEADERS: [HeaderName; 4] = [
    names::MCP_SESSION_ID,
    names::MCP_PROTOCOL_VERSION,
    header::WWW_AUTHENTICATE,
    HeaderName::from_static("dpop-nonce"),
];

/// The longest `Host` value echoed in an error message.
const ECHO_LIMIT: usize = 200;

/// The first layer of the MCP route: `Host`, then `Origin` (a refused request goes no
/// further), then the CORS policy for browser requests (an `Origin` header) and `OPTIONS`;
/// other clients' requests skip the CORS work.
#[derive(Clone)]
pub(crate) struct Gate(Arc<Rules>);

struct Rules {
    hosts_checked: bool,
    listed_hosts: Vec<(String, Option<u16>)>,
    origins: Vec<String>,
    cors: CorsLayer,
}

impl Gate {
    pub(crate) fn new(config: &HttpConfig, mode: ProtocolMode) -> Self {
        Self(Arc::new(Rules {
            hosts_checked: config.host_validation,
            listed_hosts: config
                .allowed_hosts
                .iter()
                .filter_map(|h| split_host(h).map(|(host, port)| (host.into_owned(), port)))
                .collect(),
            origins: config.allowed_origins.clone(),
            cors: cors_policy(config, mode),
        }))
    }
}

impl<S> Layer<S> for Gate {
    type Service = GateService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        GateService {
            rules: Arc::clone(&self.0),
            inner,
        }
    }
}

/// The service of [`Gate`]; cheap to clone (axum clones it for every request).
#[derive(Clone)]
pub(crate) struct GateService<S> {
    rules: Arc<Rules>,
    inner: S,
}

/// What [`GateService`] answers with: a refusal, the CORS-wrapped or the plain route.
type GateFuture<F> = Either<Ready<Result<Response, Infallible>>, Either<CorsFuture<F>, F>>;

impl<S> Service<Request<Body>> for GateService<S>
where
    S: Service<Request<Body>, Response = Response, Error = Infallible> + Clone,
{
    type Response = Response;
    type Error = Infallible;
    type Future = GateFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let rules = &self.rules;
        if let Err(message) = check_host(rules, &request) {
            tracing::debug!(%message, "refusing a request for a host that is not allowed");
            return Either::Left(ready(Ok(super::plain_error(
                StatusCode::FORBIDDEN,
                &message,
            ))));
        }
        if let Some(origin) = refused_origin(&rules.origins, request.headers()) {
            tracing::debug!(origin = ?origin, "refusing a request from an origin that is not allowed");
            return Either::Left(ready(Ok(super::plain_error(
                StatusCode::FORBIDDEN,
                "Forbidden: Origin not allowed",
            ))));
        }
        if request.method() == Method::OPTIONS || request.headers().contains_key(header::ORIGIN) {
            // The clone of a ready service is not ready: swap so that the ready one serves.
            let spare = self.inner.clone();
            let ready_inner = std::mem::replace(&mut self.inner, spare);
            let mut cors: Cors<S> = rules.cors.layer(ready_inner);
            Either::Right(Either::Left(cors.call(request)))
        } else {
            Either::Right(Either::Right(self.inner.call(request)))
        }
    }
}

/// The CORS policy of a service: its allowed origins (the same list as the Origin check,
/// which refuses all others first), the methods its era serves, the MCP request headers,
/// and the response headers a page needs to read.
fn cors_policy(config: &HttpConfig, mode: ProtocolMode) -> CorsLayer {
    let methods = if mode == ProtocolMode::Modern {
        vec![Method::POST]
    } else {
        vec![Method::GET, Method::POST, Method::DELETE]
    };
    let origins = config.allowed_origins.clone();
    let credentials = config.allow_credentials;
    let allow_origin = if origins.iter().any(|o| o == "*") && !credentials {
        AllowOrigin::any()
    } else {
        AllowOrigin::predicate(move |origin: &HeaderValue, _| origin_allowed(&origins, origin))
    };
    CorsLayer::new()
        .allow_origin(allow_origin)
        .allow_methods(methods)
        .allow_headers(REQUEST_HEADERS)
        .expose_headers(EXPOSED_HEADERS)
        .allow_credentials(credentials)
}

/// An `Origin` that is not allowed, if any: no `Origin` is accepted; a listed one (compared
/// case-insensitively) or any with `*`. Every `Origin` header must pass (a browser sends
/// one; a second one is not a way around the check).
fn refused_origin<'a>(allowed: &[String], headers: &'a HeaderMap) -> Option<&'a HeaderValue> {
    headers
        .get_all(header::ORIGIN)
        .iter()
        .find(|origin| !origin_allowed(allowed, origin))
}

fn origin_allowed(allowed: &[String], origin: &HeaderValue) -> bool {
    origin.to_str().is_ok_and(|o| {
        allowed
            .iter()
            .any(|a| a == "*" || a.eq_ignore_ascii_case(o))
    })
}

/// Checks every `Host` header and the request target's authority (HTTP/2 `:authority`, or
/// an absolute-form target): each must be allowed. The error is the message sent, worded
/// as the TypeScript SDK's host validation words it.
fn check_host(rules: &Rules, request: &Request<Body>) -> Result<(), String> {
    if !rules.hosts_checked || request.extensions().get::<ListedHost>().is_some() {
        return Ok(());
    }
    let extensions = request.extensions();
    let loopback = extensions
        .get::<super::listener::Accepted>()
        .map(|a| &a.bound)
        .or_else(|| extensions.get::<BoundAddr>())
        .filter(|b| b.0.ip().is_loopback())
        .map(|b| b.0.port());
    if loopback.is_none() && rules.listed_hosts.is_empty() {
        return Ok(());
    }
    let headers = request.headers().get_all(header::HOST);
    let authority = request.uri().authority().map(Authority::as_str);
    let values = headers
        .iter()
        .map(HeaderValue::as_bytes)
        .chain(authority.map(str::as_bytes));
    let mut seen = false;
    for raw in values {
        seen = true;
        if loopback.is_some_and(|bound| is_plain_loopback(raw, bound)) {
            continue;
        }
        if raw.is_empty() {
            // As the TypeScript SDK words it: an empty `Host` is a missing one.
            return Err("Missing Host header".into());
        }
        let shown = || {
            let text = String::from_utf8_lossy(raw);
            text.chars().take(ECHO_LIMIT).collect::<String>()
        };
        let Some((host, port)) = std::str::from_utf8(raw).ok().and_then(split_host) else {
            return Err(format!("Invalid Host header: {}", shown()));
        };
        let listed = rules
            .listed_hosts
            .iter()
            .any(|(h, p)| *h == host && (p.is_none() || *p == port));
        let local =
            loopback.is_some_and(|bound| is_loopback_name(&host) && port.unwrap_or(80) == bound);
        if !listed && !local {
            return Err(match port {
                Some(port) => format!("Invalid Host: {host}:{port}"),
                None => format!("Invalid Host: {host}"),
            });
        }
    }
    if !seen {
        return Err("Missing Host header".into());
    }
    Ok(())
}

/// `127.0.0.1:PORT` or `localhost:PORT` naming the bound loopback port: what local clients
/// send, accepted without parsing the value (every other value takes the full check, which
/// accepts these too).
fn is_plain_loopback(raw: &[u8], bound: u16) -> bool {
    let Some(digits) = raw
        .strip_prefix(b"127.0.0.1:")
        .or_else(|| raw.strip_prefix(b"localhost:"))
    else {
        return false;
    };
    !digits.is_empty()
        && digits.iter().all(u8::is_ascii_digit)
        && std::str::from_utf8(digits)
            .ok()
            .and_then(|d| d.parse::<u16>().ok())
            == Some(bound)
}

/// `localhost` or a loopback address (127.0.0.0/8, `[::1]`, `[::ffff:127.x.y.z]`).
fn is_loopback_name(host: &str) -> bool {
    if host == "localhost" {
        return true;
    }
    let ip = match bracketed_v6(host) {
        Some(v6) => IpAddr::V6(v6),
        None => match host.parse::<Ipv4Addr>() {
            Ok(v4) => IpAddr::V4(v4),
            Err(_) => return false,
        },
    };
    ip.to_canonical().is_loopback()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcut accepts only values the full check accepts for the bound port.
    #[test]
    fn plain_loopback_agrees_with_the_full_check() {
        let bound = 9090;
        let full = |v: &str| {
            split_host(v)
                .is_some_and(|(host, port)| is_loopback_name(&host) && port.unwrap_or(80) == bound)
        };
        for v in [
            "127.0.0.1:9090",
            "localhost:9090",
            "localhost:09090",
            "127.0.0.1:9091",
            "127.0.0.1:",
            "127.0.0.1:+9090",
            "127.0.0.1:99999999",
            "localhost:9090 ",
            "127.0.0.1",
            "evil.example:9090",
            "127.0.0.1:9090@evil",
        ] {
            if is_plain_loopback(v.as_bytes(), bound) {
                assert!(full(v), "{v}");
            }
        }
        assert!(is_plain_loopback(b"127.0.0.1:9090", bound));
        assert!(is_plain_loopback(b"localhost:9090", bound));
        assert!(!is_plain_loopback(b"localhost:9091", bound));
    }

    #[test]
    fn host_values_are_split_into_host_and_port() {
        assert_eq!(
            split_host("LocalHost:8080"),
            Some(("localhost".into(), Some(8080)))
        );
        assert_eq!(split_host("[::1]:80"), Some(("[::1]".into(), Some(80))));
        assert_eq!(
            split_host("example.com"),
            Some(("example.com".into(), None))
        );
        for bad in [
            "",
            ":80",
            "user@localhost",
            "::1",
            "[::1",
            "[nope]",
            "a:99999",
            "a:b",
            "a:",
            "a:+1",
            "*",
            "a b",
        ] {
            assert_eq!(split_host(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn loopback_names() {
        for good in [
            "localhost",
            "127.0.0.1",
            "127.9.8.7",
            "[::1]",
            "[::ffff:127.0.0.1]",
        ] {
            assert!(is_loopback_name(good), "{good}");
        }
        for bad in [
            "localhost.",
            "evil.localhost.example",
            "127.1",
            "0177.0.0.1",
            "10.0.0.1",
            "[::2]",
            "0.0.0.0",
        ] {
            assert!(!is_loopback_name(bad), "{bad}");
        }
    }

    fn request(host: Option<&str>, bound: Option<&str>) -> Request<Body> {
        let mut b = Request::post("/mcp");
        if let Some(h) = host {
            b = b.header(header::HOST, h);
        }
        let mut r = b.body(Body::empty()).unwrap();
        if let Some(addr) = bound {
            r.extensions_mut().insert(BoundAddr(addr.parse().unwrap()));
        }
        r
    }

    fn rules(listed: &[&str], checked: bool) -> Rules {
        Rules {
            hosts_checked: checked,
            listed_hosts: listed
                .iter()
                .filter_map(|h| split_host(h).map(|(host, port)| (host.into_owned(), port)))
                .collect(),
            origins: Vec::new(),
            cors: CorsLayer::new(),
        }
    }

    #[test]
    fn loopback_listeners_accept_local_names_with_their_port() {
        let r = rules(&[], true);
        let at = Some("127.0.0.1:3000");
        for ok in [
            "localhost:3000",
            "127.0.0.1:3000",
            "[::1]:3000",
            "127.0.0.2:3000",
        ] {
            assert_eq!(check_host(&r, &request(Some(ok), at)), Ok(()), "{ok}");
        }
        let refused = |host: Option<&str>| check_host(&r, &request(host, at)).unwrap_err();
        assert_eq!(refused(Some("evil.example")), "Invalid Host: evil.example");
        assert_eq!(
            refused(Some("localhost:3001")),
            "Invalid Host: localhost:3001"
        );
        assert_eq!(refused(Some("localhost")), "Invalid Host: localhost");
        assert_eq!(refused(Some("a@b")), "Invalid Host header: a@b");
        assert_eq!(refused(None), "Missing Host header");
        assert_eq!(refused(Some("")), "Missing Host header");
        // Other binds check nothing by default; an absent address is not loopback either.
        assert_eq!(
            check_host(&r, &request(Some("evil"), Some("0.0.0.0:3000"))),
            Ok(())
        );
        assert_eq!(check_host(&r, &request(Some("evil"), None)), Ok(()));
        // The off switch.
        assert_eq!(
            check_host(&rules(&[], false), &request(Some("evil"), at)),
            Ok(())
        );
    }

    #[test]
    fn listed_hosts_match_with_any_port_or_theirs() {
        let r = rules(&["mcp.example.com", "proxy.local:8443"], true);
        let anywhere = Some("0.0.0.0:3000");
        for ok in ["mcp.example.com", "MCP.example.com:1", "proxy.local:8443"] {
            assert_eq!(check_host(&r, &request(Some(ok), anywhere)), Ok(()), "{ok}");
        }
        for bad in ["proxy.local", "proxy.local:8444", "localhost:3000"] {
            assert!(
                check_host(&r, &request(Some(bad), anywhere)).is_err(),
                "{bad}"
            );
        }
        // On a loopback listener, listed names add to the local ones.
        let at = Some("[::1]:3000");
        assert_eq!(check_host(&r, &request(Some("localhost:3000"), at)), Ok(()));
        assert_eq!(
            check_host(&r, &request(Some("mcp.example.com"), at)),
            Ok(())
        );
    }

    #[test]
    fn every_host_and_the_target_authority_must_pass() {
        let r = rules(&[], true);
        let mut req = request(Some("localhost:3000"), Some("127.0.0.1:3000"));
        req.headers_mut()
            .append(header::HOST, HeaderValue::from_static("evil.example"));
        assert_eq!(
            check_host(&r, &req).unwrap_err(),
            "Invalid Host: evil.example"
        );
        let mut req = Request::post("http://evil.example:3000/mcp")
            .header(header::HOST, "localhost:3000")
            .body(Body::empty())
            .unwrap();
        req.extensions_mut()
            .insert(BoundAddr("127.0.0.1:3000".parse().unwrap()));
        assert_eq!(
            check_host(&r, &req).unwrap_err(),
            "Invalid Host: evil.example:3000"
        );
    }
}
