//! The client against a local test server: wire shapes, SSE, input rounds, limits,
//! timeouts and concurrency, and the negotiation cases the TypeScript peers do not produce.

mod client_common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use client_common::{
    Mock, bounded, client_info, discover_result, rpc_error, rpc_result, sse, tool,
};
use http::{HeaderMap, HeaderValue};
use mcp::client::{
    Client, ClientConfig, ClientError, ConnectOptions, HttpConfig, ProtocolError, ProtocolMode,
    StreamError, ToolCallError, TransportError,
};
use mcp::protocol::{ClientCapabilities, ElicitRequest, ElicitResult, Era};
use mcp::{CallToolResponse, Implementation};
use serde_json::{Value, json};

fn raw_json(body: String) -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

fn config(mode: ProtocolMode) -> ClientConfig {
    ClientConfig::new().protocol_mode(mode)
}

async fn connected(mock: &Mock, config: ClientConfig) -> Client {
    let client = Client::new(&mock.url, config).expect("client");
    client.connect(client_info()).await.expect("connect");
    client
}

/// A handler that accepts with `{"ok": true}` and records each message.
fn recording() -> (ClientConfig, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let config = config(ProtocolMode::Auto).elicitation_handler(move |r: ElicitRequest| {
        let record = record.clone();
        async move {
            record.lock().unwrap().push(r.params.message().to_owned());
            Ok(ElicitResult::accept(
                json!({"ok": true}).as_object().cloned().unwrap_or_default(),
            ))
        }
    });
    (config, seen)
}

#[tokio::test]
async fn modern_requests_carry_the_envelope_and_headers() {
    bounded(async {
        let mock = Mock::start(
            vec![vec![tool("a", json!({"region": {"type": "string", "x-mcp-header": "Region"}}))]],
            |_, _| None,
        )
        .await;
        let (config, _) = recording();
        let client = Client::new(&mock.url, config).unwrap();
        let caps = ClientCapabilities::default()
            .with_roots(json!({"listChanged": true}).as_object().cloned().unwrap_or_default());
        let info = client
            .connect(ConnectOptions::new(Implementation::new("probe-test", "9.9.9")).capabilities(caps))
            .await
            .unwrap();
        assert_eq!(info.era(), Era::Modern);
        assert_eq!(info.server_info().unwrap().name, "mock");
        let expected_caps = json!({"elicitation": {"form": {}, "url": {}}, "roots": {"listChanged": true}});

        let probe = mock.last("server/discover");
        assert_eq!(probe.body["id"], "server-discover-probe-1");
        assert_eq!(probe.header("mcp-protocol-version"), Some("2026-07-28"));
        assert_eq!(probe.header("mcp-method"), Some("server/discover"));
        assert_eq!(probe.header("content-type"), Some("application/json"));
        assert_eq!(probe.header("accept"), Some("application/json, text/event-stream"));
        let meta = &probe.body["params"]["_meta"];
        assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
        assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["name"], "probe-test");
        assert_eq!(meta["io.modelcontextprotocol/clientCapabilities"], expected_caps);

        let once = client
            .call("a")
            .arguments(json!({"region": "eu-west"}))
            .unwrap()
            .meta(json!({"progressToken": 7}).as_object().cloned().unwrap())
            .once();
        assert!(matches!(once.await.unwrap(), CallToolResponse::Complete(_)));
        let call = mock.last("tools/call");
        assert_eq!(call.header("mcp-protocol-version"), Some("2026-07-28"));
        assert_eq!(call.header("mcp-method"), Some("tools/call"));
        assert_eq!(call.header("mcp-name"), Some("a"));
        assert_eq!(call.header("mcp-param-region"), Some("eu-west"));
        assert_eq!(call.header("mcp-session-id"), None);
        assert!(call.body["id"].is_i64());
        let meta = &call.body["params"]["_meta"];
        assert_eq!(meta["progressToken"], 7, "user _meta kept");
        assert_eq!(meta["io.modelcontextprotocol/clientCapabilities"], expected_caps);
        assert_eq!(
            mock.last("tools/list").body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"],
            expected_caps,
            "on every modern request"
        );
        // Names outside visible ASCII travel base64-wrapped.
        client.call("ünï").arguments(json!({})).unwrap().await.unwrap();
        assert_eq!(mock.last("tools/call").header("mcp-name"), Some("=?base64?w7xuw68=?="));
    })
    .await;
}

