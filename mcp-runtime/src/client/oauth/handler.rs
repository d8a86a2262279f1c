//! The user-facing step of the authorization code flow: [`AuthorizationHandler`] (open
//! this URL, hand back the redirect) and its two implementations, [`LoopbackBrowser`] for
//! CLIs and desktops and [`ProgrammaticAuthorization`] for tests and headless flows.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::error::OAuthError;
use super::http::check;
use crate::base::BoxFuture;

/// Takes the user through the authorization server's authorization endpoint.
///
/// The client builds the authorization URL (PKCE, `state`, `resource`, scopes) and calls
/// [`authorize`](Self::authorize); the handler gets the user there and returns the URL the
/// authorization server redirected to (on [`redirect_uri`](Self::redirect_uri)), whose
/// `code`, `state` and `error` the client checks.
pub trait AuthorizationHandler: Send + Sync + 'static {
    /// The redirect URI registered for this client.
    fn redirect_uri(&self) -> String;

    /// Takes the user to `authorization_url` and returns the redirect it led to.
    fn authorize(
        &self,
        authorization_url: &str,
    ) -> impl Future<Output = Result<String, OAuthError>> + Send;
}

/// [`AuthorizationHandler`] with a boxed future.
pub(crate) trait DynAuthorizationHandler: Send + Sync + 'static {
    fn dyn_redirect_uri(&self) -> String;
    fn dyn_authorize<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<String, OAuthError>>;
}

impl<T: AuthorizationHandler> DynAuthorizationHandler for T {
    fn dyn_redirect_uri(&self) -> String {
        self.redirect_uri()
    }

    fn dyn_authorize<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<String, OAuthError>> {
        Box::pin(self.authorize(url))
    }
}

/// Whether `candidate` is a redirect to `redirect_uri` (same origin and path).
pub(crate) fn is_redirect_to(candidate: &Url, redirect_uri: &Url) -> bool {
    candidate.scheme() == redirect_uri.scheme()
        && candidate.host_str() == redirect_uri.host_str()
        && candidate.port_or_known_default() == redirect_uri.port_or_known_default()
        && candidate.path() == redirect_uri.path()
}

/// Follows the authorization endpoint's redirects without a user: for authorization
/// servers that approve at once (tests, headless agents, the conformance suite). It
/// returns the first redirect to its redirect URI; an endpoint that shows a page instead
/// (it needs a user) is an error.
#[derive(Clone, Debug)]
pub struct ProgrammaticAuthorization {
    redirect_uri: String,
    timeout: Duration,
}

impl ProgrammaticAuthorization {
    /// A handler announcing `redirect_uri` (nothing listens there: the redirect is read
    /// from the `Location` header).
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        Self {
            redirect_uri: redirect_uri.into(),
            timeout: Duration::from_secs(30),
        }
    }

    /// The time the whole walk may take (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

impl AuthorizationHandler for ProgrammaticAuthorization {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    async fn authorize(&self, authorization_url: &str) -> Result<String, OAuthError> {
        let target = Url::parse(&self.redirect_uri)
            .map_err(|e| OAuthError::Config(format!("invalid redirect URI: {e}")))?;
        let client = reqwest::Client::builder()
            .use_rustls_tls()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| OAuthError::Config(format!("cannot build the HTTP client: {e}")))?;
        let mut url = Url::parse(authorization_url)
            .map_err(|e| OAuthError::authorization(format!("invalid authorization URL: {e}")))?;
        let walk = async {
            for _ in 0..5 {
                check(&url)?;
                let response = client
                    .get(url.clone())
                    .send()
                    .await
                    .map_err(|source| OAuthError::http(url.as_str(), source))?;
                let status = response.status().as_u16();
                if !response.status().is_redirection() {
                    return Err(OAuthError::authorization(format!(
                        "the authorization endpoint answered HTTP {status} instead of redirecting"
                    )));
                }
                let next = response
                    .headers()
                    .get(http::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|l| url.join(l).ok())
                    .ok_or_else(|| {
                        OAuthError::authorization("a redirect without a usable Location")
                    })?;
                if is_redirect_to(&next, &target) {
                    return Ok(next.to_string());
                }
                url = next;
            }
            Err(OAuthError::authorization("too many redirects"))
        };
        tokio::time::timeout(self.timeout, walk)
            .await
            .map_err(|_| OAuthError::timeout(authorization_url))?
    }
}

