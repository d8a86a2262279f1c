//! The stdio server transport, driven in-process over pipes: framing, era pinning, the
//! robustness contract (oversized, non-JSON and non-JSON-RPC lines, panics), server→client
//! requests, cancellation, shutdown on end of input or a closed output, and backpressure.
#![allow(missing_docs)]

use std::time::Duration;

use mcp::transport::stdio::StdioConfig;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, DuplexStream};
use tokio::task::JoinHandle;

const MODERN: &str = "2026-07-28";

mod stream;
use stream::Svc;

struct Peer {
    input: Option<DuplexStream>,
    output: BufReader<DuplexStream>,
    served: JoinHandle<Result<(), mcp::Error>>,
}

fn start(server: mcp::Server, config: StdioConfig, pipe: usize) -> Peer {
    let (client_in, server_in) = tokio::io::duplex(pipe);
    let (server_out, client_out) = tokio::io::duplex(pipe);
    let served = tokio::spawn(async move {
        server
            .serve_transport_with(server_in, server_out, config)
            .await
    });
    Peer {
        input: Some(client_in),
        output: BufReader::new(client_out),
        served,
    }
}

fn server() -> mcp::Server {
    mcp::Server::builder(Svc).build().unwrap()
}

fn peer() -> Peer {
    start(server(), StdioConfig::new(), 1 << 20)
}

fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

impl Peer {
    async fn send_raw(&mut self, bytes: &[u8]) {
        self.input.as_mut().unwrap().write_all(bytes).await.unwrap();
    }

    async fn send(&mut self, v: Value) {
        let mut line = v.to_string().into_bytes();
        line.push(b'\n');
        self.send_raw(&line).await;
    }

    async fn recv(&mut self) -> Value {
        let mut line = String::new();
        let n = tokio::time::timeout(Duration::from_secs(10), self.output.read_line(&mut line))
            .await
            .expect("no line within 10 s")
            .unwrap();
        assert!(n > 0, "the output ended");
        assert!(line.ends_with('\n'));
        serde_json::from_str(&line).unwrap()
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

    /// Ends the input and waits for the server to stop; every remaining line is returned.
    async fn finish(mut self) -> Vec<Value> {
        self.input.take();
        let served = tokio::time::timeout(Duration::from_secs(10), self.served)
            .await
            .expect("the server did not stop within 10 s");
        served.unwrap().unwrap();
        let mut rest = Vec::new();
        let mut line = String::new();
        while self.output.read_line(&mut line).await.unwrap() > 0 {
            rest.push(serde_json::from_str(&line).unwrap());
            line.clear();
        }
        rest
    }
}

fn tool_call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":name,"arguments":arguments}})
}

#[tokio::test]
async fn legacy_handshake_list_and_call() {
    let mut p = peer();
    let init = p.initialize(json!({})).await;
    assert_eq!(init["id"], 0);
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["result"]["serverInfo"]["name"], "stdio-test");
    let list = p
        .call(json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}))
        .await;
    assert_eq!(list["result"]["tools"].as_array().unwrap().len(), 10);
    assert!(list["result"].get("resultType").is_none());
    let r = p.call(tool_call(2, "echo", json!({"text":"hi"}))).await;
    assert_eq!(
        r,
        json!({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}})
    );
    let ping = p
        .call(json!({"jsonrpc":"2.0","id":"p","method":"ping"}))
        .await;
    assert_eq!(ping, json!({"jsonrpc":"2.0","id":"p","result":{}}));
    assert!(p.finish().await.is_empty());
}

#[tokio::test]
async fn a_legacy_connection_is_one_session() {
    let server = server();
    let store = server.session_store().unwrap().clone();
    let mut p = start(server, StdioConfig::new(), 1 << 16);
    p.initialize(json!({})).await;
    for n in 1..=3 {
        let r = p.call(tool_call(n, "count", json!({}))).await;
        assert_eq!(r["result"]["content"][0]["text"], n.to_string(), "{r}");
    }
    assert_eq!(store.len().await.unwrap(), 1);
    // A new initialize starts a new session.
    p.initialize(json!({})).await;
    let r = p.call(tool_call(9, "count", json!({}))).await;
    assert_eq!(r["result"]["content"][0]["text"], "1");
    assert_eq!(store.len().await.unwrap(), 1);
    p.finish().await;
    // The connection's session ends with it.
    assert_eq!(store.len().await.unwrap(), 0);
}

