//! The client against the real TypeScript SDK peers (`interop/server.mjs`): the v2 server
//! (`@modelcontextprotocol/server` 2.4.0, both eras) and the v1 server
//! (`@modelcontextprotocol/sdk` 1.32.2, legacy only). Requires `npm ci` in `interop/`.

mod client_common;

use std::sync::{Arc, Mutex};

use client_common::{NodeServer, bounded, client_info};
use mcp::client::{
    CacheMode, Client, ClientConfig, ClientError, ConnectOptions, ProtocolError, ProtocolMode,
    ToolCallError,
};
use mcp::protocol::{
    ElicitAction, ElicitRequest, ElicitRequestParams, ElicitResult, Era, ErrorCode,
};
use mcp::{CallToolResponse, CallToolResult};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

fn client(url: &str, mode: ProtocolMode) -> Client {
    Client::new(url, ClientConfig::new().protocol_mode(mode)).expect("client")
}

/// A client whose handler answers every form with `action` (and `confirm: true`), recording
/// the messages it was shown.
fn answering(
    url: &str,
    mode: ProtocolMode,
    action: ElicitAction,
) -> (Client, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let config = ClientConfig::new().protocol_mode(mode).elicitation_handler(
        move |request: ElicitRequest| {
            let record = record.clone();
            async move {
                record
                    .lock()
                    .unwrap()
                    .push(request.params.message().to_owned());
                assert!(matches!(request.params, ElicitRequestParams::Form(_)));
                let mut result = match action {
                    ElicitAction::Accept => ElicitResult::accept(Default::default()),
                    ElicitAction::Decline => ElicitResult::decline(),
                    ElicitAction::Cancel => ElicitResult::cancel(),
                };
                // Content on every answer: the client must strip it from decline/cancel.
                result.content = json!({"confirm": true}).as_object().cloned();
                Ok(result)
            }
        },
    );
    (Client::new(url, config).expect("client"), seen)
}

fn text(result: &CallToolResult) -> String {
    result.joined_text()
}

/// The arguments of the peer's `add` tool.
#[derive(Serialize)]
struct Add {
    a: i64,
    b: i64,
}

/// The structured result of the peer's `add` tool.
#[derive(Debug, Deserialize, PartialEq)]
struct Sum {
    sum: i64,
}

async fn add(client: &Client) -> CallToolResult {
    client
        .call("add")
        .arguments(&Add { a: 2, b: 3 })
        .expect("arguments")
        .await
        .expect("add")
}

#[tokio::test]
async fn auto_connects_modern_to_the_v2_server() {
    bounded(async {
        let server = NodeServer::start(&[]);
        let client = client(&server.url, ProtocolMode::Auto);
        let info = client.connect(client_info()).await.expect("connect");
        assert_eq!(info.era(), Era::Modern);
        assert_eq!(info.protocol_version(), "2026-07-28");
        assert_eq!(
            info.server_info().map(|s| s.name.as_str()),
            Some("mcp-interop-peer-server")
        );
        assert!(info.instructions().unwrap_or_default().contains("Interop"));
        assert!(info.capabilities().tools.is_some());
        assert_eq!(info.session_id(), None);
        let sum = add(&client).await;
        assert_eq!(text(&sum), "5");
        assert_eq!(sum.structured::<Sum>().expect("structured"), Sum { sum: 5 });
        client.close().await.expect("close");
        assert!(client.connection().is_none());
    })
    .await;
}

