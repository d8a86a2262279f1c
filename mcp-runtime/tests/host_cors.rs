//! DNS-rebinding protection by `Host` and CORS for browser pages: the loopback default on a
//! real listener (every method, both eras, the real bound port), the allowlist, the off
//! switch, routers served without the listener, and the CORS answers built from the origin
//! list (preflights, exposed headers, credentials), each asserted by exact status and body.

mod common;

use std::net::SocketAddr;

use axum::body::Body;
use common::*;
use http::{Request, StatusCode};
use mcp::transport::http::BoundAddr;
use mcp::{ProtocolMode, ServerBuilder};
use serde_json::{Value, json};

/// Serves `config` with a [`mcp::HttpServer`] bound to `bind` until the test
/// ends; the address to connect to (loopback, with the bound port).
async fn serve(bind: &str, config: ServerBuilder) -> SocketAddr {
    let server = config.build().unwrap();
    let listener = mcp::HttpServer::bind(bind).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(
        listener
            .serve(mcp::transport::http::router("/mcp", server).into_make_service())
            .into_future(),
    );
    SocketAddr::from(([127, 0, 0, 1], port))
}

const MODERN_LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#;
const LEGACY_LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;

/// A raw HTTP/1.1 request with `host` as its `Host` line (`None`: no `Host` line at all).
fn raw(method: &str, host: Option<&str>, extra: &str, body: &str) -> Vec<u8> {
    let host = host.map(|h| format!("Host: {h}\r\n")).unwrap_or_default();
    format!(
        "{method} /mcp HTTP/1.1\r\n{host}Content-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn modern(host: Option<&str>) -> Vec<u8> {
    raw(
        "POST",
        host,
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\n",
        MODERN_LIST,
    )
}

fn legacy(host: Option<&str>) -> Vec<u8> {
    raw("POST", host, "", LEGACY_LIST)
}

/// Asserts the TypeScript SDK's refusal: 403, `{"jsonrpc":"2.0","error":{"code":-32000,
/// "message":<message>},"id":null}`.
#[track_caller]
fn assert_refused((status, head, body): (u16, String, String), message: &str) {
    assert_eq!(status, 403, "{head}\n{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        body,
        json!({"jsonrpc": "2.0", "error": {"code": -32000, "message": message}, "id": null})
    );
}

#[track_caller]
fn assert_status((status, head, body): (u16, String, String), expected: u16) {
    assert_eq!(status, expected, "{head}\n{body}");
}

#[tokio::test]
async fn a_loopback_listener_accepts_only_local_names_with_its_port() {
    let addr = serve("127.0.0.1:0", test_builder("t", "1")).await;
    let port = addr.port();
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("LOCALHOST:{port}"),
        format!("[::1]:{port}"),
        format!("127.0.0.2:{port}"),
    ] {
        assert_status(raw_exchange(addr, &modern(Some(&host))).await, 200);
        assert_status(raw_exchange(addr, &legacy(Some(&host))).await, 200);
    }
    let evil = Some("evil.example");
    assert_refused(
        raw_exchange(addr, &modern(evil)).await,
        "Invalid Host: evil.example",
    );
    assert_refused(
        raw_exchange(addr, &legacy(evil)).await,
        "Invalid Host: evil.example",
    );
    // GET, DELETE and OPTIONS too: the check comes before the method is looked at.
    for method in ["GET", "DELETE", "OPTIONS", "PUT"] {
        assert_refused(
            raw_exchange(addr, &raw(method, evil, "", "")).await,
            "Invalid Host: evil.example",
        );
    }
    // The bound port, not any port: another local server's port or none at all.
    let other = format!("localhost:{}", port.wrapping_add(1).max(1));
    assert_refused(
        raw_exchange(addr, &modern(Some(&other))).await,
        &format!("Invalid Host: {other}"),
    );
    assert_refused(
        raw_exchange(addr, &modern(Some("127.0.0.1"))).await,
        "Invalid Host: 127.0.0.1",
    );
    assert_refused(
        raw_exchange(addr, &modern(None)).await,
        "Missing Host header",
    );
    assert_refused(
        raw_exchange(addr, &modern(Some("user@localhost"))).await,
        "Invalid Host header: user@localhost",
    );
    // A second `Host` line cannot smuggle a foreign name past the check.
    let two = raw(
        "POST",
        Some(&format!("localhost:{port}")),
        "Host: evil.example\r\n",
        LEGACY_LIST,
    );
    assert_refused(raw_exchange(addr, &two).await, "Invalid Host: evil.example");
    // Before the body is parsed.
    assert_refused(
        raw_exchange(addr, &raw("POST", evil, "", "{")).await,
        "Invalid Host: evil.example",
    );
}