#[tokio::test]
async fn a_modern_first_message_pins_the_modern_era() {
    let mut p = peer();
    let r = p
        .call(
            json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{
            "name":"region","arguments":{"region":"eu-west"},"_meta":envelope()}}),
        )
        .await;
    // No Mcp-Param-Region header exists on stdio: the body alone is the signal.
    assert_eq!(r["result"]["content"][0]["text"], "region eu-west");
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(
        r["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "stdio-test"
    );
    let init = p.initialize(json!({})).await;
    assert_eq!(init["error"]["code"], -32022);
    assert_eq!(init["error"]["data"]["supported"], json!([MODERN]));
    assert_eq!(init["error"]["data"]["requested"], "2025-11-25");
    let claimless = p
        .call(json!({"jsonrpc":"2.0","id":3,"method":"tools/list"}))
        .await;
    assert_eq!(claimless["error"]["code"], -32022);
    p.finish().await;
}

#[tokio::test]
async fn a_discover_probe_may_be_followed_by_initialize() {
    let mut p = peer();
    let d = p
        .call(json!({"jsonrpc":"2.0","id":"probe","method":"server/discover","params":{"_meta":envelope()}}))
        .await;
    assert_eq!(d["result"]["supportedVersions"], json!([MODERN]));
    let init = p.initialize(json!({})).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    // Pinned legacy now: a modern claim is served as legacy (no resultType).
    let r = p
        .call(json!({"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":envelope()}}))
        .await;
    assert!(r["result"]["tools"].is_array());
    assert!(r["result"].get("resultType").is_none());
    p.finish().await;
}

