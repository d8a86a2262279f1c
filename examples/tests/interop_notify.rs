//! Change notifications against the real TypeScript v2 client (`interop/notify.mjs`,
//! `@modelcontextprotocol/client` 2.4.0), the inventory example served in-process: a modern
//! `subscriptions/listen` stream (acknowledged filter, `tools/list_changed` and
//! `resources/updated` stamped with the listen id, a local close) and a legacy session's
//! GET stream (the same notifications, unsolicited, after `resources/subscribe`), plus the
//! elicitation round of each era. Needs `npm ci` in `interop/`.

mod interop_support;

use std::time::Duration;

use interop_support::{Events, TestServer, interop_dir, node, run};
use mcp_examples::inventory::Inventory;
use serde_json::json;

async fn peer(url: &str, mode: &str) -> Events {
    let output = run(
        &node(),
        &["notify.mjs", url, "--mode", mode],
        &interop_dir(),
        Duration::from_secs(60),
    )
    .await;
    let events = Events::parse(&output);
    assert!(output.success(), "the peer failed\n{}", events.report);
    events
}

fn check_notifications(events: &Events, listen_id: Option<&str>) {
    let r = &events.report;
    let notified = events.of("notified");
    assert_eq!(notified.len(), 2, "{r}");
    assert_eq!(
        notified[0]["method"], "notifications/tools/list_changed",
        "{r}"
    );
    assert_eq!(
        notified[1]["method"], "notifications/resources/updated",
        "{r}"
    );
    assert_eq!(notified[1]["params"]["uri"], "inventory://stock", "{r}");
    let meta = listen_id.map(|id| json!({"io.modelcontextprotocol/subscriptionId": id}));
    assert_eq!(notified[0]["params"].get("_meta"), meta.as_ref(), "{r}");
    for n in notified {
        assert!(n["ms"].as_f64().is_some_and(|ms| ms < 1000.0), "{r}");
    }
    let confirmed = events.of("confirmed");
    assert_eq!(confirmed.len(), 2, "{r}");
    for c in confirmed {
        assert!(
            c["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("confirmed true (asked by solo")),
            "{r}"
        );
    }
    events.one("done");
}

#[tokio::test]
async fn the_typescript_client_listens_on_the_modern_era() {
    let server = TestServer::start(|_| Inventory::new("solo").builder()).await;
    let events = peer(&server.url, "modern").await;
    let r = &events.report;
    assert_eq!(
        events.one("connected")["capabilities"],
        // The modern discovery also advertises the tasks extension (the `audit` tool).
        json!({"logging": {}, "resources": {"subscribe": true, "listChanged": true},
               "tools": {"listChanged": true},
               "extensions": {"io.modelcontextprotocol/tasks": {}}}),
        "{r}"
    );
    // Prompts are not served and `bogus` is not a filter member: neither is acknowledged.
    assert_eq!(
        events.one("listening")["honored"],
        json!({"toolsListChanged": true, "resourceSubscriptions": ["inventory://stock"]}),
        "{r}"
    );
    check_notifications(&events, Some("listen:0"));
    assert_eq!(events.one("closed")["how"], "local", "{r}");
    server.stop().await;
}

#[tokio::test]
async fn the_typescript_client_hears_changes_on_its_legacy_get_stream() {
    let server = TestServer::start(|_| Inventory::new("solo").builder()).await;
    let events = peer(&server.url, "legacy").await;
    let counts: Vec<_> = events
        .of("count")
        .iter()
        .map(|c| c["value"].clone())
        .collect();
    assert_eq!(
        counts,
        [
            json!("1 on solo"),
            json!("2 on solo"),
            json!("3 on solo"),
            json!("4 on solo")
        ],
        "{}",
        events.report
    );
    check_notifications(&events, None);
    server.stop().await;
}
