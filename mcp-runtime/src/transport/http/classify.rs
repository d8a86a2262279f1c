//! Which era a single POSTed message belongs to, and the header cross-checks that can refuse
//! it before dispatch (PROTOCOL.md §3, the TypeScript server's validation ladder).

use http::{HeaderMap, HeaderValue, StatusCode};
use serde_json::{Map, Value, json};

pub(crate) use crate::dispatch::unsupported_version;
use crate::dispatch::{ProtocolMode, Reply, header_mismatch};
use crate::protocol::{
    CallToolParams, ErrorCode, ErrorObject, LEGACY_VERSIONS, META_PROTOCOL_VERSION,
    RequestEnvelope, is_modern_version, serves_modern_version,
};
use crate::schema::headers::{PARAM_HEADER_PREFIX, decode_value};

pub(crate) use crate::protocol::headers::{MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION};

/// Where a single request or notification goes.
#[derive(Debug)]
pub(crate) enum Route {
    /// A modern request with a valid envelope and consistent headers.
    Modern(Box<RequestEnvelope>),
    /// A legacy request (or any request on a legacy-only endpoint).
    Legacy,
    /// Refused before dispatch.
    Reject(Reply),
}

/// The `MCP-Protocol-Version` header, trimmed; `Err` when present but not text.
pub(crate) fn protocol_version_header(headers: &HeaderMap) -> Result<Option<&str>, ()> {
    match headers.get(MCP_PROTOCOL_VERSION) {
        None => Ok(None),
        Some(v) => v.to_str().map(|s| Some(s.trim())).map_err(|_| ()),
    }
}