#[tokio::test]
async fn integer_headers_beyond_the_safe_range_are_refused_locally() {
    bounded(async {
        let mock = Mock::start(
            vec![vec![tool(
                "t",
                json!({"limit": {"type": "integer", "x-mcp-header": "Limit"}}),
            )]],
            |_, _| None,
        )
        .await;
        let client = connected(&mock, config(ProtocolMode::Modern)).await;
        for big in [
            json!(9_007_199_254_740_992_i64),
            json!(-9_007_199_254_740_992_i64),
            json!(1e16),
        ] {
            let err = client
                .call("t")
                .arguments(json!({"limit": big}))
                .unwrap()
                .await
                .unwrap_err();
            match err {
                ClientError::ToolCall(ToolCallError::HeaderValueOutOfRange {
                    tool,
                    argument,
                    header,
                }) => {
                    assert_eq!(
                        (tool.as_str(), argument.as_str(), header.as_str()),
                        ("t", "limit", "Mcp-Param-Limit")
                    );
                }
                other => panic!("expected HeaderValueOutOfRange, got {other:?}"),
            }
        }
        assert_eq!(mock.count("tools/call"), 0, "nothing was sent");
        client
            .call("t")
            .arguments(json!({"limit": 9_007_199_254_740_991_i64}))
            .unwrap()
            .await
            .unwrap();
        assert_eq!(
            mock.last("tools/call").header("mcp-param-limit"),
            Some("9007199254740991")
        );
        client
            .call("t")
            .arguments(json!({"limit": -9_007_199_254_740_991_i64}))
            .unwrap()
            .await
            .unwrap();
        assert_eq!(
            mock.last("tools/call").header("mcp-param-limit"),
            Some("-9007199254740991")
        );
    })
    .await;
}

#[tokio::test]
async fn per_call_headers_cannot_override_reserved_ones() {
    bounded(async {
        let mock = Mock::start(vec![vec![]], |_, _| None).await;
        let client = connected(&mock, config(ProtocolMode::Modern)).await;
        for name in [
            "mcp-name",
            "Mcp-Param-Region",
            "mcp-session-id",
            "content-type",
        ] {
            let mut headers = HeaderMap::new();
            headers.insert(
                http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_static("x"),
            );
            let err = client
                .call("a")
                .arguments(json!({}))
                .unwrap()
                .headers(headers)
                .await
                .unwrap_err();
            assert!(
                matches!(
                    err,
                    ClientError::ToolCall(ToolCallError::ReservedHeader { .. })
                ),
                "{name}"
            );
        }
        assert_eq!(mock.count("tools/call"), 0);
    })
    .await;
}

/// A request state as JSON string content, with escapes.
const STATE: &str = r#"v1.é\"q\\\u0000\/x"#;

#[tokio::test]
async fn input_rounds_follow_the_server() {
    bounded(async {
        // Round 1: two input requests, "zeta" listed before "alpha", with request state.
        // Round 2: request state only. Round 3: complete.
        let round1 = format!(
            r#"{{"jsonrpc":"2.0","id":ID,"result":{{"resultType":"input_required","inputRequests":{{"zeta":{{"method":"elicitation/create","params":{{"mode":"form","message":"first","requestedSchema":{{"type":"object","properties":{{"ok":{{"type":"boolean"}}}}}}}}}},"alpha":{{"method":"elicitation/create","params":{{"mode":"url","message":"second","url":"https://example.com/connect"}}}}}},"requestState":"{STATE}"}}}}"#
        );
        let mock = Mock::start(vec![vec![]], move |_, r| {
            if r.rpc_method() != "tools/call" {
                return None;
            }
            let id = r.body["id"].to_string();
            let p = &r.body["params"];
            Some(match p["requestState"].as_str() {
                None => raw_json(round1.replace("ID", &id)),
                Some("s2") => rpc_result(&r.body["id"], json!({"content": [{"type": "text", "text": "done"}], "resultType": "complete"})),
                Some(_) => rpc_result(&r.body["id"], json!({"resultType": "input_required", "requestState": "s2"})),
            })
        })
        .await;
        let (config, seen) = recording();
        let client = connected(&mock, config).await;
        let started = Instant::now();
        let result = client.call("ask").arguments(json!({"x": 1})).unwrap().await.unwrap();
        assert!(started.elapsed() >= Duration::from_millis(250), "a state-only round waits");
        assert_eq!(result.content[0].as_text(), Some("done"));
        assert_eq!(*seen.lock().unwrap(), ["first", "second"], "the server's order");

        let calls: Vec<_> = mock.requests().into_iter().filter(|r| r.rpc_method() == "tools/call").collect();
        assert_eq!(calls.len(), 3);
        let ids: std::collections::HashSet<_> = calls.iter().map(|c| c.body["id"].to_string()).collect();
        assert_eq!(ids.len(), 3, "a new id each round");
        for c in &calls {
            assert_eq!(c.body["params"]["name"], "ask");
            assert_eq!(c.body["params"]["arguments"], json!({"x": 1}));
            assert_eq!(c.header("mcp-name"), Some("ask"));
        }
        let second = &calls[1].body["params"];
        let state: Value = serde_json::from_str(&format!("\"{STATE}\"")).unwrap();
        assert_eq!(second["requestState"], state, "echoed exactly");
        assert_eq!(
            second["inputResponses"],
            json!({"zeta": {"action": "accept", "content": {"ok": true}}, "alpha": {"action": "accept"}}),
            "URL answers carry no content"
        );
        let third = &calls[2].body["params"];
        assert_eq!(third["requestState"], "s2");
        assert!(third.get("inputResponses").is_none(), "this round's answers only");
    })
    .await;
}

