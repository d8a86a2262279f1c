//! The JSON-RPC 2.0 envelope, parsed strictly: `jsonrpc` is exactly `"2.0"`, ids are strings
//! or integers, and an unknown top-level member makes a message invalid.

use serde::{Deserialize, Serialize, Serializer};
#[cfg(test)]
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::ErrorCode;

/// A request id: a string or an integer (never `null`, never a fraction).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id (the TypeScript client numbers its requests `0, 1, 2, …`).
    Number(i64),
    /// A string id.
    String(String),
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// The id of a response: the request's id, or `null` when no id could be read.
pub type ResponseId = Option<RequestId>;

/// A JSON-RPC request (has an id).
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The request id, echoed verbatim in the response.
    pub id: RequestId,
    /// The method name.
    pub method: String,
    /// The params object, if any.
    pub params: Option<Map<String, Value>>,
}

/// A JSON-RPC notification (no id, no response).
#[derive(Clone, Debug, PartialEq)]
pub struct Notification {
    /// The method name.
    pub method: String,
    /// The params object, if any.
    pub params: Option<Map<String, Value>>,
}

/// A JSON-RPC response sent by the peer (a client answering a server→client request).
#[derive(Clone, Debug, PartialEq)]
pub struct JsonRpcResponse {
    /// The id of the request it answers.
    pub id: RequestId,
    /// `Ok(result)` or `Err(error)`.
    pub outcome: Result<Value, ErrorObject>,
}

/// One JSON-RPC message.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A request.
    Request(Request),
    /// A notification.
    Notification(Notification),
    /// A response (or error response).
    Response(JsonRpcResponse),
}

/// Why a JSON value is not a valid JSON-RPC message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MessageError {
    /// Not a JSON object.
    #[error("a JSON-RPC message must be an object")]
    NotAnObject,
    /// `jsonrpc` is missing or not `"2.0"`.
    #[error("`jsonrpc` must be \"2.0\"")]
    Version,
    /// The id is neither a string nor an integer.
    #[error("`id` must be a string or an integer")]
    Id,
    /// `method` is not a string.
    #[error("`method` must be a string")]
    Method,
    /// `params` is not an object.
    #[error("`params` must be an object")]
    Params,
    /// A response without exactly one of `result` and `error`, or with a bad error object.
    #[error("a response needs exactly one of `result` and `error`")]
    ResponseShape,
    /// A member JSON-RPC does not define.
    #[error("unknown member `{0}`")]
    UnknownMember(String),
    /// A request's `params._meta.progressToken` is neither a string nor an integer (MCP's
    /// request schema; the TypeScript server refuses such a message as invalid).
    #[error("`params._meta.progressToken` must be a string or a safe integer")]
    ProgressToken,
}

/// A JSON-RPC error object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code.
    pub code: ErrorCode,
    /// A short description.
    pub message: String,
    /// Additional data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// `"<code>: <message>"` (the data is not printed).
impl std::fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ErrorObject {}

impl ErrorObject {
    /// An error object with no data.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attaches `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

/// An error response ready to serialize: `{"jsonrpc":"2.0","id":…,"error":{…}}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JsonRpcError {
    jsonrpc: JsonRpcVersion,
    /// The request id, or `null`.
    pub id: ResponseId,
    /// The error.
    pub error: ErrorObject,
}

impl JsonRpcError {
    /// An error response for `id`.
    pub fn new(id: ResponseId, error: ErrorObject) -> Self {
        Self {
            jsonrpc: JsonRpcVersion,
            id,
            error,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct JsonRpcVersion;

impl Serialize for JsonRpcVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str("2.0")
    }
}

/// A success response with a pre-serialized result:
/// `{"jsonrpc":"2.0","id":…,"result":…}` (the shape the transports write directly; kept to
/// test their bytes against).
#[cfg(test)]
#[derive(Debug, Serialize)]
pub(crate) struct SuccessOut<'a> {
    jsonrpc: JsonRpcVersion,
    id: &'a RequestId,
    result: &'a RawValue,
}

