//! The Streamable HTTP endpoint, in-process: era classification, header cross-checks,
//! protocol modes, Origin, body limits, batches, and the mapping of handler failures, each
//! asserted by exact HTTP status and JSON-RPC code.

mod common;

use axum::body::Body;
use common::*;
use http::{Request, StatusCode};
use mcp::{CacheHint, CacheScope, ProtocolMode, SessionMode};
use serde_json::{Value, json};

fn with_header(mut r: Request<Body>, name: &'static str, value: &str) -> Request<Body> {
    r.headers_mut().insert(name, value.parse().unwrap());
    r
}

fn without_header(mut r: Request<Body>, name: &'static str) -> Request<Body> {
    r.headers_mut().remove(name);
    r
}

// ---------------------------------------------------------------- modern era

#[tokio::test]
async fn discover_returns_identity_in_meta_and_cache_hints() {
    let config = test_builder("test", "1.0.0")
        .instructions("Test tools.")
        .discover_cache(CacheHint::new(300_000, CacheScope::Public));
    let app = router_with(config);
    let r = send(
        &app,
        modern_request(&modern_body(
            json!("server-discover-probe-1"),
            "server/discover",
            Value::Null,
        )),
    )
    .await;
    let result = r.result();
    assert_eq!(r.body["id"], "server-discover-probe-1");
    assert_eq!(result["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(
        result["capabilities"],
        json!({"tools": {"listChanged": false}, "logging": {}})
    );
    assert_eq!(result["instructions"], "Test tools.");
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["ttlMs"], 300_000);
    assert_eq!(result["cacheScope"], "public");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({"name": "test", "version": "1.0.0"})
    );
    assert!(result.get("serverInfo").is_none());
    assert_eq!(r.headers["content-type"], "application/json");
}

#[tokio::test]
async fn modern_list_carries_hints_result_type_and_server_info() {
    let app = router();
    let r = send(
        &app,
        modern_request(&modern_body(json!(0), "tools/list", Value::Null)),
    )
    .await;
    let result = r.result();
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["ttlMs"], 0);
    assert_eq!(result["cacheScope"], "private");
    assert_eq!(result["nextCursor"], "p2");
    assert_eq!(
        result["tools"][0]["outputSchema"],
        json!({"type": "string"})
    );
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "test"
    );

    let r = send(
        &app,
        modern_request(&modern_body(
            json!(1),
            "tools/list",
            json!({"cursor": "p3"}),
        )),
    )
    .await;
    assert!(r.result().get("nextCursor").is_none());
    let r = send(
        &app,
        modern_request(&modern_body(
            json!(2),
            "tools/list",
            json!({"cursor": "bogus"}),
        )),
    )
    .await;
    r.assert_error(200, -32602, json!(2));
    assert_eq!(r.body["error"]["message"], "Unknown cursor: bogus");
}

#[tokio::test]
async fn handler_cache_hint_wins_and_negative_is_sent_as_zero() {
    let config = |service| {
        mcp::Server::builder(service)
            .info("t", "1")
            .list_tools_cache(CacheHint::new(1000, CacheScope::Public))
    };
    let app = router_with(config(TestService {
        list_ttl: Some(5),
        ..TestService::default()
    }));
    let r = send(
        &app,
        modern_request(&modern_body(json!(0), "tools/list", Value::Null)),
    )
    .await;
    assert_eq!(r.result()["ttlMs"], 5);
    assert_eq!(r.result()["cacheScope"], "public");
    let app = router_with(config(TestService {
        list_ttl: Some(-7),
        ..TestService::default()
    }));
    let r = send(
        &app,
        modern_request(&modern_body(json!(0), "tools/list", Value::Null)),
    )
    .await;
    assert_eq!(r.result()["ttlMs"], 0);
}

#[test]
fn negative_configured_hint_fails_attach() {
    let config = test_builder("t", "1").list_tools_cache(CacheHint::new(-1, CacheScope::Private));
    let err = config.build().unwrap_err();
    assert!(err.to_string().contains("negative ttl_ms"), "{err}");
    let config = test_builder("t", "1").discover_cache(CacheHint::new(-5, CacheScope::Public));
    assert!(config.build().is_err());
    let config = test_builder("t", "1")
        .transport(|http: mcp::transport::http::HttpConfig| http.allowed_origins(["example.com"]));
    assert!(config.build().is_err());
}

