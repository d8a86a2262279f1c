//! The OAuth protected resource layer with real crypto: a local authorization server
//! (`mcp_examples::authz`) publishes RSA and EC keys over HTTP and answers introspection;
//! the files service validates its tokens.

use std::time::Duration;

use axum::body::Body;
use http::{Request, StatusCode};
use mcp::auth::{AuthorizationServer, ListenerAuth, OAuthConfig};
use mcp::testing::{PATH, TestClient, TestResponse};
use mcp_examples::authz::{
    EC1_PEM, LocalAuthServer, RSA1_PEM, RSA1_PUBLIC_PEM, RSA2_PEM, SigningKey, now,
};
use mcp_examples::files::{Files, oauth_config};
use serde_json::{Value, json};

const RESOURCE: &str = "https://mcp.example.com/mcp";
const METADATA: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

struct Env {
    authz: LocalAuthServer,
    rsa: SigningKey,
    ec: SigningKey,
    client: TestClient,
}

async fn env_with(tweak: impl FnOnce(OAuthConfig) -> OAuthConfig) -> Env {
    let authz = LocalAuthServer::start().await;
    let rsa = SigningKey::rsa("rsa-1", RSA1_PEM);
    let ec = SigningKey::ec("ec-1", EC1_PEM);
    authz.publish(&rsa);
    authz.publish(&ec);
    let config = tweak(oauth_config(RESOURCE, &authz.issuer, &authz.jwks_url));
    let server = mcp::Server::builder(Files)
        .oauth(config)
        .transport(|http: mcp::transport::http::HttpConfig| {
            http.allowed_origins(["https://app.example.com"])
        })
        .build()
        .expect("valid configuration");
    Env {
        authz,
        rsa,
        ec,
        client: TestClient::new(server),
    }
}

async fn env() -> Env {
    env_with(|c| c).await
}

impl Env {
    fn token(&self, claims: Value) -> String {
        let mut base =
            json!({"sub": "alice", "client_id": "app", "aud": RESOURCE, "scope": "files:read"});
        for (k, v) in claims.as_object().into_iter().flatten() {
            base[k] = v.clone();
        }
        self.authz.issue(&self.rsa, &base)
    }

    async fn call(&self, token: Option<&str>, tool: &str, args: Value) -> TestResponse {
        let bearer = token.map(|t| format!("Bearer {t}"));
        let headers: Vec<(&str, &str)> = bearer
            .as_deref()
            .map(|b| vec![("authorization", b)])
            .unwrap_or_default();
        self.client
            .modern_with_headers(
                "tools/call",
                json!({"name": tool, "arguments": args}),
                &headers,
            )
            .await
    }

    async fn read(&self, token: &str) -> TestResponse {
        self.call(Some(token), "read_file", json!({"path": "a.txt"}))
            .await
    }
}

#[track_caller]
fn assert_invalid_token(r: &TestResponse, description: &str) {
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.raw);
    let challenge = r.headers["www-authenticate"].to_str().unwrap();
    assert_eq!(
        challenge,
        format!(
            "Bearer error=\"invalid_token\", error_description=\"{description}\", resource_metadata=\"{METADATA}\""
        )
    );
    assert_eq!(
        r.body,
        json!({"error": "invalid_token", "error_description": description})
    );
}

#[track_caller]
fn assert_insufficient(r: &TestResponse, scopes: &str, description: &str) {
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.raw);
    assert_eq!(
        r.headers["www-authenticate"].to_str().unwrap(),
        format!(
            "Bearer error=\"insufficient_scope\", error_description=\"{description}\", scope=\"{scopes}\", resource_metadata=\"{METADATA}\""
        )
    );
    assert_eq!(r.body["error"], "insufficient_scope");
}

