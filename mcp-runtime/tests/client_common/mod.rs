//! Shared pieces of the client tests: the TypeScript peer server (spawned with node, killed
//! on drop, bounded in time) and a small programmable axum server that records requests.

#![allow(dead_code)]

use std::future::Future;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use mcp::Implementation;
use serde_json::{Value, json};

/// The longest a test may run.
pub const TEST_TIMEOUT: Duration = Duration::from_secs(40);

/// Runs a test body under [`TEST_TIMEOUT`].
pub async fn bounded<F: Future<Output = ()>>(body: F) {
    tokio::time::timeout(TEST_TIMEOUT, body)
        .await
        .expect("the test did not finish in time");
}

pub fn client_info() -> Implementation {
    Implementation::new("mcp-rs-client-tests", "1.0.0")
}

// ---------------------------------------------------------------------------------------
// The TypeScript peer server (interop/server.mjs)
// ---------------------------------------------------------------------------------------

/// A running `node interop/server.mjs`; killed when dropped.
pub struct NodeServer {
    child: Child,
    /// The MCP endpoint.
    pub url: String,
}

/// Exits node when the test process goes away (stdin closes) or after two minutes.
const WATCHDOG: &str = "data:text/javascript,process.stdin.on('end',()=>process.exit(0));process.stdin.on('error',()=>process.exit(0));process.stdin.resume();setTimeout(()=>process.exit(0),120000).unref();";

fn interop_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("interop")
}

impl NodeServer {
    /// Starts the peer with `args` (`--v1`, `--legacy sessionful`, …) on a free port.
    pub fn start(args: &[&str]) -> Self {
        let dir = interop_dir();
        let node_ok = Command::new("node")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            node_ok,
            "`node` (v20+) is not on PATH: the client interop tests need it. Install Node.js, then run `npm ci` in {}",
            dir.display()
        );
        for package in ["server", "sdk", "node"] {
            let path = dir.join("node_modules/@modelcontextprotocol").join(package);
            assert!(
                path.exists(),
                "{} is missing: run `npm ci` in {} before the client interop tests",
                path.display(),
                dir.display()
            );
        }
        let mut child = Command::new("node")
            .arg("--import")
            .arg(WATCHDOG)
            .arg("server.mjs")
            .args(["--port", "0"])
            .args(args)
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot spawn node");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            if let Some(Ok(line)) = lines.next() {
                let _ = tx.send(line);
            }
            // Keep draining so the pipe never fills.
            for _ in lines {}
        });
        let line = match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(line) => line,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("server.mjs {args:?} did not print its URL within 20 s");
            }
        };
        let url = line
            .strip_prefix("listening ")
            .unwrap_or_else(|| panic!("unexpected first line from server.mjs: {line:?}"))
            .trim()
            .to_owned();
        Self { child, url }
    }
}

impl Drop for NodeServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------------------
// A programmable local server
// ---------------------------------------------------------------------------------------

/// One request the mock received.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: Method,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Recorded {
    /// The JSON-RPC method (`""` for responses and non-POSTs).
    pub fn rpc_method(&self) -> &str {
        self.body["method"].as_str().unwrap_or_default()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// Answers a request, or `None` to use the default behaviour.
pub type Hook = Arc<dyn Fn(&Mock, &Recorded) -> Option<Response> + Send + Sync>;

/// Knobs and records of a mock server.
pub struct MockState {
    pub requests: Mutex<Vec<Recorded>>,
    /// `ttlMs` of `tools/list` pages.
    pub ttl_ms: AtomicI64,
    /// Pages of tools served by `tools/list` (cursor `p1`, `p2`, …).
    pub pages: Mutex<Vec<Vec<Value>>>,
    pub counter: AtomicUsize,
    /// Delay before answering a JSON-RPC method.
    pub delays: Mutex<std::collections::HashMap<String, Duration>>,
}

/// A running mock server; aborted on drop.
#[derive(Clone)]
pub struct Mock {
    pub url: String,
    pub state: Arc<MockState>,
    hook: Hook,
    task: Arc<AbortOnDrop>,
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

pub fn tool(name: &str, properties: Value) -> Value {
    json!({"name": name, "inputSchema": {"type": "object", "properties": properties}})
}

pub fn rpc_result(id: &Value, result: Value) -> Response {
    axum::Json(json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response()
}

pub fn rpc_error(status: StatusCode, id: &Value, code: i32, message: &str) -> Response {
    (
        status,
        axum::Json(
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}),
        ),
    )
        .into_response()
}

pub fn sse(events: &[String]) -> Response {
    let body: String = events.iter().map(|e| format!("{e}\n\n")).collect();
    (
        [(axum::http::header::CONTENT_TYPE, "text/event-stream")],
        body,
    )
        .into_response()
}

pub fn discover_result() -> Value {
    json!({
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {"listChanged": false}},
        "instructions": "Mock.",
        "resultType": "complete", "ttlMs": 0, "cacheScope": "private",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "mock", "version": "0.1.0"}}
    })
}