#[tokio::test]
async fn modern_call_keeps_any_structured_root_and_stamps_result() {
    let app = router();
    let r = send(
        &app,
        modern_request(&modern_body(
            json!(3),
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        )),
    )
    .await;
    assert_eq!(
        r.result()["content"],
        json!([{"type": "text", "text": "hi"}])
    );
    assert_eq!(r.result()["structuredContent"], "hi");
    assert_eq!(r.result()["resultType"], "complete");
    assert_eq!(
        r.result()["_meta"]["io.modelcontextprotocol/serverInfo"]["version"],
        "1.0.0"
    );

    let r = send(
        &app,
        modern_request(&modern_body(
            json!(4),
            "tools/call",
            json!({"name": "null"}),
        )),
    )
    .await;
    assert_eq!(r.result()["content"], json!([]));
    assert_eq!(r.result()["structuredContent"], Value::Null);
    assert!(
        r.result()
            .as_object()
            .unwrap()
            .contains_key("structuredContent")
    );
}

#[tokio::test]
async fn handlers_see_user_meta_without_envelope_keys() {
    let app = router();
    let body = modern_body(
        json!(5),
        "tools/call",
        json!({"name": "object", "arguments": {"text": "x"}, "_meta": {"progressToken": 7}}),
    );
    let r = send(&app, modern_request(&body)).await;
    assert_eq!(
        r.result()["structuredContent"]["meta"],
        json!({"progressToken": 7})
    );
}

#[tokio::test]
async fn missing_protocol_version_header_is_32020() {
    let app = router();
    let req = without_header(
        modern_request(&modern_body(json!(1), "tools/list", Value::Null)),
        "mcp-protocol-version",
    );
    let r = send(&app, req).await;
    r.assert_error(400, -32020, json!(1));
    assert_eq!(r.body["error"]["data"]["mismatch"]["header"], "(missing)");
}

#[tokio::test]
async fn protocol_version_header_must_match_the_envelope() {
    let app = router();
    let req = with_header(
        modern_request(&modern_body(json!(7), "tools/list", Value::Null)),
        "mcp-protocol-version",
        "2025-06-18",
    );
    let r = send(&app, req).await;
    r.assert_error(400, -32020, json!(7));
    assert_eq!(r.body["error"]["data"]["mismatch"]["header"], "2025-06-18");
    // Whitespace around the value is ignored.
    let req = with_header(
        modern_request(&modern_body(json!(8), "tools/list", Value::Null)),
        "mcp-protocol-version",
        " 2026-07-28 ",
    );
    send(&app, req).await.result();
}

#[tokio::test]
async fn mcp_method_header_is_required_and_must_match() {
    let app = router();
    let req = without_header(
        modern_request(&modern_body(json!(1), "tools/list", Value::Null)),
        "mcp-method",
    );
    send(&app, req).await.assert_error(400, -32020, json!(1));
    let req = with_header(
        modern_request(&modern_body(json!(2), "tools/list", Value::Null)),
        "mcp-method",
        "tools/call",
    );
    send(&app, req).await.assert_error(400, -32020, json!(2));
}

#[tokio::test]
async fn mcp_name_header_is_required_on_tools_call_and_must_match() {
    let app = router();
    let body = modern_body(
        json!(1),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "a"}}),
    );
    send(&app, without_header(modern_request(&body), "mcp-name"))
        .await
        .assert_error(400, -32020, json!(1));
    send(
        &app,
        with_header(modern_request(&body), "mcp-name", "other"),
    )
    .await
    .assert_error(400, -32020, json!(1));
    send(
        &app,
        with_header(modern_request(&body), "mcp-name", "=?base64?ZWNobw==?="),
    )
    .await
    .result();
    send(
        &app,
        with_header(modern_request(&body), "mcp-name", "=?base64?ZWNobw?="),
    )
    .await
    .assert_error(400, -32020, json!(1));
}

#[tokio::test]
async fn invalid_envelope_is_32602_with_the_key() {
    let app = router();
    let mut body = modern_body(json!(9), "tools/list", Value::Null);
    body["params"]["_meta"]
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    let r = send(&app, modern_request(&body)).await;
    r.assert_error(400, -32602, json!(9));
    assert_eq!(
        r.body["error"]["data"]["envelope"]["key"],
        "io.modelcontextprotocol/clientCapabilities"
    );
    assert_eq!(
        r.body["error"]["message"],
        "Invalid _meta envelope for protocol revision 2026-07-28: io.modelcontextprotocol/clientCapabilities: missing"
    );
}

