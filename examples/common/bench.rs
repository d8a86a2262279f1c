//! Fixtures shared by the load generator (`examples/load.rs`), the bare-axum baseline
//! (`examples/bare_axum.rs`) and the criterion benches (`examples/benches/dispatch.rs`): the
//! exact requests each benchmark sends, and the "bare axum JSON handler" the framework is
//! measured against.

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

/// The argument the stdio benchmark (`examples/stdio_load.rs`) passes to the echo tool.
pub const ECHO_VALUE: &str = "hello, benchmark";

/// A modern (2026-07-28) `tools/call` of the echo example's `echo` tool, with the `_meta`
/// envelope the TypeScript client attaches (PROTOCOL.md §7, §9), for the stdio benchmark.
pub const MODERN_CALL: &str = concat!(
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","#,
    r#""arguments":{"value":"hello, benchmark"},"_meta":{"#,
    r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
    r#""io.modelcontextprotocol/clientCapabilities":{},"#,
    r#""io.modelcontextprotocol/clientInfo":{"name":"mcp-load","version":"0.1.0"}}}}"#
);

/// The TypeScript client's `server/discover` probe (PROTOCOL.md §5).
pub const MODERN_DISCOVER: &str = concat!(
    r#"{"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","#,
    r#""params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
    r#""io.modelcontextprotocol/clientInfo":{"name":"mcp-load","version":"0.1.0"},"#,
    r#""io.modelcontextprotocol/clientCapabilities":{}}}}"#
);

/// A modern (2026-07-28) `tools/call` of the [`Add`] service's `add` tool, with the `_meta`
/// envelope the TypeScript client attaches (PROTOCOL.md §7, §9): the request of issue #17's
/// measurements, which the typed bare axum handler ([`bare_handler`]) answers too.
pub const ADD_MODERN: &str = concat!(
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","#,
    r#""arguments":{"a":2,"b":3},"_meta":{"#,
    r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
    r#""io.modelcontextprotocol/clientCapabilities":{},"#,
    r#""io.modelcontextprotocol/clientInfo":{"name":"mcp-load","version":"0.1.0"}}}}"#
);

/// A legacy `tools/call` of the same tool, without the envelope: served statelessly when no
/// session header comes with it (PROTOCOL.md §11), or on the session it names.
pub const ADD_LEGACY: &str = concat!(
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","#,
    r#""arguments":{"a":2,"b":3}}}"#
);

/// A modern `tools/list` (first page).
pub const ADD_LIST: &str = concat!(
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","#,
    r#""params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
    r#""io.modelcontextprotocol/clientInfo":{"name":"mcp-load","version":"0.1.0"},"#,
    r#""io.modelcontextprotocol/clientCapabilities":{}}}}"#
);

/// A legacy `tools/list`, without the envelope (served statelessly).
pub const ADD_LEGACY_LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;

/// The legacy `initialize` a [`Kind::Session`] connection sends first.
pub const LEGACY_INITIALIZE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"#,
    r#""protocolVersion":"2025-11-25","capabilities":{},"#,
    r#""clientInfo":{"name":"mcp-load","version":"0.1.0"}}}"#
);

/// The notification that completes a [`Kind::Session`] connection's handshake.
pub const LEGACY_INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// The sum [`Add::add`] returns.
#[derive(Debug, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Sum {
    /// `a + b`.
    pub sum: i64,
}

/// The benchmark service: one `add(a, b) -> {sum}` tool (default structured-output policy),
/// the framework side of issue #17's measurements. Its typed client, [`AddClient`], is what
/// the typed-call benchmarks time against the untyped call builder.
#[derive(Clone, Copy, Debug, Default)]
pub struct Add;

#[mcp::service(name = "add", version = "1.0.0", client)]
impl Add {
    /// Add two numbers.
    pub fn add(&self, a: i64, b: i64) -> Sum {
        Sum {
            sum: a.wrapping_add(b),
        }
    }
}

/// The arguments of `add`, for the untyped call builder in the client benchmarks.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct AddArgs {
    /// Left operand.
    pub a: i64,
    /// Right operand.
    pub b: i64,
}

