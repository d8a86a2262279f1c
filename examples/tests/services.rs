//! The basic-service examples, in-process: generated schemas (golden JSON), structured output
//! per era, header arguments, error mapping; and the identity and settings the advanced
//! examples give themselves.

use mcp::testing::TestClient;
use mcp_examples::calculator::Calculator;
use mcp_examples::weather::WeatherService;
use serde_json::{Value, json};

fn weather() -> TestClient {
    TestClient::new(
        mcp::Server::builder(WeatherService)
            .build()
            .expect("valid service"),
    )
}

fn calculator() -> TestClient {
    TestClient::new(
        mcp::Server::builder(Calculator)
            .build()
            .expect("valid service"),
    )
}

fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("no tool {name} in {list}"))
}

#[tokio::test]
async fn weather_schemas_are_generated_from_the_signatures() {
    let c = weather();
    let r = c.modern("tools/list", json!({})).await;
    let list = r.result();
    assert_eq!(list["ttlMs"], 60000);
    assert_eq!(list["cacheScope"], "public");
    let names: Vec<_> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(
        names,
        [
            "get_current_weather",
            "get_weather_forecast",
            "regional_weather"
        ]
    );

    let current = tool(list, "get_current_weather");
    assert_eq!(
        current["description"],
        "Get current weather conditions for a location."
    );
    assert_eq!(
        current["inputSchema"],
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city to report on"}},
            "required": ["city"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        current["outputSchema"],
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Weather",
            "description": "Current conditions.",
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "Where."},
                "temperature": {"type": "number", "description": "Degrees Celsius."},
                "condition": {"type": "string", "description": "Sky conditions."}
            },
            "required": ["location", "temperature", "condition"]
        })
    );
    let forecast = tool(list, "get_weather_forecast");
    assert_eq!(
        forecast["inputSchema"]["properties"]["days"],
        json!({
            "type": "integer", "minimum": 0, "maximum": 255,
            "description": "Number of days to include in the forecast (1 to 7)"
        })
    );
    assert_eq!(
        forecast["inputSchema"]["required"],
        json!(["location", "days"])
    );
    assert!(
        forecast["outputSchema"]["$defs"]["DayForecast"].is_object(),
        "{forecast}"
    );

    let regional = tool(list, "regional_weather");
    assert_eq!(
        regional["inputSchema"]["properties"]["region"]["x-mcp-header"],
        "Region"
    );
    assert_eq!(
        regional["annotations"],
        json!({"readOnlyHint": true, "openWorldHint": false})
    );
}

#[tokio::test]
async fn legacy_clients_get_the_1x_shapes() {
    let c = weather();
    let r = c.legacy("tools/list", json!({})).await;
    for t in r.result()["tools"].as_array().unwrap() {
        assert!(t.get("outputSchema").is_none(), "{t}");
    }
    let r = c
        .legacy(
            "tools/call",
            json!({"name": "get_current_weather", "arguments": {"city": "Lisbon"}}),
        )
        .await;
    let result = r.result();
    assert!(result.get("structuredContent").is_none());
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text["location"], "Lisbon");
}

#[tokio::test]
async fn modern_calls_carry_structured_content() {
    let c = weather();
    let r = c
        .modern(
            "tools/call",
            json!({"name": "get_weather_forecast", "arguments": {"location": "Oslo", "days": 2}}),
        )
        .await;
    let result = r.result();
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["structuredContent"]["days"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, result["structuredContent"]);
}

#[tokio::test]
async fn tool_errors_are_results_and_binding_errors_are_32602() {
    let c = weather();
    let r = c
        .modern(
            "tools/call",
            json!({"name": "get_weather_forecast", "arguments": {"location": "Oslo", "days": 9}}),
        )
        .await;
    assert_eq!(r.result()["isError"], true);
    assert_eq!(
        r.result()["content"][0]["text"],
        "days must be between 1 and 7, not 9"
    );
    assert!(r.result().get("structuredContent").is_none());
    for (args, message) in [
        (
            json!({"location": "Oslo"}),
            "Missing required argument `days`",
        ),
        (
            json!({"location": "Oslo", "days": "two"}),
            "Invalid argument `days`: invalid type: string \"two\", expected u8",
        ),
        (
            json!({"location": "Oslo", "days": 300}),
            "Invalid argument `days`",
        ),
        (
            json!({"location": "Oslo", "days": 1.5}),
            "Invalid argument `days`",
        ),
        (
            json!({"location": "Oslo", "days": 1, "extra": true}),
            "Unknown argument `extra` for tool `get_weather_forecast`",
        ),
    ] {
        let r = c
            .modern(
                "tools/call",
                json!({"name": "get_weather_forecast", "arguments": args}),
            )
            .await;
        assert_eq!(r.error_code(), Some(-32602), "{}", r.raw);
        assert!(
            r.body["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with(message),
            "{}",
            r.raw
        );
        let r = c
            .legacy(
                "tools/call",
                json!({"name": "get_weather_forecast", "arguments": args}),
            )
            .await;
        assert_eq!(r.error_code(), Some(-32602), "{}", r.raw);
    }
    let r = c
        .modern("tools/call", json!({"name": "no_such_tool"}))
        .await;
    assert_eq!(r.error_code(), Some(-32602));
    assert_eq!(r.body["error"]["message"], "Unknown tool: no_such_tool");
    let r = c.modern("tools/list", json!({"cursor": "page-2"})).await;
    assert_eq!(r.error_code(), Some(-32602));
}

#[tokio::test]
async fn header_arguments_are_checked_against_mcp_param_headers() {
    let c = weather();
    let call =
        json!({"name": "regional_weather", "arguments": {"region": "São Paulo", "city": "Santos"}});
    let r = c.modern("tools/call", call.clone()).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.error_code(), Some(-32020));
    assert_eq!(
        r.body["error"]["data"]["mismatch"]["header"],
        "Mcp-Param-Region"
    );
    let r = c
        .modern_with_headers(
            "tools/call",
            call.clone(),
            &[("mcp-param-region", "Lisbon")],
        )
        .await;
    assert_eq!((r.status.as_u16(), r.error_code()), (400, Some(-32020)));
    let r = c
        .modern_with_headers(
            "tools/call",
            call.clone(),
            &[("mcp-param-region", "=?base64?U8OjbyBQYXVsbw==?=")],
        )
        .await;
    assert_eq!(
        r.result()["structuredContent"]["location"],
        "São Paulo/Santos"
    );
    // Legacy requests carry no parameter headers.
    let r = c.legacy("tools/call", call).await;
    assert_eq!(r.result()["content"][0]["type"], "text");
}