#[tokio::test]
async fn unserved_modern_revision_is_32022_with_supported_list() {
    let app = router();
    let mut body = modern_body(json!(3), "tools/list", Value::Null);
    body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2027-01-01");
    let req = with_header(modern_request(&body), "mcp-protocol-version", "2027-01-01");
    let r = send(&app, req).await;
    r.assert_error(400, -32022, json!(3));
    assert_eq!(
        r.body["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "2027-01-01"})
    );
    // A legacy version inside an envelope is not served either.
    body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2025-06-18");
    let req = with_header(modern_request(&body), "mcp-protocol-version", "2025-06-18");
    send(&app, req).await.assert_error(400, -32022, json!(3));
}

#[tokio::test]
async fn modern_header_without_envelope_is_32602() {
    let app = router();
    let body = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"});
    let r = send(&app, modern_request(&body)).await;
    r.assert_error(400, -32602, json!(4));
    assert_eq!(
        r.body["error"]["data"]["envelope"]["missing"],
        json!(["_meta"])
    );
}

#[tokio::test]
async fn initialize_with_modern_header_is_32020() {
    let app = router();
    let body = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}});
    let req = with_header(legacy_request(&body), "mcp-protocol-version", MODERN);
    send(&app, req).await.assert_error(400, -32020, json!(0));
}

#[tokio::test]
async fn modern_unknown_methods_are_404_32601() {
    let app = router();
    for method in ["ping", "initialize", "logging/setLevel", "no/such"] {
        let r = send(
            &app,
            modern_request(&modern_body(json!(11), method, Value::Null)),
        )
        .await;
        r.assert_error(404, -32601, json!(11));
    }
    // `subscriptions/listen` exists (tests/notify.rs): without a filter it is -32602, in-band.
    let r = send(
        &app,
        modern_request(&modern_body(json!(11), "subscriptions/listen", Value::Null)),
    )
    .await;
    r.assert_error(200, -32602, json!(11));
}

#[tokio::test]
async fn modern_param_headers_are_checked_against_arguments() {
    let app = router();
    let body = modern_body(
        json!(1),
        "tools/call",
        json!({"name": "weather", "arguments": {"region": "São Paulo", "days": 3}}),
    );
    // Missing header.
    let r = send(
        &app,
        with_header(modern_request(&body), "mcp-param-days", "3"),
    )
    .await;
    r.assert_error(400, -32020, json!(1));
    assert_eq!(
        r.body["error"]["data"]["mismatch"]["header"],
        "Mcp-Param-Region"
    );
    // Correct, base64 form; integer compared numerically.
    let req = with_header(
        with_header(
            modern_request(&body),
            "mcp-param-region",
            "=?base64?U8OjbyBQYXVsbw==?=",
        ),
        "mcp-param-days",
        "3.0",
    );
    assert_eq!(
        send(&app, req).await.result()["content"][0]["text"],
        "sunny in São Paulo"
    );
    // Different value.
    let req = with_header(
        with_header(modern_request(&body), "mcp-param-region", "Lisbon"),
        "mcp-param-days",
        "3",
    );
    send(&app, req).await.assert_error(400, -32020, json!(1));
    // Invalid base64 (unpadded).
    let req = with_header(
        with_header(
            modern_request(&body),
            "mcp-param-region",
            "=?base64?U8OjbyBQYXVsbw?=",
        ),
        "mcp-param-days",
        "3",
    );
    send(&app, req).await.assert_error(400, -32020, json!(1));
    // Non-ASCII raw bytes in the header.
    let mut req = with_header(modern_request(&body), "mcp-param-days", "3");
    req.headers_mut().insert(
        "mcp-param-region",
        http::HeaderValue::from_bytes("São".as_bytes()).unwrap(),
    );
    send(&app, req).await.assert_error(400, -32020, json!(1));
    // Absent optional argument needs no header.
    let body = modern_body(
        json!(2),
        "tools/call",
        json!({"name": "weather", "arguments": {"region": "x"}}),
    );
    send(
        &app,
        with_header(modern_request(&body), "mcp-param-region", "x"),
    )
    .await
    .result();
}

#[tokio::test]
async fn repeated_checked_headers_are_32020() {
    // Only one value would be checked, while an intermediary may act on another.
    let app = router();
    let body = modern_body(
        json!(1),
        "tools/call",
        json!({"name": "weather", "arguments": {"region": "x", "days": 3}}),
    );
    for (name, second) in [
        ("mcp-param-region", "y"),
        ("mcp-method", "tools/list"),
        ("mcp-name", "echo"),
        ("mcp-protocol-version", "2025-06-18"),
    ] {
        let mut req = with_header(
            with_header(modern_request(&body), "mcp-param-region", "x"),
            "mcp-param-days",
            "3",
        );
        req.headers_mut().append(name, second.parse().unwrap());
        let r = send(&app, req).await;
        r.assert_error(400, -32020, json!(1));
        assert_eq!(r.body["error"]["data"]["mismatch"]["header"], name);
    }
    // The same request with each header once is served.
    let req = with_header(
        with_header(modern_request(&body), "mcp-param-region", "x"),
        "mcp-param-days",
        "3",
    );
    send(&app, req).await.result();
}

