//! Shared helpers of the runtime's integration tests: a test service and request builders
//! that drive the axum router in-process with `tower::ServiceExt::oneshot`.
#![allow(dead_code, missing_docs)]

use axum::body::Body;
use http::{Request, StatusCode};
use http_body_util::BodyExt as _;
use mcp::protocol::JsonObject;
use mcp::{
    AdvancedService, CallToolParams, CallToolResponse, CallToolResult, InputRequiredResult,
    ListToolsResult, RequestContext, ServerBuilder, ServerError, Tool,
};
use serde_json::{Value, json};
use tower::ServiceExt as _;

pub const MODERN: &str = "2026-07-28";

pub fn object(v: Value) -> JsonObject {
    v.as_object().cloned().unwrap_or_default()
}

/// A test service: three pages of tools covering every handler outcome.
#[derive(Clone, Default)]
pub struct TestService {
    pub list_ttl: Option<i64>,
    /// How many times `on_list_tools` ran.
    pub list_calls: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl AdvancedService for TestService {
    fn info(&self) -> mcp::Implementation {
        mcp::Implementation::new("test", "1.0.0")
    }

    async fn on_list_tools(
        &self,
        cursor: Option<String>,
        _: &RequestContext,
    ) -> Result<ListToolsResult, ServerError> {
        self.list_calls
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let text = object(json!({"type":"object","properties":{"text":{"type":"string"}}}));
        let (tools, next) = match cursor.as_deref() {
            None => (
                vec![
                    Tool::new("echo", text.clone())
                        .with_output_schema(object(json!({"type":"string"}))),
                    Tool::new("object", text.clone())
                        .with_output_schema(object(json!({"type":"object"}))),
                ],
                Some("p2"),
            ),
            Some("p2") => (
                vec![
                    Tool::new("fail", text.clone()),
                    Tool::new("invalid", text.clone()),
                    Tool::new("panic", text.clone()),
                ],
                Some("p3"),
            ),
            Some("p3") => (
                vec![
                    Tool::new(
                        "weather",
                        object(json!({"type":"object","properties":{
                            "region":{"type":"string","x-mcp-header":"Region"},
                            "days":{"type":"integer","x-mcp-header":"Days"}
                        },"required":["region"]})),
                    ),
                    Tool::new("capability", text.clone()),
                    Tool::new("ask", text.clone()),
                    Tool::new("null", text),
                ],
                None,
            ),
            Some(other) => {
                return Err(ServerError::invalid_params(format!(
                    "Unknown cursor: {other}"
                )));
            }
        };
        let mut page = ListToolsResult::new(tools);
        page.next_cursor = next.map(str::to_owned);
        page.ttl_ms = self.list_ttl;
        Ok(page)
    }

    async fn on_call_tool(
        &self,
        params: CallToolParams,
        cx: &RequestContext,
    ) -> Result<CallToolResponse, ServerError> {
        let args = params.arguments.clone().unwrap_or_default();
        let text = args
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        Ok(match params.name.as_str() {
            "echo" => CallToolResult::text(text.clone())
                .with_structured(json!(text))
                .into(),
            "object" => CallToolResult::text("{}")
                .with_structured(json!({"echo": text, "meta": cx.meta()}))
                .into(),
            "null" => CallToolResult::content(vec![])
                .with_structured(Value::Null)
                .into(),
            "fail" => return Err(ServerError::client_message("the backend is down")),
            "invalid" => return Err(ServerError::invalid_params("argument `text` is too short")),
            "panic" => panic!("secret internal detail /home/user/src/lib.rs"),
            "capability" => {
                return Err(ServerError::Rpc {
                    code: mcp::protocol::ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
                    message: "Missing required client capabilities: elicitation".into(),
                    data: Some(json!({"requiredCapabilities": {"elicitation": {}}})),
                });
            }
            "resume" => match &params.request_state {
                None => CallToolResponse::from(
                    InputRequiredResult::new(
                        json!({"ok": {"method": "elicitation/create", "params": {
                            "mode": "form", "message": "Continue?",
                            "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}})
                        .as_object()
                        .cloned()
                        .unwrap_or_default(),
                    )
                    .with_request_state("round-1"),
                ),
                Some(state) => {
                    let answer = params.input_responses.as_ref().and_then(|r| r.get("ok")).cloned();
                    CallToolResponse::from(CallToolResult::text(format!(
                        "state={state} answer={}",
                        answer.unwrap_or(Value::Null)
                    )))
                }
            },
            "ask" => {
                let mut r = InputRequiredResult::default();
                if text == "state" {
                    r.request_state = Some("s1".into());
                }
                r.into()
            }
            // Unlisted: answers after `ms` milliseconds (for drain and timeout tests).
            "sleep" => {
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                CallToolResult::text(format!("slept {ms} ms")).into()
            }
            "weather" => CallToolResult::text(format!(
                "sunny in {}",
                args["region"].as_str().unwrap_or("?")
            ))
            .into(),
            other => {
                return Err(ServerError::invalid_params(format!(
                    "Unknown tool: {other}"
                )));
            }
        })
    }
}

/// A builder for the default test service, renamed `name` `version`.
pub fn test_builder(name: &str, version: &str) -> ServerBuilder {
    mcp::Server::builder(TestService::default()).info(name, version)
}

pub fn router_with(builder: ServerBuilder) -> axum::Router {
    let server = builder.build().expect("valid config");
    mcp::transport::http::router("/mcp", server)
}

/// A test service protected as the OAuth resource `resource`, its tokens JWTs of a (never
/// contacted) authorization server.
#[cfg(feature = "oauth")]
pub fn protected_server(resource: &str) -> mcp::Server {
    use mcp::auth::{AuthorizationServer, OAuthConfig};
    let oauth = OAuthConfig::new(resource).authorization_server(AuthorizationServer::jwt(
        "https://login.example.com",
        "https://login.example.com/jwks",
    ));
    mcp::Server::builder(TestService::default())
        .oauth(oauth)
        .build()
        .unwrap()
}

pub fn router() -> axum::Router {
    router_with(test_builder("test", "1.0.0").instructions("Test tools."))
}

pub fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// A modern request body with the envelope merged into `params._meta`.
pub fn modern_body(id: Value, method: &str, params: Value) -> Value {
    let mut params = params;
    if params.is_null() {
        params = json!({});
    }
    let mut meta = envelope();
    if let Some(user) = params.get("_meta").and_then(Value::as_object) {
        meta.as_object_mut().unwrap().extend(user.clone());
    }
    params["_meta"] = meta;
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// Builds a POST with the standard modern headers for `body`.
pub fn modern_request(body: &Value) -> Request<Body> {
    let method = body["method"].as_str().unwrap_or_default().to_owned();
    let mut b = Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", method.as_str());
    if let Some(name) = body["params"]["name"].as_str() {
        b = b.header("mcp-name", name);
    }
    b.body(Body::from(body.to_string())).unwrap()
}

pub fn legacy_request(body: &Value) -> Request<Body> {
    Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(Body::from(body.to_string()))
        .unwrap()
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: http::HeaderMap,
    pub body: Value,
    pub raw: String,
}

pub async fn send(router: &axum::Router, request: Request<Body>) -> Reply {
    let response = router.clone().oneshot(request).await.expect("infallible");
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    let raw = String::from_utf8_lossy(&bytes).into_owned();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Reply {
        status,
        headers,
        body,
        raw,
    }
}

impl Reply {
    /// Asserts an error response: HTTP status, JSON-RPC code and id.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: i64, id: Value) {
        assert_eq!(self.status.as_u16(), status, "status; body: {}", self.raw);
        assert_eq!(
            self.body["error"]["code"],
            json!(code),
            "code; body: {}",
            self.raw
        );
        assert_eq!(self.body["id"], id, "id; body: {}", self.raw);
        assert_eq!(self.body["jsonrpc"], "2.0");
        assert!(self.body.get("result").is_none());
    }

    #[track_caller]
    pub fn result(&self) -> &Value {
        assert_eq!(self.status, StatusCode::OK, "body: {}", self.raw);
        assert!(
            self.body.get("error").is_none(),
            "unexpected error: {}",
            self.raw
        );
        &self.body["result"]
    }
}

/// Sends `request` (raw HTTP/1.1 bytes) on a new connection to `addr` and reads until the
/// server closes it: (status, head, body).
pub async fn raw_exchange(addr: std::net::SocketAddr, request: &[u8]) -> (u16, String, String) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    let text = String::from_utf8_lossy(&response).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (status, head.to_owned(), body.to_owned())
}
