//! The stdio transport: newline-delimited JSON-RPC on stdin/stdout (or any reader/writer
//! pair), for servers launched as a child process by a desktop or IDE client.
//!
//! - **Framing**: one message per line, `\n`-terminated, a trailing `\r` ignored, blank
//!   lines skipped; a last line without a newline at end of input is still read. Only
//!   protocol lines are ever written to the output; logs go through `tracing` (configure
//!   your subscriber to write to stderr).
//! - **Era**: decided by the first message, as the TypeScript SDK's `serveStdio` does: a
//!   request whose `_meta` claims the modern protocol pins the modern era, `initialize` (or
//!   any claim-less message) pins the legacy era, and a modern `server/discover` first is a
//!   probe that does not pin (a client may follow it with `initialize`). On a modern
//!   connection a claim-less request is answered `-32022`. A legacy-only server serves
//!   everything as legacy; a modern-only one answers legacy openings `-32022`.
//! - **Robustness**: a line over [`StdioConfig::max_frame_bytes`] (16 MiB by default) is
//!   answered `-32600` without being parsed or kept; a line that is not JSON `-32700`; a
//!   JSON value that is not a JSON-RPC message `-32600`; a batch `-32600`. None of them
//!   ends the transport. Handler failures are `-32603 Internal error` with the detail in
//!   the log. Requests are served concurrently, at most
//!   [`StdioConfig::max_in_flight`] at once; when the client stops reading, the output
//!   queue fills, then the requests in flight, then the server stops reading its input:
//!   memory stays bounded.
//! - **Shutdown**: end of input stops reading, fails the server→client requests awaiting
//!   an answer, waits for the requests in flight to be answered, and returns. A closed
//!   output stops the requests in flight and returns. Neither is an error.
//! - **Server→client requests** (the legacy elicitation shim) are real JSON-RPC requests
//!   on the output, with ids `mcp-server-N`; the client's responses are matched by id, and
//!   a response to nothing awaited is logged and dropped. `notifications/cancelled` stops
//!   the request it names, which is then not answered.
//! - **Sessions**: a legacy connection of a service with a session store is one session,
//!   created by `initialize`, refreshed by each request and deleted when the connection
//!   ends, so tools taking [`Session`](crate::Session) work over stdio too.
//! - **Transport data**: there is no HTTP request, and nothing pretends to be one:
//!   [`RequestContext::headers`](crate::RequestContext::headers) is `None`, an
//!   `http::HeaderMap` parameter is empty, `x-mcp-header` arguments are not cross-checked
//!   (the body is the only signal), and a tool binding `http::request::Parts` is refused
//!   with `-32600`. OAuth-protected services cannot be served over stdio.

mod link;
mod listen;
pub(super) mod output;

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt as _;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{Semaphore, mpsc};
use tokio_util::sync::CancellationToken;

use crate::base::Caller;
use crate::base::frame::{self, Frame, FrameReader, Source};
use crate::dispatch::{
    ClientChannel, LogLevel, McpRequest, ProtocolMode, Reply, Server, TransportKind,
};
use crate::error::Error;
use crate::protocol::{
    CallToolParams, ClientCapabilities, Era, ErrorCode, ErrorObject, Implementation,
    InitializeParams, LEGACY_VERSIONS, Message, Notification, Request, RequestEnvelope, RequestId,
    negotiate_legacy_version, serves_modern_version,
};
use crate::redact::Redacted;
use crate::session::{Owner, SessionInfo};
use link::Link;
use output::Sink;

/// The default cap on one incoming line: 16 MiB.
pub const DEFAULT_MAX_FRAME_BYTES: usize = 16 << 20;
/// The default number of requests served at once.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 64;
/// Lines queued for the output before the request tasks wait.
const OUTPUT_QUEUE: usize = 64;

/// Settings of the stdio transport.
#[derive(Clone, Copy, Debug)]
#[must_use = "a configuration does nothing until it is given to `serve_stdio_with`"]
pub struct StdioConfig {
    pub(crate) max_frame_bytes: usize,
    max_in_flight: usize,
}

impl Default for StdioConfig {
    fn default() -> Self {
        Self {
            max_frame_bytes: DEFAULT_MAX_FRAME_BYTES,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
        }
    }
}

