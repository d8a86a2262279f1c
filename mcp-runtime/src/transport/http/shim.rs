//! Answers to server→client requests of a legacy session (the elicitation shim, sampling):
//! the requests travel on the call's response stream ([`super::outbound`]); the client
//! answers each with a POST that [`deliver`] routes back to the waiting call.

use crate::dispatch::Server;
use crate::protocol::{JsonRpcResponse, RequestId};

/// Routes a client's answer to a server→client request of `session`.
pub(crate) fn deliver(server: &Server, session: &str, response: JsonRpcResponse) {
    let id = match &response.id {
        RequestId::String(s) => s.clone(),
        RequestId::Number(n) => n.to_string(),
    };
    if !server.streams().answer(session, &id, response.outcome) {
        tracing::debug!(%id, "a client answered a request nothing awaits");
    }
}
