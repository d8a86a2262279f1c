//! The per-request `_meta` envelope of modern requests.

use serde::Deserialize as _;
use serde_json::{Map, Value, json};

use super::{
    ClientCapabilities, Implementation, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
};

/// The `_meta` keys the envelope reserves; they are lifted out of `_meta` before handlers
/// see it.
pub const RESERVED_META_KEYS: [&str; 4] = [
    META_PROTOCOL_VERSION,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
];

const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// The validated envelope of a modern request.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct RequestEnvelope {
    /// The claimed protocol version.
    pub protocol_version: String,
    /// The capabilities of this request (never remembered across requests).
    pub client_capabilities: ClientCapabilities,
    /// The client identity, when sent.
    pub client_info: Option<Implementation>,
    /// The requested log level; absent means no log notifications.
    pub log_level: Option<String>,
}

/// Why an envelope is invalid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnvelopeError {
    /// The offending key.
    pub key: &'static str,
    /// What is wrong with it.
    pub problem: String,
}

impl EnvelopeError {
    /// The message of the `-32602` error.
    pub fn message(&self) -> String {
        format!(
            "Invalid _meta envelope for protocol revision {}: {}: {}",
            super::MODERN_VERSION,
            self.key,
            self.problem
        )
    }

    /// The `data` of the `-32602` error.
    pub fn data(&self) -> Value {
        json!({"envelope": {"key": self.key, "problem": self.problem}})
    }
}

impl RequestEnvelope {
    /// `true` when `params._meta` claims the modern era (has the protocol version key).
    pub fn has_claim(params: Option<&Map<String, Value>>) -> bool {
        meta_of(params).is_some_and(|m| m.contains_key(META_PROTOCOL_VERSION))
    }

    /// Reads and validates the envelope of a request that claims the modern era.
    pub fn parse(params: Option<&Map<String, Value>>) -> Result<Self, EnvelopeError> {
        let meta = meta_of(params).ok_or(EnvelopeError {
            key: META_PROTOCOL_VERSION,
            problem: "missing".into(),
        })?;
        let protocol_version = match meta.get(META_PROTOCOL_VERSION) {
            Some(Value::String(v)) => v.clone(),
            Some(_) => return Err(problem(META_PROTOCOL_VERSION, "expected a string")),
            None => return Err(problem(META_PROTOCOL_VERSION, "missing")),
        };
        let client_capabilities = match meta.get(META_CLIENT_CAPABILITIES) {
            Some(v @ Value::Object(_)) => ClientCapabilities::deserialize(v)
                .map_err(|e| problem(META_CLIENT_CAPABILITIES, &format!("invalid: {e}")))?,
            Some(_) => return Err(problem(META_CLIENT_CAPABILITIES, "expected an object")),
            None => return Err(problem(META_CLIENT_CAPABILITIES, "missing")),
        };
        let client_info = match meta.get(META_CLIENT_INFO) {
            None => None,
            Some(v) => Some(
                Implementation::deserialize(v)
                    .map_err(|e| problem(META_CLIENT_INFO, &format!("invalid: {e}")))?,
            ),
        };
        let log_level = match meta.get(META_LOG_LEVEL) {
            None => None,
            Some(Value::String(l)) if LOG_LEVELS.contains(&l.as_str()) => Some(l.clone()),
            Some(_) => {
                return Err(problem(
                    META_LOG_LEVEL,
                    "expected one of debug, info, notice, warning, error, critical, alert, emergency",
                ));
            }
        };
        Ok(Self {
            protocol_version,
            client_capabilities,
            client_info,
            log_level,
        })
    }

    /// A claimed envelope from its reserved `_meta` keys, read into their types (the HTTP
    /// transport's fast path, `protocol::wire`): the envelope [`RequestEnvelope::parse`]
    /// gives for the same keys, or `None` where `parse` would fail (the capabilities are
    /// missing, the log level is not one of the eight; the strict path then names the
    /// problem).
    pub(crate) fn from_parts(
        protocol_version: String,
        client_capabilities: Option<ClientCapabilities>,
        client_info: Option<Implementation>,
        log_level: Option<String>,
    ) -> Option<Self> {
        if log_level
            .as_deref()
            .is_some_and(|l| !LOG_LEVELS.contains(&l))
        {
            return None;
        }
        Some(Self {
            protocol_version,
            client_capabilities: client_capabilities?,
            client_info,
            log_level,
        })
    }

    /// Removes the reserved envelope keys from a `_meta` object, returning what remains
    /// (`None` when nothing does).
    pub fn strip(meta: Option<Map<String, Value>>) -> Option<Map<String, Value>> {
        let mut meta = meta?;
        for key in RESERVED_META_KEYS {
            meta.remove(key);
        }
        (!meta.is_empty()).then_some(meta)
    }
}

fn meta_of(params: Option<&Map<String, Value>>) -> Option<&Map<String, Value>> {
    params?.get("_meta")?.as_object()
}

fn problem(key: &'static str, problem: &str) -> EnvelopeError {
    EnvelopeError {
        key,
        problem: problem.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(meta: Value) -> Map<String, Value> {
        json!({"_meta": meta}).as_object().unwrap().clone()
    }

    #[test]
    fn parses_the_ts_envelope() {
        let p = params(json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
        }));
        assert!(RequestEnvelope::has_claim(Some(&p)));
        let env = RequestEnvelope::parse(Some(&p)).unwrap();
        assert_eq!(env.protocol_version, "2026-07-28");
        assert!(env.client_capabilities.elicitation.unwrap().supports_form());
        assert_eq!(env.client_info.unwrap().name, "c");
    }

    #[test]
    fn reports_the_missing_key() {
        let p = params(json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"}));
        let err = RequestEnvelope::parse(Some(&p)).unwrap_err();
        assert_eq!(
            err.message(),
            "Invalid _meta envelope for protocol revision 2026-07-28: io.modelcontextprotocol/clientCapabilities: missing"
        );
        assert_eq!(err.data()["envelope"]["key"], META_CLIENT_CAPABILITIES);
    }

    #[test]
    fn rejects_bad_types() {
        for meta in [
            json!({"io.modelcontextprotocol/protocolVersion": 1, "io.modelcontextprotocol/clientCapabilities": {}}),
            json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": []}),
            json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo": {"name": 1}}),
            json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/logLevel": "loud"}),
        ] {
            assert!(
                RequestEnvelope::parse(Some(&params(meta.clone()))).is_err(),
                "{meta}"
            );
        }
    }

    #[test]
    fn strip_keeps_user_keys_only() {
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "x", "progressToken": 3})
            .as_object()
            .cloned();
        assert_eq!(
            RequestEnvelope::strip(meta),
            json!({"progressToken": 3}).as_object().cloned()
        );
        let only_reserved = json!({"io.modelcontextprotocol/protocolVersion": "x"})
            .as_object()
            .cloned();
        assert_eq!(RequestEnvelope::strip(only_reserved), None);
    }
}
