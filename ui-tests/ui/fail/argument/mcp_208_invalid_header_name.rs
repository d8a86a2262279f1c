struct Api;

#[mcp::service(name = "api")]
impl Api {
    pub fn trace(&self, #[http_header("X Trace Id")] trace: String) -> String {
        trace
    }
}

fn main() {}
