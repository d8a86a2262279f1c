//! `#[tool(task = ...)]` with every accepted value, on sync and async tools, with runtime
//! parameters; the generated service reports each tool's task support.
#![deny(warnings)]

struct Jobs;

#[mcp::service(name = "jobs", version = "1.0.0")]
impl Jobs {
    /// Optional.
    #[tool(task = "optional")]
    pub async fn report(&self, ctx: mcp::Context, topic: String) -> String {
        ctx.progress(1.0, 1.0, None).await;
        topic
    }

    /// Required, sync.
    #[tool(task = "required", name = "export_all")]
    pub fn export(&self) -> Result<String, mcp::ToolError> {
        Ok("done".into())
    }

    /// Forbidden, spelled out.
    #[tool(task = "forbidden")]
    pub fn ping(&self) -> String {
        "pong".into()
    }
}

struct Plain;

#[mcp::service(name = "plain", version = "1.0.0")]
impl Plain {
    /// No task key.
    pub fn ping(&self) -> String {
        "pong".into()
    }
}

fn main() {
    use mcp::__private::ServiceHandler as _;
    assert_eq!(Jobs.task_support("report"), mcp::TaskSupport::Optional);
    assert_eq!(Jobs.task_support("export_all"), mcp::TaskSupport::Required);
    assert_eq!(Jobs.task_support("ping"), mcp::TaskSupport::Forbidden);
    assert_eq!(Jobs.task_support("unknown"), mcp::TaskSupport::Forbidden);
    assert!(Jobs.serves_tasks());
    assert!(!Plain.serves_tasks());
    mcp::Server::builder(Jobs).build().unwrap();
}
