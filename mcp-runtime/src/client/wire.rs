//! The JSON-RPC pieces every client transport shares, below them all: reading one incoming
//! message (our response, a server→client request, a notification), matching ids, turning
//! an error object into a [`ClientError`], and the MCP header names the client reserves.

use http::HeaderName;
use http::header::{ACCEPT, CONTENT_LENGTH, CONTENT_TYPE};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::{ClientError, ProtocolError, StreamError};
use crate::protocol::{ErrorObject, RequestId};

pub(crate) use crate::protocol::headers::{
    LAST_EVENT_ID, MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION, MCP_SESSION_ID,
};

/// Headers the client sets itself: never taken from configuration or a call.
pub(crate) fn is_reserved(name: &HeaderName) -> bool {
    let n = name.as_str();
    n == CONTENT_TYPE.as_str()
        || n == ACCEPT.as_str()
        || n == CONTENT_LENGTH.as_str()
        || n == MCP_PROTOCOL_VERSION.as_str()
        || n == MCP_METHOD.as_str()
        || n == MCP_NAME.as_str()
        || n == MCP_SESSION_ID.as_str()
        || n.starts_with("mcp-param-")
}

/// A message read from the server, kept raw where order or bytes matter.
#[derive(Deserialize)]
pub(crate) struct Incoming {
    #[serde(default)]
    pub(crate) id: Option<Value>,
    #[serde(default)]
    pub(crate) method: Option<String>,
    #[serde(default)]
    pub(crate) params: Option<Value>,
    #[serde(default)]
    pub(crate) result: Option<Box<RawValue>>,
    #[serde(default)]
    pub(crate) error: Option<Value>,
}

/// What one incoming message is, seen from the request awaiting its answer.
pub(crate) enum Handled {
    /// The answer to that request.
    Response(Result<Box<RawValue>, ClientError>),
    /// A server→client request.
    ServerRequest {
        id: Value,
        method: String,
        params: Option<Value>,
    },
    /// A notification.
    Notification {
        method: String,
        params: Option<Value>,
    },
    /// A response to something else.
    Ignored,
}

/// Whether an incoming id is the id `expected`.
pub(crate) fn id_matches(id: &Value, expected: &RequestId) -> bool {
    match (id, expected) {
        (Value::Number(n), RequestId::Number(e)) => n.as_i64() == Some(*e),
        (Value::String(s), RequestId::String(e)) => s == e,
        _ => false,
    }
}

/// A JSON-RPC error object (and the HTTP status it came with) as a client error.
pub(crate) fn rpc_error(error: Value, http_status: Option<u16>) -> ClientError {
    match serde_json::from_value::<ErrorObject>(error) {
        Ok(e) => ProtocolError::rpc(e, http_status).into(),
        Err(e) => StreamError::InvalidMessage {
            reason: format!("invalid error object: {e}"),
        }
        .into(),
    }
}

/// Sorts one incoming message: our response, a server→client request, or noise.
pub(crate) fn handle(
    text: &str,
    expected: &RequestId,
    http_status: u16,
) -> Result<Handled, ClientError> {
    let msg: Incoming = serde_json::from_str(text).map_err(|e| StreamError::InvalidMessage {
        reason: e.to_string(),
    })?;
    let id = msg.id.filter(|v| !v.is_null());
    if let Some(method) = msg.method {
        return Ok(match id {
            Some(id) => Handled::ServerRequest {
                id,
                method,
                params: msg.params,
            },
            None => Handled::Notification {
                method,
                params: msg.params,
            },
        });
    }
    if let Some(error) = msg.error {
        // An error without a readable id answers the only request of this POST.
        if id.as_ref().is_none_or(|id| id_matches(id, expected)) {
            return Ok(Handled::Response(Err(rpc_error(error, Some(http_status)))));
        }
        return Ok(Handled::Ignored);
    }
    match (id, msg.result) {
        (Some(id), Some(result)) if id_matches(&id, expected) => Ok(Handled::Response(Ok(result))),
        _ => Ok(Handled::Ignored),
    }
}

#[cfg(test)]
mod tests {
    use http::header::AUTHORIZATION;

    use super::*;

    #[test]
    fn sorts_incoming_messages() {
        let id = RequestId::Number(3);
        assert!(matches!(
            handle(r#"{"jsonrpc":"2.0","id":3,"result":{"a":1}}"#, &id, 200).unwrap(),
            Handled::Response(Ok(_))
        ));
        assert!(matches!(
            handle(r#"{"jsonrpc":"2.0","id":4,"result":{}}"#, &id, 200).unwrap(),
            Handled::Ignored
        ));
        assert!(matches!(
            handle(
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"x"}}"#,
                &id,
                400
            )
            .unwrap(),
            Handled::Response(Err(ClientError::Protocol(ProtocolError::Rpc {
                http_status: Some(400),
                ..
            })))
        ));
        assert!(matches!(
            handle(r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#, &id, 200).unwrap(),
            Handled::ServerRequest { .. }
        ));
        assert!(matches!(
            handle(
                r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#,
                &id,
                200
            )
            .unwrap(),
            Handled::Notification { method, .. } if method == "notifications/progress"
        ));
        assert!(handle("not json", &id, 200).is_err());
    }

    #[test]
    fn reserved_headers() {
        assert!(is_reserved(&HeaderName::from_static("mcp-param-region")));
        assert!(is_reserved(&MCP_SESSION_ID));
        assert!(!is_reserved(&AUTHORIZATION));
        assert!(!is_reserved(&HeaderName::from_static("x-trace")));
    }
}
