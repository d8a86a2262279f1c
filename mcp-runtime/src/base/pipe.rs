//! The in-process message pipe: two connected ends, each sending whole JSON-RPC messages
//! (one JSON text each, no framing) to the other over a bounded queue. The server serves one
//! end (`Server::serve_in_process`), a client talks
//! through the other (`Client::in_process`): the same
//! protocol as over stdio, with no process, no socket and no line framing.

use tokio::sync::mpsc;

/// How many messages each direction of a [`pipe`] holds before its sender waits.
pub const DEFAULT_PIPE_CAPACITY: usize = 64;

/// One end of an in-process [`pipe`]: it sends messages to the other end and receives the
/// messages the other end sends. Dropping it (or both its halves) closes the pipe in both
/// directions: the other end then receives `None`, and its sends fail.
#[derive(Debug)]
pub struct PipeEnd {
    tx: PipeSender,
    rx: PipeReceiver,
}

/// The sending half of a [`PipeEnd`]; clones send into the same queue.
#[derive(Clone, Debug)]
pub struct PipeSender(mpsc::Sender<String>);

/// The receiving half of a [`PipeEnd`].
#[derive(Debug)]
pub struct PipeReceiver(mpsc::Receiver<String>);

/// The other end of the pipe is gone: the message was not delivered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipeClosed;

impl std::fmt::Display for PipeClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the other end of the in-process pipe is closed")
    }
}

impl std::error::Error for PipeClosed {}

/// Two connected ends, each direction holding up to `capacity` messages (at least one).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let (a, b) = mcp::transport::in_process::pipe(8);
/// let (tx, _rx) = a.split();
/// let (_tx, mut rx) = b.split();
/// tx.send(r#"{"jsonrpc":"2.0","method":"ping","id":1}"#.into()).await.unwrap();
/// assert_eq!(rx.recv().await.as_deref(), Some(r#"{"jsonrpc":"2.0","method":"ping","id":1}"#));
/// # }
/// ```
pub fn pipe(capacity: usize) -> (PipeEnd, PipeEnd) {
    let capacity = capacity.max(1);
    let (a_tx, b_rx) = mpsc::channel(capacity);
    let (b_tx, a_rx) = mpsc::channel(capacity);
    (
        PipeEnd {
            tx: PipeSender(a_tx),
            rx: PipeReceiver(a_rx),
        },
        PipeEnd {
            tx: PipeSender(b_tx),
            rx: PipeReceiver(b_rx),
        },
    )
}

impl PipeEnd {
    /// Sends one message to the other end, waiting while its queue is full.
    pub async fn send(&self, message: String) -> Result<(), PipeClosed> {
        self.tx.send(message).await
    }

    /// The next message from the other end; `None` once it is closed and drained.
    pub async fn recv(&mut self) -> Option<String> {
        self.rx.recv().await
    }

    /// The two halves, to send and receive from different tasks.
    pub fn split(self) -> (PipeSender, PipeReceiver) {
        (self.tx, self.rx)
    }
}

impl PipeSender {
    /// Sends one message to the other end, waiting while its queue is full.
    pub async fn send(&self, message: String) -> Result<(), PipeClosed> {
        self.0.send(message).await.map_err(|_| PipeClosed)
    }

    /// Whether the other end's receiver is gone.
    pub fn is_closed(&self) -> bool {
        self.0.is_closed()
    }
}

impl PipeReceiver {
    /// The next message from the other end; `None` once every sender of the other end is
    /// gone and the queue is drained.
    pub async fn recv(&mut self) -> Option<String> {
        self.0.recv().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn messages_cross_both_ways_and_closing_is_seen() {
        let (mut a, b) = pipe(1);
        a.send("one".into()).await.unwrap();
        let (b_tx, mut b_rx) = b.split();
        assert_eq!(b_rx.recv().await.as_deref(), Some("one"));
        b_tx.send("two".into()).await.unwrap();
        assert_eq!(a.recv().await.as_deref(), Some("two"));
        drop(b_tx);
        assert_eq!(a.recv().await, None);
        drop(b_rx);
        assert_eq!(a.send("three".into()).await, Err(PipeClosed));
    }
}
