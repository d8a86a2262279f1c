//! The stdio client (`Client::stdio`) against real servers started as child
//! processes: our example servers with `--stdio` (every era, elicitation through the
//! handler), the TypeScript v2 `serveStdio` and hand-wired legacy servers
//! (`interop/stdio_server.mjs`), the Python `mcp` SDK (`interop/python/stdio_server.py`),
//! and the misbehaving servers of `interop/stdio_misbehave.py`: crashes, signals, noise on
//! stdout, wrong ids, floods, silence, servers that exit at once. Each failure is its own
//! error, never a hang past the timeout, and no child is left behind.

mod interop_support;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use interop_support::{example_binary, interop_dir, node, python, python_dir};
use mcp::client::typed::TypedClient as _;
use mcp::client::{
    Client, ClientConfig, ClientError, ConnectOptions, ProcessError, ProtocolMode, StdioCommand,
    TransportError,
};
use mcp::protocol::{Era, Root};
use mcp::{ElicitResult, Implementation};
use mcp_examples::weather::WeatherServiceClient;
use serde_json::{Value, json};

fn example(name: &str) -> StdioCommand {
    StdioCommand::new(example_binary(name))
        .arg("--stdio")
        .env("RUST_LOG", "warn")
}

fn misbehave(mode: &str) -> StdioCommand {
    StdioCommand::new("python3")
        .arg(interop_dir().join("stdio_misbehave.py"))
        .arg(mode)
        .discard_stderr()
}

fn config(mode: ProtocolMode, timeout: Duration) -> ClientConfig {
    ClientConfig::new().protocol_mode(mode).timeout(timeout)
}

async fn connect(command: StdioCommand, config: ClientConfig) -> Client {
    let client = Client::stdio(command, config).unwrap();
    client
        .connect(ConnectOptions::new(Implementation::new(
            "stdio-test",
            "1.0.0",
        )))
        .await
        .unwrap();
    client
}

async fn call(client: &Client, tool: &str, args: Value) -> Result<String, ClientError> {
    let result = client.call(tool).arguments(args)?.await?;
    Ok(result.joined_text())
}

fn accept_all()
-> impl Fn(mcp::ElicitRequest) -> std::future::Ready<Result<ElicitResult, ClientError>>
+ Send
+ Sync
+ 'static {
    |request: mcp::ElicitRequest| {
        let content = if serde_json::to_string(&request).unwrap().contains("guests") {
            json!({"name": "Ada", "guests": 2, "seating": "patio"})
        } else {
            json!({"confirm": true})
        };
        std::future::ready(Ok(ElicitResult::accept(
            content.as_object().cloned().unwrap(),
        )))
    }
}

