struct Weather;

#[mcp::service(name = "weather")]
impl Weather {
    pub fn forecast(&self, #[argument(header = "Region Name")] region: String) -> String {
        region
    }
}

fn main() {}
