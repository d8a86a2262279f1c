//! Helpers shared by the tests that drive example servers with the real peers pinned in
//! `interop/` (TypeScript SDK clients, the official conformance suite): locating the
//! repository and Node, serving a service in-process on a loopback port, and running a
//! child process with a deadline.

#![allow(dead_code)] // each test crate uses a different subset

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::AsyncReadExt as _;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A server process serving HTTP on a loopback port (an example binary or a peer server),
/// its stderr collected; killed when dropped.
pub struct Served {
    /// What it is, for messages.
    pub name: String,
    /// The process.
    pub child: tokio::process::Child,
    /// Its MCP endpoint.
    pub url: String,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Served {
    /// How long a server may take to print its first line.
    pub const STARTUP: Duration = Duration::from_secs(30);

    /// Spawns `command` and waits for its first stdout line, `<prefix>http://…/mcp`.
    pub async fn spawn(name: &str, mut command: tokio::process::Command, prefix: &str) -> Self {
        use tokio::io::AsyncBufReadExt as _;
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let mut pipe = child.stderr.take().expect("stderr");
        let sink = stderr.clone();
        tokio::spawn(async move {
            let mut chunk = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut chunk).await {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&chunk[..n]));
            }
        });
        let mut lines = tokio::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
        let line = tokio::time::timeout(Self::STARTUP, lines.next_line())
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "{name}: no first line within {:?}\n--- stderr ---\n{}",
                    Self::STARTUP,
                    stderr.lock().unwrap()
                )
            })
            .expect("read stdout");
        let Some(line) = line else {
            // Give the stderr task a moment to collect the reason.
            tokio::time::sleep(Duration::from_millis(200)).await;
            panic!(
                "{name}: exited before listening\n{}",
                stderr.lock().unwrap()
            );
        };
        // Drain stdout so that the server never blocks on it.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let url = line
            .strip_prefix(prefix)
            .map(str::trim)
            .filter(|url| url.starts_with("http://") && url.ends_with("/mcp"))
            .unwrap_or_else(|| panic!("{name}: unexpected first line {line:?}"))
            .to_owned();
        Self {
            name: name.to_owned(),
            child,
            url,
            stderr,
        }
    }

    /// What it wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Its name, URL and stderr, for a failure message.
    pub fn report(&self) -> String {
        format!(
            "{} at {}\n--- stderr ---\n{}",
            self.name,
            self.url,
            self.stderr()
        )
    }
}

/// How long one peer process may run before it is killed.
pub const PEER_TIMEOUT: Duration = Duration::from_secs(60);

/// The repository root (the parent of this package's manifest directory).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the examples package lives inside the repository")
        .to_path_buf()
}

/// `target/<profile>/examples/<name>`, built by `cargo test -p mcp-examples` (the test
/// binary lives in `target/<profile>/deps/`).
pub fn example_binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("current test executable");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("the test binary lives in target/<profile>/deps");
    let path = profile_dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.is_file(),
        "example binary {} not found: run the tests with `cargo test -p mcp-examples`, which builds the examples",
        path.display()
    );
    path
}

/// `interop/` in the repository.
pub fn interop_dir() -> PathBuf {
    repo_root().join("interop")
}

/// Panics with an actionable message unless the npm peers are installed.
pub fn require_peers() {
    let modules = interop_dir().join("node_modules");
    for package in [
        "@modelcontextprotocol/client",
        "@modelcontextprotocol/sdk",
        "@modelcontextprotocol/conformance",
    ] {
        assert!(
            modules.join(package).is_dir(),
            "the interop peers are not installed ({} is missing): run `npm ci` in {}",
            modules.join(package).display(),
            interop_dir().display()
        );
    }
}

/// The Node binary for the peers: `interop/node_modules/.bin/node` (Node 22, installed by
/// `npm ci`), else `node` on `PATH`. Panics when neither runs.
pub fn node() -> PathBuf {
    require_peers();
    let local = interop_dir().join("node_modules/.bin/node");
    let candidate = if local.exists() {
        local
    } else {
        PathBuf::from("node")
    };
    let runs = std::process::Command::new(&candidate)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        runs,
        "cannot run Node ({}): run `npm ci` in {} (it installs Node 22 into node_modules/.bin)",
        candidate.display(),
        interop_dir().display()
    );
    candidate
}

/// A server running in-process on `127.0.0.1:<free port>`, stopped by [`TestServer::stop`]
/// (or, without waiting, when dropped).
pub struct TestServer {
    /// The bound address.
    pub addr: SocketAddr,
    /// `http://<addr>/mcp`.
    pub url: String,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), mcp::Error>>>,
}

