//! The endpoint as a tower service mounted into a user's app: `nest_service` next to the
//! user's routes and state under a tower-http layer, the OAuth metadata at the host root,
//! `ConnectInfo<SocketAddr>` from `HttpServer`, and shutdown ending SSE streams (by the
//! service's own token, and by `HttpServer::with_graceful_shutdown`).

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, State};
use common::*;
use http::{HeaderName, HeaderValue, Request, StatusCode};
use http_body_util::BodyExt as _;
use mcp::transport::CancellationToken;
use mcp::{HttpServer, McpService, SessionMode};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tower::ServiceExt as _;
use tower_http::set_header::SetResponseHeaderLayer;

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

fn stateful_server() -> mcp::Server {
    let config = test_builder("t", "1").session_mode(SessionMode::Stateful);
    config.build().unwrap()
}

fn x_app() -> SetResponseHeaderLayer<HeaderValue> {
    SetResponseHeaderLayer::overriding(
        HeaderName::from_static("x-app"),
        HeaderValue::from_static("1"),
    )
}

#[tokio::test]
async fn nested_next_to_a_user_route_with_state_under_a_tower_http_layer() {
    let server = mcp::Server::builder(TestService::default())
        .info("t", "1")
        .build()
        .unwrap();
    let app: Router = Router::new()
        .route(
            "/greeting",
            axum::routing::get(|State(name): State<&'static str>| async move { name }),
        )
        .with_state("hello")
        .nest_service("/mcp", McpService::new(server))
        .layer(x_app());
    // The MCP endpoint, at the mount point, under the user's layer.
    let r = send(
        &app,
        modern_request(&modern_body(json!(1), "tools/list", Value::Null)),
    )
    .await;
    let tools = r.result()["tools"].as_array().unwrap();
    assert_eq!(tools[0]["name"], "echo", "{}", r.raw);
    assert_eq!(r.headers["x-app"], "1");
    // Its refusals too: the endpoint answers every method at its path.
    let put = Request::put("/mcp").body(Body::empty()).unwrap();
    let r = send(&app, put).await;
    r.assert_error(405, -32000, Value::Null);
    assert_eq!(r.headers["allow"], "GET, POST, DELETE");
    assert_eq!(r.headers["x-app"], "1");
    // The user's route with its state.
    let r = send(&app, Request::get("/greeting").body(Body::empty()).unwrap()).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.raw, "hello");
    assert_eq!(r.headers["x-app"], "1");
    // Other paths are the app's (404), not the endpoint's.
    let r = send(&app, Request::get("/other").body(Body::empty()).unwrap()).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn route_service_mounts_the_endpoint_at_any_path() {
    let server = mcp::Server::builder(TestService::default())
        .info("t", "1")
        .build()
        .unwrap();
    let app = Router::new().route_service("/v2/tools", McpService::new(server));
    let mut request = modern_request(&modern_body(json!(7), "tools/list", Value::Null));
    *request.uri_mut() = "/v2/tools".parse().unwrap();
    let r = send(&app, request).await;
    assert_eq!(r.body["id"], 7, "{}", r.raw);
    assert!(r.result()["tools"].is_array());
}

#[tokio::test]
async fn the_metadata_router_stays_at_the_host_root() {
    let server = protected_server("https://api.example.com/tools/mcp");
    let tools = Router::new().nest_service("/mcp", McpService::new(server.clone()));
    let app = Router::new()
        .nest("/tools", tools)
        .merge(mcp::transport::http::metadata_router(&server));
    let metadata = "/.well-known/oauth-protected-resource/tools/mcp";
    let r = send(&app, Request::get(metadata).body(Body::empty()).unwrap()).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.raw);
    assert_eq!(r.body["resource"], "https://api.example.com/tools/mcp");
    // The endpoint, mounted deeper, points clients at that document.
    let mut request = modern_request(&modern_body(json!(1), "tools/list", Value::Null));
    *request.uri_mut() = "/tools/mcp".parse().unwrap();
    let r = send(&app, request).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.raw);
    let challenge = r.headers["www-authenticate"].to_str().unwrap();
    assert!(
        challenge.contains(&format!(
            "resource_metadata=\"https://api.example.com{metadata}\""
        )),
        "{challenge}"
    );
    // Nothing at the endpoint's own path.
    let r = send(
        &app,
        Request::get("/tools/mcp/.well-known/oauth-protected-resource")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_ne!(r.status, StatusCode::OK);
    // A service without OAuth has no metadata route.
    let plain = mcp::Server::builder(TestService::default())
        .info("t", "1")
        .build()
        .unwrap();
    let r = send(
        &mcp::transport::http::metadata_router(&plain),
        Request::get("/.well-known/oauth-protected-resource")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
}

/// A legacy session on `app`: its id.
async fn open_session(app: &Router) -> String {
    let init = Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(Body::from(INIT))
        .unwrap();
    let r = send(app, init).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.raw);
    r.headers["mcp-session-id"].to_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_services_token_ends_its_sse_streams() {
    let token = CancellationToken::new();
    let app = Router::new().nest_service(
        "/mcp",
        McpService::new(stateful_server()).with_shutdown(token.clone()),
    );
    let id = open_session(&app).await;
    let get = Request::get("/mcp")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &id)
        .header("mcp-protocol-version", "2025-11-25")
        .body(Body::empty())
        .unwrap();
    let response = app.clone().oneshot(get).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut body = response.into_body();
    // The priming event, then nothing: the stream stays open.
    let priming = tokio::time::timeout(Duration::from_secs(5), body.frame())
        .await
        .expect("the priming event")
        .expect("open")
        .unwrap();
    assert!(priming.is_data());
    assert!(
        tokio::time::timeout(Duration::from_millis(300), body.frame())
            .await
            .is_err(),
        "the stream stays open until shutdown"
    );
    token.cancel();
    let end = tokio::time::timeout(Duration::from_secs(5), body.frame())
        .await
        .expect("the stream ends once the token is cancelled");
    assert!(end.is_none(), "no more frames after shutdown");
}

