//! Serde round trips on the exact JSON the TypeScript SDK sends and expects (PROTOCOL.md):
//! each document deserializes into the typed value and serializes back to the same JSON.

use mcp::protocol::{
    CallToolParams, CallToolResult, Content, DiscoverResult, InitializeParams, InitializeResult,
    InputRequiredResult, ListToolsResult, Message, Tool,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

#[track_caller]
fn round_trip<T: Serialize + DeserializeOwned>(doc: Value) -> T {
    let typed: T = serde_json::from_value(doc.clone()).expect("deserializes");
    assert_eq!(serde_json::to_value(&typed).unwrap(), doc);
    typed
}

#[test]
fn initialize_request_and_result() {
    let req = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"my-client","version":"1.0.0"}}});
    let Message::Request(r) = Message::from_value(req.clone()).unwrap() else {
        panic!()
    };
    let params: InitializeParams = round_trip(Value::Object(r.params.unwrap()));
    assert!(params.capabilities.elicitation.unwrap().supports_form());
    let result: InitializeResult = round_trip(
        json!({"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"calc","version":"2.0.0"},"instructions":"…"}),
    );
    assert_eq!(result.server_info.name, "calc");
}

#[test]
fn discover_result() {
    let d: DiscoverResult = round_trip(
        json!({"supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}},"instructions":"Weather tools.","resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"weather","version":"1.0.0"}}}),
    );
    assert_eq!(d.supported_versions, ["2026-07-28"]);
}

#[test]
fn tools_list_results_of_both_eras() {
    round_trip::<ListToolsResult>(
        json!({"tools":[{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]},"outputSchema":{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"]}}],"nextCursor":"page-2"}),
    );
    round_trip::<ListToolsResult>(
        json!({"tools":[{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]},"outputSchema":{"type":"integer"}}],"resultType":"complete","ttlMs":60000,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"calc","version":"2.0.0"}}}),
    );
    let tool: Tool = round_trip(
        json!({"name":"get_forecast","title":"Forecast","description":"d","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]},"annotations":{"title":"F","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false},"icons":[{"src":"data:image/png;base64,AA==","mimeType":"image/png","sizes":["48x48"]}],"_meta":{"k":1}}),
    );
    assert_eq!(tool.annotations.unwrap().read_only_hint, Some(true));
}

#[test]
fn tools_call_params_with_continuation() {
    let p: CallToolParams = round_trip(json!({"name":"delete_repo","arguments":{"name":"demo"},
        "inputResponses":{"confirm":{"action":"accept","content":{"confirmed":true}},"connect":{"action":"accept"}},
        "requestState":"v1.eyJwIjp7InN0ZXAiOiJhc2sifSwiZXhwIjoxNzg1MDAwMDAwfQ.Qm9ndXM",
        "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"my-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}}}}}));
    assert_eq!(
        p.request_state.as_deref(),
        Some("v1.eyJwIjp7InN0ZXAiOiJhc2sifSwiZXhwIjoxNzg1MDAwMDAwfQ.Qm9ndXM")
    );
}

#[test]
fn call_results_of_both_eras() {
    let modern: CallToolResult = round_trip(
        json!({"content":[{"type":"text","text":"5"}],"structuredContent":5,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"calc","version":"2.0.0"}}}),
    );
    assert_eq!(modern.structured_content, Some(json!(5)));
    round_trip::<CallToolResult>(
        json!({"content":[{"type":"text","text":"5"}],"structuredContent":{"result":5}}),
    );
    let failed: CallToolResult = round_trip(
        json!({"content":[{"type":"text","text":"No note with id \"drafts\""}],"isError":true}),
    );
    assert_eq!(failed.is_error, Some(true));
    // A null structured value is kept as a value, not dropped.
    let null: CallToolResult =
        round_trip(json!({"content":[],"structuredContent":null,"resultType":"complete"}));
    assert_eq!(null.structured_content, Some(Value::Null));
    // A legacy result without content defaults to [].
    let bare: CallToolResult = serde_json::from_value(json!({})).unwrap();
    assert!(bare.content.is_empty());
}

#[test]
fn every_content_block_type() {
    for doc in [
        json!({"type":"text","text":"hi","annotations":{"audience":["user","assistant"],"priority":0.5,"lastModified":"2025-01-01T00:00:00Z"}}),
        json!({"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}),
        json!({"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}),
        json!({"type":"resource_link","uri":"file:///a.txt","name":"a.txt","title":"A","description":"d","mimeType":"text/plain","size":3}),
        json!({"type":"resource","resource":{"uri":"test://static-text","mimeType":"text/plain","text":"hello"}}),
        json!({"type":"resource","resource":{"uri":"test://static-binary","mimeType":"image/png","blob":"AAEC"}}),
    ] {
        round_trip::<Content>(doc);
    }
}

#[test]
fn a_content_type_of_a_newer_revision_round_trips_next_to_known_blocks() {
    let result: CallToolResult = round_trip(json!({
        "content": [
            {"type":"video","uri":"https://example.com/v.mp4","mimeType":"video/mp4","annotations":{"priority":1}},
            {"type":"text","text":"a clip"}
        ],
        "resultType":"complete"}));
    assert!(matches!(result.content[0], Content::Unknown(_)));
    assert_eq!(result.content[0].content_type(), "video");
    assert_eq!(result.joined_text(), "a clip");
    // A known type keeps its schema: a text block without `text` fails.
    assert!(
        serde_json::from_value::<CallToolResult>(json!({"content":[{"type":"text"}]})).is_err()
    );
}

#[test]
fn input_required_result() {
    let r: InputRequiredResult = round_trip(json!({
        "resultType":"input_required",
        "inputRequests":{
            "confirm":{"method":"elicitation/create","params":{"mode":"form","message":"Delete repository demo?","requestedSchema":{"type":"object","properties":{"confirmed":{"type":"boolean","description":"Confirm deletion"}},"required":["confirmed"]}}},
            "connect":{"method":"elicitation/create","params":{"mode":"url","message":"Connect your calendar","url":"https://calendar.example.com/connect?id=7f3a"}}
        },
        "requestState":"v1.eyJwIjp7InN0ZXAiOiJhc2sifSwiZXhwIjoxNzg1MDAwMDAwfQ.Qm9ndXM",
        "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"repos","version":"1.0.0"}}}));
    assert_eq!(r.input_requests.unwrap().len(), 2);
}

#[test]
fn ids_are_echoed_verbatim() {
    for id in [
        json!(0),
        json!("server-discover-probe-1"),
        json!("listen:0"),
        json!(9007199254740991_i64),
    ] {
        let Message::Request(r) =
            Message::from_value(json!({"jsonrpc":"2.0","id":id,"method":"ping"})).unwrap()
        else {
            panic!()
        };
        assert_eq!(serde_json::to_value(&r.id).unwrap(), id);
    }
}
