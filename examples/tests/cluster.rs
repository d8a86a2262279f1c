//! A real cluster: `scripts/cluster.sh` starts a throwaway Redis, two replicas of the
//! inventory example (sessions and event bus in Redis, one request-state key) and HAProxy
//! in front (round-robin, nothing sticky); the TypeScript v2 client (`interop/notify.mjs`)
//! drives it through HAProxy in both eras:
//!
//! - legacy: the session's requests alternate between replicas and its counter keeps
//!   counting; `tools/list_changed` and `resources/updated` raised on either replica reach
//!   the GET stream within 1 s; elicitations complete, at least one with its answer POSTed
//!   to the replica that did not ask (seen in that replica's log);
//! - modern: a listen stream hears changes raised on both replicas within 1 s, and an
//!   `input_required` round continues on the other replica (shared request-state key);
//! - then replica `a` is killed: the session goes on, served by `b`, its counter intact.
//!
//! A third cluster, with a task lease of 1.5 s (`MCP_TASK_LEASE_MS`; tasks in Redis): a task
//! of the inventory's `audit` tool created on replica `a` is answered through `b` (so its
//! work runs on `b`), polled through `a`, `b` and HAProxy, and completes; a task working on
//! `a` is cancelled through `b` and `a` stops it at its next lease renewal; a task working
//! on `a` when `a` is killed is failed by `b` once its lease lapsed, with the reason.
//!
//! A second cluster, started with `MCP_RATE_LIMIT=5/hour` (the replicas' per-caller limit of
//! tool calls, one budget in Redis; behind HAProxy every anonymous caller is HAProxy's
//! address, so the peer is one caller): the TypeScript v2 client (`interop/rate.mjs`) calls
//! ten times through HAProxy and gets exactly five answers, from both replicas, then five
//! `ProtocolError`s with code `-32029` and `data.retryAfterMs`; the v1 SDK's client then
//! gets `McpError`s with the same code and data; both replicas logged refusals. The
//! clusters run one at a time.
//!
//! Needs redis-server, haproxy (Debian packages) and `npm ci` in `interop/`; fails, never
//! skips, without them. Built with `--features mcp-examples/redis` (the replicas need it).

mod interop_support;

use std::process::Stdio;
use std::time::Duration;

use interop_support::{example_binary, interop_dir, node, repo_root};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The cluster script, running; stopped (with everything it started) when dropped.
struct Cluster {
    child: Child,
    _stdin: ChildStdin,
    url: String,
    replicas: Vec<(String, u32, String)>,
    logs: std::path::PathBuf,
}

/// One cluster at a time: two would share the two cores, and the notification scenarios
/// time their notifications.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

impl Cluster {
    /// Starts the cluster `name` (its logs' directory) with `env` added to the script's
    /// environment (passed on to the replicas).
    async fn start(name: &str, env: &[(&str, &str)]) -> Self {
        let logs = std::env::temp_dir().join(format!("mcp-cluster-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&logs);
        let mut child = Command::new(repo_root().join("scripts/cluster.sh"))
            .env("MCP_CLUSTER_BIN", example_binary("inventory"))
            .env("MCP_CLUSTER_LOGS", &logs)
            .env("RUST_LOG", "warn,mcp::notify=debug")
            .env_remove("MCP_RATE_LIMIT")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("scripts/cluster.sh runs");
        let stdin = child.stdin.take().expect("stdin");
        let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let mut replicas = Vec::new();
        let url = loop {
            let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line()).await;
            let line = match line {
                Ok(Ok(Some(line))) => line,
                other => {
                    let mut err = String::new();
                    if let Some(mut e) = child.stderr.take() {
                        use tokio::io::AsyncReadExt as _;
                        let _ = tokio::time::timeout(
                            Duration::from_secs(2),
                            e.read_to_string(&mut err),
                        )
                        .await;
                    }
                    panic!("scripts/cluster.sh did not start the cluster ({other:?}):\n{err}");
                }
            };
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["replica", name, pid, url] => {
                    replicas.push((
                        (*name).to_owned(),
                        pid.parse().expect("a pid"),
                        (*url).to_owned(),
                    ));
                }
                ["cluster", url] => break (*url).to_owned(),
                _ => {}
            }
        };
        assert_eq!(replicas.len(), 2, "two replicas");
        Self {
            child,
            _stdin: stdin,
            url,
            replicas,
            logs,
        }
    }

    fn log(&self, replica: &str) -> String {
        std::fs::read_to_string(self.logs.join(format!("{replica}.err"))).unwrap_or_default()
    }

    /// The URL of replica `name` itself (not through HAProxy).
    fn url_of(&self, name: &str) -> &str {
        &self
            .replicas
            .iter()
            .find(|(n, ..)| n == name)
            .expect("a replica")
            .2
    }

