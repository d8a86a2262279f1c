//! The provider against a local authorization server: refresh on a `401` and before
//! expiry, step-up scopes, the scope-loop guard, an identity provider's rejection in the
//! error chain, and the JWT-bearer grants' assertions (the form a workload sends, and an
//! assertion for another audience never sent).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::*;
use crate::client::{AuthChallenge, ClientError, TokenProvider};

#[derive(Clone, Default)]
struct Server {
    origin: Arc<Mutex<String>>,
    /// Every token request's form.
    requests: Arc<Mutex<Vec<std::collections::HashMap<String, String>>>>,
    lifetime: u64,
    /// The identity provider's error answer, if set.
    idp_error: Option<Value>,
    /// The forms of the token exchanges at the identity provider.
    exchanges: Arc<Mutex<Vec<std::collections::HashMap<String, String>>>>,
    /// The `issued_token_type` of the identity provider's answers (default: an ID-JAG).
    idp_issued: Arc<Mutex<Option<&'static str>>>,
}

impl Server {
    async fn start(lifetime: u64, idp_error: Option<Value>) -> Self {
        let server = Self {
            lifetime,
            idp_error,
            ..Self::default()
        };
        let app = Router::new()
            .route("/.well-known/oauth-protected-resource/mcp", get(prm))
            .route("/.well-known/oauth-authorization-server", get(metadata))
            .route("/token", post(token))
            .route("/idp/token", post(idp_token))
            .with_state(server.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        *server.origin.lock().unwrap() = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        server
    }

    fn origin(&self) -> String {
        self.origin.lock().unwrap().clone()
    }

    fn grants(&self) -> Vec<String> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .map(|f| f.get("grant_type").cloned().unwrap_or_default())
            .collect()
    }

    fn provider(&self, config: OAuthConfig) -> OAuthProvider {
        let url = reqwest::Url::parse(&format!("{}/mcp", self.origin())).unwrap();
        let http = OAuthHttp::standalone(Duration::from_secs(5)).unwrap();
        OAuthProvider::new(url, config, http)
    }

    /// A challenge to a request that carried `token`.
    fn challenge_to(&self, token: Option<&str>, status: u16, extra: &str) -> AuthChallenge {
        self.challenge(status, extra).with_rejected_token(token)
    }

    fn challenge(&self, status: u16, extra: &str) -> AuthChallenge {
        AuthChallenge::parse(
            status,
            &format!(
                r#"Bearer resource_metadata="{}/.well-known/oauth-protected-resource/mcp"{extra}"#,
                self.origin()
            ),
        )
    }
}

async fn prm(State(s): State<Server>) -> axum::Json<Value> {
    let origin = s.origin();
    axum::Json(json!({"resource": format!("{origin}/mcp"), "authorization_servers": [origin]}))
}

async fn metadata(State(s): State<Server>) -> axum::Json<Value> {
    let origin = s.origin();
    axum::Json(json!({"issuer": origin, "token_endpoint": format!("{origin}/token")}))
}

async fn token(State(s): State<Server>, body: String) -> axum::Json<Value> {
    let form: std::collections::HashMap<String, String> =
        reqwest::Url::parse(&format!("http://form/?{body}"))
            .unwrap()
            .query_pairs()
            .into_owned()
            .collect();
    let mut requests = s.requests.lock().unwrap();
    let scope = form.get("scope").cloned().unwrap_or_default();
    requests.push(form);
    let n = requests.len();
    axum::Json(json!({
        "access_token": format!("t{n}"), "token_type": "bearer", "expires_in": s.lifetime,
        "refresh_token": format!("r{n}"), "scope": scope,
    }))
}

