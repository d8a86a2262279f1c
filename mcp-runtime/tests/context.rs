//! `mcp::Context` on the wire, in-process: logs and progress on the request's SSE stream
//! (legacy sessions, legacy stateless, modern), `logging/setLevel`, cancellation by
//! `notifications/cancelled` and by a closed connection, sampling in both eras, and a
//! request stream ended early and resumed with `Last-Event-ID`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::body::Body;
use http::{Request, StatusCode};
use http_body_util::BodyExt as _;
use mcp::testing::{PATH, TestClient};
use mcp::{Context, LogLevel, SamplingMessage, SamplingRequest};
use serde_json::{Value, json};
use tower::ServiceExt as _;

#[derive(Default)]
struct Flags {
    dropped: AtomicBool,
    woke: AtomicBool,
}

struct Drops(Arc<Flags>);

impl Drop for Drops {
    fn drop(&mut self) {
        self.0.dropped.store(true, Ordering::SeqCst);
    }
}

#[derive(Default)]
struct Talk {
    flags: Arc<Flags>,
}

#[mcp::service(name = "talk", version = "1.0.0", session_mode = "auto")]
impl Talk {
    /// Logs at three levels.
    pub async fn chatty(&self, ctx: Context) -> String {
        ctx.log(LogLevel::Debug, "d").await;
        ctx.log_as("db", LogLevel::Info, json!({"rows": 2})).await;
        ctx.log(LogLevel::Error, "e").await;
        "done".into()
    }

    /// Reports progress (one value repeats and is not sent).
    pub async fn count(&self, ctx: Context) -> String {
        ctx.progress(0.0, 100.0, None).await;
        ctx.progress(50.0, 100.0, Some("half")).await;
        ctx.progress(50.0, 100.0, Some("again")).await;
        ctx.progress(100.0, None, None).await;
        "counted".into()
    }

    /// Waits long; tells when it is dropped and when a spawned task sees the cancellation.
    pub async fn slow(&self, ctx: Context) -> String {
        let guard = Drops(self.flags.clone());
        let flags = self.flags.clone();
        let cancelled = ctx.cancelled();
        tokio::spawn(async move {
            cancelled.await;
            flags.woke.store(true, Ordering::SeqCst);
        });
        ctx.log(LogLevel::Info, "started").await;
        tokio::time::sleep(Duration::from_secs(30)).await;
        drop(guard);
        "late".into()
    }

    /// Asks the client's model.
    pub async fn ask_model(
        &self,
        ctx: Context,
        question: String,
    ) -> Result<String, mcp::ToolError> {
        let ask = SamplingRequest::new(vec![SamplingMessage::user(question)], 50);
        let answer = ctx.sample(ask).await?;
        Ok(format!(
            "{}: {}",
            answer.model,
            answer.text().unwrap_or_default()
        ))
    }

    /// Logs, then asks the client's model.
    pub async fn log_then_ask(&self, ctx: Context) -> Result<String, mcp::ToolError> {
        ctx.log(LogLevel::Info, "asking").await;
        let ask = SamplingRequest::new(vec![SamplingMessage::user("x")], 5);
        Ok(ctx.sample(ask).await?.model)
    }

    /// Asks twice, one question after the other.
    pub async fn ask_twice(&self, ctx: Context) -> Result<String, mcp::ToolError> {
        let one = ctx
            .sample(SamplingRequest::new(vec![SamplingMessage::user("one")], 5))
            .await?;
        let two = ctx
            .sample(SamplingRequest::new(vec![SamplingMessage::user("two")], 5))
            .await?;
        Ok(format!(
            "{}+{}",
            one.text().unwrap_or_default(),
            two.text().unwrap_or_default()
        ))
    }

    /// Logs through `tracing`: one forwarded target, one that is not.
    pub async fn traced(&self) -> String {
        tracing::info!(target: "talk_tools", rows = 3, "loaded");
        tracing::debug!(target: "talk_tools::db", "query");
        tracing::error!(target: "some_driver", "password=hunter2");
        tracing::warn!(target: "talk_tools", "careful");
        "traced".into()
    }

