//! Tool calls as tasks (the tasks extension, SEP-2663), in-process through the client:
//! negotiation (advertised in discovery, `-32021` for required tools and for `tasks/*`
//! without the extension, plain results for optional tools), a task followed by its handle
//! with progress in the status message, transparent polling, input through `tasks/update`,
//! input before the task (SEP-2322 rounds), cancellation, failures, unknown ids, the
//! per-caller limit and the result size cap, and the lease of a replica that stopped.
#![allow(missing_docs)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp::client::{Client, ClientConfig, ClientError, ProtocolMode, TaskCall, ToolCallError};
use mcp::protocol::{ErrorCode, TASKS_EXTENSION, TaskStatus};
use mcp::tasks::{MemoryTaskStore, TaskConfig};
use mcp::{Context, ElicitRequest, ElicitResult, InputRequired, ToolError, ToolOutput};
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize, schemars::JsonSchema, mcp::Form)]
pub struct Confirm {
    pub ok: bool,
}

#[derive(Deserialize, schemars::JsonSchema, mcp::Form)]
pub struct Name {
    pub name: String,
}

/// Steps `spin` has worked, in all (only the cancellation test calls it).
static SPINS: AtomicUsize = AtomicUsize::new(0);

pub struct Jobs;

#[mcp::service(name = "jobs", version = "1.0.0")]
impl Jobs {
    /// Works for `steps` tenths of a second, reporting each step.
    #[tool(task = "optional")]
    pub async fn report(&self, ctx: Context, steps: u32) -> String {
        for step in 1..=steps {
            tokio::time::sleep(Duration::from_millis(100)).await;
            ctx.progress(
                f64::from(step),
                f64::from(steps),
                Some(&format!("step {step} of {steps}")),
            )
            .await;
        }
        format!("report of {steps} steps")
    }

    /// Only as a task.
    #[tool(task = "required")]
    pub async fn export(&self, rows: u32) -> Result<String, ToolError> {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if rows == 0 {
            return Err(ToolError::new("nothing to export"));
        }
        Ok("x".repeat(rows as usize))
    }

    /// Asks for a confirmation through the task.
    #[tool(task = "optional")]
    pub async fn purge(&self, ctx: Context) -> ToolOutput<String> {
        tokio::time::sleep(Duration::from_millis(20)).await;
        match ctx.accepted_content::<Confirm>("confirm") {
            Some(Confirm { ok: true }) => ToolOutput::Done("purged".into()),
            Some(Confirm { ok: false }) => ToolOutput::Done("kept".into()),
            None => InputRequired::new()
                .elicit(
                    "confirm",
                    mcp::elicit_form("Purge everything?", mcp::form_of::<Confirm>()),
                )
                .into(),
        }
    }

