struct Reports;

#[mcp::service(name = "reports", version = "1.0.0")]
impl Reports {
    /// Writes a long report.
    #[tool(task = true)]
    pub async fn generate(&self, topic: String) -> String {
        topic
    }
}

fn main() {}
