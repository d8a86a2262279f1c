//! The in-process transport: one end of an in-process message pipe, whose other end a
//! server serves. It has stdio's semantics — one connection, the era pinned by the first
//! message, server→client requests with ids, `notifications/cancelled` — over the shared
//! [`Link`], with whole messages instead of lines: no process, no socket, no framing.

use std::time::Duration;

use serde_json::value::RawValue;
use tokio::time::Instant;

use super::link::{Closed, Inbox, Link, LinkError, Outbox};
use super::{Envelope, Message, Peer, Transport};
use crate::base::BoxFuture;
use crate::base::pipe::{PipeEnd, PipeReceiver, PipeSender};
use crate::client::{ClientError, TransportError};
use crate::protocol::{Era, RequestId};

impl Outbox for PipeSender {
    fn send(&self, message: String) -> BoxFuture<'_, Result<(), Closed>> {
        Box::pin(async move { PipeSender::send(self, message).await.map_err(|_| Closed) })
    }
}

impl Inbox for PipeReceiver {
    fn next(&mut self) -> BoxFuture<'_, Option<Vec<u8>>> {
        Box::pin(async move { self.recv().await.map(String::into_bytes) })
    }
}

enum State {
    /// The pipe, not read yet: the first message starts the link.
    Ready(PipeEnd),
    Open(Link),
    /// Closed by the client: the pipe is gone for good.
    Closed,
}

/// The in-process transport of one client.
pub(crate) struct InProcessTransport {
    peer: Peer,
    timeout: Duration,
    /// The exchange lock: held for a whole exchange.
    state: tokio::sync::Mutex<State>,
}

impl InProcessTransport {
    /// A transport over `end`; what the server sends goes to `peer`; each exchange has
    /// `timeout`.
    pub(crate) fn new(end: PipeEnd, peer: Peer, timeout: Duration) -> Self {
        Self {
            peer,
            timeout,
            state: tokio::sync::Mutex::new(State::Ready(end)),
        }
    }

    /// The link, started with the first message.
    fn link<'a>(&self, state: &'a mut State) -> Result<&'a mut Link, ClientError> {
        *state = match std::mem::replace(state, State::Closed) {
            State::Ready(end) => {
                let (tx, rx) = end.split();
                State::Open(Link::start(std::sync::Arc::new(tx), rx, self.peer.clone()))
            }
            other => other,
        };
        match state {
            State::Open(link) => Ok(link),
            _ => Err(TransportError::Closed.into()),
        }
    }

    fn failed(&self, error: LinkError) -> ClientError {
        match error {
            LinkError::Timeout => TransportError::Timeout(self.timeout).into(),
            LinkError::Closed => TransportError::Closed.into(),
        }
    }
}

impl Transport for InProcessTransport {
    fn request<'a>(
        &'a self,
        message: Message<'a>,
        _peer: &'a Peer,
    ) -> BoxFuture<'a, Result<Box<RawValue>, ClientError>> {
        Box::pin(async move {
            let mut state = self.state.lock().await;
            let link = self.link(&mut state)?;
            let fallback = RequestId::Number(-1);
            let id = message.id.unwrap_or(&fallback);
            match link.exchange(message.body, id, self.timeout).await {
                Ok(outcome) => outcome,
                Err(e) => Err(self.failed(e)),
            }
        })
    }

    fn notify<'a>(&'a self, message: Message<'a>) -> BoxFuture<'a, Result<(), ClientError>> {
        Box::pin(async move {
            let mut state = self.state.lock().await;
            let link = self.link(&mut state)?;
            let deadline = Instant::now() + self.timeout;
            link.send(message.body, deadline)
                .await
                .map_err(|e| self.failed(e))
        })
    }

    fn cancels_by_notification(&self, _era: Era) -> bool {
        true
    }

    /// Drops this end of the pipe: the server sees it closed, and later messages fail
    /// with [`TransportError::Closed`].
    fn close<'a>(&'a self, _last: Option<Envelope<'a>>) -> BoxFuture<'a, Result<(), ClientError>> {
        Box::pin(async move {
            *self.state.lock().await = State::Closed;
            Ok(())
        })
    }
}