#[tokio::test]
async fn listed_hosts_add_to_the_default_and_the_check_can_be_turned_off() {
    let config = test_builder("t", "1").transport(|http: mcp::transport::http::HttpConfig| {
        http.allowed_hosts(["mcp.example.com", "proxy.local:8443"])
    });
    let addr = serve("127.0.0.1:0", config).await;
    let port = addr.port();
    for host in [
        "mcp.example.com".to_owned(),
        "mcp.example.com:1234".to_owned(),
        "proxy.local:8443".to_owned(),
        format!("localhost:{port}"),
    ] {
        assert_status(raw_exchange(addr, &modern(Some(&host))).await, 200);
    }
    assert_refused(
        raw_exchange(addr, &modern(Some("proxy.local:8444"))).await,
        "Invalid Host: proxy.local:8444",
    );
    // Behind a proxy that checks Host itself.
    let addr = serve(
        "127.0.0.1:0",
        test_builder("t", "1")
            .transport(|http: mcp::transport::http::HttpConfig| http.host_validation(false)),
    )
    .await;
    assert_status(raw_exchange(addr, &modern(Some("evil.example"))).await, 200);
    assert_status(raw_exchange(addr, &modern(None)).await, 200);
}

#[tokio::test]
async fn other_binds_check_only_listed_hosts() {
    let addr = serve("0.0.0.0:0", test_builder("t", "1")).await;
    assert_status(raw_exchange(addr, &modern(Some("evil.example"))).await, 200);
    let addr = serve(
        "0.0.0.0:0",
        test_builder("t", "1").transport(|http: mcp::transport::http::HttpConfig| {
            http.allowed_hosts(["mcp.example.com"])
        }),
    )
    .await;
    assert_status(
        raw_exchange(addr, &modern(Some("mcp.example.com"))).await,
        200,
    );
    let local = format!("localhost:{}", addr.port());
    assert_refused(
        raw_exchange(addr, &modern(Some(&local))).await,
        &format!("Invalid Host: {local}"),
    );
}

#[tokio::test]
async fn a_router_served_elsewhere_checks_hosts_once_it_knows_its_address() {
    let list = modern_body(json!(1), "tools/list", Value::Null);
    let with_host = |host: &str| {
        let mut r = modern_request(&list);
        r.headers_mut().insert("host", host.parse().unwrap());
        r
    };
    // Without a bound address nor a list, nothing to compare with.
    let app = router();
    send(&app, with_host("evil.example")).await.result();
    // With the listener's extension added by hand.
    let app = router().layer(axum::Extension(BoundAddr(
        "127.0.0.1:5000".parse().unwrap(),
    )));
    send(&app, with_host("localhost:5000")).await.result();
    let r = send(&app, with_host("localhost:5001")).await;
    r.assert_error(403, -32000, Value::Null);
    assert_eq!(r.body["error"]["message"], "Invalid Host: localhost:5001");
    // HTTP/2 carries the host in the target's authority.
    let mut r = Request::post("http://evil.example:5000/mcp")
        .header("content-type", "application/json")
        .body(Body::from(list.to_string()))
        .unwrap();
    r.extensions_mut()
        .insert(BoundAddr("127.0.0.1:5000".parse().unwrap()));
    let r = send(&router(), r).await;
    r.assert_error(403, -32000, Value::Null);
    assert_eq!(
        r.body["error"]["message"],
        "Invalid Host: evil.example:5000"
    );
}

#[tokio::test]
async fn virtual_hosts_on_a_loopback_listener_pass_their_listed_names() {
    let build = || {
        let server = mcp::Server::builder(TestService::default())
            .info("t", "1")
            .build()
            .unwrap();
        mcp::transport::http::router("/mcp", server)
    };
    let app = mcp::transport::http::VirtualHosts::new()
        .host("a.example.com", build())
        .fallback(build())
        .into_router();
    let listener = mcp::HttpServer::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(listener.serve(app.into_make_service()).into_future());
    assert_status(
        raw_exchange(addr, &modern(Some("a.example.com"))).await,
        200,
    );
    assert_status(
        raw_exchange(addr, &modern(Some(&addr.to_string()))).await,
        200,
    );
    // The fallback is not a name the application chose.
    assert_refused(
        raw_exchange(addr, &modern(Some("evil.example"))).await,
        "Invalid Host: evil.example",
    );
}