async fn asking_mock(request: Value) -> Mock {
    Mock::start(vec![vec![]], move |_, r| {
        (r.rpc_method() == "tools/call").then(|| {
            rpc_result(
                &r.body["id"],
                json!({"resultType": "input_required", "inputRequests": {"q": request.clone()}}),
            )
        })
    })
    .await
}

#[tokio::test]
async fn input_rounds_are_bounded_and_need_a_handler() {
    bounded(async {
        let form = json!({"method": "elicitation/create", "params": {"message": "m", "requestedSchema": {"type": "object"}}});
        let mock = asking_mock(form.clone()).await;
        let (with_handler, seen) = recording();
        let client = connected(&mock, with_handler.max_input_rounds(3)).await;
        let err = client.call("t").arguments(json!({})).unwrap().await.unwrap_err();
        assert!(matches!(err, ClientError::ToolCall(ToolCallError::InputRoundsExhausted { rounds: 3, .. })), "{err:?}");
        assert_eq!(mock.count("tools/call"), 4);
        assert_eq!(seen.lock().unwrap().len(), 3);

        let bare = connected(&mock, config(ProtocolMode::Modern)).await;
        let err = bare.call("t").arguments(json!({})).unwrap().await.unwrap_err();
        assert!(matches!(err, ClientError::ToolCall(ToolCallError::NoElicitationHandler { .. })), "{err:?}");

        let sampling = asking_mock(json!({"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}})).await;
        let (with_handler, _) = recording();
        let client = connected(&sampling, with_handler).await;
        let err = client.call("t").arguments(json!({})).unwrap().await.unwrap_err();
        assert!(matches!(err, ClientError::ToolCall(ToolCallError::UnsupportedInputRequest { ref method, .. }) if method == "sampling/createMessage"), "{err:?}");

        let empty = Mock::start(vec![vec![]], |_, r| {
            (r.rpc_method() == "tools/call").then(|| rpc_result(&r.body["id"], json!({"resultType": "input_required"})))
        })
        .await;
        let (with_handler, _) = recording();
        let client = connected(&empty, with_handler).await;
        let err = client.call("t").arguments(json!({})).unwrap().await.unwrap_err();
        assert!(matches!(err, ClientError::Protocol(ProtocolError::InvalidResponse { .. })), "{err:?}");
    })
    .await;
}

/// A legacy mock: `initialize` issues session `s1`; requests without it are `400`.
async fn legacy_mock(
    hook: impl Fn(&Mock, &client_common::Recorded) -> Option<Response> + Send + Sync + 'static,
) -> Mock {
    Mock::start(vec![vec![tool("a", json!({}))]], move |m, r| {
        if r.rpc_method() == "initialize" {
            let mut response = rpc_result(
                &r.body["id"],
                json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "legacy-mock", "version": "1"}, "instructions": "hi"}),
            );
            response.headers_mut().insert("mcp-session-id", HeaderValue::from_static("s1"));
            return Some(response);
        }
        if r.method == http::Method::POST && r.header("mcp-session-id") != Some("s1") {
            return Some(rpc_error(StatusCode::BAD_REQUEST, &Value::Null, -32000, "Bad Request: Mcp-Session-Id header is required"));
        }
        hook(m, r)
    })
    .await
}

