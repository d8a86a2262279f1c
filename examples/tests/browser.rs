//! A real browser (issue 18, item 6): a page served from a second loopback origin runs the
//! TypeScript SDK v2 client, bundled for the browser with esbuild (`interop/browser/page.mjs`),
//! in headless Chromium against the weather example (modern, legacy and auto) and the
//! OAuth-protected files example (the 401 challenge, the metadata discovery, then bearer
//! calls on both eras), plus a server that does not allow the page's origin. The page posts
//! its report back to the page server; the assertions are on that report.
//!
//! Prerequisites: `chromium` on `PATH` (Debian: `apt-get install -y chromium`) and the
//! interop peers (`npm ci` in `interop/`, which installs esbuild). The test fails, naming
//! the missing one, when either is absent.

mod interop_support;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use axum::extract::State;
use axum::response::Html;
use axum::routing::{get, post};
use interop_support::{TestServer, interop_dir, node, run};
use mcp_examples::authz::{LocalAuthServer, RSA1_PEM, SigningKey};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// How long the page may take to run every step.
const PAGE_TIMEOUT: Duration = Duration::from_secs(120);

/// `chromium` on `PATH`, or a failure naming the prerequisite.
fn chromium() -> PathBuf {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("chromium"))
            .find(|candidate| candidate.is_file())
    });
    found.unwrap_or_else(|| {
        panic!(
            "headless Chromium is required for the browser test and `chromium` is not on PATH: \
             install it (Debian/Ubuntu: `apt-get install -y chromium`)"
        )
    })
}

/// A fresh scratch directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let dir = std::env::temp_dir().join(format!("mcp-browser-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create a scratch directory");
        Self(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Bundles `interop/browser/page.mjs` for the browser into `out`; the bundle's text.
async fn bundle(out: &Path) -> String {
    let _ = node();
    let esbuild = interop_dir().join("node_modules/.bin/esbuild");
    assert!(
        esbuild.exists(),
        "esbuild is not installed ({} is missing): run `npm ci` in {}",
        esbuild.display(),
        interop_dir().display()
    );
    let target = out.join("page.js");
    let outfile = format!("--outfile={}", target.display());
    let output = run(
        &esbuild,
        &[
            "browser/page.mjs",
            "--bundle",
            "--format=esm",
            "--platform=browser",
            "--target=chrome120",
            "--log-level=warning",
            &outfile,
        ],
        &interop_dir(),
        Duration::from_secs(60),
    )
    .await;
    assert!(
        output.success(),
        "bundling the page failed\n{}",
        output.report()
    );
    std::fs::read_to_string(&target).expect("the bundle")
}

#[derive(Clone)]
struct Page {
    script: String,
    reports: mpsc::Sender<Value>,
}

/// Serves the page and its bundle on a loopback port (the page's origin) and collects the
/// reports it posts.
async fn page_server(script: String) -> (String, mpsc::Receiver<Value>) {
    let (reports, received) = mpsc::channel(4);
    let app = axum::Router::new()
        .route(
            "/",
            get(|| async {
                Html(
                    "<!doctype html><meta charset=utf-8><title>mcp</title>\
                     <script type=module src=/page.js></script>",
                )
            }),
        )
        .route(
            "/page.js",
            get(|State(page): State<Page>| async move {
                ([("content-type", "text/javascript")], page.script)
            }),
        )
        .route(
            "/report",
            post(
                |State(page): State<Page>, axum::Json(report): axum::Json<Value>| async move {
                    let _ = page.reports.send(report).await;
                },
            ),
        )
        .with_state(Page { script, reports });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind the page server");
    let origin = format!("http://{}", listener.local_addr().expect("its address"));
    tokio::spawn(async move { axum::serve(listener, app).await });
    (origin, received)
}

/// Headless Chromium showing `url`, killed (with its process group) when dropped.
struct Browser(tokio::process::Child);

impl Browser {
    fn open(url: &str, profile: &Path) -> Self {
        let child = tokio::process::Command::new(chromium())
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start chromium: {e}"));
        Self(child)
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if let Some(pid) = self.0.id() {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", "--", &format!("-{pid}")])
                .status();
        }
    }
}

fn step<'a>(report: &'a Value, label: &str) -> &'a Value {
    report["steps"]
        .as_array()
        .and_then(|steps| steps.iter().find(|s| s["label"] == label))
        .unwrap_or_else(|| panic!("no `{label}` step in the report:\n{report:#}"))
}