    /// Ends its stream, then answers.
    pub async fn polling(&self, ctx: Context) -> String {
        let closed = ctx.close_stream(Duration::from_millis(50)).await;
        ctx.log(LogLevel::Info, "after close").await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        format!("closed={closed}")
    }
}

fn client(talk: Talk) -> TestClient {
    TestClient::new(mcp::Server::builder(talk).build().expect("valid"))
}

fn router(talk: Talk) -> axum::Router {
    mcp::transport::http::router(PATH, mcp::Server::builder(talk).build().expect("valid"))
}

/// The JSON messages of an SSE body.
fn sse_messages(raw: &str) -> Vec<Value> {
    raw.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data: ").or_else(|| l.strip_prefix("data:")))
                .collect();
            serde_json::from_str(&data.join("\n")).ok()
        })
        .collect()
}

fn legacy_post(session: Option<&str>, body: &Value) -> Request<Body> {
    let mut b = Request::post(PATH)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(id) = session {
        b = b
            .header("mcp-session-id", id)
            .header("mcp-protocol-version", "2025-11-25");
    }
    b.body(Body::from(body.to_string())).unwrap()
}

fn rpc(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

async fn open_session(app: &axum::Router, capabilities: Value) -> String {
    let init = rpc(
        0,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "t", "version": "1"}}),
    );
    let r = app.clone().oneshot(legacy_post(None, &init)).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    r.headers()["mcp-session-id"].to_str().unwrap().to_owned()
}

async fn body_text(r: http::Response<Body>) -> String {
    String::from_utf8_lossy(&r.into_body().collect().await.unwrap().to_bytes()).into_owned()
}

fn methods(messages: &[Value]) -> Vec<&str> {
    messages
        .iter()
        .map(|m| m["method"].as_str().unwrap_or("<response>"))
        .collect()
}

// ---------------------------------------------------------------- logging

#[tokio::test]
async fn legacy_session_logs_follow_set_level_on_the_call_stream() {
    let app = router(Talk::default());
    let session = open_session(&app, json!({})).await;
    // No level set: every level, on the call's SSE stream, before the response.
    let r = app
        .clone()
        .oneshot(legacy_post(
            Some(&session),
            &rpc(1, "tools/call", json!({"name": "chatty", "arguments": {}})),
        ))
        .await
        .unwrap();
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let messages = sse_messages(&body_text(r).await);
    assert_eq!(
        methods(&messages),
        [
            "notifications/message",
            "notifications/message",
            "notifications/message",
            "<response>"
        ]
    );
    assert_eq!(
        messages[1]["params"],
        json!({"level": "info", "logger": "db", "data": {"rows": 2}})
    );
    assert_eq!(messages[3]["result"]["content"][0]["text"], "done");
    // `logging/setLevel` answers exactly `{}` and filters later calls of the session.
    let r = app
        .clone()
        .oneshot(legacy_post(
            Some(&session),
            &rpc(2, "logging/setLevel", json!({"level": "info"})),
        ))
        .await
        .unwrap();
    let body: Value = serde_json::from_str(&body_text(r).await).unwrap();
    assert_eq!(body, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    let r = app
        .clone()
        .oneshot(legacy_post(
            Some(&session),
            &rpc(3, "tools/call", json!({"name": "chatty", "arguments": {}})),
        ))
        .await
        .unwrap();
    let messages = sse_messages(&body_text(r).await);
    let levels: Vec<_> = messages
        .iter()
        .filter_map(|m| m["params"]["level"].as_str())
        .collect();
    assert_eq!(levels, ["info", "error"]);
}

#[tokio::test]
async fn set_level_refuses_unknown_levels_and_modern_has_no_set_level() {
    let c = client(Talk::default());
    // The TypeScript server's message, byte for byte: the zod issue list.
    let zod = "[\n  {\n    \"code\": \"invalid_value\",\n    \"values\": [\n      \"debug\",\n      \"info\",\n      \"notice\",\n      \"warning\",\n      \"error\",\n      \"critical\",\n      \"alert\",\n      \"emergency\"\n    ],\n    \"path\": [\n      \"params\",\n      \"level\"\n    ],\n    \"message\": \"Invalid option: expected one of \\\"debug\\\"|\\\"info\\\"|\\\"notice\\\"|\\\"warning\\\"|\\\"error\\\"|\\\"critical\\\"|\\\"alert\\\"|\\\"emergency\\\"\"\n  }\n]";
    for params in [
        json!({"level": "loud"}),
        json!({"level": 3}),
        json!({}),
        json!({"level": "INFO"}),
    ] {
        let r = c.legacy("logging/setLevel", params.clone()).await;
        assert_eq!(r.status, StatusCode::OK, "{params}");
        assert_eq!(r.error_code(), Some(-32603), "{params}: {}", r.raw);
        assert_eq!(r.body["error"]["message"], zod);
    }
    // Stateless legacy: answered `{}` and forgotten.
    let r = c
        .legacy("logging/setLevel", json!({"level": "error"}))
        .await;
    assert_eq!(r.result(), &json!({}));
    let r = c
        .legacy("tools/call", json!({"name": "chatty", "arguments": {}}))
        .await;
    assert_eq!(sse_messages(&r.raw).len(), 4, "{}", r.raw);
    // Modern: the method does not exist.
    let r = c.modern("logging/setLevel", json!({"level": "info"})).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.error_code(), Some(-32601));
}