fn text(r: &TestResponse) -> String {
    r.result()["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn valid_rsa_and_ec_tokens_are_accepted_and_fill_the_auth_context() {
    let e = env().await;
    let r = e.read(&e.token(json!({}))).await;
    assert_eq!(text(&r), "contents of a.txt for alice");
    let ec = e.authz.issue(
        &e.ec,
        &json!({"sub": "bob", "azp": "cli", "aud": RESOURCE, "scope": "files:write"}),
    );
    let r = e.call(Some(&ec), "whoami", json!({})).await;
    let who: Value = serde_json::from_str(&text(&r)).unwrap();
    assert_eq!(
        who,
        json!({"subject": "bob", "issuer": e.authz.issuer, "client_id": "cli",
               "scopes": ["files:read", "files:write"]})
    );
}

#[tokio::test]
async fn missing_and_malformed_tokens_get_the_401_challenge() {
    let e = env().await;
    let r = e.call(None, "read_file", json!({"path": "a"})).await;
    assert_invalid_token(&r, "Missing Authorization header");
    let r = e
        .client
        .modern_with_headers("tools/list", json!({}), &[("authorization", "Basic YTpi")])
        .await;
    assert_invalid_token(&r, "Invalid Authorization header, expected 'Bearer TOKEN'");
    // An opaque token with no introspection server configured.
    assert_invalid_token(&e.read("opaque-token").await, "Invalid token");
}

#[tokio::test]
async fn time_audience_and_issuer_are_checked() {
    let e = env().await;
    let t = now();
    let expired = e.token(json!({"exp": t - 120}));
    assert_invalid_token(&e.read(&expired).await, "Token has expired");
    // Within the 60 s leeway.
    let barely = e.token(json!({"exp": t - 10}));
    e.read(&barely).await.result();
    let future = e.token(json!({"nbf": t + 600}));
    assert_invalid_token(&e.read(&future).await, "Token is not yet valid");
    let wrong_aud = e.token(json!({"aud": "https://other.example.com/mcp"}));
    assert_invalid_token(
        &e.read(&wrong_aud).await,
        "Token was not issued for this resource",
    );
    let wrong_iss = e.token(json!({"iss": "https://evil.example.com"}));
    assert_invalid_token(&e.read(&wrong_iss).await, "Token issuer is not trusted");
    let no_iss = e
        .rsa
        .sign(&json!({"sub": "alice", "aud": RESOURCE, "exp": t + 600, "scope": "files:read"}));
    assert_invalid_token(&e.read(&no_iss).await, "Invalid token: no issuer");
    let no_exp = e.rsa.sign(
        &json!({"iss": e.authz.issuer, "sub": "alice", "aud": RESOURCE, "scope": "files:read"}),
    );
    assert_invalid_token(
        &e.read(&no_exp).await,
        "Invalid token: a required claim is missing",
    );
}

#[tokio::test]
async fn alg_none_and_hs256_with_the_public_key_are_refused() {
    use base64::Engine as _;
    let e = env().await;
    let b64 = |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    let claims = json!({"iss": e.authz.issuer, "sub": "alice", "aud": RESOURCE, "exp": now() + 600, "scope": "files:read"});
    let none = format!(
        "{}.{}.",
        b64(&json!({"alg": "none", "kid": "rsa-1"})),
        b64(&claims)
    );
    assert_invalid_token(
        &e.read(&none).await,
        "Invalid token: unsupported or malformed header",
    );
    // HS256 "signed" with the RSA public key (algorithm confusion).
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
    header.kid = Some("rsa-1".into());
    let hs = jsonwebtoken::encode(
        &header,
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(RSA1_PUBLIC_PEM.as_bytes()),
    )
    .unwrap();
    assert_invalid_token(
        &e.read(&hs).await,
        "Invalid token: symmetric algorithms are not accepted",
    );
    // A token signed by a key the issuer never published.
    let rogue = SigningKey::rsa("rsa-1", RSA2_PEM);
    let forged = e.authz.issue(
        &rogue,
        &json!({"sub": "alice", "aud": RESOURCE, "scope": "files:read"}),
    );
    assert_invalid_token(&e.read(&forged).await, "Invalid token signature");
}

#[tokio::test]
async fn an_unknown_kid_refetches_the_jwks_after_rotation() {
    let e = env_with(|c| c.jwks_min_refresh(Duration::ZERO)).await;
    e.read(&e.token(json!({}))).await.result();
    assert_eq!(e.authz.jwks_fetches(), 1);
    let rotated = SigningKey::rsa("rsa-2", RSA2_PEM);
    let token = e.authz.issue(
        &rotated,
        &json!({"sub": "alice", "aud": RESOURCE, "scope": "files:read"}),
    );
    // Not yet published: one refetch, still unknown.
    assert_invalid_token(&e.read(&token).await, "Invalid token: unknown signing key");
    assert_eq!(e.authz.jwks_fetches(), 2);
    e.authz.publish(&rotated);
    e.read(&token).await.result();
    assert_eq!(e.authz.jwks_fetches(), 3);
    // Known keys do not refetch.
    e.read(&token).await.result();
    assert_eq!(e.authz.jwks_fetches(), 3);
}

#[tokio::test]
async fn unknown_kid_refetches_are_rate_limited() {
    let e = env().await; // default: at most one refetch per 30 s
    e.read(&e.token(json!({}))).await.result();
    let rogue = SigningKey::rsa("made-up", RSA2_PEM);
    for _ in 0..3 {
        let token = e.authz.issue(
            &rogue,
            &json!({"sub": "alice", "aud": RESOURCE, "scope": "files:read"}),
        );
        assert_invalid_token(&e.read(&token).await, "Invalid token: unknown signing key");
    }
    assert_eq!(e.authz.jwks_fetches(), 1);
}

#[tokio::test]
async fn scopes_required_per_tool_hierarchy_and_step_up() {
    let e = env().await;
    // Lacking the required scope: every request is refused.
    let none = e.token(json!({"scope": "profile"}));
    assert_insufficient(&e.read(&none).await, "files:read", "Insufficient scope");
    // The tool's scope: the challenge names exactly what the call needs.
    let reader = e.token(json!({}));
    let r = e
        .call(Some(&reader), "delete_file", json!({"path": "a"}))
        .await;
    assert_insufficient(&r, "files:read files:write", "Insufficient scope");
    // Tool scopes are never listed.
    let list = e
        .client
        .modern_with_headers(
            "tools/list",
            json!({}),
            &[("authorization", &format!("Bearer {reader}"))],
        )
        .await;
    assert!(!list.raw.contains("files:write"), "{}", list.raw);
    // files:write implies files:read; files:admin implies both, transitively.
    let writer = e.token(json!({"scope": "files:write"}));
    let r = e
        .call(Some(&writer), "delete_file", json!({"path": "a"}))
        .await;
    assert_eq!(text(&r), "deleted a");
    // Runtime step-up through InsufficientScopeError.
    let r = e.call(Some(&writer), "purge", json!({})).await;
    assert_insufficient(&r, "files:admin", "Purging needs files:admin");
    let admin = e.token(json!({"scope": "files:admin"}));
    assert_eq!(
        text(&e.call(Some(&admin), "purge", json!({})).await),
        "purged"
    );
    let who: Value =
        serde_json::from_str(&text(&e.call(Some(&admin), "whoami", json!({})).await)).unwrap();
    assert_eq!(
        who["scopes"],
        json!(["files:admin", "files:read", "files:write"])
    );
}

#[tokio::test]
async fn legacy_calls_get_the_same_challenges() {
    let e = env().await;
    let reader = e.token(json!({}));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "delete_file", "arguments": {"path": "a"}}});
    let r = e
        .client
        .send(legacy_request(&body, Some(&reader), None))
        .await;
    assert_insufficient(&r, "files:read files:write", "Insufficient scope");
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "purge", "arguments": {}}});
    let r = e
        .client
        .send(legacy_request(&body, Some(&reader), None))
        .await;
    assert_insufficient(&r, "files:admin", "Purging needs files:admin");
}

