//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
//! `interop/`) against the conformance example served in-process, with the baseline of
//! known failures `interop/conformance-baseline.yml`: every scenario not listed there must
//! pass, and a listed scenario that starts passing fails the run until its line is removed.
//! Needs `npm ci` in `interop/`.

mod interop_support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use interop_support::{ProcessOutput, TestServer, interop_dir, node, repo_root, run};
use serde_json::Value;

const SUITE_TIMEOUT: Duration = Duration::from_secs(240);

/// Scenarios the framework passes today; each must also be absent from the baseline.
const MUST_PASS: &[&str] = &[
    "server-initialize",
    "ping",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-error",
    "dns-rebinding-protection",
    "json-schema-2020-12",
    "server-sse-multiple-streams",
    // Through the legacy shim: the suite is a 2025 client on a session, and the server's
    // input-required results reach it as real elicitation/create requests.
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "completion-complete",
    // Sent unchecked on the session: its `enumNames` field is refused in input-required
    // results.
    "elicitation-sep1330-enums",
    // mcp::Context: logs and progress ride the call's SSE stream, sampling is a real
    // request on the session, and `test_reconnection` ends its stream with a priming event
    // and a retry hint; the result comes on the GET that resumes with Last-Event-ID.
    "logging-set-level",
    "tools-call-with-logging",
    "tools-call-with-progress",
    "tools-call-sampling",
    "server-sse-polling",
    // The 2026-07-28 protocol (suite 0.2): sessions and the stateless lifecycle
    // (`server-stateless` calls the diagnostic tools `test_missing_capability`,
    // `test_streaming_elicitation` and `test_logging_tool`), caching hints, the standard
    // and custom (`Mcp-Param-*`, `test_custom_header`) request headers, resource-not-found
    // and the skills scenarios (which check only that the server declares no skills).
    "server-session-lifecycle",
    "server-stateless",
    "caching",
    "http-header-validation",
    "http-custom-header-server-validation",
    "sep-2164-resource-not-found",
    "sep-2640-skills-directory",
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
    // Multi-round tools/call (SEP-2322): the test_input_required_result_* tools of
    // examples/common/conformance_input.rs (mcp::InputRequired, Context::sample; the
    // request state is signed by the server, so a tampered one is rejected).
    "input-required-result-basic-elicitation",
    "input-required-result-basic-sampling",
    "input-required-result-basic-list-roots",
    "input-required-result-request-state",
    "input-required-result-multiple-input-requests",
    "input-required-result-multi-round",
    "input-required-result-missing-input-response",
    "input-required-result-result-type",
    "input-required-result-unsupported-methods",
    "input-required-result-tampered-state",
    "input-required-result-capability-check",
    "input-required-result-ignore-extra-params",
    "input-required-result-validate-input",
    // The same rounds on prompts/get: the prompt test_input_required_result_prompt
    // (examples/common/conformance_features.rs) asks for context first.
    "input-required-result-non-tool-request",
    // The tasks extension (SEP-2663): the fixtures of examples/common/conformance_tasks.rs,
    // tools with task support; creation, polling, input through tasks/update, idempotent
    // cancel, negotiation and -32021, routing headers, MRTR before the task.
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
];

/// Scenarios the suite reports as passing with no check at all against this server, so
/// they can be neither expected to pass (they prove nothing) nor baselined (the suite
/// calls a listed scenario without a failing check stale): in 0.2.0-alpha.12
/// `tasks-status-notifications` is a placeholder whose one check is always `SKIPPED`
/// ("pending subscriptions/listen rewrite"); `notifications/tasks` on a listen stream is
/// tested in examples/tests/tasks.rs instead.
const NO_CHECKS: &[&str] = &["tasks-status-notifications"];

/// A fresh results directory under the cargo test temp dir (kept for inspection).
fn results_dir(label: &str) -> PathBuf {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "conformance-{label}-{}-{nanos}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("create the results directory");
    dir
}

/// The scenario names listed under `server:` in a baseline file.
fn baseline_entries(path: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut in_server = false;
    let mut entries = BTreeSet::new();
    for line in text.lines() {
        let trimmed = line.split('#').next().unwrap_or("").trim_end();
        if trimmed.is_empty() {
            continue;
        }
        if !trimmed.starts_with(' ') && !trimmed.starts_with('-') {
            in_server = trimmed == "server:";
            continue;
        }
        if in_server && let Some(name) = trimmed.trim_start().strip_prefix("- ") {
            assert!(
                entries.insert(name.trim().to_owned()),
                "duplicate baseline entry {name}"
            );
        }
    }
    entries
}