/// The identity provider's token exchange: the configured error, or an ID-JAG for the
/// requested audience.
async fn idp_token(State(s): State<Server>, body: String) -> axum::response::Response {
    use axum::response::IntoResponse;
    if let Some(error) = s.idp_error.clone() {
        return (::http::StatusCode::BAD_REQUEST, axum::Json(error)).into_response();
    }
    let form: std::collections::HashMap<String, String> =
        reqwest::Url::parse(&format!("http://form/?{body}"))
            .unwrap()
            .query_pairs()
            .into_owned()
            .collect();
    let id_jag = jwt(json!({"aud": form["audience"], "resource": form["resource"]}));
    s.exchanges.lock().unwrap().push(form);
    axum::Json(json!({
        "access_token": id_jag,
        "issued_token_type": s.idp_issued.lock().unwrap()
            .unwrap_or("urn:ietf:params:oauth:token-type:id-jag"),
        "token_type": "N_A",
    }))
    .into_response()
}

fn machine() -> OAuthConfig {
    OAuthConfig::client_credentials("svc", ClientAuth::client_secret("pw"))
}

#[tokio::test]
async fn a_401_refreshes_once_then_authorizes_again() {
    let server = Server::start(3600, None).await;
    let provider = server.provider(machine());
    let token = |c: AuthChallenge| {
        let provider = &provider;
        async move { provider.on_challenge(&c).await.unwrap() }
    };
    assert_eq!(provider.token().await.unwrap(), None);
    assert_eq!(
        token(server.challenge_to(None, 401, "")).await.as_deref(),
        Some("t1")
    );
    assert_eq!(provider.token().await.unwrap().as_deref(), Some("t1"));
    // Requests that waited for the lock (with no token, or an older one) get t1 as is.
    assert_eq!(
        token(server.challenge_to(None, 401, "")).await.as_deref(),
        Some("t1")
    );
    assert_eq!(
        token(server.challenge_to(Some("t0"), 401, ""))
            .await
            .as_deref(),
        Some("t1")
    );
    assert_eq!(server.grants(), ["client_credentials"]);
    // t1 was refused: the refresh token is tried first …
    assert_eq!(
        token(server.challenge_to(Some("t1"), 401, ""))
            .await
            .as_deref(),
        Some("t2")
    );
    // … and when the refreshed token is refused too, a full authorization follows.
    assert_eq!(
        token(server.challenge_to(Some("t2"), 401, ""))
            .await
            .as_deref(),
        Some("t3")
    );
    assert_eq!(
        server.grants(),
        ["client_credentials", "refresh_token", "client_credentials"]
    );
    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(requests[1]["refresh_token"], "r1");
    assert_eq!(requests[1]["resource"], format!("{}/mcp", server.origin()));
}

#[tokio::test]
async fn a_token_is_refreshed_before_it_expires() {
    let server = Server::start(4, None).await;
    let provider = server.provider(machine());
    let challenge = server.challenge(401, "");
    assert_eq!(
        provider.on_challenge(&challenge).await.unwrap().as_deref(),
        Some("t1")
    );
    assert_eq!(provider.token().await.unwrap().as_deref(), Some("t1"));
    // A four-second token is renewed once less than a quarter of it is left.
    tokio::time::sleep(Duration::from_millis(3200)).await;
    assert_eq!(provider.token().await.unwrap().as_deref(), Some("t2"));
    assert_eq!(server.grants(), ["client_credentials", "refresh_token"]);
}