#[test]
fn allowed_hosts_are_checked_when_the_service_is_built() {
    for bad in [
        "http://mcp.example.com",
        "mcp.example.com/mcp",
        "::1",
        "*",
        "a:99999",
        "",
    ] {
        let built = mcp::Server::builder(TestService::default())
            .info("t", "1")
            .transport(|http: mcp::transport::http::HttpConfig| http.allowed_hosts([bad]))
            .build();
        let message = built.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("allowed host"), "{bad:?}: {message}");
    }
    let star = mcp::Server::builder(TestService::default())
        .info("t", "1")
        .transport(|http: mcp::transport::http::HttpConfig| http.allowed_hosts(["*"]))
        .build();
    let message = star.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(message.contains("host_validation(false)"), "{message}");
}

// ----------------------------------------------------------------------------- CORS

const PAGE: &str = "http://localhost:5173";

fn preflight(origin: &str, method: &str) -> Request<Body> {
    Request::options("/mcp")
        .header("origin", origin)
        .header("access-control-request-method", method)
        .header(
            "access-control-request-headers",
            "content-type,mcp-protocol-version,mcp-method,mcp-name,authorization",
        )
        .body(Body::empty())
        .unwrap()
}

fn header<'a>(r: &'a Reply, name: &str) -> &'a str {
    r.headers
        .get(name)
        .map(|v| v.to_str().unwrap())
        .unwrap_or("")
}

fn list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty())
        .collect()
}

#[tokio::test]
async fn preflights_from_allowed_origins_are_answered_for_every_method() {
    let app = router_with(
        test_builder("t", "1")
            .transport(|http: mcp::transport::http::HttpConfig| http.allowed_origins([PAGE])),
    );
    for method in ["POST", "GET", "DELETE"] {
        let r = send(&app, preflight(PAGE, method)).await;
        assert_eq!(r.status, StatusCode::OK, "{method}: {}", r.raw);
        assert_eq!(header(&r, "access-control-allow-origin"), PAGE);
        assert_eq!(
            list(header(&r, "access-control-allow-methods")),
            ["get", "post", "delete"]
        );
        assert_eq!(
            list(header(&r, "access-control-allow-headers")),
            [
                "content-type",
                "accept",
                "authorization",
                "dpop",
                "mcp-protocol-version",
                "mcp-session-id",
                "mcp-method",
                "mcp-name",
                "last-event-id"
            ]
        );
        assert!(r.headers.get("access-control-allow-credentials").is_none());
        assert!(r.raw.is_empty());
    }
    // Origins compare case-insensitively, as the Origin check does.
    let r = send(&app, preflight("HTTP://LOCALHOST:5173", "POST")).await;
    assert_eq!(
        header(&r, "access-control-allow-origin"),
        "HTTP://LOCALHOST:5173"
    );
    // A foreign origin is refused before CORS runs.
    let r = send(&app, preflight("https://evil.example", "POST")).await;
    r.assert_error(403, -32000, Value::Null);
    assert!(r.headers.get("access-control-allow-origin").is_none());
    // A modern-only service allows only POST.
    let app = router_with(
        test_builder("t", "1")
            .transport(|http: mcp::transport::http::HttpConfig| http.allowed_origins([PAGE]))
            .protocol_mode(ProtocolMode::Modern),
    );
    let r = send(&app, preflight(PAGE, "POST")).await;
    assert_eq!(list(header(&r, "access-control-allow-methods")), ["post"]);
}

