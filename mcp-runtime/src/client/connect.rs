//! Connecting: the era negotiation (`server/discover` probe, legacy `initialize`), adopting
//! a discover result, renewing an expired legacy session.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::Map;

use serde_json::value::RawValue;

use super::exchange::{Call, Wire};
use super::negotiate::{Verdict, classify, mutual_version, parse_discover};
use super::{
    Client, ClientConfig, ClientError, ConnectOptions, Connection, ConnectionInfo, Inner,
    ProtocolError, ProtocolMode, invalid, parse_result, to_object,
};
use crate::protocol::{
    DEFAULT_LEGACY_HTTP_VERSION, DiscoverResult, Era, ErrorCode, InitializeParams,
    InitializeResult, LEGACY_VERSIONS, META_SERVER_INFO, MODERN_VERSION, RequestId,
    ServerCapabilities, serves_legacy_version,
};

/// Connects to the MCP endpoint at `url` with the defaults: the auto protocol era, the
/// client identity `mcp-rs` (this crate's version), no elicitation handler, no token.
///
/// Use [`Client::new`] with a [`ClientConfig`], then
/// [`connect`](Client::connect) with [`ConnectOptions`], for anything else.
///
/// ```no_run
/// # async fn run() -> Result<(), mcp::client::ClientError> {
/// let client = mcp::client::connect("http://127.0.0.1:9090/mcp").await?;
/// println!("{:?}", client.connection());
/// # Ok(())
/// # }
/// ```
pub async fn connect(url: impl AsRef<str>) -> Result<Client, ClientError> {
    let client = Client::new(url, ClientConfig::new())?;
    client.connect(ConnectOptions::default()).await?;
    Ok(client)
}

impl Client {
    /// Selects the protocol era and connects.
    ///
    /// - [`ProtocolMode::Auto`] probes with `server/discover` and uses the modern era when
    ///   the server lists a version this client speaks. It falls back to the legacy
    ///   `initialize` handshake exactly when the TypeScript client does: the answer is not a
    ///   discover result, lists no version this client speaks, is a JSON-RPC error other
    ///   than `-32022` (or a `-32022` listing only legacy versions, or none), or a `4xx`
    ///   other than `401`/`403` with an unreadable body. `401`, `403`, `5xx`, a broken
    ///   `2xx`, a network failure, a timeout, and a `-32022` listing only modern versions
    ///   this client does not speak are errors.
    /// - [`ProtocolMode::Modern`] probes the same way and never falls back: any legacy
    ///   verdict is a [`ProtocolError::Negotiation`] error.
    /// - [`ProtocolMode::Legacy`] sends `initialize` (no probe), then
    ///   `notifications/initialized`, and keeps the `Mcp-Session-Id` the server issues.
    ///
    /// With [`ConnectOptions::legacy_initialize`]`(false)` a legacy connection skips the
    /// handshake. Connecting an already connected client returns the current connection;
    /// call [`close`](Self::close) first to connect again.
    pub async fn connect(
        &self,
        options: impl Into<ConnectOptions>,
    ) -> Result<ConnectionInfo, ClientError> {
        let options = self.inner.merge_capabilities(options.into());
        let _guard = self.inner.connect_lock.lock().await;
        if let Some(current) = self.inner.current() {
            return Ok(current.info.clone());
        }
        let conn = self.inner.negotiate(options).await?;
        let info = self.inner.install(conn, true);
        self.inner.listener_opened().await;
        Ok(info)
    }

    /// Fetches modern discovery data (`server/discover`) without connecting.
    pub async fn discover(
        &self,
        options: impl Into<ConnectOptions>,
    ) -> Result<DiscoverResult, ClientError> {
        let options = self.inner.merge_capabilities(options.into());
        let reply = self.inner.probe(&options, MODERN_VERSION).await?;
        parse_discover(&reply)
            .ok_or_else(|| invalid("server/discover", "the result is not a discover result"))
    }

    /// Connects an auto or modern client from a discover result obtained earlier (by
    /// [`discover`](Self::discover)), without a request.
    pub async fn adopt_discovery(
        &self,
        options: impl Into<ConnectOptions>,
        result: DiscoverResult,
    ) -> Result<ConnectionInfo, ClientError> {
        if self.inner.config.protocol_mode == ProtocolMode::Legacy {
            return Err(ClientError::Config(
                "adopt_discovery needs the auto or modern protocol mode".into(),
            ));
        }
        let options = self.inner.merge_capabilities(options.into());
        let _guard = self.inner.connect_lock.lock().await;
        if let Some(current) = self.inner.current() {
            return Ok(current.info.clone());
        }
        let Some(version) = mutual_version(&result.supported_versions) else {
            return Err(ProtocolError::Negotiation {
                reason: format!(
                    "the server supports {:?}, none of which this client speaks",
                    result.supported_versions
                ),
                code: None,
                http_status: None,
            }
            .into());
        };
        let conn = Inner::modern_connection(options, result, version);
        let info = self.inner.install(conn, true);
        self.inner.listener_opened().await;
        Ok(info)
    }

    /// Performs the legacy `initialize` handshake explicitly (auto or legacy mode).
    pub async fn initialize_legacy(
        &self,
        options: impl Into<ConnectOptions>,
    ) -> Result<ConnectionInfo, ClientError> {
        if self.inner.config.protocol_mode == ProtocolMode::Modern {
            return Err(ClientError::Config(
                "initialize_legacy needs the auto or legacy protocol mode".into(),
            ));
        }
        let options = self.inner.merge_capabilities(options.into());
        let _guard = self.inner.connect_lock.lock().await;
        if let Some(current) = self.inner.current() {
            return Ok(current.info.clone());
        }
        let conn = self.inner.initialize(options).await?;
        let info = self.inner.install(conn, true);
        self.inner.listener_opened().await;
        Ok(info)
    }
}

