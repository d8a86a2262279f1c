struct Accounts;

#[mcp::service(name = "accounts")]
impl Accounts {
    #[tool(structured_output = false, output_schema = r#"{"type": "array", "items": {"type": "number"}}"#)]
    pub fn balances(&self) -> Vec<f64> {
        vec![12.5, 30.0]
    }
}

fn main() {}
