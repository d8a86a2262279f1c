struct Svc;

#[mcp::service(name = "svc")]
impl Svc {
    /// Searches.
    #[tool(layer = 42)]
    pub async fn search(&self, q: String) -> String {
        q
    }
}

fn main() {}
