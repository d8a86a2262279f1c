//! Custom authentication: a user's own tower layer inserts an `mcp::AuthContext` into the
//! request's extensions. Tools receive it as a runtime parameter, advanced services read it
//! with `RequestContext::auth`, and the caller's identity owns its legacy sessions.

mod common;

use axum::extract::Request;
use axum::middleware::{self, Next};
use common::*;
use http::StatusCode;
use mcp::{Session, SessionMode};
use serde_json::{Value, json};

struct Who;

#[mcp::service(name = "who", version = "1.0.0", session_mode = "stateful")]
impl Who {
    /// Who is calling, and whether the session remembers it.
    #[expect(deprecated)] // MCP_WARNING_204: `session` is `None` on modern requests, handled
    pub async fn whoami(
        &self,
        caller: Option<mcp::AuthContext>,
        session: Option<Session>,
    ) -> String {
        let subject = caller
            .and_then(|c| c.subject)
            .unwrap_or_else(|| "anonymous".into());
        match session {
            Some(s) => {
                let seen: Option<String> = s.get("first").await.ok().flatten();
                if seen.is_none() {
                    let _ = s.set("first", &subject).await;
                }
                format!(
                    "{subject} (first: {})",
                    seen.unwrap_or_else(|| subject.clone())
                )
            }
            None => subject,
        }
    }
}

/// The user's layer: `x-user: <name>` is trusted as the caller's subject.
async fn trusted_header(mut request: Request, next: Next) -> axum::response::Response {
    let user = request
        .headers()
        .get("x-user")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if let Some(user) = user {
        let caller = mcp::AuthContext::new()
            .with_issuer("gateway")
            .with_subject(user)
            .with_scopes(["notes:read"]);
        request.extensions_mut().insert(caller);
    }
    next.run(request).await
}

fn app() -> axum::Router {
    let server = mcp::Server::builder(Who).build().unwrap();
    mcp::transport::http::router("/mcp", server).layer(middleware::from_fn(trusted_header))
}

fn as_user(
    mut request: http::Request<axum::body::Body>,
    user: &str,
) -> http::Request<axum::body::Body> {
    request
        .headers_mut()
        .insert("x-user", user.parse().unwrap());
    request
}

fn text(r: &Reply) -> String {
    r.result()["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_tool_receives_the_auth_context_a_layer_inserted() {
    let app = app();
    let call = modern_body(
        json!(1),
        "tools/call",
        json!({"name": "whoami", "arguments": {}}),
    );
    let r = send(&app, as_user(modern_request(&call), "alice")).await;
    assert_eq!(text(&r), "alice");
    let r = send(&app, modern_request(&call)).await;
    assert_eq!(text(&r), "anonymous");
}

#[tokio::test]
async fn the_inserted_caller_owns_its_legacy_session() {
    let app = app();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let r = send(&app, as_user(legacy_request(&init), "alice")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.raw);
    let session = r.headers["mcp-session-id"].to_str().unwrap().to_owned();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "whoami", "arguments": {}}});
    let with_session = |user: &str| {
        let mut request = as_user(legacy_request(&call), user);
        let headers = request.headers_mut();
        headers.insert("mcp-session-id", session.parse().unwrap());
        headers.insert("mcp-protocol-version", "2025-11-25".parse().unwrap());
        request
    };
    let r = send(&app, with_session("alice")).await;
    assert_eq!(text(&r), "alice (first: alice)");
    // Another caller cannot use alice's session: it is not found for them.
    let r = send(&app, with_session("mallory")).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.raw);
    assert_eq!(r.body["error"]["code"], Value::from(-32001), "{}", r.raw);
    let r = send(&app, with_session("alice")).await;
    assert_eq!(text(&r), "alice (first: alice)");
}

/// An advanced service answering with what its `RequestContext` knows.
struct Adv;

impl mcp::AdvancedService for Adv {
    fn info(&self) -> mcp::Implementation {
        mcp::Implementation::new("adv", "1.0.0").with_title("Advanced")
    }

    async fn on_list_tools(
        &self,
        _cursor: Option<String>,
        _request: &mcp::RequestContext,
    ) -> Result<mcp::ListToolsResult, mcp::ServerError> {
        Ok(mcp::ListToolsResult::new(vec![mcp::Tool::new(
            "who",
            json!({"type": "object"}),
        )]))
    }

