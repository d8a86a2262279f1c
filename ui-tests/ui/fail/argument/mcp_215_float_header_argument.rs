struct Weather;

#[mcp::service(name = "weather")]
impl Weather {
    pub fn at(&self, #[argument(header = "Latitude")] latitude: f64) -> String {
        latitude.to_string()
    }
}

fn main() {}