#[tokio::test]
async fn our_client_drives_our_stdio_server_in_every_era() {
    for (mode, era) in [
        (ProtocolMode::Legacy, Era::Legacy),
        (ProtocolMode::Auto, Era::Modern),
        (ProtocolMode::Modern, Era::Modern),
    ] {
        let client = connect(example("weather"), config(mode, Duration::from_secs(20))).await;
        assert!(client.is_stdio());
        let info = client.connection().unwrap();
        assert_eq!(info.era(), era);
        assert_eq!(info.server_info().unwrap().name, "weather");
        assert_eq!(client.list_tools().await.unwrap().tools.len(), 3);
        // The typed client the weather service generates, on this stdio connection.
        let weather = WeatherServiceClient::from_client(client.clone());
        let regional = weather.regional_weather("eu", "Oslo").await.unwrap();
        assert_eq!(regional.location, "eu/Oslo", "{mode:?}");
        // A call no typed client can make: the required argument left out.
        let e = call(&client, "get_current_weather", json!({}))
            .await
            .unwrap_err();
        assert_eq!(
            e.code(),
            Some(mcp::protocol::ErrorCode::INVALID_PARAMS),
            "{e}"
        );
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn elicitation_is_answered_by_the_handler_over_stdio() {
    for mode in [ProtocolMode::Legacy, ProtocolMode::Modern] {
        let config = config(mode, Duration::from_secs(20)).elicitation_handler(accept_all());
        let client = connect(example("table_booking"), config).await;
        let text = call(&client, "book_table", json!({})).await.unwrap();
        assert_eq!(text, "Booked a table for Ada (2 guests, patio)");
        client.close().await.unwrap();
    }
}

fn ts_server(legacy_only: bool) -> StdioCommand {
    let mut command = StdioCommand::new(node())
        .arg(interop_dir().join("stdio_server.mjs"))
        .current_dir(interop_dir());
    if legacy_only {
        command = command.arg("--legacy");
    }
    command
}

#[tokio::test]
async fn the_typescript_stdio_servers() {
    for (legacy_only, mode, era) in [
        (false, ProtocolMode::Auto, Era::Modern),
        (false, ProtocolMode::Legacy, Era::Legacy),
        // The probe is answered -32601 by a hand-wired server: fall back in place.
        (true, ProtocolMode::Auto, Era::Legacy),
    ] {
        let config = config(mode, Duration::from_secs(20)).elicitation_handler(accept_all());
        let client = connect(ts_server(legacy_only), config).await;
        let info = client.connection().unwrap();
        assert_eq!(info.era(), era, "legacy_only={legacy_only} {mode:?}");
        assert_eq!(info.server_info().unwrap().name, "ts-stdio-peer");
        let result = client
            .call("add")
            .arguments(json!({"a": 2, "b": 3}))
            .unwrap()
            .await
            .unwrap();
        assert_eq!(result.joined_text(), "5");
        assert_eq!(result.structured::<Value>().unwrap(), json!({"sum": 5}));
        let text = call(&client, "confirm_delete", json!({"item": "x"}))
            .await
            .unwrap();
        assert_eq!(text, "Deleted");
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn the_python_stdio_server() {
    for mode in [ProtocolMode::Legacy, ProtocolMode::Auto] {
        let command = StdioCommand::new(python())
            .arg(python_dir().join("stdio_server.py"))
            .discard_stderr();
        let client = connect(command, config(mode, Duration::from_secs(20))).await;
        assert_eq!(
            client.connection().unwrap().server_info().unwrap().name,
            "python-stdio-peer"
        );
        assert_eq!(
            call(&client, "add", json!({"a": 2, "b": 3})).await.unwrap(),
            "5"
        );
        assert_eq!(
            call(&client, "echo", json!({"text": "hi"})).await.unwrap(),
            "hi"
        );
        client.close().await.unwrap();
    }
}

fn crashed(e: &ClientError) -> (Option<i32>, Option<i32>) {
    match e {
        ClientError::Process(ProcessError::Crashed {
            exit_code, signal, ..
        }) => (*exit_code, *signal),
        other => panic!("expected a crash, got {other:?}"),
    }
}

#[tokio::test]
async fn a_crash_mid_call_is_its_own_error_and_ends_the_session() {
    let client = connect(
        misbehave("crash"),
        config(ProtocolMode::Auto, Duration::from_secs(10)),
    )
    .await;
    let e = call(&client, "poke", json!({})).await.unwrap_err();
    assert_eq!(crashed(&e), (Some(3), None));
    assert!(e.to_string().contains("exited with code 3"), "{e}");
    assert!(e.to_string().contains("auto_respawn"), "{e}");
    // Without auto_respawn the session stays over.
    let again = client.list_tools().await.unwrap_err();
    assert_eq!(crashed(&again), (Some(3), None));
}

#[tokio::test]
async fn auto_respawn_starts_the_server_again_on_the_next_call() {
    let command = misbehave("crash").auto_respawn(true);
    let client = connect(
        command,
        config(ProtocolMode::Legacy, Duration::from_secs(10)),
    )
    .await;
    let listed = client.list_tools().await.unwrap();
    assert_eq!(listed.tools[0].description.as_deref(), Some("listing 1"));
    let e = call(&client, "poke", json!({})).await.unwrap_err();
    assert!(e.to_string().contains("the next call respawns it"), "{e}");
    // A fresh process: its listing count starts again.
    let listed = client.list_tools().await.unwrap();
    assert_eq!(listed.tools[0].description.as_deref(), Some("listing 1"));
    assert_eq!(
        client.connection().unwrap().server_info().unwrap().name,
        "misbehave-crash"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_server_killed_by_a_signal_reports_it() {
    let client = connect(
        misbehave("signal"),
        config(ProtocolMode::Legacy, Duration::from_secs(10)),
    )
    .await;
    let e = call(&client, "poke", json!({})).await.unwrap_err();
    assert_eq!(crashed(&e), (None, Some(9)));
    assert!(e.to_string().contains("killed by signal 9"), "{e}");
}

#[tokio::test]
async fn noise_on_stdout_is_skipped_and_server_pings_are_answered() {
    let client = connect(
        misbehave("garbage"),
        config(ProtocolMode::Legacy, Duration::from_secs(10)),
    )
    .await;
    assert_eq!(
        call(&client, "poke", json!({})).await.unwrap(),
        "pong received"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn an_oversized_line_from_the_server_is_skipped_unread() {
    let command = misbehave("huge").max_line_bytes(1 << 20);
    let client = connect(
        command,
        config(ProtocolMode::Legacy, Duration::from_secs(20)),
    )
    .await;
    // The 20 MiB line (a response to this very call) is dropped; the next line answers.
    assert_eq!(call(&client, "poke", json!({})).await.unwrap(), "ok");
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_notification_flood_does_not_stall_a_call() {
    let client = connect(
        misbehave("flood"),
        config(ProtocolMode::Legacy, Duration::from_secs(20)),
    )
    .await;
    assert_eq!(call(&client, "poke", json!({})).await.unwrap(), "ok");
    assert_eq!(call(&client, "poke", json!({})).await.unwrap(), "ok");
    client.close().await.unwrap();
}

async fn assert_times_out(mode: &str) {
    let timeout = Duration::from_millis(800);
    let client = connect(misbehave(mode), config(ProtocolMode::Legacy, timeout)).await;
    let started = Instant::now();
    let e = call(&client, "poke", json!({})).await.unwrap_err();
    assert!(
        matches!(e, ClientError::Transport(TransportError::Timeout(t)) if t == timeout),
        "{mode}: {e:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{mode}: took {:?}",
        started.elapsed()
    );
    // The timeout ended the session.
    let again = client.list_tools().await.unwrap_err();
    assert!(
        matches!(
            again,
            ClientError::Process(ProcessError::Stopped {
                auto_respawn: false
            })
        ),
        "{again:?}"
    );
}

#[tokio::test]
async fn garbage_only_and_wrong_ids_time_out_cleanly() {
    assert_times_out("garbage-only").await;
    assert_times_out("wrong-id").await;
}

#[tokio::test]
async fn a_silent_server_or_one_that_exits_fails_the_handshake() {
    let client = Client::stdio(
        misbehave("silent"),
        config(ProtocolMode::Auto, Duration::from_millis(500)),
    )
    .unwrap();
    let started = Instant::now();
    let e = client.connect(ConnectOptions::default()).await.unwrap_err();
    assert!(
        matches!(e, ClientError::Transport(TransportError::Timeout(_))),
        "{e:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(3));

    let client = Client::stdio(
        misbehave("exit"),
        config(ProtocolMode::Legacy, Duration::from_secs(5)),
    )
    .unwrap();
    let e = client.connect(ConnectOptions::default()).await.unwrap_err();
    assert_eq!(crashed(&e), (Some(7), None), "{e:?}");

    let client = Client::stdio(
        StdioCommand::new("/nonexistent/mcp-server"),
        ClientConfig::new(),
    )
    .unwrap();
    let e = client.connect(ConnectOptions::default()).await.unwrap_err();
    assert!(
        matches!(e, ClientError::Process(ProcessError::Spawn { .. })),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "cannot start the MCP server `/nonexistent/mcp-server`"
    );

    let e = Client::stdio(
        StdioCommand::new("x").max_line_bytes(0),
        ClientConfig::new(),
    )
    .unwrap_err();
    assert!(matches!(e, ClientError::Config(_)));
}

#[tokio::test]
async fn calls_are_serialised_and_each_timeout_starts_at_its_turn() {
    let timeout = Duration::from_millis(1500);
    let client = connect(misbehave("slow"), config(ProtocolMode::Legacy, timeout)).await;
    let calls = (0..3).map(|_| {
        let client = client.clone();
        tokio::spawn(async move { call(&client, "poke", json!({"ms": 700})).await })
    });
    let started = Instant::now();
    for joined in futures_join(calls).await {
        // "overlap" would mean a request reached the server while another was served.
        assert_eq!(joined.unwrap().unwrap(), "slept");
    }
    // 3 × 700 ms in line: longer than one timeout, yet no call timed out.
    assert!(started.elapsed() > timeout);
    client.close().await.unwrap();
}

async fn futures_join<T>(
    handles: impl Iterator<Item = tokio::task::JoinHandle<T>>,
) -> Vec<Result<T, tokio::task::JoinError>> {
    let mut out = Vec::new();
    for h in handles.collect::<Vec<_>>() {
        out.push(h.await);
    }
    out
}

#[tokio::test]
async fn close_waits_for_the_exchange_in_flight() {
    let client = connect(
        misbehave("slow"),
        config(ProtocolMode::Legacy, Duration::from_secs(10)),
    )
    .await;
    let in_flight = {
        let client = client.clone();
        tokio::spawn(async move { call(&client, "poke", json!({"ms": 500})).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    client.close().await.unwrap();
    assert_eq!(in_flight.await.unwrap().unwrap(), "slept");
    assert!(matches!(
        client.list_tools().await,
        Err(ClientError::NotConnected)
    ));
}

#[tokio::test]
async fn a_dropped_client_leaves_no_process_behind() {
    let dir = std::env::temp_dir().join(format!("mcp-stdio-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pidfile = dir.join("pid");
    let command = misbehave("ok").env("MISBEHAVE_PIDFILE", &pidfile);
    let client = connect(
        command,
        config(ProtocolMode::Legacy, Duration::from_secs(10)),
    )
    .await;
    let pid = std::fs::read_to_string(&pidfile).unwrap();
    let proc_dir = PathBuf::from(format!("/proc/{}", pid.trim()));
    assert!(proc_dir.exists());
    drop(client);
    // Killed and reaped: no zombie either.
    let deadline = Instant::now() + Duration::from_secs(5);
    while proc_dir.exists() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!proc_dir.exists(), "process {} is still there", pid.trim());
    let _ = std::fs::remove_dir_all(dir);
}

/// `notifications/tools/list_changed` marks the tools stale (and reaches the notification
/// handler, as the flood's log messages do) until the next complete listing.
#[tokio::test]
async fn a_list_change_marks_the_tools_stale_until_listed_again() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = seen.clone();
    let config = config(ProtocolMode::Legacy, Duration::from_secs(20))
        .notification_handler(move |n| sink.lock().unwrap().push(n.method().to_owned()));
    let client = connect(misbehave("list-changed"), config).await;
    client.list_tools().await.unwrap();
    assert!(!client.tools_stale());
    assert_eq!(call(&client, "poke", json!({})).await.unwrap(), "ok");
    assert!(client.tools_stale());
    assert_eq!(
        seen.lock().unwrap().as_slice(),
        ["notifications/tools/list_changed"]
    );
    client.list_tools().await.unwrap();
    assert!(!client.tools_stale());
    client.close().await.unwrap();
}

/// A sampling handler answering with a fixed model and the number of messages it saw, and
/// the requests it was given.
fn sampling_model() -> (
    impl mcp::client::SamplingHandler,
    Arc<Mutex<Vec<mcp::SamplingRequest>>>,
) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let handler = move |request: mcp::SamplingRequest| {
        record.lock().unwrap().push(request);
        std::future::ready(Ok(mcp::SamplingResult::new(
            mcp::Role::Assistant,
            mcp::Content::text("A short summary"),
            "scripted-1",
        )
        .with_stop_reason("endTurn")))
    };
    (handler, seen)
}

#[tokio::test]
async fn sampling_and_roots_are_answered_for_the_typescript_stdio_servers() {
    for (legacy_only, mode, era) in [
        (false, ProtocolMode::Auto, Era::Modern),
        (false, ProtocolMode::Legacy, Era::Legacy),
        (true, ProtocolMode::Auto, Era::Legacy),
    ] {
        let (model, seen) = sampling_model();
        let config = config(mode, Duration::from_secs(20))
            .sampling_handler(model)
            .roots(vec![
                Root::new("file:///work/app").with_name("app"),
                Root::new("file:///work/docs"),
            ]);
        let client = connect(ts_server(legacy_only), config).await;
        assert_eq!(client.connection().unwrap().era(), era);
        let text = call(&client, "summarize", json!({"text": "a long story"}))
            .await
            .unwrap();
        assert_eq!(text, "Summary: A short summary (scripted-1)", "{era:?}");
        let asked = seen.lock().unwrap().clone();
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0].max_tokens, 50);
        assert_eq!(
            serde_json::to_value(&asked[0].messages[0].content).unwrap(),
            json!({"type": "text", "text": "Summarise: a long story"})
        );
        let text = call(&client, "roots", json!({})).await.unwrap();
        assert_eq!(text, "file:///work/app, file:///work/docs", "{era:?}");
        // Legacy servers are told about changed roots; modern ones ask per request.
        client.roots_changed().await.unwrap();
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn without_handlers_sampling_and_roots_fail_the_call_clearly() {
    let client = connect(
        ts_server(false),
        config(ProtocolMode::Auto, Duration::from_secs(20)),
    )
    .await;
    let e = call(&client, "summarize", json!({"text": "x"}))
        .await
        .unwrap_err();
    assert!(
        e.to_string().contains("sampling/createMessage"),
        "unexpected error: {e}"
    );
    let e = call(&client, "roots", json!({})).await.unwrap_err();
    assert!(
        e.to_string().contains("roots/list"),
        "unexpected error: {e}"
    );
    client.close().await.unwrap();
}

#[tokio::test]
async fn our_server_samples_through_our_clients_handler_over_stdio() {
    for mode in [ProtocolMode::Legacy, ProtocolMode::Modern] {
        let (model, seen) = sampling_model();
        let config = config(mode, Duration::from_secs(20)).sampling_handler(model);
        let client = connect(example("notes"), config).await;
        let text = call(&client, "title_for", json!({"slug": "release-checklist"}))
            .await
            .unwrap();
        assert_eq!(text, "A short summary", "{mode:?}");
        assert_eq!(seen.lock().unwrap()[0].max_tokens, 40);
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn a_dropped_call_tells_the_server_it_was_cancelled() {
    let client = connect(
        misbehave("cancel"),
        config(ProtocolMode::Legacy, Duration::from_secs(20)),
    )
    .await;
    let abandoned =
        tokio::time::timeout(Duration::from_millis(300), call(&client, "hang", json!({}))).await;
    assert!(abandoned.is_err(), "the hanging call answered");
    // The cancellation is sent by a task of its own; the server records it and the next
    // call reports what it received.
    let mut cancels = Value::Null;
    for _ in 0..50 {
        cancels = serde_json::from_str(&call(&client, "poke", json!({})).await.unwrap()).unwrap();
        if cancels.as_array().is_some_and(|a| !a.is_empty()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let cancels = cancels.as_array().cloned().unwrap_or_default();
    assert_eq!(cancels.len(), 1, "{cancels:?}");
    assert!(cancels[0]["requestId"].is_number(), "{cancels:?}");
    assert_eq!(cancels[0]["reason"], "the client stopped waiting");
    client.close().await.unwrap();
}

#[tokio::test]
async fn a_dropped_modern_call_is_cancelled_on_our_stdio_server() {
    let logs = Arc::new(Mutex::new(Vec::<String>::new()));
    let record = logs.clone();
    let config = config(ProtocolMode::Modern, Duration::from_secs(20)).notification_handler(
        move |n: &mcp::client::ServerNotification| {
            if let Some((_, data)) = n.log() {
                record.lock().unwrap().push(data.to_string());
            }
        },
    );
    let client = connect(example("notes"), config).await;
    assert_eq!(client.connection().unwrap().era(), Era::Modern);
    client
        .set_logging_level(mcp::LogLevel::Debug)
        .await
        .unwrap();
    // `reindex` logs "indexed <slug>" every 100 ms for its three notes and stops when it is
    // cancelled (a cancelled request writes nothing more): without the cancellation all
    // three would arrive within about 300 ms.
    let abandoned = tokio::time::timeout(
        Duration::from_millis(150),
        call(&client, "reindex", json!({})),
    )
    .await;
    assert!(abandoned.is_err(), "reindex answered too early");
    tokio::time::sleep(Duration::from_millis(700)).await;
    let seen = logs.lock().unwrap().clone();
    let indexed = seen.iter().filter(|l| l.contains("indexed ")).count();
    assert!(
        seen.iter().any(|l| l.contains("re-indexing 3 notes")),
        "{seen:?}"
    );
    assert!(
        indexed < 3,
        "the server kept working after the drop: {seen:?}"
    );
    // The connection goes on serving.
    assert_eq!(
        call(&client, "search", json!({"query": "release"}))
            .await
            .unwrap(),
        r#"["release-checklist"]"#
    );
    client.close().await.unwrap();
}