/// Runs `interop/run-conformance.sh <url> <dir> extra…`.
async fn run_suite(url: &str, dir: &Path, extra: &[&str]) -> ProcessOutput {
    let script = interop_dir().join("run-conformance.sh");
    let mut args = vec![
        script.to_str().expect("UTF-8 path"),
        url,
        dir.to_str().expect("UTF-8 path"),
    ];
    args.extend_from_slice(extra);
    // The script looks for Node 22 in interop/node_modules/.bin itself; `node()` only
    // checks that the peers are installed, so a missing install fails with instructions.
    node();
    run(Path::new("bash"), &args, &repo_root(), SUITE_TIMEOUT).await
}

fn suite_log(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("conformance.log")).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_suite_passes_all_but_the_baseline() {
    let server = TestServer::start(mcp_examples::conformance::server_at).await;
    let dir = results_dir("all");
    let baseline = interop_dir().join("conformance-baseline.yml");
    let output = run_suite(
        &server.url,
        &dir,
        &[
            "--suite",
            "all",
            "--expected-failures",
            baseline.to_str().expect("UTF-8 path"),
        ],
    )
    .await;
    server.stop().await;
    let report = format!(
        "{}\n--- conformance.log ---\n{}\nresults: {}",
        output.report(),
        suite_log(&dir),
        dir.display()
    );
    assert!(
        output.success(),
        "the conformance suite disagrees with {}\n{report}",
        baseline.display()
    );

    // The run really happened and covered what it should.
    let summary: Value = serde_json::from_slice(
        &std::fs::read(dir.join("summary.json")).expect("summary.json written"),
    )
    .expect("summary.json is JSON");
    let scenarios = summary["scenarios"].as_array().expect("scenarios");
    let status = |name: &str| {
        scenarios
            .iter()
            .find(|s| s["scenario"] == name)
            .unwrap_or_else(|| panic!("scenario {name} did not run\n{report}"))
    };
    let baselined = baseline_entries(&baseline);
    for name in MUST_PASS {
        let s = status(name);
        assert_eq!(s["status"], "PASS", "{name}\n{report}");
        assert_eq!(s["warnings"], 0, "{name} warns\n{report}");
        assert!(
            !baselined.contains(*name),
            "{name} must not be in the baseline"
        );
    }
    for name in MUST_PASS {
        assert!(
            status(name)["checksPassed"].as_u64() > Some(0),
            "{name} passed no check\n{report}"
        );
    }
    for name in NO_CHECKS {
        let s = status(name);
        assert_eq!(s["status"], "PASS", "{name}\n{report}");
        assert_eq!(
            s["checksPassed"].as_u64(),
            Some(0),
            "{name} now records checks: expect it to pass or baseline it\n{report}"
        );
    }
    // Every baseline entry names a scenario that ran (a stale name would hide nothing,
    // but it would no longer document a real gap).
    for name in &baselined {
        status(name);
    }
    let ran: BTreeSet<&str> = scenarios
        .iter()
        .filter_map(|s| s["scenario"].as_str())
        .collect();
    assert_eq!(
        ran.len(),
        MUST_PASS.len() + NO_CHECKS.len() + baselined.len(),
        "every scenario is either expected to pass or baselined: {ran:?}\n{report}"
    );
}

/// The suite enforces the baseline both ways: a baselined scenario that passes and an
/// unlisted scenario that fails each make the run fail.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_baseline_is_enforced_both_ways() {
    let server = TestServer::start(mcp_examples::conformance::server_at).await;
    // A service without the fixtures, for scenarios that must fail.
    let bare = TestServer::start(|_| mcp_examples::echo::server()).await;
    let dir = results_dir("baseline");
    let stale = dir.join("stale.yml");
    std::fs::write(&stale, "server:\n  - ping\n").expect("write stale.yml");
    let empty = dir.join("empty.yml");
    std::fs::write(&empty, "server: []\n").expect("write empty.yml");
    let cases = [
        ("ping", &stale, "Stale baseline entries", &server.url),
        (
            "tools-call-with-progress",
            &empty,
            "Unexpected failures",
            &bare.url,
        ),
        (
            "tools-call-sampling",
            &empty,
            "Unexpected failures",
            &bare.url,
        ),
    ];
    for (scenario, baseline, complaint, url) in cases {
        let out = dir.join(scenario);
        let output = run_suite(
            url,
            &out,
            &[
                "--scenario",
                scenario,
                "--expected-failures",
                baseline.to_str().expect("UTF-8 path"),
            ],
        )
        .await;
        let log = suite_log(&out);
        assert_eq!(
            output.status.and_then(|s| s.code()),
            Some(1),
            "{scenario} against {url} with {}: the suite should fail\n{}\n--- conformance.log ---\n{log}",
            baseline.display(),
            output.report()
        );
        assert!(
            log.contains(complaint),
            "{scenario}: expected `{complaint}` in the suite's output\n{log}"
        );
    }
    server.stop().await;
    bare.stop().await;
}