#[tokio::test]
async fn invalid_envelopes_and_versions_are_refused_without_pinning() {
    let mut p = peer();
    let mut bad = envelope();
    bad["io.modelcontextprotocol/clientCapabilities"] = json!("nope");
    let r = p
        .call(json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":bad}}))
        .await;
    assert_eq!(r["error"]["code"], -32602);
    assert_eq!(
        r["error"]["data"]["envelope"]["key"],
        "io.modelcontextprotocol/clientCapabilities"
    );
    let mut old = envelope();
    old["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let r = p
        .call(json!({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":old}}))
        .await;
    assert_eq!(r["error"]["code"], -32022);
    assert_eq!(r["error"]["data"]["requested"], "2099-01-01");
    // Nothing was pinned: the connection can still go legacy.
    assert_eq!(
        p.initialize(json!({})).await["result"]["protocolVersion"],
        "2025-11-25"
    );
    p.finish().await;
}

#[tokio::test]
async fn era_only_servers() {
    let legacy = mcp::Server::builder(Svc)
        .protocol_mode(mcp::ProtocolMode::Legacy)
        .build()
        .unwrap();
    let mut p = start(legacy, StdioConfig::new(), 1 << 16);
    let d = p
        .call(json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":envelope()}}))
        .await;
    assert_eq!(d["error"]["code"], -32601);
    p.finish().await;

    let modern = mcp::Server::builder(Svc)
        .protocol_mode(mcp::ProtocolMode::Modern)
        .build()
        .unwrap();
    let mut p = start(modern, StdioConfig::new(), 1 << 16);
    let init = p.initialize(json!({})).await;
    assert_eq!(init["error"]["code"], -32022);
    let ok = p
        .call(json!({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":envelope()}}))
        .await;
    assert_eq!(ok["result"]["resultType"], "complete");
    p.finish().await;
}

#[tokio::test]
async fn bad_lines_are_answered_and_never_end_the_transport() {
    let mut p = peer();
    p.send_raw(b"this is not json\n").await;
    assert_eq!(
        p.recv().await,
        json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})
    );
    p.send_raw(b"{\"foo\":1}\n").await;
    let r = p.recv().await;
    assert_eq!(r["error"]["code"], -32600);
    assert_eq!(r["id"], Value::Null);
    p.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":5}\n")
        .await;
    let r = p.recv().await;
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (json!(7), json!(-32600))
    );
    p.send_raw(b"[{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}]\n")
        .await;
    let r = p.recv().await;
    assert_eq!(r["error"]["code"], -32600);
    assert!(r["error"]["message"].as_str().unwrap().contains("batches"));
    // Invalid UTF-8 is not JSON either.
    p.send_raw(b"\xff\xfe\n").await;
    assert_eq!(p.recv().await["error"]["code"], -32700);
    // CRLF line endings and blank lines are fine.
    p.send_raw(b"\r\n\n{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\r\n")
        .await;
    assert_eq!(p.recv().await, json!({"jsonrpc":"2.0","id":9,"result":{}}));
    // A response to a request nobody sent is dropped.
    p.send(json!({"jsonrpc":"2.0","id":"mcp-server-99","result":{}}))
        .await;
    p.send(json!({"jsonrpc":"2.0","id":42,"error":{"code":-1,"message":"x"}}))
        .await;
    let r = p
        .call(json!({"jsonrpc":"2.0","id":10,"method":"ping"}))
        .await;
    assert_eq!(r["id"], 10);
    assert!(p.finish().await.is_empty());
}

#[tokio::test]
async fn an_oversized_line_is_refused_unparsed() {
    let mut p = start(server(), StdioConfig::new().max_frame_bytes(1024), 1 << 16);
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"x\":\"{}\"}}}}\n",
        "a".repeat(100_000)
    );
    p.send_raw(big.as_bytes()).await;
    let r = p.recv().await;
    assert_eq!(
        r["id"],
        Value::Null,
        "the id of an oversized line is not read"
    );
    assert_eq!(r["error"]["code"], -32600);
    assert_eq!(
        r["error"]["message"],
        "Invalid Request: the message exceeds the limit of 1024 bytes"
    );
    let r = p
        .call(json!({"jsonrpc":"2.0","id":2,"method":"ping"}))
        .await;
    assert_eq!(r["id"], 2);
    p.finish().await;
}

#[tokio::test]
async fn a_17_mib_line_is_refused_at_the_default_16_mib_cap() {
    let mut p = peer();
    let mut big = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"".to_vec();
    big.resize(big.len() + (17 << 20), b'a');
    big.extend_from_slice(b"\"}}}\n");
    let mut input = p.input.take().unwrap();
    let writer = tokio::spawn(async move {
        input.write_all(&big).await.unwrap();
        input
    });
    let r = p.recv().await;
    assert_eq!(r["error"]["code"], -32600);
    assert_eq!(r["id"], Value::Null);
    p.input = Some(writer.await.unwrap());
    let r = p.call(tool_call(2, "echo", json!({"text":"after"}))).await;
    assert_eq!(r["result"]["content"][0]["text"], "after");
    p.finish().await;
}

#[tokio::test]
async fn a_last_line_without_newline_is_served_at_end_of_input() {
    let mut p = peer();
    p.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}")
        .await;
    let rest = p.finish().await;
    assert_eq!(rest, vec![json!({"jsonrpc":"2.0","id":1,"result":{}})]);
}

#[tokio::test]
async fn end_of_input_waits_for_calls_in_flight() {
    let mut p = peer();
    p.initialize(json!({})).await;
    p.send(tool_call(1, "slow", json!({"ms": 300}))).await;
    p.send(tool_call(2, "echo", json!({"text": "quick"}))).await;
    // Served concurrently: the quick call is answered first.
    assert_eq!(p.recv().await["id"], 2);
    let rest = p.finish().await;
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0]["result"]["content"][0]["text"], "slept 300");
}

#[tokio::test]
async fn a_panic_is_a_generic_internal_error() {
    let mut p = peer();
    p.initialize(json!({})).await;
    let r = p.call(tool_call(1, "boom", json!({}))).await;
    assert_eq!(
        r,
        json!({"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}})
    );
    assert!(!r.to_string().contains("passwd"));
    let r = p
        .call(tool_call(2, "echo", json!({"text":"still here"})))
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "still here");
    p.finish().await;
}

#[tokio::test]
async fn legacy_elicitation_is_a_real_request_matched_by_id() {
    let mut p = peer();
    p.initialize(json!({"elicitation":{}})).await;
    p.send(tool_call(1, "confirm", json!({}))).await;
    let ask = p.recv().await;
    assert_eq!(ask["method"], "elicitation/create");
    assert_eq!(ask["params"]["message"], "Sure?");
    let id = ask["id"].clone();
    assert!(id.as_str().unwrap().starts_with("mcp-server-"));
    // An answer with another id is ignored; the right one resumes the call.
    p.send(json!({"jsonrpc":"2.0","id":"mcp-server-77","result":{"action":"decline"}}))
        .await;
    p.send(json!({"jsonrpc":"2.0","id":id,"result":{"action":"accept","content":{"ok":true}}}))
        .await;
    let r = p.recv().await;
    assert_eq!(r["id"], 1);
    assert_eq!(r["result"]["content"][0]["text"], "confirmed true");
    p.finish().await;
}

#[tokio::test]
async fn an_elicitation_answered_with_an_error_or_not_at_all_fails_the_call() {
    let server = mcp::Server::builder(Svc)
        .input_round_timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let mut p = start(server, StdioConfig::new(), 1 << 16);
    p.initialize(json!({"elicitation":{}})).await;
    p.send(tool_call(1, "confirm", json!({}))).await;
    let ask = p.recv().await;
    p.send(
        json!({"jsonrpc":"2.0","id":ask["id"],"error":{"code":-32000,"message":"no user here"}}),
    )
    .await;
    let r = p.recv().await;
    assert_eq!(r["error"]["code"], -32603);
    assert_eq!(
        r["error"]["message"],
        "The client answered elicitation/create with error -32000: no user here"
    );
    p.send(tool_call(2, "confirm", json!({}))).await;
    assert_eq!(p.recv().await["method"], "elicitation/create");
    // No answer: the round times out.
    let r = p.recv().await;
    assert_eq!(r["id"], 2);
    assert_eq!(
        r["error"]["message"],
        "The client did not answer elicitation/create within 300 ms"
    );
    p.finish().await;
}

#[tokio::test]
async fn an_elicitation_fails_when_the_input_ends() {
    let mut p = peer();
    p.initialize(json!({"elicitation":{}})).await;
    p.send(tool_call(1, "confirm", json!({}))).await;
    assert_eq!(p.recv().await["method"], "elicitation/create");
    let rest = p.finish().await;
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0]["error"]["code"], -32603);
    assert!(
        rest[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("closed its input")
    );
}

#[tokio::test]
async fn a_cancelled_request_is_not_answered() {
    let mut p = peer();
    p.initialize(json!({})).await;
    p.send(tool_call(1, "slow", json!({"ms": 60_000}))).await;
    p.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"x"}}))
        .await;
    // Unknown or malformed cancellations are ignored.
    p.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}))
        .await;
    p.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}))
        .await;
    let r = p
        .call(json!({"jsonrpc":"2.0","id":2,"method":"ping"}))
        .await;
    assert_eq!(r["id"], 2);
    // The server stops at once: nothing is in flight any more.
    assert!(p.finish().await.is_empty());
}

