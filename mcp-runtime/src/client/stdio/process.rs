//! The child process of a stdio client: spawning, the reader task (responses to the
//! exchange, server→client requests answered, notifications dispatched, noise skipped),
//! serialised exchanges with their timeout, crash detection and shutdown.

use std::process::Stdio;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt as _;
use tokio::process::{Child, ChildStdin};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::{ProcessError, StdioCommand};
use crate::base::frame::{Frame, FrameReader, Source};
use crate::client::exchange::{Incoming, id_matches, rpc_error};
use crate::client::handlers::ServerRequestHandlers;
use crate::client::{ClientError, ProtocolError, TransportError};
use crate::protocol::RequestId;

/// How long a server that closed its stdout has to exit before it is killed.
const SETTLE: Duration = Duration::from_millis(500);
/// How long `close` waits for the server to exit after its stdin is closed.
const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// Responses queued between the reader and the exchange.
const RESPONSE_QUEUE: usize = 16;

type Outcome = Result<Box<RawValue>, ClientError>;
type Notify = Box<dyn Fn(&str, Option<serde_json::Value>) + Send + Sync>;
type SharedStdin = Arc<tokio::sync::Mutex<Option<ChildStdin>>>;

/// Time the client's own handlers spend answering server requests: it does not count
/// against the exchange in flight.
#[derive(Default)]
struct HandlerClock {
    busy: AtomicUsize,
    credit_ns: AtomicU64,
}

/// Why the last process ended without being closed.
#[derive(Clone, Copy, Debug)]
enum Ended {
    Crashed {
        exit_code: Option<i32>,
        signal: Option<i32>,
    },
    TimedOut,
}

struct Process {
    child: Child,
    stdin: SharedStdin,
    responses: mpsc::Receiver<(Value, Outcome)>,
    reader: JoinHandle<()>,
}

