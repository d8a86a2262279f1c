struct Api;

#[mcp::service(name = "api")]
impl Api {
    pub fn limit(&self, #[http_header("X-Rate-Limit")] limit: Option<u32>) -> u32 {
        limit.unwrap_or(100)
    }
}

fn main() {}
