//! Drives N in-process requests of one kind through the `add` benchmark server's router (or the bare
//! axum baseline), for instruction counts with callgrind, which other load on the machine
//! does not disturb: `scripts/instructions.sh` runs it twice and reports
//! instructions per request.
//!
//! `cargo run --release --example instr_count -- modern 1000`
//!
//! `in-process` and `in-process-legacy` send the modern (legacy, on the connection's
//! session) `tools/call` of the `add` server through the in-process transport instead.
//!
//! `client-untyped` and `client-typed` (and `-legacy`) call `add` through the in-process
//! client: the untyped call builder, or the typed client the service generates — the client
//! side is counted too.
//!
//! The kinds `tool`, `read` and `prompt` (and `tool-legacy`, `read-legacy`,
//! `prompt-legacy`) drive a basic service whose tool, resource template and prompt do the
//! same work (echo one string), so their figures compare the dispatch of `tools/call`,
//! `resources/read` and `prompts/get`. `task` calls the same echo as a task-capable tool
//! from a client that declares the tasks extension (a task created in memory, settled and
//! answered as a handle), `task-plain` calls it without the extension (a plain call of a
//! task-capable tool).

use http_body_util::BodyExt as _;
use mcp_examples::bench::{Kind, bare_router};
use tower::ServiceExt as _;

/// Echoes one string as a tool, a resource template and a prompt.
struct Same;

#[mcp::service(name = "same", version = "1.0.0")]
impl Same {
    /// Echo.
    pub fn echo(&self, text: String) -> String {
        text
    }

    /// Echo, as a task when the client declares the tasks extension.
    #[tool(task = "optional")]
    pub fn echo_task(&self, text: String) -> String {
        text
    }

    /// Echo.
    #[resource(template = "same://echo/{text}")]
    fn echo_resource(&self, text: String) -> String {
        text
    }

    /// Echo.
    #[prompt(name = "echo")]
    fn echo_prompt(&self, text: String) -> String {
        text
    }
}

/// The request of a feature kind: (method, `Mcp-Name`, params), modern or legacy.
fn feature_request(kind: &str) -> Option<http::Request<axum::body::Body>> {
    let (base, legacy) = match kind.strip_suffix("-legacy") {
        Some(base) => (base, true),
        None => (kind, false),
    };
    let (method, name, params) = match base {
        "tool" => (
            "tools/call",
            "echo",
            serde_json::json!({"name": "echo", "arguments": {"text": "hello"}}),
        ),
        "read" => (
            "resources/read",
            "same://echo/hello",
            serde_json::json!({"uri": "same://echo/hello"}),
        ),
        "prompt" => (
            "prompts/get",
            "echo",
            serde_json::json!({"name": "echo", "arguments": {"text": "hello"}}),
        ),
        "task" | "task-plain" => (
            "tools/call",
            "echo_task",
            serde_json::json!({"name": "echo_task", "arguments": {"text": "hello"}}),
        ),
        _ => return None,
    };
    let capabilities = if base == "task" {
        serde_json::json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    } else {
        serde_json::json!({})
    };
    let mut params = params;
    let mut builder = http::Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if legacy {
        builder = builder.header("mcp-protocol-version", "2025-11-25");
    } else {
        params["_meta"] = serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "instr", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": capabilities
        });
        builder = builder
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method)
            .header("mcp-name", name);
    }
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    builder.body(axum::body::Body::from(body.to_string())).ok()
}

