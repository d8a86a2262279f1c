//! `legacy_structured_output`: basic services keep the seed's 1.x shape on the legacy era by
//! default (no `outputSchema`, no `structuredContent`); the switch, on the service, on a tool
//! or in the runtime configuration, sends both — exactly as the modern era does — to legacy
//! clients that negotiated 2025-06-18 or later, statelessly (`MCP-Protocol-Version`) or on
//! a session. Older clients, non-object roots and opted-out tools keep the 1.x shape.

use axum::body::Body;
use http::Request;
use mcp::testing::{PATH, TestClient, TestResponse};
use mcp::{ServerBuilder, ToolError};
use serde_json::{Value, json};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Forecast {
    city: String,
    celsius: i64,
}

fn forecast(city: String) -> Forecast {
    Forecast { city, celsius: 21 }
}

/// Off by default: only the tool that opts in sends structured output to legacy clients.
struct Plain;

#[mcp::service(name = "plain", version = "1.0.0")]
impl Plain {
    /// The forecast.
    pub fn forecast(&self, city: String) -> Forecast {
        forecast(city)
    }

    /// The forecast, structured for legacy clients too.
    #[tool(legacy_structured_output = true)]
    pub fn forecast_on(&self, city: String) -> Forecast {
        forecast(city)
    }
}

/// On for the whole service.
struct On;

#[mcp::service(name = "on", version = "1.0.0", legacy_structured_output = true)]
impl On {
    /// The forecast.
    pub fn forecast(&self, city: String) -> Forecast {
        forecast(city)
    }

    /// Opted out.
    #[tool(legacy_structured_output = false)]
    pub fn forecast_off(&self, city: String) -> Forecast {
        forecast(city)
    }

    /// A non-object root: the legacy schema cannot carry it.
    pub fn counts(&self) -> Vec<i64> {
        vec![1, 2]
    }

    /// A tool error: `isError`, no structured content (on either era).
    pub fn fail(&self, city: String) -> Result<Forecast, ToolError> {
        Err(ToolError::new(format!("no forecast for {city}")))
    }

    /// Text only.
    #[tool(structured_output = false)]
    pub fn text_only(&self, city: String) -> Forecast {
        forecast(city)
    }
}

const VERSIONS: [(&str, bool); 4] = [
    ("2024-11-05", false),
    ("2025-03-26", false),
    ("2025-06-18", true),
    ("2025-11-25", true),
];

fn client(server: mcp::ServerBuilder) -> TestClient {
    TestClient::new(server.build().expect("valid configuration"))
}

fn legacy_request(body: &Value, version: Option<&str>, session: Option<&str>) -> Request<Body> {
    let mut b = Request::post(PATH)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(v) = version {
        b = b.header("mcp-protocol-version", v);
    }
    if let Some(id) = session {
        b = b.header("mcp-session-id", id);
    }
    b.body(Body::from(body.to_string())).unwrap()
}

fn list_body() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
}

fn call_body(tool: &str) -> Value {
    let arguments = if tool == "counts" {
        json!({})
    } else {
        json!({"city": "Oslo"})
    };
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
}

/// The tools of a `tools/list` result, by name.
fn tools(r: &TestResponse) -> Vec<(String, Value)> {
    r.result()["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| (t["name"].as_str().unwrap().to_owned(), t.clone()))
        .collect()
}

fn tool<'a>(tools: &'a [(String, Value)], name: &str) -> &'a Value {
    &tools.iter().find(|(n, _)| n == name).expect(name).1
}

async fn modern_tools(c: &TestClient) -> Vec<(String, Value)> {
    tools(&c.modern("tools/list", json!({})).await)
}

async fn modern_call(c: &TestClient, tool: &str) -> Value {
    let params = call_body(tool)["params"].clone();
    let mut result = c.modern("tools/call", params).await.result().clone();
    let o = result.as_object_mut().unwrap();
    o.remove("resultType");
    o.remove("_meta");
    result
}

/// Asserts what legacy clients of every version get of `tool`: the modern definition and
/// result when `structured` (from 2025-06-18 on), else the 1.x shape.
async fn assert_legacy(c: &TestClient, tool_name: &str, structured: bool) {
    let modern_tool = tool(&modern_tools(c).await, tool_name).clone();
    let modern_result = modern_call(c, tool_name).await;
    for (version, since) in VERSIONS {
        let listed = tools(
            &c.send(legacy_request(&list_body(), Some(version), None))
                .await,
        );
        let listed = tool(&listed, tool_name);
        let result = c
            .send(legacy_request(&call_body(tool_name), Some(version), None))
            .await;
        let result = result.result();
        if structured && since {
            assert_eq!(listed, &modern_tool, "{tool_name} on {version}");
            assert_eq!(result, &modern_result, "{tool_name} on {version}");
            assert!(
                listed["outputSchema"].is_object(),
                "{tool_name} on {version}"
            );
            assert!(
                result["structuredContent"].is_object(),
                "{tool_name} on {version}"
            );
        } else {
            let mut one_x = modern_tool.clone();
            one_x.as_object_mut().unwrap().remove("outputSchema");
            assert_eq!(listed, &one_x, "{tool_name} on {version}");
            let mut one_x = modern_result.clone();
            one_x.as_object_mut().unwrap().remove("structuredContent");
            assert_eq!(result, &one_x, "{tool_name} on {version}");
        }
    }
}

