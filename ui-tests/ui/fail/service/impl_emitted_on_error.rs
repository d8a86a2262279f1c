// On error the macro still emits the impl block: its methods exist, so the only error is
// the real one (MCP_216), with no follow-on "no method named ..." errors.
struct Weather;

#[mcp::service(name = "weather")]
impl Weather {
    pub fn forecast(&self, #[argument(header = "Region Name")] region: String) -> String {
        self.format(&region)
    }

    fn format(&self, region: &str) -> String {
        format!("sunny in {region}")
    }
}

fn main() {
    let weather = Weather;
    let _: String = weather.forecast("eu".to_owned());
    let _: String = weather.format("eu");
    let _: mcp::ServerBuilder = mcp::Server::builder(Weather);
}