#[tokio::test]
async fn legacy_requests_carry_the_session_and_version() {
    bounded(async {
        let mock = legacy_mock(|_, _| None).await;
        let client = connected(&mock, config(ProtocolMode::Legacy)).await;
        let info = client.connection().unwrap();
        assert_eq!(
            (info.era(), info.protocol_version()),
            (Era::Legacy, "2025-06-18")
        );
        assert_eq!(info.session_id(), Some("s1"));
        assert_eq!(info.instructions(), Some("hi"));
        client.list_tools().await.unwrap();
        client
            .call("a")
            .arguments(json!({"k": 1}))
            .unwrap()
            .await
            .unwrap();
        client.close().await.unwrap();

        let requests = mock.requests();
        let init = &requests[0];
        assert_eq!(init.rpc_method(), "initialize");
        assert_eq!(init.header("mcp-protocol-version"), None);
        assert_eq!(init.header("mcp-session-id"), None);
        assert_eq!(init.body["params"]["protocolVersion"], "2025-11-25");
        assert!(init.body["params"].get("_meta").is_none());
        let initialized = &requests[1];
        assert_eq!(
            initialized.body,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        );
        for r in requests.iter().skip(1) {
            assert_eq!(r.header("mcp-session-id"), Some("s1"), "{:?}", r.body);
            assert_eq!(r.header("mcp-protocol-version"), Some("2025-06-18"));
            assert_eq!(r.header("mcp-method"), None);
        }
        let call = mock.last("tools/call");
        assert!(
            call.body["params"].get("_meta").is_none(),
            "no envelope on legacy"
        );
        assert!(
            requests.iter().any(|r| r.method == http::Method::DELETE),
            "DELETE on close"
        );
        assert!(
            requests.iter().any(|r| r.method == http::Method::GET),
            "standalone stream tried"
        );
    })
    .await;
}

#[tokio::test]
async fn legacy_without_initialize_makes_no_call_and_sends_no_version() {
    bounded(async {
        let mock = Mock::start(vec![vec![tool("a", json!({}))]], |_, _| None).await;
        let client = Client::new(&mock.url, config(ProtocolMode::Legacy)).unwrap();
        let info = client
            .connect(ConnectOptions::new(client_info()).legacy_initialize(false))
            .await
            .unwrap();
        assert_eq!(info.protocol_version(), "2025-03-26");
        assert_eq!(info.capabilities(), &Default::default());
        assert!(mock.requests().is_empty(), "no network call");
        client.list_tools().await.unwrap();
        let list = mock.last("tools/list");
        assert_eq!(list.header("mcp-protocol-version"), None);
        assert_eq!(list.header("mcp-session-id"), None);
        client.close().await.unwrap();
        assert_eq!(mock.requests().len(), 1, "no DELETE without a session");
    })
    .await;
}

#[tokio::test]
async fn sse_responses_and_pushed_requests_on_legacy() {
    bounded(async {
        let mock = legacy_mock(|_, r| {
            (r.rpc_method() == "tools/call").then(|| {
                let id = r.body["id"].clone();
                sse(&[
                    "id: e1\nretry: 1000\ndata: ".into(),
                    ": keepalive".into(),
                    format!("event: message\ndata: {}", json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}})),
                    format!("data: {}", json!({"jsonrpc": "2.0", "id": "srv-ping", "method": "ping"})),
                    format!("event: message\ndata: {}", json!({"jsonrpc": "2.0", "id": 77, "method": "elicitation/create", "params": {"message": "form?", "requestedSchema": {"type": "object"}}})),
                    format!("event: message\ndata: {}", json!({"jsonrpc": "2.0", "id": 78, "method": "elicitation/create", "params": {"mode": "url", "message": "url?", "url": "https://example.com", "elicitationId": "e"}})),
                    format!("event: message\ndata: {}", json!({"jsonrpc": "2.0", "id": 79, "method": "roots/list"})),
                    format!("event: other\ndata: {}", json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "wrong"}]}})),
                    format!("data: {}", json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "right"}]}})),
                ])
            })
        })
        .await;
        let (config, seen) = recording();
        let client = connected(&mock, config.protocol_mode(ProtocolMode::Legacy)).await;
        let r = client.call("a").arguments(json!({})).unwrap().await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("right"));
        assert_eq!(*seen.lock().unwrap(), ["form?", "url?"]);
        let answers: Vec<_> = mock
            .requests()
            .into_iter()
            .filter(|r| r.body.get("method").is_none() && r.body.get("id").is_some())
            .collect();
        assert_eq!(answers.len(), 4);
        for a in &answers {
            assert_eq!(a.header("mcp-session-id"), Some("s1"));
        }
        assert_eq!(answers[0].body, json!({"jsonrpc": "2.0", "id": "srv-ping", "result": {}}));
        assert_eq!(answers[1].body["result"], json!({"action": "accept", "content": {"ok": true}}));
        assert_eq!(answers[2].body["result"], json!({"action": "accept"}), "no content on URL answers");
        assert_eq!(answers[3].body["error"]["code"], -32601);
    })
    .await;
}