impl Inner {
    async fn probe(
        &self,
        options: &ConnectOptions,
        version: &str,
    ) -> Result<Box<RawValue>, ClientError> {
        let n = self.probe_seq.fetch_add(1, Ordering::Relaxed) + 1;
        let mut call = Call::new("server/discover", Map::new());
        call.id = Some(RequestId::String(format!("server-discover-probe-{n}")));
        let wire = Wire::Modern {
            version,
            client_info: &options.client_info,
            capabilities: &options.capabilities,
        };
        self.send(&wire, &call).await
    }

    pub(super) async fn negotiate(
        &self,
        options: ConnectOptions,
    ) -> Result<Connection, ClientError> {
        let mode = self.config.protocol_mode;
        if mode == ProtocolMode::Legacy {
            return self.legacy_connect(options).await;
        }
        let mut version = MODERN_VERSION.to_owned();
        let mut reprobed = false;
        loop {
            let outcome = self.probe(&options, &version).await;
            match classify(outcome, &version) {
                Verdict::Modern(result, v) => {
                    return Ok(Self::modern_connection(options, *result, v));
                }
                Verdict::Reprobe(v) if !reprobed => {
                    reprobed = true;
                    version = v;
                }
                Verdict::Reprobe(v) => {
                    return Err(ProtocolError::Negotiation {
                        reason: format!("the server rejected version {v}, which it lists"),
                        code: Some(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION),
                        http_status: None,
                    }
                    .into());
                }
                Verdict::Legacy {
                    reason,
                    code,
                    http_status,
                } => {
                    if mode == ProtocolMode::Auto {
                        tracing::debug!(%reason, "falling back to the legacy protocol");
                        return self.legacy_connect(options).await;
                    }
                    return Err(ProtocolError::Negotiation {
                        reason: format!(
                            "the server does not speak MCP {MODERN_VERSION} and the client is pinned to it: {reason}"
                        ),
                        code,
                        http_status,
                    }
                    .into());
                }
                Verdict::Fail(e) => return Err(e),
            }
        }
    }

    fn modern_connection(
        options: ConnectOptions,
        result: DiscoverResult,
        version: String,
    ) -> Connection {
        let server_info = result
            .meta
            .as_ref()
            .and_then(|m| m.get(META_SERVER_INFO))
            .and_then(|v| serde_json::from_value(v.clone()).ok());
        Connection {
            info: ConnectionInfo {
                era: Era::Modern,
                protocol_version: version,
                server_info,
                capabilities: result.capabilities,
                instructions: result.instructions,
                session_id: None,
            },
            options,
            version_header: None,
            generation: 0,
            #[cfg(feature = "otel")]
            timer: None,
        }
    }

    async fn legacy_connect(&self, options: ConnectOptions) -> Result<Connection, ClientError> {
        if options.legacy_initialize {
            return self.initialize(options).await;
        }
        Ok(Connection {
            info: ConnectionInfo {
                era: Era::Legacy,
                protocol_version: DEFAULT_LEGACY_HTTP_VERSION.into(),
                server_info: None,
                capabilities: ServerCapabilities::default(),
                instructions: None,
                session_id: None,
            },
            options,
            version_header: None,
            generation: 0,
            #[cfg(feature = "otel")]
            timer: None,
        })
    }

    /// `initialize`, then `notifications/initialized` on the new session.
    async fn initialize(&self, options: ConnectOptions) -> Result<Connection, ClientError> {
        let params = to_object(InitializeParams {
            protocol_version: LEGACY_VERSIONS[0].into(),
            capabilities: options.capabilities.clone(),
            client_info: options.client_info.clone(),
            meta: None,
        });
        let wire = Wire::Legacy { version: None };
        let reply = self.send(&wire, &Call::new("initialize", params)).await?;
        let result: InitializeResult = parse_result("initialize", &reply, Era::Legacy)?;
        let conn = Connection {
            info: ConnectionInfo {
                era: Era::Legacy,
                protocol_version: result.protocol_version.clone(),
                server_info: Some(result.server_info),
                capabilities: result.capabilities,
                instructions: result.instructions,
                session_id: self.transport.session_id(),
            },
            options,
            version_header: Some(result.protocol_version.clone()),
            generation: 0,
            #[cfg(feature = "otel")]
            timer: None,
        };
        if !serves_legacy_version(&result.protocol_version) {
            if conn.info.session_id.is_some() {
                let _ = self.transport.close(Some(conn.wire().envelope())).await;
            }
            return Err(ProtocolError::UnsupportedVersion(result.protocol_version).into());
        }
        self.notify(&conn.wire(), "notifications/initialized")
            .await?;
        Ok(conn)
    }

    /// Initializes again after the server forgot the session (`404`), once per session.
    pub(super) async fn renew_session(
        &self,
        generation: u64,
    ) -> Result<Arc<Connection>, ClientError> {
        let _guard = self.connect_lock.lock().await;
        let current = self.connection()?;
        if current.generation != generation {
            return Ok(current);
        }
        tracing::debug!("the legacy session expired; initializing again");
        let conn = self.initialize(current.options.clone()).await?;
        self.install(conn, false);
        self.connection()
    }
}
