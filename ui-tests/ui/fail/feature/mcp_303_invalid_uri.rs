struct App;

#[mcp::service(name = "app")]
impl App {
    /// The configuration.
    #[resource(uri = "app config")]
    fn config(&self) -> String {
        "{}".into()
    }
}

fn main() {}
