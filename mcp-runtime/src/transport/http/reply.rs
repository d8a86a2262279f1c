//! Writing answers: JSON-RPC replies as JSON or single-event SSE, transport errors, and
//! the request headers that decide the answer's form (`Accept`, `Content-Type`,
//! `Content-Encoding`).

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;

use super::session;
use crate::base::ScopeChallenge;
use crate::dispatch::Reply;
pub(crate) use crate::dispatch::write_reply;
use crate::error::InsufficientScopeError;
use crate::protocol::{ErrorCode, ErrorObject, JsonRpcError, RequestId, ResponseId};

pub(crate) fn reply_response(id: &RequestId, reply: Reply, headers: &HeaderMap) -> Response {
    let status = match &reply {
        Reply::Ok(_) => StatusCode::OK,
        Reply::Err { status, .. } => *status,
        Reply::InsufficientScope(e) => return insufficient_scope(e),
    };
    let mut body = Vec::with_capacity(match &reply {
        Reply::Ok(result) => result.get().len() + 64,
        _ => 256,
    });
    write_reply(&mut body, id, &reply);
    if status == StatusCode::OK && wants_sse_only(headers) {
        return sse_response(body);
    }
    json_response(status, body)
}

/// A single-event SSE response, for clients that accept only `text/event-stream`.
pub(crate) fn sse_response(json: Vec<u8>) -> Response {
    let mut body = Vec::with_capacity(json.len() + 24);
    body.extend_from_slice(b"event: message\ndata: ");
    body.extend_from_slice(&json);
    body.extend_from_slice(b"\n\n");
    super::outbound::sse_response(Body::from(body))
}

pub(crate) fn json_response(status: StatusCode, body: Vec<u8>) -> Response {
    let mut r = Response::new(Body::from(body));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

pub(crate) fn rpc_error_response(
    status: StatusCode,
    id: ResponseId,
    error: ErrorObject,
) -> Response {
    let body = serde_json::to_vec(&JsonRpcError::new(id, error)).unwrap_or_default();
    json_response(status, body)
}

pub(crate) fn invalid_message(id: ResponseId) -> Response {
    rpc_error_response(
        StatusCode::BAD_REQUEST,
        id,
        ErrorObject::new(
            ErrorCode::INVALID_REQUEST,
            "Bad Request: the request body is not a valid JSON-RPC message",
        ),
    )
}

pub(crate) fn transport_error(
    status: StatusCode,
    message: &str,
    allow: Option<&'static str>,
) -> Response {
    let mut r = rpc_error_response(
        status,
        None,
        ErrorObject::new(ErrorCode::TRANSPORT, message),
    );
    if let Some(allow) = allow {
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static(allow));
    }
    r
}

/// HTTP 403 for a caller lacking scopes: `{"error":"insufficient_scope",…}`, marked with a
/// [`ScopeChallenge`] for the OAuth layer (listener authentication sends no challenge).
pub(crate) fn insufficient_scope(e: &InsufficientScopeError) -> Response {
    let body = serde_json::json!({"error": "insufficient_scope", "error_description": e.message()});
    let mut r = json_response(
        StatusCode::FORBIDDEN,
        serde_json::to_vec(&body).unwrap_or_default(),
    );
    r.extensions_mut().insert(ScopeChallenge {
        scopes: e.scopes().to_vec(),
        description: e.message().to_owned(),
    });
    r
}

/// A transport error (JSON-RPC `-32000` body) with `status`, for other layers.
pub(crate) fn plain_error(status: StatusCode, message: &str) -> Response {
    transport_error(status, message, None)
}

pub(crate) fn accepted() -> Response {
    session::accepted()
}

/// A body in a coding the endpoint does not decode would only be misread as JSON: a
/// `Transfer-Encoding` other than `chunked` (hyper frames the chunks and ignores the rest)
/// is `501`, a `Content-Encoding` other than `identity` is `415` (RFC 9110 §8.4, §6.1).
pub(crate) fn unsupported_coding(headers: &HeaderMap) -> Option<Response> {
    let codings = |name| {
        headers
            .get_all(name)
            .iter()
            .flat_map(|v| v.to_str().unwrap_or("?").split(','))
            .map(str::trim)
            .filter(|c| !c.is_empty())
    };
    if codings(header::TRANSFER_ENCODING).any(|c| !c.eq_ignore_ascii_case("chunked")) {
        return Some(transport_error(
            StatusCode::NOT_IMPLEMENTED,
            "Not Implemented: the only supported Transfer-Encoding is chunked",
            None,
        ));
    }
    if codings(header::CONTENT_ENCODING).any(|c| !c.eq_ignore_ascii_case("identity")) {
        return Some(transport_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: request bodies must not have a Content-Encoding",
            None,
        ));
    }
    None
}

