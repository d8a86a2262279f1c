//! The settings of the Streamable HTTP transport: which `Host` and `Origin` values pass the
//! gate, CORS credentials, and the request-body limits. A server carries them for the
//! transport ([`ServerBuilder::transport`](crate::ServerBuilder::transport), or the
//! `allowed_origins` key of `#[mcp::service]`); stdio and in-process ignore them.

use std::time::Duration;

use crate::base::TransportConfig;
use crate::error::Error;

/// The default cap on request bodies (4 MiB).
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 << 20;
/// How long a request body may take to arrive by default.
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The settings of the HTTP transport. Give them to the server with
/// [`ServerBuilder::transport`](crate::ServerBuilder::transport):
///
/// ```
/// use mcp::transport::http::HttpConfig;
/// # struct Svc;
/// # #[mcp::service(name = "svc", version = "1.0.0")]
/// # impl Svc { pub fn ping(&self) -> String { "pong".into() } }
///
/// let server = mcp::Server::builder(Svc)
///     .transport(|http: HttpConfig| http.allowed_hosts(["mcp.example.com"]).max_body_bytes(1 << 20))
///     .build()?;
/// # Ok::<(), mcp::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use = "settings do nothing until the server is given them"]
pub struct HttpConfig {
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) allow_credentials: bool,
    pub(crate) allowed_hosts: Vec<String>,
    pub(crate) host_validation: bool,
    pub(crate) max_body_bytes: usize,
    pub(crate) body_read_timeout: Duration,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            allowed_origins: Vec::new(),
            allow_credentials: false,
            allowed_hosts: Vec::new(),
            host_validation: true,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
        }
    }
}

impl HttpConfig {
    /// The defaults: no browser origins, the `Host` check on, 4 MiB bodies read within 30 s.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the browser origins allowed to call the service (`"*"` allows any): the seed's
    /// `httpConfig.cors.allowOrigins`, both the Origin allowlist and the CORS policy.
    /// Requests without an `Origin` header are always accepted; others from unlisted origins
    /// get `403` before anything else runs. Listed origins get CORS answers: preflights for
    /// `POST`, `GET` and `DELETE` with the MCP request headers, and responses exposing
    /// `Mcp-Session-Id`, `MCP-Protocol-Version` and `WWW-Authenticate`.
    pub fn allowed_origins<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// Whether CORS answers carry `Access-Control-Allow-Credentials: true` (the seed's
    /// `httpConfig.cors.allowCredentials`), so a page may send cookies or HTTP
    /// authentication along. Default `false`. With `"*"` among the allowed origins, the
    /// request's origin is echoed instead of `*`, which browsers refuse with credentials.
    pub fn allow_credentials(mut self, allow: bool) -> Self {
        self.allow_credentials = allow;
        self
    }

    /// Adds `Host` values the service accepts (DNS-rebinding protection): a host name or
    /// address (`"mcp.example.com"`, `"192.168.1.20"`, `"[::1]"`), which then matches with
    /// any port, or a `host:port` that matches only that port. Compared case-insensitively.
    ///
    /// A service served by a [`HttpServer`](crate::HttpServer) bound to a loopback address
    /// accepts, by default, only `localhost` and loopback addresses with the bound port; the
    /// names listed here are accepted as well. On any other address no `Host` is checked
    /// unless names are listed here, and then only the listed ones pass. Any other `Host`
    /// gets `403` before anything else runs.
    pub fn allowed_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_hosts = hosts
            .into_iter()
            .map(|h| h.into().to_ascii_lowercase())
            .collect();
        self
    }

    /// Turns `Host` validation on or off (default on). Turn it off behind a reverse proxy
    /// that forwards requests to a loopback listener with the public host name and checks
    /// `Host` itself; or list the public names with [`allowed_hosts`](Self::allowed_hosts)
    /// instead.
    pub fn host_validation(mut self, enabled: bool) -> Self {
        self.host_validation = enabled;
        self
    }

    /// Sets the cap on request bodies; larger bodies get `413`.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// How long a request body may take to arrive (default 30 s); a slower body gets `408`.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }
}

impl TransportConfig for HttpConfig {
    fn validate(&self) -> Result<(), Error> {
        if self.body_read_timeout.is_zero() {
            return Err(Error::Config("body_read_timeout must be positive".into()));
        }
        if self.max_body_bytes == 0 {
            return Err(Error::Config("max_body_bytes must be positive".into()));
        }
        for host in &self.allowed_hosts {
            if host == "*" {
                return Err(Error::Config(
                    "allowed host \"*\": to accept any Host, use host_validation(false)".into(),
                ));
            }
            if !crate::base::host::is_host_pattern(host) {
                return Err(Error::Config(format!(
                    "allowed host {host:?} is not a host name, an address or host:port (IPv6 in brackets)"
                )));
            }
        }
        for origin in &self.allowed_origins {
            if origin != "*" && !origin.contains("://") {
                return Err(Error::Config(format!(
                    "allowed origin {origin:?} is not `*` or a scheme://host[:port] origin"
                )));
            }
        }
        Ok(())
    }
}
