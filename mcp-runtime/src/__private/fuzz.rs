//! The bodies of the fuzz targets in `fuzz/` (run with `cargo fuzz`), kept here so that
//! the crate's own tests replay every saved corpus and regression input on the stable
//! toolchain (`tests/fuzz_regressions.rs`). Each function takes arbitrary bytes, must never
//! panic or hang, and asserts the property its target stands for.

use std::cell::RefCell;
use std::time::Duration;

use axum::body::Body;
use http::{HeaderMap, HeaderName, HeaderValue, Request, StatusCode};
use http_body_util::BodyExt as _;
use serde_json::{Map, Value, json};
use tower::ServiceExt as _;

use crate::dispatch::{AdvancedService, ProtocolMode, RequestContext};
use crate::error::ServerError;
use crate::protocol::{
    CallToolParams, CallToolResponse, CallToolResult, InitializeParams, InputRequiredResult,
    ListToolsParams, ListToolsResult, Message, RequestEnvelope, Tool,
};
use crate::schema::headers::{self, ParamType};
use crate::session::SessionLimits;
use crate::state::{Binding, Signer, Subject};
use crate::transport::http::classify::{self, Route};

/// Splits fuzz input at the first NUL: `Name: value` header lines before it (lines that are
/// not a valid header are skipped), the body after it (all of it when there is no NUL).
fn headers_and_body(data: &[u8]) -> (HeaderMap, &[u8]) {
    let Some(split) = data.iter().position(|&b| b == 0) else {
        return (HeaderMap::new(), data);
    };
    let mut map = HeaderMap::new();
    for line in data[..split].split(|&b| b == b'\n') {
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(&line[..colon]),
            HeaderValue::from_bytes(line[colon + 1..].trim_ascii()),
        ) else {
            continue;
        };
        map.append(name, value);
    }
    (map, &data[split + 1..])
}

/// Target `message`: the JSON-RPC decoder and the typed params of every method. A message
/// that decodes re-encodes to one that decodes to the same thing.
pub fn message(data: &[u8]) {
    fast_read(data);
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let items = match value {
        Value::Array(items) => items,
        other => vec![other],
    };
    for item in items {
        let _ = Message::peek_id(&item);
        let Ok(decoded) = Message::from_value(item) else {
            continue;
        };
        let again = Message::from_value(encode(&decoded)).expect("a decoded message re-decodes");
        assert_eq!(again, decoded, "re-encoding changed the message");
        let (Message::Request(crate::protocol::Request { params, .. })
        | Message::Notification(crate::protocol::Notification { params, .. })) = &decoded
        else {
            continue;
        };
        let _ = RequestEnvelope::parse(params.as_ref());
        let _ = RequestEnvelope::strip(params.clone());
        let params = Value::Object(params.clone().unwrap_or_default());
        let _ = serde_json::from_value::<CallToolParams>(params.clone());
        let _ = serde_json::from_value::<ListToolsParams>(params.clone());
        let _ = serde_json::from_value::<InitializeParams>(params.clone());
        let _ = serde_json::from_value::<crate::protocol::ElicitResult>(params);
    }
}

/// The transport's fast read accepts only what the strict decoder accepts, and reads the
/// same message; the params of a `tools/call` it reads typed are those
/// [`CallToolParams::take`] gives for the strict message's params.
fn fast_read(data: &[u8]) {
    for lift in [false, true] {
        let Some(read) = crate::protocol::wire::read(data, lift) else {
            continue;
        };
        let value = serde_json::from_slice::<Value>(data).expect("a fast read is JSON");
        let strict = Message::from_value(value).expect("a fast read is a message");
        if lift {
            continue;
        }
        let Some(call) = read.call else {
            assert_eq!(read.message, strict, "the fast read changed the message");
            continue;
        };
        let Message::Request(mut request) = strict else {
            panic!("typed tools/call params outside a request");
        };
        let params = request.params.take().expect("a tools/call with params");
        assert_eq!(read.message, Message::Request(request));
        assert_eq!(CallToolParams::take(params).ok(), Some(*call));
    }
}

/// A decoded message as JSON, the way a peer would send it.
fn encode(message: &Message) -> Value {
    let mut out = Map::new();
    out.insert("jsonrpc".into(), json!("2.0"));
    let (id, method, params) = match message {
        Message::Request(r) => (Some(&r.id), Some(&r.method), r.params.as_ref()),
        Message::Notification(n) => (None, Some(&n.method), n.params.as_ref()),
        Message::Response(r) => {
            out.insert("id".into(), json!(r.id));
            match &r.outcome {
                Ok(result) => out.insert("result".into(), result.clone()),
                Err(error) => out.insert("error".into(), json!(error)),
            };
            return Value::Object(out);
        }
    };
    if let Some(id) = id {
        out.insert("id".into(), json!(id));
    }
    out.insert("method".into(), json!(method));
    if let Some(params) = params {
        out.insert("params".into(), Value::Object(params.clone()));
    }
    Value::Object(out)
}