#[tokio::test]
async fn modern_connections_drop_server_requests() {
    bounded(async {
        let mock = Mock::start(vec![vec![]], |_, r| {
            (r.rpc_method() == "tools/call").then(|| {
                sse(&[
                    format!("data: {}", json!({"jsonrpc": "2.0", "id": 5, "method": "ping"})),
                    format!("data: {}", json!({"jsonrpc": "2.0", "id": r.body["id"], "result": {"content": [], "resultType": "complete"}})),
                ])
            })
        })
        .await;
        let client = connected(&mock, config(ProtocolMode::Modern)).await;
        client.call("a").arguments(json!({})).unwrap().await.unwrap();
        assert!(mock.requests().iter().all(|r| r.body.get("method").is_some()), "nothing answered");
    })
    .await;
}

#[tokio::test]
async fn broken_streams_and_bodies_are_bounded() {
    bounded(async {
        let big = "x".repeat(8 * 1024);
        let big2 = big.clone();
        let mock = Mock::start(vec![vec![]], move |_, r| match r.body["params"]["name"].as_str() {
            Some("ends") => Some(sse(&["data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}".into()])),
            Some("big_body") => Some(rpc_result(&r.body["id"], json!({"content": [{"type": "text", "text": big}]}))),
            Some("big_event") => Some(sse(&[format!("data: {}", json!({"jsonrpc": "2.0", "id": r.body["id"], "result": {"content": [{"type": "text", "text": big2}]}}))])),
            Some("html") => Some(([(axum::http::header::CONTENT_TYPE, "text/html")], "<html>").into_response()),
            Some("garbage") => Some(raw_json("{not json".into())),
            Some("nothing") => Some(StatusCode::ACCEPTED.into_response()),
            _ => None,
        })
        .await;
        let http = HttpConfig::new().max_response_bytes(4096).max_event_bytes(4096);
        let client = connected(&mock, config(ProtocolMode::Modern).http(http)).await;
        let call = |name: &'static str| {
            let client = client.clone();
            async move { client.call(name).arguments(json!({})).unwrap().await.unwrap_err() }
        };
        assert!(matches!(call("ends").await, ClientError::Stream(StreamError::EndedWithoutResponse)));
        assert!(matches!(call("big_body").await, ClientError::Transport(TransportError::BodyTooLarge { limit: 4096 })));
        assert!(matches!(call("big_event").await, ClientError::Stream(StreamError::EventTooLarge { limit: 4096 })));
        assert!(matches!(call("html").await, ClientError::Transport(TransportError::UnexpectedContentType { status: 200, .. })));
        assert!(matches!(call("garbage").await, ClientError::Transport(TransportError::InvalidBody { status: 200, .. })));
        assert!(matches!(call("nothing").await, ClientError::Protocol(ProtocolError::InvalidResponse { .. })));
    })
    .await;
}

