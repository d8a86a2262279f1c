struct App;

#[mcp::service(name = "app")]
impl App {
    /// The configuration.
    #[resource(uri = "config://app")]
    fn config(&self) -> String {
        "{}".into()
    }

    /// The configuration, again.
    #[resource(uri = "config://app")]
    fn config_again(&self) -> String {
        "{}".into()
    }
}

fn main() {}