impl StdioConfig {
    /// The defaults: 16 MiB lines, 64 requests in flight.
    pub fn new() -> Self {
        Self::default()
    }

    /// The longest line accepted (without its line ending); a longer one is answered
    /// `-32600` without being parsed.
    pub fn max_frame_bytes(mut self, bytes: usize) -> Self {
        self.max_frame_bytes = bytes;
        self
    }

    /// How many requests are served at once; when they are all busy, the transport stops
    /// reading until one finishes.
    pub fn max_in_flight(mut self, requests: usize) -> Self {
        self.max_in_flight = requests;
        self
    }

    pub(crate) fn validate(&self) -> Result<(), Error> {
        if self.max_frame_bytes == 0 {
            return Err(Error::Config("max_frame_bytes must be positive".into()));
        }
        if self.max_in_flight == 0 || self.max_in_flight > Semaphore::MAX_PERMITS / 2 {
            return Err(Error::Config(
                "max_in_flight must be positive and reasonable".into(),
            ));
        }
        Ok(())
    }
}

impl Server {
    /// Serves MCP on the process's stdin and stdout until stdin ends (or stdout closes),
    /// with the default [`StdioConfig`]. See [the module docs](crate::transport::stdio).
    ///
    /// ```no_run
    /// struct Echo;
    ///
    /// #[mcp::service(name = "echo", version = "1.0.0")]
    /// impl Echo {
    ///     /// Echoes its input.
    ///     pub async fn echo(&self, text: String) -> String {
    ///         text
    ///     }
    /// }
    ///
    /// #[tokio::main]
    /// async fn main() -> Result<(), mcp::Error> {
    ///     mcp::Server::builder(Echo).build()?.serve_stdio().await
    /// }
    /// ```
    pub async fn serve_stdio(self) -> Result<(), Error> {
        self.serve_stdio_with(StdioConfig::default()).await
    }

    /// [`serve_stdio`](Self::serve_stdio) with explicit settings.
    pub async fn serve_stdio_with(self, config: StdioConfig) -> Result<(), Error> {
        config.validate()?;
        self.check_stdio()?;
        let source = frame::stdin_thread()?;
        let sink = output::stdout_thread()?;
        let input = Input::Lines(FrameReader::new(source, config.max_frame_bytes));
        serve(self, input, sink, config).await
    }

    /// Serves MCP over any reader/writer pair (a pipe, a socket, an in-memory duplex in
    /// tests), framed as on stdio, until the reader ends or the writer fails.
    pub async fn serve_transport<R, W>(self, reader: R, writer: W) -> Result<(), Error>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        self.serve_transport_with(reader, writer, StdioConfig::default())
            .await
    }

    /// [`serve_transport`](Self::serve_transport) with explicit settings.
    pub async fn serve_transport_with<R, W>(
        self,
        reader: R,
        writer: W,
        config: StdioConfig,
    ) -> Result<(), Error>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        config.validate()?;
        self.check_stdio()?;
        let source = Source::Async(Box::new(reader));
        let sink = Sink::Async(Box::new(writer));
        let input = Input::Lines(FrameReader::new(source, config.max_frame_bytes));
        serve(self, input, sink, config).await
    }

    pub(super) fn check_stdio(&self) -> Result<(), Error> {
        #[cfg(feature = "oauth")]
        if self.guard().is_some() {
            return Err(Error::Config(
                "an OAuth- or listener-protected service cannot be served over stdio, which carries no credentials"
                    .into(),
            ));
        }
        Ok(())
    }
}

/// Where a connection's messages come from: lines (stdio, any reader), or whole messages
/// (the in-process pipe).
pub(super) enum Input {
    /// Newline-delimited lines.
    Lines(FrameReader),
    /// Whole messages, at most `max` bytes each.
    Messages(crate::base::pipe::PipeReceiver, usize),
}

impl Input {
    /// The next message; `None` at end of input.
    async fn next(&mut self) -> std::io::Result<Option<Frame>> {
        match self {
            Self::Lines(reader) => reader.next().await,
            Self::Messages(rx, max) => Ok(rx.recv().await.map(|m| {
                if m.len() > *max {
                    Frame::TooLong { len: m.len() }
                } else {
                    Frame::Line(m.into_bytes())
                }
            })),
        }
    }
}

