//! The LLM tool-calling loop end to end, without a network: the weather MCP server and a
//! scripted OpenAI-compatible model in-process (`examples/common/llm_loop.rs`, which the
//! `llm_loop` example runs too), and the example binary itself.

mod interop_support;

use std::time::Duration;

use interop_support::TestServer;
use mcp::client::typed::TypedClient as _;
use mcp_examples::llm_loop::{self, Script};
use mcp_examples::weather::{WeatherService, WeatherServiceClient};
use serde_json::Value;

async fn weather() -> TestServer {
    TestServer::start(|_| mcp::Server::builder(WeatherService)).await
}

async fn model(tool: &str, arguments: &str) -> String {
    let script = Script {
        tool: tool.to_owned(),
        arguments: arguments.to_owned(),
    };
    let addr = llm_loop::scripted_model("127.0.0.1:0", script)
        .await
        .unwrap();
    format!("http://{addr}/v1")
}

#[tokio::test]
async fn the_model_gets_the_tool_result_and_answers_with_it() {
    let server = weather().await;
    let client = mcp::client::connect(&server.url).await.unwrap();
    // The same call made directly, as the server answers it.
    let direct = WeatherServiceClient::from_client(client.clone())
        .get_current_weather("Lisbon")
        .raw()
        .await
        .unwrap();
    let base = model("get_current_weather", r#"{"city":"Lisbon"}"#).await;
    let (answer, conversation) = llm_loop::ask(&client, &base, None, "scripted", "Weather?")
        .await
        .unwrap();
    // user, assistant (tool call), tool, assistant (answer)
    assert_eq!(conversation.len(), 4, "{conversation:#?}");
    assert_eq!(
        conversation[1]["tool_calls"][0]["function"]["name"],
        "get_current_weather"
    );
    assert_eq!(conversation[2]["role"], "tool");
    assert_eq!(conversation[2]["tool_call_id"], "call_1");
    // The model saw the tool's text content, exactly what a direct call returns.
    let text = conversation[2]["content"].as_str().unwrap();
    assert_eq!(text, direct.joined_text());
    let reported: Value = serde_json::from_str(text).unwrap();
    assert_eq!(reported["location"], "Lisbon");
    assert_eq!(answer, format!("According to the tool: {text}"));
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_tool_error_reaches_the_model_as_an_error_text() {
    let server = weather().await;
    let client = mcp::client::connect(&server.url).await.unwrap();
    let base = model("get_weather_forecast", r#"{"location":"Oslo","days":9}"#).await;
    let (answer, conversation) = llm_loop::ask(&client, &base, None, "scripted", "Forecast?")
        .await
        .unwrap();
    assert_eq!(
        conversation[2]["content"],
        "Error: days must be between 1 and 7, not 9"
    );
    assert!(answer.contains("days must be between 1 and 7"), "{answer}");
}

#[tokio::test]
async fn malformed_model_arguments_are_reported_to_the_model() {
    let server = weather().await;
    let client = mcp::client::connect(&server.url).await.unwrap();
    let base = model("get_current_weather", "{not json").await;
    let (_, conversation) = llm_loop::ask(&client, &base, None, "scripted", "Weather?")
        .await
        .unwrap();
    let content = conversation[2]["content"].as_str().unwrap();
    assert!(content.starts_with("Error: invalid arguments"), "{content}");
}

#[tokio::test]
async fn the_definitions_offered_are_the_servers_tools() {
    let server = weather().await;
    let client = mcp::client::connect(&server.url).await.unwrap();
    let listed = client.list_tools().await.unwrap();
    let tools = client.function_tools().await.unwrap();
    let chat = tools.chat_completions();
    assert_eq!(chat.len(), listed.tools.len());
    for (definition, tool) in chat.iter().zip(&listed.tools) {
        assert_eq!(definition["type"], "function");
        assert_eq!(definition["function"]["name"], tool.name.as_str());
        assert_eq!(definition["function"]["parameters"]["type"], "object");
        assert_eq!(
            definition["function"]["parameters"]["properties"],
            tool.input_schema["properties"]
        );
    }
    let responses = tools.responses();
    assert_eq!(responses[0]["name"], listed.tools[0].name.as_str());
    assert_eq!(responses[0]["strict"], false);
    // A model asking for a function the server does not offer is refused by the scripted
    // endpoint, and the loop reports it.
    let base = model("no_such_tool", "{}").await;
    let err = llm_loop::ask(&client, &base, None, "scripted", "?")
        .await
        .unwrap_err();
    assert!(err.to_string().contains("400"), "{err}");
}

/// Runs the `llm_loop` example binary (the weather server in-process, the scripted model)
/// and checks its answer.
#[tokio::test]
async fn the_llm_loop_example_prints_the_answer() {
    let binary = interop_support::example_binary("llm_loop");
    let out = interop_support::run(
        &binary,
        &["What is the weather in Porto?"],
        &interop_support::repo_root(),
        Duration::from_secs(60),
    )
    .await;
    assert!(out.success(), "{}", out.report());
    assert!(
        out.stdout.starts_with("According to the tool: {"),
        "{}",
        out.report()
    );
    assert!(
        out.stdout.contains("\"location\":\"Lisbon\""),
        "{}",
        out.report()
    );
}
