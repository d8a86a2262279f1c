//! The benchmark server of issue #17: one `add(a, b) -> {sum}` tool
//! ([`mcp_examples::bench::Add`]), served the way every example is: `cargo run --release
//! --example add`. `scripts/load.sh` and `scripts/instructions.sh` measure it against
//! `bare_axum`.

#[tokio::main]
async fn main() -> Result<(), mcp::Error> {
    mcp_examples::serve(mcp_examples::bench::server()).await
}
