struct Weather;

#[mcp::service(name = "weather")]
impl Weather {
    pub fn forecast(&self) -> String {
        String::new()
    }

    #[tool(name = "forecast")]
    pub fn forecast_v2(&self) -> String {
        String::new()
    }
}

fn main() {}
