//! Change notifications in process: `subscriptions/listen` (acknowledgement, honoured
//! filter, stamping, errors, the listener cap, a listener that never reads, graceful end),
//! legacy GET-stream notifications and resource subscriptions, run-time tool toggling, and
//! two replicas sharing one [`InProcessBus`] and one session store (notifications, GET-stream
//! messages and elicitation answers crossing replicas).
#![allow(missing_docs)]

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use http::{Request, StatusCode};
use http_body_util::BodyExt as _;
use mcp::notify::InProcessBus;
use mcp::session::MemoryStore;
use mcp::testing::{PATH, TestClient};
use mcp::{ElicitAction, InputRequired, ServerError, SessionMode, ToolOutput};
use serde_json::{Value, json};
use tower::ServiceExt as _;

const SUB: &str = "io.modelcontextprotocol/subscriptionId";

#[derive(serde::Deserialize, mcp::Form)]
struct Confirm {
    /// Go ahead
    ok: bool,
}

struct Shop;

#[mcp::service(name = "shop", version = "1.0.0")]
impl Shop {
    /// Echoes.
    pub fn echo(&self, text: String) -> String {
        text
    }

    /// Deletes everything (disabled at run time in the tests).
    pub fn purge(&self) -> String {
        "purged".into()
    }

    /// Announces a tool-list change from inside a tool.
    pub fn restock(&self, ctx: mcp::Context) -> String {
        match ctx.notifier() {
            Some(n) => {
                n.tools_changed();
                "announced".into()
            }
            None => "no notifier".into(),
        }
    }

    /// Sends a message on the caller's legacy GET stream.
    #[expect(deprecated)]
    pub fn ping_stream(&self, session: Option<mcp::Session>) -> String {
        match session {
            Some(s) => format!(
                "live {}",
                s.notify(
                    "notifications/message",
                    json!({"level": "info", "data": "hello"})
                )
            ),
            None => "no session".into(),
        }
    }

    /// Asks for a confirmation.
    pub async fn confirm(
        &self,
        context: mcp::Context,
    ) -> Result<ToolOutput<String>, mcp::ToolError> {
        match context.elicit_result("c") {
            None => Ok(InputRequired::new()
                .elicit("c", mcp::elicit_form("Sure?", mcp::form_of::<Confirm>()))
                .state("round-1")
                .into()),
            Some(r) if r.action == ElicitAction::Accept => {
                let ok = context
                    .accepted_content::<Confirm>("c")
                    .is_some_and(|c| c.ok);
                let state = context.request_state().unwrap_or("none");
                Ok(ToolOutput::Done(format!("confirmed {ok} after {state}")))
            }
            Some(_) => Ok(ToolOutput::Done("declined".into())),
        }
    }
}

/// An advanced service with resources, subscriptions and prompts.
struct Library;

impl mcp::AdvancedService for Library {
    fn info(&self) -> mcp::Implementation {
        mcp::Implementation::new("library", "1.0.0")
    }

    fn features(&self) -> mcp::Features {
        mcp::Features::none()
            .with_resource_subscriptions()
            .with_prompts()
    }

    async fn on_list_tools(
        &self,
        _cursor: Option<String>,
        _request: &mcp::RequestContext,
    ) -> Result<mcp::ListToolsResult, ServerError> {
        Ok(mcp::ListToolsResult::new(Vec::new()))
    }

    async fn on_call_tool(
        &self,
        params: mcp::CallToolParams,
        _request: &mcp::RequestContext,
    ) -> Result<mcp::CallToolResponse, ServerError> {
        Err(ServerError::invalid_params(format!(
            "Unknown tool: {}",
            params.name
        )))
    }
}

struct Peer {
    server: mcp::Server,
    router: axum::Router,
    client: TestClient,
}

impl Peer {
    fn new(server: mcp::Server) -> Self {
        Self {
            router: mcp::transport::http::router(PATH, server.clone()),
            client: TestClient::new(server.clone()),
            server,
        }
    }

