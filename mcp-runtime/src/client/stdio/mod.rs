//! The stdio transport of the client: the server is a child process spawned from a
//! [`StdioCommand`], and the same [`Client`] API (connect, list, call,
//! elicitation handler, cache) speaks newline-delimited JSON-RPC on its stdin/stdout.
//!
//! - **Serialised exchanges** (seed 004): one request at a time. A call waits for the
//!   exchange ahead of it, and its timeout ([`ClientConfig::timeout`]) starts when it gets
//!   its turn, so waiting in line never counts against it. Time spent in the elicitation
//!   handler does not count either.
//! - **Server→client traffic** is handled while an exchange runs and between exchanges:
//!   `ping` and `elicitation/create` (through the configured handler) are answered, other
//!   requests get `-32601`; `notifications/tools/list_changed` drops the `tools/list`
//!   cache; other notifications are logged. Lines that are not JSON-RPC, responses with an
//!   id nothing awaits and lines over [`StdioCommand::max_line_bytes`] are logged and
//!   skipped.
//! - **Failure**: a server that exits or closes its stdout fails the exchange with
//!   [`ProcessError::Crashed`] (with its exit code or signal when it was reaped in time); a
//!   timeout kills the server ([`TransportError::Timeout`](super::TransportError::Timeout)).
//!   Either ends the session: later calls fail, or — with
//!   [`StdioCommand::auto_respawn`] — the next call starts the server again (same command,
//!   fresh handshake; the server's in-memory state is lost) and runs once on it.
//! - **Shutdown**: [`close`](Client::close) waits for the exchange in
//!   flight, closes the child's stdin, waits up to 2 s for it to exit, then kills it; a
//!   dropped client kills its child (`kill_on_drop`).
//!
//! ```no_run
//! use mcp::client::{StdioCommand, connect_stdio};
//!
//! # async fn run() -> Result<(), mcp::client::ClientError> {
//! let client = connect_stdio(
//!     StdioCommand::new("cargo").args(["run", "--example", "weather", "--", "--stdio"]),
//! )
//! .await?;
//! let result = client
//!     .call("get_current_weather")
//!     .arguments(serde_json::json!({"city": "Oslo"}))?
//!     .await?;
//! println!("{}", result.joined_text());
//! client.close().await?;
//! # Ok(())
//! # }
//! ```

mod process;

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

pub(crate) use process::StdioTransport;

use super::{Client, ClientConfig, ClientError, ConnectOptions, Kind};
use crate::redact;

/// The default cap on one line read from the server: 16 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 16 << 20;

/// How to start an MCP server as a child process: program, arguments, environment and
/// working directory, plus the transport's own settings.
///
/// `Debug`, and the errors and logs that quote the command, show the names of the
/// environment variables set here but not their values, and mask the value of a flag that
/// names a credential (`--api-key ***`, `--token=***`) and a URL argument's password. A
/// secret passed as a bare argument cannot be recognised: pass secrets with
/// [`env`](Self::env).
///
/// ```
/// use mcp::client::StdioCommand;
///
/// let command = StdioCommand::new("npx")
///     .args(["-y", "@modelcontextprotocol/server-everything"])
///     .env("LOG_LEVEL", "debug")
///     .current_dir("/tmp")
///     .auto_respawn(true);
/// assert_eq!(command.program(), "npx");
/// ```
#[derive(Clone)]
#[must_use]
pub struct StdioCommand {
    pub(crate) program: OsString,
    pub(crate) args: Vec<OsString>,
    pub(crate) env: Vec<(OsString, OsString)>,
    pub(crate) env_clear: bool,
    pub(crate) cwd: Option<PathBuf>,
    pub(crate) auto_respawn: bool,
    pub(crate) max_line_bytes: usize,
    pub(crate) inherit_stderr: bool,
}