/// Classifies one request (`is_request`) or notification. `lifted` is the envelope the fast
/// read of the body already took out of `params._meta` (`protocol::wire`); without it the
/// envelope is read from `params`. `call` is the params of a `tools/call` that read typed
/// (`params` is then `None`).
pub(crate) fn classify(
    mode: ProtocolMode,
    headers: &HeaderMap,
    method: &str,
    params: Option<&Map<String, Value>>,
    call: Option<&CallToolParams>,
    is_request: bool,
    lifted: Option<RequestEnvelope>,
) -> Route {
    if mode == ProtocolMode::Legacy {
        return Route::Legacy;
    }
    let found = McpHeaders::of(headers);
    let header_version = match found.version.map(|v| v.to_str().map(str::trim)).transpose() {
        Ok(v) => v,
        Err(_) => {
            return Route::Reject(header_mismatch(
                "(invalid)",
                "the MCP-Protocol-Version header is not valid text",
            ));
        }
    };
    let claim = lifted.is_some() || RequestEnvelope::has_claim(params);
    let read = |lifted: Option<RequestEnvelope>| match lifted {
        Some(envelope) => Ok(envelope),
        None => RequestEnvelope::parse(params),
    };
    if !is_request {
        // Notifications: a claim or a modern header makes them modern; both eras answer 202.
        return if claim || header_version.is_some_and(is_modern_version) {
            match read(lifted) {
                Ok(env) => Route::Modern(Box::new(env)),
                Err(_) if !claim => Route::Legacy,
                Err(e) => Route::Reject(envelope_error(&e.message(), e.data())),
            }
        } else {
            Route::Legacy
        };
    }
    let envelope = claim.then(|| read(lifted));
    if method == "initialize" && !matches!(envelope, Some(Ok(_))) {
        if let Some(v) = header_version.filter(|v| is_modern_version(v)) {
            return Route::Reject(header_mismatch(
                v,
                &format!(
                    "an initialize request is legacy but the MCP-Protocol-Version header names {v}"
                ),
            ));
        }
        if mode == ProtocolMode::Modern {
            let requested = params
                .and_then(|p| p.get("protocolVersion"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            return Route::Reject(unsupported_version(requested.as_deref()));
        }
        return Route::Legacy;
    }
    let Some(envelope) = envelope else {
        if header_version.is_some_and(is_modern_version) {
            let has_meta = params.and_then(|p| p.get("_meta")).is_some()
                || call.is_some_and(|c| c.meta.is_some());
            let missing = if has_meta {
                META_PROTOCOL_VERSION
            } else {
                "_meta"
            };
            return Route::Reject(envelope_error(
                &format!(
                    "Invalid _meta envelope for protocol revision {}: {missing}: missing",
                    header_version.unwrap_or_default()
                ),
                json!({"envelope": {"missing": [missing]}}),
            ));
        }
        if mode == ProtocolMode::Modern {
            return Route::Reject(unsupported_version(header_version));
        }
        return Route::Legacy;
    };
    let envelope = match envelope {
        Ok(env) => env,
        Err(e) => return Route::Reject(envelope_error(&e.message(), e.data())),
    };
    if let Some(name) = repeated_header(headers) {
        return Route::Reject(header_mismatch(
            name,
            &format!("the {name} header appears more than once"),
        ));
    }
    if let Some(v) = header_version.filter(|v| *v != envelope.protocol_version) {
        return Route::Reject(header_mismatch(
            v,
            &format!(
                "the body envelope names protocol version {} but the MCP-Protocol-Version header names {v}",
                envelope.protocol_version
            ),
        ));
    }
    let mcp_method = found.method.map(|v| v.to_str().map(str::trim));
    if let Some(m) = &mcp_method {
        match m {
            Ok(m) if *m == method => {}
            Ok(m) => {
                return Route::Reject(header_mismatch(
                    m,
                    &format!("the Mcp-Method header names {m} but the body method is {method}"),
                ));
            }
            Err(_) => {
                return Route::Reject(header_mismatch(
                    "(invalid)",
                    "the Mcp-Method header is not valid text",
                ));
            }
        }
    }
    if !serves_modern_version(&envelope.protocol_version) {
        return Route::Reject(unsupported_version(Some(&envelope.protocol_version)));
    }
    if header_version.is_none() {
        return Route::Reject(header_mismatch(
            "(missing)",
            "the MCP-Protocol-Version header is required on modern requests",
        ));
    }
    if mcp_method.is_none() {
        return Route::Reject(header_mismatch(
            "(missing)",
            "the Mcp-Method header is required on modern requests",
        ));
    }
    let body_name = match call {
        Some(call) => Some(call.name.as_str()),
        None => mcp_name_field(method).and_then(|field| params?.get(field)?.as_str()),
    };
    if let Some(reject) = check_mcp_name(found.name, method, body_name) {
        return Route::Reject(reject);
    }
    Route::Modern(Box::new(envelope))
}

/// The first values of the headers [`classify`] checks, found in one walk over the
/// headers rather than a lookup each.
#[derive(Default)]
struct McpHeaders<'a> {
    version: Option<&'a HeaderValue>,
    method: Option<&'a HeaderValue>,
    name: Option<&'a HeaderValue>,
}

impl<'a> McpHeaders<'a> {
    fn of(headers: &'a HeaderMap) -> Self {
        let mut found = Self::default();
        for (name, value) in headers {
            let slot = if *name == MCP_PROTOCOL_VERSION {
                &mut found.version
            } else if *name == MCP_METHOD {
                &mut found.method
            } else if *name == MCP_NAME {
                &mut found.name
            } else {
                continue;
            };
            slot.get_or_insert(value);
        }
        found
    }
}

/// The first header checked against the body of a modern request (`MCP-Protocol-Version`,
/// `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) that appears more than once. Only the first
/// value would be checked, while an intermediary may act on another one (or on all of them
/// joined), so a repeated header is refused rather than guessed at.
fn repeated_header(headers: &HeaderMap) -> Option<&str> {
    // The common case: no header at all appears twice.
    if headers.len() == headers.keys_len() {
        return None;
    }
    headers.keys().map(http::HeaderName::as_str).find(|name| {
        ([MCP_PROTOCOL_VERSION, MCP_METHOD, MCP_NAME]
            .iter()
            .any(|h| h.as_str() == *name)
            || name
                .get(..PARAM_HEADER_PREFIX.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(PARAM_HEADER_PREFIX)))
            && headers.get_all(*name).iter().nth(1).is_some()
    })
}

/// The params member `Mcp-Name` mirrors: `name` of `tools/call` / `prompts/get`, `uri` of
/// `resources/read`.
fn mcp_name_field(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        // SEP-2663: routing headers of the tasks extension's methods.
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// `Mcp-Name` must mirror `body`, the member [`mcp_name_field`] names (when the body has it
/// as a string).
fn check_mcp_name(header: Option<&HeaderValue>, method: &str, body: Option<&str>) -> Option<Reply> {
    let body = body?;
    let Some(raw) = header else {
        return Some(header_mismatch(
            "(missing)",
            &format!("the Mcp-Name header is required for {method}"),
        ));
    };
    if is_plain_header_text(body) && raw.as_bytes() == body.as_bytes() {
        return None;
    }
    match decode_value(raw.as_bytes()) {
        Ok(v) if v == body => None,
        Ok(v) => Some(header_mismatch(
            raw.to_str().unwrap_or("(invalid)"),
            &format!("the Mcp-Name header names {v:?} but the body names {body:?}"),
        )),
        Err(_) => Some(header_mismatch(
            "(invalid)",
            "the Mcp-Name header value is not validly encoded",
        )),
    }
}

/// Whether a header holding exactly `text` decodes to `text` itself ([`decode_value`]):
/// printable ASCII or tabs, nothing to trim, and not the base64 form.
fn is_plain_header_text(text: &str) -> bool {
    !text.is_empty()
        && !text.starts_with([' ', '\t'])
        && !text.ends_with([' ', '\t'])
        && !text.starts_with("=?base64?")
        && text
            .bytes()
            .all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
}

fn envelope_error(message: &str, data: Value) -> Reply {
    Reply::status(
        StatusCode::BAD_REQUEST,
        ErrorObject::new(ErrorCode::INVALID_PARAMS, message).with_data(data),
    )
}

/// The legacy transport's answer to an unsupported `MCP-Protocol-Version` header.
pub(crate) fn legacy_unsupported_header(version: &str) -> Reply {
    Reply::status(
        StatusCode::BAD_REQUEST,
        ErrorObject::new(
            ErrorCode::TRANSPORT,
            format!(
                "Bad Request: Unsupported protocol version: {version} (supported versions: {})",
                LEGACY_VERSIONS.join(", ")
            ),
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plain text is exactly the text whose header value decodes to itself.
    #[test]
    fn plain_header_text_decodes_to_itself() {
        for text in [
            "add",
            "get weather",
            "a\tb",
            " add",
            "add\t",
            "=?base64?YWRk?=",
            "café",
            "",
            "x\u{7f}",
        ] {
            if is_plain_header_text(text) {
                assert_eq!(
                    decode_value(text.as_bytes()).as_deref(),
                    Ok(text),
                    "{text:?}"
                );
            }
        }
        assert!(is_plain_header_text("add"));
        assert!(!is_plain_header_text(" add"));
        assert!(!is_plain_header_text("=?base64?YWRk?="));
    }
}