    async fn send(&self, request: Request<Body>) -> http::Response<Body> {
        match self.router.clone().oneshot(request).await {
            Ok(r) => r,
            Err(never) => match never {},
        }
    }

    /// Opens a modern listen stream with `filter`.
    async fn listen(&self, filter: Value) -> Sse {
        let request = self
            .client
            .modern_request("subscriptions/listen", json!({"notifications": filter}));
        let response = self.send(request).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Sse::new(response.into_body())
    }
}

/// Reads the `data:` of SSE events.
struct Sse {
    body: Body,
    buffer: String,
}

impl Sse {
    fn new(body: Body) -> Self {
        Self {
            body,
            buffer: String::new(),
        }
    }

    /// The next message, `None` at the end of the stream; fails after 5 s.
    async fn next(&mut self) -> Option<Value> {
        tokio::time::timeout(Duration::from_secs(5), self.next_inner())
            .await
            .expect("an SSE event within 5 s")
    }

    async fn next_inner(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                let data: String = event
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if data.is_empty() {
                    continue;
                }
                return Some(serde_json::from_str(&data).expect("JSON data"));
            }
            match self.body.frame().await {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.buffer.push_str(&String::from_utf8_lossy(&data));
                    }
                }
                _ => return None,
            }
        }
    }

    /// Asserts nothing arrives within `wait`.
    async fn quiet(&mut self, wait: Duration) {
        if let Ok(m) = tokio::time::timeout(wait, self.next_inner()).await {
            panic!("expected nothing, got {m:?}");
        }
    }
}

fn library() -> mcp::Server {
    mcp::Server::builder(Library)
        .list_changed(true)
        .build()
        .expect("valid")
}

#[tokio::test]
async fn listen_acknowledges_the_honoured_filter_then_streams_matching_changes() {
    let peer = Peer::new(library());
    let caps = peer.client.modern("server/discover", json!({})).await;
    assert_eq!(
        caps.result()["capabilities"],
        json!({"logging": {}, "tools": {"listChanged": true}, "prompts": {"listChanged": true},
               "resources": {"subscribe": true, "listChanged": true}})
    );
    let mut sse = peer
        .listen(
            json!({"toolsListChanged": true, "promptsListChanged": false,
                       "resourceSubscriptions": ["test://a"], "unknownMember": 7}),
        )
        .await;
    let ack = sse.next().await.unwrap();
    let id = ack["params"]["_meta"][SUB].clone();
    assert!(id.is_number(), "{ack}");
    assert_eq!(
        ack,
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
               "params": {"notifications": {"toolsListChanged": true, "resourceSubscriptions": ["test://a"]},
                          "_meta": {SUB: id}}})
    );
    let notifier = peer.server.notifier();
    assert_eq!(notifier.listener_count(), 1);
    notifier.prompts_changed(); // not asked for
    notifier.resource_updated("test://other"); // not subscribed
    notifier.resources_changed(); // not asked for
    notifier.tools_changed();
    notifier.resource_updated("test://a");
    assert_eq!(
        sse.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": {SUB: id}}})
    );
    assert_eq!(
        sse.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": "test://a", "_meta": {SUB: id}}})
    );
    sse.quiet(Duration::from_millis(100)).await;
    drop(sse);
    assert_eq!(notifier.listener_count(), 0);
}

#[tokio::test]
async fn capabilities_follow_what_the_server_can_emit() {
    // Without list_changed nothing is advertised, and a listen asking for it gets an empty
    // acknowledgement, then the graceful result at once.
    let server = mcp::Server::builder(Shop).build().unwrap();
    let peer = Peer::new(server);
    let caps = peer.client.modern("server/discover", json!({})).await;
    assert_eq!(
        caps.result()["capabilities"]["tools"],
        json!({"listChanged": false})
    );
    let mut sse = peer
        .listen(json!({"toolsListChanged": true, "resourceSubscriptions": ["x://y"]}))
        .await;
    let ack = sse.next().await.unwrap();
    assert_eq!(ack["params"]["notifications"], json!({}));
    let id = ack["params"]["_meta"][SUB].clone();
    assert_eq!(
        sse.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
               "_meta": {SUB: id, "io.modelcontextprotocol/serverInfo": {"name": "shop", "version": "1.0.0"}}}})
    );
    assert_eq!(sse.next().await, None);
    assert_eq!(peer.server.notifier().listener_count(), 0);
}