pub(crate) fn is_json_content_type(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
}

/// The media ranges of the `Accept` headers, without parameters, as sent (compare them with
/// [`is_media`]: media types are case-insensitive). Allocates nothing: it runs on every
/// request.
/// The `Accept` value the TypeScript and Python clients send on every POST: recognised
/// without parsing (it accepts JSON and SSE).
pub(crate) const COMMON_ACCEPT: &[u8] = b"application/json, text/event-stream";

/// Whether the request has exactly one `Accept` header, [`COMMON_ACCEPT`].
pub(crate) fn common_accept(headers: &HeaderMap) -> bool {
    let mut all = headers.get_all(header::ACCEPT).iter();
    matches!((all.next(), all.next()), (Some(v), None) if v.as_bytes() == COMMON_ACCEPT)
}

pub(crate) fn accept_values(headers: &HeaderMap) -> impl Iterator<Item = &str> + '_ {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.split(';').next().unwrap_or("").trim())
}

/// Whether the media range `t` is one of `names` (lowercase), ignoring ASCII case.
pub(crate) fn is_media(t: &str, names: &[&str]) -> bool {
    names.iter().any(|n| t.eq_ignore_ascii_case(n))
}

/// Whether the `Accept` values take JSON, and whether they take SSE by one of `sse`.
fn accept_kinds(headers: &HeaderMap, sse: &[&str]) -> (bool, bool) {
    accept_values(headers).fold((false, false), |(json, takes_sse), t| {
        (
            json || is_media(t, &["application/json", "*/*", "application/*"]),
            takes_sse || is_media(t, sse),
        )
    })
}

pub(crate) fn accepts_json_and_sse(headers: &HeaderMap) -> bool {
    if common_accept(headers) {
        return true;
    }
    let (json, sse) = accept_kinds(headers, &["text/event-stream", "*/*", "text/*"]);
    json && sse
}

pub(crate) fn accepts_sse(headers: &HeaderMap) -> bool {
    if common_accept(headers) {
        return true;
    }
    accept_values(headers).any(|t| is_media(t, &["text/event-stream", "text/*", "*/*"]))
}

pub(crate) fn wants_sse_only(headers: &HeaderMap) -> bool {
    if common_accept(headers) {
        return false;
    }
    let (json, sse) = accept_kinds(headers, &["text/event-stream"]);
    sse && !json
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::SuccessOut;
    use serde_json::value::RawValue;

    /// A success reply is written as the bytes `SuccessOut` serializes to.
    #[test]
    fn success_replies_are_success_out_bytes() {
        let result = RawValue::from_string(r#"{"a":[1,"x"],"b":{}}"#.to_owned()).unwrap();
        for id in [
            RequestId::Number(-7),
            RequestId::String("q\"u\\o\nte".into()),
        ] {
            let mut out = Vec::new();
            write_reply(
                &mut out,
                &id,
                &Reply::Ok(crate::dispatch::JsonText::Owned(result.get().to_owned())),
            );
            let expected = serde_json::to_vec(&SuccessOut::new(&id, &result)).unwrap();
            assert_eq!(out, expected);
        }
    }

    /// The common `Accept` value gets the answers the parser gives it.
    #[test]
    fn the_common_accept_value_reads_as_parsed() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        assert!(common_accept(&headers));
        let parsed_json = accept_values(&headers).any(|t| is_media(t, &["application/json"]));
        let parsed_sse = accept_values(&headers).any(|t| is_media(t, &["text/event-stream"]));
        assert!(parsed_json && parsed_sse);
        assert!(accepts_sse(&headers) && accepts_json_and_sse(&headers));
        assert!(!wants_sse_only(&headers));
        headers.append(
            header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        assert!(!common_accept(&headers));
    }
}