#[tokio::test]
async fn each_exchange_has_its_own_timeout() {
    bounded(async {
        let mock = Mock::start(vec![vec![]], |_, _| None).await;
        let client = connected(
            &mock,
            config(ProtocolMode::Modern).timeout(Duration::from_millis(300)),
        )
        .await;
        mock.delay("tools/call", Duration::from_secs(3));
        let started = Instant::now();
        let err = client
            .call("slow")
            .arguments(json!({}))
            .unwrap()
            .await
            .unwrap_err();
        assert!(
            matches!(err, ClientError::Transport(TransportError::Timeout(_))),
            "{err:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(2));
    })
    .await;
}

#[tokio::test]
async fn concurrent_calls_proceed_concurrently() {
    bounded(async {
        let mock = Mock::start(vec![vec![]], |_, _| None).await;
        let client = connected(
            &mock,
            config(ProtocolMode::Modern).timeout(Duration::from_secs(5)),
        )
        .await;
        mock.delay("tools/call", Duration::from_millis(400));
        let started = Instant::now();
        let calls: Vec<_> = (0..8)
            .map(|i| {
                let client = client.clone();
                tokio::spawn(
                    async move { client.call("t").arguments(json!({"i": i})).unwrap().await },
                )
            })
            .collect();
        for (i, call) in calls.into_iter().enumerate() {
            let r = call.await.unwrap().unwrap();
            assert_eq!(
                r.content[0].as_text(),
                Some(json!({"i": i}).to_string().as_str())
            );
        }
        assert!(
            started.elapsed() < Duration::from_millis(2000),
            "took {:?}",
            started.elapsed()
        );
    })
    .await;
}

#[tokio::test]
async fn waiting_for_a_session_renewal_does_not_consume_the_timeout() {
    bounded(async {
        let session = Arc::new(Mutex::new(String::new()));
        let issued = Arc::new(AtomicUsize::new(0));
        let (s2, i2) = (session.clone(), issued.clone());
        let mock = Mock::start(vec![vec![]], move |_, r| {
            if r.rpc_method() == "initialize" {
                let id = format!("s{}", i2.fetch_add(1, Ordering::SeqCst) + 1);
                *s2.lock().unwrap() = id.clone();
                let mut response = rpc_result(
                    &r.body["id"],
                    json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "m", "version": "1"}}),
                );
                response.headers_mut().insert("mcp-session-id", HeaderValue::from_str(&id).unwrap());
                return Some(response);
            }
            let current = s2.lock().unwrap().clone();
            (r.method == http::Method::POST && r.header("mcp-session-id") != Some(current.as_str()))
                .then(|| rpc_error(StatusCode::NOT_FOUND, &Value::Null, -32001, "Session not found"))
        })
        .await;
        let client = connected(&mock, config(ProtocolMode::Legacy).timeout(Duration::from_millis(900))).await;
        assert_eq!(client.session_id().as_deref(), Some("s1"));
        // The server forgets the session; re-initializing is slow, calls take a while.
        *session.lock().unwrap() = "gone".into();
        mock.delay("initialize", Duration::from_millis(600));
        mock.delay("tools/call", Duration::from_millis(400));
        let calls: Vec<_> = (0..2)
            .map(|_| {
                let client = client.clone();
                tokio::spawn(async move { client.call("t").arguments(json!({})).unwrap().await })
            })
            .collect();
        for call in calls {
            call.await.unwrap().expect("the call after the renewal has its own timeout");
        }
        assert_eq!(client.session_id().as_deref(), Some("s2"));
        assert_eq!(mock.count("initialize"), 2, "one renewal for both calls");
        assert_eq!(mock.count("notifications/initialized"), 2);
    })
    .await;
}

/// An answer to the probe, by request id.
type ProbeAnswer = Box<dyn Fn(&Value) -> Response + Send + Sync>;

/// A mock whose probe answer is `probe`; legacy `initialize` is answered.
async fn probed(probe: impl Fn(&Value) -> Response + Send + Sync + 'static) -> Mock {
    Mock::start(vec![vec![]], move |_, r| match r.rpc_method() {
        "server/discover" => Some(probe(&r.body["id"])),
        "initialize" => Some(rpc_result(
            &r.body["id"],
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "old", "version": "1"}}),
        )),
        _ => None,
    })
    .await
}

async fn outcome(mock: &Mock, mode: ProtocolMode) -> Result<Era, ClientError> {
    let client = Client::new(&mock.url, config(mode)).unwrap();
    client.connect(client_info()).await.map(|i| i.era())
}

