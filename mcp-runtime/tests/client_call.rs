//! The client's call API against a local test server: `connect(url)` with the default
//! identity, the call builder (typed arguments, headers, meta, refusals before sending) and
//! reading results (`is_error`, `structured`, `joined_text`).

mod client_common;

use axum::http::StatusCode;
use client_common::{Mock, bounded, client_info, rpc_error, rpc_result, tool};
use http::HeaderValue;
use mcp::client::{Client, ClientConfig, ClientError, HttpConfig, ProtocolMode, ToolCallError};
use mcp::protocol::Era;
use serde_json::{Value, json};

fn config(mode: ProtocolMode) -> ClientConfig {
    ClientConfig::new().protocol_mode(mode)
}

async fn connected(mock: &Mock, config: ClientConfig) -> Client {
    let client = Client::new(&mock.url, config).expect("client");
    client.connect(client_info()).await.expect("connect");
    client
}

#[tokio::test]
async fn connect_url_uses_the_default_identity_and_auto_era() {
    bounded(async {
        let mock = Mock::start(vec![vec![]], |_, _| None).await;
        let client = mcp::client::connect(&mock.url).await.unwrap();
        assert_eq!(client.connection().unwrap().era(), Era::Modern);
        let info = &mock.last("server/discover").body["params"]["_meta"]["io.modelcontextprotocol/clientInfo"];
        assert_eq!(info["name"], "mcp-rs");
        assert_eq!(info["version"], env!("CARGO_PKG_VERSION"));
        // A legacy-only server is reached the same way (auto falls back).
        let legacy = Mock::start(vec![vec![]], |_, r| {
            let id = r.body.get("id").cloned().unwrap_or(Value::Null);
            match r.rpc_method() {
                "server/discover" => Some(rpc_error(StatusCode::NOT_FOUND, &id, -32601, "Method not found")),
                "initialize" => Some(rpc_result(&id, json!({
                    "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "old", "version": "1"}
                }))),
                _ => None,
            }
        })
        .await;
        let client = mcp::client::connect(&legacy.url).await.unwrap();
        assert_eq!(client.connection().unwrap().era(), Era::Legacy);
        assert_eq!(legacy.last("initialize").body["params"]["clientInfo"]["name"], "mcp-rs");
        // A bad URL fails before any request.
        assert!(matches!(mcp::client::connect("ftp://x/mcp").await, Err(ClientError::Config(_))));
        // No server: a transport error, not a panic.
        let err = mcp::client::connect("http://127.0.0.1:9/mcp").await.unwrap_err();
        assert!(matches!(err, ClientError::Transport(_)), "{err:?}");
    })
    .await;
}

/// Arguments as a Rust type.
#[derive(serde::Serialize)]
struct Add {
    a: i64,
    b: i64,
}

/// A structured result as a Rust type.
#[derive(Debug, serde::Deserialize, PartialEq)]
struct Sum {
    sum: i64,
}

