//! The official conformance suite's client scenarios (`conformance client`, pinned in
//! `interop/`) driving the `conformance_client` example: the handshake, a tool call, form
//! defaults applied by the client (SEP-1034) and a response stream resumed with
//! `Last-Event-ID` after the server's `retry` delay (SEP-1699). The `auth/*` scenarios are
//! the client OAuth issue's. Needs `npm ci` in `interop/`.

mod interop_support;

use std::path::PathBuf;
use std::time::Duration;

use interop_support::{example_binary, interop_dir, repo_root, require_peers, run};

const SCENARIOS: &[&str] = &[
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
];

fn results_dir(scenario: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "conformance-client-{scenario}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("create the results directory");
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_passes_the_suites_client_scenarios() {
    require_peers();
    let client = example_binary("conformance_client");
    let script = interop_dir().join("run-conformance.sh");
    let mut report = String::new();
    let mut failed = Vec::new();
    for scenario in SCENARIOS {
        let dir = results_dir(scenario);
        let out = run(
            "bash".as_ref(),
            &[
                script.to_str().unwrap(),
                "client",
                client.to_str().unwrap(),
                dir.to_str().unwrap(),
                "--scenario",
                scenario,
            ],
            &repo_root(),
            Duration::from_secs(120),
        )
        .await;
        report.push_str(&out.report());
        if !out.success() || !out.stdout.contains(&format!("PASS {scenario} ")) {
            failed.push(*scenario);
        }
    }
    assert!(failed.is_empty(), "failed: {failed:?}\n{report}");
}
