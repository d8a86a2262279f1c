struct Svc;

#[mcp::service(name = "svc")]
impl Svc {
    /// Searches.
    #[tool(timout = "30s")]
    pub async fn search(&self, q: String) -> String {
        q
    }
}

fn main() {}