fn legacy_request(body: &Value, token: Option<&str>, session: Option<&str>) -> Request<Body> {
    let mut b = Request::post(PATH)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(t) = token {
        b = b.header("authorization", format!("Bearer {t}"));
    }
    if let Some(s) = session {
        b = b.header("mcp-session-id", s);
    }
    b.body(Body::from(body.to_string())).unwrap()
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
           "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
}

#[tokio::test]
async fn sessions_belong_to_issuer_client_and_subject() {
    let e = env().await;
    let owner = e.token(json!({}));
    let r = e
        .client
        .send(legacy_request(&initialize(), Some(&owner), None))
        .await;
    r.result();
    let session = r.headers["mcp-session-id"].to_str().unwrap().to_owned();
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let same_caller = e.authz.issue(
        &e.ec,
        &json!({"sub": "alice", "client_id": "app", "aud": RESOURCE, "scope": "files:read"}),
    );
    e.client
        .send(legacy_request(&ping, Some(&same_caller), Some(&session)))
        .await
        .result();
    for other in [
        e.token(json!({"sub": "mallory"})),
        e.token(json!({"client_id": "other-app"})),
    ] {
        let r = e
            .client
            .send(legacy_request(&ping, Some(&other), Some(&session)))
            .await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.raw);
    }
    // Another issuer with the same client and subject (through introspection).
    let idp = LocalAuthServer::start().await;
    idp.register_opaque(
        "partner-token",
        &json!({"sub": "alice", "client_id": "app", "scope": "files:read"}),
    );
    let config = oauth_config(RESOURCE, &e.authz.issuer, &e.authz.jwks_url).authorization_server(
        AuthorizationServer::introspection(&idp.issuer, &idp.introspection_url),
    );
    let server = mcp::Server::builder(Files).oauth(config).build().unwrap();
    let store = server.session_store().cloned().unwrap();
    let server2 = mcp::Server::builder(Files)
        .oauth(
            oauth_config(RESOURCE, &e.authz.issuer, &e.authz.jwks_url).authorization_server(
                AuthorizationServer::introspection(&idp.issuer, &idp.introspection_url),
            ),
        )
        .session_store(store)
        .build()
        .unwrap();
    let a = TestClient::new(server);
    let b = TestClient::new(server2);
    let r = a
        .send(legacy_request(&initialize(), Some(&owner), None))
        .await;
    let session = r.headers["mcp-session-id"].to_str().unwrap().to_owned();
    b.send(legacy_request(&ping, Some(&owner), Some(&session)))
        .await
        .result();
    let r = b
        .send(legacy_request(&ping, Some("partner-token"), Some(&session)))
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.raw);
    // A token naming neither subject nor client gets no session.
    let anonymous = e
        .authz
        .issue(&e.rsa, &json!({"aud": RESOURCE, "scope": "files:read"}));
    let r = e
        .client
        .send(legacy_request(&initialize(), Some(&anonymous), None))
        .await;
    r.result();
    assert!(r.headers.get("mcp-session-id").is_none());
}

