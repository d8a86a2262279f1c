//! The one writer of the transport's output: every line the server sends (responses,
//! server→client requests, notifications) goes through one bounded queue to one task, so
//! lines never interleave and a peer that stops reading holds the server at a bounded
//! amount of memory.

use std::io;
use std::time::Duration;

use tokio::io::{AsyncWrite, AsyncWriteExt as _};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// Where the lines go.
pub(crate) enum Sink {
    /// Any async writer (tests, pipes, sockets).
    Async(Box<dyn AsyncWrite + Send + Unpin>),
    /// The process's stdout, written by a dedicated thread (so a blocked write never holds
    /// up the runtime's shutdown), and the signal that it wrote everything.
    Thread(mpsc::Sender<Vec<u8>>, oneshot::Receiver<()>),
    /// The in-process pipe: each line goes as one message, without its newline.
    Pipe(crate::base::pipe::PipeSender),
}

/// How long the end of serving waits for the stdout thread to write the last lines.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// Starts a thread writing the lines it receives to stdout, flushing whenever it has
/// nothing more to write. It ends at the first write error (a closed stdout).
pub(crate) fn stdout_thread() -> io::Result<Sink> {
    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(1);
    let (done_tx, done_rx) = oneshot::channel();
    std::thread::Builder::new()
        .name("mcp-stdout".into())
        .spawn(move || {
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            while let Some(line) = rx.blocking_recv() {
                if let Err(e) = out.write_all(&line) {
                    tracing::debug!(error = %e, "stdout closed");
                    return;
                }
                if rx.is_empty()
                    && let Err(e) = out.flush()
                {
                    tracing::debug!(error = %e, "stdout closed");
                    return;
                }
            }
            let _ = out.flush();
            let _ = done_tx.send(());
        })?;
    Ok(Sink::Thread(tx, done_rx))
}

/// Writes the queued lines to `sink` until every sender is gone (or `finish` is cancelled
/// and the queue is drained). Cancels `closed` when the output fails: the peer is gone.
pub(crate) async fn write_loop(
    mut rx: mpsc::Receiver<Vec<u8>>,
    mut sink: Sink,
    finish: CancellationToken,
    closed: CancellationToken,
) {
    loop {
        let line = tokio::select! {
            biased;
            line = rx.recv() => line,
            () = finish.cancelled() => rx.try_recv().ok(),
        };
        let Some(line) = line else { break };
        let written = match &mut sink {
            Sink::Async(w) => match w.write_all(&line).await {
                Ok(()) if rx.is_empty() => w.flush().await,
                other => other,
            },
            Sink::Thread(tx, _) => tx
                .send(line)
                .await
                .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe)),
            Sink::Pipe(tx) => {
                let mut line = line;
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                // Every line is JSON this crate serialized: valid UTF-8.
                match String::from_utf8(line) {
                    Ok(message) => tx
                        .send(message)
                        .await
                        .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe)),
                    Err(e) => Err(io::Error::new(io::ErrorKind::InvalidData, e)),
                }
            }
        };
        if let Err(e) = written {
            tracing::info!(error = %e, "the output is closed; stopping");
            closed.cancel();
            return;
        }
    }
    match sink {
        Sink::Async(mut w) => {
            let _ = w.flush().await;
            let _ = w.shutdown().await;
        }
        Sink::Thread(tx, done) => {
            drop(tx);
            let _ = tokio::time::timeout(DRAIN_TIMEOUT, done).await;
        }
        Sink::Pipe(_) => {}
    }
}
