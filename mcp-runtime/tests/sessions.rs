//! Legacy HTTP sessions on the wire, in-process: the lifecycle per session mode, 400/404
//! rules, DELETE, limits with LRU eviction per pool, expiry, `Session` in tools, and the
//! standalone GET stream with `Last-Event-ID` replay.

use std::time::Duration;

use axum::body::Body;
use http::{Request, StatusCode};
use http_body_util::BodyExt as _;
use mcp::session::SessionLimits;
use mcp::testing::{PATH, TestClient, TestResponse};
use mcp::{Session, SessionMode};
use serde_json::{Value, json};

struct Cart;

// Required sessions in auto protocol mode warn (MCP_WARNING_202): this test service also
// checks what modern requests see, so the warning is expected.
#[allow(deprecated)]
#[mcp::service(name = "cart", version = "1.0.0", session_mode = "stateful")]
impl Cart {
    /// Add an item to the cart.
    pub async fn add_item(&self, session: Session, item: String) -> Result<usize, mcp::ToolError> {
        let items: Vec<String> = session
            .update("items", |items: Option<Vec<String>>| {
                let mut items = items.unwrap_or_default();
                items.push(item.clone());
                items
            })
            .await?;
        Ok(items.len())
    }

    /// The items.
    pub async fn list_items(&self, session: Session) -> Result<Vec<String>, mcp::ToolError> {
        Ok(session.get("items").await?.unwrap_or_default())
    }

    /// Sends a notification on the session's stream.
    pub fn ping_stream(&self, session: Session, n: u32) -> bool {
        session.notify("notifications/message", json!({"level": "info", "data": n}))
    }

    /// Whether the request has a session.
    pub fn has_session(&self, session: Option<Session>) -> bool {
        session.is_some()
    }

    /// Stores a label under the cart's key (another shape than a list of items).
    pub async fn label_cart(&self, session: Session, label: String) -> Result<(), mcp::ToolError> {
        Ok(session.set("items", label).await?)
    }

    /// The cart's stored value, whatever its shape.
    pub async fn raw_cart(&self, session: Session) -> Result<Value, mcp::ToolError> {
        Ok(session.get("items").await?.unwrap_or(Value::Null))
    }
}

fn server(mode: SessionMode, limits: SessionLimits) -> mcp::Server {
    mcp::Server::builder(Cart)
        .session_mode(mode)
        .session_limits(limits)
        .build()
        .expect("valid")
}

fn legacy(id: Option<&str>, body: Value) -> Request<Body> {
    let mut b = Request::post(PATH)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(id) = id {
        b = b
            .header("mcp-session-id", id)
            .header("mcp-protocol-version", "2025-11-25");
    }
    b.body(Body::from(body.to_string())).unwrap()
}

fn init_body() -> Value {
    json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}})
}

fn call(id: i64, tool: &str, args: Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":tool,"arguments":args}})
}

async fn initialize(client: &TestClient) -> String {
    let r = client.send(legacy(None, init_body())).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.raw);
    let id = r
        .headers
        .get("mcp-session-id")
        .expect("session id issued")
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(id.len(), 32);
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
    let n = client
        .send(legacy(
            Some(&id),
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        ))
        .await;
    assert_eq!(n.status, StatusCode::ACCEPTED);
    id
}

#[track_caller]
fn assert_error(r: &TestResponse, status: u16, code: i64) {
    assert_eq!(r.status.as_u16(), status, "{}", r.raw);
    assert_eq!(r.error_code(), Some(code), "{}", r.raw);
}

