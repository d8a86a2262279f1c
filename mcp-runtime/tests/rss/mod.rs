//! What the listen memory tests share (`listen_memory_http`, `listen_memory_stdio`): a
//! service with resource subscriptions, the process's RSS, listen requests at the
//! per-listener bounds, and the slack the bounds are asserted with.
#![allow(dead_code)]

use std::time::Duration;

use serde_json::{Value, json};

pub const MODERN: &str = "2026-07-28";
pub const MIB: usize = 1 << 20;

pub struct Watched;

#[mcp::service(name = "watched", version = "1.0.0")]
impl Watched {
    /// Echoes.
    pub fn echo(&self, text: String) -> String {
        text
    }

    /// The stock.
    #[resource(uri = "watched://stock")]
    fn stock(&self) -> String {
        "3".into()
    }
}

/// The process's resident memory in bytes.
/// [`Watched`] with list changes and resource subscriptions, every bound at its default.
pub fn watched_server() -> mcp::Server {
    mcp::Server::builder(Watched)
        .list_changed(true)
        .resource_subscriptions(true)
        .build()
        .unwrap()
}

pub fn rss() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kib: usize = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmRSS line");
    kib * 1024
}

/// A listen request whose filter has `count` distinct URIs of `len` bytes, with id
/// `listen:NN` (`NN` at [`ID_AT`] bytes from the start, rewritten per request).
pub fn listen(count: usize, len: usize) -> Vec<u8> {
    let uris: Vec<String> = (0..count)
        .map(|i| {
            let head = format!("watched://{i:04}/");
            format!("{head}{}", "u".repeat(len - head.len()))
        })
        .collect();
    let body = json!({"jsonrpc": "2.0", "id": "listen:00", "method": "subscriptions/listen",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }, "notifications": {"toolsListChanged": true, "resourceSubscriptions": uris}}})
    .to_string()
    .into_bytes();
    assert_eq!(&body[ID_AT..ID_AT + 2], b"00");
    body
}

/// Where the two digits of the id sit in [`listen`]'s JSON (serde_json sorts the keys:
/// `{"id":"listen:00",...`).
pub const ID_AT: usize = r#"{"id":"listen:"#.len();

/// Sets the two digits of the id of [`listen`]'s `body` to `n` (modulo 100).
pub fn set_id(body: &mut [u8], n: usize) {
    body[ID_AT] = b'0' + u8::try_from(n / 10 % 10).unwrap();
    body[ID_AT + 1] = b'0' + u8::try_from(n % 10).unwrap();
}

/// How the server answered one listen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Open,
    /// Refused, naming this `ServerBuilder` setting.
    Refused(String),
}

pub fn refusal(error: &Value) -> Answer {
    assert_eq!(error["code"], -32602, "{error}");
    let message = error["message"].as_str().unwrap();
    let setting = message
        .rsplit_once("(ServerBuilder::")
        .and_then(|(_, s)| s.strip_suffix(')'))
        .unwrap_or_else(|| panic!("no setting named in {message}"));
    Answer::Refused(setting.to_owned())
}

/// The slack on top of what the budget admits, in the bounds the tests assert: handling a
/// 4 MB listen needs its body, its parse tree, the filter's copies and the acknowledgement
/// at once (a few times the body), and the allocator keeps freed memory for reuse rather
/// than return it; a stdio connection also keeps a frame buffer as long as its longest
/// line. Measured (debug build, current-thread runtime): 15 MiB over the bytes charged
/// over HTTP (eight listens, 61.6 MiB charged, +77 MiB), 12 MiB over stdio (two, 15.4 MiB
/// charged, +27 MiB). Twice that is allowed for noise.
pub const SLACK: usize = 32 * MIB;

/// The server-wide budget (the default of `ServerBuilder::max_listen_bytes`).
pub const BUDGET: usize = mcp::notify::DEFAULT_MAX_LISTEN_BYTES;
/// One caller's budget (the default of `ServerBuilder::max_listen_bytes_per_caller`).
pub const CALLER_BUDGET: usize = mcp::notify::DEFAULT_MAX_LISTEN_BYTES_PER_CALLER;

/// Waits until `open` listeners are left, making the server write to every stream (a
/// change they all asked for) so that it notices the connections that closed.
pub async fn settle(notifier: &mcp::Notifier, open: usize) {
    for _ in 0..500 {
        if notifier.listener_count() == open {
            return;
        }
        notifier.tools_changed();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "{} listeners open, expected {open}",
        notifier.listener_count()
    );
}
