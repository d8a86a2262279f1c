struct Accounts;

#[mcp::service(name = "accounts")]
impl Accounts {
    #[tool(schema = r#"{"type": "array", "items": {"type": "string"}}"#)]
    pub fn balances(&self, account_id: String) -> Vec<f64> {
        let _ = account_id;
        vec![12.5, 30.0]
    }
}

fn main() {}
