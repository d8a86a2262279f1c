//! Interoperability over stdio: the example servers started with `--stdio` as child
//! processes of the real clients pinned in `interop/` — the TypeScript v2
//! `StdioClientTransport` (`@modelcontextprotocol/client` 2.4.0; legacy, auto and modern
//! modes), the v1 SDK's (`@modelcontextprotocol/sdk` 1.32.2) and the Python `mcp` SDK's
//! stdio transport — running the scripted calls of `interop/steps/stdio_*.json`. The
//! booking steps exercise elicitation: real `elicitation/create` requests on the child's
//! stdout (legacy) and `input_required` results (modern). Needs `npm ci` in `interop/` and
//! the Python venv of `interop/python/` (`scripts/test.sh` installs both).

mod interop_support;

use std::path::PathBuf;
use std::time::Duration;

use interop_support::{
    Events, LATEST_LEGACY, MODERN, PEER_TIMEOUT, Peer, interop_dir, node, python, python_dir, run,
};

/// `target/<profile>/examples/<name>`: the test binary lives in `target/<profile>/deps/`.
fn example_binary(name: &str) -> String {
    let exe = std::env::current_exe().expect("current test executable");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("the test binary lives in target/<profile>/deps");
    let path: PathBuf = profile_dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.is_file(),
        "example binary {} not found: run the tests with `cargo test -p mcp-examples`, which builds the examples",
        path.display()
    );
    path.to_str().expect("UTF-8 path").to_owned()
}

fn steps(name: &str) -> String {
    let path = interop_dir().join("steps").join(name);
    path.to_str().expect("UTF-8 path").to_owned()
}

fn check(events: &Events, success: bool) {
    assert!(success, "the peer client failed\n{}", events.report);
    assert!(
        events.of("mismatch").is_empty(),
        "scripted expectations failed\n{}",
        events.report
    );
    assert_eq!(events.one("done")["exitCode"], 0, "{}", events.report);
}

/// Runs `interop/client.mjs --stdio` with `peer`'s mode against `example --stdio`.
async fn ts_stdio(peer: Peer, example: &str, script: &str) -> Events {
    let binary = example_binary(example);
    let script = steps(script);
    let mut args = vec!["client.mjs", "--stdio"];
    args.extend_from_slice(peer.args());
    args.extend_from_slice(&["--script", &script, "--timeout", "20000", "--"]);
    args.extend_from_slice(&[&binary, "--stdio"]);
    let output = run(&node(), &args, &interop_dir(), PEER_TIMEOUT).await;
    let events = Events::parse(&output);
    check(&events, output.success());
    // The server logs on stderr only: nothing but protocol ever reached the client.
    assert!(
        events.of("error").iter().all(|e| e["expected"] == true),
        "{}",
        events.report
    );
    events
}

/// Runs `interop/python/client.py tools --stdio` in `mode` against `example --stdio`.
async fn python_stdio(mode: &str, example: &str, script: &str) -> Events {
    let binary = example_binary(example);
    let script = steps(script);
    let args = [
        "client.py",
        "tools",
        "--mode",
        mode,
        "--timeout",
        "20",
        "--script",
        &script,
        "--stdio",
        &binary,
        "--stdio",
    ];
    let output = run(&python(), &args, &python_dir(), PEER_TIMEOUT).await;
    let events = Events::parse(&output);
    check(&events, output.success());
    events
}

fn assert_era(events: &Events, modern: bool) {
    let connected = events.one("connected");
    let (era, version) = if modern {
        ("modern", MODERN)
    } else {
        ("legacy", LATEST_LEGACY)
    };
    assert_eq!(connected["era"], era, "{}", events.report);
    // The v1 client reports no version over stdio (its HTTP transport keeps it).
    if connected["sdk"] != "@modelcontextprotocol/sdk@1.32.2" {
        assert_eq!(connected["protocolVersion"], version, "{}", events.report);
    }
}