/// Target `classify`: the era ladder. First byte: the endpoint's protocol mode; then
/// `Name: value` header lines, a NUL and a JSON body. A legacy-only endpoint never routes
/// modern, and a request routed modern always carries a version the server serves.
pub fn classify(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mode = match mode % 3 {
        0 => ProtocolMode::Auto,
        1 => ProtocolMode::Modern,
        _ => ProtocolMode::Legacy,
    };
    let (headers, body) = headers_and_body(rest);
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    let (method, params, is_request) = match Message::from_value(value) {
        Ok(Message::Request(r)) => (r.method, r.params, true),
        Ok(Message::Notification(n)) => (n.method, n.params, false),
        _ => return,
    };
    match classify::classify(
        mode,
        &headers,
        &method,
        params.as_ref(),
        None,
        is_request,
        None,
    ) {
        Route::Modern(envelope) => {
            assert_ne!(
                mode,
                ProtocolMode::Legacy,
                "modern route on a legacy endpoint"
            );
            // Notifications get 202 whatever they claim (there is nothing to answer an
            // unserved version with); requests are refused with -32022 instead.
            assert!(
                !is_request || crate::protocol::serves_modern_version(&envelope.protocol_version),
                "modern route with unserved version {:?}",
                envelope.protocol_version
            );
        }
        Route::Legacy => {}
        Route::Reject(reply) => {
            let _ = format!("{reply:?}");
        }
    }
}

