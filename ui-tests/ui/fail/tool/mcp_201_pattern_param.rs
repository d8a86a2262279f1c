struct Calculator;

#[mcp::service(name = "calculator")]
impl Calculator {
    pub fn add(&self, (left, right): (i64, i64)) -> i64 {
        left + right
    }
}

fn main() {}