    /// Asks for a name before the task, then works as one.
    #[tool(task = "required")]
    pub async fn welcome(&self, ctx: Context) -> ToolOutput<String> {
        match ctx.accepted_content::<Name>("name") {
            Some(Name { name }) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                ToolOutput::Done(format!("welcome, {name}"))
            }
            None => InputRequired::new()
                .elicit(
                    "name",
                    mcp::elicit_form("Your name?", mcp::form_of::<Name>()),
                )
                .before_task()
                .into(),
        }
    }

    /// A protocol error from the tool.
    #[tool(task = "optional")]
    pub async fn crash(&self) -> Result<String, mcp::ServerError> {
        tokio::time::sleep(Duration::from_millis(20)).await;
        Err(mcp::ServerError::client_message("the worker crashed"))
    }

    /// Works until cancelled.
    #[tool(task = "required")]
    pub async fn spin(&self) -> String {
        loop {
            tokio::time::sleep(Duration::from_millis(20)).await;
            SPINS.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Reports progress and finishes within its first poll.
    #[tool(task = "optional")]
    pub async fn quick(&self, ctx: Context) -> String {
        ctx.progress(1.0, 1.0, Some("all done")).await;
        "quick".into()
    }

    /// Never a task.
    pub fn ping(&self) -> String {
        "pong".into()
    }
}

fn handler_config(tasks: bool) -> ClientConfig {
    ClientConfig::new()
        .protocol_mode(ProtocolMode::Modern)
        .timeout(Duration::from_secs(10))
        .tasks(tasks)
        .elicitation_handler(|request: ElicitRequest| async move {
            let content = if request.params.message().contains("name") {
                json!({"name": "Ada"})
            } else {
                json!({"ok": true})
            };
            Ok(ElicitResult::accept(
                content.as_object().cloned().unwrap_or_default(),
            ))
        })
}

async fn client_of(server: mcp::Server, config: ClientConfig) -> Client {
    let client = Client::in_process(server.in_process(), config).expect("client");
    client
        .connect(mcp::client::ConnectOptions::default())
        .await
        .expect("connects");
    client
}

fn jobs(config: TaskConfig) -> mcp::Server {
    mcp::Server::builder(Jobs)
        .tasks(config.with_poll_interval(Duration::from_millis(20)))
        .build()
        .expect("builds")
}

fn rpc_code(e: &ClientError) -> Option<ErrorCode> {
    e.code()
}

/// Calls `tool` with `arguments` as a task; its handle (a direct result fails the test).
async fn start(
    client: &Client,
    tool: &str,
    arguments: serde_json::Value,
) -> mcp::client::TaskHandle {
    match client
        .call(tool)
        .arguments(arguments)
        .unwrap()
        .as_task()
        .await
        .unwrap()
    {
        TaskCall::Task(task) => task,
        TaskCall::Complete(result) => panic!("{tool} answered directly: {result:?}"),
    }
}

#[tokio::test]
async fn negotiation_decides_between_a_task_and_a_plain_result() {
    let client = client_of(jobs(TaskConfig::default()), handler_config(false)).await;
    let info = client.connection().unwrap();
    let caps = info.capabilities();
    assert!(
        caps.extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(TASKS_EXTENSION)),
        "discovery advertises the extension: {caps:?}"
    );
    // Without the extension: an optional tool answers directly, a required one -32021.
    let plain = client
        .call("report")
        .arguments(json!({"steps": 1}))
        .unwrap()
        .await
        .unwrap();
    assert_eq!(plain.joined_text(), "report of 1 steps");
    let refused = client
        .call("export")
        .arguments(json!({"rows": 3}))
        .unwrap()
        .await
        .unwrap_err();
    assert_eq!(
        rpc_code(&refused),
        Some(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY)
    );
    assert!(
        refused.to_string().contains("runs only as a task"),
        "{refused}"
    );
    // A tool without task support answers directly even when the call declares it.
    match client.call("ping").as_task().await.unwrap() {
        TaskCall::Complete(r) => assert_eq!(r.joined_text(), "pong"),
        TaskCall::Task(t) => panic!("ping became task {}", t.id()),
    }
}

#[tokio::test]
async fn a_task_is_followed_with_progress_in_its_status_message() {
    let client = client_of(jobs(TaskConfig::default()), handler_config(false)).await;
    let mut task = start(&client, "report", json!({"steps": 5})).await;
    assert_eq!(task.status(), TaskStatus::Working);
    assert_eq!(task.id().len(), 32, "128 random bits, hex");
    let mut messages = Vec::new();
    let result = task
        .wait_with(|t| {
            if let Some(m) = &t.status_message
                && messages.last() != Some(m)
            {
                messages.push(m.clone());
            }
        })
        .await
        .unwrap();
    assert_eq!(result.joined_text(), "report of 5 steps");
    assert!(
        messages.iter().any(|m| m.starts_with("step ")),
        "{messages:?}"
    );
    // The task stays readable once done, with its result inlined.
    let again = client.get_task(task.id()).await.unwrap();
    assert_eq!(again.status, TaskStatus::Completed);
    assert!(again.result.is_some() && again.error.is_none());
    // Resumed by id, e.g. after a restart.
    let mut resumed = client.task(task.id()).await.unwrap();
    assert_eq!(
        resumed.wait().await.unwrap().joined_text(),
        "report of 5 steps"
    );
}

#[tokio::test]
async fn awaiting_a_call_follows_its_task_transparently() {
    let client = client_of(jobs(TaskConfig::default()), handler_config(true)).await;
    let result = client
        .call("export")
        .arguments(json!({"rows": 4}))
        .unwrap()
        .await
        .unwrap();
    assert_eq!(result.joined_text(), "xxxx");
    // A tool error completes the task with isError; it is not a protocol error.
    let failed = client
        .call("export")
        .arguments(json!({"rows": 0}))
        .unwrap()
        .await
        .unwrap();
    assert!(failed.is_error());
    // A protocol error fails the task: the call gets the JSON-RPC error.
    let crashed = client.call("crash").await.unwrap_err();
    assert_eq!(rpc_code(&crashed), Some(ErrorCode::INTERNAL_ERROR));
    assert!(
        crashed.to_string().contains("the worker crashed"),
        "{crashed}"
    );
    // Input through the task, answered by the elicitation handler.
    assert_eq!(client.call("purge").await.unwrap().joined_text(), "purged");
    // Input before the task (SEP-2322 round), then the task.
    assert_eq!(
        client.call("welcome").await.unwrap().joined_text(),
        "welcome, Ada"
    );
}

