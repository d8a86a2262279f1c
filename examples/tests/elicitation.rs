//! Multi-round tool calls, in-process: forms generated from types, URL elicitation with an
//! out-of-band page, signed request state (every way a state can be refused), the capability
//! gate, and legacy requests.

use std::time::Duration;

use axum::body::Body;
use http::{Request, StatusCode};
use http_body_util::BodyExt as _;
use mcp::testing::TestClient;
use mcp::{InputRequired, ToolOutput};
use mcp_examples::calendar_connect::{self, Calendar};
use mcp_examples::table_booking::Restaurant;
use serde_json::{Value, json};
use tower::ServiceExt as _;

fn caps_form_and_url() -> Value {
    json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}}})
}

fn with_caps(mut params: Value, caps: Value) -> Value {
    params["_meta"] = caps;
    params
}

#[tokio::test]
async fn a_form_generated_from_a_struct() {
    let c = TestClient::new(mcp::Server::builder(Restaurant::default()).build().unwrap());
    let first = c
        .modern(
            "tools/call",
            with_caps(json!({"name": "book_table"}), caps_form_and_url()),
        )
        .await;
    let result = first.result();
    assert_eq!(result["resultType"], "input_required");
    assert!(result.get("requestState").is_none());
    let ask = &result["inputRequests"]["booking"];
    assert_eq!(ask["method"], "elicitation/create");
    assert_eq!(ask["params"]["mode"], "form");
    assert_eq!(
        ask["params"]["requestedSchema"],
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "Who the table is for"},
                "guests": {"type": "integer", "description": "How many people are coming"},
                "seating": {"type": "string", "description": "Where to sit", "oneOf": [
                    {"const": "indoor", "title": "Indoors"}, {"const": "patio", "title": "On the patio"}]},
                "notes": {"type": "string", "description": "Anything the kitchen should know"}
            },
            "required": ["name", "guests", "seating"]
        })
    );
    let answer = json!({"booking": {"action": "accept", "content": {"name": "Ada", "guests": 3, "seating": "patio"}}});
    let done = c
        .modern(
            "tools/call",
            with_caps(
                json!({"name": "book_table", "inputResponses": answer}),
                caps_form_and_url(),
            ),
        )
        .await;
    assert_eq!(
        done.result()["content"][0]["text"],
        "Booked a table for Ada (3 guests, patio)"
    );
    assert_eq!(done.result()["resultType"], "complete");
    // Content that does not convert asks again; a decline ends the call.
    let bad =
        json!({"booking": {"action": "accept", "content": {"name": "Ada", "guests": "many"}}});
    let again = c
        .modern(
            "tools/call",
            with_caps(
                json!({"name": "book_table", "inputResponses": bad}),
                caps_form_and_url(),
            ),
        )
        .await;
    assert_eq!(again.result()["resultType"], "input_required");
    let declined = json!({"booking": {"action": "decline"}});
    let r = c
        .modern(
            "tools/call",
            with_caps(
                json!({"name": "book_table", "inputResponses": declined}),
                caps_form_and_url(),
            ),
        )
        .await;
    assert_eq!(r.result()["content"][0]["text"], "No table was booked");
}

#[tokio::test]
async fn a_mode_the_client_did_not_declare_is_32021() {
    let c = TestClient::new(mcp::Server::builder(Restaurant::default()).build().unwrap());
    // No elicitation capability at all.
    let r = c.modern("tools/call", json!({"name": "book_table"})).await;
    assert_eq!((r.status.as_u16(), r.error_code()), (400, Some(-32021)));
    assert_eq!(
        r.body["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {"form": {}}})
    );
    // An empty elicitation capability means form.
    let caps = json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let r = c
        .modern("tools/call", with_caps(json!({"name": "book_table"}), caps))
        .await;
    assert_eq!(r.result()["resultType"], "input_required");
    // URL only: a form is refused.
    let caps = json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {"url": {}}}});
    let r = c
        .modern("tools/call", with_caps(json!({"name": "book_table"}), caps))
        .await;
    assert_eq!(r.error_code(), Some(-32021));
}

