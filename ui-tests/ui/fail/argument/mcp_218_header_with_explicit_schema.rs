struct Weather;

#[mcp::service(name = "weather")]
impl Weather {
    #[tool(schema = r#"{"type": "object", "properties": {"region": {"type": "string"}}}"#)]
    pub fn forecast(&self, #[argument(header = "Region")] region: String) -> String {
        region
    }
}

fn main() {}
