// The same rule for an `#[mcp::client]` trait: every parameter after `&self` is an argument
// the client sends, so its type must be `Serialize`.
use serde::Deserialize;

#[derive(Deserialize, schemars::JsonSchema)]
pub struct Query {
    pub text: String,
}

#[mcp::client]
pub trait Search {
    /// Searches.
    fn search(&self, query: Query) -> String;
}

fn main() {}