/// A client of the [`Add`] server in-process, connected on `mode`'s era.
pub async fn in_process_client(
    mode: mcp::client::ProtocolMode,
) -> Result<mcp::client::Client, mcp::client::ClientError> {
    let server = server()
        .build()
        .map_err(|e| mcp::client::ClientError::Config(e.to_string()))?;
    let client = mcp::client::Client::in_process(
        server.in_process(),
        mcp::client::ClientConfig::new().protocol_mode(mode),
    )?;
    client
        .connect(mcp::Implementation::new("bench-client", "1.0.0"))
        .await?;
    Ok(client)
}

/// One `add(2, 3)` through the untyped call builder: arguments from a struct, the sum read
/// from `structuredContent`, or from the text where the era has none (legacy).
pub async fn untyped_add(client: &mcp::client::Client) -> Result<i64, mcp::client::ClientError> {
    let result = client
        .call("add")
        .arguments(AddArgs { a: 2, b: 3 })?
        .await?;
    if result.structured_content.is_some() {
        return Ok(result.structured::<Sum>()?.sum);
    }
    serde_json::from_str::<Sum>(&result.joined_text())
        .map(|s| s.sum)
        .map_err(|e| mcp::client::ClientError::Config(format!("not a sum: {e}")))
}

/// One `add(2, 3)` through the typed client.
pub async fn typed_add(client: &AddClient) -> Result<i64, mcp::client::CallError> {
    Ok(client.add(2, 3).await?.sum)
}

/// Which request a benchmark sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// [`ADD_MODERN`] with the modern headers, to the MCP endpoint.
    Modern,
    /// [`ADD_LEGACY`] with a legacy `MCP-Protocol-Version` header and no session, to the MCP
    /// endpoint (a stateless legacy call).
    Legacy,
    /// [`ADD_LEGACY`] on a legacy session: each connection first sends
    /// [`LEGACY_INITIALIZE`] and [`LEGACY_INITIALIZED`], then every call carries the
    /// `Mcp-Session-Id` it got.
    Session,
    /// [`MODERN_DISCOVER`] with the modern headers, to the MCP endpoint.
    Discover,
    /// [`ADD_LIST`] with the modern headers, to the MCP endpoint.
    List,
    /// [`ADD_LEGACY_LIST`] with a legacy `MCP-Protocol-Version` header and no session.
    LegacyList,
    /// [`ADD_MODERN`] with the modern headers, to the typed bare axum handler (which parses
    /// the same bytes and ignores the headers).
    Bare,
}

impl Kind {
    /// Every kind, in the order reports list them.
    pub const ALL: [Kind; 7] = [
        Kind::Modern,
        Kind::Legacy,
        Kind::Session,
        Kind::Discover,
        Kind::List,
        Kind::LegacyList,
        Kind::Bare,
    ];

    /// The kind's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Modern => "modern",
            Kind::Legacy => "legacy",
            Kind::Session => "session",
            Kind::Discover => "discover",
            Kind::List => "list",
            Kind::LegacyList => "legacy-list",
            Kind::Bare => "bare",
        }
    }

    /// The kind called `name`.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether each connection opens a legacy session before its first request.
    pub fn needs_session(self) -> bool {
        self == Kind::Session
    }

    /// The request body.
    pub fn body(self) -> &'static str {
        match self {
            Kind::Modern | Kind::Bare => ADD_MODERN,
            Kind::Legacy | Kind::Session => ADD_LEGACY,
            Kind::Discover => MODERN_DISCOVER,
            Kind::List => ADD_LIST,
            Kind::LegacyList => ADD_LEGACY_LIST,
        }
    }

    /// The request headers, besides `Host`, `Content-Length` and `Mcp-Session-Id`.
    pub fn headers(self) -> &'static [(&'static str, &'static str)] {
        const COMMON: [(&str, &str); 2] = [
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
        ];
        const MODERN: [(&str, &str); 5] = [
            COMMON[0],
            COMMON[1],
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "add"),
        ];
        const LEGACY: [(&str, &str); 3] =
            [COMMON[0], COMMON[1], ("mcp-protocol-version", "2025-11-25")];
        const DISCOVER: [(&str, &str); 4] = [
            COMMON[0],
            COMMON[1],
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "server/discover"),
        ];
        const LIST: [(&str, &str); 4] = [
            COMMON[0],
            COMMON[1],
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/list"),
        ];
        match self {
            Kind::Modern | Kind::Bare => &MODERN,
            Kind::Legacy | Kind::Session | Kind::LegacyList => &LEGACY,
            Kind::Discover => &DISCOVER,
            Kind::List => &LIST,
        }
    }

    /// An `http` request of this kind for `uri` (a path for in-process use, or an absolute
    /// URI).
    pub fn request<B: From<&'static str>>(self, uri: &str) -> http::Request<B> {
        let mut builder = http::Request::post(uri);
        for (name, value) in self.headers() {
            builder = builder.header(*name, *value);
        }
        builder
            .body(B::from(self.body()))
            .expect("static request parts are valid")
    }
}

