struct Svc;

#[mcp::service(name = "svc")]
impl Svc {
    /// Searches.
    #[tool(timeout = "0s")]
    pub async fn search(&self, q: String) -> String {
        q
    }
}

fn main() {}