    /// Kills replica `name` (SIGKILL: no graceful anything).
    fn kill(&self, name: &str) {
        let pid = self
            .replicas
            .iter()
            .find(|(n, ..)| n == name)
            .expect("a replica")
            .1;
        let status = std::process::Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "killed replica {name}");
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Some(pid) = self.child.id() {
            let _ = std::process::Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .status();
            // The script stops what it started on SIGTERM: wait for it (10 s at most), or
            // `kill_on_drop`'s SIGKILL, which it cannot trap, would leave Redis, HAProxy and
            // the replicas running.
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while std::time::Instant::now() < deadline && matches!(self.child.try_wait(), Ok(None))
            {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = std::fs::remove_dir_all(&self.logs);
    }
}

/// The TypeScript peer in `--pause` mode.
struct Peer {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    events: Vec<Value>,
}

impl Peer {
    fn start(url: &str, mode: &str) -> Self {
        let mut child = Command::new(node())
            .args(["notify.mjs", url, "--mode", mode, "--pause"])
            .current_dir(interop_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("node runs");
        let stdin = child.stdin.take().expect("stdin");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Self {
            child,
            stdin,
            lines,
            events: Vec::new(),
        }
    }

    /// Reads events up to (and including) `until`.
    async fn read_until(&mut self, until: &str) {
        loop {
            let line = tokio::time::timeout(Duration::from_secs(60), self.lines.next_line())
                .await
                .unwrap_or_else(|_| panic!("no `{until}` within 60 s: {:#?}", self.events));
            let Ok(Some(line)) = line else {
                panic!("the peer ended before `{until}`: {:#?}", self.events);
            };
            let event: Value = serde_json::from_str(&line).expect("a JSON line");
            let kind = event["event"].as_str().unwrap_or_default().to_owned();
            self.events.push(event);
            assert_ne!(kind, "error", "the peer failed: {:#?}", self.events);
            if kind == until {
                return;
            }
        }
    }

    async fn resume(&mut self) {
        self.stdin
            .write_all(b"go\n")
            .await
            .expect("write to the peer");
        self.read_until("done").await;
        let status = tokio::time::timeout(Duration::from_secs(20), self.child.wait())
            .await
            .expect("the peer exits")
            .expect("status");
        assert!(status.success(), "{:#?}", self.events);
    }

    fn of(&self, kind: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["event"] == kind).collect()
    }
}

/// Both notifications arrived within 1 s of the call that raised them, raised on both
/// replicas (the calls alternate); the names of the replicas that raised them.
fn check_notifications(peer: &Peer) {
    let called: Vec<String> = peer
        .of("called")
        .iter()
        .map(|c| {
            c["text"]
                .as_str()
                .unwrap()
                .rsplit(' ')
                .next()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(called.len(), 2, "{:#?}", peer.events);
    assert_ne!(
        called[0], called[1],
        "raised on both replicas: {:#?}",
        peer.events
    );
    let notified = peer.of("notified");
    assert_eq!(notified.len(), 2, "{:#?}", peer.events);
    assert_eq!(notified[0]["method"], "notifications/tools/list_changed");
    assert_eq!(notified[1]["method"], "notifications/resources/updated");
    for n in notified {
        assert!(
            n["ms"].as_f64().is_some_and(|ms| ms < 1000.0),
            "within 1 s: {n}"
        );
    }
}

fn counts(peer: &Peer) -> Vec<(i64, String)> {
    peer.of("count")
        .iter()
        .map(|c| {
            let text = c["value"].as_str().unwrap();
            let (n, replica) = text.split_once(" on ").unwrap();
            (n.parse().unwrap(), replica.to_owned())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_behind_round_robin_haproxy_behave_as_one_server() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let cluster = Cluster::start("notify", &[]).await;

    let mut legacy = Peer::start(&cluster.url, "legacy");
    legacy.read_until("paused").await;
    let before = counts(&legacy);
    assert_eq!(
        before.iter().map(|c| c.0).collect::<Vec<_>>(),
        [1, 2, 3, 4],
        "{:#?}",
        legacy.events
    );
    assert!(
        before.iter().any(|c| c.1 == "a") && before.iter().any(|c| c.1 == "b"),
        "the session's requests alternate between replicas: {before:?}"
    );
    check_notifications(&legacy);
    let confirmed = legacy.of("confirmed");
    assert_eq!(confirmed.len(), 2, "{:#?}", legacy.events);
    for c in &confirmed {
        assert!(
            c["text"].as_str().unwrap().starts_with("confirmed true"),
            "{c}"
        );
    }

    let mut modern = Peer::start(&cluster.url, "modern");
    modern.read_until("paused").await;
    check_notifications(&modern);
    let confirmed = modern.of("confirmed");
    assert_eq!(confirmed.len(), 2, "{:#?}", modern.events);
    // The `input_required` round was asked by one replica and answered by the other at
    // least once (the retry follows the round-robin).
    let crossed = confirmed.iter().any(|c| {
        let t = c["text"].as_str().unwrap();
        (t.contains("asked by a") && t.contains("answered on b"))
            || (t.contains("asked by b") && t.contains("answered on a"))
    });
    assert!(crossed, "{:#?}", modern.events);

    // A legacy elicitation answer crossed replicas (the two confirmations differ in parity).
    let relayed = ["a", "b"]
        .iter()
        .any(|r| cluster.log(r).contains("arrived through another replica"));
    assert!(relayed, "logs:\n{}\n{}", cluster.log("a"), cluster.log("b"));

    // Replica a dies: nothing is lost, b serves the session.
    cluster.kill("a");
    tokio::time::sleep(Duration::from_millis(500)).await;
    legacy.resume().await;
    let after = counts(&legacy);
    assert_eq!(
        after.iter().map(|c| c.0).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6, 7, 8],
        "{:#?}",
        legacy.events
    );
    assert!(after[4..].iter().all(|c| c.1 == "b"), "{after:?}");
    modern.resume().await;
    let replicas: Vec<&Value> = modern
        .of("replica")
        .iter()
        .filter(|r| r["after"] == "pause")
        .map(|r| &r["replica"])
        .collect();
    assert_eq!(replicas.len(), 4);
    assert!(replicas.iter().all(|r| *r == "b"), "{replicas:?}");
}

/// Runs `interop/rate.mjs <url> <args>` to its end; its events.
async fn rate_peer(url: &str, args: &[&str]) -> Vec<Value> {
    let output = Command::new(node())
        .arg("rate.mjs")
        .arg(url)
        .args(args)
        .current_dir(interop_dir())
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(60), output)
        .await
        .expect("rate.mjs ends within 60 s")
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "rate.mjs {args:?} failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

/// Checks a refusal event: the SDK's protocol error `class`, code `-32029`, and a
/// `retryAfterMs` of about one interval of `5/hour` (12 min).
fn check_refusal(event: &Value, class: &str) {
    assert_eq!(event["class"], class, "{event}");
    assert_eq!(event["protocolError"], true, "{event}");
    assert_eq!(event["code"], -32029, "{event}");
    assert!(
        event["message"]
            .as_str()
            .is_some_and(|m| m.ends_with("Rate limit exceeded")),
        "{event}"
    );
    let ms = event["data"]["retryAfterMs"]
        .as_u64()
        .expect("retryAfterMs");
    assert!((660_000..=720_000).contains(&ms), "{event}");
    assert_eq!(event["data"]["retryAfter"], ms.div_ceil(1000), "{event}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limited_caller_gets_its_budget_across_both_replicas_not_twice_it() {
    const N: usize = 5;
    let _alone = ONE_AT_A_TIME.lock().await;
    // 5 an hour: no call's budget comes back while the test runs.
    let cluster = Cluster::start(
        "rate",
        &[
            ("MCP_RATE_LIMIT", "5/hour"),
            ("RUST_LOG", "warn,mcp::middleware=debug"),
        ],
    )
    .await;

    let events = rate_peer(&cluster.url, &["--calls", "10", "--mode", "modern"]).await;
    let served: Vec<&Value> = events.iter().filter(|e| e["event"] == "served").collect();
    let refused: Vec<&Value> = events.iter().filter(|e| e["event"] == "refused").collect();
    assert_eq!(served.len(), N, "exactly N calls in all: {events:#?}");
    assert_eq!(refused.len(), N, "{events:#?}");
    assert!(
        served.iter().zip(0..).all(|(e, i)| e["call"] == i),
        "the first N calls were served: {events:#?}"
    );
    for replica in ["a", "b"] {
        assert!(
            served.iter().any(|e| e["replica"] == replica),
            "replica {replica} served some of the calls: {events:#?}"
        );
    }
    for event in &refused {
        check_refusal(event, "ProtocolError");
    }

    // The v1 SDK's client, in a legacy session: the budget is spent.
    let events = rate_peer(&cluster.url, &["--calls", "2", "--mode", "legacy", "--v1"]).await;
    let refused: Vec<&Value> = events.iter().filter(|e| e["event"] == "refused").collect();
    assert_eq!(refused.len(), 2, "{events:#?}");
    for event in &refused {
        check_refusal(event, "McpError");
    }

    // Both replicas refused calls: each charged the one budget in Redis.
    for replica in ["a", "b"] {
        assert!(
            cluster.log(replica).contains("rate limit exceeded"),
            "replica {replica} refused some of the calls:\n{}",
            cluster.log(replica)
        );
    }
}

/// A modern client of `url` (our own: no peer SDK serves the tasks extension yet).
async fn tasks_client(url: &str) -> mcp::client::Client {
    let client = mcp::client::Client::new(
        url,
        mcp::client::ClientConfig::new()
            .protocol_mode(mcp::client::ProtocolMode::Modern)
            .timeout(Duration::from_secs(10))
            // Declares elicitation (the audit asks); the tests answer by hand.
            .elicitation_handler(|_: mcp::ElicitRequest| async {
                Ok(mcp::ElicitResult::accept(serde_json::Map::new()))
            }),
    )
    .expect("a client");
    client
        .connect(mcp::client::ConnectOptions::default())
        .await
        .expect("connects");
    client
}

/// Starts `audit` of `warehouse` on `client`'s replica and waits for its question.
async fn audit_waiting(
    client: &mcp::client::Client,
    warehouse: &str,
    seconds: f64,
) -> mcp::client::TaskHandle {
    let call = client
        .call("audit")
        .arguments(serde_json::json!({"warehouse": warehouse, "seconds": seconds}))
        .unwrap()
        .as_task()
        .await
        .expect("a task");
    let mcp::client::TaskCall::Task(mut task) = call else {
        panic!("audit answered directly");
    };
    for _ in 0..200 {
        if task.status() == mcp::protocol::TaskStatus::InputRequired {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        task.refresh().await.unwrap();
    }
    panic!("the audit never asked: {:?}", task.task());
}

fn go() -> mcp::protocol::JsonObject {
    serde_json::json!({"go": {"action": "accept", "content": {"ok": true}}})
        .as_object()
        .cloned()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_cross_replicas_and_outlive_a_dead_one() {
    use mcp::protocol::TaskStatus;
    let _alone = ONE_AT_A_TIME.lock().await;
    let cluster = Cluster::start(
        "tasks",
        &[
            ("MCP_TASK_LEASE_MS", "1500"),
            ("RUST_LOG", "warn,mcp::dispatch::tasks=info"),
        ],
    )
    .await;
    let a = tasks_client(cluster.url_of("a")).await;
    let b = tasks_client(cluster.url_of("b")).await;
    let front = tasks_client(&cluster.url).await;

    // Created on a, answered through b: the next round (the work) runs on b.
    let asked = audit_waiting(&a, "north", 1.0).await;
    let mut on_b = b.task(asked.id()).await.expect("b reads a's task");
    assert_eq!(on_b.status(), TaskStatus::InputRequired);
    on_b.respond(go()).await.unwrap();
    let mut messages = Vec::new();
    let result = on_b
        .wait_with(|t| messages.extend(t.status_message.clone()))
        .await
        .unwrap();
    assert_eq!(result.joined_text(), "audited north on b");
    assert!(messages.iter().any(|m| m.ends_with("on b")), "{messages:?}");
    for (via, client) in [("a", &a), ("front", &front)] {
        let t = client.get_task(asked.id()).await.unwrap();
        assert_eq!(t.status, TaskStatus::Completed, "through {via}");
        assert!(t.result.is_some(), "through {via}");
    }

    // Working on a, cancelled through b: a stops it at its next renewal.
    let mut long = audit_waiting(&a, "south", 60.0).await;
    long.respond(go()).await.unwrap();
    for _ in 0..100 {
        if long.refresh().await.unwrap().status_message.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    b.cancel_task(long.id()).await.unwrap();
    assert_eq!(
        a.get_task(long.id()).await.unwrap().status,
        TaskStatus::Cancelled
    );
    let mut stopped = false;
    for _ in 0..60 {
        if cluster
            .log("a")
            .contains("stopped the round of a task cancelled")
        {
            stopped = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        stopped,
        "a stopped the cancelled audit:\n{}",
        cluster.log("a")
    );
    assert_eq!(
        front.get_task(long.id()).await.unwrap().status,
        TaskStatus::Cancelled
    );

    // Working on a when a dies: b fails it once the lease lapsed, with the reason.
    let mut orphan = audit_waiting(&a, "east", 60.0).await;
    orphan.respond(go()).await.unwrap();
    for _ in 0..100 {
        if orphan.refresh().await.unwrap().status_message.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(orphan.status(), TaskStatus::Working);
    cluster.kill("a");
    let started = std::time::Instant::now();
    let failed = loop {
        let t = b.get_task(orphan.id()).await.unwrap();
        if t.status != TaskStatus::Working {
            break t;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "still working: {t:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(failed.status, TaskStatus::Failed);
    let error = failed.error.expect("the failure");
    assert_eq!(error.code.get(), -32603);
    assert!(
        error.message.contains("stopped before it finished"),
        "{error:?}"
    );
    assert!(
        started.elapsed() >= Duration::from_millis(500),
        "not before its lease lapsed"
    );
}
