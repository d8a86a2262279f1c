//! A server's requests and notifications to its client (elicitation, sampling, roots; log
//! messages, progress) while it serves a call: `mcp.client` spans on the server, children of
//! the call's span, their trace context in the message's `_meta`.

use std::sync::Arc;

use serde_json::Value;

use super::{Facts, Network, Operation, Outcome, Side, Telemetry};
use crate::protocol::ErrorObject;

/// What the requests a call's handler sends its client are recorded with.
#[derive(Clone, Debug)]
pub(crate) struct Outbound {
    telemetry: Telemetry,
    network: Network,
    version: Arc<str>,
}

impl Outbound {
    /// The requests of a call received over `network` at protocol `version`.
    pub(crate) fn new(telemetry: Telemetry, network: Network, version: Arc<str>) -> Self {
        Self {
            telemetry,
            network,
            version,
        }
    }

    /// Starts the span of the request `method` (under the current context: the call's
    /// span) and writes its context into `params._meta`.
    pub(crate) fn start(&self, method: &str, params: &mut Value) -> Operation {
        let facts = Facts {
            method,
            id: None,
            version: Some(&self.version),
            target: None,
            session: None,
            arguments: None,
            network: &self.network,
        };
        let parent = opentelemetry::Context::current();
        let operation = Operation::start(&self.telemetry, Side::Sent, &facts, &parent, Vec::new());
        super::into_params(self.telemetry.propagator(), operation.context(), params);
        operation
    }

    /// Ends the span of a notification, if it has one: `sent`, or the client went away.
    pub(crate) fn notified(operation: Option<Operation>, sent: bool) {
        if let Some(operation) = operation {
            operation.finish(if sent {
                Outcome::Result(None)
            } else {
                Outcome::Failed("transport")
            });
        }
    }

    /// Ends the span with the client's answer.
    pub(crate) fn finish(operation: Operation, answer: &Result<Value, ErrorObject>) {
        match answer {
            Ok(_) => operation.finish(Outcome::Result(None)),
            Err(e) => operation.finish(Outcome::Error {
                code: i64::from(e.code.0),
                message: &e.message,
            }),
        }
    }
}
