//! Fixtures shared by the load generator (`examples/load.rs`), the bare-axum baseline
//! (`examples/bare_axum.rs`) and the criterion benches (`examples/benches/dispatch.rs`): the
//! exact requests each benchmark sends, and the "bare axum JSON handler" the framework is
//! measured against.

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// The argument every benchmark request passes to the echo tool.
pub const ECHO_VALUE: &str = "hello, benchmark";

/// A modern (2026-07-28) `tools/call` of the echo example's `echo` tool, with the `_meta`
/// envelope the TypeScript client attaches (PROTOCOL.md §7, §9).
pub const MODERN_CALL: &str = concat!(
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","#,
    r#""arguments":{"value":"hello, benchmark"},"_meta":{"#,
    r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
    r#""io.modelcontextprotocol/clientCapabilities":{},"#,
    r#""io.modelcontextprotocol/clientInfo":{"name":"mcp-load","version":"0.1.0"}}}}"#
);

/// A legacy `tools/call` of the same tool, served statelessly (no `initialize`, no session,
/// no envelope: PROTOCOL.md §11).
pub const LEGACY_CALL: &str = concat!(
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","#,
    r#""arguments":{"value":"hello, benchmark"}}}"#
);

/// The TypeScript client's `server/discover` probe (PROTOCOL.md §5).
pub const MODERN_DISCOVER: &str = concat!(
    r#"{"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","#,
    r#""params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
    r#""io.modelcontextprotocol/clientInfo":{"name":"mcp-load","version":"0.1.0"},"#,
    r#""io.modelcontextprotocol/clientCapabilities":{}}}}"#
);

/// Which request a benchmark sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// [`MODERN_CALL`] with the modern headers, to the MCP endpoint.
    Modern,
    /// [`LEGACY_CALL`] with a legacy `MCP-Protocol-Version` header, to the MCP endpoint.
    Legacy,
    /// [`MODERN_DISCOVER`] with the modern headers, to the MCP endpoint.
    Discover,
    /// [`MODERN_CALL`] with the modern headers, to the bare axum handler (which parses the
    /// same bytes and ignores the headers).
    Bare,
}

impl Kind {
    /// Every kind, in the order reports list them.
    pub const ALL: [Kind; 4] = [Kind::Modern, Kind::Legacy, Kind::Discover, Kind::Bare];

    /// The kind's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Modern => "modern",
            Kind::Legacy => "legacy",
            Kind::Discover => "discover",
            Kind::Bare => "bare",
        }
    }

    /// The kind called `name`.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The request body.
    pub fn body(self) -> &'static str {
        match self {
            Kind::Modern | Kind::Bare => MODERN_CALL,
            Kind::Legacy => LEGACY_CALL,
            Kind::Discover => MODERN_DISCOVER,
        }
    }

    /// The request headers, besides `Host` and `Content-Length`.
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
            ("mcp-name", "echo"),
        ];
        const LEGACY: [(&str, &str); 3] =
            [COMMON[0], COMMON[1], ("mcp-protocol-version", "2025-11-25")];
        const DISCOVER: [(&str, &str); 4] = [
            COMMON[0],
            COMMON[1],
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "server/discover"),
        ];
        match self {
            Kind::Modern | Kind::Bare => &MODERN,
            Kind::Legacy => &LEGACY,
            Kind::Discover => &DISCOVER,
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

/// The bare axum baseline: one POST route at `path` answering [`bare_handler`].
pub fn bare_router(path: &str) -> Router {
    Router::new().route(path, axum::routing::post(bare_handler))
}

/// The "bare axum JSON handler": parses the JSON-RPC request with `serde_json` into a
/// [`Value`] and answers a result shaped like an MCP `tools/call` result that echoes
/// `params.arguments.value`. Malformed bodies get a JSON-RPC parse error with HTTP 400.
pub async fn bare_handler(body: Bytes) -> Response {
    let request: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(_) => {
            let error = json!({"jsonrpc": "2.0", "id": null,
                "error": {"code": -32700, "message": "Parse error"}});
            return json_response(StatusCode::BAD_REQUEST, &error);
        }
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let text = request
        .pointer("/params/arguments/value")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let reply = json!({
        "jsonrpc": "2.0",
        "id": id,
        "result": {"content": [{"type": "text", "text": text}]}
    });
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

    async fn call(router: Router, kind: Kind) -> (StatusCode, Value) {
        let response = router
            .oneshot(kind.request::<axum::body::Body>("/mcp"))
            .await
            .unwrap();
        let status = response.status();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (status, serde_json::from_slice(&body).unwrap())
    }

    /// The fixtures stay valid requests as the runtime evolves: every kind gets a result.
    #[tokio::test]
    async fn every_fixture_gets_a_result() {
        let server = crate::echo::server().build().unwrap();
        let router = mcp::transport::router("/mcp", server);
        for kind in [Kind::Modern, Kind::Legacy, Kind::Discover] {
            let (status, body) = call(router.clone(), kind).await;
            assert_eq!(status, StatusCode::OK, "{kind:?}: {body}");
            assert!(body.get("error").is_none(), "{kind:?}: {body}");
            assert!(body.get("result").is_some(), "{kind:?}: {body}");
        }
        let (status, body) = call(router, Kind::Modern).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["result"]["content"][0]["text"], ECHO_VALUE);
        let (status, body) = call(bare_router("/mcp"), Kind::Bare).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            body,
            json!({"jsonrpc": "2.0", "id": 1,
                "result": {"content": [{"type": "text", "text": ECHO_VALUE}]}})
        );
    }
}