#[tokio::test]
async fn auto_negotiation_cases() {
    bounded(async {
        // Fall back to legacy.
        let legacy_cases: Vec<ProbeAnswer> = vec![
            Box::new(|_| (StatusCode::NOT_FOUND, "Not Found").into_response()),
            Box::new(|id| rpc_error(StatusCode::BAD_REQUEST, id, -32022, "Unsupported")),
            Box::new(|id| {
                let mut e = rpc_error(StatusCode::BAD_REQUEST, id, -32022, "x");
                *e.body_mut() = axum::body::Body::from(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32022, "message": "x", "data": {"supported": ["2025-06-18"]}}}).to_string());
                e
            }),
            Box::new(|id| rpc_error(StatusCode::NOT_FOUND, id, -32601, "Method not found")),
            Box::new(|id| rpc_error(StatusCode::OK, id, -32021, "caps")),
            Box::new(|id| rpc_result(id, json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "x", "version": "1"}}))),
            Box::new(|id| rpc_result(id, json!({"supportedVersions": ["2099-01-01"], "capabilities": {}}))),
        ];
        for (i, case) in legacy_cases.into_iter().enumerate() {
            let case = Arc::new(case);
            let c2 = case.clone();
            let mock = probed(move |id| c2(id)).await;
            assert_eq!(outcome(&mock, ProtocolMode::Auto).await.unwrap(), Era::Legacy, "case {i}");
            assert_eq!(mock.count("initialize"), 1, "case {i}");
            let err = outcome(&mock, ProtocolMode::Modern).await.unwrap_err();
            assert!(matches!(err, ClientError::Protocol(ProtocolError::Negotiation { .. })), "case {i}: {err:?}");
            assert_eq!(mock.count("initialize"), 1, "modern never falls back (case {i})");
        }
        // Errors, no fallback.
        let error_cases: Vec<ProbeAnswer> = vec![
            Box::new(|_| (StatusCode::UNAUTHORIZED, [("www-authenticate", "Bearer error=\"invalid_token\"")], "{}").into_response()),
            Box::new(|_| (StatusCode::FORBIDDEN, "{}").into_response()),
            Box::new(|id| rpc_error(StatusCode::INTERNAL_SERVER_ERROR, id, -32603, "boom")),
            Box::new(|_| (StatusCode::BAD_GATEWAY, "bad gateway").into_response()),
            Box::new(|_| ([(axum::http::header::CONTENT_TYPE, "text/html")], "<html>").into_response()),
            Box::new(|_| raw_json("{oops".into())),
            Box::new(|id| {
                raw_json(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32022, "message": "x", "data": {"supported": ["2099-01-01"]}}}).to_string())
            }),
        ];
        for (i, case) in error_cases.into_iter().enumerate() {
            let case = Arc::new(case);
            let c2 = case.clone();
            let mock = probed(move |id| c2(id)).await;
            assert!(outcome(&mock, ProtocolMode::Auto).await.is_err(), "case {i}");
            assert_eq!(mock.count("initialize"), 0, "no fallback (case {i})");
        }
        // Modern.
        let mock = probed(|id| rpc_result(id, discover_result())).await;
        assert_eq!(outcome(&mock, ProtocolMode::Auto).await.unwrap(), Era::Modern);
        // A network failure is an error.
        let client = Client::new("http://127.0.0.1:9/mcp", config(ProtocolMode::Auto)).unwrap();
        assert!(matches!(
            client.connect(client_info()).await,
            Err(ClientError::Transport(TransportError::Request { .. }))
        ));
    })
    .await;
}

