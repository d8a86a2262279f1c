//! The `tools/list` result cache, one rule per test, against a local server that counts
//! requests and controls `ttlMs`.

mod client_common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::StatusCode;
use axum::response::IntoResponse;
use client_common::{Mock, bounded, client_info, rpc_error, tool};
use http::{HeaderMap, HeaderValue};
use mcp::client::{
    AuthChallenge, CacheMode, Client, ClientConfig, ClientError, ResultCacheConfig, TokenProvider,
    TransportError,
};
use mcp::protocol::ErrorCode;
use serde_json::{Value, json};

/// Two pages: `a` (with an `x-mcp-header`) and `b`, then `c`.
fn pages() -> Vec<Vec<Value>> {
    vec![
        vec![
            tool(
                "a",
                json!({"region": {"type": "string", "x-mcp-header": "Region"}}),
            ),
            tool("b", json!({})),
        ],
        vec![tool("c", json!({}))],
    ]
}

async fn modern(mock: &Mock, config: ClientConfig) -> Client {
    let client = Client::new(&mock.url, config).expect("client");
    client.connect(client_info()).await.expect("connect");
    client
}

#[tokio::test]
async fn pages_are_reused_for_their_ttl() {
    bounded(async {
        let mock = Mock::start(pages(), |_, _| None).await;
        mock.set_ttl(60_000);
        let client = modern(&mock, ClientConfig::new()).await;
        let first = client.list_tools().await.unwrap();
        assert_eq!(first.tools.len(), 3);
        assert_eq!(first.ttl_ms, Some(60_000));
        assert_eq!(mock.count("tools/list"), 2);
        assert_eq!(client.list_tools().await.unwrap(), first);
        assert_eq!(mock.count("tools/list"), 2, "both pages reused");
        // Page by page, each cursor has its own entry.
        let page2 = client
            .list_tools_page(Some("p1"), CacheMode::Normal)
            .await
            .unwrap();
        assert_eq!(page2.tools[0].name, "c");
        assert_eq!(mock.count("tools/list"), 2);
    })
    .await;
}

#[tokio::test]
async fn zero_ttl_is_not_reused() {
    bounded(async {
        let mock = Mock::start(pages(), |_, _| None).await;
        let client = modern(&mock, ClientConfig::new()).await;
        client.list_tools().await.unwrap();
        client.list_tools().await.unwrap();
        assert_eq!(mock.count("tools/list"), 4);
    })
    .await;
}

#[tokio::test]
async fn negative_ttl_counts_as_zero() {
    bounded(async {
        let mock = Mock::start(pages(), |_, _| None).await;
        mock.set_ttl(-5);
        let client = modern(&mock, ClientConfig::new()).await;
        let listed = client.list_tools().await.unwrap();
        assert_eq!(listed.ttl_ms, Some(0));
        client.list_tools().await.unwrap();
        assert_eq!(mock.count("tools/list"), 4);
    })
    .await;
}

#[tokio::test]
async fn ttl_is_capped_by_max_ttl() {
    bounded(async {
        let mock = Mock::start(pages(), |_, _| None).await;
        mock.set_ttl(60_000);
        let config = ClientConfig::new().result_cache(Some(
            ResultCacheConfig::new().max_ttl(Duration::from_millis(150)),
        ));
        let client = modern(&mock, config).await;
        client
            .list_tools_page(None, CacheMode::Normal)
            .await
            .unwrap();
        client
            .list_tools_page(None, CacheMode::Normal)
            .await
            .unwrap();
        assert_eq!(mock.count("tools/list"), 1);
        tokio::time::sleep(Duration::from_millis(250)).await;
        client
            .list_tools_page(None, CacheMode::Normal)
            .await
            .unwrap();
        assert_eq!(mock.count("tools/list"), 2, "expired after max_ttl");
    })
    .await;
}

#[tokio::test]
async fn max_entries_bounds_the_cache() {
    bounded(async {
        let mock = Mock::start(pages(), |_, _| None).await;
        mock.set_ttl(60_000);
        let config =
            ClientConfig::new().result_cache(Some(ResultCacheConfig::new().max_entries(1)));
        let client = modern(&mock, config).await;
        client.list_tools().await.unwrap();
        assert_eq!(mock.count("tools/list"), 2);
        // Only the last page stayed.
        client
            .list_tools_page(Some("p1"), CacheMode::Normal)
            .await
            .unwrap();
        assert_eq!(mock.count("tools/list"), 2);
        client
            .list_tools_page(None, CacheMode::Normal)
            .await
            .unwrap();
        assert_eq!(mock.count("tools/list"), 3);
    })
    .await;
}

