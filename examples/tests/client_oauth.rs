//! Client OAuth end to end: the `files` service protected by the local authorization
//! server (`mcp_examples::authz`, code flow enabled) — discovery, dynamic registration,
//! the code flow with PKCE (programmatic and loopback-browser handlers), a call, a `403`
//! step-up, a refresh after expiry — and every bad-input case of the issue against a
//! misbehaving local server (a workload assertion for another audience or rejected
//! included): each ends with a typed error, in bounded time, without a token (or an
//! assertion) sent where it was not earned.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use mcp::Implementation;
use mcp::client::oauth::{
    AssertionSource, AuthorizationHandler, ClientAuth, ClientRegistration, LoopbackBrowser,
    OAuthConfig, OAuthError, OAuthTokenError, ProgrammaticAuthorization, WorkloadIdentity,
};
use mcp::client::{Client, ClientConfig, ClientError, ConnectOptions, ProtocolMode};
use mcp_examples::authz::{LocalAuthServer, RSA1_PEM, SigningKey};
use serde_json::{Value, json};

/// Bounds every test: no flow may hang.
const LIMIT: Duration = Duration::from_secs(30);

/// The files service on a loopback port, protected by `authz`.
async fn files_server(authz: &LocalAuthServer) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let url = format!("http://{addr}/mcp");
    let server = mcp_examples::files::server(&url, &authz.issuer, &authz.jwks_url)
        .build()
        .expect("a valid files server");
    let app = mcp::transport::http::router("/mcp", server);
    tokio::spawn(async move {
        mcp::HttpServer::from_tcp(listener)
            .serve(app.into_make_service())
            .await
    });
    url
}

fn options() -> ConnectOptions {
    ConnectOptions::new(Implementation::new("client-oauth-test", "1.0.0"))
}