#[tokio::test]
async fn a_closed_output_stops_the_server() {
    let Peer {
        input,
        output,
        served,
    } = peer();
    let mut input = input.unwrap();
    drop(output);
    input
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{\"ms\":60000}}}\n")
        .await
        .unwrap();
    input
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n")
        .await
        .unwrap();
    // The input stays open: the failed write alone ends the serving, and the call in
    // flight is stopped rather than awaited.
    let served = tokio::time::timeout(Duration::from_secs(10), served)
        .await
        .expect("the server did not stop after its output closed");
    served.unwrap().unwrap();
    drop(input);
}

#[tokio::test]
async fn a_client_that_stops_reading_is_pushed_back() {
    // Small pipes and few requests in flight: when the client reads nothing, the server
    // stops reading, so the client's writes block instead of the server's memory growing.
    let mut p = start(server(), StdioConfig::new().max_in_flight(4), 4096);
    let mut input = p.input.take().unwrap();
    let pings: Vec<u8> = (0..2000)
        .flat_map(|i| {
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\"}}\n").into_bytes()
        })
        .collect();
    let writer = tokio::spawn(async move {
        input.write_all(&pings).await.unwrap();
        input
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !writer.is_finished(),
        "the server kept reading though nobody read its output"
    );
    // Once the client reads again, every request is answered.
    for _ in 0..2000 {
        assert!(p.recv().await["result"].is_object());
    }
    p.input = Some(writer.await.unwrap());
    assert!(p.finish().await.is_empty());
}

