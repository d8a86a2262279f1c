struct Weather;

#[mcp::service(name = "weather")]
impl Weather {
    pub fn forecast(
        &self,
        #[argument(header = "Region")] region: String,
        #[argument(header = "region")] zone: String,
    ) -> String {
        format!("{region}/{zone}")
    }
}

fn main() {}