#[tokio::test]
async fn modern_logs_only_with_a_log_level_in_the_envelope() {
    let c = client(Talk::default());
    let r = c
        .modern("tools/call", json!({"name": "chatty", "arguments": {}}))
        .await;
    assert_eq!(r.headers["content-type"], "application/json");
    assert_eq!(r.result()["content"][0]["text"], "done");
    let r = c
        .modern(
            "tools/call",
            json!({"name": "chatty", "arguments": {}, "_meta": {"io.modelcontextprotocol/logLevel": "error"}}),
        )
        .await;
    assert_eq!(r.headers["content-type"], "text/event-stream");
    let messages = sse_messages(&r.raw);
    assert_eq!(methods(&messages), ["notifications/message", "<response>"]);
    assert_eq!(messages[0]["params"]["level"], "error");
    assert_eq!(messages[1]["result"]["resultType"], "complete");
    // A client that accepts only JSON gets the response alone.
    let r = c
        .modern_with_headers(
            "tools/call",
            json!({"name": "chatty", "arguments": {}, "_meta": {"io.modelcontextprotocol/logLevel": "debug"}}),
            &[("accept", "application/json")],
        )
        .await;
    assert_eq!(r.headers["content-type"], "application/json", "{}", r.raw);
    assert_eq!(r.result()["content"][0]["text"], "done");
    let capabilities = c.modern("server/discover", json!({})).await;
    assert_eq!(capabilities.result()["capabilities"]["logging"], json!({}));
}

// ---------------------------------------------------------------- progress

#[tokio::test]
async fn progress_echoes_the_token_and_needs_one() {
    let c = client(Talk::default());
    for token in [json!(7), json!("tok-1")] {
        let r = c
            .legacy(
                "tools/call",
                json!({"name": "count", "arguments": {}, "_meta": {"progressToken": token}}),
            )
            .await;
        let messages = sse_messages(&r.raw);
        assert_eq!(
            methods(&messages),
            [
                "notifications/progress",
                "notifications/progress",
                "notifications/progress",
                "<response>"
            ],
            "{}",
            r.raw
        );
        assert_eq!(
            messages[0]["params"],
            json!({"progressToken": token, "progress": 0.0, "total": 100.0})
        );
        assert_eq!(messages[1]["params"]["message"], "half");
        assert_eq!(
            messages[2]["params"],
            json!({"progressToken": token, "progress": 100.0})
        );
    }
    // No token: no progress, plain JSON.
    let r = c
        .legacy(
            "tools/call",
            json!({"name": "count", "arguments": {}, "_meta": {}}),
        )
        .await;
    assert_eq!(r.headers["content-type"], "application/json");
    assert_eq!(r.result()["content"][0]["text"], "counted");
    // A token that is neither a string nor an integer makes the message invalid, as the
    // TypeScript server judges it: HTTP 400, -32600, the request's id.
    for token in [
        json!(null),
        json!(1.5),
        json!(true),
        json!([1]),
        json!({"a": 1}),
    ] {
        let meta = json!({"progressToken": token});
        for r in [
            c.legacy(
                "tools/call",
                json!({"name": "count", "arguments": {}, "_meta": meta}),
            )
            .await,
            c.modern(
                "tools/call",
                json!({"name": "count", "arguments": {}, "_meta": meta}),
            )
            .await,
        ] {
            assert_eq!(r.status, StatusCode::BAD_REQUEST, "{token}: {}", r.raw);
            assert_eq!(r.error_code(), Some(-32600));
            assert_eq!(
                r.body["error"]["message"],
                "Bad Request: the request body is not a valid JSON-RPC message"
            );
            assert!(r.body["id"].is_i64());
        }
    }
    // Modern: the same notifications.
    let r = c
        .modern(
            "tools/call",
            json!({"name": "count", "arguments": {}, "_meta": {"progressToken": "m"}}),
        )
        .await;
    assert_eq!(sse_messages(&r.raw).len(), 4, "{}", r.raw);
}