// ------------------------------------------------------------ error mapping

#[tokio::test]
async fn handler_errors_map_to_json_rpc_errors_on_both_eras() {
    let app = router();
    for (tool, code, message) in [
        ("fail", -32603, "the backend is down"),
        ("invalid", -32602, "argument `text` is too short"),
        ("nope", -32602, "Unknown tool: nope"),
    ] {
        let r = send(
            &app,
            modern_request(&modern_body(json!(1), "tools/call", json!({"name": tool}))),
        )
        .await;
        r.assert_error(200, code, json!(1));
        assert_eq!(r.body["error"]["message"], message);
        let body = json!({"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":tool}});
        let r = send(&app, legacy_request(&body)).await;
        r.assert_error(200, code, json!("x"));
        assert_eq!(r.body["error"]["message"], message);
    }
}

#[tokio::test]
async fn a_panicking_tool_gets_a_generic_error_and_the_server_keeps_serving() {
    let app = router();
    let r = send(
        &app,
        modern_request(&modern_body(
            json!(1),
            "tools/call",
            json!({"name": "panic"}),
        )),
    )
    .await;
    r.assert_error(200, -32603, json!(1));
    assert_eq!(r.body["error"]["message"], "Internal error");
    assert!(
        !r.raw.contains("secret") && !r.raw.contains(".rs"),
        "{}",
        r.raw
    );
    let r = send(
        &app,
        modern_request(&modern_body(
            json!(2),
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "ok"}}),
        )),
    )
    .await;
    assert_eq!(r.result()["structuredContent"], "ok");
}

#[tokio::test]
async fn missing_capability_error_travels_with_http_400() {
    let app = router();
    let r = send(
        &app,
        modern_request(&modern_body(
            json!(5),
            "tools/call",
            json!({"name": "capability"}),
        )),
    )
    .await;
    r.assert_error(400, -32021, json!(5));
    assert_eq!(
        r.body["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {}})
    );
}

#[tokio::test]
async fn input_required_needs_requests_or_state() {
    let app = router();
    let r = send(
        &app,
        modern_request(&modern_body(json!(1), "tools/call", json!({"name": "ask"}))),
    )
    .await;
    r.assert_error(200, -32603, json!(1));
    let r = send(
        &app,
        modern_request(&modern_body(
            json!(2),
            "tools/call",
            json!({"name": "ask", "arguments": {"text": "state"}}),
        )),
    )
    .await;
    assert_eq!(r.result()["resultType"], "input_required");
    assert!(
        r.result()["requestState"]
            .as_str()
            .unwrap()
            .starts_with("v1."),
        "the state is sealed"
    );
    assert!(r.result()["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    assert!(r.result().get("ttlMs").is_none());
    // A legacy call cannot carry input requests.
    let body = json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{"text":"state"}}});
    send(&app, legacy_request(&body))
        .await
        .assert_error(200, -32603, json!(3));
}

#[tokio::test]
async fn bad_params_are_32602() {
    let app = router();
    let r = send(
        &app,
        modern_request(&modern_body(json!(1), "tools/call", json!({"name": 5}))),
    )
    .await;
    r.assert_error(200, -32602, json!(1));
    let r = send(
        &app,
        modern_request(&modern_body(json!(2), "tools/list", json!({"cursor": []}))),
    )
    .await;
    r.assert_error(200, -32602, json!(2));
    let body = json!({"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":1}});
    send(&app, legacy_request(&body))
        .await
        .assert_error(200, -32602, json!(3));
}

// ------------------------------------------------------------------ legacy era

#[tokio::test]
async fn legacy_initialize_negotiates_versions() {
    let config = test_builder("test", "1.0.0")
        .instructions("Test tools.")
        .session_mode(SessionMode::Stateless);
    let app = router_with(config);
    for (asked, answered) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("2023-01-01", "2025-11-25"),
    ] {
        let body = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":asked,"capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"c","version":"1"}}});
        let r = send(&app, legacy_request(&body)).await;
        assert_eq!(r.result()["protocolVersion"], answered);
        assert_eq!(
            r.result()["serverInfo"],
            json!({"name": "test", "version": "1.0.0"})
        );
        assert_eq!(
            r.result()["capabilities"],
            json!({"tools": {"listChanged": false}, "logging": {}})
        );
        assert_eq!(r.result()["instructions"], "Test tools.");
        assert!(
            r.headers.get("mcp-session-id").is_none(),
            "stateless serving issues no session"
        );
    }
}