#[tokio::test]
async fn invalid_settings_and_protected_services_are_refused() {
    let (a, b) = tokio::io::duplex(64);
    let e = server()
        .serve_transport_with(a, b, StdioConfig::new().max_frame_bytes(0))
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid service configuration: max_frame_bytes must be positive"
    );
    let (a, b) = tokio::io::duplex(64);
    let e = server()
        .serve_transport_with(a, b, StdioConfig::new().max_in_flight(0))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("max_in_flight"));
    let protected = mcp::Server::builder(Svc)
        .listener_auth([mcp::auth::ListenerAuth::basic([("u", "p")])])
        .build()
        .unwrap();
    let (a, b) = tokio::io::duplex(64);
    let e = protected.serve_transport(a, b).await.unwrap_err();
    assert!(e.to_string().contains("cannot be served over stdio"), "{e}");
}

#[tokio::test]
async fn logs_and_progress_are_lines_before_the_response() {
    let mut p = peer();
    p.initialize(json!({})).await;
    let work = |id: i64| {
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{
            "name":"work","arguments":{},"_meta":{"progressToken":"tok"}}})
    };
    // No level set: every level goes out, then the progress, then the response.
    p.send(work(1)).await;
    let log = p.recv().await;
    assert_eq!(log["method"], "notifications/message", "{log}");
    assert_eq!(log["params"]["level"], "info");
    assert_eq!(log["params"]["data"], "working");
    let progress = p.recv().await;
    assert_eq!(progress["method"], "notifications/progress", "{progress}");
    assert_eq!(progress["params"]["progressToken"], "tok");
    assert_eq!(progress["params"]["progress"], 1.0);
    let r = p.recv().await;
    assert_eq!(r["id"], 1);
    assert_eq!(r["result"]["content"][0]["text"], "worked");
    // logging/setLevel on the connection's session filters the info log out.
    let set = p
        .call(json!({"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"warning"}}))
        .await;
    assert_eq!(set, json!({"jsonrpc":"2.0","id":2,"result":{}}));
    p.send(work(3)).await;
    assert_eq!(p.recv().await["method"], "notifications/progress");
    assert_eq!(p.recv().await["id"], 3);
    assert!(p.finish().await.is_empty());
}

#[tokio::test]
async fn modern_logs_follow_the_requests_log_level() {
    let mut p = peer();
    let call = |id: i64, level: Option<&str>| {
        let mut meta = envelope();
        if let Some(level) = level {
            meta["io.modelcontextprotocol/logLevel"] = json!(level);
        }
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{
            "name":"work","arguments":{},"_meta":meta}})
    };
    // Without a level, a modern request gets no logs (and no progress: no token).
    let r = p.call(call(1, None)).await;
    assert_eq!(r["id"], 1, "{r}");
    p.send(call(2, Some("debug"))).await;
    let log = p.recv().await;
    assert_eq!(log["method"], "notifications/message", "{log}");
    let r = p.recv().await;
    assert_eq!(r["id"], 2, "{r}");
    assert_eq!(r["result"]["content"][0]["text"], "worked");
    assert!(p.finish().await.is_empty());
}