#[tokio::test]
async fn bad_listen_requests_get_the_typescript_errors() {
    let peer = Peer::new(library());
    for params in [
        json!({}),
        json!({"notifications": null}),
        json!({"notifications": []}),
        json!({"notifications": {"toolsListChanged": "yes"}}),
        json!({"notifications": {"resourceSubscriptions": [1]}}),
    ] {
        let r = peer
            .client
            .modern("subscriptions/listen", params.clone())
            .await;
        assert_eq!(r.status, StatusCode::OK, "{params}");
        assert_eq!(
            r.body["error"],
            json!({"code": -32602, "message": "Invalid params: 'notifications' is required and must be a valid SubscriptionFilter"}),
            "{params}"
        );
    }
    // The legacy era has no such method.
    let r = peer
        .client
        .legacy("subscriptions/listen", json!({"notifications": {}}))
        .await;
    assert_eq!(r.error_code(), Some(-32601));
}

#[tokio::test]
async fn the_listener_cap_refuses_one_more_and_frees_places_on_close() {
    let server = mcp::Server::builder(Library)
        .list_changed(true)
        .max_listeners(2)
        .build()
        .unwrap();
    let peer = Peer::new(server);
    // Duplicate listens (same filter) are two independent streams, as with the TypeScript
    // server: both get every change.
    let mut a = peer.listen(json!({"toolsListChanged": true})).await;
    let mut b = peer.listen(json!({"toolsListChanged": true})).await;
    a.next().await.unwrap();
    b.next().await.unwrap();
    let r = peer
        .client
        .modern(
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(
        r.body["error"],
        json!({"code": -32603, "message": "Subscription limit reached"})
    );
    peer.server.notifier().tools_changed();
    assert_eq!(
        a.next().await.unwrap()["method"],
        "notifications/tools/list_changed"
    );
    assert_eq!(
        b.next().await.unwrap()["method"],
        "notifications/tools/list_changed"
    );
    drop(a);
    let mut c = peer.listen(json!({"toolsListChanged": true})).await;
    assert_eq!(
        c.next().await.unwrap()["method"],
        "notifications/subscriptions/acknowledged"
    );
}

#[tokio::test]
async fn a_listener_that_never_reads_is_dropped_with_an_error_and_others_keep_theirs() {
    let server = mcp::Server::builder(Library)
        .list_changed(true)
        .listener_queue(4)
        .build()
        .unwrap();
    let peer = Peer::new(server);
    let mut slow = peer.listen(json!({"toolsListChanged": true})).await;
    let mut fast = peer.listen(json!({"toolsListChanged": true})).await;
    slow.next().await.unwrap();
    fast.next().await.unwrap();
    let notifier = peer.server.notifier();
    for _ in 0..10 {
        notifier.tools_changed();
        // The fast one reads each notification as it comes.
        assert_eq!(
            fast.next().await.unwrap()["method"],
            "notifications/tools/list_changed"
        );
    }
    assert_eq!(notifier.listener_count(), 1, "the slow listener is dropped");
    for _ in 0..4 {
        assert_eq!(
            slow.next().await.unwrap()["method"],
            "notifications/tools/list_changed"
        );
    }
    let end = slow.next().await.unwrap();
    assert_eq!(end["error"]["code"], -32603);
    assert!(
        end["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Subscription dropped"),
        "{end}"
    );
    assert!(end["id"].is_number());
    assert_eq!(slow.next().await, None);
}

#[tokio::test]
async fn the_graceful_result_ends_listen_streams_at_shutdown() {
    let token = mcp::transport::CancellationToken::new();
    let server = library();
    let router = axum::Router::new().route_service(
        PATH,
        mcp::McpService::new(server.clone()).with_shutdown(token.clone()),
    );
    let client = TestClient::new(server);
    let request = client.modern_request(
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    let response = match router.oneshot(request).await {
        Ok(r) => r,
        Err(never) => match never {},
    };
    let mut sse = Sse::new(response.into_body());
    let ack = sse.next().await.unwrap();
    token.cancel();
    let end = sse.next().await.unwrap();
    assert_eq!(end["id"], ack["params"]["_meta"][SUB]);
    assert_eq!(end["result"]["resultType"], "complete");
    assert_eq!(sse.next().await, None);
}

#[tokio::test]
async fn disabled_tools_are_hidden_refused_and_announced() {
    let server = mcp::Server::builder(Shop)
        .list_changed(true)
        .build()
        .unwrap();
    let peer = Peer::new(server);
    let mut sse = peer.listen(json!({"toolsListChanged": true})).await;
    sse.next().await.unwrap();
    let names = |r: &mcp::testing::TestResponse| -> Vec<String> {
        r.result()["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    // A modern listing before the change: the fixed first page is cached, and must not hide
    // the change.
    let listed = peer.client.modern("tools/list", json!({})).await;
    assert!(names(&listed).contains(&"purge".to_owned()));
    let legacy = peer.client.legacy("tools/list", json!({})).await;
    assert!(names(&legacy).contains(&"purge".to_owned()));
    let notifier = peer.server.notifier();
    notifier.disable_tool("purge");
    notifier.disable_tool("purge"); // already disabled: no second announcement
    assert_eq!(
        sse.next().await.unwrap()["method"],
        "notifications/tools/list_changed"
    );
    sse.quiet(Duration::from_millis(100)).await;
    let listed = peer.client.modern("tools/list", json!({})).await;
    assert!(!names(&listed).contains(&"purge".to_owned()));
    let legacy = peer.client.legacy("tools/list", json!({})).await;
    assert!(!names(&legacy).contains(&"purge".to_owned()));
    let refused = peer
        .client
        .modern("tools/call", json!({"name": "purge", "arguments": {}}))
        .await;
    let unknown = peer
        .client
        .modern("tools/call", json!({"name": "nope", "arguments": {}}))
        .await;
    assert_eq!(refused.body["error"]["code"], -32602);
    assert_eq!(refused.body["error"]["message"], "Unknown tool: purge");
    assert_eq!(refused.status, unknown.status);
    let legacy = peer
        .client
        .legacy("tools/call", json!({"name": "purge", "arguments": {}}))
        .await;
    assert_eq!(legacy.body["error"]["message"], "Unknown tool: purge");
    notifier.enable_tool("purge");
    assert_eq!(
        sse.next().await.unwrap()["method"],
        "notifications/tools/list_changed"
    );
    let called = peer
        .client
        .modern("tools/call", json!({"name": "purge", "arguments": {}}))
        .await;
    assert_eq!(called.result()["content"][0]["text"], "purged");
    let listed = peer.client.modern("tools/list", json!({})).await;
    assert!(names(&listed).contains(&"purge".to_owned()));
    // A tool announces through its context.
    let r = peer
        .client
        .modern("tools/call", json!({"name": "restock", "arguments": {}}))
        .await;
    assert_eq!(r.result()["content"][0]["text"], "announced");
    assert_eq!(
        sse.next().await.unwrap()["method"],
        "notifications/tools/list_changed"
    );
    // Legacy calls reach it too: alone, and as the member of a batch (which runs without a
    // call state of its own).
    let call = json!({"name": "restock", "arguments": {}});
    let alone = legacy_post(None, json!(7), "tools/call", call.clone());
    let alone = json_body(peer.router.clone().oneshot(alone).await.unwrap()).await;
    assert_eq!(alone["result"]["content"][0]["text"], "announced");
    let member = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": call});
    let mut batch = legacy_post(None, json!(0), "tools/call", json!({}));
    *batch.body_mut() = Body::from(json!([member]).to_string());
    let batch = json_body(peer.router.clone().oneshot(batch).await.unwrap()).await;
    assert_eq!(
        batch[0]["result"]["content"][0]["text"], "announced",
        "{batch}"
    );
}

// ------------------------------------------------------------------ legacy and replicas

/// Two replicas of one service sharing a bus and a session store.
fn replicas<S: mcp::IntoService>(make: impl Fn() -> S) -> (Peer, Peer) {
    let bus = InProcessBus::new();
    let store = Arc::new(MemoryStore::new());
    let build = || {
        mcp::Server::builder(make())
            .info("replica", "1.0.0")
            .session_mode(SessionMode::Stateful)
            .session_store(store.clone())
            .event_bus(bus.clone())
            .list_changed(true)
            .build()
            .unwrap()
    };
    (Peer::new(build()), Peer::new(build()))
}

fn legacy_post(session: Option<&str>, id: Value, method: &str, params: Value) -> Request<Body> {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let mut b = Request::post(PATH)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(s) = session {
        b = b.header("mcp-session-id", s);
    }
    b.body(Body::from(body.to_string())).unwrap()
}

async fn legacy_session(peer: &Peer, capabilities: Value) -> String {
    let r = peer
        .send(legacy_post(
            None,
            json!(0),
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
                   "clientInfo": {"name": "t", "version": "1"}}),
        ))
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let id = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let request = Request::post(PATH)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", &id)
        .body(Body::from(note.to_string()))
        .unwrap();
    assert_eq!(peer.send(request).await.status(), StatusCode::ACCEPTED);
    id
}

async fn get_stream(peer: &Peer, session: &str) -> Sse {
    let request = Request::get(PATH)
        .header("accept", "text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", session)
        .body(Body::empty())
        .unwrap();
    let r = peer.send(request).await;
    assert_eq!(r.status(), StatusCode::OK);
    Sse::new(r.into_body())
}

async fn json_body(response: http::Response<Body>) -> Value {
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice(&bytes).unwrap_or(Value::Null)
}

#[tokio::test]
async fn legacy_get_streams_hear_changes_raised_on_another_replica() {
    let (a, b) = replicas(|| Library);
    let session = legacy_session(&a, json!({})).await;
    let mut stream = get_stream(&a, &session).await;
    // The subscription is recorded through replica b, to a URI the service does not list
    // (accepted, as by the TypeScript server).
    let r = b
        .send(legacy_post(
            Some(&session),
            json!(1),
            "resources/subscribe",
            json!({"uri": "test://nowhere"}),
        ))
        .await;
    assert_eq!(json_body(r).await["result"], json!({}));
    let notifier = b.server.notifier();
    notifier.tools_changed();
    assert_eq!(
        stream.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
    notifier.resource_updated("test://elsewhere");
    notifier.resource_updated("test://nowhere");
    assert_eq!(
        stream.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "test://nowhere"}})
    );
    let r = a
        .send(legacy_post(
            Some(&session),
            json!(2),
            "resources/unsubscribe",
            json!({"uri": "test://nowhere"}),
        ))
        .await;
    assert_eq!(json_body(r).await["result"], json!({}));
    notifier.resource_updated("test://nowhere");
    notifier.prompts_changed();
    assert_eq!(
        stream.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"})
    );
}