#[tokio::test]
async fn introspection_active_inactive_and_unreachable() {
    let idp = LocalAuthServer::start().await;
    idp.register_opaque(
        "opaque-ok",
        &json!({"sub": "carol", "client_id": "svc", "scope": "files:write", "aud": "api://files", "exp": now() + 600}),
    );
    idp.register_opaque(
        "opaque-other-aud",
        &json!({"sub": "carol", "scope": "files:read", "aud": "api://other"}),
    );
    let config = OAuthConfig::new(RESOURCE)
        .authorization_server(
            AuthorizationServer::introspection(&idp.issuer, &idp.introspection_url)
                .audience("api://files")
                .client_credentials("rs", "secret"),
        )
        .required_scopes(["files:read"])
        .scope_hierarchy("files:write", ["files:read"]);
    let c = TestClient::new(mcp::Server::builder(Files).oauth(config).build().unwrap());
    let call = |token: &'static str| {
        let c = &c;
        async move {
            c.modern_with_headers(
                "tools/call",
                json!({"name": "delete_file", "arguments": {"path": "x"}}),
                &[("authorization", &format!("Bearer {token}"))],
            )
            .await
        }
    };
    assert_eq!(text(&call("opaque-ok").await), "deleted x");
    assert_invalid_token(&call("opaque-unknown").await, "Token is not active");
    assert_invalid_token(
        &call("opaque-other-aud").await,
        "Token was not issued for this resource",
    );
    assert_eq!(idp.introspections(), 3);

    // Unreachable introspection endpoint: 503, not invalid_token.
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let config = OAuthConfig::new(RESOURCE)
        .authorization_server(AuthorizationServer::introspection(
            "https://idp.example.com",
            format!("http://{dead}/introspect"),
        ))
        .http_timeout(Duration::from_secs(2));
    let c = TestClient::new(mcp::Server::builder(Files).oauth(config).build().unwrap());
    let r = c
        .modern_with_headers(
            "tools/list",
            json!({}),
            &[("authorization", "Bearer opaque-ok")],
        )
        .await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.raw);
    assert!(r.headers.get("www-authenticate").is_none());
}