impl Kind {
    /// Whether the kind sends a `tools/call`, whose tool and arguments
    /// [`Kind::call_body`] can change.
    pub fn is_call(self) -> bool {
        matches!(
            self,
            Kind::Modern | Kind::Legacy | Kind::Session | Kind::Bare
        )
    }

    /// This kind's `tools/call` body calling `tool` with `arguments` (the text of a JSON
    /// object) instead of `add` with `{"a":2,"b":3}`: the same bytes as [`Kind::body`] for
    /// those. `None` for a kind that does not call a tool.
    pub fn call_body(self, tool: &str, arguments: &str) -> Option<String> {
        let name = Value::from(tool);
        let head = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"#;
        match self {
            Kind::Modern | Kind::Bare => Some(format!(
                concat!(
                    "{head}{name},\"arguments\":{arguments},\"_meta\":{{",
                    r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
                    r#""io.modelcontextprotocol/clientCapabilities":{{}},"#,
                    r#""io.modelcontextprotocol/clientInfo":{{"name":"mcp-load","version":"0.1.0"}}}}}}}}"#
                ),
                head = head,
                name = name,
                arguments = arguments
            )),
            Kind::Legacy | Kind::Session => {
                Some(format!(r#"{head}{name},"arguments":{arguments}}}}}"#))
            }
            Kind::Discover | Kind::List | Kind::LegacyList => None,
        }
    }
}

/// The arguments of a [`Size::size`] call whose `text` is `bytes` bytes long (ASCII `x`, which
/// JSON carries unescaped).
pub fn size_arguments(bytes: usize) -> String {
    format!(r#"{{"text":"{}"}}"#, "x".repeat(bytes))
}

pub use size::{Size, TextSize};

/// The argument-size benchmark service (its own module: a service's generated items are
/// module-level).
mod size {
    /// What [`Size::size`] returns.
    #[derive(Debug, serde::Serialize, schemars::JsonSchema)]
    pub struct TextSize {
        /// The text's length in bytes.
        pub bytes: u64,
    }

    /// The argument-size benchmark service: one `size(text) -> {bytes}` tool (default
    /// structured-output policy), which [`bare_size_handler`](super::bare_size_handler)
    /// mirrors.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Size;

    #[mcp::service(name = "size", version = "1.0.0")]
    impl Size {
        /// The length of a text in bytes.
        pub fn size(&self, text: String) -> TextSize {
            TextSize {
                bytes: text.len() as u64,
            }
        }
    }
}

/// The [`Add`] server the benchmarks measure.
pub fn server() -> mcp::ServerBuilder {
    mcp::Server::builder(Add)
}

/// [`server`], with the stock in-memory rate limit per caller on every request when
/// `MCP_RATE_LIMIT=<n>/<unit>` is set, so that `scripts/instructions.sh` (the `add` example
/// and `instr_count`) can measure what the layer costs:
/// `MCP_RATE_LIMIT=1000000000/sec scripts/instructions.sh --in-process`.
///
/// # Errors
///
/// When `MCP_RATE_LIMIT` is set to something that is not a rate.
pub fn server_from_env() -> Result<mcp::ServerBuilder, mcp::Error> {
    let mut server = server();
    #[cfg(feature = "otel")]
    if std::env::var("MCP_OTEL").as_deref() == Ok("noop") {
        server = server.telemetry(noop::telemetry());
    }
    if let Ok(rate) = std::env::var("MCP_RATE_LIMIT") {
        let quota: mcp::middleware::Quota = rate
            .parse()
            .map_err(|e| mcp::Error::Config(format!("MCP_RATE_LIMIT: {e}")))?;
        server = server.layer(mcp::middleware::RateLimitLayer::per_caller(quota));
    }
    Ok(server)
}

/// The bare axum baseline: one POST route at `path` answering [`bare_handler`].
pub fn bare_router(path: &str) -> Router {
    Router::new().route(path, axum::routing::post(bare_handler))
}

/// A JSON-RPC request as the bare handler reads it.
#[derive(Deserialize)]
struct BareRequest {
    #[allow(
        dead_code,
        reason = "read to check the request, as a hand-written handler does"
    )]
    jsonrpc: String,
    #[serde(default)]
    id: Value,
    method: String,
    params: Option<BareParams>,
}

#[derive(Deserialize)]
struct BareParams {
    name: String,
    arguments: BareArguments,
}

#[derive(Deserialize)]
struct BareArguments {
    a: i64,
    b: i64,
}

/// The "bare axum JSON handler" of issue #17, what a competent engineer writes by hand:
/// deserializes the body into `#[derive(Deserialize)]` structs, adds, builds the
/// `tools/call` result with `serde_json::json!` (a text content block and
/// `structuredContent {"sum": …}`, or the matching JSON-RPC error) and answers with
/// `serde_json::to_vec`. A body that is not JSON gets a JSON-RPC parse error, JSON of
/// another shape an invalid-request error, both with HTTP 400.
pub async fn bare_handler(body: Bytes) -> Response {
    let request: BareRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => {
            let (code, message) = match e.classify() {
                serde_json::error::Category::Data => (-32600, "Invalid Request"),
                _ => (-32700, "Parse error"),
            };
            let error = json!({"jsonrpc": "2.0", "id": null,
                "error": {"code": code, "message": message}});
            return json_response(StatusCode::BAD_REQUEST, &error);
        }
    };
    let reply = match (request.method.as_str(), request.params) {
        ("tools/call", Some(params)) if params.name == "add" => {
            let sum = params.arguments.a.wrapping_add(params.arguments.b);
            json!({
                "jsonrpc": "2.0",
                "id": request.id,
                "result": {
                    "content": [{"type": "text", "text": sum.to_string()}],
                    "structuredContent": {"sum": sum}
                }
            })
        }
        ("tools/call", _) => json!({"jsonrpc": "2.0", "id": request.id,
            "error": {"code": -32602, "message": "Unknown tool"}}),
        _ => json!({"jsonrpc": "2.0", "id": request.id,
            "error": {"code": -32601, "message": "Method not found"}}),
    };
    json_response(StatusCode::OK, &reply)
}
/// The bare baseline of the argument-size rows: one POST route at `path` answering
/// [`bare_size_handler`].
pub fn bare_size_router(path: &str) -> Router {
    Router::new().route(path, axum::routing::post(bare_size_handler))
}

