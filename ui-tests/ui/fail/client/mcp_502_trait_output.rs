// The same rule for an `#[mcp::client]` trait: the declared output type must be
// `Deserialize`.
use serde::Serialize;

#[derive(Serialize, schemars::JsonSchema)]
pub struct Issue {
    pub number: u64,
}

#[mcp::client]
pub trait Github {
    /// Opens an issue.
    async fn create_issue(&self, repo: String, title: String) -> Issue;
}

fn main() {}
