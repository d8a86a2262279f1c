struct Weather;

#[mcp::service(name = "weather")]
impl Weather {
    pub fn forecast(&self, #[argument(header = "Region")] region: Option<String>) -> String {
        region.unwrap_or_default()
    }
}

fn main() {}
