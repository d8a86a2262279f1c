// The client's output type is read from the return type as written: a `Result` behind an
// alias would be read as the whole `Result`, not its success type.
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub struct Sum {
    pub sum: i64,
}

type Res = Result<Sum, mcp::ToolError>;

struct Calculator;

#[mcp::service(name = "calculator", client)]
impl Calculator {
    /// Adds.
    pub fn add(&self, a: i64, b: i64) -> Res {
        Ok(Sum { sum: a + b })
    }
}

fn main() {}