/// Target `param_header`: the `Mcp-Param-*` codec. Any bytes decode without panicking;
/// whatever value a client puts in an argument, the header the encoder makes for it is a
/// valid HTTP header value that the server's check accepts. First byte: the declared type
/// (string, integer, boolean); the rest makes the value.
pub fn param_header(data: &[u8]) {
    let _ = headers::decode_value(data);
    let Some((&kind, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest).into_owned();
    let (ty, value) = match kind % 4 {
        0 => ("string", json!(text)),
        1 => match text.trim().parse::<i64>() {
            Ok(n) if n.unsigned_abs() <= headers::MAX_SAFE_INTEGER as u64 => ("integer", json!(n)),
            _ => return,
        },
        2 => ("boolean", json!(rest.first().is_some_and(|b| b % 2 == 1))),
        _ => match serde_json::from_str::<Value>(&text) {
            Ok(v @ Value::Number(_)) if v.as_f64().is_some_and(|f| f.fract() == 0.0) => {
                ("integer", v)
            }
            _ => return,
        },
    };
    let schema = json!({"type": "object", "properties": {"p": {"type": ty, "x-mcp-header": "P"}}});
    let decls = headers::declarations(schema.as_object().expect("object")).expect("valid");
    let arguments: Map<String, Value> = [("p".to_owned(), value.clone())].into_iter().collect();
    let Some(encoded) = headers::encode_value(&value) else {
        return;
    };
    assert!(
        HeaderValue::from_str(&encoded).is_ok(),
        "encoded {value} as an invalid header value {encoded:?}"
    );
    if let Value::String(s) = &value {
        assert_eq!(
            headers::decode_value(encoded.as_bytes()).as_deref(),
            Ok(s.as_str()),
            "string did not survive the header codec"
        );
    }
    let checked = headers::check_params(&decls, Some(&arguments), |name| {
        (name.eq_ignore_ascii_case("Mcp-Param-P")).then_some(encoded.as_bytes())
    });
    assert!(
        checked.is_ok(),
        "the server refused the header made for {value}: {checked:?}"
    );
    if decls.first().map(|d| d.ty) == Some(ParamType::String) {
        // A different value under the same header is refused.
        let other = json!(format!("{text}x"));
        let arguments: Map<String, Value> = [("p".to_owned(), other)].into_iter().collect();
        let checked = headers::check_params(&decls, Some(&arguments), |name| {
            (name.eq_ignore_ascii_case("Mcp-Param-P")).then_some(encoded.as_bytes())
        });
        assert!(checked.is_err(), "a mismatched header was accepted");
    }
}

const STATE_KEY: &[u8] = b"fuzz-request-state-key-0123456789abcdef";

/// Target `request_state`: sealing and opening request states. Arbitrary tokens are never
/// accepted; a sealed state opens to itself for the same binding only, and a token with
/// any byte changed is refused. Input: the state before the first NUL, the token after it.
pub fn request_state(data: &[u8]) {
    let signer = Signer::new(&[STATE_KEY.to_vec()], Duration::from_secs(600)).expect("key");
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let state = String::from_utf8_lossy(&data[..split]).into_owned();
    let forged = String::from_utf8_lossy(data.get(split + 1..).unwrap_or_default()).into_owned();
    let arguments: Map<String, Value> = [("q".to_owned(), json!(state))].into_iter().collect();
    let binding = Binding {
        subject: Subject::Tool,
        name: "ask",
        arguments: Some(&arguments),
        caller: Some(r#"["token","https://issuer","client","alice"]"#),
    };
    assert!(
        signer.open(&forged, &binding).is_err(),
        "accepted a token it did not seal: {forged:?}"
    );
    let sealed = signer.seal(&state, &binding);
    assert_eq!(
        signer.open(&sealed, &binding).as_deref(),
        Ok(state.as_str())
    );
    let other = Binding {
        caller: Some(r#"["token","https://issuer","client","mallory"]"#),
        ..binding
    };
    assert!(
        signer.open(&sealed, &other).is_err(),
        "opened for another caller"
    );
    if !sealed.is_empty() {
        let mut tampered = sealed.clone().into_bytes();
        let at = data.len() % tampered.len();
        tampered[at] ^= 1 + data.first().copied().unwrap_or(0) % 127;
        if let Ok(tampered) = String::from_utf8(tampered)
            && tampered != sealed
        {
            assert!(
                signer.open(&tampered, &binding).is_err(),
                "accepted a tampered token {tampered:?}"
            );
        }
    }
}

/// The service behind the `http` target: a header-mirrored tool and an input-required one.
struct FuzzService;

impl AdvancedService for FuzzService {
    fn info(&self) -> crate::Implementation {
        crate::Implementation::new("fuzz", "1.0.0")
    }

    async fn on_list_tools(
        &self,
        _: Option<String>,
        _: &RequestContext,
    ) -> Result<ListToolsResult, ServerError> {
        let weather = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "days": {"type": "integer", "x-mcp-header": "Days"}
        }, "required": ["region"]});
        let ask = json!({"type": "object", "properties": {"q": {"type": "string"}}});
        Ok(ListToolsResult {
            tools: vec![
                Tool::new("weather", weather.as_object().cloned().unwrap_or_default()),
                Tool::new("ask", ask.as_object().cloned().unwrap_or_default()),
            ],
            ..Default::default()
        })
    }

    async fn on_call_tool(
        &self,
        params: CallToolParams,
        _: &RequestContext,
    ) -> Result<CallToolResponse, ServerError> {
        match (params.name.as_str(), &params.request_state) {
            ("weather", _) => Ok(CallToolResult::text("sunny").into()),
            ("ask", None) => Ok(InputRequiredResult {
                input_requests: json!({"ok": {"method": "elicitation/create", "params": {
                    "mode": "form", "message": "Continue?",
                    "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}
                }}})
                .as_object()
                .cloned(),
                request_state: Some("round-1".into()),
                ..Default::default()
            }
            .into()),
            ("ask", Some(_)) => Ok(CallToolResult::text("done").into()),
            (other, _) => Err(ServerError::invalid_params(format!(
                "Unknown tool: {other}"
            ))),
        }
    }
}

/// The router and runtime the `http` target reuses across inputs.
struct HttpTarget {
    runtime: tokio::runtime::Runtime,
    router: axum::Router,
}

thread_local! {
    static HTTP: RefCell<Option<HttpTarget>> = const { RefCell::new(None) };
}

/// Separates the requests of one `http` input.
const REQUEST_SEPARATOR: &[u8] = b"\xff\xfe";