#[cfg(test)]
impl<'a> SuccessOut<'a> {
    /// A success response.
    pub(crate) fn new(id: &'a RequestId, result: &'a RawValue) -> Self {
        Self {
            jsonrpc: JsonRpcVersion,
            id,
            result,
        }
    }
}

impl Message {
    /// Reads one message from a parsed JSON value, strictly.
    pub fn from_value(value: Value) -> Result<Self, MessageError> {
        let Value::Object(mut obj) = value else {
            return Err(MessageError::NotAnObject);
        };
        match obj.remove("jsonrpc") {
            Some(Value::String(v)) if v == "2.0" => {}
            _ => return Err(MessageError::Version),
        }
        let id = match obj.remove("id") {
            None => None,
            Some(v) => Some(parse_id(v)?),
        };
        let method = obj.remove("method");
        if let Some(method) = method {
            let Value::String(method) = method else {
                return Err(MessageError::Method);
            };
            let params = match obj.remove("params") {
                None => None,
                Some(Value::Object(p)) => Some(p),
                Some(_) => return Err(MessageError::Params),
            };
            if let Some((key, _)) = obj.into_iter().next() {
                return Err(MessageError::UnknownMember(key));
            }
            let token = params
                .as_ref()
                .and_then(|p| p.get("_meta")?.get("progressToken"));
            if token.is_some_and(|t| !is_progress_token(t)) {
                return Err(MessageError::ProgressToken);
            }
            return Ok(match id {
                Some(id) => Self::Request(Request { id, method, params }),
                None => Self::Notification(Notification { method, params }),
            });
        }
        let id = id.ok_or(MessageError::ResponseShape)?;
        let outcome = match (obj.remove("result"), obj.remove("error")) {
            (Some(result), None) => Ok(result),
            (None, Some(error)) => {
                Err(serde_json::from_value(error).map_err(|_| MessageError::ResponseShape)?)
            }
            _ => return Err(MessageError::ResponseShape),
        };
        if let Some((key, _)) = obj.into_iter().next() {
            return Err(MessageError::UnknownMember(key));
        }
        Ok(Self::Response(JsonRpcResponse { id, outcome }))
    }

    /// The id of a message that failed to parse, when it has a usable one.
    pub fn peek_id(value: &Value) -> ResponseId {
        value.get("id").cloned().and_then(|v| parse_id(v).ok())
    }

    /// The method of a request or notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            Self::Request(r) => Some(&r.method),
            Self::Notification(n) => Some(&n.method),
            Self::Response(_) => None,
        }
    }
}

/// The largest integer JavaScript represents exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// A string or a safe integer: a JSON number without a fraction (`1.0` and `1e3` count, as
/// in JavaScript) within ±(2^53 − 1), which a JavaScript client reads back exactly. The
/// schema's `ProgressToken` is `string | integer`, and the TypeScript server's schema (zod's
/// `int()`) takes only safe integers; a request whose `_meta.progressToken` is anything else
/// is not a valid message (HTTP 400 / `-32600`), as the TypeScript server answers it on
/// both eras.
pub(crate) fn is_progress_token(v: &Value) -> bool {
    match v {
        Value::String(_) => true,
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u <= MAX_SAFE_INTEGER,
            (None, Some(i)) => i.unsigned_abs() <= MAX_SAFE_INTEGER,
            (None, None) => n
                .as_f64()
                .is_some_and(|f| f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64),
        },
        _ => false,
    }
}