#[tokio::test]
async fn legacy_lifecycle_notifications_ping_and_unknown_methods() {
    let app = router();
    let r = send(
        &app,
        legacy_request(&json!({"jsonrpc":"2.0","method":"notifications/initialized"})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED);
    assert!(r.raw.is_empty());
    let r = send(
        &app,
        legacy_request(&json!({"jsonrpc":"2.0","id":9,"method":"ping"})),
    )
    .await;
    assert_eq!(r.result(), &json!({}));
    let r = send(
        &app,
        legacy_request(&json!({"jsonrpc":"2.0","id":10,"method":"server/discover"})),
    )
    .await;
    r.assert_error(200, -32601, json!(10));
    // A posted response (to a server→client request) is accepted.
    let r = send(
        &app,
        legacy_request(&json!({"jsonrpc":"2.0","id":1,"result":{}})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED);
}

#[tokio::test]
async fn legacy_results_keep_only_object_roots_for_advanced_services() {
    let app = router();
    let r = send(
        &app,
        legacy_request(&json!({"jsonrpc":"2.0","id":1,"method":"tools/list"})),
    )
    .await;
    let tools = r.result()["tools"].as_array().unwrap();
    assert!(
        tools[0].get("outputSchema").is_none(),
        "non-object output schema removed"
    );
    assert_eq!(tools[1]["outputSchema"], json!({"type": "object"}));
    for key in ["ttlMs", "cacheScope", "resultType", "_meta"] {
        assert!(r.result().get(key).is_none(), "{key} on a legacy result");
    }
    let r = send(&app, legacy_request(&json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}))).await;
    assert_eq!(
        r.result(),
        &json!({"content": [{"type": "text", "text": "a"}]})
    );
    let r = send(&app, legacy_request(&json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"object","arguments":{"text":"a"}}}))).await;
    assert_eq!(r.result()["structuredContent"]["echo"], "a");
}

#[tokio::test]
async fn legacy_requires_accept_of_json_and_sse() {
    let app = router();
    let body = json!({"jsonrpc":"2.0","id":9,"method":"ping"});
    let req = with_header(legacy_request(&body), "accept", "application/json");
    let r = send(&app, req).await;
    r.assert_error(406, -32000, Value::Null);
}

#[tokio::test]
async fn legacy_header_with_unsupported_version_is_32000() {
    let app = router_with(test_builder("t", "1").protocol_mode(ProtocolMode::Legacy));
    let body = modern_body(
        json!("server-discover-probe-1"),
        "server/discover",
        Value::Null,
    );
    let r = send(&app, modern_request(&body)).await;
    r.assert_error(400, -32000, Value::Null);
    assert!(
        r.body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Bad Request: Unsupported protocol version: 2026-07-28")
    );
    // Without the header a legacy-only server reads the probe as an unknown method.
    let r = send(
        &app,
        without_header(modern_request(&body), "mcp-protocol-version"),
    )
    .await;
    r.assert_error(200, -32601, json!("server-discover-probe-1"));
}

#[tokio::test]
async fn legacy_batches() {
    let app = router();
    let batch = json!([
        {"jsonrpc":"2.0","id":1,"method":"ping"},
        {"jsonrpc":"2.0","method":"notifications/initialized"},
        {"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}
    ]);
    let r = send(&app, legacy_request(&batch)).await;
    assert_eq!(r.status, StatusCode::OK);
    let items = r.body.as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0], json!({"jsonrpc":"2.0","id":1,"result":{}}));
    assert_eq!(items[1]["id"], "b");

    let only_notifications = json!([{"jsonrpc":"2.0","method":"notifications/initialized"}]);
    assert_eq!(
        send(&app, legacy_request(&only_notifications)).await.status,
        StatusCode::ACCEPTED
    );

    send(&app, legacy_request(&json!([])))
        .await
        .assert_error(400, -32600, Value::Null);
    let big: Vec<Value> = (0..101)
        .map(|i| json!({"jsonrpc":"2.0","id":i,"method":"ping"}))
        .collect();
    send(&app, legacy_request(&Value::Array(big)))
        .await
        .assert_error(400, -32600, Value::Null);
    let bad = json!([{"jsonrpc":"2.0","id":1,"method":"ping"}, {"id": 2}]);
    send(&app, legacy_request(&bad))
        .await
        .assert_error(400, -32600, Value::Null);
    let claim = json!([modern_body(json!(1), "tools/list", Value::Null)]);
    send(&app, legacy_request(&claim))
        .await
        .assert_error(400, -32600, Value::Null);
    let init = json!([
        {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}},
        {"jsonrpc":"2.0","id":1,"method":"ping"}
    ]);
    send(&app, legacy_request(&init))
        .await
        .assert_error(400, -32600, Value::Null);
}

