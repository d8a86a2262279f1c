struct Reports;

#[mcp::service(name = "reports", version = "1.0.0")]
impl Reports {
    /// Writes a long report.
    #[tool(task = "always")]
    pub async fn generate(&self, topic: String) -> String {
        topic
    }

    /// The value's case matters.
    #[tool(task = "Optional")]
    pub async fn summarize(&self, topic: String) -> String {
        topic
    }
}

fn main() {}