pub(super) fn parse_id(v: Value) -> Result<RequestId, MessageError> {
    match v {
        Value::String(s) => Ok(RequestId::String(s)),
        Value::Number(n) => n.as_i64().map(RequestId::Number).ok_or(MessageError::Id),
        _ => Err(MessageError::Id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn progress_tokens_are_strings_and_safe_integers() {
        let token = |text: &str| is_progress_token(&serde_json::from_str(text).unwrap());
        for ok in [
            r#""t""#,
            r#""""#,
            "0",
            "-3",
            "1.0",
            "1e3",
            "9007199254740991",
            "-9007199254740991",
        ] {
            assert!(token(ok), "{ok} is a progress token");
        }
        for bad in [
            "1.5",
            "-0.5",
            "1e300",
            "9007199254740992",
            "-9007199254740992",
            "12345678901234567",
            "18446744073709551615",
            "true",
            "null",
            "[1]",
            "{}",
        ] {
            assert!(!token(bad), "{bad} is not a progress token");
        }
    }

    #[test]
    fn parses_the_ts_client_shapes() {
        let m = Message::from_value(json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})).unwrap();
        assert!(matches!(
            m,
            Message::Request(Request {
                id: RequestId::Number(0),
                ..
            })
        ));
        let m = Message::from_value(
            json!({"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover"}),
        )
        .unwrap();
        assert!(matches!(
            m,
            Message::Request(Request {
                id: RequestId::String(_),
                params: None,
                ..
            })
        ));
        let m = Message::from_value(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
            .unwrap();
        assert!(matches!(m, Message::Notification(_)));
        let m = Message::from_value(json!({"jsonrpc":"2.0","id":3,"result":{}})).unwrap();
        assert!(matches!(
            m,
            Message::Response(JsonRpcResponse { outcome: Ok(_), .. })
        ));
        let m =
            Message::from_value(json!({"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"x"}}))
                .unwrap();
        assert!(matches!(
            m,
            Message::Response(JsonRpcResponse {
                outcome: Err(_),
                ..
            })
        ));
    }

    #[test]
    fn rejects_invalid_messages() {
        let bad = [
            (json!([]), MessageError::NotAnObject),
            (json!({"id":1,"method":"x"}), MessageError::Version),
            (
                json!({"jsonrpc":"1.0","id":1,"method":"x"}),
                MessageError::Version,
            ),
            (
                json!({"jsonrpc":"2.0","id":null,"method":"x"}),
                MessageError::Id,
            ),
            (
                json!({"jsonrpc":"2.0","id":1.5,"method":"x"}),
                MessageError::Id,
            ),
            (
                json!({"jsonrpc":"2.0","id":true,"method":"x"}),
                MessageError::Id,
            ),
            (
                json!({"jsonrpc":"2.0","id":1,"method":7}),
                MessageError::Method,
            ),
            (
                json!({"jsonrpc":"2.0","id":1,"method":"x","params":[1]}),
                MessageError::Params,
            ),
            (
                json!({"jsonrpc":"2.0","id":1,"method":"x","extra":1}),
                MessageError::UnknownMember("extra".into()),
            ),
            (json!({"jsonrpc":"2.0","id":1}), MessageError::ResponseShape),
            (
                json!({"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":""}}),
                MessageError::ResponseShape,
            ),
            (
                json!({"jsonrpc":"2.0","result":{}}),
                MessageError::ResponseShape,
            ),
        ];
        for (value, expected) in bad {
            assert_eq!(Message::from_value(value.clone()), Err(expected), "{value}");
        }
    }

    #[test]
    fn error_response_serializes_with_null_id() {
        let e = JsonRpcError::new(
            None,
            ErrorObject::new(ErrorCode::PARSE_ERROR, "Parse error"),
        );
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})
        );
    }

    #[test]
    fn peek_id_reads_what_it_can() {
        assert_eq!(
            Message::peek_id(&json!({"id": 7})),
            Some(RequestId::Number(7))
        );
        assert_eq!(
            Message::peek_id(&json!({"id": "a"})),
            Some(RequestId::String("a".into()))
        );
        assert_eq!(Message::peek_id(&json!({"id": null})), None);
        assert_eq!(Message::peek_id(&json!([1])), None);
    }
}