#[tokio::test]
async fn metadata_is_public_path_aware_with_cors() {
    let e = env().await;
    let path = "/.well-known/oauth-protected-resource/mcp";
    let get = |method: &str| {
        Request::builder()
            .method(method)
            .uri(path)
            .body(Body::empty())
            .unwrap()
    };
    let r = e.client.send(get("GET")).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.headers["access-control-allow-origin"], "*");
    assert_eq!(
        r.body,
        json!({"resource": RESOURCE, "authorization_servers": [e.authz.issuer],
               "scopes_supported": ["files:read", "files:write", "files:admin"],
               "bearer_methods_supported": ["header"], "resource_name": "Files"})
    );
    let r = e.client.send(get("HEAD")).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.headers["access-control-allow-origin"], "*");
    let r = e.client.send(get("OPTIONS")).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(r.headers["access-control-allow-origin"], "*");
    let r = e.client.send(get("POST")).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(r.headers["allow"], "GET, HEAD, OPTIONS");
    // A bad Origin is refused before authentication, without a challenge.
    let mut req = e.client.modern_request("tools/list", json!({}));
    req.headers_mut()
        .insert("origin", "https://evil.example.com".parse().unwrap());
    let r = e.client.send(req).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert!(r.headers.get("www-authenticate").is_none());
    // An allowed Origin still needs a token.
    let mut req = e.client.modern_request("tools/list", json!({}));
    req.headers_mut()
        .insert("origin", "https://app.example.com".parse().unwrap());
    assert_invalid_token(&e.client.send(req).await, "Missing Authorization header");
}

