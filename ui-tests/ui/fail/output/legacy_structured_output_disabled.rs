struct Weather;

#[mcp::service(name = "weather")]
impl Weather {
    #[tool(structured_output = false, legacy_structured_output = true)]
    pub fn celsius(&self) -> i64 {
        21
    }
}

fn main() {}
