//! The fixtures of the official MCP conformance suite's server scenarios:
//! `cargo run --example conformance`, then `bash interop/run-conformance.sh <url> <dir>`.

#[tokio::main]
async fn main() -> Result<(), mcp::Error> {
    mcp_examples::serve_with(mcp_examples::conformance::server_at).await
}