impl Mock {
    /// Starts a modern mock serving `pages` of tools, with `hook` tried first.
    pub async fn start(
        pages: Vec<Vec<Value>>,
        hook: impl Fn(&Mock, &Recorded) -> Option<Response> + Send + Sync + 'static,
    ) -> Mock {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let state = Arc::new(MockState {
            requests: Mutex::new(Vec::new()),
            ttl_ms: AtomicI64::new(0),
            pages: Mutex::new(pages),
            counter: AtomicUsize::new(0),
            delays: Mutex::new(std::collections::HashMap::new()),
        });
        let hook: Hook = Arc::new(hook);
        let cell = Arc::new(tokio::sync::OnceCell::<Mock>::new());
        let app = axum::Router::new()
            .route("/mcp", axum::routing::any(handle))
            .with_state(cell.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        let mock = Mock {
            url: format!("http://{addr}/mcp"),
            state,
            hook,
            task: Arc::new(AbortOnDrop(task)),
        };
        let _ = cell.set(mock.clone());
        mock
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.state.requests.lock().unwrap().clone()
    }

    /// How many POSTs carried `method`.
    pub fn count(&self, method: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.rpc_method() == method)
            .count()
    }

    pub fn last(&self, method: &str) -> Recorded {
        self.requests()
            .into_iter()
            .rev()
            .find(|r| r.rpc_method() == method)
            .unwrap_or_else(|| panic!("no {method} request"))
    }

    /// Delays the answers to `method`.
    pub fn delay(&self, method: &str, delay: Duration) {
        self.state
            .delays
            .lock()
            .unwrap()
            .insert(method.to_owned(), delay);
    }

    pub fn set_ttl(&self, ttl_ms: i64) {
        self.state.ttl_ms.store(ttl_ms, Ordering::SeqCst);
    }

    fn default_response(&self, r: &Recorded) -> Response {
        let id = r.body.get("id").cloned().unwrap_or(Value::Null);
        match r.rpc_method() {
            "server/discover" => rpc_result(&id, discover_result()),
            "tools/list" => {
                let pages = self.state.pages.lock().unwrap().clone();
                let index = match r.body["params"]["cursor"].as_str() {
                    None => Some(0),
                    Some(c) => c.strip_prefix('p').and_then(|n| n.parse::<usize>().ok()),
                };
                let Some(index) = index.filter(|i| *i < pages.len().max(1)) else {
                    return rpc_error(StatusCode::OK, &id, -32602, "Invalid cursor");
                };
                let tools = pages.get(index).cloned().unwrap_or_default();
                let mut result = json!({
                    "tools": tools, "resultType": "complete",
                    "ttlMs": self.state.ttl_ms.load(Ordering::SeqCst), "cacheScope": "public"
                });
                if index + 1 < pages.len() {
                    result["nextCursor"] = json!(format!("p{}", index + 1));
                }
                rpc_result(&id, result)
            }
            "tools/call" => rpc_result(
                &id,
                json!({
                    "content": [{"type": "text", "text": r.body["params"]["arguments"].to_string()}],
                    "resultType": "complete"
                }),
            ),
            _ if r.method != Method::POST => StatusCode::METHOD_NOT_ALLOWED.into_response(),
            // Notifications and responses to server→client requests.
            _ if r.body.get("id").is_none() || r.body.get("method").is_none() => {
                StatusCode::ACCEPTED.into_response()
            }
            _ => rpc_error(StatusCode::NOT_FOUND, &id, -32601, "Method not found"),
        }
    }
}

async fn handle(
    State(cell): State<Arc<tokio::sync::OnceCell<Mock>>>,
    method: Method,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(mock) = cell.get() else {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    };
    let recorded = Recorded {
        method,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    mock.state.requests.lock().unwrap().push(recorded.clone());
    let delay = mock
        .state
        .delays
        .lock()
        .unwrap()
        .get(recorded.rpc_method())
        .copied();
    if let Some(delay) = delay {
        tokio::time::sleep(delay).await;
    }
    if let Some(response) = (mock.hook)(mock, &recorded) {
        return response;
    }
    mock.default_response(&recorded)
}
