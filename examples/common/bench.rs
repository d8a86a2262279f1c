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

/// The legacy `initialize` a [`Kind::Session`] connection sends first.
pub const LEGACY_INITIALIZE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"#,
    r#""protocolVersion":"2025-11-25","capabilities":{},"#,
    r#""clientInfo":{"name":"mcp-load","version":"0.1.0"}}}"#
);

/// The notification that completes a [`Kind::Session`] connection's handshake.
pub const LEGACY_INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// The sum [`Add::add`] returns.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct Sum {
    /// `a + b`.
    pub sum: i64,
}

/// The benchmark service: one `add(a, b) -> {sum}` tool (default structured-output policy),
/// the framework side of issue #17's measurements.
#[derive(Clone, Copy, Debug, Default)]
pub struct Add;

#[mcp::service(name = "add", version = "1.0.0")]
impl Add {
    /// Add two numbers.
    pub fn add(&self, a: i64, b: i64) -> Sum {
        Sum {
            sum: a.wrapping_add(b),
        }
    }
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
    /// [`ADD_MODERN`] with the modern headers, to the typed bare axum handler (which parses
    /// the same bytes and ignores the headers).
    Bare,
}

impl Kind {
    /// Every kind, in the order reports list them.
    pub const ALL: [Kind; 6] = [
        Kind::Modern,
        Kind::Legacy,
        Kind::Session,
        Kind::Discover,
        Kind::List,
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
            Kind::Legacy | Kind::Session => &LEGACY,
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

/// The [`Add`] server the benchmarks measure.
pub fn server() -> mcp::ServerBuilder {
    mcp::Server::builder(Add)
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
        let router = mcp::transport::router("/mcp", server().build().unwrap());
        for kind in [Kind::Modern, Kind::Legacy, Kind::Discover, Kind::List] {
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
}
