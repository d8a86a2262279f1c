//! Virtual hosts: two OAuth-protected services at the same path on different hosts, each with
//! its own protected resource metadata and challenges, behind one router.

use axum::body::Body;
use http::{Request, StatusCode};
use http_body_util::BodyExt as _;
use mcp::transport::http::{VirtualHosts, router};
use mcp_examples::authz::{LocalAuthServer, RSA1_PEM, SigningKey};
use serde_json::{Value, json};
use tower::ServiceExt as _;

async fn send(app: &axum::Router, request: Request<Body>) -> (StatusCode, http::HeaderMap, Value) {
    let response = app.clone().oneshot(request).await.unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        headers,
        serde_json::from_slice(&body).unwrap_or(Value::Null),
    )
}

fn metadata(host: &str) -> Request<Body> {
    Request::get("/.well-known/oauth-protected-resource/mcp")
        .header("host", host)
        .body(Body::empty())
        .unwrap()
}

fn call(host: &str, token: Option<&str>) -> Request<Body> {
    let mut b = Request::post("/mcp")
        .header("host", host)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(t) = token {
        b = b.header("authorization", format!("Bearer {t}"));
    }
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "whoami"}});
    b.body(Body::from(body.to_string())).unwrap()
}

#[tokio::test]
async fn each_host_publishes_its_own_metadata_and_accepts_its_own_tokens() {
    let authz = LocalAuthServer::start().await;
    let key = SigningKey::rsa("rsa-1", RSA1_PEM);
    authz.publish(&key);
    let service = |resource: &str| {
        let server = mcp_examples::files::server(resource, &authz.issuer, &authz.jwks_url)
            .build()
            .unwrap();
        router("/mcp", server)
    };
    let app = VirtualHosts::new()
        .host("a.example.com", service("https://a.example.com/mcp"))
        .host("b.example.com", service("https://files.example.org/mcp"))
        .into_router();

    let (status, _, doc) = send(&app, metadata("a.example.com")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(doc["resource"], "https://a.example.com/mcp");
    // The public resource need not share the virtual host's name.
    let (status, _, doc) = send(&app, metadata("B.Example.com:8443")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(doc["resource"], "https://files.example.org/mcp");
    assert_eq!(
        send(&app, metadata("c.example.com")).await.0,
        StatusCode::NOT_FOUND
    );

    // Challenges point at each host's own metadata.
    let (status, headers, _) = send(&app, call("b.example.com", None)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let challenge = headers["www-authenticate"].to_str().unwrap();
    assert!(challenge.contains(r#"resource_metadata="https://files.example.org/.well-known/oauth-protected-resource/mcp""#), "{challenge}");

    // A token for one host's resource is refused by the other.
    let token = authz.issue(
        &key,
        &json!({"sub": "alice", "aud": "https://a.example.com/mcp", "scope": "files:read"}),
    );
    let (status, _, body) = send(&app, call("a.example.com", Some(&token))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(
        body["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("alice")
    );
    assert_eq!(
        send(&app, call("b.example.com", Some(&token))).await.0,
        StatusCode::UNAUTHORIZED
    );
}