impl TestServer {
    /// Binds a loopback port, builds the service with `make(addr)` and serves it at `/mcp`.
    pub async fn start(make: impl FnOnce(SocketAddr) -> mcp::ServerBuilder) -> Self {
        let listener = mcp::HttpServer::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local address");
        let server = make(addr).build().expect("a valid service");
        let (tx, rx) = oneshot::channel::<()>();
        let app = mcp::transport::http::router("/mcp", server);
        let task = tokio::spawn(
            listener
                .serve(app.into_make_service())
                .with_graceful_shutdown(async move {
                    let _ = rx.await;
                })
                .into_future(),
        );
        Self {
            addr,
            url: format!("http://{addr}/mcp"),
            shutdown: Some(tx),
            task: Some(task),
        }
    }

    /// Signals shutdown and asserts that the server stops cleanly within 10 seconds.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let task = self.task.take().expect("the server task");
        match tokio::time::timeout(Duration::from_secs(10), task).await {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(e))) => panic!("the server failed: {e}"),
            Ok(Err(e)) => panic!("the server task panicked: {e}"),
            Err(_) => panic!("the server did not shut down within 10 s"),
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// What a finished (or killed) child process left behind.
#[derive(Debug)]
pub struct ProcessOutput {
    /// The command line, for messages.
    pub command: String,
    /// The exit status; `None` when the process was killed at the deadline.
    pub status: Option<ExitStatus>,
    /// Everything written to stdout.
    pub stdout: String,
    /// Everything written to stderr.
    pub stderr: String,
}

impl ProcessOutput {
    /// Whether the process exited with status 0.
    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    /// A report of the run: command, status, stdout and stderr.
    pub fn report(&self) -> String {
        let status = match self.status {
            Some(s) => s.to_string(),
            None => format!("killed after {} s", PEER_TIMEOUT.as_secs()),
        };
        format!(
            "command: {}\nstatus: {status}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.command, self.stdout, self.stderr
        )
    }
}

/// Runs `program args…` in `cwd` in its own process group, killing the whole group when it
/// outlives `timeout`.
pub async fn run(program: &Path, args: &[&str], cwd: &Path, timeout: Duration) -> ProcessOutput {
    let command = format!("{} {}", program.display(), args.join(" "));
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start `{command}`: {e}"));
    let collect = |pipe: Option<Box<dyn tokio::io::AsyncRead + Send + Unpin>>| {
        tokio::spawn(async move {
            let mut buf = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut buf).await;
            }
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let stdout = collect(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = collect(child.stderr.take().map(|p| Box::new(p) as _));
    let status = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(status) => Some(status.unwrap_or_else(|e| panic!("waiting for `{command}`: {e}"))),
        Err(_) => {
            if let Some(pid) = child.id() {
                // The whole group: a shell script's children hold the pipes open too.
                let _ = std::process::Command::new("kill")
                    .args(["-KILL", "--", &format!("-{pid}")])
                    .status();
            }
            let _ = child.kill().await;
            None
        }
    };
    let read = |task: JoinHandle<String>| async move {
        match tokio::time::timeout(Duration::from_secs(5), task).await {
            Ok(Ok(text)) => text,
            _ => String::from("<output not available>"),
        }
    };
    ProcessOutput {
        command,
        status,
        stdout: read(stdout).await,
        stderr: read(stderr).await,
    }
}

/// The modern protocol version.
pub const MODERN: &str = "2026-07-28";
/// The newest legacy protocol version.
pub const LATEST_LEGACY: &str = "2025-11-25";

/// Which peer client (`interop/client.mjs`), and how it negotiates the era.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    /// v2 client, `server/discover` probe with fallback.
    Auto,
    /// v2 client pinned to 2026-07-28.
    Modern,
    /// v2 client, 2025 `initialize` handshake.
    Legacy,
    /// v1 SDK client (legacy only).
    V1,
}

impl Peer {
    /// The `client.mjs` arguments selecting this peer.
    pub fn args(self) -> &'static [&'static str] {
        match self {
            Self::Auto => &["--mode", "auto"],
            Self::Modern => &["--mode", "modern"],
            Self::Legacy => &["--mode", "legacy"],
            Self::V1 => &["--mode", "legacy", "--v1"],
        }
    }

    /// `true` when the peer ends up on the modern era against a dual-era server.
    pub fn modern(self) -> bool {
        matches!(self, Self::Auto | Self::Modern)
    }

    /// The package the peer runs on, as `client.mjs` reports it.
    pub fn sdk(self) -> &'static str {
        match self {
            Self::V1 => "@modelcontextprotocol/sdk@1.32.2",
            _ => "@modelcontextprotocol/client@2.4.0",
        }
    }

    /// How the client words a JSON-RPC error with `code` and `message`.
    pub fn error_message(self, code: i64, message: &str) -> String {
        match self {
            Self::V1 => format!("MCP error {code}: {message}"),
            _ => message.to_owned(),
        }
    }
}