fn call<'a>(step: &'a Value, name: &str) -> &'a Value {
    step["calls"]
        .as_array()
        .and_then(|calls| calls.iter().find(|c| c["name"] == name))
        .unwrap_or_else(|| panic!("no `{name}` call in {step:#}"))
}

/// The request header names of the `tools/call` POSTs in `call`.
fn posted_headers(call: &Value) -> Vec<Vec<String>> {
    call["requests"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["method"] == "POST")
        .map(|r| {
            r["requestHeaders"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|h| h.as_str().map(str::to_owned))
                .collect()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ts_client_in_chromium_talks_to_both_eras_across_origins() {
    let browser_binary = chromium();
    let scratch = Scratch::new();
    let script = bundle(&scratch.0).await;
    assert!(
        script.contains("CORS_IS_POSSIBLE = true"),
        "the bundle did not pick the SDK's browser build"
    );
    let (page, mut reports) = page_server(script).await;

    let allow_page = |builder: mcp::ServerBuilder| {
        builder.transport(|http: mcp::transport::http::HttpConfig| {
            http.allowed_origins([page.clone()])
        })
    };
    let weather = TestServer::start(|_| {
        allow_page(mcp::Server::builder(mcp_examples::weather::WeatherService))
    })
    .await;
    let foreign =
        TestServer::start(|_| mcp::Server::builder(mcp_examples::weather::WeatherService)).await;
    let authz = LocalAuthServer::start().await;
    let key = SigningKey::rsa("rsa-1", RSA1_PEM);
    authz.publish(&key);
    let (issuer, jwks) = (authz.issuer.clone(), authz.jwks_url.clone());
    let files = TestServer::start(move |addr| {
        allow_page(mcp_examples::files::server(
            &format!("http://{addr}/mcp"),
            &issuer,
            &jwks,
        ))
    })
    .await;
    let token = authz.issue(
        &key,
        &json!({"sub": "browser-user", "client_id": "browser-page", "aud": files.url, "scope": "files:read"}),
    );

    let url = format!(
        "{page}/?weather={}&files={}&foreign={}&token={token}",
        weather.url, files.url, foreign.url
    );
    assert!(browser_binary.is_file());
    let profile = scratch.0.join("profile");
    let browser = Browser::open(&url, &profile);
    let report = tokio::time::timeout(PAGE_TIMEOUT, reports.recv())
        .await
        .unwrap_or_else(|_| panic!("the page reported nothing within {PAGE_TIMEOUT:?}"))
        .expect("a report");
    drop(browser);
    eprintln!("{report:#}");
    assert!(report.get("fatal").is_none(), "{report:#}");
    assert_eq!(report["origin"], page.as_str());
    assert!(
        report["userAgent"]
            .as_str()
            .is_some_and(|ua| ua.contains("HeadlessChrome")),
        "{report:#}"
    );

    let tools = json!([
        "get_current_weather",
        "get_weather_forecast",
        "regional_weather"
    ]);
    for (label, era) in [
        ("weather-modern", "modern"),
        ("weather-legacy", "legacy"),
        ("weather-auto", "modern"),
    ] {
        let s = step(&report, label);
        assert!(s.get("error").is_none(), "{label}: {s:#}");
        assert_eq!(s["era"], era, "{label}: {s:#}");
        assert_eq!(s["tools"], tools, "{label}: {s:#}");
        let current = call(s, "get_current_weather");
        assert_eq!(current["ok"], true, "{label}: {current:#}");
        assert_eq!(current["isError"], false, "{label}: {current:#}");
        // Every request of the session passed the browser's CORS checks.
        assert!(
            s["requests"]
                .as_array()
                .is_some_and(|r| r.iter().all(|r| r["status"].as_u64().is_some())),
            "{label}: a request failed in the browser: {s:#}"
        );
    }
    // Header arguments: the browser client never mirrors them into `Mcp-Param-*` headers
    // (seed 003, "Browser clients skip mirroring"), so on the modern era the server, which
    // requires the header for a present argument, refuses the call with -32020; the legacy
    // era has no such header and the call succeeds.
    for label in ["weather-modern", "weather-auto"] {
        let regional = call(step(&report, label), "regional_weather");
        assert_eq!(regional["ok"], false, "{label}: {regional:#}");
        assert_eq!(regional["error"]["code"], -32020, "{label}: {regional:#}");
        for headers in posted_headers(regional) {
            assert!(
                !headers.iter().any(|h| h.starts_with("mcp-param-")),
                "{label}: the browser client mirrored a header argument: {headers:?}"
            );
            assert!(headers.contains(&"mcp-name".to_owned()), "{headers:?}");
        }
    }
    let legacy = step(&report, "weather-legacy");
    let regional = call(legacy, "regional_weather");
    assert_eq!(regional["ok"], true, "{regional:#}");
    let text = regional["content"][0]["text"].as_str().unwrap_or_default();
    let weather_of: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    assert_eq!(weather_of["location"], "eu-west/Porto", "{regional:#}");
    // The session id is an exposed header: the page read it and ended the session with a
    // cross-origin DELETE.
    assert!(
        legacy["sessionId"].as_str().is_some_and(|s| !s.is_empty()),
        "{legacy:#}"
    );
    assert_eq!(legacy["terminated"], true, "{legacy:#}");
    assert!(
        legacy["requests"].as_array().is_some_and(|r| r
            .iter()
            .any(|r| r["method"] == "DELETE" && r["status"] == 200)),
        "{legacy:#}"
    );

    // The OAuth-protected files service: without a token the client gets the 401, and the
    // page reads the challenge (an exposed header) and discovers our metadata.
    let anonymous = step(&report, "files-anonymous");
    assert_eq!(anonymous["error"]["status"], 401, "{anonymous:#}");
    assert_eq!(
        anonymous["error"]["code"], "CLIENT_HTTP_AUTHENTICATION",
        "{anonymous:#}"
    );
    let first = &anonymous["requests"][0];
    assert_eq!(first["status"], 401, "{anonymous:#}");
    assert!(
        first["wwwAuthenticate"]
            .as_str()
            .is_some_and(|h| h.starts_with("Bearer error=\"invalid_token\"")),
        "the page cannot read the challenge: {anonymous:#}"
    );
    let challenge = step(&report, "files-challenge");
    assert!(challenge.get("error").is_none(), "{challenge:#}");
    assert_eq!(challenge["status"], 401);
    let metadata_url = format!(
        "http://{}/.well-known/oauth-protected-resource/mcp",
        files.addr
    );
    assert!(
        challenge["wwwAuthenticate"]
            .as_str()
            .is_some_and(|h| h.starts_with("Bearer ") && h.contains(&metadata_url)),
        "{challenge:#}"
    );
    assert_eq!(challenge["challenge"]["resourceMetadataUrl"], metadata_url);
    assert_eq!(challenge["metadata"]["resource"], files.url);
    assert_eq!(
        challenge["metadata"]["authorization_servers"],
        json!([authz.issuer])
    );
    for (label, era) in [("files-modern", "modern"), ("files-legacy", "legacy")] {
        let s = step(&report, label);
        assert!(s.get("error").is_none(), "{label}: {s:#}");
        assert_eq!(s["era"], era, "{label}");
        let whoami = call(s, "whoami");
        assert_eq!(whoami["ok"], true, "{label}: {whoami:#}");
        let text = whoami["content"][0]["text"].as_str().unwrap_or_default();
        let who: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        assert_eq!(who["subject"], "browser-user", "{label}: {whoami:#}");
    }

    // A server that does not list the page's origin: refused (403) before CORS, so the
    // browser reports a network error and the page reads nothing.
    let refused = step(&report, "foreign");
    assert!(refused.get("era").is_none(), "{refused:#}");
    assert_eq!(
        refused["error"]["code"], "ERA_NEGOTIATION_FAILED",
        "{refused:#}"
    );
    let probe = &refused["requests"][0];
    assert!(probe.get("status").is_none(), "{refused:#}");
    assert_eq!(probe["error"]["name"], "TypeError", "{refused:#}");
    assert_eq!(probe["error"]["message"], "Failed to fetch", "{refused:#}");

    weather.stop().await;
    foreign.stop().await;
    files.stop().await;
}