#[tokio::test]
async fn session_messages_and_elicitation_answers_cross_replicas() {
    let (a, b) = replicas(|| Shop);
    let session = legacy_session(&a, json!({"elicitation": {}})).await;
    let mut stream = get_stream(&a, &session).await;
    // A tool on b writes to the GET stream held by a.
    let r = b
        .send(legacy_post(
            Some(&session),
            json!(1),
            "tools/call",
            json!({"name": "ping_stream", "arguments": {}}),
        ))
        .await;
    assert_eq!(
        json_body(r).await["result"]["content"][0]["text"],
        "live false"
    );
    assert_eq!(
        stream.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hello"}})
    );
    // A call on a asks for a confirmation on its own response stream; the answer is POSTed
    // to b.
    let call = a
        .send(legacy_post(
            Some(&session),
            json!(2),
            "tools/call",
            json!({"name": "confirm", "arguments": {}}),
        ))
        .await;
    let mut call = Sse::new(call.into_body());
    let ask = call.next().await.unwrap();
    assert_eq!(ask["method"], "elicitation/create");
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"ok": true}}});
    let request = Request::post(PATH)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", &session)
        .body(Body::from(answer.to_string()))
        .unwrap();
    assert_eq!(b.send(request).await.status(), StatusCode::ACCEPTED);
    let done = call.next().await.unwrap();
    assert_eq!(
        done["result"]["content"][0]["text"], "confirmed true after round-1",
        "{done}"
    );
}