/// The JSON-lines events of one peer run, parsed.
pub struct Events {
    /// The events, in order.
    pub events: Vec<serde_json::Value>,
    /// Command, status and output, for failure messages.
    pub report: String,
}

impl Events {
    /// Parses a peer's stdout (one JSON object per line).
    pub fn parse(output: &ProcessOutput) -> Self {
        let report = output.report();
        let events = output
            .stdout
            .lines()
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}\n{report}"))
            })
            .collect();
        Self { events, report }
    }

    /// The events of one kind.
    pub fn of(&self, kind: &str) -> Vec<&serde_json::Value> {
        self.events.iter().filter(|e| e["event"] == kind).collect()
    }

    /// The single event of one kind.
    pub fn one(&self, kind: &str) -> &serde_json::Value {
        let found = self.of(kind);
        assert_eq!(
            found.len(),
            1,
            "expected one `{kind}` event\n{}",
            self.report
        );
        found[0]
    }

    /// The `step` or `error` event of scripted step `index`.
    pub fn step(&self, index: usize) -> &serde_json::Value {
        self.events
            .iter()
            .find(|e| (e["event"] == "step" || e["event"] == "error") && e["step"] == index)
            .unwrap_or_else(|| panic!("no event for step {index}\n{}", self.report))
    }

    /// The elicitation events of scripted step `index`, in order.
    pub fn elicitations(&self, index: usize) -> Vec<&serde_json::Value> {
        self.events
            .iter()
            .filter(|e| e["event"] == "elicitation" && e["step"] == index)
            .collect()
    }
}

/// Runs `interop/client.mjs` as `peer` against `url` with the steps file `script`, and
/// asserts that it exited 0 with every scripted expectation met.
pub async fn run_peer(url: &str, peer: Peer, script: &Path) -> Events {
    let script = script.to_str().expect("UTF-8 path");
    let mut args = vec!["client.mjs", url];
    args.extend_from_slice(peer.args());
    args.extend_from_slice(&["--script", script, "--timeout", "20000"]);
    let output = run(&node(), &args, &interop_dir(), PEER_TIMEOUT).await;
    let events = Events::parse(&output);
    assert!(
        output.success(),
        "the peer client failed\n{}",
        events.report
    );
    assert!(
        events.of("mismatch").is_empty(),
        "scripted expectations failed\n{}",
        events.report
    );
    let done = events.one("done");
    assert_eq!(done["mismatches"], 0, "{}", events.report);
    assert_eq!(done["exitCode"], 0, "{}", events.report);
    events
}

// ---------------------------------------------------------------------------------------
// The Python peer: `interop/python/client.py` on the `mcp` SDK pinned in
// `interop/python/requirements.txt`, installed in `interop/python/.venv` by `scripts/test.sh`
// ---------------------------------------------------------------------------------------

/// `interop/python/` in the repository.
pub fn python_dir() -> PathBuf {
    interop_dir().join("python")
}

/// The Python of the peer's virtual environment; panics with the command that creates it
/// when it is missing.
pub fn python() -> PathBuf {
    let venv = python_dir().join(".venv");
    let python = venv.join("bin/python");
    let runs = std::process::Command::new(&python)
        .args(["-c", "import mcp"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        runs,
        "the Python interop peer is not installed ({} cannot import `mcp`): run scripts/test.sh, \
         or `python3 -m venv {venv} && {venv}/bin/pip install -r {requirements}` (needs Python 3 \
         with its venv module)",
        python.display(),
        venv = venv.display(),
        requirements = python_dir().join("requirements.txt").display()
    );
    python
}

/// Runs `interop/python/client.py <scenario> <url> --mode <mode>` (with the steps file
/// `script`, if any) and asserts that it exited 0 without a failed expectation.
pub async fn run_python_peer(
    scenario: &str,
    url: &str,
    mode: &str,
    script: Option<&Path>,
) -> Events {
    let mut args = vec![
        "client.py",
        scenario,
        url,
        "--mode",
        mode,
        "--timeout",
        "20",
    ];
    if let Some(script) = script {
        args.extend_from_slice(&["--script", script.to_str().expect("UTF-8 path")]);
    }
    let output = run(&python(), &args, &python_dir(), PEER_TIMEOUT).await;
    let events = Events::parse(&output);
    assert!(
        output.success(),
        "the Python peer client failed\n{}",
        events.report
    );
    assert!(
        events.of("mismatch").is_empty(),
        "scripted expectations failed\n{}",
        events.report
    );
    assert_eq!(events.one("done")["exitCode"], 0, "{}", events.report);
    events
}