#[tokio::test]
async fn the_call_builder_sends_typed_arguments_headers_and_meta() {
    bounded(async {
        let mock = Mock::start(
            vec![vec![tool(
                "add",
                json!({"a": {"type": "integer", "x-mcp-header": "A"}}),
            )]],
            |_, r| {
                if r.rpc_method() != "tools/call" {
                    return None;
                }
                let args = &r.body["params"]["arguments"];
                let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
                Some(rpc_result(
                    &r.body["id"],
                    json!({
                        "content": [{"type": "text", "text": sum.to_string()}],
                        "structuredContent": {"sum": sum}, "resultType": "complete"
                    }),
                ))
            },
        )
        .await;
        let http = HttpConfig::new()
            .header(
                http::HeaderName::from_static("x-trace"),
                HeaderValue::from_static("wide"),
            )
            .header(
                http::HeaderName::from_static("x-other"),
                HeaderValue::from_static("o"),
            );
        let client = connected(&mock, config(ProtocolMode::Modern).http(http)).await;
        let result = client
            .call("add")
            .arguments(&Add { a: 2, b: 3 })
            .unwrap()
            .header(
                http::HeaderName::from_static("x-trace"),
                HeaderValue::from_static("t1"),
            )
            .header(
                http::HeaderName::from_static("x-trace"),
                HeaderValue::from_static("t2"),
            )
            .meta(json!({"progressToken": "p"}).as_object().cloned().unwrap())
            .await
            .unwrap();
        assert!(!result.is_error());
        assert_eq!(result.joined_text(), "5");
        assert_eq!(result.structured::<Sum>().unwrap(), Sum { sum: 5 });
        let call = mock.last("tools/call");
        assert_eq!(call.body["params"]["arguments"], json!({"a": 2, "b": 3}));
        assert_eq!(call.body["params"]["_meta"]["progressToken"], "p");
        assert_eq!(
            call.header("mcp-param-a"),
            Some("2"),
            "typed arguments are mirrored too"
        );
        let traces: Vec<_> = call
            .headers
            .get_all("x-trace")
            .iter()
            .map(|v| v.to_str().unwrap())
            .collect();
        assert_eq!(
            traces,
            ["t1", "t2"],
            "header() appends, replacing the client-wide value"
        );
        assert_eq!(call.header("x-other"), Some("o"));

        // `null` (or `()`) sends no arguments at all; no `arguments` call does the same.
        client.call("add").arguments(()).unwrap().await.unwrap();
        assert!(
            mock.last("tools/call").body["params"]
                .get("arguments")
                .is_none()
        );
        client.call("add").send().await.unwrap();
        assert!(
            mock.last("tools/call").body["params"]
                .get("arguments")
                .is_none()
        );

        // A structured result of another shape is an error, not a default.
        let err = result
            .structured::<Vec<String>>()
            .map_err(ClientError::from)
            .unwrap_err();
        assert!(
            matches!(
                err,
                ClientError::StructuredContent(mcp::protocol::StructuredContentError::Mismatch(_))
            ),
            "{err:?}"
        );
        let plain = mcp::CallToolResult::text("x");
        assert!(matches!(
            plain.structured::<Sum>(),
            Err(mcp::protocol::StructuredContentError::Missing)
        ));
    })
    .await;
}

#[tokio::test]
async fn the_call_builder_refuses_bad_arguments_before_sending() {
    bounded(async {
        let mock = Mock::start(vec![vec![]], |_, _| None).await;
        let client = connected(&mock, config(ProtocolMode::Modern)).await;
        // Not an object.
        for bad in [json!([1]), json!("text"), json!(5)] {
            let err = client.call("t").arguments(&bad).unwrap_err();
            assert!(
                matches!(&err, ClientError::ToolCall(ToolCallError::InvalidArguments { tool }) if tool == "t"),
                "{err:?}"
            );
        }
        // Not serializable to JSON (a map with non-string keys); the source is kept, once.
        let mut map = std::collections::BTreeMap::new();
        map.insert((1, 2), "x");
        let err = client.call("t").arguments(&map).unwrap_err();
        let ClientError::ToolCall(ToolCallError::ArgumentsNotSerializable { tool, .. }) = &err else {
            panic!("{err:?}");
        };
        assert_eq!(tool, "t");
        let source = std::error::Error::source(&err).expect("a source");
        assert!(!err.to_string().contains(&source.to_string()), "{err}");
        assert_eq!(mock.count("tools/call"), 0, "nothing was sent");
    })
    .await;
}

#[tokio::test]
async fn the_call_builder_hides_header_values_in_debug() {
    let client = Client::new("http://127.0.0.1:9/mcp", ClientConfig::new()).unwrap();
    let call = client
        .call("t")
        .arguments(json!({"password": "hunter2"}))
        .unwrap()
        .header(
            http::header::AUTHORIZATION,
            HeaderValue::from_static("Bearer s3cret"),
        );
    let shown = format!("{call:?}");
    assert!(
        shown.contains("\"t\"") && shown.contains("authorization"),
        "{shown}"
    );
    assert!(
        !shown.contains("s3cret") && !shown.contains("hunter2"),
        "{shown}"
    );
    // Not connected: the call fails when awaited, without a request.
    assert!(matches!(call.await, Err(ClientError::NotConnected)));
}

/// A handler written as a struct with `async fn`: accepts with `{"n": calls}`.
struct Counting(std::sync::atomic::AtomicUsize);

impl mcp::client::ElicitationHandler for Counting {
    async fn elicit(
        &self,
        request: mcp::protocol::ElicitRequest,
    ) -> Result<mcp::protocol::ElicitResult, ClientError> {
        let n = self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        if request.params.message() == "fail" {
            let cause = std::io::Error::other("dialog closed");
            return Err(ClientError::handler_with_source(
                "the user closed the dialog",
                cause,
            ));
        }
        Ok(mcp::protocol::ElicitResult::accept(
            json!({"n": n}).as_object().cloned().unwrap_or_default(),
        ))
    }
}

