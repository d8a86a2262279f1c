//! Era negotiation: classifying the answer to the `server/discover` probe as the TypeScript
//! client does (PROTOCOL.md §6).

use serde_json::Value;
use serde_json::value::RawValue;

use super::{ClientError, ProtocolError, TransportError};
use crate::protocol::{
    DiscoverResult, ErrorCode, MODERN_VERSIONS, is_modern_version, serves_modern_version,
};

/// What the probe's answer means.
#[derive(Debug)]
pub(crate) enum Verdict {
    /// A modern server speaking `version`.
    Modern(Box<DiscoverResult>, String),
    /// An older server (or one listing only legacy versions): fall back, if allowed.
    Legacy {
        /// Why, for the error of a client that may not fall back.
        reason: String,
        /// The JSON-RPC code of the answer, if it was an error.
        code: Option<ErrorCode>,
        /// The HTTP status of the answer.
        http_status: Option<u16>,
    },
    /// `-32022` naming a mutual version (possibly the one probed): probe again with it.
    Reprobe(String),
    /// No fallback: the error stands.
    Fail(ClientError),
}

/// The first version of `supported` this client speaks.
pub(crate) fn mutual_version(supported: &[String]) -> Option<String> {
    supported.iter().find(|v| serves_modern_version(v)).cloned()
}

/// Reads a discover result; `None` when it is not one (missing `supportedVersions` or
/// `capabilities`, an `InitializeResult`, …).
pub(crate) fn parse_discover(raw: &RawValue) -> Option<DiscoverResult> {
    serde_json::from_str(raw.get()).ok()
}

/// Classifies the answer to a probe that named `probed`.
pub(crate) fn classify(outcome: Result<Box<RawValue>, ClientError>, probed: &str) -> Verdict {
    let error = match outcome {
        Ok(raw) => {
            return match parse_discover(&raw) {
                Some(d) => match mutual_version(&d.supported_versions) {
                    Some(v) => Verdict::Modern(Box::new(d), v),
                    None => Verdict::Legacy {
                        reason: format!(
                            "the server supports {:?}, none of which this client speaks ({MODERN_VERSIONS:?})",
                            d.supported_versions
                        ),
                        code: None,
                        http_status: Some(200),
                    },
                },
                None => Verdict::Legacy {
                    reason: "the server's answer to server/discover is not a discover result"
                        .into(),
                    code: None,
                    http_status: Some(200),
                },
            };
        }
        Err(e) => e,
    };
    match &error {
        ClientError::Protocol(ProtocolError::Rpc {
            error: rpc,
            http_status,
        }) => {
            let http_status = *http_status;
            if http_status.is_some_and(|s| s >= 500) {
                return Verdict::Fail(error);
            }
            if rpc.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION {
                let supported: Vec<String> = rpc
                    .data
                    .as_ref()
                    .and_then(|d| d.get("supported"))
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
                // Retried with the mutual version, even when it is the one probed (a
                // server may reject a first attempt, SEP-2575); the caller retries once.
                if let Some(v) = mutual_version(&supported) {
                    tracing::debug!(%probed, retry = %v, "the server rejected the version probed");
                    return Verdict::Reprobe(v);
                }
                if supported.iter().any(|v| is_modern_version(v)) {
                    let reason = format!(
                        "the server supports only {supported:?}, none of which this client speaks"
                    );
                    return Verdict::Fail(
                        ProtocolError::Negotiation {
                            reason,
                            code: Some(rpc.code),
                            http_status,
                        }
                        .into(),
                    );
                }
            }
            Verdict::Legacy {
                reason: format!("the server answered server/discover with {rpc}"),
                code: Some(rpc.code),
                http_status,
            }
        }
        ClientError::Transport(TransportError::Status { status, .. })
            if (400..500).contains(status) =>
        {
            Verdict::Legacy {
                reason: format!("the server answered server/discover with HTTP {status}"),
                code: None,
                http_status: Some(*status),
            }
        }
        _ => Verdict::Fail(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ErrorObject;
    use serde_json::json;

    fn raw(v: Value) -> Result<Box<RawValue>, ClientError> {
        Ok(RawValue::from_string(v.to_string()).unwrap())
    }

    fn rpc(code: i32, data: Option<Value>, status: u16) -> Result<Box<RawValue>, ClientError> {
        let mut error = ErrorObject::new(ErrorCode(code), "x");
        error.data = data;
        Err(ProtocolError::rpc(error, Some(status)).into())
    }

    const V: &str = "2026-07-28";

    #[test]
    fn follows_the_ts_table() {
        let modern = raw(
            json!({"supportedVersions":["2026-07-28"],"capabilities":{},"resultType":"complete"}),
        );
        assert!(matches!(classify(modern, V), Verdict::Modern(_, v) if v == V));
        let other = raw(json!({"supportedVersions":["2027-01-01"],"capabilities":{}}));
        assert!(matches!(classify(other, V), Verdict::Legacy { .. }));
        let init = raw(
            json!({"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"x","version":"1"}}),
        );
        assert!(matches!(classify(init, V), Verdict::Legacy { .. }));
        for code in [-32601, -32600, -32000, -32001, -32020, -32021] {
            assert!(
                matches!(classify(rpc(code, None, 400), V), Verdict::Legacy { .. }),
                "{code}"
            );
        }
        assert!(matches!(
            classify(
                rpc(-32022, Some(json!({"supported":["2027-01-01"]})), 400),
                V
            ),
            Verdict::Fail(ClientError::Protocol(ProtocolError::Negotiation { .. }))
        ));
        assert!(matches!(
            classify(
                rpc(-32022, Some(json!({"supported":["2025-06-18"]})), 400),
                V
            ),
            Verdict::Legacy { .. }
        ));
        assert!(matches!(
            classify(rpc(-32022, Some(json!({"supported":[]})), 400), V),
            Verdict::Legacy { .. }
        ));
        assert!(matches!(
            classify(rpc(-32022, None, 400), V),
            Verdict::Legacy { .. }
        ));
        assert!(matches!(
            classify(
                rpc(-32022, Some(json!({"supported":["2026-07-28"]})), 400),
                "2026-01-01"
            ),
            Verdict::Reprobe(v) if v == V
        ));
        // The version probed, listed as supported: retried (the caller bounds it to once).
        assert!(matches!(
            classify(
                rpc(-32022, Some(json!({"supported":["2026-07-28"]})), 400),
                V
            ),
            Verdict::Reprobe(v) if v == V
        ));
        assert!(matches!(
            classify(rpc(-32603, None, 500), V),
            Verdict::Fail(_)
        ));
        let status = |s: u16| -> Result<Box<RawValue>, ClientError> {
            Err(TransportError::Status {
                status: s,
                body: String::new(),
            }
            .into())
        };
        assert!(matches!(classify(status(404), V), Verdict::Legacy { .. }));
        assert!(matches!(classify(status(502), V), Verdict::Fail(_)));
        let unauthorized: Result<Box<RawValue>, ClientError> =
            Err(TransportError::Unauthorized { challenge: None }.into());
        assert!(matches!(classify(unauthorized, V), Verdict::Fail(_)));
        let bad_body: Result<Box<RawValue>, ClientError> = Err(TransportError::InvalidBody {
            status: 200,
            reason: "x".into(),
        }
        .into());
        assert!(matches!(classify(bad_body, V), Verdict::Fail(_)));
    }
}