/// `n` calls of `add` through the in-process client, typed or not.
fn client_calls(kind: &str, n: usize) {
    use mcp::client::{ProtocolMode, TypedClient as _};
    use mcp_examples::bench::{AddClient, in_process_client, typed_add, untyped_add};

    let mode = if kind.ends_with("-legacy") {
        ProtocolMode::Legacy
    } else {
        ProtocolMode::Modern
    };
    let typed = kind.starts_with("client-typed");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        let client = in_process_client(mode).await.expect("connects");
        let typed_client = AddClient::from_client(client.clone());
        for _ in 0..n {
            let sum = if typed {
                typed_add(&typed_client).await.expect("typed")
            } else {
                untyped_add(&client).await.expect("untyped")
            };
            assert_eq!(sum, 5);
        }
    });
}

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_default();
    if name.starts_with("client-") {
        let n: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1000);
        client_calls(&name, n);
        return;
    }
    if let Some(legacy) = match name.as_str() {
        "in-process" => Some(false),
        "in-process-legacy" => Some(true),
        _ => None,
    } {
        let n: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1000);
        in_process(legacy, n);
        return;
    }
    if feature_request(&name).is_some() {
        let n: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1000);
        features(&name, n);
        return;
    }
    let mut args = std::iter::once(name).chain(args);
    let kind = args
        .next()
        .and_then(|k| Kind::from_name(&k))
        .unwrap_or_else(|| {
            eprintln!("usage: instr_count modern|legacy|discover|list|bare|tool|read|prompt|tool-legacy|read-legacy|prompt-legacy N");
            std::process::exit(2)
        });
    if kind.needs_session() {
        eprintln!(
            "instr_count: {} needs a session over a socket: use scripts/instructions.sh",
            kind.name()
        );
        std::process::exit(2)
    }
    let n: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1000);
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("instr_count: {e}");
            std::process::exit(1)
        }
    };
    let router = if kind == Kind::Bare {
        bare_router("/mcp")
    } else {
        match mcp_examples::bench::server_from_env().and_then(mcp::ServerBuilder::build) {
            Ok(server) => mcp::transport::http::router("/mcp", server),
            Err(e) => {
                eprintln!("instr_count: {e}");
                std::process::exit(1)
            }
        }
    };
    runtime.block_on(async {
        for _ in 0..n {
            let Ok(response) = router
                .clone()
                .oneshot(kind.request::<axum::body::Body>("/mcp"))
                .await;
            assert!(
                response.status().is_success(),
                "{kind:?}: {}",
                response.status()
            );
            let body = response.into_body().collect().await.map(|b| b.to_bytes());
            if let Ok(body) = &body {
                // A JSON-RPC error would measure the wrong path (a refusal is HTTP 200).
                assert!(
                    !body.windows(8).any(|w| w == b"\"error\":"),
                    "{kind:?}: {}",
                    String::from_utf8_lossy(body)
                );
            }
            std::hint::black_box(body.ok());
        }
    });
}

/// Drives `n` `tools/call`s of the `add` server through the in-process transport: the
/// modern call ([`Kind::Modern`]'s body), or with `legacy` the legacy one on the
/// connection's session (after `initialize`). Each answer is awaited before the next call.
fn in_process(legacy: bool, n: usize) {
    use mcp_examples::bench::{ADD_LEGACY, ADD_MODERN, LEGACY_INITIALIZE, LEGACY_INITIALIZED};
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        std::process::exit(1)
    };
    runtime.block_on(async {
        let server =
            match mcp_examples::bench::server_from_env().and_then(mcp::ServerBuilder::build) {
                Ok(server) => server,
                Err(e) => {
                    eprintln!("instr_count: {e}");
                    std::process::exit(1)
                }
            };
        let mut end = server.in_process();
        let call = if legacy {
            end.send(LEGACY_INITIALIZE.to_owned()).await.ok();
            let init = end.recv().await.unwrap_or_default();
            assert!(init.contains("\"result\""), "initialize: {init}");
            end.send(LEGACY_INITIALIZED.to_owned()).await.ok();
            ADD_LEGACY
        } else {
            ADD_MODERN
        };
        for _ in 0..n {
            end.send(call.to_owned()).await.ok();
            let answer = end.recv().await.unwrap_or_default();
            assert!(answer.contains("\"result\""), "in-process: {answer}");
            std::hint::black_box(answer);
        }
    });
}

/// Drives `n` requests of feature kind `kind` through [`Same`].
fn features(kind: &str, n: usize) {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        std::process::exit(1)
    };
    let server = match mcp::Server::builder(Same).build() {
        Ok(server) => server,
        Err(e) => {
            eprintln!("instr_count: {e}");
            std::process::exit(1)
        }
    };
    let router = mcp::transport::http::router("/mcp", server);
    runtime.block_on(async {
        for _ in 0..n {
            let Some(request) = feature_request(kind) else {
                return;
            };
            let Ok(response) = router.clone().oneshot(request).await;
            assert!(
                response.status().is_success(),
                "{kind}: {}",
                response.status()
            );
            let body = response.into_body().collect().await.map(|b| b.to_bytes());
            let body = body.unwrap_or_default();
            let expected: &[u8] = if kind == "task" {
                b"\"resultType\":\"task\""
            } else {
                b"hello"
            };
            assert!(
                !body.windows(7).any(|w| w == b"\"error\"")
                    && body.windows(expected.len()).any(|w| w == expected),
                "{kind}: {}",
                String::from_utf8_lossy(&body)
            );
            std::hint::black_box(body);
        }
    });
}
