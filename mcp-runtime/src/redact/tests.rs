//! Every public type that holds a secret, formatted with `{:?}`, `{:#?}` and (errors) `{}`
//! down their source chain: the secret must not show. The helpers' own tests come first.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use sha2::Digest as _;

use super::*;

/// The `{:?}` of `value`, after checking that neither it nor `{:#?}` shows a secret.
#[track_caller]
pub(crate) fn debug_hides(value: &impl fmt::Debug, secrets: &[&str]) -> String {
    let plain = format!("{value:?}");
    let pretty = format!("{value:#?}");
    for secret in secrets {
        assert!(!plain.contains(secret), "{{:?}} shows {secret:?}: {plain}");
        assert!(
            !pretty.contains(secret),
            "{{:#?}} shows {secret:?}: {pretty}"
        );
    }
    plain
}

/// The `{}` of `error` and of every error in its source chain, joined with `: `, after
/// checking that none of them, nor `{:?}`/`{:#?}` of `error`, shows a secret.
#[track_caller]
pub(crate) fn error_hides(error: &(dyn std::error::Error + 'static), secrets: &[&str]) -> String {
    debug_hides(&error, secrets);
    let mut chain = Vec::new();
    let mut current = Some(error);
    while let Some(e) = current {
        chain.push(e.to_string());
        current = e.source();
    }
    let chain = chain.join(": ");
    for secret in secrets {
        assert!(!chain.contains(secret), "{{}} shows {secret:?}: {chain}");
    }
    chain
}

/// The fingerprint of `secret` as [`Redacted::fingerprint`] shows it.
fn fingerprint_of(secret: &str) -> String {
    let digest = sha2::Sha256::digest(secret.as_bytes());
    format!(
        "<redacted sha256:{:02x}{:02x}{:02x}{:02x}>",
        digest[0], digest[1], digest[2], digest[3]
    )
}

// ------------------------------------------------------------------------------- helpers

#[test]
fn redacted_shows_a_fingerprint_or_nothing() {
    assert_eq!(Redacted::HIDDEN.to_string(), "<redacted>");
    assert_eq!(format!("{:?}", Redacted::HIDDEN), "<redacted>");
    // printf %s abc | sha256sum → ba7816bf…
    assert_eq!(
        Redacted::fingerprint("abc").to_string(),
        "<redacted sha256:ba7816bf>"
    );
    assert_eq!(fingerprint_of("abc"), "<redacted sha256:ba7816bf>");
    assert_eq!(Redacted::fingerprint("").to_string(), "<empty>");
}

#[test]
fn sensitive_names() {
    for name in [
        "code",
        "STATE",
        "client_secret",
        "access_token",
        "refresh_token",
        "id_token",
        "client_assertion",
        "subject_token",
        "code_verifier",
        "password",
        "--api-key",
        "-token",
        "GITHUB_PERSONAL_ACCESS_TOKEN",
        "Authorization",
        "mcp-session-id",
        "X-Amz-Signature",
        "private_key",
    ] {
        assert!(is_sensitive_name(name), "{name}");
    }
    for name in [
        "client_id",
        "redirect_uri",
        "code_challenge",
        "scope",
        "resource",
        "--port",
        "LOG_LEVEL",
        "error",
    ] {
        assert!(!is_sensitive_name(name), "{name}");
    }
}

#[test]
fn urls_keep_where_they_lead_and_lose_their_secrets() {
    assert_eq!(
        url("https://as.example.com/token"),
        "https://as.example.com/token"
    );
    assert!(matches!(
        url("https://as.example.com/a?client_id=c&scope=x#top"),
        Cow::Borrowed(_)
    ));
    assert_eq!(
        url("https://app.example/cb?code=AUTHCODE&state=STATE&iss=https%3A%2F%2Fas"),
        "https://app.example/cb?code=***&state=***&iss=https%3A%2F%2Fas"
    );
    assert_eq!(
        url("https://as.example/t?client_id=c&client%5Fsecret=S3CRET&x"),
        "https://as.example/t?client_id=c&client%5Fsecret=***&x"
    );
    assert_eq!(
        url("https://app.example/cb#access_token=AT&token_type=bearer&expires_in=60"),
        "https://app.example/cb#access_token=***&token_type=***&expires_in=60"
    );
    assert_eq!(
        url("redis://user:p%40ss@cache:6379/0?api_key=K"),
        "redis://user:***@cache:6379/0?api_key=***"
    );
    assert_eq!(
        url("https://ghp_TOKEN@github.com/x/y"),
        "https://***@github.com/x/y"
    );
    // An `@` in the path or query is not userinfo.
    assert_eq!(
        url("https://example.com/users/@me?q=a@b"),
        "https://example.com/users/@me?q=a@b"
    );
    assert_eq!(url("not a url ?token=T"), "not a url ?token=***");
    assert_eq!(url("/mcp?session=S&x=1"), "/mcp?session=***&x=1");
}

#[test]
fn arguments_lose_flagged_secrets() {
    let given = [
        "-y",
        "@scope/server",
        "--api-key",
        "K1",
        "--token=K2",
        "--port",
        "8080",
        "postgres://app:K3@db/app",
        "--password",
    ];
    let shown = args(given.iter().map(|a| Cow::Borrowed(*a))).join(" ");
    assert_eq!(
        shown,
        "-y @scope/server --api-key *** --token=*** --port 8080 postgres://app:***@db/app --password"
    );
}

#[test]
fn json_members_hide_sensitive_values() {
    let object = json!({"error": "invalid_grant", "access_token": "LEAKED-AT", "max_age": 60});
    let shown = debug_hides(&JsonMembers(object.as_object().unwrap()), &["LEAKED-AT"]);
    assert!(
        shown.contains("invalid_grant") && shown.contains("60"),
        "{shown}"
    );
}

// ------------------------------------------------------------------ server configuration

/// A service with no tools, for the server's configuration and its errors.
struct Svc;

impl crate::AdvancedService for Svc {
    fn info(&self) -> crate::Implementation {
        crate::Implementation::new("svc", "1")
    }

    async fn on_list_tools(
        &self,
        _: Option<String>,
        _: &crate::RequestContext,
    ) -> Result<crate::protocol::ListToolsResult, crate::ServerError> {
        Ok(crate::protocol::ListToolsResult::new(Vec::new()))
    }
    async fn on_call_tool(
        &self,
        _: crate::protocol::CallToolParams,
        _: &crate::RequestContext,
    ) -> Result<crate::protocol::CallToolResponse, crate::ServerError> {
        Err(crate::ServerError::method_not_found())
    }
}

#[test]
fn request_state_keys_are_never_shown() {
    // 32 bytes of 0xAB: `{:?}` of the key itself would show `171, 171, …`.
    let key = vec![0xAB_u8; 32];
    let signer =
        crate::state::Signer::new(std::slice::from_ref(&key), Duration::from_secs(60)).unwrap();
    debug_hides(&signer, &["171"]);
    let builder = crate::Server::builder(Svc).request_state_keys([&key]);
    debug_hides(&builder, &["171"]);
    debug_hides(&builder.build().unwrap(), &["171"]);
}

#[test]
fn listener_auth_hides_passwords() {
    let auth = crate::auth::ListenerAuth::basic([("alice", "BASIC-PASSWORD")]);
    let shown = debug_hides(&auth, &["BASIC-PASSWORD"]);
    assert!(shown.contains("alice"), "{shown}");
}

#[test]
fn introspection_credentials_are_hidden() {
    let server = crate::auth::AuthorizationServer::introspection(
        "https://as.example",
        "https://as.example/introspect",
    )
    .client_credentials("rs", "INTROSPECTION-SECRET");
    let shown = debug_hides(&server, &["INTROSPECTION-SECRET"]);
    assert!(shown.contains("\"rs\""), "{shown}");
    let config =
        crate::auth::OAuthConfig::new("https://mcp.example/mcp").authorization_server(server);
    debug_hides(&config, &["INTROSPECTION-SECRET"]);
    let plain = crate::auth::AuthorizationServer::introspection(
        "https://as.example",
        "https://as.example/introspect",
    );
    assert!(format!("{plain:?}").contains("client_secret: None"));
}

#[test]
fn config_errors_mask_url_credentials() {
    // A fragment makes the resource invalid; the message quotes it.
    let bad = crate::auth::OAuthConfig::new("https://admin:URL-PASSWORD@mcp.example/mcp#x")
        .authorization_server(crate::auth::AuthorizationServer::jwt(
            "https://as.example",
            "https://as.example/jwks",
        ));
    let e = crate::Server::builder(Svc).oauth(bad).build().unwrap_err();
    let shown = error_hides(&e, &["URL-PASSWORD"]);
    assert!(shown.contains("mcp.example"), "{shown}");
}

// ----------------------------------------------------------------------- server requests

#[test]
fn auth_context_shows_who_but_not_the_token() {
    let token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl";
    let claims = json!({
        "sub": "alice",
        "iss": "https://as.example",
        "exp": 1_900_000_000,
        "email": "alice@example.com",
        "secret_claim": "CLAIM-VALUE",
    });
    let auth = crate::AuthContext::new()
        .with_subject("alice")
        .with_issuer("https://as.example")
        .with_client_id("app")
        .with_scopes(["files:read"])
        .with_claims(claims.as_object().unwrap().clone())
        .with_token(token);
    let shown = debug_hides(&auth, &[token, "c2lnbmF0dXJl", "CLAIM-VALUE", "alice@"]);
    for visible in [
        "alice",
        "https://as.example",
        "app",
        "files:read",
        "1900000000",
        "secret_claim",
        &fingerprint_of(token),
    ] {
        assert!(shown.contains(visible), "{visible}: {shown}");
    }
    assert!(format!("{:?}", crate::AuthContext::new()).contains("<empty>"));
}

#[test]
fn http_session_shows_a_fingerprint_of_its_id() {
    let id = "0123456789abcdef0123456789abcdef";
    let session = crate::Session::new(
        id.into(),
        crate::session::DynSessionStore::new(crate::session::MemoryStore::new()),
        Arc::default(),
    );
    let shown = debug_hides(&session, &[id]);
    assert!(shown.contains(&fingerprint_of(id)), "{shown}");
}

#[test]
fn created_sessions_show_fingerprints() {
    let created = crate::session::Created {
        id: "11111111111111111111111111111111".into(),
        evicted: vec!["22222222222222222222222222222222".into()],
    };
    let shown = debug_hides(&created, &[&created.id, &created.evicted[0]]);
    assert!(shown.contains(&fingerprint_of(&created.id)), "{shown}");
}

#[tokio::test]
async fn store_errors_do_not_name_the_session() {
    use crate::session::SessionStore as _;
    let id = "0123456789abcdef0123456789abcdef";
    let e = crate::session::MemoryStore::new()
        .set(id, "k", json!(1))
        .await
        .unwrap_err();
    let shown = error_hides(&e, &[id]);
    assert!(shown.contains(&fingerprint_of(id)), "{shown}");
}

#[test]
fn request_context_hides_query_secrets_and_the_session_id() {
    let (parts, ()) = http::Request::builder()
        .uri("/mcp?token=QUERY-TOKEN&tenant=acme")
        .body(())
        .unwrap()
        .into_parts();
    let mut ctx = crate::RequestContext::new(crate::protocol::Era::Legacy, "2025-06-18");
    ctx.extensions_mut().insert(parts);
    let id = "0123456789abcdef0123456789abcdef";
    ctx.session = Some(crate::Session::new(
        id.into(),
        crate::session::DynSessionStore::new(crate::session::MemoryStore::new()),
        Arc::default(),
    ));
    ctx.auth = Some(crate::AuthContext::new().with_token("BEARER-TOKEN"));
    let shown = debug_hides(&ctx, &["QUERY-TOKEN", id, "BEARER-TOKEN"]);
    assert!(shown.contains("tenant=acme"), "{shown}");
}

#[test]
fn bus_messages_show_fingerprints_of_session_ids() {
    use crate::notify::{BusEvent, BusMessage};
    let id = "0123456789abcdef0123456789abcdef";
    for event in [
        BusEvent::SessionMessage {
            session: id.into(),
            message: r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.into(),
        },
        BusEvent::Answer {
            session: id.into(),
            id: "7".into(),
            answer: Ok(json!({})),
        },
    ] {
        let message = BusMessage {
            origin: "replica-1".into(),
            event,
        };
        let shown = debug_hides(&message, &[id]);
        assert!(shown.contains(&fingerprint_of(id)), "{shown}");
    }
}

// -------------------------------------------------------------------------------- client

#[test]
fn http_config_hides_header_values() {
    use http::{HeaderName, HeaderValue};
    let http = crate::client::HttpConfig::new()
        .header(
            http::header::AUTHORIZATION,
            HeaderValue::from_static("Bearer HEADER-TOKEN"),
        )
        .header(
            HeaderName::from_static("x-api-key"),
            HeaderValue::from_static("HEADER-KEY"),
        );
    let shown = debug_hides(&http, &["HEADER-TOKEN", "HEADER-KEY"]);
    assert!(shown.contains("x-api-key"), "{shown}");
    let config = crate::client::ClientConfig::new().http(http);
    debug_hides(&config, &["HEADER-TOKEN", "HEADER-KEY"]);
}

#[test]
fn static_tokens_are_hidden() {
    debug_hides(
        &crate::client::StaticToken::new("STATIC-TOKEN"),
        &["STATIC-TOKEN"],
    );
}

#[test]
fn client_hides_url_secrets() {
    let config = crate::client::ClientConfig::new().http(crate::client::HttpConfig::new().header(
        http::header::AUTHORIZATION,
        http::HeaderValue::from_static("Bearer HEADER-TOKEN"),
    ));
    let client =
        crate::client::Client::new("https://mcp.example/mcp?api_key=URL-KEY&region=eu", config)
            .unwrap();
    let shown = debug_hides(&client, &["URL-KEY", "HEADER-TOKEN"]);
    assert!(shown.contains("region=eu"), "{shown}");
    let e = crate::client::Client::new(
        "https://mcp.example:notaport/mcp?api_key=URL-KEY",
        crate::client::ClientConfig::new(),
    )
    .unwrap_err();
    error_hides(&e, &["URL-KEY"]);
}

#[tokio::test]
async fn transport_errors_mask_the_url() {
    // Nothing listens on port 1: the request fails with a reqwest error quoting the URL.
    let client = crate::client::Client::new(
        "http://127.0.0.1:1/mcp?api_key=URL-KEY",
        crate::client::ClientConfig::new().timeout(Duration::from_secs(5)),
    )
    .unwrap();
    let e = client
        .connect(crate::client::ConnectOptions::default())
        .await
        .unwrap_err();
    let shown = error_hides(&e, &["URL-KEY"]);
    assert!(shown.contains("127.0.0.1:1"), "{shown}");
}

#[test]
fn stdio_commands_hide_environment_values_and_flagged_secrets() {
    let command = crate::client::StdioCommand::new("npx")
        .args([
            "-y",
            "@scope/server",
            "--api-key",
            "ARG-KEY",
            "--token=ARG-TOKEN",
        ])
        .env("GITHUB_PERSONAL_ACCESS_TOKEN", "ENV-TOKEN")
        .env("LOG_LEVEL", "ENV-LEVEL");
    let shown = debug_hides(
        &command,
        &["ARG-KEY", "ARG-TOKEN", "ENV-TOKEN", "ENV-LEVEL"],
    );
    assert!(
        shown.contains("@scope/server") && shown.contains("GITHUB_PERSONAL_ACCESS_TOKEN"),
        "{shown}"
    );
}

#[tokio::test]
async fn spawn_errors_hide_flagged_secrets() {
    let command = crate::client::StdioCommand::new("/nonexistent/mcp-server").args([
        "--api-key",
        "ARG-KEY",
        "--token=ARG-TOKEN",
        "--verbose",
    ]);
    let e = crate::client::connect_stdio(command).await.unwrap_err();
    let shown = error_hides(&e, &["ARG-KEY", "ARG-TOKEN"]);
    assert!(shown.contains("/nonexistent/mcp-server"), "{shown}");
}

// -------------------------------------------------------------------------- client OAuth

/// A test-only P-256 key (the one of `examples/tests/keys/ec1.pem`).
const EC_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgT4bA3YomYM1VFaqO
AlaLHjOSujKNWYtGbjJVQspQz/ehRANCAAQwiXVAoXsx/37qDayD0pssYT0em/5J
vfxLqzuBbNxYEFr9sKidj0LqgHlZclwqGnPjxTTj4HZRGr3kl3DDaQfr
-----END PRIVATE KEY-----
";

#[test]
fn client_auth_hides_secrets_and_keys() {
    use crate::client::oauth::ClientAuth;
    let key_body = "T4bA3YomYM1VFaqO";
    for (auth, secret) in [
        (ClientAuth::client_secret("CLIENT-SECRET"), "CLIENT-SECRET"),
        (
            ClientAuth::client_secret_basic("CLIENT-SECRET"),
            "CLIENT-SECRET",
        ),
        (
            ClientAuth::client_secret_post("CLIENT-SECRET"),
            "CLIENT-SECRET",
        ),
        (
            ClientAuth::private_key_jwt(EC_KEY, "ES256").unwrap(),
            key_body,
        ),
    ] {
        debug_hides(&auth, &[secret]);
    }
    let jwt = debug_hides(
        &ClientAuth::private_key_jwt(EC_KEY, "ES256").unwrap(),
        &[key_body],
    );
    assert!(jwt.contains("ES256"), "{jwt}");
}

#[test]
fn client_oauth_configurations_hide_secrets() {
    use crate::client::oauth::{
        ClientAuth, ClientRegistration, IdentityProviderConfig, OAuthConfig,
        ProgrammaticAuthorization,
    };
    let registration =
        ClientRegistration::pre_registered("app").auth(ClientAuth::client_secret("CLIENT-SECRET"));
    let shown = debug_hides(&registration, &["CLIENT-SECRET"]);
    assert!(shown.contains("\"app\""), "{shown}");
    let code = OAuthConfig::authorization_code(
        registration.clone(),
        ProgrammaticAuthorization::new("http://127.0.0.1:8765/callback"),
    );
    debug_hides(&code, &["CLIENT-SECRET"]);
    let machine =
        OAuthConfig::client_credentials("svc", ClientAuth::client_secret("CLIENT-SECRET"));
    debug_hides(&machine, &["CLIENT-SECRET"]);
    debug_hides(
        &crate::client::ClientConfig::new().oauth(machine),
        &["CLIENT-SECRET"],
    );
    let idp = IdentityProviderConfig::new("https://idp.example", "app")
        .auth(ClientAuth::private_key_jwt(EC_KEY, "ES256").unwrap());
    debug_hides(&idp, &["T4bA3YomYM1VFaqO"]);
}

#[test]
fn stored_tokens_show_fingerprints() {
    use crate::client::oauth::{MemoryTokenStore, StoredToken, TokenStore as _};
    let token = StoredToken::new(
        "ACCESS-TOKEN",
        Some("REFRESH-TOKEN".into()),
        None,
        vec!["files:read".into()],
    );
    let shown = debug_hides(&token, &["ACCESS-TOKEN", "REFRESH-TOKEN"]);
    assert!(
        shown.contains(&fingerprint_of("ACCESS-TOKEN")) && shown.contains("files:read"),
        "{shown}"
    );
    let store = MemoryTokenStore::new();
    store.save("https://mcp.example/mcp", token);
    debug_hides(&store, &["ACCESS-TOKEN", "REFRESH-TOKEN"]);
}

#[test]
fn oauth_error_responses_hide_token_members() {
    use crate::client::oauth::{OAuthError, OAuthErrorResponse, OAuthTokenError};
    let body = json!({
        "error": "invalid_grant",
        "error_description": "the code was used",
        "access_token": "LEAKED-TOKEN",
        "max_age": 60,
    });
    let response = OAuthErrorResponse::from_json(&body).unwrap();
    let shown = debug_hides(&response, &["LEAKED-TOKEN"]);
    assert!(shown.contains("max_age"), "{shown}");
    let e = OAuthError::Token(OAuthTokenError::new(
        "https://as.example/token",
        400,
        Some(response),
    ));
    error_hides(&e, &["LEAKED-TOKEN"]);
}

#[tokio::test]
async fn oauth_http_errors_mask_the_url() {
    use crate::client::oauth::OAuthHttp;
    let http = OAuthHttp::standalone(Duration::from_secs(5)).unwrap();
    let url = reqwest::Url::parse("http://127.0.0.1:1/token?client_secret=URL-SECRET&x=1").unwrap();
    let e = http
        .post_form(&url, &[("grant_type", "client_credentials")], None, None)
        .await
        .err()
        .unwrap();
    let shown = error_hides(&e, &["URL-SECRET"]);
    assert!(shown.contains("127.0.0.1:1"), "{shown}");
    let e = http.get_metadata(&url).await.unwrap_err();
    error_hides(&e, &["URL-SECRET"]);
    let insecure = reqwest::Url::parse("http://as.example/cb?code=AUTH-CODE").unwrap();
    let e = http.get_metadata(&insecure).await.unwrap_err();
    error_hides(&e, &["AUTH-CODE"]);
}

#[tokio::test]
async fn authorization_errors_mask_the_url() {
    use crate::client::oauth::{AuthorizationHandler as _, ProgrammaticAuthorization};
    let handler = ProgrammaticAuthorization::new("http://127.0.0.1:8765/callback")
        .timeout(Duration::from_secs(5));
    let e = handler
        .authorize(
            "http://127.0.0.1:1/authorize?client_id=app&state=STATE-VALUE&code_challenge=abc",
        )
        .await
        .unwrap_err();
    let shown = error_hides(&e, &["STATE-VALUE"]);
    assert!(shown.contains("client_id=app"), "{shown}");
}