#[tokio::test]
async fn responses_to_allowed_origins_expose_the_mcp_headers() {
    let app = router_with(
        test_builder("t", "1")
            .transport(|http: mcp::transport::http::HttpConfig| http.allowed_origins([PAGE])),
    );
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}});
    let mut request = legacy_request(&init);
    request
        .headers_mut()
        .insert("origin", PAGE.parse().unwrap());
    let r = send(&app, request).await;
    r.result();
    assert!(r.headers.contains_key("mcp-session-id"));
    assert_eq!(header(&r, "access-control-allow-origin"), PAGE);
    assert_eq!(
        list(header(&r, "access-control-expose-headers")),
        [
            "mcp-session-id",
            "mcp-protocol-version",
            "www-authenticate",
            "dpop-nonce"
        ]
    );
    assert!(list(header(&r, "vary")).contains(&"origin".to_owned()));
    // Errors too: a page must be able to read why it was refused.
    let mut request = legacy_request(&json!({"jsonrpc": "2.0", "id": 1, "method": "nope"}));
    request
        .headers_mut()
        .insert("origin", PAGE.parse().unwrap());
    let r = send(&app, request).await;
    assert_eq!(header(&r, "access-control-allow-origin"), PAGE);
    // No Origin, no CORS answer.
    let r = send(&app, legacy_request(&init)).await;
    assert!(r.headers.get("access-control-allow-origin").is_none());
}

#[tokio::test]
async fn credentials_and_wildcards() {
    // `*` without credentials answers `*`.
    let app = router_with(
        test_builder("t", "1")
            .transport(|http: mcp::transport::http::HttpConfig| http.allowed_origins(["*"])),
    );
    let r = send(&app, preflight("https://any.example", "POST")).await;
    assert_eq!(header(&r, "access-control-allow-origin"), "*");
    assert!(r.headers.get("access-control-allow-credentials").is_none());
    // With credentials the origin is echoed: browsers refuse `*` with credentials.
    let app = router_with(test_builder("t", "1").transport(
        |http: mcp::transport::http::HttpConfig| {
            http.allowed_origins(["*"]).allow_credentials(true)
        },
    ));
    let r = send(&app, preflight("https://any.example", "DELETE")).await;
    assert_eq!(
        header(&r, "access-control-allow-origin"),
        "https://any.example"
    );
    assert_eq!(header(&r, "access-control-allow-credentials"), "true");
    let app = router_with(test_builder("t", "1").transport(
        |http: mcp::transport::http::HttpConfig| {
            http.allowed_origins([PAGE]).allow_credentials(true)
        },
    ));
    let mut request = modern_request(&modern_body(json!(1), "tools/list", Value::Null));
    request
        .headers_mut()
        .insert("origin", PAGE.parse().unwrap());
    let r = send(&app, request).await;
    r.result();
    assert_eq!(header(&r, "access-control-allow-origin"), PAGE);
    assert_eq!(header(&r, "access-control-allow-credentials"), "true");
}

#[tokio::test]
async fn preflights_pass_authentication_and_refusals_carry_cors() {
    let server = mcp::Server::builder(TestService::default())
        .info("t", "1")
        .transport(|http: mcp::transport::http::HttpConfig| http.allowed_origins([PAGE]))
        .listener_auth([mcp::auth::ListenerAuth::basic([("alice", "secret")])])
        .build()
        .unwrap();
    let app = mcp::transport::http::router("/mcp", server);
    // The preflight carries no credentials, so it is answered before authentication.
    let r = send(&app, preflight(PAGE, "POST")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.raw);
    assert_eq!(header(&r, "access-control-allow-origin"), PAGE);
    // A refused request still tells the page why.
    let mut request = modern_request(&modern_body(json!(1), "tools/list", Value::Null));
    request
        .headers_mut()
        .insert("origin", PAGE.parse().unwrap());
    let r = send(&app, request).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.raw);
    assert_eq!(header(&r, "access-control-allow-origin"), PAGE);
    assert!(list(header(&r, "access-control-expose-headers")).contains(&"www-authenticate".into()));
}

#[tokio::test]
async fn the_public_metadata_document_is_not_host_checked() {
    let server = protected_server("https://mcp.example.com/mcp");
    let listener = mcp::HttpServer::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(
        listener
            .serve(mcp::transport::http::router("/mcp", server).into_make_service())
            .into_future(),
    );
    // The document is public and readable from any origin (CORS `*`): a rebound name
    // learns nothing it could not read anyway.
    let metadata = "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\n\
                    Host: evil.example\r\nConnection: close\r\n\r\n";
    let (status, head, body) = raw_exchange(addr, metadata.as_bytes()).await;
    assert_eq!(status, 200, "{head}\n{body}");
    assert!(
        head.to_ascii_lowercase()
            .contains("access-control-allow-origin: *")
    );
    // The MCP route refuses the name before authentication (no 401 challenge).
    assert_refused(
        raw_exchange(addr, &modern(Some("evil.example"))).await,
        "Invalid Host: evil.example",
    );
}