#[tokio::test]
async fn auto_falls_back_to_legacy_against_the_v1_server() {
    bounded(async {
        let server = NodeServer::start(&["--v1"]);
        let (client, seen) = answering(&server.url, ProtocolMode::Auto, ElicitAction::Accept);
        let info = client.connect(client_info()).await.expect("connect");
        assert_eq!(info.era(), Era::Legacy);
        assert_eq!(info.protocol_version(), "2025-11-25");
        assert_eq!(
            info.server_info().map(|s| s.name.as_str()),
            Some("mcp-interop-peer-server-v1")
        );
        assert!(info.session_id().is_some(), "the v1 server is sessionful");
        assert_eq!(text(&add(&client).await), "5");
        let all = client.list_tools().await.expect("list");
        assert_eq!(all.tools.len(), 5);
        // Push-style elicitation answered through the handler.
        let r = client
            .call("confirm_delete")
            .arguments(json!({"item": "photos"}))
            .unwrap()
            .await
            .expect("confirm_delete");
        assert_eq!(text(&r), "Deleted");
        assert_eq!(seen.lock().unwrap().len(), 1);
        client.close().await.expect("close");
    })
    .await;
}

#[tokio::test]
async fn modern_mode_never_falls_back() {
    bounded(async {
        let server = NodeServer::start(&["--v1"]);
        let client = client(&server.url, ProtocolMode::Modern);
        let err = client.connect(client_info()).await.unwrap_err();
        assert!(
            matches!(
                err,
                ClientError::Protocol(ProtocolError::Negotiation { .. })
            ),
            "{err:?}"
        );
        // The v1 server's answer to the probe: HTTP 400, -32000.
        assert_eq!(err.code(), Some(ErrorCode::TRANSPORT));
        assert_eq!(err.http_status(), Some(400));
        assert!(client.connection().is_none());
        assert!(matches!(
            client.list_tools().await,
            Err(ClientError::NotConnected)
        ));
    })
    .await;
}

