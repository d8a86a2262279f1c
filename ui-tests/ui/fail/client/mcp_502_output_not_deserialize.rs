// The typed client decodes a tool's output as its declared type: a type the server can
// write (`Serialize`) but the client cannot read (`Deserialize`) is MCP_502, at the type.
use serde::Serialize;

#[derive(Serialize, schemars::JsonSchema)]
pub struct Sum {
    pub sum: i64,
}

struct Calculator;

#[mcp::service(name = "calculator", client)]
impl Calculator {
    /// Adds.
    pub fn add(&self, a: i64, b: i64) -> Sum {
        Sum { sum: a + b }
    }
}

fn main() {}
