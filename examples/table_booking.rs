//! Elicitation with forms generated from Rust types: `cargo run --example table_booking`.

#[tokio::main]
async fn main() -> Result<(), mcp::Error> {
    mcp_examples::serve(mcp_examples::table_booking::Restaurant::default()).await
}