#[tokio::test]
async fn legacy_mode_keeps_a_session_and_deletes_it_on_close() {
    bounded(async {
        let server = NodeServer::start(&["--legacy", "sessionful"]);
        let client = client(&server.url, ProtocolMode::Legacy);
        let info = client.connect(client_info()).await.expect("connect");
        assert_eq!(info.era(), Era::Legacy);
        assert_eq!(info.protocol_version(), "2025-11-25");
        let session = info.session_id().map(str::to_owned).expect("a session id");
        // The sessionful transport rejects requests without the session header, so these
        // succeeding shows the id is sent on every request.
        for _ in 0..3 {
            assert_eq!(text(&add(&client).await), "5");
        }
        assert_eq!(client.session_id(), Some(session.clone()));
        client.close().await.expect("close");
        // After the DELETE the server no longer knows the session.
        let response = reqwest::Client::new()
            .post(&server.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25")
            .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
            .send()
            .await
            .expect("raw request");
        assert_eq!(response.status().as_u16(), 404);
    })
    .await;
}

#[tokio::test]
async fn legacy_mode_against_stateless_legacy_serving() {
    bounded(async {
        let server = NodeServer::start(&["--legacy", "stateless"]);
        let client = client(&server.url, ProtocolMode::Legacy);
        let info = client.connect(client_info()).await.expect("connect");
        assert_eq!(info.era(), Era::Legacy);
        assert_eq!(info.session_id(), None);
        assert_eq!(text(&add(&client).await), "5");
        assert_eq!(client.list_tools().await.expect("list").tools.len(), 5);
        // No return path for elicitation on stateless legacy serving: an isError result.
        let (elicit, _) = answering(&server.url, ProtocolMode::Legacy, ElicitAction::Accept);
        elicit.connect(client_info()).await.expect("connect");
        let r = elicit
            .call("confirm_delete")
            .arguments(json!({"item": "x"}))
            .unwrap()
            .await
            .expect("a result");
        assert!(r.is_error());
        client.close().await.expect("close without a session");
    })
    .await;
}

#[tokio::test]
async fn legacy_without_initialize_sends_plain_requests() {
    bounded(async {
        let server = NodeServer::start(&[]);
        let client = client(&server.url, ProtocolMode::Legacy);
        let info = client
            .connect(ConnectOptions::new(client_info()).legacy_initialize(false))
            .await
            .expect("connect");
        assert_eq!(info.era(), Era::Legacy);
        assert_eq!(info.protocol_version(), "2025-03-26");
        assert_eq!(info.server_info(), None);
        assert_eq!(info.session_id(), None);
        assert_eq!(text(&add(&client).await), "5");
    })
    .await;
}

#[tokio::test]
async fn legacy_mode_against_a_modern_only_server_fails_with_32022() {
    bounded(async {
        let server = NodeServer::start(&["--legacy", "reject"]);
        let client = client(&server.url, ProtocolMode::Legacy);
        let err = client.connect(client_info()).await.unwrap_err();
        assert_eq!(err.code(), Some(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION));
        assert_eq!(err.http_status(), Some(400));
        let rpc = err.rpc().expect("a JSON-RPC error");
        assert_eq!(
            rpc.data.as_ref().unwrap()["supported"],
            json!(["2026-07-28"])
        );
        // Auto mode against the same server is modern.
        let auto = self::client(&server.url, ProtocolMode::Auto);
        assert_eq!(
            auto.connect(client_info()).await.unwrap().era(),
            Era::Modern
        );
    })
    .await;
}

#[tokio::test]
async fn lists_all_pages_and_page_by_page() {
    bounded(async {
        let server = NodeServer::start(&[]);
        for mode in [ProtocolMode::Modern, ProtocolMode::Legacy] {
            let client = client(&server.url, mode);
            client.connect(client_info()).await.expect("connect");
            let all = client.list_tools().await.expect("list");
            let names: Vec<_> = all.tools.iter().map(|t| t.name.as_str()).collect();
            assert_eq!(
                names,
                ["add", "echo", "weather", "confirm_delete", "fail"],
                "{mode:?}"
            );
            assert_eq!(all.next_cursor, None);
            let first = client
                .list_tools_page(None, CacheMode::Normal)
                .await
                .expect("page 1");
            assert_eq!(first.tools.len(), 3);
            let cursor = first.next_cursor.expect("a second page");
            let second = client
                .list_tools_page(Some(&cursor), CacheMode::Normal)
                .await
                .expect("page 2");
            assert_eq!(second.tools.len(), 2);
            assert_eq!(second.next_cursor, None);
            if mode == ProtocolMode::Modern {
                assert_eq!(first.ttl_ms, Some(0), "the TS server's default hint");
            } else {
                assert_eq!(first.ttl_ms, None, "no hints on legacy");
            }
            // A bad cursor is the server's -32602.
            let err = client
                .list_tools_page(Some("garbage"), CacheMode::Normal)
                .await
                .unwrap_err();
            assert_eq!(err.code(), Some(ErrorCode::INVALID_PARAMS));
        }
    })
    .await;
}

#[tokio::test]
async fn mirrors_the_region_header_on_modern_calls() {
    bounded(async {
        let server = NodeServer::start(&[]);
        let client = client(&server.url, ProtocolMode::Modern);
        client.connect(client_info()).await.expect("connect");
        // No list beforehand: the client fetches the definition itself.
        let r = client
            .call("weather")
            .arguments(json!({"region": "eu-west", "city": "Lisbon"}))
            .unwrap()
            .await
            .expect("weather");
        assert!(!r.is_error(), "{r:?}");
        let out = r.structured_content.expect("structured");
        assert_eq!(out["regionHeader"], "eu-west");
        // Non-ASCII values travel base64-wrapped and still match.
        let r = client
            .call("weather")
            .arguments(json!({"region": "São Paulo", "city": "x"}))
            .unwrap()
            .await
            .expect("weather");
        assert_eq!(
            r.structured_content.expect("structured")["regionHeader"],
            "=?base64?U8OjbyBQYXVsbw==?="
        );
    })
    .await;
}

async fn confirm(client: &Client) -> CallToolResult {
    client
        .call("confirm_delete")
        .arguments(json!({"item": "photos"}))
        .unwrap()
        .await
        .expect("confirm_delete")
}

#[tokio::test]
async fn answers_input_required_rounds_on_modern() {
    bounded(async {
        let server = NodeServer::start(&[]);
        for (action, expected, deleted) in [
            (ElicitAction::Accept, "Deleted", true),
            (ElicitAction::Decline, "Kept", false),
            (ElicitAction::Cancel, "Kept", false),
        ] {
            let (client, seen) = answering(&server.url, ProtocolMode::Modern, action);
            client.connect(client_info()).await.expect("connect");
            let r = confirm(&client).await;
            assert_eq!(text(&r), expected);
            let out = r.structured_content.expect("structured");
            assert_eq!(out["deleted"], deleted);
            assert_eq!(out["action"], json!(action));
            assert_eq!(
                *seen.lock().unwrap(),
                ["Delete photos? This cannot be undone."]
            );
        }
    })
    .await;
}

#[tokio::test]
async fn answers_pushed_elicitation_on_sessionful_legacy() {
    bounded(async {
        let server = NodeServer::start(&["--legacy", "sessionful"]);
        for (action, expected) in [
            (ElicitAction::Accept, "Deleted"),
            (ElicitAction::Decline, "Kept"),
            (ElicitAction::Cancel, "Kept"),
        ] {
            let (client, seen) = answering(&server.url, ProtocolMode::Legacy, action);
            client.connect(client_info()).await.expect("connect");
            let r = confirm(&client).await;
            assert_eq!(text(&r), expected, "{action:?}");
            assert_eq!(
                r.structured_content.expect("structured")["action"],
                json!(action)
            );
            assert_eq!(seen.lock().unwrap().len(), 1);
            client.close().await.expect("close");
        }
    })
    .await;
}

#[tokio::test]
async fn once_returns_the_raw_rounds() {
    bounded(async {
        let server = NodeServer::start(&[]);
        let (client, _) = answering(&server.url, ProtocolMode::Modern, ElicitAction::Accept);
        client.connect(client_info()).await.expect("connect");
        let call = || {
            client
                .call("confirm_delete")
                .arguments(json!({"item": "x"}))
                .expect("arguments")
        };
        let CallToolResponse::InputRequired(ir) = call().once().await.expect("round 1") else {
            panic!("expected input_required");
        };
        let requests = ir.input_requests.expect("input requests");
        assert_eq!(requests["confirm"]["method"], "elicitation/create");
        let answer = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
        let CallToolResponse::Complete(done) = call()
            .input_responses(answer.as_object().cloned().expect("object"))
            .request_state(ir.request_state)
            .once()
            .await
            .expect("round 2")
        else {
            panic!("expected a complete result");
        };
        assert_eq!(text(&done), "Deleted");
    })
    .await;
}

#[tokio::test]
async fn input_rounds_are_bounded() {
    bounded(async {
        let server = NodeServer::start(&[]);
        let config = ClientConfig::new()
            .protocol_mode(ProtocolMode::Modern)
            .max_input_rounds(0)
            .elicitation_handler(|_r: ElicitRequest| async {
                Ok(ElicitResult::accept(Default::default()))
            });
        let client = Client::new(&server.url, config).expect("client");
        client.connect(client_info()).await.expect("connect");
        let err = client
            .call("confirm_delete")
            .arguments(json!({"item": "x"}))
            .unwrap()
            .await
            .unwrap_err();
        assert!(
            matches!(
                err,
                ClientError::ToolCall(ToolCallError::InputRoundsExhausted { rounds: 0, .. })
            ),
            "{err:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn without_a_handler_no_elicitation_is_declared() {
    bounded(async {
        let server = NodeServer::start(&[]);
        let client = client(&server.url, ProtocolMode::Modern);
        client.connect(client_info()).await.expect("connect");
        let err = client
            .call("confirm_delete")
            .arguments(json!({"item": "x"}))
            .unwrap()
            .await
            .unwrap_err();
        assert_eq!(
            err.code(),
            Some(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY)
        );
        assert_eq!(err.http_status(), Some(400));
    })
    .await;
}

#[tokio::test]
async fn tool_errors_are_data_and_unknown_tools_are_errors() {
    bounded(async {
        let server = NodeServer::start(&["--legacy", "sessionful"]);
        for mode in [ProtocolMode::Modern, ProtocolMode::Legacy] {
            let client = client(&server.url, mode);
            client.connect(client_info()).await.expect("connect");
            let r = client
                .call("fail")
                .arguments(json!({"message": "boom"}))
                .unwrap()
                .await
                .expect("an isError result is data");
            assert!(r.is_error());
            assert_eq!(text(&r), "boom");
            let err = client
                .call("no_such_tool")
                .arguments(json!({}))
                .unwrap()
                .await
                .unwrap_err();
            assert_eq!(
                err.code(),
                Some(ErrorCode::INVALID_PARAMS),
                "{mode:?}: {err:?}"
            );
            let rpc = err.rpc().expect("a JSON-RPC error");
            assert!(rpc.message.contains("no_such_tool"), "{}", rpc.message);
            assert!(matches!(
                client.call("echo").arguments(json!([1])),
                Err(ClientError::ToolCall(
                    ToolCallError::InvalidArguments { .. }
                ))
            ));
            let r = client
                .call("echo")
                .arguments(json!({"text": "héllo"}))
                .unwrap()
                .await
                .expect("echo");
            assert_eq!(text(&r), "héllo");
            client.close().await.expect("close");
        }
    })
    .await;
}

#[tokio::test]
async fn concurrent_calls_share_one_client() {
    bounded(async {
        let server = NodeServer::start(&["--legacy", "sessionful"]);
        for mode in [ProtocolMode::Auto, ProtocolMode::Legacy] {
            let client = client(&server.url, mode);
            client.connect(client_info()).await.expect("connect");
            let mut tasks = Vec::new();
            for i in 0..16_i64 {
                let client = client.clone();
                tasks.push(tokio::spawn(async move {
                    client
                        .call("add")
                        .arguments(&Add { a: i, b: 1 })?
                        .await?
                        .structured::<Sum>()
                        .map_err(ClientError::from)
                }));
            }
            for (i, task) in tasks.into_iter().enumerate() {
                let out = task.await.expect("join").expect("call");
                assert_eq!(out, Sum { sum: i as i64 + 1 });
            }
            client.close().await.expect("close");
        }
    })
    .await;
}

#[tokio::test]
async fn discover_then_adopt() {
    bounded(async {
        let server = NodeServer::start(&[]);
        let client = client(&server.url, ProtocolMode::Auto);
        let discovered = client.discover(client_info()).await.expect("discover");
        assert_eq!(discovered.supported_versions, ["2026-07-28"]);
        assert!(client.connection().is_none(), "discover does not connect");
        let info = client
            .adopt_discovery(client_info(), discovered)
            .await
            .expect("adopt");
        assert_eq!(info.era(), Era::Modern);
        assert_eq!(text(&add(&client).await), "5");
        let legacy = self::client(&server.url, ProtocolMode::Auto);
        let info = legacy.initialize_legacy(client_info()).await.expect("init");
        assert_eq!(info.era(), Era::Legacy);
        assert_eq!(text(&add(&legacy).await), "5");
        let _: Value = json!(null);
    })
    .await;
}

/// Resources, templates, prompts and completion against the TypeScript v2 server's
/// conformance fixtures, on the modern era and on a legacy session.
#[tokio::test]
async fn resources_prompts_and_completion_against_the_v2_server() {
    use mcp::protocol::Reference;
    use std::collections::BTreeMap;
    bounded(async {
        for (args, mode, era) in [
            (&["--conformance"][..], ProtocolMode::Modern, Era::Modern),
            (
                &["--conformance", "--legacy", "sessionful"][..],
                ProtocolMode::Legacy,
                Era::Legacy,
            ),
        ] {
            let server = NodeServer::start(args);
            let client = client(&server.url, mode);
            let info = client.connect(client_info()).await.expect("connect");
            assert_eq!(info.era(), era);
            let resources = client.list_resources().await.expect("resources/list");
            let uris: Vec<&str> = resources.resources.iter().map(|r| r.uri.as_str()).collect();
            assert!(uris.contains(&"test://static-text"), "{era:?} {uris:?}");
            let templates = client
                .list_resource_templates()
                .await
                .expect("resources/templates/list");
            assert_eq!(
                templates.resource_templates[0].uri_template,
                "test://template/{id}/data"
            );
            let text = client
                .read_resource("test://static-text")
                .await
                .expect("resources/read");
            assert_eq!(
                serde_json::to_value(&text.contents[0]).unwrap()["text"],
                "This is the content of the static text resource."
            );
            let templated = client
                .read_resource("test://template/123/data")
                .await
                .expect("templated read");
            let body = serde_json::to_value(&templated.contents[0]).unwrap();
            assert!(body["text"].as_str().unwrap().contains("123"), "{body}");
            let prompts = client.list_prompts().await.expect("prompts/list");
            assert!(
                prompts
                    .prompts
                    .iter()
                    .any(|p| p.name == "test_prompt_with_arguments")
            );
            let arguments = BTreeMap::from([
                ("arg1".to_owned(), "a".to_owned()),
                ("arg2".to_owned(), "b".to_owned()),
            ]);
            let prompt = client
                .get_prompt("test_prompt_with_arguments", arguments)
                .await
                .expect("prompts/get");
            let first = serde_json::to_value(&prompt.messages[0]).unwrap();
            assert_eq!(
                first["content"]["text"],
                "Prompt with arguments: arg1='a', arg2='b'"
            );
            let image = client
                .get_prompt("test_prompt_with_image", BTreeMap::new())
                .await
                .expect("prompt with an image");
            let image = serde_json::to_value(&image.messages[0]).unwrap();
            assert_eq!(image["content"]["type"], "image");
            let completion = client
                .complete(
                    Reference::prompt("test_prompt_with_arguments"),
                    "arg1",
                    "pa",
                    BTreeMap::new(),
                )
                .await
                .expect("completion/complete");
            assert_eq!(completion.values, ["paris", "park", "party"]);
            // An unknown resource is the server's JSON-RPC error.
            let err = client
                .read_resource("test://nope")
                .await
                .expect_err("unknown resource");
            assert!(err.code().is_some(), "{err:?}");
            client.close().await.expect("close");
        }
    })
    .await;
}

/// The notification handler sees the TypeScript v2 server's log and progress notifications
/// of a call (legacy session: logs and progress; modern: progress, logs need a level).
#[tokio::test]
async fn notifications_reach_the_handler_from_the_v2_server() {
    use mcp::client::ServerNotification;
    bounded(async {
        for (args, mode) in [
            (&["--conformance"][..], ProtocolMode::Modern),
            (
                &["--conformance", "--legacy", "sessionful"][..],
                ProtocolMode::Legacy,
            ),
        ] {
            let server = NodeServer::start(args);
            let seen: Arc<Mutex<Vec<ServerNotification>>> = Arc::default();
            let sink = seen.clone();
            let config = ClientConfig::new()
                .protocol_mode(mode)
                .notification_handler(move |n| sink.lock().unwrap().push(n.clone()));
            let client = Client::new(&server.url, config).expect("client");
            client.connect(client_info()).await.expect("connect");
            let meta = json!({"progressToken": "p-1"})
                .as_object()
                .cloned()
                .unwrap();
            let result = client
                .call("test_tool_with_progress")
                .meta(meta)
                .await
                .expect("call");
            assert_eq!(text(&result), "p-1");
            let result = client.call("test_tool_with_logging").await.expect("call");
            assert_eq!(text(&result), "Tool with logging executed successfully");
            let seen_now = seen.lock().unwrap().clone();
            let progress: Vec<_> = seen_now
                .iter()
                .filter_map(|n| n.progress().map(|(t, p, total)| (t.clone(), p, total)))
                .collect();
            assert_eq!(
                progress,
                [
                    (json!("p-1"), 0.0, Some(100.0)),
                    (json!("p-1"), 50.0, Some(100.0)),
                    (json!("p-1"), 100.0, Some(100.0))
                ],
                "{mode:?} {seen:?}"
            );
            let logs: Vec<_> = seen_now
                .iter()
                .filter_map(|n| n.log())
                .map(|(l, d)| (l.to_owned(), d.clone()))
                .collect();
            if mode == ProtocolMode::Legacy {
                assert_eq!(logs.len(), 3, "{seen_now:?}");
                assert_eq!(
                    logs[0],
                    ("info".to_owned(), json!("Tool execution started"))
                );
            } else {
                assert!(logs.is_empty(), "{seen_now:?}");
            }
            assert!(!client.tools_stale());
            // A level: legacy filters `info` out with `warning`; modern sends `info` once
            // the requests carry the level.
            let level = if mode == ProtocolMode::Legacy {
                mcp::LogLevel::Warning
            } else {
                mcp::LogLevel::Info
            };
            client
                .set_logging_level(level)
                .await
                .expect("set the level");
            let before = seen_logs(&seen);
            client.call("test_tool_with_logging").await.expect("call");
            let added = seen_logs(&seen) - before;
            assert_eq!(
                added,
                if mode == ProtocolMode::Legacy { 0 } else { 3 },
                "{mode:?}"
            );
            if mode == ProtocolMode::Legacy {
                client
                    .subscribe_resource("test://watched-resource")
                    .await
                    .expect("subscribe");
                client
                    .unsubscribe_resource("test://watched-resource")
                    .await
                    .expect("unsubscribe");
            }
            client.close().await.expect("close");
        }
    })
    .await;
}

fn seen_logs(seen: &Mutex<Vec<mcp::client::ServerNotification>>) -> usize {
    seen.lock()
        .unwrap()
        .iter()
        .filter(|n| n.log().is_some())
        .count()
}

#[tokio::test]
async fn sampling_and_roots_are_answered_for_the_v2_server() {
    use mcp::protocol::Root;
    bounded(async {
        for (args, mode, era) in [
            (&["--conformance"][..], ProtocolMode::Modern, Era::Modern),
            (
                &["--conformance", "--legacy", "sessionful"][..],
                ProtocolMode::Legacy,
                Era::Legacy,
            ),
        ] {
            let server = NodeServer::start(args);
            let prompts = Arc::new(Mutex::new(Vec::new()));
            let record = prompts.clone();
            let config = ClientConfig::new()
                .protocol_mode(mode)
                .sampling_handler(move |request: mcp::SamplingRequest| {
                    let text = serde_json::to_value(&request.messages[0].content).unwrap()["text"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned();
                    record.lock().unwrap().push(text.clone());
                    async move {
                        Ok(mcp::SamplingResult::new(
                            mcp::Role::Assistant,
                            mcp::Content::text(format!("echo of {text}")),
                            "scripted",
                        ))
                    }
                })
                .roots(vec![Root::new("file:///srv/app").with_name("app")]);
            let client = Client::new(&server.url, config).expect("client");
            let info = client.connect(client_info()).await.expect("connect");
            assert_eq!(info.era(), era);
            let result = client
                .call("test_sampling")
                .arguments(json!({"prompt": "What is 2+2?"}))
                .unwrap()
                .await
                .expect("test_sampling");
            assert_eq!(
                text(&result),
                "LLM response: echo of What is 2+2?",
                "{era:?}"
            );
            assert_eq!(*prompts.lock().unwrap(), ["What is 2+2?"]);
            let result = client.call("test_roots").await.expect("test_roots");
            assert_eq!(text(&result), "Roots: app=file:///srv/app", "{era:?}");
            client.roots_changed().await.expect("roots_changed");
            client.close().await.unwrap();
        }
    })
    .await;
}
