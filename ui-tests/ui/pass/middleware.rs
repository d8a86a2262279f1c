//! Every middleware key on tools, a prompt, a static resource and a resource template; the
//! layers of a method under a `#[cfg]` exist only where the method does (`build` checks that
//! every tool named by a layer exists), and a `tower::ServiceBuilder` stack is a layer.
#![deny(warnings)]

use std::time::Duration;

use mcp::middleware::{AccessLogLayer, ConcurrencyLimitLayer};
use tower::ServiceBuilder;

struct Svc;

#[mcp::service(name = "layered")]
impl Svc {
    /// Searches.
    #[tool(
        rate_limit = "10/min",
        concurrency_per_caller = 2,
        concurrency = 8,
        layer = AccessLogLayer::new(),
        layer = tower::timeout::TimeoutLayer::new(Duration::from_secs(1)),
        timeout = "30s"
    )]
    pub async fn search(&self, q: String) -> String {
        q
    }

    /// Renders, behind a tower stack.
    #[mcp::tool(
        name = "render",
        layer = ServiceBuilder::new()
            .layer(ConcurrencyLimitLayer::total(1))
            .layer(tower::load_shed::LoadShedLayer::new()),
        timeout = "1m 30s"
    )]
    pub fn render_page(&self) -> String {
        "done".into()
    }

    /// Never built: its layers must not be either.
    #[cfg(any())]
    #[tool(timeout = "1s", rate_limit = "1/s")]
    pub fn never(&self) -> String {
        String::new()
    }

    /// A greeting.
    #[prompt(rate_limit = "100/hour", concurrency = 4, timeout = "500ms")]
    fn greet(&self, name: String) -> String {
        format!("Greet {name}")
    }

    /// The configuration.
    #[resource(uri = "config://app", timeout = "2s", concurrency_per_caller = 1, layer = AccessLogLayer::new())]
    fn config(&self) -> String {
        "{}".into()
    }

    /// A note.
    #[resource(template = "notes://{name}", rate_limit = "5 / s", timeout = "250ms")]
    fn note(&self, name: String) -> String {
        name
    }
}

fn main() {
    let server = mcp::Server::builder(Svc).build().unwrap();
    let _ = server;
}