// --------------------------------------------------------------- protocol modes

#[tokio::test]
async fn modern_only_mode_rejects_legacy_traffic() {
    let app = router_with(test_builder("t", "1").protocol_mode(ProtocolMode::Modern));
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}});
    let r = send(&app, legacy_request(&init)).await;
    r.assert_error(400, -32022, json!(0));
    assert_eq!(
        r.body["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "2025-06-18"})
    );
    let r = send(
        &app,
        legacy_request(&json!({"jsonrpc":"2.0","id":1,"method":"tools/list"})),
    )
    .await;
    r.assert_error(400, -32022, json!(1));
    assert_eq!(
        r.body["error"]["data"],
        json!({"supported": ["2026-07-28"]})
    );
    let r = send(
        &app,
        legacy_request(&json!([{"jsonrpc":"2.0","id":1,"method":"ping"}])),
    )
    .await;
    r.assert_error(400, -32600, Value::Null);
    let r = send(
        &app,
        legacy_request(&json!({"jsonrpc":"2.0","id":1,"result":{}})),
    )
    .await;
    r.assert_error(400, -32600, json!(1));
    let r = send(
        &app,
        legacy_request(&json!({"jsonrpc":"2.0","method":"notifications/initialized"})),
    )
    .await;
    assert_eq!(r.status, StatusCode::ACCEPTED);
    for method in ["GET", "DELETE", "PUT"] {
        let req = Request::builder()
            .method(method)
            .uri("/mcp")
            .body(Body::empty())
            .unwrap();
        let r = send(&app, req).await;
        r.assert_error(405, -32000, Value::Null);
        assert_eq!(r.headers["allow"], "POST");
    }
    // Modern traffic is served.
    send(
        &app,
        modern_request(&modern_body(json!(2), "tools/list", Value::Null)),
    )
    .await
    .result();
}

#[tokio::test]
async fn stateless_auto_mode_serves_both_eras_and_answers_get_delete_405() {
    let app = router_with(test_builder("t", "1").session_mode(SessionMode::Stateless));
    send(
        &app,
        modern_request(&modern_body(json!(1), "tools/list", Value::Null)),
    )
    .await
    .result();
    send(
        &app,
        legacy_request(&json!({"jsonrpc":"2.0","id":2,"method":"tools/list"})),
    )
    .await
    .result();
    for method in ["GET", "DELETE"] {
        let req = Request::builder()
            .method(method)
            .uri("/mcp")
            .header("accept", "text/event-stream")
            .body(Body::empty())
            .unwrap();
        send(&app, req).await.assert_error(405, -32000, Value::Null);
    }
    let req = Request::builder()
        .method("PATCH")
        .uri("/mcp")
        .body(Body::empty())
        .unwrap();
    let r = send(&app, req).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(r.headers["allow"], "GET, POST, DELETE");
}

#[tokio::test]
async fn modern_notifications_are_accepted() {
    let app = router();
    let mut body = modern_body(json!(0), "notifications/cancelled", json!({"requestId": 3}));
    body.as_object_mut().unwrap().remove("id");
    let r = send(&app, modern_request(&body)).await;
    assert_eq!(r.status, StatusCode::ACCEPTED);
}

// ------------------------------------------------------------- HTTP-level rules

