//! The child process of a stdio client: spawning it, line framing over its pipes (the
//! message stream itself is the shared [`Link`]), crash detection, the stop after a
//! timeout, and shutdown.

use std::process::Stdio;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::Value;
use serde_json::value::RawValue;
use tokio::io::AsyncWriteExt as _;
use tokio::process::{Child, ChildStdin};
use tokio::time::Instant;

use super::{ProcessError, StdioCommand};
use crate::base::BoxFuture;
use crate::base::frame::{Frame, FrameReader, Source};
use crate::client::transport::link::{Closed, Inbox, Link, LinkError, Outbox};
use crate::client::transport::{Envelope, Message, Peer, Transport};
use crate::client::{ClientError, TransportError};
use crate::protocol::{Era, RequestId};

/// How long a server that closed its stdout has to exit before it is killed.
const SETTLE: Duration = Duration::from_millis(500);
/// How long `close` waits for the server to exit after its stdin is closed.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// Why the last process ended without being closed.
#[derive(Clone, Copy, Debug)]
enum Ended {
    Crashed {
        exit_code: Option<i32>,
        signal: Option<i32>,
    },
    TimedOut,
}

/// The child's stdin, one line per message; `None` once closed.
struct Stdin(tokio::sync::Mutex<Option<ChildStdin>>);

impl Outbox for Stdin {
    fn send(&self, message: String) -> BoxFuture<'_, Result<(), Closed>> {
        Box::pin(async move {
            let mut line = message.into_bytes();
            line.push(b'\n');
            let mut guard = self.0.lock().await;
            let stdin = guard.as_mut().ok_or(Closed)?;
            stdin.write_all(&line).await.map_err(|_| Closed)?;
            stdin.flush().await.map_err(|_| Closed)
        })
    }
}

/// The child's stdout, one message per line; oversized lines are logged and skipped.
struct Stdout(FrameReader);

impl Inbox for Stdout {
    fn next(&mut self) -> BoxFuture<'_, Option<Vec<u8>>> {
        Box::pin(async move {
            loop {
                match self.0.next().await {
                    Ok(Some(Frame::Line(line))) => return Some(line),
                    Ok(Some(Frame::TooLong { len })) => {
                        tracing::warn!(len, "the MCP server wrote an oversized line; skipping it");
                    }
                    Ok(None) => return None,
                    Err(e) => {
                        tracing::debug!(error = %e, "reading the MCP server's stdout failed");
                        return None;
                    }
                }
            }
        })
    }
}

struct Process {
    child: Child,
    stdin: Arc<Stdin>,
    link: Link,
}

enum Slot {
    /// Not started yet (or closed): the next exchange starts it.
    Idle,
    Running(Box<Process>),
    /// Crashed or stopped; see `StdioTransport::ended`.
    Down,
}

/// The stdio transport of one client.
pub(crate) struct StdioTransport {
    command: StdioCommand,
    peer: Peer,
    timeout: Duration,
    /// The exchange lock: held for a whole exchange.
    slot: tokio::sync::Mutex<Slot>,
    ended: Mutex<Option<Ended>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl StdioTransport {
    /// A transport that starts `command` with its first message; what the server sends
    /// goes to `peer`; each exchange has `timeout`.
    pub(crate) fn new(command: StdioCommand, peer: Peer, timeout: Duration) -> Self {
        Self {
            command,
            peer,
            timeout,
            slot: tokio::sync::Mutex::new(Slot::Idle),
            ended: Mutex::new(None),
        }
    }

    fn down_error(&self) -> ClientError {
        let auto_respawn = self.command.auto_respawn;
        match *lock(&self.ended) {
            Some(Ended::Crashed { exit_code, signal }) => ProcessError::Crashed {
                exit_code,
                signal,
                auto_respawn,
            },
            _ => ProcessError::Stopped { auto_respawn },
        }
        .into()
    }

    fn spawn(&self) -> Result<Process, ProcessError> {
        let c = &self.command;
        let mut cmd = tokio::process::Command::new(&c.program);
        cmd.args(&c.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if c.inherit_stderr {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .kill_on_drop(true);
        if c.env_clear {
            cmd.env_clear();
        }
        cmd.envs(c.env.iter().map(|(k, v)| (k, v)));
        if let Some(dir) = &c.cwd {
            cmd.current_dir(dir);
        }
        let spawn_error = |source| ProcessError::Spawn {
            command: c.display(),
            source,
        };
        let mut child = cmd.spawn().map_err(spawn_error)?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(spawn_error(std::io::Error::other("the child has no pipes")));
        };
        tracing::debug!(command = %c.display(), pid = child.id(), "started the MCP server");
        let stdin = Arc::new(Stdin(tokio::sync::Mutex::new(Some(stdin))));
        let stdout = Stdout(FrameReader::new(
            Source::Async(Box::new(stdout)),
            c.max_line_bytes,
        ));
        let link = Link::start(
            Arc::clone(&stdin) as Arc<dyn Outbox>,
            stdout,
            self.peer.clone(),
        );
        Ok(Process { child, stdin, link })
    }

    /// The running process, started if needed; `Err` when it is down.
    fn running<'a>(&self, slot: &'a mut Slot) -> Result<&'a mut Process, ClientError> {
        if let Slot::Idle = slot {
            *slot = Slot::Running(Box::new(self.spawn()?));
        }
        match slot {
            Slot::Running(p) => Ok(p),
            _ => Err(self.down_error()),
        }
    }