/// Serves one connection: reads messages from `input` until it ends (or `sink` fails),
/// answering on `sink`.
pub(super) async fn serve(
    server: Server,
    mut reader: Input,
    sink: Sink,
    config: StdioConfig,
) -> Result<(), Error> {
    let (tx, rx) = mpsc::channel(OUTPUT_QUEUE);
    let finish = CancellationToken::new();
    let closed = CancellationToken::new();
    let kind = match sink {
        Sink::Pipe(_) => TransportKind::InProcess,
        Sink::Async(_) | Sink::Thread(..) => TransportKind::Stdio,
    };
    let writer = tokio::spawn(output::write_loop(rx, sink, finish.clone(), closed.clone()));
    let link = Arc::new(Link::new(tx));
    let permits = Arc::new(Semaphore::new(config.max_in_flight));
    let mut conn = Connection::new(server, Arc::clone(&link), Arc::clone(&permits), kind);
    #[cfg(feature = "otel")]
    let started = std::time::Instant::now();
    #[cfg(feature = "otel")]
    let mut failed = None;
    loop {
        let frame = tokio::select! {
            biased;
            () = closed.cancelled() => break,
            frame = reader.next() => frame,
        };
        match frame {
            Ok(None) => {
                tracing::debug!("the input ended");
                break;
            }
            Err(e) => {
                tracing::warn!(error = %e, "reading the input failed; stopping");
                #[cfg(feature = "otel")]
                {
                    failed = Some("transport");
                }
                break;
            }
            Ok(Some(Frame::TooLong { len })) => {
                tracing::warn!(
                    len,
                    limit = config.max_frame_bytes,
                    "refusing an oversized message"
                );
                let error = ErrorObject::new(
                    ErrorCode::INVALID_REQUEST,
                    format!(
                        "Invalid Request: the message exceeds the limit of {} bytes",
                        config.max_frame_bytes
                    ),
                );
                link.send_error(None, error).await;
            }
            Ok(Some(Frame::Line(line))) => conn.on_line(&line).await,
        }
    }
    link.close_input();
    for listen in conn.listens.drain(..).chain(conn.unsolicited.take()) {
        listen.abort();
    }
    if closed.is_cancelled() {
        link.abort_all();
    }
    // Every task holds a permit until its answer is queued (or it is stopped).
    let all = u32::try_from(config.max_in_flight).unwrap_or(u32::MAX);
    let _drained = permits.acquire_many(all).await;
    conn.end_session().await;
    #[cfg(feature = "otel")]
    if let Some(observed) = conn.server.observed() {
        let in_process = kind == TransportKind::InProcess;
        observed.connection_closed(started.elapsed(), conn.version(), in_process, failed);
    }
    drop(conn);
    drop(link);
    finish.cancel();
    if let Err(e) = writer.await {
        tracing::error!(error = %e, "the stdio writer failed");
    }
    tracing::debug!("stdio transport stopped");
    Ok(())
}

/// The era a connection is pinned to.
enum Pin {
    /// Nothing served yet.
    Open,
    /// A modern `server/discover` was answered; the next request decides.
    Probe,
    /// Legacy: the `initialize` data.
    Legacy(Arc<LegacyState>),
    /// Modern.
    Modern,
}

struct LegacyState {
    version: Arc<str>,
    capabilities: Arc<ClientCapabilities>,
    client_info: Option<Arc<Implementation>>,
    /// The connection's legacy session (services with a session store): one per
    /// `initialize`, deleted when the connection ends.
    session: Option<Arc<str>>,
}

impl LegacyState {
    fn before_initialize() -> Self {
        Self {
            version: LEGACY_VERSIONS[0].into(),
            capabilities: Arc::default(),
            client_info: None,
            session: None,
        }
    }
}

/// How one request is served.
enum Route {
    Modern(Box<RequestEnvelope>),
    Legacy(Arc<LegacyState>),
    Initialize,
    Refuse(ErrorObject),
}

