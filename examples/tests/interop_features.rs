//! Interoperability of resources, resource templates, prompts and completion: the notes
//! example, served in-process, driven by real peers — the TypeScript v2 client
//! (`interop/features.mjs`, `@modelcontextprotocol/client` 2.4.0) in modern and legacy mode,
//! and the Python `mcp` 2.3 client (`interop/python/client.py features`) in both eras —
//! with the script `interop/steps/notes-features.json`. Every peer must list, read, get and
//! complete alike, and see the same JSON-RPC errors. Needs `npm ci` in `interop/` and the
//! Python peer's virtual environment (`scripts/test.sh` installs both).

mod interop_support;

use std::time::Duration;

use interop_support::{Events, TestServer, interop_dir, node, run, run_python_peer};
use serde_json::{Value, json};

fn script() -> std::path::PathBuf {
    interop_dir().join("steps").join("notes-features.json")
}

fn notes() -> mcp::ServerBuilder {
    mcp::Server::builder(mcp_examples::notes::Notes::new())
}

async fn typescript(url: &str, mode: &str) -> Events {
    let script = script();
    let args = [
        "features.mjs",
        url,
        "--mode",
        mode,
        "--script",
        script.to_str().expect("UTF-8 path"),
    ];
    let output = run(&node(), &args, &interop_dir(), Duration::from_secs(60)).await;
    let events = Events::parse(&output);
    assert!(output.success(), "the peer failed\n{}", events.report);
    events
}

