//! The seed's URL-elicitation flow: `list_events` needs the user's calendar connected. Until
//! it is, the tool returns a URL elicitation pointing at this server's own connect page and
//! carries the link id in the request state; the page completes the step out of band, and
//! the next continuation finds the calendar connected.
//!
//! The connect page holds when the URL is altered: an unknown or expired id completes
//! nothing, and a valid id completes only for the user it was issued to. This demo names the
//! user with the `X-User` header (a production service reads `mcp::AuthContext::subject`
//! and signs the user in on the page through the same authorization server).

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::get;
use mcp::{ElicitAction, InputRequired, ToolOutput};
use serde::Deserialize;

/// How long a connect link stays valid.
pub const LINK_TTL: Duration = Duration::from_secs(600);

#[derive(Debug, Default)]
struct Links {
    /// Link id → (user it was issued to, expiry).
    pending: HashMap<String, (String, Instant)>,
    connected: HashSet<String>,
}

/// The calendar service and its connect page share this state.
#[derive(Clone, Debug, Default)]
pub struct Calendar {
    links: Arc<Mutex<Links>>,
    base_url: Arc<OnceLock<String>>,
}

impl Calendar {
    fn links(&self) -> std::sync::MutexGuard<'_, Links> {
        self.links
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Sets the public base URL of the connect page (`http://host:port`).
    pub fn set_base_url(&self, url: String) {
        let _ = self.base_url.set(url);
    }

    /// The link of the previous round when it is still valid for `user`, else a new one.
    fn link_for(&self, previous: Option<&str>, user: &str) -> String {
        let mut links = self.links();
        let now = Instant::now();
        links.pending.retain(|_, (_, expires)| *expires > now);
        if let Some(id) = previous
            && links
                .pending
                .get(id)
                .is_some_and(|(owner, _)| owner == user)
        {
            return id.to_owned();
        }
        let id = uuid_like();
        links
            .pending
            .insert(id.clone(), (user.to_owned(), now + LINK_TTL));
        id
    }

    /// What the connect page does with `id` opened by `user`.
    pub fn complete(&self, id: &str, user: &str) -> Result<(), (StatusCode, &'static str)> {
        let mut links = self.links();
        match links.pending.get(id) {
            Some((_, expires)) if *expires <= Instant::now() => {
                links.pending.remove(id);
                Err((
                    StatusCode::NOT_FOUND,
                    "This link is unknown or has expired.",
                ))
            }
            None => Err((
                StatusCode::NOT_FOUND,
                "This link is unknown or has expired.",
            )),
            Some((owner, _)) if owner != user => Err((
                StatusCode::FORBIDDEN,
                "This link was issued to another user.",
            )),
            Some(_) => {
                links.pending.remove(id);
                links.connected.insert(user.to_owned());
                Ok(())
            }
        }
    }

    /// Expires every pending link (for tests of the expired case).
    pub fn expire_links(&self) {
        for (_, expires) in self.links().pending.values_mut() {
            *expires = Instant::now();
        }
    }
}

fn uuid_like() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

#[mcp::service(
    name = "calendar",
    version = "1.0.0",
    instructions = "Your calendar events. The first call asks you to connect your calendar."
)]
impl Calendar {
    /// List your calendar events; connects your calendar first if needed.
    pub async fn list_events(
        &self,
        #[http_header("X-User")] user: String,
        context: mcp::Context,
    ) -> Result<ToolOutput<Vec<String>>, mcp::ToolError> {
        if self.links().connected.contains(&user) {
            return Ok(ToolOutput::Done(vec![
                format!("09:00 Stand-up ({user})"),
                "12:30 Lunch".to_owned(),
            ]));
        }
        if let Some(answer) = context.elicit_result("connect")
            && answer.action != ElicitAction::Accept
        {
            return Err(mcp::ToolError::new("The calendar is not connected"));
        }
        let id = self.link_for(context.request_state(), &user);
        let base = self
            .base_url
            .get()
            .cloned()
            .unwrap_or_else(|| "http://127.0.0.1:9090".to_owned());
        let url = format!("{base}/connect?id={id}");
        Ok(InputRequired::new()
            .elicit("connect", mcp::elicit_url("Connect your calendar", url))
            .state(id)
            .into())
    }
}

#[derive(Deserialize)]
struct ConnectQuery {
    id: String,
    user: Option<String>,
}

async fn connect_page(
    State(calendar): State<Calendar>,
    headers: HeaderMap,
    Query(q): Query<ConnectQuery>,
) -> (StatusCode, &'static str) {
    let user = headers
        .get("x-user")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .or(q.user);
    let Some(user) = user else {
        return (
            StatusCode::UNAUTHORIZED,
            "Sign in to connect your calendar.",
        );
    };
    match calendar.complete(&q.id, &user) {
        Ok(()) => (
            StatusCode::OK,
            "Your calendar is connected. You can return to your assistant.",
        ),
        Err(e) => e,
    }
}

/// The MCP endpoint mounted at `/mcp` next to the connect page at `/connect` (the page
/// has its own state), for a server at `addr`.
pub fn app(calendar: Calendar, addr: SocketAddr) -> Result<axum::Router, mcp::Error> {
    calendar.set_base_url(format!("http://{addr}"));
    let server = mcp::Server::builder(calendar.clone()).build()?;
    Ok(page_router(calendar).nest_service("/mcp", mcp::McpService::new(server)))
}

/// The connect page alone (`GET /connect`), for a calendar whose MCP is served elsewhere
/// (over stdio).
pub fn page_router(calendar: Calendar) -> axum::Router {
    axum::Router::new()
        .route("/connect", get(connect_page))
        .with_state(calendar)
}