// ---------------------------------------------------------------- cancellation

#[tokio::test]
async fn legacy_cancel_drops_the_tool_and_sends_no_response() {
    let talk = Talk::default();
    let flags = talk.flags.clone();
    let app = router(talk);
    let session = open_session(&app, json!({})).await;
    let call = app
        .clone()
        .oneshot(legacy_post(
            Some(&session),
            &rpc(5, "tools/call", json!({"name": "slow", "arguments": {}})),
        ))
        .await
        .unwrap();
    // The first log switched the response to SSE; the tool now sleeps.
    assert_eq!(call.headers()["content-type"], "text/event-stream");
    let reading = tokio::spawn(body_text(call));
    // A cancellation for another id, or another session, changes nothing.
    for (sid, id) in [(session.as_str(), json!(6)), (session.as_str(), json!("5"))] {
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}});
        let r = app
            .clone()
            .oneshot(legacy_post(Some(sid), &cancel))
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::ACCEPTED);
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!flags.dropped.load(Ordering::SeqCst));
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5, "reason": "stop"}});
    let r = app
        .clone()
        .oneshot(legacy_post(Some(&session), &cancel))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let raw = tokio::time::timeout(Duration::from_secs(5), reading)
        .await
        .expect("the stream ends")
        .unwrap();
    let messages = sse_messages(&raw);
    assert_eq!(methods(&messages), ["notifications/message"], "{raw}");
    assert!(flags.dropped.load(Ordering::SeqCst));
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(flags.woke.load(Ordering::SeqCst));
    // Cancelling it again (finished) is accepted and ignored; the session still serves.
    let r = app
        .clone()
        .oneshot(legacy_post(Some(&session), &cancel))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let r = app
        .clone()
        .oneshot(legacy_post(
            Some(&session),
            &rpc(7, "tools/call", json!({"name": "chatty", "arguments": {}})),
        ))
        .await
        .unwrap();
    assert!(body_text(r).await.contains("done"));
}

#[tokio::test]
async fn modern_client_closing_its_request_cancels_the_call() {
    let talk = Talk::default();
    let flags = talk.flags.clone();
    let c = Arc::new(client(talk));
    let call = {
        let c = c.clone();
        tokio::spawn(async move {
            c.modern("tools/call", json!({"name": "slow", "arguments": {}}))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!flags.dropped.load(Ordering::SeqCst));
    call.abort();
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(flags.dropped.load(Ordering::SeqCst));
    assert!(flags.woke.load(Ordering::SeqCst));
}

// ---------------------------------------------------------------- sampling

fn sampling_answer(text: &str) -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "m1", "stopReason": "endTurn"})
}