/// A `tools/call` of `size` as [`bare_size_handler`] reads it.
#[derive(Deserialize)]
struct BareSizeRequest {
    #[allow(
        dead_code,
        reason = "read to check the request, as a hand-written handler does"
    )]
    jsonrpc: String,
    #[serde(default)]
    id: Value,
    method: String,
    params: Option<BareSizeParams>,
}

#[derive(Deserialize)]
struct BareSizeParams {
    name: String,
    arguments: BareSizeArguments,
}

#[derive(Deserialize)]
struct BareSizeArguments {
    text: String,
}

/// The hand-written counterpart of [`Size`], written like [`bare_handler`]: deserializes the
/// body into typed structs (the text into a `String`), and answers the same result as the
/// framework (a text content block `{"bytes":N}` and `structuredContent {"bytes": N}`), or
/// the matching JSON-RPC error.
pub async fn bare_size_handler(body: Bytes) -> Response {
    let request: BareSizeRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => return bare_parse_error(&e),
    };
    let reply = match (request.method.as_str(), request.params) {
        ("tools/call", Some(params)) if params.name == "size" => {
            let structured = json!({"bytes": params.arguments.text.len()});
            json!({
                "jsonrpc": "2.0",
                "id": request.id,
                "result": {
                    "content": [{"type": "text", "text": structured.to_string()}],
                    "structuredContent": structured
                }
            })
        }
        ("tools/call", _) => json!({"jsonrpc": "2.0", "id": request.id,
            "error": {"code": -32602, "message": "Unknown tool"}}),
        _ => json!({"jsonrpc": "2.0", "id": request.id,
            "error": {"code": -32601, "message": "Method not found"}}),
    };
    json_response(StatusCode::OK, &reply)
}

