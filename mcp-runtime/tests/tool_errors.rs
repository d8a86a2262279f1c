//! Errors of tool authors, end to end on both eras: a `ToolError` (built with
//! `ToolResultExt::tool_err`) is an `isError` result with its message only, a
//! `ServerError::internal` is `-32603` "Internal error", a `ServerError::client_message` is
//! `-32603` with its message; the source error behind the first two is logged with `tracing`
//! and never reaches the client.

use std::io;
use std::sync::{Arc, Mutex};

use mcp::testing::TestClient;
use mcp::{ServerError, ToolError, ToolResultExt as _};
use serde_json::{Value, json};

/// What the failing tools' source errors say; no response may contain it.
const SECRET_PATH: &str = "/home/build/secrets/vault.key";

fn leaky() -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("open {SECRET_PATH}: permission denied"),
    )
}

struct Vault;

#[mcp::service(name = "vault", version = "1.0.0")]
impl Vault {
    /// A tool error caused by an I/O error.
    pub fn read_key(&self) -> Result<String, ToolError> {
        let key: Result<String, io::Error> = Err(leaky());
        let key = key.tool_err("could not read the key")?;
        Ok(key)
    }

    /// A tool error for a missing value (`Option`), with no source.
    pub fn first_line(&self, text: String) -> Result<String, ToolError> {
        let line = text.lines().next().tool_err("the text is empty")?;
        Ok(line.to_owned())
    }

    /// An internal error caused by an I/O error.
    pub fn unlock(&self) -> Result<String, ServerError> {
        Err(ServerError::internal(leaky()))
    }

    /// An internal error whose message is written for the client.
    pub fn maintenance(&self) -> Result<String, ServerError> {
        Err(ServerError::client_message("the vault is in maintenance"))
    }
}

/// A `tracing` writer that keeps what was logged.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn take(&self) -> String {
        String::from_utf8(std::mem::take(&mut *self.0.lock().unwrap())).unwrap()
    }
}

/// Calls `tool` on both eras; returns the two response bodies and what was logged.
async fn call_both(tool: &str, arguments: Value) -> (Value, Value, String) {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    // The test runtime is single-threaded: the whole call runs under this subscriber.
    let _guard = tracing::subscriber::set_default(subscriber);
    let client = TestClient::new(mcp::Server::builder(Vault).build().expect("valid"));
    let params = json!({"name": tool, "arguments": arguments});
    let modern = client.modern("tools/call", params.clone()).await;
    let legacy = client.legacy("tools/call", params).await;
    for r in [&modern, &legacy] {
        assert_eq!(r.status.as_u16(), 200, "{}", r.raw);
        assert!(!r.raw.contains("/home"), "the response leaks: {}", r.raw);
        assert!(
            !r.raw.contains("permission"),
            "the response leaks: {}",
            r.raw
        );
    }
    (modern.body, legacy.body, captured.take())
}

#[tokio::test]
async fn a_tool_error_sends_its_message_and_logs_its_source() {
    let (modern, legacy, log) = call_both("read_key", json!({})).await;
    for body in [&modern, &legacy] {
        assert_eq!(body["result"]["isError"], true, "{body}");
        assert_eq!(
            body["result"]["content"],
            json!([{"type": "text", "text": "could not read the key"}]),
            "{body}"
        );
    }
    assert_eq!(
        log.matches(SECRET_PATH).count(),
        2,
        "logged once per call: {log}"
    );
    assert!(log.contains("could not read the key"), "{log}");
}

#[tokio::test]
async fn a_missing_value_is_a_tool_error_without_a_source() {
    let (modern, legacy, log) = call_both("first_line", json!({"text": ""})).await;
    for body in [&modern, &legacy] {
        assert_eq!(body["result"]["isError"], true, "{body}");
        assert_eq!(
            body["result"]["content"][0]["text"], "the text is empty",
            "{body}"
        );
    }
    assert!(log.is_empty(), "nothing to log: {log}");
}

#[tokio::test]
async fn an_internal_error_sends_a_generic_message_and_logs_its_source() {
    let (modern, legacy, log) = call_both("unlock", json!({})).await;
    for body in [&modern, &legacy] {
        assert_eq!(
            body["error"],
            json!({"code": -32603, "message": "Internal error"}),
            "{body}"
        );
    }
    assert_eq!(log.matches(SECRET_PATH).count(), 2, "{log}");
}

#[tokio::test]
async fn a_client_message_is_sent_verbatim() {
    let (modern, legacy, log) = call_both("maintenance", json!({})).await;
    for body in [&modern, &legacy] {
        assert_eq!(
            body["error"],
            json!({"code": -32603, "message": "the vault is in maintenance"}),
            "{body}"
        );
    }
    assert!(log.is_empty(), "nothing to log: {log}");
}