/// Reads `stream` until `needle` has arrived; returns what was read.
async fn read_until(stream: &mut TcpStream, needle: &str) -> String {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&buf).contains(needle) {
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut chunk))
            .await
            .expect("data in time")
            .unwrap();
        assert!(
            n > 0,
            "closed before {needle:?}: {}",
            String::from_utf8_lossy(&buf)
        );
        buf.extend_from_slice(&chunk[..n]);
    }
    String::from_utf8_lossy(&buf).into_owned()
}

#[tokio::test]
async fn http_server_gives_handlers_the_peer_address_and_ends_streams_on_shutdown() {
    let listener = HttpServer::bind("127.0.0.1:0")
        .await
        .unwrap()
        .drain_timeout(Duration::from_secs(30));
    let addr = listener.local_addr().unwrap();
    let app = Router::new()
        .route(
            "/whoami",
            axum::routing::get(|ConnectInfo(peer): ConnectInfo<SocketAddr>| async move {
                peer.to_string()
            }),
        )
        .nest_service("/mcp", McpService::new(stateful_server()));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(
        listener
            .serve(app.into_make_service())
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .into_future(),
    );

    // A user handler sees the peer address.
    let mut whoami = TcpStream::connect(addr).await.unwrap();
    let peer = whoami.local_addr().unwrap();
    whoami
        .write_all(b"GET /whoami HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut response = String::new();
    whoami.read_to_string(&mut response).await.unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.ends_with(&format!("\r\n\r\n{peer}")), "{response}");

    // A session and its standalone stream, over the socket.
    let host = format!("127.0.0.1:{}", addr.port());
    let init = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{INIT}",
        INIT.len()
    );
    let (status, head, _) = raw_exchange(addr, init.as_bytes()).await;
    assert_eq!(status, 200, "{head}");
    let id = head
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .expect("a session id")
        .to_owned();
    let mut sse = TcpStream::connect(addr).await.unwrap();
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\
         Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n"
    );
    sse.write_all(get.as_bytes()).await.unwrap();
    let opened = read_until(&mut sse, "\n\n").await;
    assert!(opened.starts_with("HTTP/1.1 200"), "{opened}");
    assert!(opened.contains("text/event-stream"), "{opened}");

    // Shutdown: the stream ends, so the server returns long before the drain timeout.
    let started = Instant::now();
    stop.send(()).unwrap();
    let mut rest = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), sse.read_to_end(&mut rest))
        .await
        .expect("the stream is closed on shutdown")
        .unwrap();
    tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .expect("the server returns without waiting for the drain timeout")
        .unwrap()
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn the_services_token_ends_a_legacy_call_waiting_for_input() {
    let token = CancellationToken::new();
    let app = Router::new().nest_service(
        "/mcp",
        McpService::new(stateful_server()).with_shutdown(token.clone()),
    );
    let init = INIT.replace(
        r#""capabilities":{}"#,
        r#""capabilities":{"elicitation":{}}"#,
    );
    let init = Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(Body::from(init))
        .unwrap();
    let r = send(&app, init).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.raw);
    let id = r.headers["mcp-session-id"].to_str().unwrap().to_owned();
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "resume", "arguments": {}}});
    let call = Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &id)
        .header("mcp-protocol-version", "2025-11-25")
        .body(Body::from(call.to_string()))
        .unwrap();
    let response = app.clone().oneshot(call).await.unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut body = response.into_body();
    let mut ask = String::new();
    while !ask.contains("\n\n") {
        let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .expect("the elicitation request")
            .expect("open")
            .unwrap();
        ask.push_str(&String::from_utf8_lossy(&frame.into_data().unwrap()));
    }
    assert!(ask.contains("elicitation/create"), "{ask}");
    assert!(
        tokio::time::timeout(Duration::from_millis(300), body.frame())
            .await
            .is_err(),
        "the call waits for the client's answer"
    );
    let started = Instant::now();
    token.cancel();
    let rest = tokio::time::timeout(Duration::from_secs(5), body.collect())
        .await
        .expect("the call ends once the token is cancelled")
        .unwrap()
        .to_bytes();
    let rest = String::from_utf8_lossy(&rest);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(rest.starts_with("event: message\ndata: "), "{rest}");
    let last: Value = serde_json::from_str(rest["event: message\ndata: ".len()..].trim()).unwrap();
    assert_eq!(last["id"], 5, "{rest}");
    assert_eq!(
        last["error"]["message"], "The session ended while waiting for input",
        "{rest}"
    );
}