#[tokio::test]
async fn legacy_requests_without_a_session_get_a_json_rpc_error() {
    let server = mcp::Server::builder(Restaurant::default())
        .session_mode(mcp::SessionMode::Stateless)
        .build()
        .unwrap();
    let c = TestClient::new(server);
    let r = c.legacy("tools/call", json!({"name": "book_table"})).await;
    assert_eq!((r.status.as_u16(), r.error_code()), (200, Some(-32603)));
}

async fn get_page(app: &axum::Router, url: &str, user: Option<&str>) -> (StatusCode, String) {
    let path = url
        .split_once("://")
        .and_then(|(_, rest)| rest.find('/').map(|i| rest[i..].to_owned()))
        .unwrap();
    let mut req = Request::get(path);
    if let Some(user) = user {
        req = req.header("x-user", user);
    }
    let response = app
        .clone()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

async fn mcp_call(app: &axum::Router, user: &str, params: Value) -> Value {
    let c = TestClient::new(mcp::Server::builder(Calendar::default()).build().unwrap());
    let mut request = c.modern_request("tools/call", with_caps(params, caps_form_and_url()));
    request
        .headers_mut()
        .insert("x-user", user.parse().unwrap());
    let response = app.clone().oneshot(request).await.unwrap();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice(&body).unwrap()
}

#[tokio::test]
async fn url_elicitation_with_an_out_of_band_page() {
    let calendar = Calendar::default();
    let app = calendar_connect::app(calendar.clone(), "127.0.0.1:9999".parse().unwrap()).unwrap();
    let first = mcp_call(&app, "alice", json!({"name": "list_events"})).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let ask = &result["inputRequests"]["connect"]["params"];
    assert_eq!(ask["mode"], "url");
    let url = ask["url"].as_str().unwrap().to_owned();
    assert!(url.starts_with("http://127.0.0.1:9999/connect?id="));
    let state = result["requestState"].as_str().unwrap().to_owned();
    assert!(state.starts_with("v1."), "the state is signed");
    // Accepting before the page is done asks again, with the same link (state carried).
    let accept = json!({"connect": {"action": "accept"}});
    let second = mcp_call(
        &app,
        "alice",
        json!({"name": "list_events", "inputResponses": accept, "requestState": state}),
    )
    .await;
    assert_eq!(
        second["result"]["inputRequests"]["connect"]["params"]["url"],
        url
    );
    let state = second["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    // The page: another user, no user, an altered id.
    assert_eq!(
        get_page(&app, &url, Some("mallory")).await.0,
        StatusCode::FORBIDDEN
    );
    assert_eq!(get_page(&app, &url, None).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(
        get_page(&app, &format!("{url}x"), Some("alice")).await.0,
        StatusCode::NOT_FOUND
    );
    let (status, text) = get_page(&app, &url, Some("alice")).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    // A used link completes nothing more.
    assert_eq!(
        get_page(&app, &url, Some("alice")).await.0,
        StatusCode::NOT_FOUND
    );
    let done = mcp_call(
        &app,
        "alice",
        json!({"name": "list_events", "inputResponses": accept, "requestState": state}),
    )
    .await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(
        done["result"]["structuredContent"][0],
        "09:00 Stand-up (alice)"
    );
    // Declining ends the flow with a tool error.
    let decline = json!({"connect": {"action": "decline"}});
    let r = mcp_call(
        &app,
        "bob",
        json!({"name": "list_events", "inputResponses": decline}),
    )
    .await;
    assert_eq!(r["result"]["isError"], true);
    // An expired link completes nothing.
    let first = mcp_call(&app, "carol", json!({"name": "list_events"})).await;
    let url = first["result"]["inputRequests"]["connect"]["params"]["url"]
        .as_str()
        .unwrap()
        .to_owned();
    calendar.expire_links();
    assert_eq!(
        get_page(&app, &url, Some("carol")).await.0,
        StatusCode::NOT_FOUND
    );
}

/// A service whose tools return request states, to test how states are refused.
struct Steps;

#[mcp::service(name = "steps", version = "1.0.0")]
impl Steps {
    /// Counts rounds in its request state.
    pub fn count(&self, label: String, context: mcp::Context) -> ToolOutput<String> {
        let n: u32 = context
            .request_state()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        if n >= 2 {
            return ToolOutput::Done(format!("{label} after {n} rounds"));
        }
        InputRequired::new().state((n + 1).to_string()).into()
    }

    /// Another tool with the same shape.
    pub fn other(&self, label: String, context: mcp::Context) -> ToolOutput<String> {
        self.count(label, context)
    }
}

fn steps(keys: &[&[u8; 32]], ttl: Duration) -> TestClient {
    let config = |c: mcp::ServerBuilder| {
        c.request_state_keys(keys.iter().copied())
            .request_state_ttl(ttl)
    };
    TestClient::new(config(mcp::Server::builder(Steps)).build().unwrap())
}

async fn round(
    c: &TestClient,
    tool: &str,
    label: &str,
    state: Option<&str>,
) -> mcp::testing::TestResponse {
    let mut params = json!({"name": tool, "arguments": {"label": label}});
    if let Some(s) = state {
        params["requestState"] = json!(s);
    }
    c.modern("tools/call", params).await
}

#[track_caller]
fn assert_invalid_state(r: &mcp::testing::TestResponse) {
    assert_eq!(
        (r.status.as_u16(), r.error_code()),
        (200, Some(-32602)),
        "{}",
        r.raw
    );
    assert_eq!(
        r.body["error"]["message"],
        "Invalid or expired requestState"
    );
    assert_eq!(
        r.body["error"]["data"],
        json!({"reason": "invalid_request_state"})
    );
}

#[tokio::test]
async fn request_states_are_signed_and_bound() {
    const K1: &[u8; 32] = b"0123456789abcdef0123456789abcdef";
    const K2: &[u8; 32] = b"fedcba9876543210fedcba9876543210";
    let c = steps(&[K1], Duration::from_secs(600));
    let s1 = round(&c, "count", "a", None).await.result()["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    let s2 = round(&c, "count", "a", Some(&s1)).await.result()["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        round(&c, "count", "a", Some(&s2)).await.result()["content"][0]["text"],
        "a after 2 rounds"
    );

    // Tampered payload, truncated, garbage, a non-string.
    let (head, tag) = s1.rsplit_once('.').unwrap();
    use base64::Engine as _;
    let payload =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(r#"{"exp":9999999999,"p":"2"}"#);
    let forged = format!("v1.{payload}.{tag}");
    assert_ne!(forged, s1);
    for bad in [
        forged,
        s1[..s1.len() - 4].to_owned(),
        head.to_owned(),
        "v1.x.y".to_owned(),
        String::new(),
    ] {
        assert_invalid_state(&round(&c, "count", "a", Some(&bad)).await);
    }
    let r = c
        .modern(
            "tools/call",
            json!({"name": "count", "arguments": {"label": "a"}, "requestState": 42}),
        )
        .await;
    assert_invalid_state(&r);
    // Another tool, other arguments.
    assert_invalid_state(&round(&c, "other", "a", Some(&s1)).await);
    assert_invalid_state(&round(&c, "count", "b", Some(&s1)).await);
    // Rotation: a new first key still accepts states of the old one; dropping it refuses them.
    let rotated = steps(&[K2, K1], Duration::from_secs(600));
    round(&rotated, "count", "a", Some(&s1)).await.result();
    let retired = steps(&[K2], Duration::from_secs(600));
    assert_invalid_state(&round(&retired, "count", "a", Some(&s1)).await);
    // A server with its own random key refuses states of another.
    let stranger = TestClient::new(mcp::Server::builder(Steps).build().unwrap());
    assert_invalid_state(&round(&stranger, "count", "a", Some(&s1)).await);
}

#[tokio::test]
async fn request_states_expire() {
    let c = steps(
        &[b"0123456789abcdef0123456789abcdef"],
        Duration::from_secs(1),
    );
    let s1 = round(&c, "count", "a", None).await.result()["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_invalid_state(&round(&c, "count", "a", Some(&s1)).await);
}

#[test]
fn invalid_keys_and_ttl_fail_attach() {
    let short = mcp::Server::builder(Steps)
        .request_state_keys([b"short".to_vec()])
        .build();
    assert!(short.unwrap_err().to_string().contains("at least 32 bytes"));
    let zero = mcp::Server::builder(Steps)
        .request_state_ttl(Duration::ZERO)
        .build();
    assert!(zero.unwrap_err().to_string().contains("ttl"));
}