/// `-32022` listing the version just probed (SEP-2575: a server may reject a first
/// attempt): the client probes once more with it, and gives up if rejected again.
#[tokio::test]
async fn a_rejected_probe_naming_its_own_version_is_retried_once() {
    bounded(async {
        fn rejection(id: &Value) -> Response {
            raw_json(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": ["2026-07-28"], "requested": "2026-07-28"}}}).to_string())
        }
        let probes = Arc::new(AtomicUsize::new(0));
        let seen = probes.clone();
        let mock = probed(move |id| {
            if seen.fetch_add(1, Ordering::SeqCst) == 0 {
                rejection(id)
            } else {
                rpc_result(id, discover_result())
            }
        })
        .await;
        assert_eq!(outcome(&mock, ProtocolMode::Auto).await.unwrap(), Era::Modern);
        assert_eq!(mock.count("server/discover"), 2);
        let retried = &mock.requests()[1];
        assert_eq!(retried.body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
        assert_eq!(mock.count("initialize"), 0);

        let always = probed(rejection).await;
        let err = outcome(&always, ProtocolMode::Auto).await.unwrap_err();
        assert!(matches!(err, ClientError::Protocol(ProtocolError::Negotiation { .. })), "{err:?}");
        assert_eq!(always.count("server/discover"), 2, "one retry only");
        assert_eq!(always.count("initialize"), 0, "no fallback");
    })
    .await;
}

#[tokio::test]
async fn a_handler_error_fails_the_call() {
    bounded(async {
        let mock = asking_mock(json!({"method": "elicitation/create", "params": {"message": "m", "requestedSchema": {"type": "object"}}})).await;
        let config = config(ProtocolMode::Modern).elicitation_handler(|_r: ElicitRequest| async {
            Err::<ElicitResult, _>(ClientError::handler("the user closed the window"))
        });
        let client = connected(&mock, config).await;
        let err = client.call("t").arguments(json!({})).unwrap().await.unwrap_err();
        assert!(matches!(err, ClientError::Handler { ref message, .. } if message.contains("closed")), "{err:?}");
    })
    .await;
}

#[tokio::test]
async fn pagination_stops_on_a_repeated_cursor_and_is_bounded() {
    bounded(async {
        let repeating = Mock::start(vec![vec![]], |_, r| {
            (r.rpc_method() == "tools/list").then(|| {
                rpc_result(
                    &r.body["id"],
                    json!({"tools": [tool("t", json!({}))], "nextCursor": "same", "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}),
                )
            })
        })
        .await;
        let client = connected(&repeating, config(ProtocolMode::Modern)).await;
        let all = client.list_tools().await.unwrap();
        assert_eq!(all.tools.len(), 2, "first page, then the repeated one");
        assert_eq!(repeating.count("tools/list"), 2);

        let endless = Mock::start(vec![vec![]], |m, r| {
            (r.rpc_method() == "tools/list").then(|| {
                let n = m.state.counter.fetch_add(1, Ordering::SeqCst);
                rpc_result(
                    &r.body["id"],
                    json!({"tools": [], "nextCursor": format!("c{n}"), "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}),
                )
            })
        })
        .await;
        let client = connected(&endless, config(ProtocolMode::Modern)).await;
        let err = client.list_tools().await.unwrap_err();
        assert!(
            matches!(err, ClientError::Protocol(ProtocolError::InvalidResponse { .. })),
            "{err:?}"
        );
        assert_eq!(endless.count("tools/list"), 64);
    })
    .await;
}

#[tokio::test]
async fn an_unknown_content_type_does_not_fail_the_result() {
    bounded(async {
        let video = json!({"type": "video", "uri": "https://example.com/v.mp4", "durationMs": 1200});
        let good = json!({"content": [video.clone(), {"type": "text", "text": "hi"}], "resultType": "complete"});
        let malformed = json!({"content": [{"type": "text"}], "resultType": "complete"});
        let mock = Mock::start(vec![vec![]], move |_, r| {
            (r.rpc_method() == "tools/call").then(|| {
                let result = if r.body["params"]["name"] == "film" { &good } else { &malformed };
                rpc_result(&r.body["id"], result.clone())
            })
        })
        .await;
        let client = connected(&mock, config(ProtocolMode::Auto)).await;
        let result = client.call("film").arguments(json!({})).unwrap().await.unwrap();
        assert_eq!(result.content.len(), 2);
        assert_eq!(result.content[0].content_type(), "video");
        assert_eq!(serde_json::to_value(&result.content[0]).unwrap(), video, "kept as sent");
        assert_eq!(result.joined_text(), "hi");

        // A known type with a wrong shape is still a bad response, not an unknown block.
        let err = client.call("broken").arguments(json!({})).unwrap().await.unwrap_err();
        assert!(
            matches!(err, ClientError::Protocol(ProtocolError::InvalidResponse { .. })),
            "{err:?}"
        );
    })
    .await;
}

/// A legacy call whose future is dropped before the answer sends `notifications/cancelled`
/// naming it on the session; an answered call sends none.
#[tokio::test]
async fn a_dropped_legacy_call_is_cancelled_on_the_server() {
    bounded(async {
        let mock = legacy_mock(|_, _| None).await;
        mock.delay("tools/call", Duration::from_secs(5));
        let client = connected(&mock, config(ProtocolMode::Legacy)).await;
        client.list_tools().await.unwrap();
        let call = client.call("a").arguments(json!({})).unwrap();
        let gave_up = tokio::time::timeout(Duration::from_millis(200), call.send()).await;
        assert!(gave_up.is_err(), "the call should still be waiting");
        let deadline = Instant::now() + Duration::from_secs(5);
        let cancelled = loop {
            let requests = mock.requests();
            let called = requests
                .iter()
                .find(|r| r.rpc_method() == "tools/call")
                .cloned();
            let cancel = requests
                .iter()
                .find(|r| r.rpc_method() == "notifications/cancelled")
                .cloned();
            if let (Some(called), Some(cancel)) = (called, cancel) {
                break (called, cancel);
            }
            assert!(
                Instant::now() < deadline,
                "no notifications/cancelled was sent"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let (called, cancel) = cancelled;
        assert_eq!(cancel.body["params"]["requestId"], called.body["id"]);
        assert_eq!(cancel.header("mcp-session-id"), Some("s1"));
        // A call that gets its answer sends no cancellation.
        let before = mock.count("notifications/cancelled");
        client.list_tools().await.unwrap();
        assert_eq!(mock.count("notifications/cancelled"), before);
    })
    .await;
}