fn assert_weather_steps(events: &Events) {
    let steps = events.of("step");
    assert_eq!(steps.len(), 3, "{}", events.report);
    let text = steps[0]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("eu-west/Paris"), "{}", events.report);
    let rejected = events.of("error");
    assert_eq!(rejected.len(), 1, "{}", events.report);
    assert_eq!(rejected[0]["code"], -32602, "{}", events.report);
}

#[tokio::test]
async fn weather_under_the_typescript_stdio_client_in_every_mode() {
    for peer in [Peer::Legacy, Peer::Auto, Peer::Modern, Peer::V1] {
        let events = ts_stdio(peer, "weather", "stdio_weather.json").await;
        assert_era(&events, peer.modern());
        assert_eq!(events.one("connected")["serverInfo"]["name"], "weather");
        assert_eq!(events.of("tool").len(), 3, "{}", events.report);
        assert_weather_steps(&events);
    }
}

#[tokio::test]
async fn elicitation_over_stdio_under_the_typescript_client() {
    for peer in [Peer::Legacy, Peer::Modern] {
        let events = ts_stdio(peer, "table_booking", "stdio_booking.json").await;
        assert_era(&events, peer.modern());
        let asked = events.of("elicitation");
        assert_eq!(asked.len(), 2, "{}", events.report);
        assert_eq!(asked[0]["message"], "Book a table", "{}", events.report);
    }
}

#[tokio::test]
async fn weather_under_the_python_stdio_client() {
    for (mode, modern) in [("legacy", false), ("auto", true)] {
        let events = python_stdio(mode, "weather", "stdio_weather.json").await;
        assert_era(&events, modern);
        assert_weather_steps(&events);
    }
}

/// Starts `example --stdio`, sends `initialize` and returns the first stdout line, then
/// closes stdin and returns the exit status and stderr.
async fn stdio_initialize(example: &str) -> (String, std::process::ExitStatus, String) {
    use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _};
    let mut child = tokio::process::Command::new(example_binary(example))
        .arg("--stdio")
        .env("MCP_ADDR", "127.0.0.1:0")
        .env("RUST_LOG", "info")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap());
    let mut stderr = child.stderr.take().unwrap();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"smoke","version":"1"}}}"#;
    // A server that refuses to start may be gone already: a failed write is fine.
    let _ = stdin.write_all(format!("{init}\n").as_bytes()).await;
    let mut line = String::new();
    let read = tokio::time::timeout(Duration::from_secs(30), stdout.read_line(&mut line)).await;
    assert!(read.is_ok(), "{example}: no answer within 30 s");
    drop(stdin);
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .unwrap_or_else(|_| panic!("{example}: did not exit within 10 s of stdin closing"))
        .unwrap();
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).await.unwrap();
    assert!(
        rest.is_empty(),
        "{example}: stray bytes on stdout: {rest:?}"
    );
    let mut err = String::new();
    stderr.read_to_string(&mut err).await.unwrap();
    (line, status, err)
}

#[tokio::test]
async fn every_example_server_accepts_stdio() {
    for (example, name) in [
        ("weather", "weather"),
        ("calculator", "calculator"),
        ("echo", "echo"),
        ("crypto", "crypto"),
        ("shopping_cart", "shopping-cart"),
        ("table_booking", "restaurant"),
        ("calendar_connect", "calendar"),
        ("conformance", "mcp-conformance"),
    ] {
        let (line, status, stderr) = stdio_initialize(example).await;
        let answer: serde_json::Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("{example}: not JSON ({e}): {line:?}\n{stderr}"));
        assert_eq!(answer["result"]["serverInfo"]["name"], name, "{example}");
        assert!(status.success(), "{example}: {status}\n{stderr}");
        assert!(
            stderr.contains("serving MCP on stdin/stdout"),
            "{example}: {stderr}"
        );
    }
    // An OAuth-protected service cannot be served without credentials: a clear error,
    // nothing on stdout.
    let (line, status, stderr) = stdio_initialize("files").await;
    assert!(line.is_empty(), "{line}");
    assert!(!status.success());
    assert!(stderr.contains("cannot be served over stdio"), "{stderr}");
}
