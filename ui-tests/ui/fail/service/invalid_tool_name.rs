struct Weather;

#[mcp::service(name = "weather")]
impl Weather {
    #[tool(name = "weather forecast")]
    pub fn forecast(&self) -> String {
        String::new()
    }
}

fn main() {}