/// The checks every peer must pass, in either era.
fn check(events: &Events, era: &str) {
    let r = &events.report;
    let connected = events.one("connected");
    assert_eq!(connected["era"], era, "{r}");
    if connected["capabilities"] != json!({}) {
        // The Python client reports no capabilities on the modern era.
        assert_eq!(
            connected["capabilities"],
            json!({"completions": {}, "logging": {}, "prompts": {"listChanged": false},
                   "resources": {"listChanged": false}, "tools": {"listChanged": false}}),
            "{r}"
        );
    }
    let uris: Vec<&Value> = events.one("resources")["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .map(|r| &r["uri"])
        .collect();
    assert_eq!(
        uris,
        [&json!("notes://index"), &json!("notes://style-guide")],
        "{r}"
    );
    assert_eq!(
        events.one("templates")["resourceTemplates"][0]["uriTemplate"],
        "notes://notes/{slug}",
        "{r}"
    );
    let prompts = &events.one("prompts")["prompts"];
    assert_eq!(prompts[0]["name"], "summarize", "{r}");
    assert_eq!(
        prompts[1]["arguments"][1],
        json!({"name": "focus", "description": "What to look at: accuracy, clarity, completeness or tone.", "required": true}),
        "{r}"
    );

    let reads = events.of("read");
    assert_eq!(reads.len(), 2, "{r}");
    assert!(
        reads[0]["contents"][0]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("release-checklist: ")),
        "{r}"
    );
    assert_eq!(reads[1]["contents"][0]["mimeType"], "text/markdown", "{r}");
    assert!(
        reads[1]["contents"][0]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("# Release checklist")),
        "{r}"
    );

    let prompt = events.of("prompt");
    assert_eq!(prompt.len(), 2, "{r}");
    assert!(
        prompt[0]["messages"][0]["content"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("for tone")),
        "{r}"
    );
    assert_eq!(
        prompt[1]["messages"][0]["content"]["type"], "resource",
        "{r}"
    );
    assert_eq!(
        prompt[1]["messages"][0]["content"]["resource"]["uri"], "notes://notes/retro-2026-11",
        "{r}"
    );

    let completions = events.of("completion");
    assert_eq!(completions.len(), 3, "{r}");
    assert_eq!(
        completions[0]["completion"],
        json!({"values": ["clarity", "completeness"], "total": 2, "hasMore": false}),
        "{r}"
    );
    assert_eq!(
        completions[1]["completion"]["values"],
        json!(["release-checklist", "retro-2026-11"]),
        "{r}"
    );
    assert_eq!(
        completions[2]["completion"],
        json!({"values": [], "hasMore": false}),
        "{r}"
    );

    let errors: Vec<(String, i64, String)> = events
        .of("error")
        .iter()
        .map(|e| {
            (
                e["what"].as_str().unwrap_or_default().to_owned(),
                e["code"].as_i64().unwrap_or_default(),
                e["message"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let expected = [
        (
            "notes://notes/caf%C3%A9",
            -32602,
            "Resource not found: notes://notes/caf%C3%A9",
        ),
        ("notes://nope", -32602, "Resource not found: notes://nope"),
        (
            "review",
            -32602,
            "Invalid arguments for prompt review: missing required argument `focus`",
        ),
        ("nope", -32602, "Prompt nope not found"),
    ];
    assert_eq!(errors.len(), expected.len(), "{r}");
    for ((what, code, message), (w, c, m)) in errors.iter().zip(expected) {
        assert_eq!((what.as_str(), *code), (w, c), "{r}");
        // The TypeScript client may prefix the server's message with its own text.
        assert!(
            message.ends_with(m),
            "{message:?} does not end with {m:?}\n{r}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_v2_client_modern_and_legacy() {
    let server = TestServer::start(|_| notes()).await;
    let modern = typescript(&server.url, "modern").await;
    let legacy = typescript(&server.url, "legacy").await;
    server.stop().await;
    check(&modern, "modern");
    check(&legacy, "legacy");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_client_both_eras() {
    let server = TestServer::start(|_| notes()).await;
    let script = script();
    let legacy = run_python_peer("features", &server.url, "legacy", Some(&script)).await;
    let modern = run_python_peer("features", &server.url, "2026-07-28", Some(&script)).await;
    server.stop().await;
    check(&legacy, "legacy");
    check(&modern, "modern");
}

/// The notes example's tools through `mcp::Context` with the TypeScript v2 client in both
/// eras (`interop/steps/notes-tools.json`): `reindex` logs (filtered to `info`) and reports
/// one progress step per note, `title_for` asks the client's model.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notes_tools_log_report_progress_and_sample() {
    let steps = interop_dir().join("steps").join("notes-tools.json");
    for peer in [interop_support::Peer::Modern, interop_support::Peer::Legacy] {
        let server = TestServer::start(|_| notes()).await;
        let events = interop_support::run_peer(&server.url, peer, &steps).await;
        let logs: Vec<_> = events
            .of("log")
            .iter()
            .map(|e| (e["level"].clone(), e["data"].clone()))
            .collect();
        assert_eq!(
            logs,
            [(json!("info"), json!("re-indexing 3 notes"))],
            "{}",
            events.report
        );
        let progress: Vec<_> = events
            .of("progress")
            .iter()
            .map(|e| (e["progress"].as_f64(), e["total"].as_f64()))
            .collect();
        assert_eq!(
            progress,
            [
                (Some(1.0), Some(3.0)),
                (Some(2.0), Some(3.0)),
                (Some(3.0), Some(3.0))
            ],
            "{}",
            events.report
        );
        let sampling = events.of("sampling");
        assert_eq!(sampling.len(), 1, "{}", events.report);
        let question = sampling[0]["messages"][0]["content"]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(question.contains("Retrospective"), "{}", events.report);
        server.stop().await;
    }
}

/// The crate's own client against the notes example on both eras: every list, a templated
/// read (its URI mirrored into `Mcp-Name` on the modern era), a prompt and a completion.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_client_reads_the_notes_example_on_both_eras() {
    use mcp::client::{Client, ClientConfig, ConnectOptions, ProtocolMode};
    use mcp::protocol::Reference;
    use std::collections::BTreeMap;
    let server = TestServer::start(|_| notes()).await;
    for mode in [ProtocolMode::Modern, ProtocolMode::Legacy] {
        let client = Client::new(&server.url, ClientConfig::new().protocol_mode(mode)).unwrap();
        client
            .connect(ConnectOptions::new(mcp::Implementation::new("t", "1")))
            .await
            .unwrap();
        assert_eq!(client.list_resources().await.unwrap().resources.len(), 2);
        let templates = client.list_resource_templates().await.unwrap();
        assert_eq!(
            templates.resource_templates[0].uri_template,
            "notes://notes/{slug}"
        );
        let note = client
            .read_resource("notes://notes/release-checklist")
            .await
            .unwrap();
        let body = serde_json::to_value(&note.contents[0]).unwrap();
        assert!(
            body["text"]
                .as_str()
                .unwrap()
                .starts_with("# Release checklist"),
            "{mode:?} {body}"
        );
        assert_eq!(client.list_prompts().await.unwrap().prompts.len(), 2);
        let args = BTreeMap::from([
            ("slug".to_owned(), "style-notes".to_owned()),
            ("focus".to_owned(), "tone".to_owned()),
        ]);
        let prompt = client.get_prompt("review", args).await.unwrap();
        let text = serde_json::to_value(&prompt.messages[0]).unwrap();
        assert!(
            text["content"]["text"]
                .as_str()
                .unwrap()
                .contains("for tone"),
            "{text}"
        );
        let completion = client
            .complete(Reference::prompt("review"), "focus", "c", BTreeMap::new())
            .await
            .unwrap();
        assert_eq!(completion.values, ["clarity", "completeness"]);
        let missing = client
            .get_prompt("review", BTreeMap::new())
            .await
            .unwrap_err();
        assert_eq!(
            missing.code(),
            Some(mcp::protocol::ErrorCode::INVALID_PARAMS),
            "{missing:?}"
        );
        client.close().await.unwrap();
    }
}