#[tokio::test]
async fn origin_validation_runs_first_on_both_eras() {
    let config = test_builder("t", "1").transport(|http: mcp::transport::http::HttpConfig| {
        http.allowed_origins(["https://app.example.com"])
    });
    let app = router_with(config);
    let modern = modern_body(json!(1), "tools/list", Value::Null);
    let legacy = json!({"jsonrpc":"2.0","id":1,"method":"tools/list"});
    for build in [modern_request(&modern), legacy_request(&legacy)] {
        let r = send(
            &app,
            with_header(build, "origin", "https://evil.example.com"),
        )
        .await;
        r.assert_error(403, -32000, Value::Null);
    }
    send(
        &app,
        with_header(modern_request(&modern), "origin", "https://app.example.com"),
    )
    .await
    .result();
    send(&app, modern_request(&modern)).await.result();
    // Origin is checked before the body is even parsed.
    let req = Request::post("/mcp")
        .header("origin", "null")
        .header("content-type", "application/json")
        .body(Body::from("{"))
        .unwrap();
    send(&app, req).await.assert_error(403, -32000, Value::Null);
    // Wildcard.
    let app = router_with(
        test_builder("t", "1")
            .transport(|http: mcp::transport::http::HttpConfig| http.allowed_origins(["*"])),
    );
    send(
        &app,
        with_header(modern_request(&modern), "origin", "https://any.example"),
    )
    .await
    .result();
    // Default: no origin is allowed.
    let app = router();
    send(
        &app,
        with_header(modern_request(&modern), "origin", "http://localhost:3000"),
    )
    .await
    .assert_error(403, -32000, Value::Null);
}

#[tokio::test]
async fn content_type_must_be_json() {
    let app = router();
    let req = Request::post("/mcp")
        .header("content-type", "text/plain")
        .body(Body::from("{}"))
        .unwrap();
    send(&app, req).await.assert_error(415, -32000, Value::Null);
    let req = Request::post("/mcp").body(Body::from("{}")).unwrap();
    send(&app, req).await.assert_error(415, -32000, Value::Null);
    let body = json!({"jsonrpc":"2.0","id":1,"method":"ping"});
    let req = with_header(
        legacy_request(&body),
        "content-type",
        "application/json; charset=utf-8",
    );
    send(&app, req).await.result();
}

#[tokio::test]
async fn parse_errors_and_invalid_messages() {
    let app = router();
    for raw in [
        "{",
        "",
        "nul",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"",
        "\u{feff}{}",
    ] {
        let req = Request::post("/mcp")
            .header("content-type", "application/json")
            .body(Body::from(raw))
            .unwrap();
        send(&app, req).await.assert_error(400, -32700, Value::Null);
    }
    let req = Request::post("/mcp")
        .header("content-type", "application/json")
        .body(Body::from(vec![0xff, 0xfe, b'{']))
        .unwrap();
    send(&app, req).await.assert_error(400, -32700, Value::Null);
    let deep = "[".repeat(100_000);
    let req = Request::post("/mcp")
        .header("content-type", "application/json")
        .body(Body::from(deep))
        .unwrap();
    send(&app, req).await.assert_error(400, -32700, Value::Null);
    for (body, id) in [
        (json!({"jsonrpc":"1.0","id":5,"method":"ping"}), json!(5)),
        (
            json!({"jsonrpc":"2.0","id":6,"method":"ping","extra":true}),
            json!(6),
        ),
        (
            json!({"jsonrpc":"2.0","id":null,"method":"ping"}),
            Value::Null,
        ),
        (
            json!({"jsonrpc":"2.0","id":1.5,"method":"ping"}),
            Value::Null,
        ),
        (
            json!({"jsonrpc":"2.0","id":7,"method":"ping","params":[1]}),
            json!(7),
        ),
        (json!("ping"), Value::Null),
        (json!(42), Value::Null),
    ] {
        let r = send(&app, legacy_request(&body)).await;
        r.assert_error(400, -32600, id);
    }
}

#[tokio::test]
async fn bodies_over_the_limit_are_413() {
    let app = router_with(
        test_builder("t", "1")
            .transport(|http: mcp::transport::http::HttpConfig| http.max_body_bytes(1024)),
    );
    let big = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x".repeat(2000)}}});
    let r = send(&app, legacy_request(&big)).await;
    r.assert_error(413, -32000, Value::Null);
    // Without Content-Length: a streamed (chunked) body.
    let chunks: Vec<Result<bytes::Bytes, std::io::Error>> = big
        .to_string()
        .into_bytes()
        .chunks(100)
        .map(|c| Ok(bytes::Bytes::copy_from_slice(c)))
        .collect();
    let stream = futures_util::stream::iter(chunks);
    let req = Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(Body::from_stream(stream))
        .unwrap();
    let r = send(&app, req).await;
    r.assert_error(413, -32000, Value::Null);
    // A lying Content-Length larger than the limit is refused before reading.
    let req = Request::post("/mcp")
        .header("content-type", "application/json")
        .header("content-length", "999999999")
        .body(Body::from("{}"))
        .unwrap();
    send(&app, req).await.assert_error(413, -32000, Value::Null);
    // At the limit it is served.
    let small = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"y"}}});
    let pad = 1024 - small.to_string().len();
    let mut raw = small.to_string();
    raw.insert_str(raw.len() - 1, &" ".repeat(pad));
    assert_eq!(raw.len(), 1024);
    let req = Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(Body::from(raw))
        .unwrap();
    send(&app, req).await.result();
}