impl StdioCommand {
    /// Runs `program` (looked up on `PATH` when it has no slash), inheriting this process's
    /// environment and working directory, with the child's stderr inherited.
    pub fn new(program: impl Into<OsString>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            env_clear: false,
            cwd: None,
            auto_respawn: false,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            inherit_stderr: true,
        }
    }

    /// The program.
    pub fn program(&self) -> &std::ffi::OsStr {
        &self.program
    }

    /// Adds one argument.
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Adds arguments.
    pub fn args(mut self, args: impl IntoIterator<Item = impl Into<OsString>>) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable of the child.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Starts the child with an empty environment (plus the variables set with
    /// [`env`](Self::env)).
    pub fn env_clear(mut self) -> Self {
        self.env_clear = true;
        self
    }

    /// The child's working directory.
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// When the server crashed or was stopped after a timeout, the next call starts it
    /// again (same command, fresh handshake) instead of failing. Off by default.
    pub fn auto_respawn(mut self, respawn: bool) -> Self {
        self.auto_respawn = respawn;
        self
    }

    /// The longest line read from the server (16 MiB by default); a longer one is logged
    /// and skipped without being kept in memory.
    pub fn max_line_bytes(mut self, bytes: usize) -> Self {
        self.max_line_bytes = bytes;
        self
    }

    /// Discards the child's stderr instead of inheriting it.
    pub fn discard_stderr(mut self) -> Self {
        self.inherit_stderr = false;
        self
    }

    /// The arguments, with the values of flags like `--api-key` masked.
    fn shown_args(&self) -> Vec<std::borrow::Cow<'_, str>> {
        redact::args(self.args.iter().map(|a| a.to_string_lossy()))
    }

    /// The command line for messages, with the values of flags like `--api-key` masked.
    fn display(&self) -> String {
        let mut s = self.program.to_string_lossy().into_owned();
        for a in self.shown_args() {
            s.push(' ');
            s.push_str(&a);
        }
        s
    }
}

impl std::fmt::Debug for StdioCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StdioCommand")
            .field("program", &self.program)
            .field("args", &self.shown_args())
            .field("env", &redact::Names::new(self.env.iter().map(|(k, _)| k)))
            .field("env_clear", &self.env_clear)
            .field("cwd", &self.cwd)
            .field("auto_respawn", &self.auto_respawn)
            .field("max_line_bytes", &self.max_line_bytes)
            .field("inherit_stderr", &self.inherit_stderr)
            .finish()
    }
}

/// The server process of a stdio client failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProcessError {
    /// The command could not be started.
    #[error("cannot start the MCP server `{command}`")]
    Spawn {
        /// The command line.
        command: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The server exited or closed its stdout. `exit_code` and `signal` are `None` when it
    /// had not been reaped within a short settle window (it is then killed).
    #[error("the MCP server process {}{}", crash_cause(*.exit_code, *.signal), respawn_hint(*.auto_respawn))]
    Crashed {
        /// The exit code, when it exited on its own.
        exit_code: Option<i32>,
        /// The signal that killed it (Unix).
        signal: Option<i32>,
        /// Whether the next call respawns it.
        auto_respawn: bool,
    },
    /// The server was stopped after an exchange timed out.
    #[error("the MCP server process was stopped after a request timed out{}", respawn_hint(*.auto_respawn))]
    Stopped {
        /// Whether the next call respawns it.
        auto_respawn: bool,
    },
}

fn crash_cause(exit_code: Option<i32>, signal: Option<i32>) -> String {
    match (exit_code, signal) {
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => "closed its stdout".into(),
    }
}

fn respawn_hint(auto_respawn: bool) -> &'static str {
    if auto_respawn {
        "; the next call respawns it"
    } else {
        "; the session is over (enable StdioCommand::auto_respawn to respawn it on the next call)"
    }
}

impl Client {
    /// A client of the MCP server started by `command`, over its stdin/stdout. The process
    /// starts with the first exchange ([`connect`](Self::connect)); everything else — eras,
    /// the elicitation handler, the cache, [`ClientConfig::timeout`] per exchange — works
    /// as over HTTP (HTTP-only settings are ignored). See [the module docs](crate::client::stdio).
    pub fn stdio(command: StdioCommand, config: ClientConfig) -> Result<Self, ClientError> {
        if command.max_line_bytes == 0 {
            return Err(ClientError::Config(
                "max_line_bytes must be positive".into(),
            ));
        }
        let timeout = config.http.timeout;
        Ok(Self::build(Kind::Stdio, config, |peer| {
            Arc::new(StdioTransport::new(command, peer, timeout))
        }))
    }

    /// `true` for a client of a child process ([`stdio`](Self::stdio)).
    pub fn is_stdio(&self) -> bool {
        self.inner.kind == Kind::Stdio
    }
}

/// Starts the server `command` and connects to it over stdio with the defaults (auto era,
/// no elicitation handler): [`Client::stdio`] then
/// [`connect`](Client::connect).
pub async fn connect_stdio(command: StdioCommand) -> Result<Client, ClientError> {
    let client = Client::stdio(command, ClientConfig::new())?;
    client.connect(ConnectOptions::default()).await?;
    Ok(client)
}