impl Drop for Process {
    fn drop(&mut self) {
        self.reader.abort();
    }
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
    handler: ServerRequestHandlers,
    notify: Arc<Notify>,
    clock: Arc<HandlerClock>,
    /// The exchange lock: held for a whole exchange.
    slot: tokio::sync::Mutex<Slot>,
    ended: Mutex<Option<Ended>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl StdioTransport {
    pub(crate) fn new(
        command: StdioCommand,
        handler: ServerRequestHandlers,
        notify: Notify,
    ) -> Self {
        Self {
            command,
            handler,
            notify: Arc::new(notify),
            clock: Arc::default(),
            slot: tokio::sync::Mutex::new(Slot::Idle),
            ended: Mutex::new(None),
        }
    }

    /// `true` when the server is down and the next call should respawn it.
    pub(crate) fn needs_respawn(&self) -> bool {
        self.command.auto_respawn && lock(&self.ended).is_some()
    }

    /// Forgets a crashed or stopped server: the next exchange starts a new one.
    pub(crate) async fn reset(&self) {
        let mut slot = self.slot.lock().await;
        *slot = Slot::Idle;
        lock(&self.ended).take();
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
        let stdin: SharedStdin = Arc::new(tokio::sync::Mutex::new(Some(stdin)));
        let (tx, rx) = mpsc::channel(RESPONSE_QUEUE);
        let frames = FrameReader::new(Source::Async(Box::new(stdout)), c.max_line_bytes);
        let reader = tokio::spawn(read_loop(
            frames,
            tx,
            Arc::clone(&stdin),
            self.handler.clone(),
            Arc::clone(&self.notify),
            Arc::clone(&self.clock),
        ));
        Ok(Process {
            child,
            stdin,
            responses: rx,
            reader,
        })
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

    /// Sends a notification (or a response) line, within `timeout`.
    pub(crate) async fn notify(&self, body: Value, timeout: Duration) -> Result<(), ClientError> {
        let mut slot = self.slot.lock().await;
        let deadline = Instant::now() + timeout;
        let process = self.running(&mut slot)?;
        match write_line(&process.stdin, &body, deadline).await {
            Ok(()) => Ok(()),
            Err(WriteError::Timeout) => Err(self.stop(&mut slot, timeout).await),
            Err(WriteError::Closed) => Err(self.crashed(&mut slot).await),
        }
    }

    /// One request/response exchange. Waits for its turn; `timeout` runs from then.
    pub(crate) async fn exchange(
        &self,
        body: Value,
        id: &RequestId,
        timeout: Duration,
    ) -> Result<Box<RawValue>, ClientError> {
        let mut slot = self.slot.lock().await;
        let mut deadline = Instant::now() + timeout;
        self.clock.credit_ns.store(0, Ordering::Relaxed);
        let process = self.running(&mut slot)?;
        // Leftovers of an earlier exchange (late answers to nothing) are stale.
        while process.responses.try_recv().is_ok() {}
        match write_line(&process.stdin, &body, deadline).await {
            Ok(()) => {}
            Err(WriteError::Timeout) => return Err(self.stop(&mut slot, timeout).await),
            Err(WriteError::Closed) => return Err(self.crashed(&mut slot).await),
        }
        loop {
            let Slot::Running(process) = &mut *slot else {
                return Err(self.down_error());
            };
            tokio::select! {
                received = process.responses.recv() => match received {
                    None => return Err(self.crashed(&mut slot).await),
                    Some((rid, outcome)) if rid.is_null() || id_matches(&rid, id) => return outcome,
                    Some((rid, _)) => tracing::warn!(
                        id = %rid, expected = %id,
                        "the MCP server answered a request id that is not awaited; ignoring it"
                    ),
                },
                () = tokio::time::sleep_until(deadline) => {
                    if self.clock.busy.load(Ordering::Relaxed) > 0 {
                        deadline = Instant::now() + Duration::from_millis(100);
                        continue;
                    }
                    let credit = self.clock.credit_ns.swap(0, Ordering::Relaxed);
                    if credit > 0 {
                        deadline += Duration::from_nanos(credit);
                        continue;
                    }
                    return Err(self.stop(&mut slot, timeout).await);
                }
            }
        }
    }

    /// The exchange timed out: the session is over (no answer can be trusted any more).
    async fn stop(&self, slot: &mut Slot, timeout: Duration) -> ClientError {
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
    pub(crate) async fn shutdown(&self) {
        let mut slot = self.slot.lock().await;
        if let Slot::Running(mut p) = std::mem::replace(&mut *slot, Slot::Idle) {
            p.stdin.lock().await.take();
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

enum WriteError {
    Timeout,
    Closed,
}

async fn write_line(
    stdin: &SharedStdin,
    body: &Value,
    deadline: Instant,
) -> Result<(), WriteError> {
    let mut line = body.to_string().into_bytes();
    line.push(b'\n');
    let write = async {
        let mut guard = stdin.lock().await;
        let Some(stdin) = guard.as_mut() else {
            return Err(WriteError::Closed);
        };
        match stdin.write_all(&line).await {
            Ok(()) => stdin.flush().await.map_err(|_| WriteError::Closed),
            Err(_) => Err(WriteError::Closed),
        }
    };
    tokio::time::timeout_at(deadline, write)
        .await
        .unwrap_or(Err(WriteError::Timeout))
}

/// A line of server output, shortened for a log.
fn preview(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let mut s: String = text.chars().take(120).collect();
    if text.chars().count() > 120 {
        s.push('…');
    }
    s
}

/// Reads the server's stdout until it ends: responses go to the exchange, server requests
/// are answered, notifications dispatched, anything else logged and skipped.
async fn read_loop(
    mut frames: FrameReader,
    responses: mpsc::Sender<(Value, Outcome)>,
    stdin: SharedStdin,
    handler: ServerRequestHandlers,
    notify: Arc<Notify>,
    clock: Arc<HandlerClock>,
) {
    loop {
        let line = match frames.next().await {
            Ok(Some(Frame::Line(line))) => line,
            Ok(Some(Frame::TooLong { len })) => {
                tracing::warn!(len, "the MCP server wrote an oversized line; skipping it");
                continue;
            }
            Ok(None) => return,
            Err(e) => {
                tracing::debug!(error = %e, "reading the MCP server's stdout failed");
                return;
            }
        };
        let Ok(msg) = serde_json::from_slice::<Incoming>(&line) else {
            tracing::warn!(line = %preview(&line), "the MCP server wrote a line that is not JSON-RPC; skipping it");
            continue;
        };
        let id = msg.id.filter(|v| !v.is_null());
        match (msg.method, id) {
            (Some(method), Some(id)) => {
                let (stdin, handler, clock) =
                    (Arc::clone(&stdin), handler.clone(), Arc::clone(&clock));
                clock.busy.fetch_add(1, Ordering::Relaxed);
                tokio::spawn(async move {
                    let started = Instant::now();
                    let (outcome, failure) = handler.outcome(&method, msg.params).await;
                    if let Some(e) = failure {
                        tracing::warn!(%method, error = %e, "the handler of a server request failed");
                    }
                    let body = match outcome {
                        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                        Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
                    };
                    let elapsed = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
                    clock.credit_ns.fetch_add(elapsed, Ordering::Relaxed);
                    clock.busy.fetch_sub(1, Ordering::Relaxed);
                    let deadline = Instant::now() + Duration::from_secs(30);
                    if write_line(&stdin, &body, deadline).await.is_err() {
                        tracing::debug!(%method, "cannot answer a server request: the server is gone");
                    }
                });
            }
            (Some(method), None) => {
                tracing::trace!(%method, "notification from the MCP server");
                notify(&method, msg.params);
            }
            (None, id) => {
                if id.is_none() && msg.error.is_none() {
                    tracing::warn!(line = %preview(&line), "the MCP server wrote a response without an id; skipping it");
                    continue;
                }
                let outcome = match (msg.result, msg.error) {
                    (_, Some(error)) => Err(rpc_error(error, None)),
                    (Some(result), None) => Ok(result),
                    (None, None) => Err(ProtocolError::InvalidResponse {
                        method: "(stdio)".into(),
                        reason: "a response without result or error".into(),
                    }
                    .into()),
                };
                // An error without an id (the server could not read our line) answers the
                // exchange in flight.
                let id = id.unwrap_or(Value::Null);
                if responses.try_send((id, outcome)).is_err() {
                    tracing::debug!("dropping a response nothing awaits");
                }
            }
        }
    }
}