fn bare_parse_error(e: &serde_json::Error) -> Response {
    let (code, message) = match e.classify() {
        serde_json::error::Category::Data => (-32600, "Invalid Request"),
        _ => (-32700, "Parse error"),
    };
    let error = json!({"jsonrpc": "2.0", "id": null,
        "error": {"code": code, "message": message}});
    json_response(StatusCode::BAD_REQUEST, &error)
}

/// The first event of a [`bare_sse_router`] stream.
pub const BARE_SSE_FIRST_EVENT: &str = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{\"notifications\":{\"toolsListChanged\":true}}}\n\n";

/// The bare baseline of the open-stream row: `GET path` answers `200 text/event-stream`, sends
/// [`BARE_SSE_FIRST_EVENT`] and then holds the response open until the client goes away:
/// the least a hand-written axum server keeps per open SSE stream.
pub fn bare_sse_router(path: &str) -> Router {
    Router::new().route(
        path,
        axum::routing::get(|| async {
            let mut response = axum::body::Body::new(OpenStream {
                first: Some(Bytes::from_static(BARE_SSE_FIRST_EVENT.as_bytes())),
            })
            .into_response();
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            );
            response
        }),
    )
}

/// A response body that yields its first frame and then nothing, without ending: hyper drops
/// it when the connection closes. It never registers a waker because nothing ever wakes it.
struct OpenStream {
    first: Option<Bytes>,
}

impl hyper::body::Body for OpenStream {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
        match self.first.take() {
            Some(first) => std::task::Poll::Ready(Some(Ok(hyper::body::Frame::data(first)))),
            None => std::task::Poll::Pending,
        }
    }
}