/// The reader side of one connection: decodes lines, pins the era, starts request tasks.
struct Connection {
    server: Server,
    link: Arc<Link>,
    permits: Arc<Semaphore>,
    pin: Pin,
    /// The open `subscriptions/listen` tasks, stopped when the input ends.
    listens: Vec<tokio::task::AbortHandle>,
    /// A legacy connection's unsolicited notifications.
    unsolicited: Option<tokio::task::AbortHandle>,
    /// The caller its listens and its anonymous requests are charged to: the connection.
    caller: Caller,
    /// stdio, or in-process.
    kind: TransportKind,
}

impl Connection {
    fn new(server: Server, link: Arc<Link>, permits: Arc<Semaphore>, kind: TransportKind) -> Self {
        Self {
            server,
            link,
            permits,
            pin: Pin::Open,
            listens: Vec::new(),
            unsolicited: None,
            caller: Caller::connection(),
            kind,
        }
    }

    async fn on_line(&mut self, line: &[u8]) {
        // Most lines are one request: read it without a `Value` for the whole message,
        // lifting a modern envelope out of `_meta` (not on a legacy connection, whose
        // handlers see `_meta` as sent) and a `tools/call`'s params typed.
        let lift = self.server.protocol_mode() != ProtocolMode::Legacy
            && !matches!(self.pin, Pin::Legacy(_));
        if let Some(read) = crate::protocol::wire::read(line, lift) {
            return match read.message {
                Message::Request(r) => self.on_request(r, read.envelope, read.call).await,
                Message::Notification(n) => self.on_notification(&n),
                Message::Response(r) => self.link.deliver(r),
            };
        }
        let value: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                tracing::debug!(error = %e, "a line is not JSON");
                let error = ErrorObject::new(ErrorCode::PARSE_ERROR, "Parse error");
                self.link.send_error(None, error).await;
                return;
            }
        };
        if value.is_array() {
            let error = ErrorObject::new(
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: batches are not supported over stdio",
            );
            self.link.send_error(None, error).await;
            return;
        }
        let id = Message::peek_id(&value);
        match Message::from_value(value) {
            Err(e) => {
                tracing::debug!(error = %e, "invalid JSON-RPC message");
                let error = ErrorObject::new(
                    ErrorCode::INVALID_REQUEST,
                    "Invalid Request: not a valid JSON-RPC message",
                );
                self.link.send_error(id, error).await;
            }
            Ok(Message::Response(r)) => self.link.deliver(r),
            Ok(Message::Notification(n)) => self.on_notification(&n),
            Ok(Message::Request(r)) => self.on_request(r, None, None).await,
        }
    }

    fn on_notification(&self, n: &Notification) {
        #[cfg(feature = "otel")]
        if let Some(observed) = self.server.observed() {
            let network = crate::dispatch::network_of(self.kind, None);
            observed.notification(&n.method, n.params.as_ref(), self.version(), &network, None);
        }
        if n.method != "notifications/cancelled" {
            tracing::trace!(method = %n.method, "notification");
            return;
        }
        let id = n
            .params
            .as_ref()
            .and_then(|p| p.get("requestId"))
            .and_then(|v| serde_json::from_value::<RequestId>(v.clone()).ok());
        match id {
            Some(id) if self.link.cancel(&id) => tracing::debug!(%id, "request cancelled"),
            Some(id) => tracing::debug!(%id, "a cancellation names no request in flight"),
            None => tracing::debug!("a cancellation without a valid requestId"),
        }
    }

    /// Decides the era of a request, pinning the connection on its first one. `lifted` is
    /// the envelope the fast read already took out of `_meta`.
    fn route(&mut self, request: &Request, lifted: Option<RequestEnvelope>) -> Route {
        let mode = self.server.protocol_mode();
        let params = request.params.as_ref();
        if mode == ProtocolMode::Legacy {
            return self.legacy_route(request);
        }
        if let Pin::Legacy(_) = self.pin {
            return self.legacy_route(request);
        }
        if lifted.is_some() || RequestEnvelope::has_claim(params) {
            let parsed = match lifted {
                Some(envelope) => Ok(envelope),
                None => RequestEnvelope::parse(params),
            };
            let envelope = match parsed {
                Ok(e) => e,
                Err(e) => {
                    return Route::Refuse(
                        ErrorObject::new(ErrorCode::INVALID_PARAMS, e.message())
                            .with_data(e.data()),
                    );
                }
            };
            if !serves_modern_version(&envelope.protocol_version) {
                return refuse_version(Some(&envelope.protocol_version));
            }
            if request.method != "initialize" {
                self.pin = match (&self.pin, request.method.as_str()) {
                    (Pin::Open, "server/discover") => Pin::Probe,
                    _ => Pin::Modern,
                };
                return Route::Modern(Box::new(envelope));
            }
        }
        // A claim-less request (or an initialize whose claim is not modern).
        if mode == ProtocolMode::Modern || matches!(self.pin, Pin::Modern) {
            let requested = (request.method == "initialize")
                .then(|| params?.get("protocolVersion")?.as_str())
                .flatten();
            return refuse_version(requested);
        }
        self.legacy_route(request)
    }

    fn legacy_route(&mut self, request: &Request) -> Route {
        if request.method == "initialize" {
            return Route::Initialize;
        }
        match &self.pin {
            Pin::Legacy(state) => Route::Legacy(Arc::clone(state)),
            _ => {
                let state = Arc::new(LegacyState::before_initialize());
                self.pin = Pin::Legacy(Arc::clone(&state));
                Route::Legacy(state)
            }
        }
    }

    async fn on_request(
        &mut self,
        request: Request,
        lifted: Option<RequestEnvelope>,
        call: Option<Box<CallToolParams>>,
    ) {
        let core = match self.route(&request, lifted) {
            Route::Refuse(error) => {
                self.link
                    .send_reply(&request.id, &Reply::in_band(error))
                    .await;
                return;
            }
            Route::Initialize => return self.initialize(request).await,
            Route::Modern(envelope) if request.method == "subscriptions/listen" => {
                self.listens.retain(|h| !h.is_finished());
                let tasks = crate::protocol::declares_tasks(&envelope.client_capabilities);
                if let Some(h) = listen::serve(
                    &self.server,
                    &self.link,
                    &self.caller,
                    self.kind,
                    request,
                    tasks,
                )
                .await
                {
                    self.listens.push(h);
                }
                return;
            }
            Route::Modern(envelope) => {
                let envelope = *envelope;
                let level = envelope.log_level.as_deref().and_then(LogLevel::parse);
                McpRequest::new(request, Era::Modern, &envelope.protocol_version)
                    .with_client(
                        crate::dispatch::capabilities_of(envelope.client_capabilities),
                        envelope.client_info.map(Arc::new),
                    )
                    .with_log_level(level)
            }
            Route::Legacy(state) => McpRequest::new(request, Era::Legacy, &state.version)
                .with_client(Arc::clone(&state.capabilities), state.client_info.clone()),
        };
        let core = core
            .with_call_params(call)
            .with_transport(self.kind, Some(self.caller.clone()));
        let Ok(permit) = Arc::clone(&self.permits).acquire_owned().await else {
            return;
        };
        let server = self.server.clone();
        let link = Arc::clone(&self.link);
        let id = core.id().clone();
        let era = core.era();
        let session = match &self.pin {
            Pin::Legacy(state) if era == Era::Legacy => state.session.clone(),
            _ => None,
        };
        self.link.register(id.clone(), move |ticket| {
            tokio::spawn(async move {
                let session = match session {
                    Some(session) => open_session(&server, &session).await,
                    None => None,
                };
                // Aborting the task (a `notifications/cancelled`) drops this guard too.
                let cancel = CancellationToken::new();
                let _cancel_on_drop = cancel.clone().drop_guard();
                // Legacy requests may ask the client (the elicitation shim): the connection
                // carries the answers.
                let core = core
                    .with_session(session)
                    .with_channel(link.clone() as Arc<dyn ClientChannel>, era == Era::Legacy)
                    .with_cancel(cancel);
                let reply = AssertUnwindSafe(server.serve(core))
                    .catch_unwind()
                    .await
                    .map_or_else(
                        |_| {
                            tracing::error!("serving a request panicked");
                            internal_error()
                        },
                        crate::dispatch::McpResponse::into_reply,
                    );
                // Aborting stops the task only at its next await: the reply is written
                // only if no cancellation was accepted before it.
                if link.finished(&ticket) {
                    link.send_reply(&id, &reply).await;
                }
                drop(permit);
            })
            .abort_handle()
        });
    }

    /// `initialize`, answered in order (later requests see its outcome): on success the
    /// connection is legacy with the negotiated version and the declared capabilities.
    async fn initialize(&mut self, request: Request) {
        let params = request
            .params
            .clone()
            .and_then(|p| serde_json::from_value::<InitializeParams>(Value::Object(p)).ok());
        let id = request.id.clone();
        let core = McpRequest::new(request, Era::Legacy, LEGACY_VERSIONS[0])
            .with_transport(self.kind, Some(self.caller.clone()));
        let reply = self.server.serve(core).await.into_reply();
        if let (Reply::Ok(_), Some(params)) = (&reply, params) {
            self.end_session().await;
            let version = negotiate_legacy_version(&params.protocol_version);
            let session = self
                .create_session(version, serde_json::to_value(&params.capabilities))
                .await;
            if let Some(previous) = self.unsolicited.take() {
                previous.abort();
            }
            self.unsolicited = Some(listen::unsolicited(
                &self.server,
                &self.link,
                session.clone(),
            ));
            self.pin = Pin::Legacy(Arc::new(LegacyState {
                version: version.into(),
                capabilities: Arc::new(params.capabilities),
                client_info: Some(Arc::new(params.client_info)),
                session,
            }));
        }
        self.link.send_reply(&id, &reply).await;
    }

    async fn create_session(
        &self,
        version: &str,
        capabilities: serde_json::Result<Value>,
    ) -> Option<Arc<str>> {
        let store = self.server.session_store()?;
        let info = SessionInfo {
            protocol_version: version.to_owned(),
            client_capabilities: capabilities.unwrap_or(Value::Null),
        };
        let limits = self.server.session_limits();
        match store.create(&Owner::Anonymous, info, &limits).await {
            Ok(created) => {
                for evicted in &created.evicted {
                    self.server.streams().close(evicted);
                }
                tracing::debug!(
                    session = %Redacted::fingerprint(&created.id),
                    "stdio session created"
                );
                Some(created.id.into())
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot create the stdio connection's session");
                None
            }
        }
    }

    /// Deletes the connection's session, if it has one.
    /// The protocol version the connection is pinned to, once it is.
    #[cfg(feature = "otel")]
    fn version(&self) -> Option<&str> {
        match &self.pin {
            Pin::Legacy(state) => Some(&state.version),
            Pin::Modern => Some(crate::protocol::MODERN_VERSION),
            Pin::Open | Pin::Probe => None,
        }
    }

    async fn end_session(&mut self) {
        let Pin::Legacy(state) = &self.pin else {
            return;
        };
        let (Some(id), Some(store)) = (&state.session, self.server.session_store()) else {
            return;
        };
        if let Err(e) = store.delete(id, &Owner::Anonymous).await {
            tracing::warn!(error = %e, "cannot delete the stdio connection's session");
        }
    }
}

/// Opens the connection's session for one request (refreshing its idle timer); `None`
/// when it expired or the store failed.
async fn open_session(server: &Server, id: &str) -> Option<crate::session::Session> {
    let store = server.session_store()?;
    match store
        .open(id, &Owner::Anonymous, &server.session_limits())
        .await
    {
        Ok(Some(_)) => server.session_handle(id),
        Ok(None) => {
            tracing::debug!(session = %Redacted::fingerprint(id), "the stdio session expired");
            None
        }
        Err(e) => {
            tracing::warn!(error = %e, "cannot open the stdio connection's session");
            None
        }
    }
}

fn refuse_version(requested: Option<&str>) -> Route {
    match crate::dispatch::unsupported_version(requested) {
        Reply::Err { error, .. } => Route::Refuse(error),
        _ => Route::Refuse(internal_error_object()),
    }
}

fn internal_error_object() -> ErrorObject {
    ErrorObject::new(ErrorCode::INTERNAL_ERROR, "Internal error")
}

fn internal_error() -> Reply {
    Reply::in_band(internal_error_object())
}
