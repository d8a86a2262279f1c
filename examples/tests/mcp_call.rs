//! The `mcp_call` command-line client, run as a process: over stdio against the notes
//! server it starts (`--stdio -- PROGRAM ARGS`), over HTTP against the weather server, in
//! human and `--json` output, with logs and progress on stderr and the exit statuses of
//! failures.

mod interop_support;

use std::time::Duration;

use interop_support::{ProcessOutput, TestServer, example_binary, repo_root, run};
use mcp_examples::weather::WeatherService;
use serde_json::Value;

const TIMEOUT: Duration = Duration::from_secs(60);

async fn mcp_call(args: &[&str]) -> ProcessOutput {
    run(&example_binary("mcp_call"), args, &repo_root(), TIMEOUT).await
}

/// `mcp_call [before…] --stdio [after…] -- <notes> --stdio`.
async fn with_notes(args: &[&str]) -> ProcessOutput {
    let notes = example_binary("notes");
    let notes = notes.to_str().unwrap();
    let mut all = vec!["--stdio"];
    all.extend_from_slice(args);
    all.extend(["--", notes, "--stdio"]);
    mcp_call(&all).await
}

fn json(out: &ProcessOutput) -> Value {
    serde_json::from_str(out.stdout.trim())
        .unwrap_or_else(|e| panic!("stdout is not one JSON value ({e}):\n{}", out.report()))
}

#[tokio::test]
async fn lists_and_calls_tools_over_stdio_with_logs_and_progress() {
    let out = with_notes(&[]).await;
    assert!(out.success(), "{}", out.report());
    assert!(
        out.stdout.contains("reindex — Rebuilds the search index"),
        "{}",
        out.report()
    );
    let out = with_notes(&["call", "reindex"]).await;
    assert!(out.success(), "{}", out.report());
    assert_eq!(out.stdout.trim(), "3");
    assert!(
        out.stderr.contains("[info] re-indexing 3 notes"),
        "{}",
        out.report()
    );
    assert!(
        out.stderr.contains("progress 3/3 indexed style-notes"),
        "{}",
        out.report()
    );
    for mode in ["modern", "legacy"] {
        let out = with_notes(&[
            "--json",
            "--mode",
            mode,
            "call",
            "search",
            r#"{"query":"release"}"#,
        ])
        .await;
        assert!(out.success(), "{}", out.report());
        let result = json(&out);
        assert_eq!(
            result["content"][0]["text"], r#"["release-checklist"]"#,
            "{mode}"
        );
        assert!(
            !out.stderr.contains("progress"),
            "--json prints no progress: {}",
            out.report()
        );
    }
}

#[tokio::test]
async fn resources_and_prompts_over_stdio() {
    let out = with_notes(&["--json", "resources"]).await;
    assert!(out.success(), "{}", out.report());
    let listed = json(&out);
    assert_eq!(
        listed["resourceTemplates"][0]["uriTemplate"],
        "notes://notes/{slug}"
    );
    assert!(
        listed["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["uri"] == "notes://index")
    );
    let out = with_notes(&["resources"]).await;
    assert!(
        out.stdout.contains("notes://notes/{slug}  note (template)"),
        "{}",
        out.report()
    );
    let out = with_notes(&["read", "notes://notes/release-checklist"]).await;
    assert!(out.success(), "{}", out.report());
    assert!(
        out.stdout.starts_with("# Release checklist"),
        "{}",
        out.report()
    );
    let out = with_notes(&["prompts"]).await;
    assert!(
        out.stdout.contains("summarize(slug, audience)"),
        "{}",
        out.report()
    );
    let out = with_notes(&[
        "--json",
        "prompt",
        "summarize",
        r#"{"slug":"release-checklist"}"#,
    ])
    .await;
    assert!(out.success(), "{}", out.report());
    let prompt = json(&out);
    assert_eq!(prompt["messages"][0]["role"], "user");
    let out = with_notes(&["prompt", "summarize", r#"{"slug":"release-checklist"}"#]).await;
    assert!(out.stdout.starts_with("user: "), "{}", out.report());
}

#[tokio::test]
async fn calls_a_tool_over_http_in_both_eras() {
    let server = TestServer::start(|_| mcp::Server::builder(WeatherService)).await;
    for mode in ["auto", "legacy"] {
        let out = mcp_call(&[
            &server.url,
            "--mode",
            mode,
            "call",
            "get_current_weather",
            r#"{"city":"Lisbon"}"#,
        ])
        .await;
        assert!(out.success(), "{}", out.report());
        let reported: Value = serde_json::from_str(out.stdout.trim()).unwrap();
        assert_eq!(reported["location"], "Lisbon", "{mode}");
    }
    let out = mcp_call(&[&server.url, "--json", "tools"]).await;
    assert_eq!(json(&out)["tools"].as_array().unwrap().len(), 3);
    server.stop().await;
}

#[tokio::test]
async fn failures_have_their_exit_status_and_json_shape() {
    let out = with_notes(&["--json", "call", "nope"]).await;
    assert_eq!(
        out.status.and_then(|s| s.code()),
        Some(1),
        "{}",
        out.report()
    );
    let error = json(&out);
    assert_eq!(error["error"]["code"], -32602);
    assert_eq!(error["error"]["message"], "Unknown tool: nope");
    // A tool that reports an error (`isError`): exit status 1, the text on stderr.
    let out = with_notes(&["call", "title_for", r#"{"slug":"missing"}"#]).await;
    assert_eq!(
        out.status.and_then(|s| s.code()),
        Some(1),
        "{}",
        out.report()
    );
    assert!(
        out.stderr
            .contains("the tool failed: No note named missing"),
        "{}",
        out.report()
    );
    let out = with_notes(&["--json", "call", "search", "[1]"]).await;
    assert_eq!(
        json(&out)["error"]["message"],
        "arguments must be a JSON object"
    );
    let out = mcp_call(&["--stdio", "tools"]).await;
    assert_eq!(
        out.status.and_then(|s| s.code()),
        Some(1),
        "{}",
        out.report()
    );
    assert!(
        out.stderr
            .contains("--stdio needs the server's program after `--`"),
        "{}",
        out.report()
    );
    let out = mcp_call(&["--mode", "sideways", "http://127.0.0.1:1/mcp"]).await;
    assert_eq!(
        out.status.and_then(|s| s.code()),
        Some(2),
        "{}",
        out.report()
    );
    let out = mcp_call(&["--json", "http://127.0.0.1:1/mcp"]).await;
    assert_eq!(
        out.status.and_then(|s| s.code()),
        Some(1),
        "{}",
        out.report()
    );
    assert!(json(&out)["error"]["message"].is_string());
}
