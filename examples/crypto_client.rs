//! A client for the crypto example server: lists its tools page by page and all at once,
//! then hashes, encodes, decodes and measures a text.
//!
//! ```text
//! cargo run --example crypto                     # in one terminal
//! cargo run --example crypto_client [URL]        # in another
//! ```
//!
//! The URL comes from the first argument, else `MCP_URL`, else `http://127.0.0.1:9090/mcp`.

use mcp::Implementation;
use mcp::client::{CacheMode, Client, ClientConfig};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The arguments of `hash_text`.
#[derive(Serialize)]
struct HashText<'a> {
    text: &'a str,
    algorithm: &'a str,
}

/// The arguments of `encode_base64` and `text_stats`.
#[derive(Serialize)]
struct Text<'a> {
    text: &'a str,
}

/// The structured result of `hash_text`.
#[derive(Deserialize)]
struct Digest {
    digest: String,
}

/// Where the crypto example listens by default.
const DEFAULT_URL: &str = "http://127.0.0.1:9090/mcp";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    mcp_examples::init_tracing();
    let url = std::env::args()
        .nth(1)
        .or_else(|| std::env::var("MCP_URL").ok())
        .unwrap_or_else(|| DEFAULT_URL.to_owned());
    let client = Client::new(&url, ClientConfig::new())?;
    let info = client
        .connect(Implementation::new(
            "crypto-client",
            env!("CARGO_PKG_VERSION"),
        ))
        .await?;
    let server = info
        .server_info()
        .map(|s| format!("{} {}", s.name, s.version))
        .unwrap_or_else(|| "an unnamed server".into());
    println!(
        "connected to {server} over MCP {} ({:?})",
        info.protocol_version(),
        info.era()
    );

    // Page by page, following the cursors.
    let mut cursor: Option<String> = None;
    for page_number in 1.. {
        let page = client
            .list_tools_page(cursor.as_deref(), CacheMode::Normal)
            .await?;
        let names: Vec<_> = page.tools.iter().map(|t| t.name.as_str()).collect();
        println!("page {page_number}: {}", names.join(", "));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    // All pages at once (fresh pages come from the cache).
    let all = client.list_tools().await?;
    println!("{} tools in all", all.tools.len());
    for tool in &all.tools {
        println!(
            "  {:<14} {}",
            tool.name,
            tool.description.as_deref().unwrap_or_default()
        );
    }

    let text = "The quick brown fox jumps over the lazy dog";
    let hashed = client
        .call("hash_text")
        .arguments(&HashText {
            text,
            algorithm: "sha256",
        })?
        .await?;
    println!("hash_text     -> {}", hashed.structured::<Digest>()?.digest);
    let encoded = client
        .call("encode_base64")
        .arguments(&Text { text })?
        .await?;
    let encoded = encoded.joined_text();
    println!("encode_base64 -> {encoded}");
    let decoded = client
        .call("decode_base64")
        .arguments(json!({"data": encoded}))?
        .await?;
    println!("decode_base64 -> {}", decoded.joined_text());
    let stats = client.call("text_stats").arguments(&Text { text })?.await?;
    println!(
        "text_stats    -> {}",
        stats.structured::<serde_json::Value>()?
    );
    // A tool-level failure is data, not an error.
    let failed = client
        .call("decode_base64")
        .arguments(json!({"data": "%%%"}))?
        .await?;
    println!(
        "decode_base64 -> is_error={}: {}",
        failed.is_error(),
        failed.joined_text()
    );

    client.close().await?;
    Ok(())
}
