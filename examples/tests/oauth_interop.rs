//! The OAuth-protected files service against the real TypeScript SDK v2 client: a bearer
//! token from the local authorization server calls protected tools in both eras, and on a
//! 401 the SDK's own protected-resource discovery reads our metadata document.

mod interop_support;

use interop_support::{PEER_TIMEOUT, TestServer, interop_dir, node, run};
use mcp_examples::authz::{LocalAuthServer, RSA1_PEM, SigningKey};
use serde_json::{Value, json};

async fn bearer(args: &[&str]) -> Vec<Value> {
    let mut argv = vec!["bearer.mjs"];
    argv.extend_from_slice(args);
    let output = run(&node(), &argv, &interop_dir(), PEER_TIMEOUT).await;
    let report = output.report();
    assert!(output.success(), "bearer.mjs failed\n{report}");
    output
        .stdout
        .lines()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}\n{report}"))
        })
        .collect()
}

fn event<'a>(events: &'a [Value], kind: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["event"] == kind)
        .unwrap_or_else(|| panic!("no `{kind}` event in {events:#?}"))
}

async fn protected() -> (LocalAuthServer, SigningKey, TestServer) {
    let authz = LocalAuthServer::start().await;
    let key = SigningKey::rsa("rsa-1", RSA1_PEM);
    authz.publish(&key);
    let (issuer, jwks) = (authz.issuer.clone(), authz.jwks_url.clone());
    let server = TestServer::start(move |addr| {
        mcp_examples::files::server(&format!("http://{addr}/mcp"), &issuer, &jwks)
    })
    .await;
    (authz, key, server)
}

#[tokio::test]
async fn the_ts_client_discovers_our_metadata_after_a_401() {
    let (authz, _key, server) = protected().await;
    let events = bearer(&[&server.url, "--discover"]).await;
    let discovery = event(&events, "discovery");
    assert_eq!(discovery["status"], 401, "{discovery:#}");
    assert_eq!(discovery["challenge"]["error"], "invalid_token");
    let metadata_url = format!(
        "http://{}/.well-known/oauth-protected-resource/mcp",
        server.addr
    );
    assert_eq!(discovery["challenge"]["resourceMetadataUrl"], metadata_url);
    assert_eq!(discovery["metadata"]["resource"], server.url);
    assert_eq!(
        discovery["metadata"]["authorization_servers"],
        json!([authz.issuer])
    );
    assert_eq!(
        discovery["metadata"]["scopes_supported"],
        json!(["files:read", "files:write", "files:admin"])
    );
    assert_eq!(
        discovery["allowed"], true,
        "the SDK accepts our resource for this URL"
    );
    server.stop().await;
}

#[tokio::test]
async fn the_ts_client_calls_protected_tools_with_a_bearer_token() {
    let (authz, key, server) = protected().await;
    let token = authz.issue(
        &key,
        &json!({"sub": "alice", "client_id": "ts-client", "aud": server.url, "scope": "files:write"}),
    );
    for mode in ["modern", "legacy", "auto"] {
        let events = bearer(&[
            &server.url,
            "--token",
            &token,
            "--tool",
            "whoami",
            "--mode",
            mode,
        ])
        .await;
        let connected = event(&events, "connected");
        let era = if mode == "legacy" { "legacy" } else { "modern" };
        assert_eq!(connected["era"], era, "{mode}: {events:#?}");
        let names = &event(&events, "tools")["names"];
        assert_eq!(
            names,
            &json!(["read_file", "delete_file", "purge", "whoami"]),
            "{mode}"
        );
        let step = event(&events, "step");
        let who: Value =
            serde_json::from_str(step["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(who["subject"], "alice", "{mode}");
        assert_eq!(who["client_id"], "ts-client");
        // files:write implies files:read through the hierarchy.
        assert_eq!(
            who["scopes"],
            json!(["files:read", "files:write"]),
            "{mode}"
        );
    }
    // The tool asks for a scope the token lacks at run time: the SDK reads our 403
    // `insufficient_scope` challenge and reports the scope it names.
    let events = bearer(&[
        &server.url,
        "--token",
        &token,
        "--tool",
        "purge",
        "--mode",
        "modern",
    ])
    .await;
    let error = event(&events, "error");
    assert_eq!(
        error["message"], "Insufficient scope: required \"files:admin\"",
        "{error:#}"
    );
    server.stop().await;
}