/// Opens a URL for the user.
type Opener = Arc<dyn Fn(&str) -> std::io::Result<()> + Send + Sync>;

/// Opens the system browser on the authorization URL and receives the redirect on a
/// loopback listener (`http://127.0.0.1:<port>/callback`, RFC 8252 §7.3): for CLIs and
/// desktop applications. The URL is also printed on standard error, for a browser on
/// another device.
#[derive(Clone)]
pub struct LoopbackBrowser {
    listener: Arc<std::net::TcpListener>,
    port: u16,
    timeout: Duration,
    opener: Opener,
}

impl std::fmt::Debug for LoopbackBrowser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackBrowser")
            .field("port", &self.port)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl LoopbackBrowser {
    /// Listens on `127.0.0.1:port` (`0` picks a free port).
    pub fn bind(port: u16) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        Ok(Self {
            listener: Arc::new(listener),
            port,
            timeout: Duration::from_secs(300),
            opener: Arc::new(open_browser),
        })
    }

    /// How long to wait for the user (default 5 minutes).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Replaces the way the URL is opened (the default runs `xdg-open`, `open` or
    /// `start`, and prints the URL).
    pub fn opener(
        mut self,
        opener: impl Fn(&str) -> std::io::Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.opener = Arc::new(opener);
        self
    }

    async fn receive(&self) -> Result<String, OAuthError> {
        let std_listener = self
            .listener
            .try_clone()
            .map_err(|e| OAuthError::authorization(format!("loopback listener: {e}")))?;
        let listener = tokio::net::TcpListener::from_std(std_listener)
            .map_err(|e| OAuthError::authorization(format!("loopback listener: {e}")))?;
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                continue;
            };
            let mut head = Vec::new();
            let mut buf = [0u8; 1024];
            let read = tokio::time::timeout(Duration::from_secs(5), async {
                while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 8192 {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
            })
            .await;
            if read.is_err() {
                continue;
            }
            let line = String::from_utf8_lossy(&head);
            let target = line
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("GET "))
                .and_then(|l| l.split(' ').next())
                .unwrap_or_default()
                .to_owned();
            if target.split('?').next() == Some("/callback") {
                let page = "<!doctype html><title>Authorized</title><p>Authorization complete. You can close this window.";
                let _ = stream
                    .write_all(
                        format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
                            page.len()
                        )
                        .as_bytes(),
                    )
                    .await;
                return Ok(format!("http://127.0.0.1:{}{target}", self.port));
            }
            let _ = stream
                .write_all(
                    b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                )
                .await;
        }
    }
}

fn open_browser(url: &str) -> std::io::Result<()> {
    eprintln!("Open this URL to authorize the client:\n{url}");
    let command = if cfg!(target_os = "macos") {
        ("open", vec![url])
    } else if cfg!(windows) {
        ("cmd", vec!["/C", "start", "", url])
    } else {
        ("xdg-open", vec![url])
    };
    std::process::Command::new(command.0)
        .args(command.1)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(drop)
}

impl AuthorizationHandler for LoopbackBrowser {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    async fn authorize(&self, authorization_url: &str) -> Result<String, OAuthError> {
        if let Err(e) = (self.opener)(authorization_url) {
            // The URL was printed; the user can still open it by hand.
            tracing::warn!("cannot open a browser: {e}");
        }
        tokio::time::timeout(self.timeout, self.receive())
            .await
            .map_err(|_| OAuthError::timeout(&self.redirect_uri()))?
    }
}