#[tokio::test]
async fn root_resource_metadata_and_real_sockets() {
    let authz = LocalAuthServer::start().await;
    let key = SigningKey::ec("ec-1", EC1_PEM);
    authz.publish(&key);
    let listener = mcp::HttpServer::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/");
    let server = mcp::Server::builder(Files)
        .oauth(oauth_config(&resource, &authz.issuer, &authz.jwks_url))
        .build()
        .unwrap();
    let app = mcp::transport::http::router("/mcp", server);
    tokio::spawn(listener.serve(app.into_make_service()).into_future());
    let http = reqwest::Client::new();
    let doc: Value = http
        .get(format!(
            "http://{addr}/.well-known/oauth-protected-resource"
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(doc["resource"], json!(resource));
    let r = http
        .post(format!("http://{addr}/mcp"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert!(
        r.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .ends_with(&format!(
                "resource_metadata=\"http://{addr}/.well-known/oauth-protected-resource\""
            ))
    );
    let token = authz.issue(
        &key,
        &json!({"sub": "dave", "aud": resource, "scope": "files:read"}),
    );
    let r = http
        .post(format!("http://{addr}/mcp"))
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "read_file", "arguments": {"path": "p"}}}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(
        body["result"]["content"][0]["text"],
        "contents of p for dave"
    );
}

#[test]
fn invalid_configurations_fail_when_attached() {
    let err = |c: OAuthConfig| {
        mcp::Server::builder(Files)
            .oauth(c)
            .build()
            .expect_err("refused")
            .to_string()
    };
    let jwt = || AuthorizationServer::jwt("https://as.example.com", "https://as.example.com/jwks");
    let base = || OAuthConfig::new(RESOURCE).authorization_server(jwt());
    assert!(err(OAuthConfig::new("/mcp").authorization_server(jwt())).contains("resource"));
    assert!(err(OAuthConfig::new(RESOURCE)).contains("at least one authorization server"));
    assert!(err(base().required_scopes(["offline_access"])).contains("offline_access"));
    assert!(err(base().scopes_supported(["a", "offline_access"])).contains("offline_access"));
    assert!(err(base().required_scopes(["has space"])).contains("not a valid scope"));
    assert!(err(base().required_scopes(["quo\"te"])).contains("not a valid scope"));
    let two = base()
        .authorization_server(AuthorizationServer::introspection(
            "https://a.example",
            "https://a.example/i",
        ))
        .authorization_server(AuthorizationServer::introspection(
            "https://b.example",
            "https://b.example/i",
        ));
    assert!(err(two).contains("at most one authorization server can use introspection"));
    assert!(
        err(OAuthConfig::new(RESOURCE)
            .authorization_server(AuthorizationServer::jwt("https://as.example.com", "jwks")))
        .contains("JWKS URL")
    );
}

#[tokio::test]
async fn basic_listener_auth_has_no_challenge_and_owns_sessions() {
    use base64::Engine as _;
    let basic = |u: &str, p: &str| {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{u}:{p}"))
        )
    };
    let server = mcp::Server::builder(mcp_examples::calculator::Calculator)
        .listener_auth([
            ListenerAuth::basic([("alice", "wonderland"), ("bob", "builder")]),
            ListenerAuth::jwt(RSA1_PUBLIC_PEM, Some("https://issuer.example"), None).unwrap(),
        ])
        .build()
        .unwrap();
    let c = TestClient::new(server);
    let with = |auth: Option<&str>, body: &Value, session: Option<&str>| {
        let mut b = Request::post(PATH)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(a) = auth {
            b = b.header("authorization", a);
        }
        if let Some(s) = session {
            b = b.header("mcp-session-id", s);
        }
        b.body(Body::from(body.to_string())).unwrap()
    };
    let r = c.send(with(None, &initialize(), None)).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert!(r.headers.get("www-authenticate").is_none());
    let r = c
        .send(with(Some(&basic("alice", "wrong")), &initialize(), None))
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let r = c
        .send(with(
            Some(&basic("alice", "wonderland")),
            &initialize(),
            None,
        ))
        .await;
    r.result();
    let session = r.headers["mcp-session-id"].to_str().unwrap().to_owned();
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    c.send(with(
        Some(&basic("alice", "wonderland")),
        &ping,
        Some(&session),
    ))
    .await
    .result();
    let r = c
        .send(with(Some(&basic("bob", "builder")), &ping, Some(&session)))
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    // A JWT checked against the fixed key.
    let key = SigningKey::rsa("k", RSA1_PEM);
    let jwt =
        key.sign(&json!({"iss": "https://issuer.example", "sub": "carol", "exp": now() + 600}));
    c.send(with(Some(&format!("Bearer {jwt}")), &ping, None))
        .await
        .result();
    let r = c
        .send(with(Some(&format!("Bearer {jwt}")), &ping, Some(&session)))
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let other =
        key.sign(&json!({"iss": "https://other.example", "sub": "carol", "exp": now() + 600}));
    let r = c
        .send(with(Some(&format!("Bearer {other}")), &ping, None))
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert!(r.headers.get("www-authenticate").is_none());
}

/// A protected service whose tool carries its progress in the request state.
struct Wizard;

#[mcp::service(name = "wizard", version = "1.0.0")]
impl Wizard {
    /// Two rounds; the second reads the first's state.
    pub fn step(&self, auth: mcp::AuthContext, context: mcp::Context) -> mcp::ToolOutput<String> {
        match context.request_state() {
            Some(state) => mcp::ToolOutput::Done(format!(
                "{} resumed {state}",
                auth.subject.unwrap_or_default()
            )),
            None => mcp::InputRequired::new().state("round-1").into(),
        }
    }
}

#[tokio::test]
async fn request_state_is_bound_to_the_caller() {
    let authz = LocalAuthServer::start().await;
    let rsa = SigningKey::rsa("rsa-1", RSA1_PEM);
    authz.publish(&rsa);
    let server = mcp::Server::builder(Wizard)
        .oauth(oauth_config(RESOURCE, &authz.issuer, &authz.jwks_url))
        .build()
        .expect("valid configuration");
    let client = TestClient::new(server);
    let token = |sub: &str, client_id: &str| {
        authz.issue(
            &rsa,
            &json!({"sub": sub, "client_id": client_id, "aud": RESOURCE, "scope": "files:read"}),
        )
    };
    let call = |token: String, state: Option<String>| {
        let client = &client;
        async move {
            let mut params = json!({"name": "step"});
            if let Some(state) = state {
                params["requestState"] = json!(state);
            }
            let bearer = format!("Bearer {token}");
            client
                .modern_with_headers("tools/call", params, &[("authorization", &bearer)])
                .await
        }
    };
    let first = call(token("alice", "app"), None).await;
    let state = first.result()["requestState"]
        .as_str()
        .expect("a sealed state")
        .to_owned();
    let done = call(token("alice", "app"), Some(state.clone())).await;
    assert_eq!(done.result()["content"][0]["text"], "alice resumed round-1");
    // The same state presented by another subject, or by another client of the same user.
    for other in [token("bob", "app"), token("alice", "other-app")] {
        let r = call(other, Some(state.clone())).await;
        assert_eq!(
            (r.status.as_u16(), r.error_code()),
            (200, Some(-32602)),
            "{}",
            r.raw
        );
        assert_eq!(
            r.body["error"]["data"],
            json!({"reason": "invalid_request_state"})
        );
    }
}