fn json_response(status: StatusCode, value: &Value) -> Response {
    let body = serde_json::to_vec(value).unwrap_or_default();
    let mut response = (status, body).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt as _;
    use tower::ServiceExt as _;

    async fn send(
        router: Router,
        request: http::Request<axum::body::Body>,
    ) -> (StatusCode, http::HeaderMap, Value) {
        let response = router.oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        let body = serde_json::from_slice(&body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()));
        (status, headers, body)
    }

    /// The fixtures stay valid requests as the runtime evolves: every kind gets a result, and
    /// the framework and the bare handler give the same `tools/call` result.
    #[tokio::test]
    async fn every_fixture_gets_a_result() {
        let router = mcp::transport::http::router("/mcp", server().build().unwrap());
        for kind in [
            Kind::Modern,
            Kind::Legacy,
            Kind::Discover,
            Kind::List,
            Kind::LegacyList,
        ] {
            let (status, _, body) = send(router.clone(), kind.request("/mcp")).await;
            assert_eq!(status, StatusCode::OK, "{kind:?}: {body}");
            assert!(body.get("error").is_none(), "{kind:?}: {body}");
            assert!(body.get("result").is_some(), "{kind:?}: {body}");
        }
        let (_, _, body) = send(router.clone(), Kind::Modern.request("/mcp")).await;
        assert_eq!(
            body["result"]["structuredContent"],
            json!({"sum": 5}),
            "{body}"
        );
        let (status, _, bare) = send(bare_router("/mcp"), Kind::Bare.request("/mcp")).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(bare["result"]["structuredContent"], json!({"sum": 5}));
        assert_eq!(bare["result"]["content"][0]["text"], "5");
        assert_eq!(bare["id"], 1);

        // A session call: initialize, initialized, then the call on the session.
        let init = http::Request::post("/mcp")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(axum::body::Body::from(LEGACY_INITIALIZE))
            .unwrap();
        let (status, headers, _) = send(router.clone(), init).await;
        assert_eq!(status, StatusCode::OK);
        let session = headers.get("mcp-session-id").unwrap().clone();
        let mut call = Kind::Session.request::<axum::body::Body>("/mcp");
        call.headers_mut().insert("mcp-session-id", session);
        let (status, _, body) = send(router, call).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        // The legacy era's default policy sends the text content only.
        assert_eq!(
            body["result"]["content"][0]["text"], r#"{"sum":5}"#,
            "{body}"
        );
    }

    /// The bare handler answers what it cannot serve with the matching JSON-RPC error.
    #[tokio::test]
    async fn bare_handler_errors() {
        let post = |body: &'static str| {
            http::Request::post("/mcp")
                .body(axum::body::Body::from(body))
                .unwrap()
        };
        let (status, _, body) = send(bare_router("/mcp"), post("{")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["error"]["code"], -32700);
        let (status, _, body) = send(bare_router("/mcp"), post(MODERN_DISCOVER)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["error"]["code"], -32600);
        let ping = r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;
        let (status, _, body) = send(bare_router("/mcp"), post(ping)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["error"]["code"], -32601);
        assert_eq!(body["id"], 3);
        let unknown = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sub","arguments":{"a":1,"b":2}}}"#;
        let (_, _, body) = send(bare_router("/mcp"), post(unknown)).await;
        assert_eq!(body["error"]["code"], -32602);
        assert_eq!(body["id"], 7);
    }

    /// The call bodies built for another tool and arguments are the fixtures' bytes for `add`.
    #[test]
    fn call_body_rebuilds_the_fixtures() {
        let add = r#"{"a":2,"b":3}"#;
        assert_eq!(Kind::Modern.call_body("add", add).unwrap(), ADD_MODERN);
        assert_eq!(Kind::Bare.call_body("add", add).unwrap(), ADD_MODERN);
        assert_eq!(Kind::Legacy.call_body("add", add).unwrap(), ADD_LEGACY);
        assert_eq!(Kind::Session.call_body("add", add).unwrap(), ADD_LEGACY);
        for kind in [Kind::Discover, Kind::List, Kind::LegacyList] {
            assert!(!kind.is_call());
            assert_eq!(kind.call_body("add", add), None);
        }
        let body: Value =
            serde_json::from_str(&Kind::Modern.call_body("size", &size_arguments(3)).unwrap())
                .unwrap();
        assert_eq!(body["params"]["name"], "size");
        assert_eq!(body["params"]["arguments"], json!({"text": "xxx"}));
    }

    /// The framework's `size` tool and the bare size handler give the same answer, for a text
    /// of 100 KiB (more than hyper's and axum's buffers, less than both body limits).
    #[tokio::test]
    async fn size_service_and_bare_size_handler_agree() {
        let text = 100 * 1024;
        let body = Kind::Modern
            .call_body("size", &size_arguments(text))
            .unwrap();
        let request = |body: String| {
            let mut request = Kind::Modern.request::<axum::body::Body>("/mcp");
            request
                .headers_mut()
                .insert("mcp-name", HeaderValue::from_static("size"));
            *request.body_mut() = axum::body::Body::from(body);
            request
        };
        let router =
            mcp::transport::http::router("/mcp", mcp::Server::builder(Size).build().unwrap());
        let (status, _, framework) = send(router, request(body.clone())).await;
        assert_eq!(status, StatusCode::OK, "{framework}");
        assert_eq!(
            framework["result"]["structuredContent"],
            json!({"bytes": text})
        );
        let (status, _, bare) = send(bare_size_router("/mcp"), request(body)).await;
        assert_eq!(status, StatusCode::OK, "{bare}");
        assert_eq!(bare["id"], framework["id"]);
        // The framework's result carries its `_meta` (server info) besides: compare the rest.
        let mut result = framework["result"].as_object().unwrap().clone();
        result.remove("_meta");
        result.remove("resultType");
        assert_eq!(Value::Object(result), bare["result"]);
    }

    /// The bare size handler answers what it cannot serve with the matching JSON-RPC error.
    #[tokio::test]
    async fn bare_size_handler_errors() {
        let post = |body: &'static str| {
            http::Request::post("/mcp")
                .body(axum::body::Body::from(body))
                .unwrap()
        };
        let (status, _, body) = send(bare_size_router("/mcp"), post("{")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["error"]["code"], -32700);
        let (status, _, body) = send(bare_size_router("/mcp"), post(ADD_MODERN)).await;
        assert_eq!(
            status,
            StatusCode::BAD_REQUEST,
            "add's arguments have no text"
        );
        assert_eq!(body["error"]["code"], -32600);
        let other = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"len","arguments":{"text":""}}}"#;
        let (status, _, body) = send(bare_size_router("/mcp"), post(other)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["error"]["code"], -32602);
        assert_eq!(body["id"], 4);
        let list = r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"name":"size","arguments":{"text":""}}}"#;
        let (_, _, body) = send(bare_size_router("/mcp"), post(list)).await;
        assert_eq!(body["error"]["code"], -32601);
    }

    /// The bare SSE route sends its first event and then keeps the stream open.
    #[tokio::test]
    async fn bare_sse_stream_stays_open() {
        let request = http::Request::get("/sse")
            .body(axum::body::Body::empty())
            .unwrap();
        let response = bare_sse_router("/sse").oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            "text/event-stream"
        );
        let mut body = response.into_body();
        let first = body.frame().await.unwrap().unwrap().into_data().unwrap();
        assert_eq!(first, BARE_SSE_FIRST_EVENT.as_bytes());
        let next = tokio::time::timeout(std::time::Duration::from_millis(50), body.frame()).await;
        assert!(next.is_err(), "the stream neither ends nor sends more");
    }
}

