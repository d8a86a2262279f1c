//! Testing services in-process, without a socket: [`TestClient`] sends requests of either
//! era through the real HTTP endpoint (`tower::ServiceExt::oneshot` on the router) and
//! returns status, headers and the parsed body.
//!
//! ```
//! # struct Svc;
//! # #[mcp::service(name = "svc", version = "1.0.0")]
//! # impl Svc { pub fn greet(&self) -> String { "hi".into() } }
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use mcp::testing::TestClient;
//! use serde_json::json;
//!
//! let server = mcp::Server::builder(Svc).build().unwrap();
//! let client = TestClient::new(server);
//! let reply = client.modern("tools/call", json!({"name": "greet"})).await;
//! assert_eq!(reply.status, 200);
//! assert_eq!(reply.result()["content"][0]["text"], "hi");
//! let reply = client.legacy("tools/call", json!({"name": "greet"})).await;
//! assert!(reply.result().get("resultType").is_none());
//! # }
//! ```

use std::sync::atomic::{AtomicI64, Ordering};

use axum::Router;
use axum::body::Body;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;

use crate::dispatch::Server;
use crate::protocol::MODERN_VERSION;

/// The path the test client serves the service at.
pub const PATH: &str = "/mcp";

/// An in-process client of one service.
pub struct TestClient {
    router: Router,
    next_id: AtomicI64,
}

/// A response: status, headers and the body parsed as JSON (`Value::Null` when empty or not
/// JSON; the text is in `raw`).
#[derive(Debug)]
pub struct TestResponse {
    /// HTTP status.
    pub status: StatusCode,
    /// Response headers.
    pub headers: HeaderMap,
    /// The parsed body.
    pub body: Value,
    /// The body as text.
    pub raw: String,
}

impl TestResponse {
    /// The JSON-RPC `result`; panics (with the body) when the response is not a success.
    #[track_caller]
    pub fn result(&self) -> &Value {
        assert_eq!(
            self.status,
            StatusCode::OK,
            "expected 200, got {}: {}",
            self.status,
            self.raw
        );
        assert!(
            self.body.get("result").is_some(),
            "expected a result: {}",
            self.raw
        );
        &self.body["result"]
    }

    /// The JSON-RPC error code, if the body is an error response.
    pub fn error_code(&self) -> Option<i64> {
        self.body.get("error")?.get("code")?.as_i64()
    }
}

impl TestClient {
    /// A client of `server`, served at [`PATH`].
    pub fn new(server: Server) -> Self {
        Self {
            router: crate::transport::http::router(PATH, server),
            next_id: AtomicI64::new(1),
        }
    }

    fn id(&self) -> i64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// A modern (2026-07-28) request for `method` with the envelope added to `params._meta`
    /// and the standard headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`).
    /// `Mcp-Param-*` headers are not added: pass them with [`Self::modern_with_headers`].
    pub async fn modern(&self, method: &str, params: Value) -> TestResponse {
        self.modern_with_headers(method, params, &[]).await
    }

    /// A modern request with extra headers.
    pub async fn modern_with_headers(
        &self,
        method: &str,
        params: Value,
        headers: &[(&str, &str)],
    ) -> TestResponse {
        let request = self.modern_request(method, params);
        self.send_with(request, headers).await
    }

    /// The modern request [`Self::modern`] sends, for tests that alter it.
    pub fn modern_request(&self, method: &str, params: Value) -> Request<Body> {
        let mut params = if params.is_object() {
            params
        } else {
            json!({})
        };
        let meta = params.as_object_mut().and_then(|p| {
            p.entry("_meta")
                .or_insert_with(|| json!({}))
                .as_object_mut()
                .map(std::mem::take)
        });
        let mut envelope = json!({
            "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
            "io.modelcontextprotocol/clientInfo": {"name": "mcp-test-client", "version": env!("CARGO_PKG_VERSION")},
            "io.modelcontextprotocol/clientCapabilities": {}
        });
        if let (Some(env), Some(user)) = (envelope.as_object_mut(), meta) {
            env.extend(user);
        }
        params["_meta"] = envelope;
        let field = match method {
            "resources/read" => "uri",
            "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
            _ => "name",
        };
        let name = params.get(field).and_then(Value::as_str).map(str::to_owned);
        let body = json!({"jsonrpc": "2.0", "id": self.id(), "method": method, "params": params});
        let mut builder = Request::post(PATH)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", MODERN_VERSION)
            .header("mcp-method", method);
        if let Some(name) = name {
            let encoded =
                crate::schema::headers::encode_value(&Value::String(name)).unwrap_or_default();
            builder = builder.header("mcp-name", encoded);
        }
        builder
            .body(Body::from(body.to_string()))
            .unwrap_or_default()
    }

    /// A legacy (initialize-era) request for `method`, statelessly, without
    /// `MCP-Protocol-Version`.
    pub async fn legacy(&self, method: &str, params: Value) -> TestResponse {
        let body = json!({"jsonrpc": "2.0", "id": self.id(), "method": method, "params": params});
        let request = Request::post(PATH)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(Body::from(body.to_string()))
            .unwrap_or_default();
        self.send(request).await
    }

    /// Sends any request.
    pub async fn send(&self, request: Request<Body>) -> TestResponse {
        self.send_with(request, &[]).await
    }

    async fn send_with(
        &self,
        mut request: Request<Body>,
        headers: &[(&str, &str)],
    ) -> TestResponse {
        for (name, value) in headers {
            if let (Ok(n), Ok(v)) = (
                http::HeaderName::try_from(*name),
                http::HeaderValue::try_from(*value),
            ) {
                request.headers_mut().insert(n, v);
            }
        }
        let response = match self.router.clone().oneshot(request).await {
            Ok(r) => r,
            Err(never) => match never {},
        };
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response
            .into_body()
            .collect()
            .await
            .map(|c| c.to_bytes())
            .unwrap_or_default();
        let raw = String::from_utf8_lossy(&bytes).into_owned();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        TestResponse {
            status,
            headers,
            body,
            raw,
        }
    }
}