#[tokio::test]
async fn step_up_adds_scopes_and_stops_when_they_are_granted() {
    let server = Server::start(3600, None).await;
    let provider = server.provider(machine());
    let first = server.challenge(401, r#", scope="a""#);
    assert_eq!(
        provider.on_challenge(&first).await.unwrap().as_deref(),
        Some("t1")
    );
    let more = server.challenge_to(
        Some("t1"),
        403,
        r#", error="insufficient_scope", scope="b""#,
    );
    assert_eq!(
        provider.on_challenge(&more).await.unwrap().as_deref(),
        Some("t2")
    );
    assert_eq!(server.requests.lock().unwrap()[1]["scope"], "a b");
    // Asking again for scopes the token has would loop: refused.
    let again = server.challenge_to(
        Some("t2"),
        403,
        r#", error="insufficient_scope", scope="a b""#,
    );
    let err = provider.on_challenge(&again).await.unwrap_err();
    assert!(
        matches!(&err, ClientError::OAuth(OAuthError::ScopeNotGranted { scopes }) if scopes == "a b"),
        "{err:?}"
    );
    assert_eq!(server.grants().len(), 2);
}

#[tokio::test]
async fn an_identity_provider_rejection_is_in_the_error_chain() {
    let rejection = json!({
        "error": "insufficient_user_authentication",
        "error_description": "authentication too old",
        "max_age": 300,
    });
    let server = Server::start(3600, Some(rejection)).await;
    let idp = IdentityProviderConfig::new(server.origin(), "host-at-idp")
        .token_endpoint(format!("{}/idp/token", server.origin()));
    let seen = Arc::new(Mutex::new(None));
    let record = seen.clone();
    let config = OAuthConfig::identity_assertion(
        ClientRegistration::pre_registered("host").auth(ClientAuth::client_secret("pw")),
        move |ctx: IdentityAssertionContext| {
            *record.lock().unwrap() = Some(ctx.clone());
            let idp = idp.clone();
            async move { exchange_id_token_for_id_jag("id-token", &ctx, &idp).await }
        },
    )
    .scopes(["tools:read"]);
    let provider = server.provider(config);
    let err = provider
        .on_challenge(&server.challenge(401, ""))
        .await
        .unwrap_err();
    // The seed's check: walk the chain to the OAuthTokenError.
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(&err);
    let mut code = None;
    while let Some(e) = current {
        if let Some(t) = e.downcast_ref::<OAuthTokenError>() {
            let r = t.response().unwrap();
            code = Some((r.code().to_owned(), r.get("max_age").cloned()));
        }
        current = e.source();
    }
    assert_eq!(
        code,
        Some(("insufficient_user_authentication".into(), Some(json!(300))))
    );
    let ctx = seen
        .lock()
        .unwrap()
        .clone()
        .expect("the provider was called");
    assert_eq!(ctx.audience(), server.origin());
    assert_eq!(ctx.resource(), format!("{}/mcp", server.origin()));
    assert_eq!(ctx.client_id(), "host");
    assert_eq!(ctx.scopes(), ["tools:read"]);
    // Nothing reached the resource authorization server's token endpoint.
    assert!(server.grants().is_empty());
}

#[tokio::test]
async fn no_token_is_obtained_for_a_plain_http_server_off_loopback() {
    let url = reqwest::Url::parse("http://mcp.example.com/mcp").unwrap();
    let http = OAuthHttp::standalone(Duration::from_secs(5)).unwrap();
    let provider = OAuthProvider::new(url, machine(), http);
    let err = provider
        .on_challenge(&AuthChallenge::parse(401, "Bearer"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ClientError::OAuth(OAuthError::InsecureEndpoint { url }) if url == "http://mcp.example.com/mcp"),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_stored_token_is_refreshed_after_discovery() {
    // A token from a persistent store (here a shared memory store), already expired: the
    // new client discovers the authorization server and refreshes it.
    let server = Server::start(3600, None).await;
    let store = Arc::new(MemoryTokenStore::new());
    let key = format!("{}/mcp", server.origin());
    let expired = std::time::SystemTime::now() - Duration::from_secs(1);
    store.save(
        &key,
        StoredToken::new("old", Some("r0".into()), Some(expired), vec!["a".into()]),
    );
    let provider = server.provider(machine().token_store(store.clone()));
    assert_eq!(provider.token().await.unwrap().as_deref(), Some("t1"));
    assert_eq!(server.grants(), ["refresh_token"]);
    assert_eq!(server.requests.lock().unwrap()[0]["refresh_token"], "r0");
    let saved = store.load(&key).unwrap();
    assert_eq!(saved.access_token(), "t1");
    assert_eq!(saved.refresh_token(), Some("r1"));
    assert_eq!(saved.scopes(), ["a"]);
    // An expired token without a refresh token is forgotten: the next challenge authorizes.
    store.save(
        &key,
        StoredToken::new("old", None, Some(expired), Vec::new()),
    );
    assert_eq!(provider.token().await.unwrap(), None);
    assert!(store.load(&key).is_none());
}

#[tokio::test]
async fn a_refresh_token_goes_only_to_its_issuer() {
    // SEP-2352: the token came from another authorization server than the one the resource
    // now lists: its refresh token is not presented there, and the token is forgotten.
    let server = Server::start(3600, None).await;
    let store = Arc::new(MemoryTokenStore::new());
    let key = format!("{}/mcp", server.origin());
    let expired = std::time::SystemTime::now() - Duration::from_secs(1);
    let old = StoredToken::new("old", Some("r0".into()), Some(expired), vec!["a".into()]);
    store.save(&key, old.clone().with_issuer("https://old-as.example.com"));
    let provider = server.provider(machine().token_store(store.clone()));
    assert_eq!(provider.token().await.unwrap(), None);
    assert!(server.grants().is_empty());
    assert!(store.load(&key).is_none());
    // On a challenge the client authorizes with the new server instead, and records it.
    store.save(&key, old.with_issuer("https://old-as.example.com"));
    let token = provider
        .on_challenge(&server.challenge_to(Some("old"), 401, ""))
        .await
        .unwrap();
    assert_eq!(token.as_deref(), Some("t1"));
    assert_eq!(server.grants(), ["client_credentials"]);
    assert_eq!(
        store.load(&key).unwrap().issuer(),
        Some(server.origin().as_str())
    );
    // A token of the current issuer is refreshed there.
    let provider = server.provider(machine().token_store(store.clone()));
    store.save(
        &key,
        StoredToken::new("t1", Some("r1".into()), Some(expired), Vec::new())
            .with_issuer(server.origin()),
    );
    assert_eq!(provider.token().await.unwrap().as_deref(), Some("t2"));
    assert_eq!(server.grants(), ["client_credentials", "refresh_token"]);
}

/// An unsigned JWT with these claims (the client never checks an assertion's signature).
fn jwt(claims: Value) -> String {
    use base64::Engine as _;
    let b64 = |v: Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    format!("{}.{}.sig", b64(json!({"alg": "ES256"})), b64(claims))
}

#[tokio::test]
async fn a_workload_presents_its_assertion_with_no_client() {
    let server = Server::start(3600, None).await;
    let assertion = jwt(json!({"iss": "https://idp.example", "aud": server.origin()}));
    let provider = server.provider(OAuthConfig::workload_identity(WorkloadIdentity::new(
        AssertionSource::value(assertion.clone()),
    )));
    let token = provider.on_challenge(&server.challenge(401, "")).await;
    assert_eq!(token.unwrap().as_deref(), Some("t1"));
    let form = server.requests.lock().unwrap()[0].clone();
    let expected: std::collections::HashMap<String, String> = [
        ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
        ("assertion", assertion.as_str()),
        ("resource", &format!("{}/mcp", server.origin())),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    // No client_id, no secret, no scope (none is known).
    assert_eq!(form, expected);
    // The refresh token the server sent is not kept: the grant runs again.
    assert_eq!(provider.token().await.unwrap().as_deref(), Some("t1"));

    // With a client ID and scopes; the token endpoint as the audience.
    let assertion = jwt(json!({"aud": [format!("{}/token", server.origin())]}));
    let provider = server.provider(
        OAuthConfig::workload_identity(
            WorkloadIdentity::new(AssertionSource::value(assertion)).client_id("workload-7"),
        )
        .scopes(["tools:read"]),
    );
    provider
        .on_challenge(&server.challenge(401, ""))
        .await
        .unwrap();
    let form = server.requests.lock().unwrap()[1].clone();
    assert_eq!(form["client_id"], "workload-7");
    assert_eq!(form["scope"], "tools:read");
    assert!(!form.contains_key("client_secret"));
}

#[tokio::test]
async fn an_assertion_for_another_audience_is_never_sent() {
    let server = Server::start(3600, None).await;
    for assertion in [
        jwt(json!({"aud": "https://wrong.example"})),
        jwt(json!({"sub": "no audience"})),
        "not-a-jwt".to_owned(),
    ] {
        let provider = server.provider(OAuthConfig::workload_identity(WorkloadIdentity::new(
            AssertionSource::value(assertion),
        )));
        let err = provider
            .on_challenge(&server.challenge(401, ""))
            .await
            .unwrap_err();
        assert!(
            matches!(&err, ClientError::OAuth(OAuthError::AssertionAudience { issuer, .. }) if *issuer == server.origin()),
            "{err:?}"
        );
    }
    // An ID-JAG is held to the same rule.
    let provider = server.provider(OAuthConfig::identity_assertion(
        ClientRegistration::pre_registered("host"),
        |_ctx: IdentityAssertionContext| async {
            Ok(jwt(json!({"aud": "https://other-as.example"})))
        },
    ));
    let err = provider
        .on_challenge(&server.challenge(401, ""))
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            ClientError::OAuth(OAuthError::AssertionAudience { .. })
        ),
        "{err:?}"
    );
    assert!(server.grants().is_empty());
    // An audience the configuration names is accepted.
    let provider = server.provider(OAuthConfig::workload_identity(
        WorkloadIdentity::new(AssertionSource::value(jwt(
            json!({"aud": "api://exchange"}),
        )))
        .audience("api://exchange"),
    ));
    assert!(
        provider
            .on_challenge(&server.challenge(401, ""))
            .await
            .is_ok()
    );
    assert_eq!(server.grants().len(), 1);
}

#[tokio::test]
async fn enterprise_managed_exchanges_the_id_token_then_presents_the_id_jag() {
    let server = Server::start(3600, None).await;
    let idp = IdentityProviderConfig::new(server.origin(), "host-at-idp")
        .token_endpoint(format!("{}/idp/token", server.origin()));
    let config = OAuthConfig::enterprise_managed(
        ClientRegistration::pre_registered("host").auth(ClientAuth::client_secret_post("pw")),
        idp.clone(),
        AssertionSource::value("the-id-token"),
    )
    .scopes(["tools:read"]);
    let provider = server.provider(config);
    let token = provider.on_challenge(&server.challenge(401, "")).await;
    assert_eq!(token.unwrap().as_deref(), Some("t1"));
    let exchange = server.exchanges.lock().unwrap()[0].clone();
    assert_eq!(
        exchange["grant_type"],
        "urn:ietf:params:oauth:grant-type:token-exchange"
    );
    assert_eq!(exchange["subject_token"], "the-id-token");
    assert_eq!(
        exchange["subject_token_type"],
        "urn:ietf:params:oauth:token-type:id_token"
    );
    assert_eq!(exchange["audience"], server.origin());
    assert_eq!(exchange["resource"], format!("{}/mcp", server.origin()));
    assert_eq!(exchange["scope"], "tools:read");
    assert_eq!(exchange["client_id"], "host-at-idp");
    let grant = server.requests.lock().unwrap()[0].clone();
    assert_eq!(
        grant["grant_type"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    assert_eq!(grant["client_id"], "host");
    assert_eq!(grant["client_secret"], "pw");
    assert!(grant["assertion"].starts_with("eyJ"));

    // An exchange that issues something other than an ID-JAG goes no further.
    let server = Server::start(3600, None).await;
    *server.idp_issued.lock().unwrap() = Some("urn:ietf:params:oauth:token-type:access_token");
    let idp = IdentityProviderConfig::new(server.origin(), "host-at-idp")
        .token_endpoint(format!("{}/idp/token", server.origin()));
    let provider = server.provider(OAuthConfig::enterprise_managed(
        ClientRegistration::pre_registered("host"),
        idp,
        AssertionSource::value("the-id-token"),
    ));
    let err = provider
        .on_challenge(&server.challenge(401, ""))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ClientError::OAuth(OAuthError::InvalidResponse { reason, .. }) if reason.contains("not an ID-JAG")),
        "{err:?}"
    );
    assert!(server.grants().is_empty());
}