    /// Sends a notification (or a response) line, within the timeout.
    async fn send(&self, body: &Value) -> Result<(), ClientError> {
        let mut slot = self.slot.lock().await;
        let deadline = Instant::now() + self.timeout;
        let process = self.running(&mut slot)?;
        match process.link.send(body, deadline).await {
            Ok(()) => Ok(()),
            Err(LinkError::Timeout) => Err(self.stop(&mut slot).await),
            Err(LinkError::Closed) => Err(self.crashed(&mut slot).await),
        }
    }

    /// One request/response exchange. Waits for its turn; the timeout runs from then.
    async fn exchange(&self, body: &Value, id: &RequestId) -> Result<Box<RawValue>, ClientError> {
        let mut slot = self.slot.lock().await;
        let process = self.running(&mut slot)?;
        match process.link.exchange(body, id, self.timeout).await {
            Ok(outcome) => outcome,
            Err(LinkError::Timeout) => Err(self.stop(&mut slot).await),
            Err(LinkError::Closed) => Err(self.crashed(&mut slot).await),
        }
    }

    /// The exchange timed out: the session is over (no answer can be trusted any more).
    async fn stop(&self, slot: &mut Slot) -> ClientError {
        let timeout = self.timeout;
        if let Slot::Running(mut p) = std::mem::replace(slot, Slot::Down) {
            tracing::warn!(
                ?timeout,
                "the MCP server did not answer in time; stopping it"
            );
            kill(&mut p.child).await;
        }
        *lock(&self.ended) = Some(Ended::TimedOut);
        TransportError::Timeout(timeout).into()
    }

    /// The server closed its stdout or stdin: reap it (briefly) and report how it ended.
    async fn crashed(&self, slot: &mut Slot) -> ClientError {
        let (mut exit_code, mut signal) = (None, None);
        if let Slot::Running(mut p) = std::mem::replace(slot, Slot::Down) {
            match tokio::time::timeout(SETTLE, p.child.wait()).await {
                Ok(Ok(status)) => {
                    exit_code = status.code();
                    signal = exit_signal(status);
                }
                _ => kill(&mut p.child).await,
            }
        }
        tracing::warn!(?exit_code, ?signal, "the MCP server process ended");
        *lock(&self.ended) = Some(Ended::Crashed { exit_code, signal });
        ProcessError::Crashed {
            exit_code,
            signal,
            auto_respawn: self.command.auto_respawn,
        }
        .into()
    }

    /// Waits for the exchange in flight, closes the server's stdin, gives it
    /// [`CLOSE_GRACE`] to exit, then kills it. The next exchange starts a new one.
    async fn shutdown(&self) {
        let mut slot = self.slot.lock().await;
        if let Slot::Running(mut p) = std::mem::replace(&mut *slot, Slot::Idle) {
            p.stdin.0.lock().await.take();
            match tokio::time::timeout(CLOSE_GRACE, p.child.wait()).await {
                Ok(Ok(status)) => tracing::debug!(%status, "the MCP server exited"),
                _ => {
                    tracing::debug!(
                        "the MCP server did not exit after its stdin closed; killing it"
                    );
                    kill(&mut p.child).await;
                }
            }
        }
        *slot = Slot::Idle;
        lock(&self.ended).take();
    }
}

impl Transport for StdioTransport {
    fn request<'a>(
        &'a self,
        message: Message<'a>,
        _peer: &'a Peer,
    ) -> BoxFuture<'a, Result<Box<RawValue>, ClientError>> {
        Box::pin(async move {
            let fallback = RequestId::Number(-1);
            self.exchange(message.body, message.id.unwrap_or(&fallback))
                .await
        })
    }

    fn notify<'a>(&'a self, message: Message<'a>) -> BoxFuture<'a, Result<(), ClientError>> {
        Box::pin(self.send(message.body))
    }

    fn cancels_by_notification(&self, _era: Era) -> bool {
        true
    }

    /// `true` when the server is down and the next call should respawn it.
    fn needs_reopen(&self) -> bool {
        self.command.auto_respawn && lock(&self.ended).is_some()
    }

    /// Forgets a crashed or stopped server: the next exchange starts a new one.
    fn reopen(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let mut slot = self.slot.lock().await;
            *slot = Slot::Idle;
            lock(&self.ended).take();
        })
    }

    fn close<'a>(&'a self, _last: Option<Envelope<'a>>) -> BoxFuture<'a, Result<(), ClientError>> {
        Box::pin(async move {
            self.shutdown().await;
            Ok(())
        })
    }
}

async fn kill(child: &mut Child) {
    let _ = child.start_kill();
    let _ = tokio::time::timeout(SETTLE, child.wait()).await;
}

#[cfg(unix)]
fn exit_signal(status: std::process::ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(&status)
}

#[cfg(not(unix))]
fn exit_signal(_: std::process::ExitStatus) -> Option<i32> {
    None
}
