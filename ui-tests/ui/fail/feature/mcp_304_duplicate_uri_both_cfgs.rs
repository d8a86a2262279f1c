struct App;

#[mcp::service(name = "app")]
impl App {
    /// The configuration.
    #[cfg(not(any()))]
    #[resource(uri = "config://app")]
    fn config(&self) -> String {
        "{}".into()
    }

    /// The configuration, again.
    #[cfg(all())]
    #[resource(uri = "config://app")]
    fn config_again(&self) -> String {
        "{}".into()
    }

    /// Never compiled: not a duplicate.
    #[cfg(any())]
    #[resource(uri = "config://app")]
    fn config_never(&self) -> String {
        "{}".into()
    }
}

fn main() {}
