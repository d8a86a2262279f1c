struct Weather;

/// A temperature scale: neither `FromStr` nor `serde::Deserialize`.
#[derive(Debug)]
enum Scale {
    Celsius,
    Fahrenheit,
}

#[mcp::service(name = "weather")]
impl Weather {
    /// Today's temperature in a city.
    #[resource(template = "weather://{city}/today/{scale}")]
    fn today(&self, city: String, scale: Scale) -> String {
        format!("{city}: 21 {scale:?}")
    }
}

fn main() {}
