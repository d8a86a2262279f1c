struct Svc;

#[mcp::service(name = "svc")]
impl Svc {
    /// A greeting.
    #[prompt(rate_limit = "10 per minute")]
    fn greet(&self, name: String) -> String {
        format!("Greet {name}")
    }
}

fn main() {}
