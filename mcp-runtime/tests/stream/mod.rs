//! What the message-stream transports' tests (stdio, in-process, the client over both)
//! share: a service with logs and progress, slow and cancellable calls, a panic, an
//! elicitation, a session counter, a header argument and tools reading the HTTP request
//! those transports do not have; the elicitation round itself; and a bridge that serves a
//! server over stdio behind an in-process pipe end.
#![allow(dead_code)]

use std::future::Future;
use std::time::Duration;

use mcp::client::{Client, ClientConfig};
use mcp::protocol::Era;

use mcp::transport::in_process::{PipeEnd, pipe};
use mcp::{ElicitAction, InputRequired, ToolOutput};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

/// One elicitation round: asks to confirm (`Confirm`) on the first round, then answers
/// `confirmed <ok>` or `declined`.
pub fn confirm_round(context: &mcp::Context) -> Result<ToolOutput<String>, mcp::ToolError> {
    match context.elicit_result("c") {
        None => Ok(InputRequired::new()
            .elicit("c", mcp::elicit_form("Sure?", mcp::form_of::<Confirm>()))
            .into()),
        Some(r) if r.action == ElicitAction::Accept => {
            let ok = context
                .accepted_content::<Confirm>("c")
                .is_some_and(|c| c.ok);
            Ok(ToolOutput::Done(format!("confirmed {ok}")))
        }
        Some(_) => Ok(ToolOutput::Done("declined".into())),
    }
}

/// Calls `tool` with `arguments` (one round trip of the call builder).
pub async fn call(
    client: &Client,
    tool: &str,
    arguments: serde_json::Value,
) -> Result<mcp::protocol::CallToolResult, mcp::client::ClientError> {
    client.call(tool).arguments(arguments)?.send().await
}

/// The transports a suite runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    Http,
    Stdio,
    InProcess,
}

pub const WIRES: [Wire; 3] = [Wire::Http, Wire::Stdio, Wire::InProcess];
pub const ERAS: [Era; 2] = [Era::Modern, Era::Legacy];

/// A client of `server` over `wire` with `config` (its protocol mode picks `era`),
/// connected, its era checked.
pub async fn connect(wire: Wire, era: Era, server: mcp::Server, config: ClientConfig) -> Client {
    let mode = match era {
        Era::Modern => mcp::client::ProtocolMode::Modern,
        Era::Legacy => mcp::client::ProtocolMode::Legacy,
    };
    let config = config.protocol_mode(mode);
    let client = match wire {
        Wire::Http => {
            let listener = mcp::HttpServer::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let app = mcp::transport::http::router("/mcp", server);
            tokio::spawn(async move { listener.serve(app.into_make_service()).await });
            Client::new(format!("http://{addr}/mcp"), config).unwrap()
        }
        Wire::Stdio => Client::in_process(stdio_bridge(server), config).unwrap(),
        Wire::InProcess => Client::in_process(server.in_process(), config).unwrap(),
    };
    let info = client
        .connect(mcp::Implementation::new("suite-client", "1.0.0"))
        .await
        .unwrap_or_else(|e| panic!("{wire:?} {era:?}: connect: {e}"));
    assert_eq!(info.era(), era, "{wire:?}");
    client
}

/// Runs `test` for every transport and era, each bounded in time.
pub async fn every<F, Fut>(test: F)
where
    F: Fn(Wire, Era) -> Fut,
    Fut: Future<Output = ()>,
{
    for wire in WIRES {
        for era in ERAS {
            tokio::time::timeout(Duration::from_secs(20), test(wire, era))
                .await
                .unwrap_or_else(|_| panic!("{wire:?} {era:?}: no outcome within 20 s"));
        }
    }
}

/// The client's end of a pipe whose messages travel as lines through `server`'s stdio
/// transport (`serve_transport` over an in-memory duplex): the server side is stdio's
/// framing, reader and writer as they serve a child process's stdin and stdout.
pub fn stdio_bridge(server: mcp::Server) -> PipeEnd {
    let (client_end, bridge_end) = pipe(16);
    let (mut to_server, server_in) = tokio::io::duplex(1 << 20);
    let (server_out, from_server) = tokio::io::duplex(1 << 20);
    tokio::spawn(server.serve_transport(server_in, server_out));
    let (tx, mut rx) = bridge_end.split();
    tokio::spawn(async move {
        while let Some(message) = rx.recv().await {
            assert!(!message.contains('\n'), "a message is one line: {message}");
            let line = format!("{message}\n");
            if to_server.write_all(line.as_bytes()).await.is_err() {
                break;
            }
        }
    });
    tokio::spawn(async move {
        let mut lines = BufReader::new(from_server).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if tx.send(line).await.is_err() {
                break;
            }
        }
    });
    client_end
}

pub struct Svc;

#[derive(serde::Deserialize, mcp::Form)]
pub struct Confirm {
    /// Go ahead
    ok: bool,
}

#[mcp::service(name = "stdio-test", version = "1.0.0")]
impl Svc {
    /// Logs and reports progress, then answers.
    pub async fn work(&self, ctx: mcp::Context) -> String {
        ctx.log(mcp::LogLevel::Info, "working").await;
        ctx.progress(1.0, 2.0, None).await;
        "worked".into()
    }

    /// Echoes.
    pub fn echo(&self, text: String) -> String {
        text
    }

    /// Sleeps, then answers.
    pub async fn slow(&self, ms: u64) -> String {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        format!("slept {ms}")
    }

    /// Works `micros` microseconds, or stops when the call is cancelled, and says which.
    pub async fn race(&self, micros: u64, ctx: mcp::Context) -> String {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_micros(micros)) => "finished".into(),
            () = ctx.cancelled() => "cancelled".into(),
        }
    }

    /// Panics.
    pub fn boom(&self) -> String {
        panic!("secret detail /etc/passwd")
    }

    /// Asks for a confirmation.
    pub async fn confirm(
        &self,
        context: mcp::Context,
    ) -> Result<ToolOutput<String>, mcp::ToolError> {
        confirm_round(&context)
    }

    /// Counts calls in the legacy session (modern calls have none).
    #[expect(deprecated)]
    pub async fn count(&self, session: Option<mcp::Session>) -> Result<i64, mcp::ToolError> {
        let Some(session) = session else {
            return Err(mcp::ToolError::new("no session"));
        };
        Ok(session
            .update("n", |n: Option<i64>| n.unwrap_or(0) + 1)
            .await?)
    }

    /// A region that travels in a header over HTTP.
    pub fn region(&self, #[argument(header = "Region")] region: String) -> String {
        format!("region {region}")
    }

    /// How many HTTP headers the request had.
    pub fn headers(&self, headers: http::HeaderMap) -> usize {
        headers.len()
    }

    /// The HTTP request's path.
    pub fn path(&self, parts: http::request::Parts) -> String {
        parts.uri.path().to_owned()
    }
}
