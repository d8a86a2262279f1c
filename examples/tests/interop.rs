//! Interoperability: the echo and crypto example services, served in-process, driven by the
//! real TypeScript clients pinned in `interop/` (`interop/client.mjs`):
//! `@modelcontextprotocol/client` 2.4.0 in `auto`, `modern` (pinned 2026-07-28) and
//! `legacy` mode, and the v1 SDK client `@modelcontextprotocol/sdk` 1.32.2 (legacy).
//!
//! Each run checks the handshake (`connected`), the raw `tools/list` pages and the
//! aggregated tool definitions, and every scripted call of `interop/steps/<service>.json`:
//! exact content, `structuredContent` and `isError`, or the JSON-RPC error code and
//! message. Needs `npm ci` in `interop/`.

mod interop_support;

use interop_support::{Events, LATEST_LEGACY, MODERN, Peer, TestServer, interop_dir, run_peer};
use serde_json::{Value, json};

const VERSION: &str = env!("CARGO_PKG_VERSION");
/// Serves `make`'s service in-process and runs the peer client with `steps`.
async fn run_client(make: fn() -> mcp::ServerBuilder, peer: Peer, steps: &str) -> Events {
    let server = TestServer::start(|_| make()).await;
    let events = run_peer(&server.url, peer, &interop_dir().join("steps").join(steps)).await;
    server.stop().await;
    events
}

fn assert_connected(events: &Events, peer: Peer, name: &str, instructions: &str) {
    let connected = events.one("connected");
    let (era, version) = if peer.modern() {
        ("modern", MODERN)
    } else {
        ("legacy", LATEST_LEGACY)
    };
    assert_eq!(connected["era"], era, "{}", events.report);
    assert_eq!(connected["protocolVersion"], version, "{}", events.report);
    assert_eq!(
        connected["serverInfo"],
        json!({"name": name, "version": VERSION}),
        "{}",
        events.report
    );
    assert_eq!(
        connected["capabilities"],
        json!({"tools": {"listChanged": false}, "logging": {}}),
        "{}",
        events.report
    );
    assert_eq!(connected["instructions"], instructions, "{}", events.report);
}

fn assert_pages(events: &Events, pages: &[(&[&str], Option<&str>)]) {
    let got = events.of("tools_page");
    assert_eq!(got.len(), pages.len(), "page count\n{}", events.report);
    for (i, (page, (names, next))) in got.iter().zip(pages).enumerate() {
        assert_eq!(page["page"], i + 1, "{}", events.report);
        assert_eq!(page["count"], names.len(), "{}", events.report);
        assert_eq!(
            page["names"],
            json!(names),
            "page {}\n{}",
            i + 1,
            events.report
        );
        assert_eq!(
            page["nextCursor"],
            json!(next),
            "page {}\n{}",
            i + 1,
            events.report
        );
    }
}

/// `expected`: `{"name", "description", "inputSchema", "outputSchema"}` per tool, in order.
fn assert_tools(events: &Events, expected: &[Value]) {
    let got = events.of("tool");
    assert_eq!(got.len(), expected.len(), "tool count\n{}", events.report);
    for (tool, want) in got.iter().zip(expected) {
        for key in ["name", "description", "inputSchema", "outputSchema"] {
            assert_eq!(
                tool[key], want[key],
                "`{key}` of tool {}\n{}",
                want["name"], events.report
            );
        }
        assert!(tool["title"].is_null(), "{}", events.report);
    }
}

fn assert_result(events: &Events, step: usize, content: Value, structured: Value, is_error: bool) {
    let got = events.step(step);
    assert_eq!(got["event"], "step", "step {step}\n{}", events.report);
    assert_eq!(got["content"], content, "step {step}\n{}", events.report);
    assert_eq!(
        got["structuredContent"], structured,
        "step {step}\n{}",
        events.report
    );
    assert_eq!(got["isError"], is_error, "step {step}\n{}", events.report);
}

fn assert_invalid_params(events: &Events, peer: Peer, step: usize, message: &str) {
    let got = events.step(step);
    assert_eq!(got["event"], "error", "step {step}\n{}", events.report);
    assert_eq!(got["expected"], true, "step {step}\n{}", events.report);
    assert_eq!(got["code"], -32602, "step {step}\n{}", events.report);
    assert_eq!(
        got["message"],
        peer.error_message(-32602, message),
        "step {step}\n{}",
        events.report
    );
}

fn text(t: &str) -> Value {
    json!([{"type": "text", "text": t}])
}

// ---------------------------------------------------------------------------------------
// echo: one tool whose output schema is `{"type": "string"}`
// ---------------------------------------------------------------------------------------