#[tokio::test]
async fn refresh_fetches_and_recaches() {
    bounded(async {
        let mock = Mock::start(pages(), |_, _| None).await;
        mock.set_ttl(60_000);
        let client = modern(&mock, ClientConfig::new()).await;
        client
            .list_tools_page(None, CacheMode::Normal)
            .await
            .unwrap();
        mock.state.pages.lock().unwrap()[0].push(tool("new", json!({})));
        let refreshed = client
            .list_tools_page(None, CacheMode::Refresh)
            .await
            .unwrap();
        assert_eq!(refreshed.tools.len(), 3);
        assert_eq!(mock.count("tools/list"), 2);
        let again = client
            .list_tools_page(None, CacheMode::Normal)
            .await
            .unwrap();
        assert_eq!(again, refreshed, "the refreshed page was cached");
        assert_eq!(mock.count("tools/list"), 2);
    })
    .await;
}

#[tokio::test]
async fn bypass_neither_reads_nor_writes() {
    bounded(async {
        let mock = Mock::start(pages(), |_, _| None).await;
        mock.set_ttl(60_000);
        let client = modern(&mock, ClientConfig::new()).await;
        client
            .list_tools_page(None, CacheMode::Bypass)
            .await
            .unwrap();
        client
            .list_tools_page(None, CacheMode::Normal)
            .await
            .unwrap();
        assert_eq!(mock.count("tools/list"), 2, "bypass did not write");
        client
            .list_tools_page(None, CacheMode::Bypass)
            .await
            .unwrap();
        assert_eq!(mock.count("tools/list"), 3, "bypass did not read");
        client
            .list_tools_page(None, CacheMode::Normal)
            .await
            .unwrap();
        assert_eq!(mock.count("tools/list"), 3);
    })
    .await;
}

#[tokio::test]
async fn disabled_by_config() {
    bounded(async {
        let mock = Mock::start(pages(), |_, _| None).await;
        mock.set_ttl(60_000);
        let client = modern(&mock, ClientConfig::new().result_cache(None)).await;
        client
            .list_tools_page(None, CacheMode::Normal)
            .await
            .unwrap();
        client
            .list_tools_page(None, CacheMode::Normal)
            .await
            .unwrap();
        assert_eq!(mock.count("tools/list"), 2);
        // Header declarations are still remembered for mirroring.
        client
            .call("a")
            .arguments(json!({"region": "eu"}))
            .unwrap()
            .await
            .unwrap();
        assert_eq!(mock.count("tools/list"), 2);
        assert_eq!(
            mock.last("tools/call").header("mcp-param-region"),
            Some("eu")
        );
    })
    .await;
}