#[tokio::test]
async fn input_requests_are_answered_through_tasks_update() {
    let client = client_of(jobs(TaskConfig::default()), handler_config(false)).await;
    let mut task = start(&client, "purge", json!({})).await;
    while task.status() != TaskStatus::InputRequired {
        tokio::time::sleep(Duration::from_millis(10)).await;
        task.refresh().await.unwrap();
    }
    let requests = task.task().input_requests.clone().unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["confirm"]);
    assert_eq!(requests["confirm"]["method"], "elicitation/create");
    // An unknown key is ignored; the task still waits.
    task.respond(
        json!({"other": {"action": "accept", "content": {}}})
            .as_object()
            .cloned()
            .unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(
        task.refresh().await.unwrap().status,
        TaskStatus::InputRequired
    );
    // An answer that is not an object is refused.
    let bad = task
        .respond(json!({"confirm": 7}).as_object().cloned().unwrap())
        .await
        .unwrap_err();
    assert_eq!(rpc_code(&bad), Some(ErrorCode::INVALID_PARAMS));
    let mut task = client.task(task.id()).await.unwrap();
    task.respond(
        json!({"confirm": {"action": "accept", "content": {"ok": false}}})
            .as_object()
            .cloned()
            .unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(task.wait().await.unwrap().joined_text(), "kept");
}

#[tokio::test]
async fn cancelling_stops_the_tool_and_is_idempotent() {
    let client = client_of(jobs(TaskConfig::default()), handler_config(false)).await;
    let mut task = start(&client, "spin", json!({})).await;
    while SPINS.load(Ordering::SeqCst) < 2 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    task.cancel().await.unwrap();
    assert_eq!(task.refresh().await.unwrap().status, TaskStatus::Cancelled);
    let err = task.wait().await.unwrap_err();
    assert!(
        matches!(
            err,
            ClientError::ToolCall(ToolCallError::TaskCancelled { .. })
        ),
        "{err}"
    );
    task.cancel()
        .await
        .expect("cancelling a cancelled task is acknowledged");
    // The round was dropped: the tool works no more.
    let spins = SPINS.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        SPINS.load(Ordering::SeqCst) <= spins + 1,
        "the cancelled tool kept working"
    );
    assert_eq!(
        client.get_task(task.id()).await.unwrap().status,
        TaskStatus::Cancelled
    );
}

#[tokio::test]
async fn unknown_ids_limits_and_size_caps_get_precise_errors() {
    let config = TaskConfig::default()
        .with_max_active_anonymous(2)
        .with_max_result_bytes(1000);
    let client = client_of(jobs(config), handler_config(false)).await;
    for method in ["get", "cancel"] {
        let err = match method {
            "get" => client
                .get_task("0123456789abcdef0123456789abcdef")
                .await
                .map(drop),
            _ => client.cancel_task("nope").await,
        }
        .unwrap_err();
        assert_eq!(rpc_code(&err), Some(ErrorCode::INVALID_PARAMS), "{method}");
        assert!(err.to_string().contains("Task not found"), "{err}");
    }
    // Two active tasks at most: the third is refused, not queued.
    let slow = || {
        client
            .call("report")
            .arguments(json!({"steps": 50}))
            .unwrap()
            .as_task()
    };
    let (TaskCall::Task(a), TaskCall::Task(b)) = (slow().await.unwrap(), slow().await.unwrap())
    else {
        panic!("direct results");
    };
    let refused = slow().await.unwrap_err();
    assert_eq!(rpc_code(&refused), Some(ErrorCode::OVERLOADED));
    assert!(
        refused.to_string().contains("Too many active tasks"),
        "{refused}"
    );
    // A finished (here cancelled) task frees its place.
    a.cancel().await.unwrap();
    b.cancel().await.unwrap();
    // A result larger than the cap fails the task.
    let mut big = start(&client, "export", json!({"rows": 5000})).await;
    let err = big.wait().await.unwrap_err();
    assert_eq!(rpc_code(&err), Some(ErrorCode::INTERNAL_ERROR));
    assert!(
        err.to_string().contains("more than the 1000 bytes"),
        "{err}"
    );
}

