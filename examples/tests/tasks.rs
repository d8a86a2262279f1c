//! Tasks end to end (the tasks extension, SEP-2663): the `reports` example served as a
//! process and driven by `mcp_call` (`call --task` with the task's status lines, `--json`,
//! an input request answered on the terminal through the task, `task ID --cancel` then
//! `task ID`), the generated typed client following a task, and `notifications/tasks` on a
//! `subscriptions/listen` stream over HTTP (its acknowledgement naming the task ids, the
//! task's states pushed until it completes, `-32021` without the extension).

mod interop_support;

use std::process::Stdio;
use std::time::Duration;

use interop_support::{ProcessOutput, Served, example_binary, repo_root, run};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt as _;

const TIMEOUT: Duration = Duration::from_secs(60);

async fn reports() -> Served {
    let mut command = tokio::process::Command::new(example_binary("reports"));
    command
        .env("MCP_ADDR", "127.0.0.1:0")
        .env("MCP_SECTION_MS", "150");
    Served::spawn("reports", command, "listening ").await
}

async fn mcp_call(args: &[&str]) -> ProcessOutput {
    run(&example_binary("mcp_call"), args, &repo_root(), TIMEOUT).await
}

#[tokio::test]
async fn mcp_call_follows_a_task_to_its_report() {
    let server = reports().await;
    let out = mcp_call(&[
        "--mode",
        "modern",
        &server.url,
        "call",
        "--task",
        "generate_report",
        r#"{"topic":"Q3","sections":3}"#,
    ])
    .await;
    assert!(out.success(), "{}\n{}", out.report(), server.report());
    let lines: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("task "))
        .collect();
    assert!(
        lines.first().is_some_and(|l| l.ends_with(" working")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.contains(": wrote section ")),
        "{lines:?}"
    );
    assert!(
        lines.last().is_some_and(|l| l.ends_with(" completed")),
        "{lines:?}"
    );
    let id = lines[0].split_whitespace().nth(1).unwrap();
    assert_eq!(id.len(), 32);
    let report: Value = serde_json::from_str(&out.stdout).expect("the report as text");
    assert_eq!(report["sections"].as_array().unwrap().len(), 3);

    // --json: the whole result, structured content included, and nothing else on stdout.
    let out = mcp_call(&[
        "--mode",
        "modern",
        "--json",
        &server.url,
        "call",
        "--task",
        "generate_report",
        r#"{"topic":"Q4","sections":1}"#,
    ])
    .await;
    assert!(out.success(), "{}", out.report());
    let result: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(result["structuredContent"]["topic"], "Q4");

    // A legacy client has no tasks: the same call runs to its result directly.
    let out = mcp_call(&[
        "--mode",
        "legacy",
        &server.url,
        "call",
        "--task",
        "generate_report",
        r#"{"topic":"Q1","sections":1}"#,
    ])
    .await;
    assert!(out.success(), "{}", out.report());
    assert!(!out.stderr.contains("task "), "{}", out.report());
}

#[tokio::test]
async fn mcp_call_answers_a_tasks_question_and_cancels_a_task() {
    let server = reports().await;
    // The appendix question comes through the task; mcp_call asks it on its stdin.
    let mut child = tokio::process::Command::new(example_binary("mcp_call"))
        .args([
            "--mode",
            "modern",
            &server.url,
            "call",
            "--task",
            "generate_report",
            r#"{"topic":"Q3","sections":1,"appendix":true}"#,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"y\nrevenue by region\n").await.unwrap();
    drop(stdin);
    let out = tokio::time::timeout(TIMEOUT, child.wait_with_output())
        .await
        .expect("mcp_call ends")
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("What should the appendix list?"),
        "{stderr}"
    );
    assert!(stderr.contains("input_required"), "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["appendix"], "Data listed: revenue by region");

    // A long task, started over HTTP, cancelled by id, then followed: cancelled, exit 1.
    let client = modern_client(&server.url).await;
    let mcp::client::TaskCall::Task(task) = client
        .call("generate_report")
        .arguments(json!({"topic": "long", "sections": 6}))
        .unwrap()
        .as_task()
        .await
        .unwrap()
    else {
        panic!("a direct result");
    };
    let out = mcp_call(&[
        "--mode",
        "modern",
        &server.url,
        "task",
        task.id(),
        "--cancel",
    ])
    .await;
    assert!(out.success(), "{}", out.report());
    let out = mcp_call(&["--mode", "modern", &server.url, "task", task.id()]).await;
    assert_eq!(
        out.status.and_then(|s| s.code()),
        Some(1),
        "{}",
        out.report()
    );
    assert!(out.stderr.contains("was cancelled"), "{}", out.report());
    let out = mcp_call(&["--mode", "modern", &server.url, "task", "nope"]).await;
    assert_eq!(
        out.status.and_then(|s| s.code()),
        Some(1),
        "{}",
        out.report()
    );
    assert!(out.stderr.contains("Task not found"), "{}", out.report());
}

async fn modern_client(url: &str) -> mcp::client::Client {
    let client = mcp::client::Client::new(
        url,
        mcp::client::ClientConfig::new().protocol_mode(mcp::client::ProtocolMode::Modern),
    )
    .unwrap();
    client
        .connect(mcp::client::ConnectOptions::default())
        .await
        .unwrap();
    client
}

#[tokio::test]
async fn the_typed_client_follows_a_task() {
    use mcp::client::TypedClient as _;
    let server = reports().await;
    let reports =
        mcp_examples::reports::ReportsClient::from_client(modern_client(&server.url).await);
    // Awaited directly, a typed call waits for its result (no task: the call did not
    // declare the extension).
    let report = reports
        .generate_report("direct", Some(1), None)
        .await
        .unwrap();
    assert_eq!(report.topic, "direct");
    // As a task: a handle, followed to the typed result.
    let mut task = reports
        .generate_report("as a task", Some(2), None)
        .as_task()
        .await
        .unwrap();
    let id = task.id().map(str::to_owned).expect("a task");
    let mut seen = Vec::new();
    let report = task.wait_with(|t| seen.push(t.status)).await.unwrap();
    assert_eq!(report.sections.len(), 2);
    assert_eq!(
        seen.first(),
        Some(&mcp::protocol::TaskStatus::Working),
        "{id}"
    );
}

/// Reads SSE `data:` lines of `response` until `until` accepts one, or the deadline.
async fn read_events(
    response: &mut reqwest::Response,
    mut until: impl FnMut(&Value) -> bool,
) -> Vec<Value> {
    let mut events = Vec::new();
    let mut buffer = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let chunk = tokio::time::timeout_at(deadline, response.chunk())
            .await
            .expect("events before the deadline")
            .expect("the stream")
            .expect("the stream is open");
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find('\n') {
            let line = buffer[..end].trim_end_matches('\r').to_owned();
            buffer.drain(..=end);
            if let Some(data) = line.strip_prefix("data:") {
                let event: Value = serde_json::from_str(data.trim()).unwrap_or(Value::Null);
                let done = until(&event);
                events.push(event);
                if done {
                    return events;
                }
            }
        }
    }
}

fn modern_post(
    url: &str,
    method: &str,
    params: Value,
    name: Option<&str>,
) -> reqwest::RequestBuilder {
    let mut params = params;
    let meta = params["_meta"].take();
    let mut envelope = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "tasks-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    });
    if let (Some(env), Value::Object(meta)) = (envelope.as_object_mut(), meta) {
        env.extend(meta);
    }
    params["_meta"] = envelope;
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}));
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    request
}