async fn echo(peer: Peer) {
    let events = run_client(mcp_examples::echo::server, peer, "echo.json").await;
    assert_connected(&events, peer, "echo", "Echoes text back.");
    assert_pages(&events, &[(&["echo"], None)]);
    // A string-rooted output schema reaches modern clients only: a legacy outputSchema
    // (and so structuredContent) must be object-rooted.
    let output_schema = if peer.modern() {
        json!({"type": "string"})
    } else {
        Value::Null
    };
    assert_tools(
        &events,
        &[json!({
            "name": "echo",
            "description": "Echo the value back",
            "inputSchema": {
                "type": "object",
                "properties": {"value": {"type": "string", "description": "The text to echo"}},
                "required": ["value"]
            },
            "outputSchema": output_schema
        })],
    );
    let structured = |s: &str| if peer.modern() { json!(s) } else { Value::Null };
    let unicode = "héllo, wörld ✓";
    assert_result(&events, 0, text(unicode), structured(unicode), false);
    assert_result(&events, 1, text(""), structured(""), false);
    assert_invalid_params(&events, peer, 2, "Unknown tool: no_such_tool");
    assert_invalid_params(&events, peer, 3, "missing argument `value`");
    assert_invalid_params(&events, peer, 4, "`value` must be a string");
    assert_eq!(events.one("done")["steps"], 5, "{}", events.report);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_with_v2_client_auto() {
    echo(Peer::Auto).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_with_v2_client_modern() {
    echo(Peer::Modern).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_with_v2_client_legacy() {
    echo(Peer::Legacy).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_with_v1_client() {
    echo(Peer::V1).await;
}

// ---------------------------------------------------------------------------------------
// crypto: four tools, two per page, object-rooted output schemas
// ---------------------------------------------------------------------------------------

fn crypto_tools() -> Vec<Value> {
    let text_in = |extra: Value| {
        let mut properties = json!({"text": {"type": "string", "description": "The input text"}});
        properties
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        json!({"type": "object", "properties": properties, "required": ["text"]})
    };
    vec![
        json!({
            "name": "hash_text",
            "description": "Hash text with a SHA-2 algorithm and return the hex digest",
            "inputSchema": text_in(json!({"algorithm": {
                "type": "string", "enum": ["sha256", "sha384", "sha512"],
                "description": "Hash algorithm (default sha256)"
            }})),
            "outputSchema": {
                "type": "object",
                "properties": {"algorithm": {"type": "string"}, "digest": {"type": "string"}},
                "required": ["algorithm", "digest"]
            }
        }),
        json!({
            "name": "encode_base64",
            "description": "Encode UTF-8 text as standard base64",
            "inputSchema": text_in(json!({})),
            "outputSchema": null
        }),
        json!({
            "name": "decode_base64",
            "description": "Decode standard base64 into UTF-8 text",
            "inputSchema": {
                "type": "object",
                "properties": {"data": {"type": "string", "description": "Standard base64"}},
                "required": ["data"]
            },
            "outputSchema": null
        }),
        json!({
            "name": "text_stats",
            "description": "Count the bytes, characters and words of a text",
            "inputSchema": text_in(json!({})),
            "outputSchema": {
                "type": "object",
                "properties": {
                    "bytes": {"type": "integer"}, "chars": {"type": "integer"}, "words": {"type": "integer"}
                },
                "required": ["bytes", "chars", "words"]
            }
        }),
    ]
}

async fn crypto(peer: Peer) {
    let events = run_client(mcp_examples::crypto::server, peer, "crypto.json").await;
    assert_connected(&events, peer, "crypto", "Hashing and base64 tools.");
    assert_pages(
        &events,
        &[
            (&["hash_text", "encode_base64"], Some("page-2")),
            (&["decode_base64", "text_stats"], None),
        ],
    );
    // Object-rooted output schemas and structured results are the same on both eras.
    assert_tools(&events, &crypto_tools());
    let sha256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    let sha384 = "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7";
    assert_result(
        &events,
        0,
        text(sha256),
        json!({"algorithm": "sha256", "digest": sha256}),
        false,
    );
    assert_result(
        &events,
        1,
        text(sha384),
        json!({"algorithm": "sha384", "digest": sha384}),
        false,
    );
    assert_result(&events, 2, text("aMOpbGxv"), Value::Null, false);
    assert_result(&events, 3, text("héllo"), Value::Null, false);
    assert_result(
        &events,
        4,
        text("The data is not base64-encoded UTF-8 text"),
        Value::Null,
        true,
    );
    assert_result(
        &events,
        5,
        text(r#"{"bytes":18,"chars":14,"words":3}"#),
        json!({"bytes": 18, "chars": 14, "words": 3}),
        false,
    );
    assert_invalid_params(&events, peer, 6, "Unsupported algorithm: md5");
    assert_invalid_params(&events, peer, 7, "Unknown tool: no_such_tool");
    assert_eq!(events.one("done")["steps"], 8, "{}", events.report);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crypto_with_v2_client_auto() {
    crypto(Peer::Auto).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crypto_with_v2_client_modern() {
    crypto(Peer::Modern).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crypto_with_v2_client_legacy() {
    crypto(Peer::Legacy).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crypto_with_v1_client() {
    crypto(Peer::V1).await;
}
