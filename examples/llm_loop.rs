//! An LLM tool-calling loop over an MCP server's tools:
//! `cargo run --example llm_loop -- [QUESTION]`.
//!
//! The MCP server is `MCP_URL` (default: the weather example, served in-process on a free
//! port). The model is an OpenAI-compatible Chat Completions endpoint: `OPENAI_BASE_URL`
//! (e.g. `https://api.openai.com/v1`) with `OPENAI_API_KEY` and `OPENAI_MODEL`; without
//! `OPENAI_BASE_URL`, a local scripted model that calls `get_current_weather` for Lisbon and
//! then answers with the result, so the loop runs without a network. Prints each turn to
//! stderr and the final answer on stdout.

use mcp_examples::llm_loop::{self, Script};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    mcp_examples::init_tracing();
    let question = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "What is the weather in Lisbon right now?".to_owned());
    let mcp_url = match std::env::var("MCP_URL") {
        Ok(url) => url,
        Err(_) => {
            let server = mcp::Server::builder(mcp_examples::weather::WeatherService).build()?;
            let listener = mcp::HttpServer::bind("127.0.0.1:0").await?;
            let url = format!("http://{}/mcp", listener.local_addr()?);
            let app = mcp::transport::http::router("/mcp", server);
            tokio::spawn(async move { listener.serve(app.into_make_service()).await });
            url
        }
    };
    let (base_url, api_key, model) = match std::env::var("OPENAI_BASE_URL") {
        Ok(base) => (
            base,
            std::env::var("OPENAI_API_KEY").ok(),
            std::env::var("OPENAI_MODEL").unwrap_or_else(|_| "gpt-4o-mini".to_owned()),
        ),
        Err(_) => {
            let script = Script {
                tool: "get_current_weather".to_owned(),
                arguments: r#"{"city":"Lisbon"}"#.to_owned(),
            };
            let addr = llm_loop::scripted_model("127.0.0.1:0", script).await?;
            (format!("http://{addr}/v1"), None, "scripted".to_owned())
        }
    };
    let client = mcp::client::connect(&mcp_url).await?;
    let (answer, conversation) =
        llm_loop::ask(&client, &base_url, api_key.as_deref(), &model, &question).await?;
    for message in &conversation {
        eprintln!("{message}");
    }
    println!("{answer}");
    client.close().await?;
    Ok(())
}
