// A generated method takes the tool's own parameter types (`impl Into<String>` for a
// `String`): a value of another type is a plain type error at the call.
struct Calculator;

#[mcp::service(name = "calculator", client)]
impl Calculator {
    /// Adds.
    pub fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }

    /// Greets.
    pub fn greet(&self, name: String) -> String {
        name
    }
}

async fn call(calculator: CalculatorClient) {
    let _ = calculator.greet(42).await;
    let _ = calculator.add(String::from("1"), 2).await;
}

fn main() {
    let _ = call;
}
