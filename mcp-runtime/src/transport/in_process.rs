//! The in-process transport: a client and a server in one process, connected by a
//! [`pipe`] of whole JSON-RPC messages — no socket, no child process, no line framing —
//! with the semantics of stdio in both eras: one connection, its era pinned by its first
//! request, a legacy connection one session, server→client requests with ids,
//! `notifications/cancelled`, and no HTTP anywhere (tools see no headers).
//!
//! ```
//! struct Echo;
//!
//! #[mcp::service(name = "echo", version = "1.0.0")]
//! impl Echo {
//!     /// Echoes its input.
//!     pub fn echo(&self, text: String) -> String { text }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let server = mcp::Server::builder(Echo).build().unwrap();
//! let mut end = server.in_process();
//! end.send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#.into()).await.unwrap();
//! let answer = end.recv().await.unwrap();
//! assert!(answer.contains(r#""serverInfo":{"name":"echo""#));
//! # }
//! ```

pub use crate::base::pipe::{
    DEFAULT_PIPE_CAPACITY, PipeClosed, PipeEnd, PipeReceiver, PipeSender, pipe,
};

use super::stdio::output::Sink;
use super::stdio::{Input, StdioConfig, serve};
use crate::dispatch::Server;
use crate::error::Error;

impl Server {
    /// Serves MCP on one end of an in-process [`pipe`] until the other end is dropped (or
    /// stops reading), with stdio's limits ([`StdioConfig`]'s defaults: requests in flight,
    /// the largest message). Give the other end to
    /// `mcp::client::Client::in_process`, or speak JSON-RPC on it
    /// yourself.
    pub async fn serve_in_process(self, end: PipeEnd) -> Result<(), Error> {
        self.serve_in_process_with(end, StdioConfig::default())
            .await
    }

    /// [`serve_in_process`](Self::serve_in_process) with explicit limits.
    pub async fn serve_in_process_with(
        self,
        end: PipeEnd,
        config: StdioConfig,
    ) -> Result<(), Error> {
        config.validate()?;
        self.check_stdio()?;
        let (tx, rx) = end.split();
        let input = Input::Messages(rx, config.max_frame_bytes);
        serve(self, input, Sink::Pipe(tx), config).await
    }

    /// Starts serving on a new in-process pipe (on a task of the current tokio runtime)
    /// and returns the client's end.
    pub fn in_process(self) -> PipeEnd {
        let (client, server) = pipe(DEFAULT_PIPE_CAPACITY);
        tokio::spawn(async move {
            if let Err(e) = self.serve_in_process(server).await {
                tracing::warn!(error = %e, "the in-process transport stopped");
            }
        });
        client
    }
}
