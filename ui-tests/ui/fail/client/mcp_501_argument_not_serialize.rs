// The typed client sends every argument as JSON: a type the server can read
// (`Deserialize`) but the client cannot write (`Serialize`) is MCP_501, at the type.
use serde::Deserialize;

#[derive(Deserialize, schemars::JsonSchema)]
pub struct Query {
    pub text: String,
}

struct Search;

#[mcp::service(name = "search", client)]
impl Search {
    /// Searches.
    pub fn search(&self, query: Query) -> String {
        query.text
    }
}

fn main() {}
