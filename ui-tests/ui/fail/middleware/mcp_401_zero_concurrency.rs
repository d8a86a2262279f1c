struct Svc;

#[mcp::service(name = "svc")]
impl Svc {
    /// The configuration.
    #[resource(uri = "config://app", concurrency = 0)]
    fn config(&self) -> String {
        "{}".into()
    }
}

fn main() {}