/// Telemetry whose spans and metrics are made in full (a batch span processor, a periodic
/// metric reader aggregating every point) and then dropped by exporters that send nothing:
/// what recording costs the server, without the cost of a network exporter
/// (`MCP_OTEL=noop` with the `otel` feature).
#[cfg(feature = "otel")]
pub mod noop {
    use opentelemetry_sdk::error::OTelSdkResult;
    use opentelemetry_sdk::metrics::data::ResourceMetrics;
    use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
    use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider, Temporality};
    use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};

    /// Drops every batch.
    #[derive(Debug)]
    pub struct Discard;

    impl SpanExporter for Discard {
        async fn export(&self, _batch: Vec<SpanData>) -> OTelSdkResult {
            Ok(())
        }
    }

    impl PushMetricExporter for Discard {
        async fn export(&self, _metrics: &ResourceMetrics) -> OTelSdkResult {
            Ok(())
        }

        fn force_flush(&self) -> OTelSdkResult {
            Ok(())
        }

        fn shutdown_with_timeout(&self, _timeout: std::time::Duration) -> OTelSdkResult {
            Ok(())
        }

        fn temporality(&self) -> Temporality {
            Temporality::Cumulative
        }
    }

    /// The telemetry: providers over [`Discard`].
    pub fn telemetry() -> mcp::otel::Telemetry {
        let traces = SdkTracerProvider::builder()
            .with_batch_exporter(Discard)
            .build();
        let metrics = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(Discard).build())
            .build();
        mcp::otel::Telemetry::new(&traces, &metrics)
    }
}