/// Target `http`: the whole in-process HTTP service (auto mode, legacy sessions, request-state
/// keys, a 100 ms input round). The input is up to four requests separated by `FF FE`; in
/// each, the first byte picks the HTTP method, then come `Name: value` header lines, a NUL
/// and the body. A session id the server hands out is added to the later requests that
/// carry none, so sessions, their streams and their ends are reached. Every request is
/// answered within a second, never with a 5xx, and every JSON answer is a JSON-RPC message
/// or an error object.
pub fn http(data: &[u8]) {
    HTTP.with(|cell| {
        let mut cell = cell.borrow_mut();
        let target = cell.get_or_insert_with(|| {
            let server = crate::Server::builder(FuzzService)
                .request_state_keys([STATE_KEY])
                .transport(|http: crate::transport::http::HttpConfig| {
                    http.max_body_bytes(64 * 1024)
                })
                .input_round_timeout(Duration::from_millis(100))
                .session_limits(SessionLimits::default().with_max_anonymous(64))
                .build()
                .expect("valid config");
            HttpTarget {
                runtime: tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("runtime"),
                router: crate::transport::http::router("/mcp", server),
            }
        });
        let mut session: Option<HeaderValue> = None;
        let mut rest = data;
        for _ in 0..4 {
            let (part, next) = match rest
                .windows(REQUEST_SEPARATOR.len())
                .position(|w| w == REQUEST_SEPARATOR)
            {
                Some(at) => (&rest[..at], Some(&rest[at + REQUEST_SEPARATOR.len()..])),
                None => (rest, None),
            };
            if let Some(request) = http_request(part, session.as_ref()) {
                let router = target.router.clone();
                if let Some(id) = target.runtime.block_on(exchange(router, request)) {
                    session = Some(id);
                }
            }
            match next {
                Some(next) => rest = next,
                None => break,
            }
        }
    });
}

/// One request of an `http` input, with `session` added when it names none.
fn http_request(data: &[u8], session: Option<&HeaderValue>) -> Option<Request<Body>> {
    let (&method, rest) = data.split_first()?;
    let method = match method % 8 {
        0..=4 => http::Method::POST,
        5 => http::Method::GET,
        6 => http::Method::DELETE,
        _ => http::Method::PUT,
    };
    let (mut headers, body) = headers_and_body(rest);
    if let Some(id) = session
        && !headers.contains_key("mcp-session-id")
    {
        headers.insert("mcp-session-id", id.clone());
    }
    let mut request = Request::builder()
        .method(method)
        .uri("/mcp")
        .body(Body::from(body.to_vec()))
        .expect("valid request");
    *request.headers_mut() = headers;
    Some(request)
}

/// Sends one request and checks the answer; returns the session id it hands out, if any. A
/// standalone SSE stream (an open-ended answer to GET) is checked up to its headers.
async fn exchange(router: axum::Router, request: Request<Body>) -> Option<HeaderValue> {
    let is_get = request.method() == http::Method::GET;
    let answered = tokio::time::timeout(Duration::from_secs(1), async move {
        let response = router.oneshot(request).await.expect("infallible");
        let status = response.status();
        let header = |name| response.headers().get(name).cloned();
        let session = header("mcp-session-id");
        let content_type = header("content-type");
        let json = content_type
            .as_ref()
            .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
        let stream = is_get
            && content_type
                .as_ref()
                .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        let bytes = if stream {
            Ok(Default::default())
        } else {
            response.into_body().collect().await.map(|b| b.to_bytes())
        };
        (status, json, session, bytes)
    })
    .await;
    let (status, json, session, bytes) = answered.expect("answered within a second");
    assert!(
        status < StatusCode::INTERNAL_SERVER_ERROR,
        "server error {status}"
    );
    let bytes = bytes.expect("a complete body");
    let text = String::from_utf8_lossy(&bytes);
    assert!(!text.contains("panicked"), "panic text in {text}");
    if json && !bytes.is_empty() {
        let value: Value = serde_json::from_slice(&bytes).expect("JSON answer parses");
        let ok = |v: &Value| v["jsonrpc"] == "2.0" || v.get("error").is_some();
        let well_formed = match &value {
            Value::Array(items) => items.iter().all(ok),
            other => ok(other),
        };
        assert!(well_formed, "not a JSON-RPC answer: {value}");
    }
    session
}