/// Creates a `generate_report` task of `sections` sections on `url`; its id.
async fn create_report(url: &str, topic: &str, sections: u32) -> String {
    let created: Value = modern_post(
        url,
        "tools/call",
        json!({"name": "generate_report", "arguments": {"topic": topic, "sections": sections}}),
        Some("generate_report"),
    )
    .send()
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_owned()
}

/// Listens on `url` to task `id` until it completes; the events read.
async fn listen_until_completed(url: &str, id: &str) -> Vec<Value> {
    let mut stream = modern_post(
        url,
        "subscriptions/listen",
        json!({"notifications": {"taskIds": [id]}}),
        None,
    )
    .send()
    .await
    .unwrap();
    assert_eq!(stream.status(), 200);
    read_events(&mut stream, |e| {
        e["method"] == "notifications/tasks" && e["params"]["status"] == "completed"
    })
    .await
}

#[tokio::test]
async fn a_listen_stream_hears_its_tasks() {
    let server = reports().await;
    let id = create_report(&server.url, "heard", 3).await;
    let events = listen_until_completed(&server.url, &id).await;
    let ack = &events[0];
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{events:#?}"
    );
    assert_eq!(ack["params"]["notifications"]["taskIds"], json!([id]));
    let tasks: Vec<&Value> = events
        .iter()
        .filter(|e| e["method"] == "notifications/tasks")
        .collect();
    assert!(
        tasks.iter().any(|t| t["params"]["statusMessage"]
            .as_str()
            .is_some_and(|m| m.starts_with("wrote section"))),
        "{tasks:#?}"
    );
    let last = tasks.last().unwrap();
    assert_eq!(last["params"]["taskId"], json!(id));
    assert_eq!(
        last["params"]["result"]["structuredContent"]["topic"],
        "heard"
    );
    assert!(last["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].is_number());

    // Without the extension declared: -32021, naming it.
    let refused = reqwest::Client::new()
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen")
        .json(
            &json!({"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen", "params": {
                "notifications": {"taskIds": [id]},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                    "io.modelcontextprotocol/clientCapabilities": {}
                }
            }}),
        )
        .send()
        .await
        .unwrap();
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32021, "{body}");
}

#[tokio::test]
async fn a_listen_stream_hears_a_task_running_on_another_replica() {
    use interop_support::TestServer;
    use mcp_examples::reports::Reports;
    // Two replicas sharing a bus and a task store (in one process; across processes the
    // same holds with RedisBus and RedisTaskStore).
    let bus = mcp::notify::InProcessBus::new();
    let store = mcp::tasks::MemoryTaskStore::new();
    let replica = |bus: mcp::notify::InProcessBus, store: mcp::tasks::MemoryTaskStore| {
        move |_| {
            mcp::Server::builder(Reports::new(Duration::from_millis(100)))
                .event_bus(bus)
                .task_store(store)
        }
    };
    let a = TestServer::start(replica(bus.clone(), store.clone())).await;
    let b = TestServer::start(replica(bus, store)).await;
    let id = create_report(&a.url, "elsewhere", 3).await;
    let events = listen_until_completed(&b.url, &id).await;
    let last = events.last().unwrap();
    assert_eq!(last["params"]["taskId"], json!(id), "{events:#?}");
    assert_eq!(
        last["params"]["result"]["structuredContent"]["topic"],
        "elsewhere"
    );
}
