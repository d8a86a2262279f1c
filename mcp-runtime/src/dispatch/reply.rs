//! The answer to one request as dispatch hands it to a transport: a result serialized once
//! (owned, or shared when many requests get the same bytes), or an error with its HTTP
//! status; and the errors and result shapes several handlers build.

use std::sync::Arc;

use http::StatusCode;
use serde::Serialize;
use serde_json::json;
use serde_json::value::RawValue;

use crate::error::{InsufficientScopeError, ServerError};
use crate::protocol::{
    CallToolResult, ErrorCode, ErrorObject, JsonRpcError, MODERN_VERSIONS, RequestId,
};

/// The answer to one JSON-RPC request: a serialized result, or an error with the HTTP status
/// it travels with.
#[derive(Debug)]
#[non_exhaustive]
pub(crate) enum Reply {
    /// The serialized `result`.
    Ok(JsonText),
    /// A JSON-RPC error.
    Err {
        /// The HTTP status (200 for in-band errors).
        status: StatusCode,
        /// The error object.
        error: ErrorObject,
    },
    /// The caller lacks scopes: HTTP 403 with an `insufficient_scope` challenge.
    InsufficientScope(InsufficientScopeError),
}

/// A JSON value serialized by this crate (so it is valid JSON, and is written out as is):
/// owned when built for one answer, shared when the same bytes answer many requests.
#[derive(Clone, Debug)]
pub(crate) enum JsonText {
    /// Serialized for one answer.
    Owned(String),
    /// Serialized once (the discovery result, fixed `tools/list` pages).
    Shared(Arc<str>),
}

impl JsonText {
    /// The JSON text.
    pub(crate) fn get(&self) -> &str {
        match self {
            Self::Owned(s) => s,
            Self::Shared(s) => s,
        }
    }

    /// The same text, shared.
    pub(crate) fn share(&self) -> Arc<str> {
        match self {
            Self::Owned(s) => Arc::from(s.as_str()),
            Self::Shared(s) => s.clone(),
        }
    }
}

impl Reply {
    pub(crate) fn result<T: Serialize>(value: &T) -> Self {
        // Sized for a typical result (a tool call's with its `_meta` stamp is about 350
        // bytes), so that it is written without growing.
        let mut out = Vec::with_capacity(512);
        let text = serde_json::to_writer(&mut out, value)
            .map_err(|e| e.to_string())
            .and_then(|()| String::from_utf8(out).map_err(|e| e.to_string()));
        match text {
            Ok(text) => Self::Ok(JsonText::Owned(text)),
            Err(e) => {
                tracing::error!(error = %e, "failed to serialize a result");
                Self::in_band(ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    "Internal error",
                ))
            }
        }
    }

    /// An error answered with HTTP 200 (or 400 for `-32021`, which always travels so).
    pub(crate) fn in_band(error: ErrorObject) -> Self {
        let status = if error.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::OK
        };
        Self::Err { status, error }
    }

    /// An error with an explicit HTTP status.
    pub(crate) fn status(status: StatusCode, error: ErrorObject) -> Self {
        Self::Err { status, error }
    }

    /// The reply to a handler's error (its source goes to the log; a scope refusal becomes
    /// the 403 challenge).
    pub(crate) fn from_server_error(e: &ServerError) -> Self {
        e.log_source();
        match e {
            ServerError::InsufficientScope(e) => Self::InsufficientScope(e.clone()),
            e => Self::in_band(e.to_error_object()),
        }
    }
}

/// `-32601 Method not found`.
pub(crate) fn method_not_found(status: StatusCode) -> Reply {
    Reply::status(
        status,
        ErrorObject::new(ErrorCode::METHOD_NOT_FOUND, "Method not found"),
    )
}

/// A `-32020` header/body disagreement, HTTP 400.
pub(crate) fn header_mismatch(header: &str, problem: &str) -> Reply {
    Reply::status(
        StatusCode::BAD_REQUEST,
        ErrorObject::new(
            ErrorCode::HEADER_MISMATCH,
            format!("Bad Request: the request headers and body disagree: {problem}"),
        )
        .with_data(json!({"mismatch": {"header": header, "body": problem}})),
    )
}

