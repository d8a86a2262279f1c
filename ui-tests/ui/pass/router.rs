//! The weather service of the seed, served by `mcp::transport::http::router` and driven over HTTP
//! in-process with `tower::ServiceExt::oneshot`: modern and legacy requests, request
//! metadata, header arguments mirrored into `Mcp-Param-*`, and `#[http_header]` values.
#![deny(warnings)]

use axum::body::Body;
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Weather {
    region: String,
    city: String,
    progress: Option<Value>,
    trace: Option<String>,
}

struct WeatherService;

#[mcp::service(name = "weather", version = "1.0.0")]
impl WeatherService {
    /// Current weather of a city in a region.
    #[tool(structured_output = true)]
    pub async fn weather(
        &self,
        #[argument(header = "Region")] region: String,
        city: String,
        meta: Option<mcp::RequestMeta>,
        #[http_header("X-Trace")] trace: Option<String>,
    ) -> Result<Weather, mcp::ToolError> {
        if city.is_empty() {
            return Err(mcp::ToolError::new("The city name is empty"));
        }
        let progress = meta.and_then(|m| m.progress_token().cloned());
        Ok(Weather { region, city, progress, trace })
    }
}

const MODERN: &str = "2026-07-28";

fn modern(method: &str, name: Option<&str>, params: Value, extra: &[(&str, &str)]) -> http::Request<Body> {
    let mut params = params;
    let meta = params["_meta"].as_object().cloned().unwrap_or_default();
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "ui", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    params["_meta"].as_object_mut().unwrap().extend(meta);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut b = http::Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", method);
    if let Some(name) = name {
        b = b.header("mcp-name", name);
    }
    for (k, v) in extra {
        b = b.header(*k, *v);
    }
    b.body(Body::from(body.to_string())).unwrap()
}

async fn send(app: &axum::Router, request: http::Request<Body>) -> Value {
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), 200);
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice(&bytes).unwrap()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let server = mcp::Server::builder(WeatherService).build().unwrap();
    let app = mcp::transport::http::router("/mcp", server);

    let list = send(&app, modern("tools/list", None, json!({}), &[])).await;
    let tool = &list["result"]["tools"][0];
    assert_eq!(tool["name"], "weather");
    assert_eq!(tool["inputSchema"]["properties"]["region"]["x-mcp-header"], "Region");
    assert_eq!(tool["inputSchema"]["required"], json!(["region", "city"]));
    assert_eq!(tool["outputSchema"]["type"], "object");

    let call = modern(
        "tools/call",
        Some("weather"),
        json!({"name": "weather", "arguments": {"region": "eu", "city": "Oslo"}, "_meta": {"progressToken": 7}}),
        &[("mcp-param-region", "eu"), ("x-trace", "abc")],
    );
    let r = send(&app, call).await;
    assert_eq!(
        r["result"]["structuredContent"],
        json!({"region": "eu", "city": "Oslo", "progress": 7, "trace": "abc"}),
        "{r}"
    );

    let call = modern(
        "tools/call",
        Some("weather"),
        json!({"name": "weather", "arguments": {"region": "eu", "city": ""}}),
        &[("mcp-param-region", "eu")],
    );
    let r = send(&app, call).await;
    assert_eq!(r["result"]["isError"], true, "{r}");

    let legacy = http::Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(Body::from(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                   "params": {"name": "weather", "arguments": {"region": "eu", "city": "Rome"}}})
            .to_string(),
        ))
        .unwrap();
    let r = send(&app, legacy).await;
    assert!(r["result"].get("structuredContent").is_none(), "legacy keeps the 1.x shape: {r}");
    assert!(r["result"]["content"][0]["text"].as_str().unwrap().contains("Rome"), "{r}");
}