#[tokio::test]
async fn an_async_fn_elicitation_handler_answers_rounds_and_once_returns_them() {
    bounded(async {
        let mock = Mock::start(vec![vec![]], |_, r| {
            if r.rpc_method() != "tools/call" {
                return None;
            }
            let p = &r.body["params"];
            let message = p["arguments"]["message"].as_str().unwrap_or("q");
            Some(match &p["inputResponses"] {
                Value::Null => rpc_result(&r.body["id"], json!({
                    "resultType": "input_required", "requestState": "s1",
                    "inputRequests": {"q": {"method": "elicitation/create", "params": {
                        "mode": "form", "message": message,
                        "requestedSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}
                    }}}
                })),
                answers => rpc_result(&r.body["id"], json!({
                    "content": [{"type": "text", "text": answers["q"]["content"]["n"].to_string()}],
                    "resultType": "complete"
                })),
            })
        })
        .await;
        let handler = Counting(std::sync::atomic::AtomicUsize::new(0));
        let client = connected(&mock, config(ProtocolMode::Modern).elicitation_handler(handler)).await;
        // Awaited: the handler answers, the call completes.
        let done = client.call("ask").await.unwrap();
        assert_eq!(done.joined_text(), "1");
        assert_eq!(mock.last("tools/call").body["params"]["requestState"], "s1");
        // `once`: the input_required round comes back to the application, unanswered.
        let mcp::CallToolResponse::InputRequired(ir) = client.call("ask").once().await.unwrap() else {
            panic!("expected input_required");
        };
        assert_eq!(ir.request_state.as_deref(), Some("s1"));
        let answers = json!({"q": {"action": "accept", "content": {"n": 42}}});
        let mcp::CallToolResponse::Complete(done) = client
            .call("ask")
            .input_responses(answers.as_object().cloned().unwrap())
            .request_state(ir.request_state)
            .once()
            .await
            .unwrap()
        else {
            panic!("expected a complete result");
        };
        assert_eq!(done.joined_text(), "42");
        // A handler error fails the call with that error.
        let err = client.call("ask").arguments(json!({"message": "fail"})).unwrap().await.unwrap_err();
        assert!(matches!(&err, ClientError::Handler { message, .. } if message == "the user closed the dialog"), "{err:?}");
        assert_eq!(err.to_string(), "the user closed the dialog", "the source is not repeated");
        let source = std::error::Error::source(&err).expect("the handler's source is kept");
        assert_eq!(source.to_string(), "dialog closed");
    })
    .await;
}

#[tokio::test]
async fn a_legacy_server_gets_the_handler_message_but_never_its_source() {
    bounded(async {
        let mock = Mock::start(vec![vec![tool("a", json!({}))]], |_, r| {
            let id = r.body["id"].clone();
            match r.rpc_method() {
                "initialize" => {
                    let mut response = rpc_result(&id, json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "legacy", "version": "1"}}));
                    response.headers_mut().insert("mcp-session-id", HeaderValue::from_static("s1"));
                    Some(response)
                }
                "tools/call" => Some(client_common::sse(&[
                    format!("data: {}", json!({"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": {"message": "m", "requestedSchema": {"type": "object"}}})),
                    format!("data: {}", json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}})),
                ])),
                _ => None,
            }
        })
        .await;
        let config = config(ProtocolMode::Legacy).elicitation_handler(|_r: mcp::protocol::ElicitRequest| async {
            let cause = std::io::Error::other("secret path /home/u/.token");
            Err::<mcp::protocol::ElicitResult, _>(ClientError::handler_with_source("no answer", cause))
        });
        let client = connected(&mock, config).await;
        let err = client.call("a").await.unwrap_err();
        assert!(matches!(&err, ClientError::Handler { message, .. } if message == "no answer"), "{err:?}");
        let answer = mock
            .requests()
            .into_iter()
            .find(|r| r.body["id"] == 7 && r.body.get("method").is_none())
            .expect("the pushed request was answered");
        assert_eq!(answer.body["error"]["code"], -32603);
        assert_eq!(answer.body["error"]["message"], "no answer");
        assert!(!answer.body.to_string().contains("secret"), "{}", answer.body);
    })
    .await;
}