#[tokio::test]
async fn stateful_lifecycle() {
    let client = TestClient::new(server(SessionMode::Stateful, SessionLimits::default()));
    let id = initialize(&client).await;
    let r = client
        .send(legacy(
            Some(&id),
            call(1, "add_item", json!({"item": "apple"})),
        ))
        .await;
    assert_eq!(r.result()["content"][0]["text"], "1");
    let r = client
        .send(legacy(
            Some(&id),
            call(2, "add_item", json!({"item": "pear"})),
        ))
        .await;
    assert_eq!(r.result()["content"][0]["text"], "2");
    let r = client
        .send(legacy(Some(&id), call(3, "list_items", json!({}))))
        .await;
    assert_eq!(r.result()["content"][0]["text"], r#"["apple","pear"]"#);

    // Missing header: 400 -32000; unknown id: 404 -32001.
    assert_error(
        &client
            .send(legacy(None, call(4, "list_items", json!({}))))
            .await,
        400,
        -32000,
    );
    assert_error(
        &client
            .send(legacy(Some("0123"), call(5, "list_items", json!({}))))
            .await,
        404,
        -32001,
    );
    // A second initialize on the session.
    assert_error(
        &client.send(legacy(Some(&id), init_body())).await,
        400,
        -32600,
    );
    // A notification or a posted response for an unknown session.
    let r = client
        .send(legacy(
            Some("nope"),
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        ))
        .await;
    assert_error(&r, 404, -32001);
    let r = client
        .send(legacy(
            Some("nope"),
            json!({"jsonrpc":"2.0","id":7,"result":{}}),
        ))
        .await;
    assert_error(&r, 404, -32001);

    // DELETE ends the session; later requests get 404 and the client can initialize again.
    let delete = |id: &str| {
        Request::delete(PATH)
            .header("mcp-session-id", id)
            .body(Body::empty())
            .unwrap()
    };
    assert_eq!(client.send(delete(&id)).await.status, StatusCode::OK);
    assert_error(&client.send(delete(&id)).await, 404, -32001);
    assert_error(
        &client
            .send(legacy(Some(&id), call(6, "list_items", json!({}))))
            .await,
        404,
        -32001,
    );
    let again = initialize(&client).await;
    assert_ne!(again, id);
    let r = client
        .send(legacy(Some(&again), call(7, "list_items", json!({}))))
        .await;
    assert_eq!(r.result()["content"][0]["text"], "[]");
    let r = client
        .send(Request::delete(PATH).body(Body::empty()).unwrap())
        .await;
    assert_error(&r, 400, -32000);
}

#[tokio::test]
async fn sessions_stay_apart() {
    let client = TestClient::new(server(SessionMode::Stateful, SessionLimits::default()));
    let (a, b) = (initialize(&client).await, initialize(&client).await);
    client
        .send(legacy(Some(&a), call(1, "add_item", json!({"item": "a"}))))
        .await
        .result();
    client
        .send(legacy(Some(&b), call(1, "add_item", json!({"item": "b"}))))
        .await
        .result();
    let r = client
        .send(legacy(Some(&a), call(2, "list_items", json!({}))))
        .await;
    assert_eq!(r.result()["content"][0]["text"], r#"["a"]"#);
}

#[tokio::test]
async fn concurrent_updates_of_one_session_are_not_lost() {
    let client = std::sync::Arc::new(TestClient::new(server(
        SessionMode::Stateful,
        SessionLimits::default(),
    )));
    let id = initialize(&client).await;
    let tasks: Vec<_> = (0..50)
        .map(|i| {
            let (client, id) = (client.clone(), id.clone());
            tokio::spawn(async move {
                client
                    .send(legacy(
                        Some(&id),
                        call(i, "add_item", json!({"item": i.to_string()})),
                    ))
                    .await
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap().result();
    }
    let r = client
        .send(legacy(Some(&id), call(99, "list_items", json!({}))))
        .await;
    let items: Vec<String> =
        serde_json::from_str(r.result()["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(items.len(), 50);
}

/// A stored value of another shape fails the tool's update (an `isError` result that names
/// no internals) and survives it, on the wire.
#[tokio::test]
async fn an_update_never_overwrites_a_value_of_another_shape() {
    let client = TestClient::new(server(SessionMode::Stateful, SessionLimits::default()));
    let id = initialize(&client).await;
    client
        .send(legacy(
            Some(&id),
            call(1, "label_cart", json!({"label": "keep me"})),
        ))
        .await
        .result();
    for (n, tool, args) in [
        (2, "add_item", json!({"item": "a"})),
        (3, "list_items", json!({})),
    ] {
        let r = client.send(legacy(Some(&id), call(n, tool, args))).await;
        assert_eq!(
            r.result(),
            &json!({
                "content": [{"type": "text", "text": "The session could not be read or written"}],
                "isError": true
            }),
            "{tool}"
        );
    }
    let r = client
        .send(legacy(Some(&id), call(4, "raw_cart", json!({}))))
        .await;
    assert_eq!(r.result()["content"][0]["text"], "keep me");
}

#[tokio::test]
async fn auto_mode_is_decided_by_the_lifecycle() {
    let client = TestClient::new(server(SessionMode::Auto, SessionLimits::default()));
    let id = initialize(&client).await;
    let r = client
        .send(legacy(Some(&id), call(1, "has_session", json!({}))))
        .await;
    assert_eq!(r.result()["content"][0]["text"], "true");
    // Without the header the request is served without a session.
    let r = client
        .send(legacy(None, call(2, "has_session", json!({}))))
        .await;
    assert_eq!(r.result()["content"][0]["text"], "false");
    // A tool that requires a session cannot run without one.
    assert_error(
        &client
            .send(legacy(None, call(3, "list_items", json!({}))))
            .await,
        200,
        -32600,
    );
    // Unknown ids are still refused.
    assert_error(
        &client
            .send(legacy(Some("feed"), call(4, "list_items", json!({}))))
            .await,
        404,
        -32001,
    );
    // Modern requests never get a session, even with a session header.
    let r = client
        .modern_with_headers(
            "tools/call",
            json!({"name": "has_session"}),
            &[("mcp-session-id", &id)],
        )
        .await;
    assert_eq!(r.result()["content"][0]["text"], "false");
    assert!(r.headers.get("mcp-session-id").is_none());
}

#[tokio::test]
async fn stateless_mode_issues_no_session() {
    let client = TestClient::new(server(SessionMode::Stateless, SessionLimits::default()));
    let r = client.send(legacy(None, init_body())).await;
    r.result();
    assert!(r.headers.get("mcp-session-id").is_none());
    let r = client
        .send(legacy(Some("whatever"), call(1, "has_session", json!({}))))
        .await;
    assert_eq!(r.result()["content"][0]["text"], "false");
    for method in ["GET", "DELETE"] {
        let req = Request::builder()
            .method(method)
            .uri(PATH)
            .header("accept", "text/event-stream")
            .body(Body::empty())
            .unwrap();
        assert_error(&client.send(req).await, 405, -32000);
    }
}

#[tokio::test]
async fn limits_evict_the_least_recently_used_session_of_the_pool() {
    let limits = SessionLimits::default()
        .with_idle_timeout(Duration::from_secs(60))
        .with_max_per_owner(2)
        .with_max_anonymous(3);
    let client = TestClient::new(server(SessionMode::Stateful, limits));
    let ids: Vec<String> =
        futures_util::future::join_all((0..3).map(|_| initialize(&client))).await;
    // Use the oldest so the second becomes the least recently used.
    client
        .send(legacy(Some(&ids[0]), call(1, "list_items", json!({}))))
        .await
        .result();
    let fourth = initialize(&client).await;
    assert_error(
        &client
            .send(legacy(Some(&ids[1]), call(2, "list_items", json!({}))))
            .await,
        404,
        -32001,
    );
    for id in [&ids[0], &ids[2], &fourth] {
        client
            .send(legacy(Some(id), call(3, "list_items", json!({}))))
            .await
            .result();
    }
}

#[tokio::test]
async fn idle_sessions_expire() {
    let limits = SessionLimits::default().with_idle_timeout(Duration::from_millis(100));
    let client = TestClient::new(server(SessionMode::Stateful, limits));
    let id = initialize(&client).await;
    tokio::time::sleep(Duration::from_millis(40)).await;
    client
        .send(legacy(Some(&id), call(1, "list_items", json!({}))))
        .await
        .result();
    tokio::time::sleep(Duration::from_millis(60)).await;
    // Still alive: each request renews the idle timer.
    client
        .send(legacy(Some(&id), call(2, "list_items", json!({}))))
        .await
        .result();
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_error(
        &client
            .send(legacy(Some(&id), call(3, "list_items", json!({}))))
            .await,
        404,
        -32001,
    );
}

#[test]
fn invalid_limits_fail_attach() {
    let limits = SessionLimits::default().with_max_per_owner(0);
    let err = mcp::Server::builder(Cart)
        .session_limits(limits)
        .build()
        .unwrap_err();
    assert!(
        err.to_string().contains("session limits must be positive"),
        "{err}"
    );
}

async fn next_event(body: &mut Body) -> String {
    let mut text = String::new();
    while !text.contains("\n\n") {
        let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .expect("event in time")
            .expect("open")
            .expect("ok");
        if let Ok(data) = frame.into_data() {
            text.push_str(&String::from_utf8_lossy(&data));
        }
    }
    text
}

#[tokio::test]
async fn get_stream_delivers_notifications_and_replays_after_last_event_id() {
    let mcp_server = server(SessionMode::Stateful, SessionLimits::default());
    let client = TestClient::new(mcp_server.clone());
    let router = mcp::transport::http::router(PATH, mcp_server);
    let id = initialize(&client).await;
    let get = |last: Option<&str>| {
        let mut b = Request::get(PATH)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &id);
        if let Some(last) = last {
            b = b.header("last-event-id", last);
        }
        b.body(Body::empty()).unwrap()
    };
    use tower::ServiceExt as _;
    // Refusals first.
    let no_accept = Request::get(PATH)
        .header("mcp-session-id", &id)
        .body(Body::empty())
        .unwrap();
    assert_error(&client.send(no_accept).await, 406, -32000);
    let no_id = Request::get(PATH)
        .header("accept", "text/event-stream")
        .body(Body::empty())
        .unwrap();
    assert_error(&client.send(no_id).await, 400, -32000);
    let unknown = Request::get(PATH)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", "ab")
        .body(Body::empty())
        .unwrap();
    assert_error(&client.send(unknown).await, 404, -32001);

    let response = router.clone().oneshot(get(None)).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut body = response.into_body();
    let priming = next_event(&mut body).await;
    assert!(priming.starts_with("id: 0"), "{priming:?}");
    // A second stream for the same session conflicts.
    let conflict = router.clone().oneshot(get(None)).await.unwrap();
    assert_eq!(conflict.status(), StatusCode::CONFLICT);

    for n in 1..=3 {
        let r = client
            .send(legacy(Some(&id), call(n, "ping_stream", json!({"n": n}))))
            .await;
        assert_eq!(r.result()["content"][0]["text"], "true");
        let event = next_event(&mut body).await;
        assert!(
            event.contains(&format!("id: {n}")) && event.contains("event: message"),
            "{event:?}"
        );
        assert!(event.contains(&format!(r#""data":{n}"#)), "{event:?}");
    }
    drop(body);
    // Disconnected: the event is kept for replay.
    let r = client
        .send(legacy(Some(&id), call(4, "ping_stream", json!({"n": 4}))))
        .await;
    assert_eq!(r.result()["content"][0]["text"], "false");
    let response = router.clone().oneshot(get(Some("2"))).await.unwrap();
    let mut body = response.into_body();
    let _priming = next_event(&mut body).await;
    let third = next_event(&mut body).await;
    assert!(third.contains("id: 3"), "{third:?}");
    let fourth = next_event(&mut body).await;
    assert!(
        fourth.contains("id: 4") && fourth.contains(r#""data":4"#),
        "{fourth:?}"
    );
    // DELETE ends the stream.
    let delete = Request::delete(PATH)
        .header("mcp-session-id", &id)
        .body(Body::empty())
        .unwrap();
    assert_eq!(client.send(delete).await.status, StatusCode::OK);
    let end = tokio::time::timeout(Duration::from_secs(5), body.frame())
        .await
        .expect("stream ends");
    assert!(end.is_none(), "the stream ends after DELETE");
}

#[tokio::test]
async fn the_server_caps_open_streams() {
    let server = mcp::Server::builder(Cart)
        .session_mode(SessionMode::Stateful)
        .max_streams(1)
        .build()
        .unwrap();
    let client = TestClient::new(server.clone());
    let router = mcp::transport::http::router(PATH, server);
    let (a, b) = (initialize(&client).await, initialize(&client).await);
    let get = |id: &str| {
        Request::get(PATH)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", id)
            .body(Body::empty())
            .unwrap()
    };
    use tower::ServiceExt as _;
    let first = router.clone().oneshot(get(&a)).await.unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    assert_error(&client.send(get(&b)).await, 503, -32000);
    drop(first);
    let again = router.clone().oneshot(get(&b)).await.unwrap();
    assert_eq!(
        again.status(),
        StatusCode::OK,
        "a closed stream frees its place"
    );
}