#[tokio::test]
async fn hints_from_legacy_servers_are_ignored() {
    bounded(async {
        // A legacy server has no hints; even a stray ttlMs is not used.
        let mock = Mock::start(pages(), |_, r| {
            (r.rpc_method() == "initialize").then(|| {
                client_common::rpc_result(
                    &r.body["id"],
                    json!({"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "l", "version": "1"}}),
                )
            })
        })
        .await;
        mock.set_ttl(60_000);
        let client = Client::new(
            &mock.url,
            ClientConfig::new().protocol_mode(mcp::client::ProtocolMode::Legacy),
        )
        .unwrap();
        client.connect(client_info()).await.unwrap();
        let page = client.list_tools_page(None, CacheMode::Normal).await.unwrap();
        assert_eq!(page.ttl_ms, None);
        client.list_tools_page(None, CacheMode::Normal).await.unwrap();
        assert_eq!(mock.count("tools/list"), 2);
    })
    .await;
}

#[tokio::test]
async fn invalid_params_on_a_cursor_drops_all_pages() {
    bounded(async {
        let mock = Mock::start(pages(), |_, _| None).await;
        mock.set_ttl(60_000);
        let client = modern(&mock, ClientConfig::new()).await;
        client.list_tools().await.unwrap();
        assert_eq!(mock.count("tools/list"), 2);
        let err = client
            .list_tools_page(Some("bogus"), CacheMode::Normal)
            .await
            .unwrap_err();
        assert_eq!(err.code(), Some(ErrorCode::INVALID_PARAMS));
        assert_eq!(mock.count("tools/list"), 3);
        client.list_tools().await.unwrap();
        assert_eq!(mock.count("tools/list"), 5, "both pages fetched again");
    })
    .await;
}

#[tokio::test]
async fn header_mismatch_drops_the_cache_and_retries_once() {
    bounded(async {
        let rejected = Arc::new(AtomicUsize::new(0));
        let budget = Arc::new(AtomicUsize::new(1));
        let (r2, b2) = (rejected.clone(), budget.clone());
        let mock = Mock::start(pages(), move |_, r| {
            let take = r.rpc_method() == "tools/call"
                && b2
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                    .is_ok();
            take.then(|| {
                r2.fetch_add(1, Ordering::SeqCst);
                rpc_error(
                    StatusCode::BAD_REQUEST,
                    &r.body["id"],
                    -32020,
                    "Bad Request: headers and body disagree",
                )
            })
        })
        .await;
        mock.set_ttl(60_000);
        let client = modern(&mock, ClientConfig::new()).await;
        client.list_tools().await.unwrap();
        assert_eq!(mock.count("tools/list"), 2);
        // One mismatch: cache dropped, list fetched again, call retried and answered.
        let r = client
            .call("a")
            .arguments(json!({"region": "eu"}))
            .unwrap()
            .await
            .unwrap();
        assert!(!r.is_error());
        assert_eq!(mock.count("tools/call"), 2);
        assert_eq!(mock.count("tools/list"), 4, "refetched after the mismatch");
        assert_eq!(
            mock.last("tools/call").header("mcp-param-region"),
            Some("eu")
        );
        let ids: Vec<_> = mock
            .requests()
            .iter()
            .filter(|r| r.rpc_method() == "tools/call")
            .map(|r| r.body["id"].clone())
            .collect();
        assert_ne!(ids[0], ids[1], "the retry has a new id");
        // Two mismatches in a row: the error stands, and the cache is dropped.
        budget.store(2, Ordering::SeqCst);
        let err = client
            .call("a")
            .arguments(json!({"region": "eu"}))
            .unwrap()
            .await
            .unwrap_err();
        assert_eq!(err.code(), Some(ErrorCode::HEADER_MISMATCH));
        assert_eq!(err.http_status(), Some(400));
        assert_eq!(rejected.load(Ordering::SeqCst), 3);
        let before = mock.count("tools/list");
        client.list_tools().await.unwrap();
        assert_eq!(
            mock.count("tools/list"),
            before + 2,
            "dropped by the mismatch"
        );
    })
    .await;
}

#[tokio::test]
async fn header_mismatch_on_tools_list_drops_the_cache() {
    bounded(async {
        let fail = Arc::new(AtomicBool::new(false));
        let f2 = fail.clone();
        let mock = Mock::start(pages(), move |_, r| {
            (r.rpc_method() == "tools/list"
                && r.body["params"]["cursor"] == "p1"
                && f2.load(Ordering::SeqCst))
            .then(|| rpc_error(StatusCode::BAD_REQUEST, &r.body["id"], -32020, "mismatch"))
        })
        .await;
        mock.set_ttl(60_000);
        let client = modern(&mock, ClientConfig::new()).await;
        client
            .list_tools_page(None, CacheMode::Normal)
            .await
            .unwrap();
        fail.store(true, Ordering::SeqCst);
        let err = client
            .list_tools_page(Some("p1"), CacheMode::Normal)
            .await
            .unwrap_err();
        assert_eq!(err.code(), Some(ErrorCode::HEADER_MISMATCH));
        client
            .list_tools_page(None, CacheMode::Normal)
            .await
            .unwrap();
        assert_eq!(
            mock.count("tools/list"),
            3,
            "the first page was dropped too"
        );
    })
    .await;
}

#[tokio::test]
async fn close_drops_the_cache() {
    bounded(async {
        let mock = Mock::start(pages(), |_, _| None).await;
        mock.set_ttl(60_000);
        let client = modern(&mock, ClientConfig::new()).await;
        client.list_tools().await.unwrap();
        client.close().await.unwrap();
        assert!(matches!(
            client.list_tools().await,
            Err(ClientError::NotConnected)
        ));
        client.connect(client_info()).await.unwrap();
        client.list_tools().await.unwrap();
        assert_eq!(mock.count("tools/list"), 4);
    })
    .await;
}

#[tokio::test]
async fn a_call_with_its_own_authorization_bypasses_the_cache() {
    bounded(async {
        let mock = Mock::start(pages(), |_, _| None).await;
        mock.set_ttl(60_000);
        let client = modern(&mock, ClientConfig::new()).await;
        client.list_tools().await.unwrap();
        assert_eq!(mock.count("tools/list"), 2);
        let mut headers = HeaderMap::new();
        headers.insert(
            "authorization",
            HeaderValue::from_static("Bearer other-user"),
        );
        headers.insert("x-trace", HeaderValue::from_static("t1"));
        client
            .call("a")
            .arguments(json!({"region": "eu"}))
            .unwrap()
            .headers(headers)
            .await
            .unwrap();
        // The definition was listed again, with the call's credentials…
        assert_eq!(mock.count("tools/list"), 4);
        let list = mock.last("tools/list");
        assert_eq!(list.header("authorization"), Some("Bearer other-user"));
        let call = mock.last("tools/call");
        assert_eq!(call.header("authorization"), Some("Bearer other-user"));
        assert_eq!(call.header("x-trace"), Some("t1"));
        assert_eq!(call.header("mcp-param-region"), Some("eu"));
        // …and nothing was cached from it: the client's own pages are still there.
        client.list_tools().await.unwrap();
        assert_eq!(mock.count("tools/list"), 4);
        assert_eq!(
            mock.last("tools/list").header("authorization"),
            Some("Bearer other-user")
        );
    })
    .await;
}

/// Hands out `tokens[i]`: `token()` gives the current one, a challenge moves to the next.
struct Rotating {
    tokens: Vec<&'static str>,
    at: Mutex<usize>,
    challenges: Mutex<Vec<AuthChallenge>>,
}

impl TokenProvider for Rotating {
    async fn token(&self) -> Result<Option<String>, ClientError> {
        Ok(Some(self.tokens[*self.at.lock().unwrap()].to_owned()))
    }

    async fn on_challenge(&self, challenge: &AuthChallenge) -> Result<Option<String>, ClientError> {
        self.challenges.lock().unwrap().push(challenge.clone());
        let mut at = self.at.lock().unwrap();
        *at = (*at + 1).min(self.tokens.len() - 1);
        Ok(Some(self.tokens[*at].to_owned()))
    }
}

/// A server that accepts only `Bearer {valid}` and answers `status` with a challenge
/// otherwise.
async fn guarded(valid: Arc<Mutex<&'static str>>, status: StatusCode) -> Mock {
    let mock = Mock::start(pages(), move |_, r| {
        let expected = format!("Bearer {}", valid.lock().unwrap());
        if r.header("authorization") == Some(expected.as_str()) {
            return None;
        }
        let challenge = if status == StatusCode::FORBIDDEN {
            r#"Bearer error="insufficient_scope", scope="tools:write""#
        } else {
            r#"Bearer error="invalid_token", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp""#
        };
        Some((status, [("www-authenticate", challenge)], "{}").into_response())
    })
    .await;
    mock.set_ttl(60_000);
    mock
}

async fn token_change_drops(status: StatusCode) {
    let valid = Arc::new(Mutex::new("t1"));
    let mock = guarded(valid.clone(), status).await;
    let provider = Arc::new(Rotating {
        tokens: vec!["t1", "t2"],
        at: Mutex::new(0),
        challenges: Mutex::new(Vec::new()),
    });
    let client = modern(&mock, ClientConfig::new().token_provider(provider.clone())).await;
    client.list_tools().await.unwrap();
    assert_eq!(mock.count("tools/list"), 2);
    // The server now wants another token: the challenge yields t2, the cache is dropped
    // and the call retried once with t2.
    *valid.lock().unwrap() = "t2";
    client
        .call("b")
        .arguments(json!({}))
        .unwrap()
        .await
        .unwrap();
    let challenges = provider.challenges.lock().unwrap().clone();
    assert_eq!(challenges.len(), 1);
    assert_eq!(challenges[0].status(), status.as_u16());
    if status == StatusCode::FORBIDDEN {
        assert!(challenges[0].is_insufficient_scope());
        assert_eq!(challenges[0].scope(), Some("tools:write"));
    } else {
        assert_eq!(challenges[0].error(), Some("invalid_token"));
    }
    assert_eq!(
        mock.last("tools/call").header("authorization"),
        Some("Bearer t2")
    );
    client.list_tools().await.unwrap();
    assert_eq!(mock.count("tools/list"), 4, "dropped on the token change");
}

#[tokio::test]
async fn a_new_token_after_401_drops_the_cache() {
    bounded(token_change_drops(StatusCode::UNAUTHORIZED)).await;
}

#[tokio::test]
async fn a_new_token_after_insufficient_scope_drops_the_cache() {
    bounded(token_change_drops(StatusCode::FORBIDDEN)).await;
}

#[tokio::test]
async fn the_same_token_after_a_challenge_fails_and_keeps_the_cache() {
    bounded(async {
        let valid = Arc::new(Mutex::new("t1"));
        let mock = guarded(valid.clone(), StatusCode::UNAUTHORIZED).await;
        let provider = Arc::new(Rotating {
            tokens: vec!["t1"],
            at: Mutex::new(0),
            challenges: Mutex::new(Vec::new()),
        });
        let client = modern(&mock, ClientConfig::new().token_provider(provider.clone())).await;
        client.list_tools().await.unwrap();
        *valid.lock().unwrap() = "nobody";
        let err = client
            .call("b")
            .arguments(json!({}))
            .unwrap()
            .await
            .unwrap_err();
        assert!(
            matches!(
                err,
                ClientError::Transport(TransportError::Unauthorized { .. })
            ),
            "{err:?}"
        );
        assert_eq!(err.http_status(), Some(401));
        assert_eq!(mock.count("tools/call"), 1, "no retry with the same token");
        *valid.lock().unwrap() = "t1";
        client.list_tools().await.unwrap();
        assert_eq!(mock.count("tools/list"), 2, "the cache was kept");
    })
    .await;
}

#[tokio::test]
async fn a_token_refreshed_without_a_challenge_keeps_the_cache() {
    bounded(async {
        let valid = Arc::new(Mutex::new("t1"));
        let mock = guarded(valid.clone(), StatusCode::UNAUTHORIZED).await;
        let provider = Arc::new(Rotating {
            tokens: vec!["t1", "t2"],
            at: Mutex::new(0),
            challenges: Mutex::new(Vec::new()),
        });
        let client = modern(&mock, ClientConfig::new().token_provider(provider.clone())).await;
        client.list_tools().await.unwrap();
        // The provider refreshes on its own (expiry): no challenge, same cache.
        *provider.at.lock().unwrap() = 1;
        *valid.lock().unwrap() = "t2";
        client
            .call("b")
            .arguments(json!({}))
            .unwrap()
            .await
            .unwrap();
        assert_eq!(
            mock.last("tools/call").header("authorization"),
            Some("Bearer t2")
        );
        client.list_tools().await.unwrap();
        assert_eq!(mock.count("tools/list"), 2);
        assert!(provider.challenges.lock().unwrap().is_empty());
    })
    .await;
}

#[tokio::test]
async fn tools_with_invalid_header_declarations_are_left_out() {
    bounded(async {
        let pages = vec![vec![
            tool("ok", json!({"n": {"type": "integer", "x-mcp-header": "N"}})),
            tool("number", json!({"n": {"type": "number", "x-mcp-header": "N"}})),
            tool("bad_name", json!({"n": {"type": "string", "x-mcp-header": "a b"}})),
            tool(
                "dup",
                json!({"a": {"type": "string", "x-mcp-header": "X"}, "b": {"type": "string", "x-mcp-header": "x"}}),
            ),
            tool(
                "nested",
                json!({"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}),
            ),
        ]];
        let mock = Mock::start(pages, |_, _| None).await;
        let client = modern(&mock, ClientConfig::new()).await;
        let listed = client.list_tools().await.unwrap();
        let names: Vec<_> = listed.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["ok"]);
        // A left-out tool is still callable; nothing is mirrored for it.
        client.call("number").arguments(json!({"n": 1.5})).unwrap().await.unwrap();
        assert_eq!(mock.last("tools/call").header("mcp-param-n"), None);
        assert_eq!(mock.last("tools/call").header("mcp-name"), Some("number"));
    })
    .await;
}