#[tokio::test]
async fn tasks_methods_need_the_extension_and_their_routing_header() {
    let http = mcp::testing::TestClient::new(jobs(TaskConfig::default()));
    let tasks = json!({"io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS_EXTENSION: {}}}});
    // Without the extension: -32021 naming it, for every tasks/* method.
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let r = http
            .modern(method, json!({"taskId": "x", "inputResponses": {}}))
            .await;
        assert_eq!(r.error_code(), Some(-32021), "{method}");
        assert_eq!(
            r.body["error"]["data"]["requiredCapabilities"]["extensions"][TASKS_EXTENSION],
            json!({})
        );
    }
    // A task created over HTTP, then read with a wrong Mcp-Name: -32020.
    let created = http
        .modern(
            "tools/call",
            json!({"name": "report", "arguments": {"steps": 30}, "_meta": tasks}),
        )
        .await;
    assert_eq!(created.result()["resultType"], "task", "{:?}", created.body);
    for absent in ["result", "error", "inputRequests", "requestState"] {
        assert!(created.result().get(absent).is_none(), "{absent}");
    }
    let id = created.result()["taskId"].as_str().unwrap().to_owned();
    let ok = http
        .modern("tasks/get", json!({"taskId": id, "_meta": tasks}))
        .await;
    assert_eq!(ok.result()["status"], "working");
    assert_eq!(ok.result()["resultType"], "complete");
    let mismatch = http
        .modern_with_headers(
            "tasks/get",
            json!({"taskId": id, "_meta": tasks}),
            &[("mcp-name", "another-task")],
        )
        .await;
    assert_eq!(mismatch.error_code(), Some(-32020));
    // The legacy era has no tasks.
    let legacy = http.legacy("tasks/get", json!({"taskId": id})).await;
    assert_eq!(legacy.error_code(), Some(-32601));
    let cancelled = http
        .modern("tasks/cancel", json!({"taskId": id, "_meta": tasks}))
        .await;
    assert_eq!(cancelled.result(), &json!({"resultType": "complete"}));
    // Tasks live in the configured store.
    let store = MemoryTaskStore::new();
    let server = mcp::Server::builder(Jobs)
        .task_store(store.clone())
        .build()
        .unwrap();
    let http = mcp::testing::TestClient::new(server);
    let created = http
        .modern(
            "tools/call",
            json!({"name": "report", "arguments": {"steps": 1}, "_meta": tasks}),
        )
        .await;
    assert_eq!(created.result()["resultType"], "task");
    assert_eq!(store.len(), 1);
    // A working task with small arguments: ~250 bytes of record.
    assert!(
        store.bytes() > 150 && store.bytes() < 400,
        "{} bytes for one task",
        store.bytes()
    );
}

#[tokio::test]
async fn another_callers_task_is_not_found() {
    use base64::Engine as _;
    let server = mcp::Server::builder(Jobs)
        .listener_auth([mcp::auth::ListenerAuth::basic([
            ("alice", "alice-secret"),
            ("bob", "bob-secret"),
        ])])
        .build()
        .unwrap();
    let http = mcp::testing::TestClient::new(server);
    let basic = |user: &str| {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{user}:{user}-secret"))
        )
    };
    let (alice, bob) = (basic("alice"), basic("bob"));
    let tasks = json!({"io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS_EXTENSION: {}}}});
    let created = http
        .modern_with_headers(
            "tools/call",
            json!({"name": "report", "arguments": {"steps": 20}, "_meta": tasks}),
            &[("authorization", &alice)],
        )
        .await;
    let id = created.result()["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let params = json!({"taskId": id, "inputResponses": {}, "_meta": tasks});
        let as_bob = http
            .modern_with_headers(method, params.clone(), &[("authorization", &bob)])
            .await;
        assert_eq!(
            as_bob.error_code(),
            Some(-32602),
            "{method}: {:?}",
            as_bob.body
        );
        assert_eq!(
            as_bob.body["error"]["message"],
            "Failed to retrieve task: Task not found"
        );
        let unknown = http
            .modern_with_headers(
                method,
                json!({"taskId": "f".repeat(32), "inputResponses": {}, "_meta": tasks}),
                &[("authorization", &alice)],
            )
            .await;
        assert_eq!(
            unknown.body["error"], as_bob.body["error"],
            "{method}: the same answer"
        );
    }
    let as_alice = http
        .modern_with_headers(
            "tasks/get",
            json!({"taskId": id, "_meta": tasks}),
            &[("authorization", &alice)],
        )
        .await;
    assert_eq!(
        as_alice.result()["status"],
        "working",
        "{:?}",
        as_alice.body
    );
    // Bob's cancel did nothing.
    let cancel = http
        .modern_with_headers(
            "tasks/cancel",
            json!({"taskId": id, "_meta": tasks}),
            &[("authorization", &alice)],
        )
        .await;
    assert_eq!(cancel.result()["resultType"], "complete");
}

#[tokio::test]
async fn a_task_whose_first_poll_reports_progress_and_finishes_completes() {
    let client = client_of(jobs(TaskConfig::default()), handler_config(false)).await;
    let task = start(&client, "quick", json!({})).await;
    assert_eq!(task.status(), TaskStatus::Completed, "{:?}", task.task());
    let read = client.get_task(task.id()).await.unwrap();
    assert_eq!(read.status, TaskStatus::Completed, "{read:?}");
    assert!(read.result.is_some());
}
