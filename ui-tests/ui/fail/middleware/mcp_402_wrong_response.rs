//! A layer whose service answers `String`, not `mcp::McpResponse`: rustc reports the
//! mismatch of the service's `Response` (E0271), not the `MCP_402` message.
use std::task::{Context, Poll};

use mcp::McpRequest;
use mcp::middleware::Next;

#[derive(Clone)]
struct Echo(Next);

impl tower::Service<McpRequest> for Echo {
    type Response = String;
    type Error = std::convert::Infallible;
    type Future = std::future::Ready<Result<String, Self::Error>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        std::future::ready(Ok(request.method().to_owned()))
    }
}

struct Svc;

#[mcp::service(name = "svc")]
impl Svc {
    /// Searches.
    #[tool(layer = tower::layer::layer_fn(Echo))]
    pub async fn search(&self, q: String) -> String {
        q
    }
}

fn main() {}