/// `-32602 Invalid or expired requestState` (the precise reason is only logged).
pub(crate) fn invalid_request_state() -> Reply {
    Reply::in_band(
        ErrorObject::new(ErrorCode::INVALID_PARAMS, "Invalid or expired requestState")
            .with_data(json!({"reason": "invalid_request_state"})),
    )
}

pub(crate) fn internal_error() -> Reply {
    Reply::in_band(ErrorObject::new(
        ErrorCode::INTERNAL_ERROR,
        "Internal error",
    ))
}

/// A `tools/call` result without `_meta` of its own, serialized with the server's `_meta`
/// (already serialized): the bytes of the result with [`Server::stamp`]'s map, without
/// building that map per response.
pub(crate) struct Stamped<'a> {
    pub(crate) result: &'a CallToolResult,
    pub(crate) meta: &'a RawValue,
}

impl Serialize for Stamped<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        // Every field, so that a new one is not forgotten here.
        let CallToolResult {
            content,
            structured_content,
            is_error,
            result_type,
            meta: _,
        } = self.result;
        let mut out = s.serialize_struct("CallToolResult", 5)?;
        out.serialize_field("content", content)?;
        if let Some(v) = structured_content {
            out.serialize_field("structuredContent", v)?;
        }
        if let Some(v) = is_error {
            out.serialize_field("isError", v)?;
        }
        if let Some(v) = result_type {
            out.serialize_field("resultType", v)?;
        }
        out.serialize_field("_meta", self.meta)?;
        out.end()
    }
}

/// Writes the JSON-RPC response to request `id` (every transport's bytes for a reply).
pub(crate) fn write_reply(out: &mut Vec<u8>, id: &RequestId, reply: &Reply) {
    let written = match reply {
        // The bytes `SuccessOut` serializes to, written directly: the result is JSON text
        // already.
        Reply::Ok(raw) => {
            out.reserve(raw.get().len() + 40);
            out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
            let id = serde_json::to_writer(&mut *out, id);
            out.extend_from_slice(br#","result":"#);
            out.extend_from_slice(raw.get().as_bytes());
            out.push(b'}');
            id
        }
        Reply::Err { error, .. } => serde_json::to_writer(
            &mut *out,
            &JsonRpcError::new(Some(id.clone()), error.clone()),
        ),
        // Only when the HTTP status can no longer change (a started stream, a batch member).
        Reply::InsufficientScope(e) => serde_json::to_writer(
            &mut *out,
            &JsonRpcError::new(
                Some(id.clone()),
                ServerError::InsufficientScope(e.clone()).to_error_object(),
            ),
        ),
    };
    if let Err(e) = written {
        tracing::error!(error = %e, "failed to serialize a response");
    }
}

/// `-32022` with the supported modern versions (and the requested one when known).
pub(crate) fn unsupported_version(requested: Option<&str>) -> Reply {
    let mut data = json!({"supported": MODERN_VERSIONS});
    let message = match requested {
        Some(r) => {
            data["requested"] = json!(r);
            format!("Unsupported protocol version: {r}")
        }
        None => {
            "Unsupported protocol version: the request did not name a protocol version".to_owned()
        }
    };
    Reply::status(
        StatusCode::BAD_REQUEST,
        ErrorObject::new(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, message).with_data(data),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Content, ResultType};
    use serde_json::json;

    fn text(reply: &Reply) -> &str {
        match reply {
            Reply::Ok(raw) => raw.get(),
            _ => panic!("not a result"),
        }
    }

    /// A stamped result is the bytes of the result serialized with the server's `_meta`.
    #[test]
    fn stamped_results_serialize_as_with_their_meta() {
        let meta = json!({"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}});
        let meta = meta.as_object().unwrap().clone();
        let raw = serde_json::value::to_raw_value(&meta).unwrap();
        let mut full = CallToolResult {
            content: vec![Content::text("{\"sum\":5}")],
            structured_content: Some(json!({"sum": 5})),
            result_type: Some(ResultType::Complete),
            ..CallToolResult::default()
        };
        for (is_error, structured) in [(None, true), (Some(true), false)] {
            full.is_error = is_error;
            if !structured {
                full.structured_content = None;
            }
            let stamped = Reply::result(&Stamped {
                result: &full,
                meta: &raw,
            });
            let expected = Reply::result(&CallToolResult {
                meta: Some(meta.clone()),
                ..full.clone()
            });
            assert_eq!(text(&stamped), text(&expected));
        }
    }
}
