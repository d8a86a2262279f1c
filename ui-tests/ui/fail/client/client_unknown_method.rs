// The generated client has a method per tool and no other: calling a tool the service
// does not have is a plain "no method" error.
struct Calculator;

#[mcp::service(name = "calculator", client)]
impl Calculator {
    /// Adds.
    pub fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }
}

async fn call(calculator: CalculatorClient) {
    let _ = calculator.subtract(2, 1).await;
}

fn main() {
    let _ = call;
}