#[tokio::test]
async fn modern_sampling_is_an_input_required_round() {
    let c = client(Talk::default());
    let caps = json!({"io.modelcontextprotocol/clientCapabilities": {"sampling": {}}});
    let r = c
        .modern(
            "tools/call",
            json!({"name": "ask_model", "arguments": {"question": "2+2?"}, "_meta": caps}),
        )
        .await;
    let result = r.result();
    assert_eq!(result["resultType"], "input_required", "{}", r.raw);
    let request = &result["inputRequests"]["mcp-sampling-1"];
    assert_eq!(request["method"], "sampling/createMessage");
    assert_eq!(request["params"]["maxTokens"], 50);
    assert_eq!(request["params"]["messages"][0]["content"]["text"], "2+2?");
    let state = result["requestState"].as_str().unwrap().to_owned();
    let r = c
        .modern(
            "tools/call",
            json!({"name": "ask_model", "arguments": {"question": "2+2?"}, "_meta": caps,
                   "inputResponses": {"mcp-sampling-1": sampling_answer("4")}, "requestState": state}),
        )
        .await;
    assert_eq!(r.result()["content"][0]["text"], "m1: 4", "{}", r.raw);
    // An answer that is not a sampling result: -32602, HTTP 200.
    let r = c
        .modern(
            "tools/call",
            json!({"name": "ask_model", "arguments": {"question": "2+2?"}, "_meta": caps,
                   "inputResponses": {"mcp-sampling-1": {"action": "accept", "content": {}}}, "requestState": state}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.error_code(), Some(-32602), "{}", r.raw);
    // The state is bound to the arguments.
    let r = c
        .modern(
            "tools/call",
            json!({"name": "ask_model", "arguments": {"question": "other"}, "_meta": caps,
                   "inputResponses": {"mcp-sampling-1": sampling_answer("4")}, "requestState": state}),
        )
        .await;
    assert_eq!(r.error_code(), Some(-32602), "{}", r.raw);
    // Answers without a signed state are not taken: the question is asked again.
    let r = c
        .modern(
            "tools/call",
            json!({"name": "ask_model", "arguments": {"question": "2+2?"}, "_meta": caps,
                   "inputResponses": {"mcp-sampling-1": sampling_answer("4")}}),
        )
        .await;
    assert_eq!(r.result()["resultType"], "input_required");
    // A client without the capability: -32021, HTTP 400.
    let r = c
        .modern(
            "tools/call",
            json!({"name": "ask_model", "arguments": {"question": "2+2?"}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.raw);
    assert_eq!(r.error_code(), Some(-32021));
    assert_eq!(
        r.body["error"]["data"],
        json!({"requiredCapabilities": {"sampling": {}}})
    );
    // The same after a log: the error keeps its status, the queued log is dropped.
    let r = c
        .modern(
            "tools/call",
            json!({"name": "log_then_ask", "arguments": {}, "_meta": {"io.modelcontextprotocol/logLevel": "debug"}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.raw);
    assert_eq!(r.headers["content-type"], "application/json");
    assert_eq!(r.error_code(), Some(-32021));
}

#[tokio::test]
async fn modern_sampling_rounds_carry_earlier_answers() {
    let c = client(Talk::default());
    let caps = json!({"io.modelcontextprotocol/clientCapabilities": {"sampling": {}}});
    let r = c
        .modern(
            "tools/call",
            json!({"name": "ask_twice", "arguments": {}, "_meta": caps}),
        )
        .await;
    let state = r.result()["requestState"].as_str().unwrap().to_owned();
    let r = c
        .modern(
            "tools/call",
            json!({"name": "ask_twice", "arguments": {}, "_meta": caps,
                   "inputResponses": {"mcp-sampling-1": sampling_answer("a")}, "requestState": state}),
        )
        .await;
    let result = r.result();
    assert_eq!(result["resultType"], "input_required", "{}", r.raw);
    assert!(result["inputRequests"]["mcp-sampling-2"].is_object());
    assert!(result["inputRequests"].get("mcp-sampling-1").is_none());
    let state = result["requestState"].as_str().unwrap().to_owned();
    let r = c
        .modern(
            "tools/call",
            json!({"name": "ask_twice", "arguments": {}, "_meta": caps,
                   "inputResponses": {"mcp-sampling-2": sampling_answer("b")}, "requestState": state}),
        )
        .await;
    assert_eq!(r.result()["content"][0]["text"], "a+b", "{}", r.raw);
}

/// Reads SSE events from a streaming body until one holds a JSON message.
async fn next_message(body: &mut Body, buffer: &mut String) -> Option<Value> {
    loop {
        if let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            if let Some(m) = sse_messages(&event).pop() {
                return Some(m);
            }
            continue;
        }
        let frame = body.frame().await?.ok()?;
        if let Ok(data) = frame.into_data() {
            buffer.push_str(&String::from_utf8_lossy(&data));
        }
    }
}

#[tokio::test]
async fn legacy_sampling_is_a_request_on_the_call_stream() {
    let app = router(Talk::default());
    let session = open_session(&app, json!({"sampling": {}})).await;
    let call = app
        .clone()
        .oneshot(legacy_post(
            Some(&session),
            &rpc(
                1,
                "tools/call",
                json!({"name": "ask_model", "arguments": {"question": "hi?"}}),
            ),
        ))
        .await
        .unwrap();
    let mut body = call.into_body();
    let mut buffer = String::new();
    let ask = next_message(&mut body, &mut buffer).await.unwrap();
    assert_eq!(ask["method"], "sampling/createMessage");
    assert_eq!(ask["params"]["messages"][0]["content"]["text"], "hi?");
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": sampling_answer("hello")});
    let r = app
        .clone()
        .oneshot(legacy_post(Some(&session), &answer))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let response = next_message(&mut body, &mut buffer).await.unwrap();
    assert_eq!(response["id"], 1);
    assert_eq!(response["result"]["content"][0]["text"], "m1: hello");

    // An answer of the wrong shape: -32602 for the call.
    let call = app
        .clone()
        .oneshot(legacy_post(
            Some(&session),
            &rpc(
                2,
                "tools/call",
                json!({"name": "ask_model", "arguments": {"question": "x"}}),
            ),
        ))
        .await
        .unwrap();
    let mut body = call.into_body();
    let ask = next_message(&mut body, &mut buffer).await.unwrap();
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"model": 3}});
    app.clone()
        .oneshot(legacy_post(Some(&session), &answer))
        .await
        .unwrap();
    let response = next_message(&mut body, &mut buffer).await.unwrap();
    assert_eq!(response["error"]["code"], -32602, "{response}");

    // A client without the capability, and a request without a session: -32603, no request.
    let bare = open_session(&app, json!({})).await;
    for sid in [Some(bare.as_str()), None] {
        let r = app
            .clone()
            .oneshot(legacy_post(
                sid,
                &rpc(
                    3,
                    "tools/call",
                    json!({"name": "ask_model", "arguments": {"question": "x"}}),
                ),
            ))
            .await
            .unwrap();
        let body: Value = serde_json::from_str(&body_text(r).await).unwrap();
        assert_eq!(body["error"]["code"], -32603, "{body}");
    }
}

// ---------------------------------------------------------------- SSE polling

#[tokio::test]
async fn a_stream_ended_early_resumes_with_last_event_id() {
    let app = router(Talk::default());
    let session = open_session(&app, json!({})).await;
    let call = app
        .clone()
        .oneshot(legacy_post(
            Some(&session),
            &rpc(9, "tools/call", json!({"name": "polling", "arguments": {}})),
        ))
        .await
        .unwrap();
    assert_eq!(call.headers()["content-type"], "text/event-stream");
    let raw = body_text(call).await;
    // One priming event: an id, the retry hint, empty data; then the stream ends.
    let id_line = raw
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .unwrap()
        .to_owned();
    assert!(raw.contains("retry: 50\n"), "{raw}");
    assert!(sse_messages(&raw).is_empty(), "{raw}");
    let get = |last: &str| {
        Request::get(PATH)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25")
            .header("last-event-id", last)
            .body(Body::empty())
            .unwrap()
    };
    let resumed = app.clone().oneshot(get(&id_line)).await.unwrap();
    assert_eq!(resumed.status(), StatusCode::OK);
    let raw = tokio::time::timeout(Duration::from_secs(5), body_text(resumed))
        .await
        .expect("the resumed stream ends after the response");
    let messages = sse_messages(&raw);
    assert_eq!(
        methods(&messages),
        ["notifications/message", "<response>"],
        "{raw}"
    );
    assert_eq!(messages[1]["id"], 9);
    assert_eq!(messages[1]["result"]["content"][0]["text"], "closed=true");
    // An unknown stream, or another session's: 404.
    let r = app.clone().oneshot(get("nope:0")).await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);

    // Without a session the stream cannot end early: the tool is told, the call completes.
    let stateless = client(Talk::default());
    let r = stateless
        .legacy("tools/call", json!({"name": "polling", "arguments": {}}))
        .await;
    assert!(r.raw.contains("closed=false"), "{}", r.raw);
}