    async fn on_call_tool(
        &self,
        _params: mcp::CallToolParams,
        request: &mcp::RequestContext,
    ) -> Result<mcp::CallToolResponse, mcp::ServerError> {
        let subject = request.auth().and_then(|a| a.subject.clone());
        let text = format!(
            "{} session={}",
            subject.unwrap_or_else(|| "anonymous".into()),
            request.session().is_some()
        );
        Ok(mcp::CallToolResult::text(text).into())
    }
}

#[tokio::test]
async fn request_context_exposes_the_caller_and_session_to_advanced_services() {
    let server = mcp::Server::builder(Adv)
        .session_mode(SessionMode::Stateful)
        .build()
        .unwrap();
    let app =
        mcp::transport::http::router("/mcp", server).layer(middleware::from_fn(trusted_header));
    let call = modern_body(
        json!(1),
        "tools/call",
        json!({"name": "who", "arguments": {}}),
    );
    let r = send(&app, as_user(modern_request(&call), "bob")).await;
    assert_eq!(text(&r), "bob session=false");
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let r = send(&app, as_user(legacy_request(&init), "bob")).await;
    let session = r.headers["mcp-session-id"].to_str().unwrap().to_owned();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "who", "arguments": {}}});
    let mut request = as_user(legacy_request(&call), "bob");
    request
        .headers_mut()
        .insert("mcp-session-id", session.parse().unwrap());
    let r = send(&app, request).await;
    assert_eq!(text(&r), "bob session=true");
}

#[test]
fn an_advanced_service_names_itself_and_the_builder_overrides_it() {
    let server = mcp::Server::builder(Adv).build().unwrap();
    assert_eq!(
        (server.info().name.as_str(), server.info().version.as_str()),
        ("adv", "1.0.0")
    );
    assert_eq!(server.info().title.as_deref(), Some("Advanced"));
    let server = mcp::Server::builder(Adv)
        .info("renamed", "2.0.0")
        .build()
        .unwrap();
    assert_eq!(
        (server.info().name.as_str(), server.info().version.as_str()),
        ("renamed", "2.0.0")
    );
    assert_eq!(server.info().title.as_deref(), Some("Advanced"));
    let err = mcp::Server::builder(Adv)
        .info(" ", "1.0.0")
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid service configuration: the server name is empty"
    );
}

struct Shown;

#[mcp::service(name = "shown", version = "1.0.0")]
impl Shown {
    /// What `Debug` shows of the caller, the headers and the request parts.
    pub fn debug(
        &self,
        caller: Option<mcp::AuthContext>,
        headers: http::HeaderMap,
        parts: http::request::Parts,
    ) -> String {
        format!("{caller:?}\n{headers:?}\n{parts:#?}")
    }
}

/// A layer that takes the bearer token as the caller's credential.
async fn bearer_caller(mut request: Request, next: Next) -> axum::response::Response {
    let token = request
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned);
    if let Some(token) = token {
        let caller = mcp::AuthContext::new()
            .with_issuer("gateway")
            .with_subject("alice")
            .with_token(token);
        request.extensions_mut().insert(caller);
    }
    next.run(request).await
}

#[tokio::test]
async fn debug_of_what_a_tool_binds_shows_no_credential() {
    let server = mcp::Server::builder(Shown).build().unwrap();
    let app =
        mcp::transport::http::router("/mcp", server).layer(middleware::from_fn(bearer_caller));
    let call = modern_body(
        json!(1),
        "tools/call",
        json!({"name": "debug", "arguments": {}}),
    );
    let mut request = modern_request(&call);
    let headers = request.headers_mut();
    headers.insert("authorization", "Bearer BEARER-SECRET".parse().unwrap());
    headers.insert("cookie", "sid=COOKIE-SECRET".parse().unwrap());
    headers.insert("x-tenant", "acme".parse().unwrap());
    let shown = text(&send(&app, request).await);
    assert!(shown.contains("alice") && shown.contains("acme"), "{shown}");
    for secret in ["BEARER-SECRET", "COOKIE-SECRET"] {
        assert!(!shown.contains(secret), "{secret}: {shown}");
    }
}
