// An argument type named like a runtime type: the typed client would leave `context` out,
// but it is an argument the server requires.
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub struct Context {
    pub lines: u32,
}

struct Diff;

#[mcp::service(name = "diff", client)]
impl Diff {
    /// Diffs two files.
    pub fn diff(&self, left: String, right: String, context: Context) -> String {
        format!("{left} {right} {}", context.lines)
    }
}

fn main() {}