#[tokio::test]
async fn default_keeps_the_1x_shape_and_a_tool_can_opt_in() {
    let c = client(mcp::Server::builder(Plain));
    assert_legacy(&c, "forecast", false).await;
    assert_legacy(&c, "forecast_on", true).await;
    let modern = modern_call(&c, "forecast_on").await;
    assert_eq!(
        modern,
        json!({"content": [{"type": "text", "text": r#"{"celsius":21,"city":"Oslo"}"#}],
               "structuredContent": {"city": "Oslo", "celsius": 21}})
    );
}

#[tokio::test]
async fn service_switch_sends_object_roots_to_2025_06_18_and_later() {
    let c = client(mcp::Server::builder(On));
    assert!(
        mcp::Server::builder(On)
            .build()
            .unwrap()
            .legacy_structured_output()
    );
    assert_legacy(&c, "forecast", true).await;
    assert_legacy(&c, "forecast_off", false).await;
    assert_legacy(&c, "text_only", false).await;
    // The modern era lists `{"type": "array"}`; legacy clients get the 1.x shape.
    let modern = modern_tools(&c).await;
    assert_eq!(tool(&modern, "counts")["outputSchema"]["type"], "array");
    assert_legacy(&c, "counts", false).await;
}

#[tokio::test]
async fn tool_errors_carry_no_structured_content_on_either_era() {
    let c = client(mcp::Server::builder(On));
    let error =
        json!({"content": [{"type": "text", "text": "no forecast for Oslo"}], "isError": true});
    assert_eq!(modern_call(&c, "fail").await, error);
    for (version, _) in VERSIONS {
        let r = c
            .send(legacy_request(&call_body("fail"), Some(version), None))
            .await;
        assert_eq!(r.result(), &error, "{version}");
    }
    // The TypeScript v1 client accepts a result without structuredContent only when it is
    // an error: the tool is listed with its output schema.
    let listed = tools(
        &c.send(legacy_request(&list_body(), Some("2025-11-25"), None))
            .await,
    );
    assert!(tool(&listed, "fail")["outputSchema"].is_object());
}

#[tokio::test]
async fn stateless_requests_without_a_version_header_are_2025_03_26() {
    let c = client(mcp::Server::builder(On));
    let listed = tools(&c.send(legacy_request(&list_body(), None, None)).await);
    assert!(tool(&listed, "forecast").get("outputSchema").is_none());
    let r = c
        .send(legacy_request(&call_body("forecast"), None, None))
        .await;
    assert!(r.result().get("structuredContent").is_none(), "{}", r.raw);
}

async fn session(c: &TestClient, version: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let r = c.send(legacy_request(&init, None, None)).await;
    assert_eq!(r.result()["protocolVersion"], version);
    r.headers
        .get("mcp-session-id")
        .expect("a session")
        .to_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn sessions_use_the_negotiated_version() {
    let c = client(mcp::Server::builder(On));
    for (version, structured) in VERSIONS {
        let id = session(&c, version).await;
        // No header: the session's negotiated version decides.
        let listed = tools(&c.send(legacy_request(&list_body(), None, Some(&id))).await);
        assert_eq!(
            tool(&listed, "forecast").get("outputSchema").is_some(),
            structured,
            "{version}"
        );
        let r = c
            .send(legacy_request(&call_body("forecast"), None, Some(&id)))
            .await;
        assert_eq!(
            r.result().get("structuredContent").is_some(),
            structured,
            "{version}: {}",
            r.raw
        );
    }
}

#[tokio::test]
async fn runtime_configuration_turns_it_on_and_tools_still_win() {
    let on = |c: ServerBuilder| c.legacy_structured_output(true);
    let c = client(on(mcp::Server::builder(Plain)));
    assert_legacy(&c, "forecast", true).await;
    let c = client(on(mcp::Server::builder(On)));
    assert_legacy(&c, "forecast_off", false).await;
    // And off at run time: only the tool that opts in keeps it.
    let off = |c: ServerBuilder| c.legacy_structured_output(false);
    let c = client(off(mcp::Server::builder(On)));
    assert_legacy(&c, "forecast", false).await;
    let c = client(off(mcp::Server::builder(Plain)));
    assert_legacy(&c, "forecast_on", true).await;
}

#[tokio::test]
async fn modern_era_is_unchanged_by_the_switch() {
    let default = client(mcp::Server::builder(Plain));
    let on = client(mcp::Server::builder(Plain).legacy_structured_output(true));
    assert_eq!(modern_tools(&default).await, modern_tools(&on).await);
    assert_eq!(
        modern_call(&default, "forecast").await,
        modern_call(&on, "forecast").await
    );
}

struct Advanced;

impl mcp::AdvancedService for Advanced {
    fn info(&self) -> mcp::Implementation {
        mcp::Implementation::new("adv", "1.0.0")
    }

    async fn on_list_tools(
        &self,
        _: Option<String>,
        _: &mcp::RequestContext,
    ) -> Result<mcp::ListToolsResult, mcp::ServerError> {
        Ok(mcp::ListToolsResult::default())
    }

    async fn on_call_tool(
        &self,
        _: mcp::CallToolParams,
        _: &mcp::RequestContext,
    ) -> Result<mcp::CallToolResponse, mcp::ServerError> {
        Err(mcp::ServerError::client_message("none"))
    }
}

#[test]
fn advanced_services_refuse_the_switch() {
    let config = || mcp::Server::builder(Advanced);
    assert!(config().build().is_ok());
    let err = config()
        .legacy_structured_output(true)
        .build()
        .expect_err("the switch is for basic services");
    assert!(matches!(err, mcp::Error::Config(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        "invalid service configuration: legacy_structured_output applies to basic services: an advanced \
         service's object-rooted outputSchema and structuredContent already reach legacy clients"
    );
}