#[tokio::test]
async fn a_context_outside_a_request_sends_nothing() {
    let ctx = Context::default();
    ctx.log(LogLevel::Emergency, "x").await;
    ctx.progress(1.0, None, None).await;
    assert!(!ctx.is_cancelled());
    assert!(!ctx.close_stream(Duration::from_millis(1)).await);
    let r = ctx
        .sample(SamplingRequest::new(vec![SamplingMessage::user("x")], 1))
        .await;
    assert_eq!(r, Err(mcp::SamplingError::NoChannel));
}

#[tokio::test]
async fn a_closed_connection_cancels_a_slow_call_over_tcp() {
    use tokio::io::AsyncWriteExt as _;
    let talk = Talk::default();
    let flags = talk.flags.clone();
    let listener = mcp::HttpServer::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = mcp::Server::builder(talk).build().unwrap();
    let app = mcp::transport::http::router(PATH, server);
    tokio::spawn(listener.serve(app.into_make_service()).into_future());
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "slow", "arguments": {},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let request = format!(
        "POST {PATH} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: slow\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!flags.dropped.load(Ordering::SeqCst));
    // The client goes away without reading anything.
    drop(stream);
    let mut waited = Duration::ZERO;
    while !flags.dropped.load(Ordering::SeqCst) && waited < Duration::from_secs(6) {
        tokio::time::sleep(Duration::from_millis(50)).await;
        waited += Duration::from_millis(50);
    }
    assert!(
        flags.dropped.load(Ordering::SeqCst),
        "the call still runs after its client left"
    );
    assert!(flags.woke.load(Ordering::SeqCst));
}

#[tokio::test]
async fn tracing_events_of_named_targets_reach_the_client() {
    use tracing_subscriber::layer::SubscriberExt as _;
    let subscriber = tracing_subscriber::registry().with(mcp::ClientLogLayer::new(["talk_tools"]));
    let _guard = tracing::subscriber::set_default(subscriber);
    let app = router(Talk::default());
    let session = open_session(&app, json!({})).await;
    let call = |id: i64| {
        legacy_post(
            Some(&session),
            &rpc(id, "tools/call", json!({"name": "traced", "arguments": {}})),
        )
    };
    // No level set yet: every level of the named targets, in order; the driver's line
    // never leaves the server.
    let raw = body_text(app.clone().oneshot(call(1)).await.unwrap()).await;
    assert!(!raw.contains("hunter2"), "{raw}");
    let messages = sse_messages(&raw);
    let logs: Vec<_> = messages
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .map(|m| m["params"].clone())
        .collect();
    assert_eq!(
        logs,
        [
            json!({"level": "info", "logger": "talk_tools", "data": {"rows": 3, "message": "loaded"}}),
            json!({"level": "debug", "logger": "talk_tools::db", "data": "query"}),
            json!({"level": "warning", "logger": "talk_tools", "data": "careful"}),
        ],
        "{raw}"
    );
    // After `logging/setLevel` the session's threshold applies.
    let set = rpc(2, "logging/setLevel", json!({"level": "warning"}));
    app.clone()
        .oneshot(legacy_post(Some(&session), &set))
        .await
        .unwrap();
    let raw = body_text(app.clone().oneshot(call(3)).await.unwrap()).await;
    let levels: Vec<_> = sse_messages(&raw)
        .iter()
        .filter_map(|m| m["params"]["level"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(levels, ["warning"], "{raw}");
    // A modern request without a log level gets none.
    let c = client(Talk::default());
    let r = c
        .modern("tools/call", json!({"name": "traced", "arguments": {}}))
        .await;
    assert_eq!(r.headers["content-type"], "application/json", "{}", r.raw);
}