#[tokio::test]
async fn progress_tokens_are_strings_and_safe_integers() {
    let work = |id: i64, token: Value, modern: bool| {
        let mut meta = if modern { envelope() } else { json!({}) };
        meta["progressToken"] = token;
        if modern {
            meta["io.modelcontextprotocol/logLevel"] = json!("error");
        }
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{
            "name":"work","arguments":{},"_meta":meta}})
    };
    for modern in [false, true] {
        let mut p = peer();
        if !modern {
            p.initialize(json!({})).await;
            let set = p
                .call(json!({"jsonrpc":"2.0","id":0,"method":"logging/setLevel","params":{"level":"error"}}))
                .await;
            assert_eq!(set["result"], json!({}));
        }
        // A string or a safe integer is echoed verbatim, then the call is answered.
        for (id, token) in [
            (1, json!("tok")),
            (2, json!(7)),
            (3, json!(-3)),
            (4, json!(1.0)),
            (5, json!(9_007_199_254_740_991_u64)),
        ] {
            p.send(work(id, token.clone(), modern)).await;
            let progress = p.recv().await;
            assert_eq!(progress["method"], "notifications/progress", "{progress}");
            assert_eq!(
                progress["params"]["progressToken"], token,
                "modern {modern}"
            );
            let r = p.recv().await;
            assert_eq!(r["id"], id, "{r}");
            assert_eq!(r["result"]["content"][0]["text"], "worked");
        }
        // Anything else is not a valid message: -32600 with the request's id, and the
        // connection keeps serving.
        for (id, token) in [
            (10, json!(1.5)),
            (11, json!(true)),
            (12, Value::Null),
            (13, json!([1])),
            (14, json!({})),
            (15, json!(9_007_199_254_740_992_u64)),
        ] {
            let r = p.call(work(id, token.clone(), modern)).await;
            assert_eq!(
                (r["id"].clone(), r["error"]["code"].clone()),
                (json!(id), json!(-32600)),
                "token {token}, modern {modern}: {r}"
            );
        }
        let ping = if modern {
            json!({"jsonrpc":"2.0","id":20,"method":"ping","params":{"_meta":envelope()}})
        } else {
            json!({"jsonrpc":"2.0","id":20,"method":"ping"})
        };
        assert_eq!(p.call(ping).await["id"], 20);
        assert!(p.finish().await.is_empty());
    }
}

/// 1,000 calls, each cancelled at a random moment around the end of its work: a call is
/// answered at most once, never after its cancellation was seen by the tool ("cancelled"),
/// some are cancelled, and the connection ends with nothing in flight.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelled_calls_stay_cancelled() {
    const CALLS: i64 = 1_000;
    let mut p = peer();
    p.initialize(json!({})).await;
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    println!("seed {seed}");
    let mut state = seed | 1;
    let mut random = move || {
        // xorshift64*
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D) % 500
    };
    let mut input = p.input.take().unwrap();
    let writer = tokio::spawn(async move {
        for id in 0..CALLS {
            let call = tool_call(id, "race", json!({"micros": random()}));
            input
                .write_all(format!("{call}\n").as_bytes())
                .await
                .unwrap();
            tokio::time::sleep(Duration::from_micros(random())).await;
            let cancel = json!({"jsonrpc":"2.0","method":"notifications/cancelled",
                "params":{"requestId":id}});
            input
                .write_all(format!("{cancel}\n").as_bytes())
                .await
                .unwrap();
        }
        input
    });
    p.input = Some(writer.await.unwrap());
    let lines = p.finish().await;
    let mut answered = std::collections::HashSet::new();
    for line in &lines {
        let id = line["id"].as_i64().unwrap_or_else(|| panic!("{line}"));
        assert!(answered.insert(id), "call {id} answered twice");
        assert_eq!(
            line["result"]["content"][0]["text"], "finished",
            "call {id} answered after its cancellation: {line}"
        );
    }
    println!(
        "{} finished, {} cancelled",
        answered.len(),
        CALLS - answered.len() as i64
    );
    assert!(
        answered.len() < CALLS as usize,
        "no call was cancelled: the test proves nothing"
    );
}