#[tokio::test]
async fn calculator_scalars_and_policies() {
    let c = calculator();
    let list = c.modern("tools/list", json!({})).await;
    let list = list.result();
    assert_eq!(
        tool(list, "add")["outputSchema"],
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "int64", "type": "integer"})
    );
    assert_eq!(
        tool(list, "add")["inputSchema"]["required"],
        json!(["left", "right"])
    );
    assert!(
        tool(list, "add")["inputSchema"]["properties"]
            .get("meta")
            .is_none(),
        "runtime parameters are not arguments"
    );
    assert_eq!(
        tool(list, "sum")["outputSchema"],
        json!({"type": "number", "description": "The sum of the values"})
    );
    assert!(tool(list, "describe").get("outputSchema").is_none());

    let r = c.modern("tools/call", json!({"name": "add", "arguments": {"left": 2, "right": 3}, "_meta": {"requestId": "r1"}})).await;
    assert_eq!(r.result()["structuredContent"], 5);
    assert_eq!(
        r.result()["content"],
        json!([{"type": "text", "text": "5"}])
    );
    let r = c
        .modern(
            "tools/call",
            json!({"name": "add", "arguments": {"left": i64::MAX, "right": 1}}),
        )
        .await;
    assert_eq!(r.result()["isError"], true);
    let r = c
        .modern(
            "tools/call",
            json!({"name": "divide", "arguments": {"dividend": 1, "divisor": 0}}),
        )
        .await;
    assert_eq!(r.result()["content"][0]["text"], "cannot divide by zero");
    let r = c
        .modern(
            "tools/call",
            json!({"name": "describe", "arguments": {"value": -4}}),
        )
        .await;
    assert_eq!(
        r.result()["content"],
        json!([{"type": "text", "text": "minus 4"}])
    );
    assert!(r.result().get("structuredContent").is_none());
    let r = c
        .modern(
            "tools/call",
            json!({"name": "sum", "arguments": {"values": [1.5, 2]}}),
        )
        .await;
    assert_eq!(r.result()["structuredContent"], 3.5);
    let r = c.legacy("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}})).await;
    assert_eq!(
        r.result()["serverInfo"],
        json!({"name": "calculator", "version": "2.0.0"})
    );
}

#[test]
fn constant_session_limits_and_state_ttl_come_from_the_attribute() {
    let server = mcp::Server::builder(mcp_examples::shopping_cart::ShoppingCart)
        .build()
        .unwrap();
    let limits = server.session_limits();
    assert_eq!(limits.idle_timeout(), std::time::Duration::from_secs(900));
    assert_eq!((limits.max_per_owner(), limits.max_anonymous()), (20, 2000));
    assert_eq!(server.session_mode(), mcp::SessionMode::Stateful);
    assert_eq!(server.protocol_mode(), mcp::ProtocolMode::Legacy);
}

#[tokio::test]
async fn advanced_examples_name_and_configure_themselves() {
    let echo = mcp_examples::echo::server().build().expect("valid service");
    assert_eq!(echo.info().name, "echo");
    assert_eq!(echo.info().version, env!("CARGO_PKG_VERSION"));
    let c = TestClient::new(echo);
    let discover = c.modern("server/discover", json!({})).await;
    assert_eq!(discover.result()["instructions"], "Echoes text back.");
    let list = c.modern("tools/list", json!({})).await;
    assert_eq!(
        list.result()["ttlMs"],
        60000,
        "from `AdvancedService::configure`"
    );
    let crypto = mcp_examples::crypto::server()
        .build()
        .expect("valid service");
    assert_eq!(crypto.info().name, "crypto");
}