#[tokio::test]
async fn sse_only_clients_get_an_event_stream() {
    let app = router();
    let req = with_header(
        modern_request(&modern_body(json!(1), "tools/list", Value::Null)),
        "accept",
        "text/event-stream",
    );
    let r = send(&app, req).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.headers["content-type"], "text/event-stream");
    let data = r
        .raw
        .strip_prefix("event: message\ndata: ")
        .unwrap()
        .trim_end();
    let v: Value = serde_json::from_str(data).unwrap();
    assert_eq!(v["id"], 1);
}

#[tokio::test]
async fn advanced_tool_lookup_reuses_the_list_while_its_hint_is_fresh() {
    use std::sync::atomic::Ordering;
    // No hint: every modern call reads the pages (three here, the tool is on the last).
    let service = TestService::default();
    let calls = service.list_calls.clone();
    let app = router_with(mcp::Server::builder(service).info("t", "1"));
    let call = modern_body(
        json!(1),
        "tools/call",
        json!({"name": "weather", "arguments": {"region": "x"}}),
    );
    for _ in 0..2 {
        send(
            &app,
            with_header(modern_request(&call), "mcp-param-region", "x"),
        )
        .await
        .result();
    }
    assert_eq!(calls.load(Ordering::SeqCst), 6);
    // A fresh hint: the pages are read once, and the header rules still apply.
    let service = TestService {
        list_ttl: Some(60_000),
        ..TestService::default()
    };
    let calls = service.list_calls.clone();
    let app = router_with(mcp::Server::builder(service).info("t", "1"));
    for _ in 0..3 {
        send(
            &app,
            with_header(modern_request(&call), "mcp-param-region", "x"),
        )
        .await
        .result();
    }
    send(&app, modern_request(&call))
        .await
        .assert_error(400, -32020, json!(1));
    assert_eq!(calls.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn advanced_handlers_get_their_plain_state_and_answers_back() {
    let app = router();
    let caps = json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let first = send(
        &app,
        modern_request(&modern_body(
            json!(1),
            "tools/call",
            json!({"name": "resume", "_meta": caps}),
        )),
    )
    .await;
    let token = first.result()["requestState"].as_str().unwrap().to_owned();
    assert!(
        token.starts_with("v1.") && !token.contains("round-1"),
        "signed, opaque: {token}"
    );
    assert_eq!(
        first.result()["inputRequests"]["ok"]["params"]["mode"],
        "form"
    );
    let answers = json!({"ok": {"action": "accept", "content": {"ok": true}}});
    let params =
        json!({"name": "resume", "requestState": token, "inputResponses": answers, "_meta": caps});
    let second = send(
        &app,
        modern_request(&modern_body(json!(2), "tools/call", params)),
    )
    .await;
    assert_eq!(
        second.result()["content"][0]["text"],
        r#"state=round-1 answer={"action":"accept","content":{"ok":true}}"#
    );
    // Legacy calls carry no continuation: the handler sees neither state nor answers.
    let legacy = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "resume", "requestState": "round-1", "inputResponses": answers}});
    let config = test_builder("t", "1").session_mode(SessionMode::Stateless);
    let stateless = router_with(config);
    send(&stateless, legacy_request(&legacy))
        .await
        .assert_error(200, -32603, json!(3));
}

#[tokio::test]
async fn a_body_that_never_arrives_times_out_with_408() {
    let config = test_builder("t", "1").transport(|http: mcp::transport::http::HttpConfig| {
        http.body_read_timeout(std::time::Duration::from_millis(100))
    });
    let app = router_with(config);
    let stalled = futures_util::stream::pending::<Result<bytes::Bytes, std::io::Error>>();
    let req = Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(Body::from_stream(stalled))
        .unwrap();
    let started = std::time::Instant::now();
    send(&app, req).await.assert_error(408, -32000, Value::Null);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    // The server keeps serving.
    send(
        &app,
        legacy_request(&json!({"jsonrpc":"2.0","id":1,"method":"ping"})),
    )
    .await
    .result();
    let zero = test_builder("t", "1").transport(|http: mcp::transport::http::HttpConfig| {
        http.body_read_timeout(std::time::Duration::ZERO)
    });
    assert!(zero.build().is_err());
}