/// Target `listen_filter`: `subscriptions/listen` filters, their parse and their bounds.
/// The input is JSON: an array opens one listen per member (anything else, one), each a
/// request's `params` when it is an object with `notifications`, else its filter. Listens
/// are opened in turn by three callers on a server with small bounds, and stay open; the
/// server honours every kind of notification unless the input ends in whitespace, whose
/// length's bits turn off tools (1), prompts (2), resources (4) and subscriptions (8).
/// Each is accepted with an acknowledgement echoing the honoured filter (the URIs in the
/// request's order, each matching its own update), or refused with the TypeScript
/// server's errors or `-32602` naming the `ServerBuilder` setting of a bound it really
/// crosses; the accounting stays within every bound, and is all returned once the
/// listeners close, in any order.
pub fn listen_filter(data: &[u8]) {
    use crate::notify::listen::{Caller, Limits, Listeners, SUBSCRIPTION_ID};
    use crate::notify::{Change, Honourable, Hub, Settings};

    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let limits = Limits {
        uris: 4,
        uri_bytes: 24,
        listeners_per_caller: 2,
        bytes_per_caller: 1_800,
        bytes: 2_600,
    };
    let settings = Settings {
        max_listeners: 5,
        listener_queue: 8,
        listen_limits: limits,
        ..Settings::default()
    };
    // Trailing whitespace turns capabilities off, by the bits of its length.
    let off = data
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_whitespace())
        .count();
    let can = Honourable {
        tools: off & 1 == 0,
        prompts: off & 2 == 0,
        resources: off & 4 == 0,
        subscribe: off & 8 == 0,
        tasks: off & 16 == 0,
    };
    let hub = Hub::new(&settings, Default::default(), None, can, Map::new());
    let requests = match value {
        Value::Array(items) => items,
        other => vec![other],
    };
    let callers = [
        Caller::Connection(0),
        Caller::Address([192, 0, 2, 1].into()),
        Caller::Anonymous,
    ];
    let mut open = Vec::new();
    for (i, request) in requests.into_iter().take(16).enumerate() {
        let params = match request {
            Value::Object(p) if p.contains_key("notifications") => p,
            filter => [("notifications".to_owned(), filter)].into_iter().collect(),
        };
        let id = json!(i);
        let caller = &callers[i % callers.len()];
        let uris = params["notifications"]
            .get("resourceSubscriptions")
            .and_then(Value::as_array);
        match Listeners::open(&hub, &id, Some(&params), caller, false) {
            Ok(mut opened) => {
                let ack: Value = serde_json::from_str(&opened.ack).expect("the ack is JSON");
                assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID], id);
                let acknowledged = &ack["params"]["notifications"];
                for (key, on) in [
                    ("toolsListChanged", can.tools),
                    ("promptsListChanged", can.prompts),
                    ("resourcesListChanged", can.resources),
                ] {
                    let honoured = on && params["notifications"][key] == true;
                    assert_eq!(
                        acknowledged.get(key),
                        honoured.then_some(&Value::Bool(true))
                    );
                }
                let list = uris.filter(|l| can.subscribe && !l.is_empty());
                assert_eq!(
                    acknowledged.get("resourceSubscriptions"),
                    list.map(|l| Value::Array(l.clone())).as_ref()
                );
                let list = list.cloned().unwrap_or_default();
                assert!(list.len() <= limits.uris);
                if !opened.empty {
                    for uri in &list {
                        let uri = uri.as_str().expect("a URI is a string");
                        assert!(uri.len() <= limits.uri_bytes);
                        hub.listeners
                            .dispatch(&Change::ResourceUpdated { uri: uri.into() });
                        let heard = opened
                            .receiver
                            .try_recv()
                            .expect("a subscribed URI's update");
                        assert!(heard.contains(&Value::from(uri).to_string()));
                        while opened.receiver.try_recv().is_ok() {}
                    }
                    // Longer than any URI a filter keeps.
                    let other = "x".repeat(limits.uri_bytes + 1);
                    hub.listeners
                        .dispatch(&Change::ResourceUpdated { uri: other });
                    assert!(
                        opened.receiver.try_recv().is_err(),
                        "heard an update it did not ask for"
                    );
                }
                open.push(opened);
            }
            Err(error) => {
                let message = error.message.as_str();
                let setting = message
                    .strip_suffix(')')
                    .and_then(|m| m.rsplit_once("(ServerBuilder::"))
                    .map(|(_, setting)| setting);
                match (error.code.0, setting) {
                    (-32603, None) => assert_eq!(message, "Subscription limit reached"),
                    (-32602, None) => assert_eq!(
                        message,
                        "Invalid params: 'notifications' is required and must be a valid SubscriptionFilter"
                    ),
                    (-32602, Some("max_listen_uris")) => {
                        assert!(uris.is_some_and(|l| l.len() > limits.uris))
                    }
                    (-32602, Some("max_listen_uri_bytes")) => assert!(uris.is_some_and(|l| {
                        l.iter()
                            .any(|u| u.as_str().is_some_and(|u| u.len() > limits.uri_bytes))
                    })),
                    (
                        -32602,
                        Some(
                            "max_listeners_per_caller"
                            | "max_listen_bytes_per_caller"
                            | "max_listen_bytes",
                        ),
                    ) => {}
                    other => panic!("unexpected refusal {other:?}: {message}"),
                }
            }
        }
        hub.listeners.audit();
    }
    // Close in an order the input picks.
    let mut at = data.first().copied().unwrap_or(0) as usize;
    while !open.is_empty() {
        at = (at + 7) % open.len();
        drop(open.swap_remove(at));
        hub.listeners.audit();
    }
    assert_eq!(hub.listeners.audit(), (0, 0, 0), "the accounting leaked");
}