async fn text(client: &Client, tool: &str, args: Value) -> Result<String, ClientError> {
    Ok(client.call(tool).arguments(args)?.await?.joined_text())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_code_flow_call_step_up_and_refresh() {
    tokio::time::timeout(LIMIT, async {
        let authz = LocalAuthServer::start().await;
        // Eight-second tokens: refreshed once less than two seconds are left.
        authz.enable_code_flow(&SigningKey::rsa("flow", RSA1_PEM), 8);
        let url = files_server(&authz).await;
        // Only files:read at first (without this the client would ask for everything the
        // resource lists in scopes_supported).
        let oauth = OAuthConfig::authorization_code(
            ClientRegistration::dynamic().client_name("files-e2e"),
            ProgrammaticAuthorization::new("http://127.0.0.1:9/callback"),
        )
        .scopes(["files:read"]);
        let client = Client::new(&url, ClientConfig::new().oauth(oauth)).unwrap();
        client
            .connect(options())
            .await
            .expect("connect through OAuth");
        let read = text(&client, "read_file", json!({"path": "a.txt"}))
            .await
            .unwrap();
        assert_eq!(read, "contents of a.txt for demo-user");
        // Discovery and one registration, authorization and code grant.
        assert_eq!(authz.code_flow_counts(), (1, 1, 1, 0));
        let who: Value =
            serde_json::from_str(&text(&client, "whoami", json!({})).await.unwrap()).unwrap();
        assert!(!who["scopes"].to_string().contains("files:admin"), "{who}");

        // `purge` asks for files:admin at runtime: a 403 step-up, then the call succeeds.
        assert_eq!(text(&client, "purge", json!({})).await.unwrap(), "purged");
        assert_eq!(authz.code_flow_counts(), (1, 2, 2, 0));
        let who: Value =
            serde_json::from_str(&text(&client, "whoami", json!({})).await.unwrap()).unwrap();
        let scopes = who["scopes"].to_string();
        assert!(scopes.contains("files:admin"), "{who}");

        // After expiry the refresh token (offline_access was offered) renews the token.
        tokio::time::sleep(Duration::from_millis(6500)).await;
        let read = text(&client, "read_file", json!({"path": "b.txt"}))
            .await
            .unwrap();
        assert_eq!(read, "contents of b.txt for demo-user");
        assert_eq!(authz.code_flow_counts(), (1, 2, 2, 1));
        client.close().await.unwrap();
    })
    .await
    .expect("no hang");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_loopback_browser_flow() {
    tokio::time::timeout(LIMIT, async {
        let authz = LocalAuthServer::start().await;
        authz.enable_code_flow(&SigningKey::rsa("flow", RSA1_PEM), 3600);
        let url = files_server(&authz).await;
        // The "browser": follows the authorization server's redirect to the loopback
        // listener, as a user's browser would.
        let opened = Arc::new(AtomicUsize::new(0));
        let seen = opened.clone();
        let browser = LoopbackBrowser::bind(0)
            .unwrap()
            .timeout(Duration::from_secs(10))
            .opener(move |url| {
                seen.fetch_add(1, Ordering::SeqCst);
                let url = url.to_owned();
                tokio::spawn(async move {
                    let http = reqwest::Client::builder()
                        .redirect(reqwest::redirect::Policy::none())
                        .build()
                        .unwrap();
                    let r = http.get(&url).send().await.unwrap();
                    let location = r.headers()["location"].to_str().unwrap().to_owned();
                    let page = http.get(&location).send().await.unwrap();
                    assert_eq!(page.status(), 200);
                });
                Ok(())
            });
        assert!(browser.redirect_uri().starts_with("http://127.0.0.1:"));
        let oauth = OAuthConfig::authorization_code(ClientRegistration::dynamic(), browser);
        let client = Client::new(&url, ClientConfig::new().oauth(oauth)).unwrap();
        client
            .connect(options())
            .await
            .expect("connect through OAuth");
        let read = text(&client, "read_file", json!({"path": "a.txt"}))
            .await
            .unwrap();
        assert_eq!(read, "contents of a.txt for demo-user");
        assert_eq!(opened.load(Ordering::SeqCst), 1);
    })
    .await
    .expect("no hang");
}

/// What the misbehaving server does.
#[derive(Clone)]
struct Mode {
    /// The protected resource metadata's `resource` (default: the server's URL).
    resource: Option<String>,
    /// The issuer its authorization server metadata names (default: the real one).
    issuer: Option<String>,
    /// The token endpoint the metadata names (default: the real one).
    token_endpoint: Option<String>,
    /// The token endpoint's answer: status, content type, body.
    token: (u16, &'static str, String),
    /// The authorization endpoint's redirect: replaces the `state` when set.
    state: Option<String>,
    /// Seconds the token endpoint waits before answering.
    token_delay: u64,
    /// Answer the metadata with a redirect to this URL.
    metadata_redirect: Option<String>,
    /// The authorization endpoint redirects with `error=access_denied`.
    deny: bool,
    /// The `iss` the authorization endpoint's redirect carries (`{as}` is the issuer);
    /// none when `None`.
    iss: Option<String>,
    /// The metadata's `authorization_response_iss_parameter_supported` (RFC 9207).
    iss_supported: Option<bool>,
    /// The registration endpoint's answer (no `registration_endpoint` when `None`).
    registration: Option<(u16, String)>,
}

impl Default for Mode {
    fn default() -> Self {
        Self {
            resource: None,
            issuer: None,
            token_endpoint: None,
            token: (
                200,
                "application/json",
                json!({"access_token": "tok-42", "token_type": "Bearer", "expires_in": 3600})
                    .to_string(),
            ),
            state: None,
            token_delay: 0,
            metadata_redirect: None,
            deny: false,
            iss: None,
            iss_supported: None,
            registration: None,
        }
    }
}

#[derive(Clone)]
struct Bad {
    origin: String,
    mode: Arc<Mutex<Mode>>,
    /// MCP requests that carried an `Authorization` header.
    bearer_requests: Arc<AtomicUsize>,
    token_requests: Arc<AtomicUsize>,
    authorizations: Arc<AtomicUsize>,
}

impl Bad {
    async fn start(mode: Mode) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        let bad = Self {
            origin,
            mode: Arc::new(Mutex::new(mode)),
            bearer_requests: Arc::default(),
            token_requests: Arc::default(),
            authorizations: Arc::default(),
        };
        let app = Router::new()
            .route("/mcp", post(mcp))
            .route("/.well-known/oauth-protected-resource/mcp", get(prm))
            .route(
                "/.well-known/oauth-authorization-server/as",
                get(as_metadata),
            )
            .route("/as/authorize", get(authorize))
            .route("/as/token", post(token))
            .route("/as/register", post(register))
            .with_state(bad.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        bad
    }

    fn url(&self) -> String {
        format!("{}/mcp", self.origin)
    }

    fn mode(&self) -> Mode {
        self.mode.lock().unwrap().clone()
    }
}

async fn mcp(State(bad): State<Bad>, headers: HeaderMap) -> Response {
    if headers.contains_key("authorization") {
        bad.bearer_requests.fetch_add(1, Ordering::SeqCst);
    }
    let challenge = format!(
        r#"Bearer error="invalid_token", resource_metadata="{}/.well-known/oauth-protected-resource/mcp""#,
        bad.origin
    );
    (StatusCode::UNAUTHORIZED, [("www-authenticate", challenge)]).into_response()
}

async fn prm(State(bad): State<Bad>) -> Response {
    let mode = bad.mode();
    axum::Json(json!({
        "resource": mode.resource.unwrap_or_else(|| bad.url()),
        "authorization_servers": [format!("{}/as", bad.origin)],
    }))
    .into_response()
}

async fn as_metadata(State(bad): State<Bad>) -> Response {
    let mode = bad.mode();
    if let Some(to) = mode.metadata_redirect {
        return (StatusCode::FOUND, [("location", to)]).into_response();
    }
    let base = format!("{}/as", bad.origin);
    let mut metadata = json!({
        "issuer": mode.issuer.unwrap_or_else(|| base.clone()),
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": mode.token_endpoint.unwrap_or_else(|| format!("{base}/token")),
        "token_endpoint_auth_methods_supported": ["client_secret_basic"],
    });
    if let Some(supported) = mode.iss_supported {
        metadata["authorization_response_iss_parameter_supported"] = json!(supported);
    }
    if mode.registration.is_some() {
        metadata["registration_endpoint"] = json!(format!("{base}/register"));
    }
    axum::Json(metadata).into_response()
}

async fn authorize(
    State(bad): State<Bad>,
    axum::extract::Query(q): axum::extract::Query<std::collections::HashMap<String, String>>,
) -> Response {
    bad.authorizations.fetch_add(1, Ordering::SeqCst);
    let mode = bad.mode();
    let state = mode.state.unwrap_or_else(|| q["state"].clone());
    let mut to = if mode.deny {
        format!(
            "{}?error=access_denied&error_description=no&state={state}",
            q["redirect_uri"]
        )
    } else {
        format!("{}?code=c1&state={state}", q["redirect_uri"])
    };
    if let Some(iss) = mode.iss {
        let iss = iss.replace("{as}", &format!("{}/as", bad.origin));
        to.push_str("&iss=");
        to.push_str(&url_escape(&iss));
    }
    (StatusCode::FOUND, [("location", to)]).into_response()
}

/// `text` as a query parameter value.
fn url_escape(text: &str) -> String {
    reqwest::Url::parse_with_params("http://x/", [("v", text)])
        .unwrap()
        .query()
        .unwrap()
        .trim_start_matches("v=")
        .to_owned()
}

async fn token(State(bad): State<Bad>) -> Response {
    bad.token_requests.fetch_add(1, Ordering::SeqCst);
    let mode = bad.mode();
    tokio::time::sleep(Duration::from_secs(mode.token_delay)).await;
    let (status, content_type, body) = mode.token;
    // `{n}` in the body becomes the request's number (a new token each time).
    let body = body.replace(
        "{n}",
        &bad.token_requests.load(Ordering::SeqCst).to_string(),
    );
    (
        StatusCode::from_u16(status).unwrap(),
        [("content-type", content_type)],
        body,
    )
        .into_response()
}

async fn register(State(bad): State<Bad>) -> Response {
    let (status, body) = bad.mode().registration.unwrap_or_default();
    (
        StatusCode::from_u16(status).unwrap(),
        [("content-type", "application/json")],
        body,
    )
        .into_response()
}

fn machine() -> OAuthConfig {
    OAuthConfig::client_credentials("svc", ClientAuth::client_secret("the-client-secret"))
}

/// Connects to `bad` with `oauth` and returns the error.
async fn fail(bad: &Bad, oauth: OAuthConfig) -> ClientError {
    let config = ClientConfig::new()
        .protocol_mode(ProtocolMode::Legacy)
        .timeout(Duration::from_secs(2))
        .oauth(oauth);
    let client = Client::new(bad.url(), config).unwrap();
    tokio::time::timeout(LIMIT, client.connect(options()))
        .await
        .expect("no hang")
        .expect_err("the flow must fail")
}

fn oauth_error(err: &ClientError) -> &OAuthError {
    match err {
        ClientError::OAuth(e) => e,
        other => panic!("not an OAuth error: {other:?}"),
    }
}

#[tokio::test]
async fn a_resource_mismatch_is_refused_before_any_token_request() {
    let bad = Bad::start(Mode {
        resource: Some("https://evil.example.com/mcp".into()),
        ..Mode::default()
    })
    .await;
    let err = fail(&bad, machine()).await;
    assert!(
        matches!(oauth_error(&err), OAuthError::ResourceMismatch { advertised, .. } if advertised == "https://evil.example.com/mcp"),
        "{err:?}"
    );
    assert_eq!(bad.token_requests.load(Ordering::SeqCst), 0);
    assert_eq!(bad.bearer_requests.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn metadata_naming_another_issuer_is_untrusted() {
    let bad = Bad::start(Mode {
        issuer: Some("https://other-origin.example.com".into()),
        ..Mode::default()
    })
    .await;
    let err = fail(&bad, machine()).await;
    assert!(
        matches!(oauth_error(&err), OAuthError::UntrustedAuthorizationServer { issuer, .. } if issuer == "https://other-origin.example.com"),
        "{err:?}"
    );
    assert_eq!(bad.token_requests.load(Ordering::SeqCst), 0);
    // A pre-registered client's issuer must be listed by the resource.
    let bad = Bad::start(Mode::default()).await;
    let err = fail(&bad, machine().issuer("https://as.example.com")).await;
    assert!(
        matches!(
            oauth_error(&err),
            OAuthError::UntrustedAuthorizationServer { .. }
        ),
        "{err:?}"
    );
    assert_eq!(bad.token_requests.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn non_https_endpoints_and_redirects_are_refused() {
    let bad = Bad::start(Mode {
        token_endpoint: Some("http://as.example.com/token".into()),
        ..Mode::default()
    })
    .await;
    let err = fail(&bad, machine()).await;
    assert!(
        matches!(oauth_error(&err), OAuthError::InsecureEndpoint { url } if url == "http://as.example.com/token"),
        "{err:?}"
    );
    let bad = Bad::start(Mode {
        metadata_redirect: Some("http://as.example.com/metadata".into()),
        ..Mode::default()
    })
    .await;
    let err = fail(&bad, machine()).await;
    assert!(
        matches!(oauth_error(&err), OAuthError::InsecureEndpoint { url } if url == "http://as.example.com/metadata"),
        "{err:?}"
    );
    assert_eq!(bad.token_requests.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_wrong_state_ends_the_code_flow() {
    let bad = Bad::start(Mode {
        state: Some("forged".into()),
        ..Mode::default()
    })
    .await;
    let oauth = OAuthConfig::authorization_code(
        ClientRegistration::pre_registered("app"),
        ProgrammaticAuthorization::new("http://127.0.0.1:9/callback"),
    );
    let err = fail(&bad, oauth).await;
    assert!(
        matches!(oauth_error(&err), OAuthError::StateMismatch),
        "{err:?}"
    );
    assert_eq!(bad.authorizations.load(Ordering::SeqCst), 1);
    assert_eq!(bad.token_requests.load(Ordering::SeqCst), 0);
}

/// RFC 9207: the authorization response's `iss` is checked before the code is exchanged.
#[tokio::test]
async fn the_authorization_response_issuer_is_checked() {
    let code_flow = || {
        OAuthConfig::authorization_code(
            ClientRegistration::pre_registered("app"),
            ProgrammaticAuthorization::new("http://127.0.0.1:9/callback"),
        )
    };
    // (advertised, iss sent, the refusal expected: None = the code is exchanged)
    let cases: [(Option<bool>, Option<&str>, Option<&str>); 9] = [
        (Some(true), Some("{as}"), None),
        (Some(true), None, Some("missing")),
        (
            Some(true),
            Some("https://evil.example.com"),
            Some("mismatch"),
        ),
        (Some(true), Some("{as}/"), Some("mismatch")),
        (None, None, None),
        (None, Some("{as}"), None),
        (None, Some("https://evil.example.com"), Some("mismatch")),
        (Some(false), None, None),
        (Some(false), Some("{as}/"), Some("mismatch")),
    ];
    for (supported, iss, refusal) in cases {
        let bad = Bad::start(Mode {
            iss_supported: supported,
            iss: iss.map(str::to_owned),
            ..Mode::default()
        })
        .await;
        let err = fail(&bad, code_flow()).await;
        let case = format!("{supported:?} {iss:?}");
        let issuer = format!("{}/as", bad.origin);
        match refusal {
            // The code was exchanged, and the token then refused by the server (a `401`
            // loop): the issuer check passed.
            None => assert!(
                bad.token_requests.load(Ordering::SeqCst) > 0,
                "{case}: {err:?}"
            ),
            Some(refusal) => {
                let matched = match oauth_error(&err) {
                    OAuthError::IssuerMissing { issuer: i } => refusal == "missing" && *i == issuer,
                    OAuthError::IssuerMismatch { expected, received } => {
                        refusal == "mismatch"
                            && *expected == issuer
                            && *received == iss.unwrap().replace("{as}", &issuer)
                    }
                    _ => false,
                };
                assert!(matched, "{case}: {err:?}");
                assert_eq!(bad.authorizations.load(Ordering::SeqCst), 1, "{case}");
                assert_eq!(bad.token_requests.load(Ordering::SeqCst), 0, "{case}");
            }
        }
    }
    // With `error=access_denied` too: a wrong iss means the error is not trusted either.
    let bad = Bad::start(Mode {
        deny: true,
        iss: Some("https://evil.example.com".into()),
        ..Mode::default()
    })
    .await;
    let err = fail(&bad, code_flow()).await;
    assert!(
        matches!(oauth_error(&err), OAuthError::IssuerMismatch { .. }),
        "{err:?}"
    );
}

/// RFC 8414 §3.3: a metadata issuer differing only by a trailing slash is another issuer.
#[tokio::test]
async fn a_metadata_issuer_with_a_trailing_slash_is_untrusted() {
    let bad = Bad::start(Mode::default()).await;
    let issuer = format!("{}/as/", bad.origin);
    *bad.mode.lock().unwrap() = Mode {
        issuer: Some(issuer.clone()),
        ..Mode::default()
    };
    let err = fail(&bad, machine()).await;
    assert!(
        matches!(oauth_error(&err), OAuthError::UntrustedAuthorizationServer { issuer: i, .. } if *i == issuer),
        "{err:?}"
    );
    assert_eq!(bad.token_requests.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn bad_token_responses_are_typed_errors() {
    let cases: [(u16, &str, String, &str); 4] = [
        (
            200,
            "application/json",
            json!({"token_type": "Bearer"}).to_string(),
            "no access_token",
        ),
        (
            200,
            "application/json",
            json!({"access_token": "tok", "token_type": "mac"}).to_string(),
            "not Bearer",
        ),
        (200, "text/html", "<html>Welcome</html>".into(), "not json"),
        (
            502,
            "text/html",
            "<html>Bad gateway</html>".into(),
            "status 502",
        ),
    ];
    for (status, content_type, body, what) in cases {
        let bad = Bad::start(Mode {
            token: (status, content_type, body),
            ..Mode::default()
        })
        .await;
        let err = fail(&bad, machine()).await;
        let e = oauth_error(&err);
        match what {
            "no access_token" => assert!(
                matches!(e, OAuthError::InvalidResponse { reason, .. } if reason.contains("access_token")),
                "{e:?}"
            ),
            "not Bearer" => assert!(
                matches!(e, OAuthError::InvalidResponse { reason, .. } if reason.contains("Bearer")),
                "{e:?}"
            ),
            "not json" => assert!(
                matches!(e, OAuthError::NotJson { status: 200, content_type, .. } if content_type == "text/html"),
                "{e:?}"
            ),
            _ => assert!(
                matches!(e, OAuthError::Token(t) if t.status() == 502 && t.response().is_none()),
                "{e:?}"
            ),
        }
        assert_eq!(bad.bearer_requests.load(Ordering::SeqCst), 0, "{what}");
    }
}

#[tokio::test]
async fn the_token_endpoint_error_is_in_the_source_chain() {
    let body = json!({
        "error": "insufficient_user_authentication",
        "error_description": "sign in again",
        "max_age": 0,
    });
    let bad = Bad::start(Mode {
        token: (400, "application/json", body.to_string()),
        ..Mode::default()
    })
    .await;
    let err = fail(&bad, machine()).await;
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(&err);
    let mut found = None;
    while let Some(e) = current {
        if let Some(t) = e.downcast_ref::<OAuthTokenError>() {
            found = Some(t.clone());
        }
        current = e.source();
    }
    let token = found.expect("an OAuthTokenError in the chain");
    assert_eq!(token.status(), 400);
    let response = token.response().unwrap();
    assert_eq!(response.code(), "insufficient_user_authentication");
    assert_eq!(response.description(), Some("sign in again"));
    assert_eq!(response.get("max_age"), Some(&json!(0)));
    assert!(token.endpoint().ends_with("/as/token"));
}

/// A workload JWT (unsigned: the client never checks an assertion's signature) for `aud`.
fn workload_jwt(aud: &str) -> String {
    use base64::Engine as _;
    let b64 = |v: Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    let claims = json!({"iss": "https://idp.example", "sub": "workload", "aud": aud});
    format!("{}.{}.sig", b64(json!({"alg": "ES256"})), b64(claims))
}

#[tokio::test]
async fn a_workload_assertion_for_another_audience_is_never_sent() {
    let bad = Bad::start(Mode::default()).await;
    // The assertion comes from a file, as a platform would project it.
    let dir = std::env::temp_dir().join(format!("client-oauth-wif-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("token");
    std::fs::write(&path, workload_jwt("https://wrong.example")).unwrap();
    let workload = WorkloadIdentity::new(AssertionSource::file(&path));
    let err = fail(&bad, OAuthConfig::workload_identity(workload)).await;
    assert!(
        matches!(oauth_error(&err), OAuthError::AssertionAudience { issuer, audience }
            if *issuer == format!("{}/as", bad.origin) && audience == &["https://wrong.example"]),
        "{err:?}"
    );
    assert_eq!(bad.token_requests.load(Ordering::SeqCst), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_rejected_workload_assertion_is_not_retried() {
    // invalid_grant (an expired or untrusted JWT): the error comes back after one request,
    // with no retry and no other grant.
    let body = json!({"error": "invalid_grant", "error_description": "expired"});
    let bad = Bad::start(Mode {
        token: (400, "application/json", body.to_string()),
        ..Mode::default()
    })
    .await;
    let assertion = workload_jwt(&format!("{}/as", bad.origin));
    let workload = WorkloadIdentity::new(AssertionSource::value(assertion));
    let err = fail(&bad, OAuthConfig::workload_identity(workload)).await;
    assert!(
        matches!(oauth_error(&err), OAuthError::Token(t) if t.response().unwrap().code() == "invalid_grant"),
        "{err:?}"
    );
    assert_eq!(bad.token_requests.load(Ordering::SeqCst), 1);
    assert_eq!(bad.authorizations.load(Ordering::SeqCst), 0);
    assert_eq!(bad.bearer_requests.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_401_loop_is_bounded() {
    // The server answers 401 to every token: the client tries three tokens, then stops.
    let fresh = json!({"access_token": "tok-{n}", "token_type": "Bearer"}).to_string();
    let bad = Bad::start(Mode {
        token: (200, "application/json", fresh),
        ..Mode::default()
    })
    .await;
    let err = fail(&bad, machine()).await;
    assert_eq!(err.http_status(), Some(401), "{err:?}");
    assert_eq!(bad.token_requests.load(Ordering::SeqCst), 3);
    assert_eq!(bad.bearer_requests.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_silent_token_endpoint_times_out() {
    let bad = Bad::start(Mode {
        token_delay: 20,
        ..Mode::default()
    })
    .await;
    let started = std::time::Instant::now();
    let err = fail(&bad, machine()).await;
    assert!(
        matches!(oauth_error(&err), OAuthError::Timeout { .. }),
        "{err:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn secrets_and_tokens_stay_out_of_debug_output_and_logs() {
    use tracing_subscriber::fmt::MakeWriter;

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Buffer {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    impl<'a> MakeWriter<'a> for Buffer {
        type Writer = Buffer;
        fn make_writer(&'a self) -> Self::Writer {
            self.clone()
        }
    }
    let logs = Buffer::default();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(logs.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let bad = Bad::start(Mode::default()).await;
    let oauth = machine();
    assert!(!format!("{oauth:?}").contains("the-client-secret"));
    assert!(
        !format!("{:?}", ClientAuth::client_secret("the-client-secret"))
            .contains("the-client-secret")
    );
    let err = fail(&bad, oauth).await;
    assert!(!format!("{err:?} {err}").contains("tok-42"));
    let logs = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(
        logs.contains("challenge"),
        "the flow logged nothing: {logs}"
    );
    assert!(!logs.contains("tok-42"), "{logs}");
    assert!(!logs.contains("the-client-secret"), "{logs}");
}

fn code_flow(client: ClientRegistration) -> OAuthConfig {
    OAuthConfig::authorization_code(
        client,
        ProgrammaticAuthorization::new("http://127.0.0.1:9/callback"),
    )
}

#[tokio::test]
async fn a_refused_authorization_is_typed() {
    let bad = Bad::start(Mode {
        deny: true,
        ..Mode::default()
    })
    .await;
    let err = fail(&bad, code_flow(ClientRegistration::pre_registered("app"))).await;
    assert!(
        matches!(oauth_error(&err), OAuthError::AuthorizationDenied(r) if r.code() == "access_denied" && r.description() == Some("no")),
        "{err:?}"
    );
    assert_eq!(bad.token_requests.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn registration_failures_are_typed() {
    // No pre-registered client, no metadata document support, no registration endpoint.
    let bad = Bad::start(Mode::default()).await;
    let err = fail(&bad, code_flow(ClientRegistration::dynamic())).await;
    assert!(
        matches!(oauth_error(&err), OAuthError::NoClientRegistration { .. }),
        "{err:?}"
    );
    // A refused registration carries the server's OAuth error.
    let refusal = json!({"error": "invalid_client_metadata"}).to_string();
    let bad = Bad::start(Mode {
        registration: Some((400, refusal)),
        ..Mode::default()
    })
    .await;
    let err = fail(&bad, code_flow(ClientRegistration::dynamic())).await;
    assert!(
        matches!(oauth_error(&err), OAuthError::Registration { status: 400, response: Some(r), .. } if r.code() == "invalid_client_metadata"),
        "{err:?}"
    );
    // A registration without a client_id is invalid.
    let bad = Bad::start(Mode {
        registration: Some((201, json!({"client_name": "x"}).to_string())),
        ..Mode::default()
    })
    .await;
    let err = fail(&bad, code_flow(ClientRegistration::dynamic())).await;
    assert!(
        matches!(oauth_error(&err), OAuthError::InvalidResponse { reason, .. } if reason.contains("client_id")),
        "{err:?}"
    );
    assert_eq!(bad.authorizations.load(Ordering::SeqCst), 0);
}
