//! The in-process server transport, driven with raw JSON-RPC on a pipe end: both eras and
//! their pinning, a legacy connection as one session, messages before the response, the
//! elicitation shim's server→client request, cancellation, no HTTP anywhere (headers,
//! parts), oversized messages, and the end of serving when the client's end is dropped.
#![allow(missing_docs)]

use std::time::Duration;

use mcp::transport::in_process::{PipeEnd, pipe};
use mcp::transport::stdio::StdioConfig;
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";

mod stream;
use stream::Svc;

struct Peer {
    end: PipeEnd,
    served: tokio::task::JoinHandle<Result<(), mcp::Error>>,
}

fn start(server: mcp::Server, config: StdioConfig) -> Peer {
    let (client, end) = pipe(16);
    let served = tokio::spawn(server.serve_in_process_with(end, config));
    Peer {
        end: client,
        served,
    }
}

fn peer() -> Peer {
    start(
        mcp::Server::builder(Svc).build().unwrap(),
        StdioConfig::new(),
    )
}

fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/logLevel": "debug"
    })
}

fn tool_call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":name,"arguments":arguments}})
}

impl Peer {
    async fn send(&self, v: Value) {
        self.end.send(v.to_string()).await.unwrap();
    }

    async fn recv(&mut self) -> Value {
        let message = tokio::time::timeout(Duration::from_secs(10), self.end.recv())
            .await
            .expect("no message within 10 s")
            .expect("the pipe closed");
        assert!(!message.ends_with('\n'), "a message carries no framing");
        serde_json::from_str(&message).unwrap()
    }

    async fn call(&mut self, v: Value) -> Value {
        self.send(v).await;
        self.recv().await
    }

    async fn initialize(&mut self, capabilities: Value) -> Value {
        let r = self
            .call(
                json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
                "protocolVersion":"2025-11-25","capabilities":capabilities,
                "clientInfo":{"name":"t","version":"1"}}}),
            )
            .await;
        self.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
            .await;
        r
    }

    /// Drops the client's end and waits for the server to stop.
    async fn finish(self) {
        drop(self.end);
        tokio::time::timeout(Duration::from_secs(10), self.served)
            .await
            .expect("the server did not stop within 10 s")
            .unwrap()
            .unwrap();
    }
}

#[tokio::test]
async fn a_legacy_connection_is_one_session_and_sees_no_http() {
    let server = mcp::Server::builder(Svc).build().unwrap();
    let store = server.session_store().unwrap().clone();
    let mut p = start(server, StdioConfig::new());
    let init = p.initialize(json!({})).await;
    assert_eq!(init["result"]["serverInfo"]["name"], "stdio-test");
    for n in 1..=2 {
        let r = p.call(tool_call(n, "count", json!({}))).await;
        assert_eq!(r["result"]["content"][0]["text"], n.to_string(), "{r}");
    }
    assert_eq!(store.len().await.unwrap(), 1);
    // No headers: an `http::HeaderMap` parameter is empty, the body is the only signal for
    // a header argument, and a tool reading the HTTP request is refused.
    let r = p.call(tool_call(3, "headers", json!({}))).await;
    assert_eq!(r["result"]["content"][0]["text"], "0");
    let r = p
        .call(tool_call(4, "region", json!({"region": "eu"})))
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "region eu");
    let r = p.call(tool_call(5, "path", json!({}))).await;
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did not come over HTTP"),
        "{r}"
    );
    p.finish().await;
    assert_eq!(
        store.len().await.unwrap(),
        0,
        "the session ends with the connection"
    );
}

#[tokio::test]
async fn a_modern_connection_gets_messages_before_its_response() {
    let mut p = peer();
    p.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{
        "name":"work","arguments":{},"_meta":{"progressToken":"t","io.modelcontextprotocol/protocolVersion":MODERN,
        "io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},
        "io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"debug"}}}))
        .await;
    let log = p.recv().await;
    assert_eq!(log["method"], "notifications/message", "{log}");
    let progress = p.recv().await;
    assert_eq!(progress["method"], "notifications/progress", "{progress}");
    assert_eq!(progress["params"]["progressToken"], "t");
    let r = p.recv().await;
    assert_eq!(r["id"], 1);
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(r["result"]["content"][0]["text"], "worked");
    // Pinned modern: a legacy opening is refused.
    let init = p.initialize(json!({})).await;
    assert_eq!(init["error"]["code"], -32022);
    let discover = p
        .call(json!({"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":envelope()}}))
        .await;
    assert_eq!(discover["result"]["supportedVersions"], json!([MODERN]));
    p.finish().await;
}

#[tokio::test]
async fn the_elicitation_shim_asks_over_the_pipe() {
    let mut p = peer();
    p.initialize(json!({"elicitation":{}})).await;
    p.send(tool_call(1, "confirm", json!({}))).await;
    let ask = p.recv().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    p.send(
        json!({"jsonrpc":"2.0","id":ask["id"],"result":{"action":"accept","content":{"ok":true}}}),
    )
    .await;
    let r = p.recv().await;
    assert_eq!(r["id"], 1);
    assert_eq!(r["result"]["content"][0]["text"], "confirmed true");
    p.finish().await;
}

#[tokio::test]
async fn a_cancelled_request_is_not_answered() {
    let mut p = peer();
    p.initialize(json!({})).await;
    p.send(tool_call(1, "slow", json!({"ms": 60_000}))).await;
    p.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}))
        .await;
    let r = p
        .call(json!({"jsonrpc":"2.0","id":2,"method":"ping"}))
        .await;
    assert_eq!(r["id"], 2, "the cancelled call is never answered: {r}");
    p.finish().await;
}

#[tokio::test]
async fn bad_messages_are_answered_and_serving_goes_on() {
    let mut p = start(
        mcp::Server::builder(Svc).build().unwrap(),
        StdioConfig::new().max_frame_bytes(1024),
    );
    p.end.send("x".repeat(2048)).await.unwrap();
    let r = p.recv().await;
    assert_eq!(r["error"]["code"], -32600);
    p.end.send("{not json".into()).await.unwrap();
    assert_eq!(p.recv().await["error"]["code"], -32700);
    // A message may span lines: the pipe needs no framing.
    p.end
        .send("{\"jsonrpc\": \"2.0\",\n \"id\": 7,\n \"method\": \"ping\"}".into())
        .await
        .unwrap();
    assert_eq!(p.recv().await["id"], 7);
    p.finish().await;
}

#[tokio::test]
async fn in_process_returns_a_served_end() {
    let mut end = mcp::Server::builder(Svc).build().unwrap().in_process();
    end.send(
        json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":envelope()}})
            .to_string(),
    )
    .await
    .unwrap();
    let r: Value = serde_json::from_str(&end.recv().await.unwrap()).unwrap();
    assert_eq!(
        r["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "stdio-test"
    );
}