#[tokio::test]
async fn modern_listeners_hear_changes_and_toggles_of_another_replica() {
    let (a, b) = replicas(|| Shop);
    let mut sse = a.listen(json!({"toolsListChanged": true})).await;
    sse.next().await.unwrap();
    b.server.notifier().disable_tool("purge");
    assert_eq!(
        sse.next().await.unwrap()["method"],
        "notifications/tools/list_changed"
    );
    // The toggle reached replica a too.
    assert!(!a.server.notifier().is_tool_enabled("purge"));
    let r = a
        .client
        .modern("tools/call", json!({"name": "purge", "arguments": {}}))
        .await;
    assert_eq!(r.body["error"]["message"], "Unknown tool: purge");
}

#[tokio::test]
async fn a_modern_input_required_flow_continues_on_another_replica_with_shared_keys() {
    let key = [7u8; 32];
    let build = || {
        mcp::Server::builder(Shop)
            .request_state_keys([key])
            .build()
            .unwrap()
    };
    let (a, b) = (TestClient::new(build()), TestClient::new(build()));
    let caps = json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}});
    let first = a
        .modern(
            "tools/call",
            json!({"name": "confirm", "arguments": {}, "_meta": caps}),
        )
        .await;
    assert_eq!(first.result()["resultType"], "input_required");
    let answers = json!({"c": {"action": "accept", "content": {"ok": true}}});
    let state = first.result()["requestState"].clone();
    assert!(state.is_string(), "{}", first.raw);
    let params = json!({"name": "confirm", "arguments": {}, "inputResponses": answers,
                        "requestState": state, "_meta": caps});
    let second = b.modern("tools/call", params.clone()).await;
    assert_eq!(
        second.result()["content"][0]["text"],
        "confirmed true after round-1"
    );
    // A replica with other keys refuses the state a sealed.
    let other = TestClient::new(
        mcp::Server::builder(Shop)
            .request_state_keys([[9u8; 32]])
            .build()
            .unwrap(),
    );
    let refused = other.modern("tools/call", params).await;
    assert_eq!(
        refused.body["error"]["message"],
        "Invalid or expired requestState"
    );
}

#[tokio::test]
async fn close_streams_ends_listens_with_the_graceful_result() {
    let peer = Peer::new(library());
    let mut sse = peer.listen(json!({"toolsListChanged": true})).await;
    let ack = sse.next().await.unwrap();
    peer.server.notifier().tools_changed();
    peer.server.close_streams();
    // What was queued comes first, then the result, then the end.
    assert_eq!(
        sse.next().await.unwrap()["method"],
        "notifications/tools/list_changed"
    );
    let end = sse.next().await.unwrap();
    assert_eq!(end["id"], ack["params"]["_meta"][SUB]);
    assert_eq!(end["result"]["resultType"], "complete");
    assert_eq!(sse.next().await, None);
    assert_eq!(peer.server.notifier().listener_count(), 0);
}
