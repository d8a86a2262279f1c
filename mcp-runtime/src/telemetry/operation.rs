//! One MCP operation as a span and a duration: a request or notification received
//! (`mcp.server`, kind SERVER) or sent (`mcp.client`, kind CLIENT), from its start to its
//! answer.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use opentelemetry::trace::{
    Link, SpanBuilder, SpanKind, Status, TraceContextExt as _, Tracer as _,
};
use opentelemetry::{Context, KeyValue, Value};

use super::Telemetry;
use super::attributes as attr;
use crate::protocol::{JsonObject, RequestId};

/// Which side of an exchange an operation is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// It was received (`mcp.server`): a client's request on a server, a server's request on
    /// a client.
    Received,
    /// It was sent (`mcp.client`).
    Sent,
}

/// How a message travelled.
#[derive(Clone, Debug, Default)]
pub(crate) struct Network {
    /// `network.transport`: `tcp`, `pipe` or `inproc`.
    pub(crate) transport: &'static str,
    /// Over Streamable HTTP (`network.protocol.name` `http`).
    pub(crate) http: bool,
    /// The HTTP version, when known.
    pub(crate) http_version: Option<&'static str>,
    /// The peer: the client's address on a server, the server's host on a client.
    pub(crate) peer: Option<Peer>,
}

/// The other side of a connection: an address (formatted only when recorded), or a host
/// name.
#[derive(Clone, Debug)]
pub(crate) enum Peer {
    /// A socket address (a client on the server).
    Addr(std::net::SocketAddr),
    /// A host and a port (a server's URL on the client).
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    Host(Arc<str>, u16),
}

impl Peer {
    pub(crate) fn address(&self) -> Value {
        match self {
            Self::Addr(addr) => match addr.ip() {
                std::net::IpAddr::V4(ip) => Value::from(ipv4(ip)),
                ip @ std::net::IpAddr::V6(_) => Value::from(ip.to_string()),
            },
            Self::Host(host, _) => Value::String(host.clone().into()),
        }
    }

    pub(crate) fn port(&self) -> u16 {
        match self {
            Self::Addr(addr) => addr.port(),
            Self::Host(_, port) => *port,
        }
    }
}

/// An IPv4 address in dotted decimal, without the formatting machinery (it is on every
/// request's path).
fn ipv4(ip: std::net::Ipv4Addr) -> String {
    let mut out = [0u8; 15];
    let mut len = 0;
    for (i, octet) in ip.octets().into_iter().enumerate() {
        if i > 0 {
            out[len] = b'.';
            len += 1;
        }
        if octet >= 100 {
            out[len] = b'0' + octet / 100;
            len += 1;
        }
        if octet >= 10 {
            out[len] = b'0' + octet / 10 % 10;
            len += 1;
        }
        out[len] = b'0' + octet % 10;
        len += 1;
    }
    String::from_utf8_lossy(&out[..len]).into_owned()
}

impl Network {
    /// Streamable HTTP at `version`, when it is known (a server knows its request's; the
    /// client leaves it to its HTTP stack).
    pub(crate) fn http(version: Option<http::Version>, peer: Option<Peer>) -> Self {
        let version = version.map(|version| match version {
            http::Version::HTTP_09 => "0.9",
            http::Version::HTTP_10 => "1.0",
            http::Version::HTTP_2 => "2",
            http::Version::HTTP_3 => "3",
            _ => "1.1",
        });
        Self {
            transport: "tcp",
            http: true,
            http_version: version,
            peer,
        }
    }

    /// stdio (a pipe) or in-process.
    pub(crate) fn local(in_process: bool) -> Self {
        Self {
            transport: if in_process { "inproc" } else { "pipe" },
            http: false,
            http_version: None,
            peer: None,
        }
    }

    /// The transport's attributes, and the peer's when `with_peer`.
    fn attributes(&self, side: Side, out: &mut Vec<KeyValue>, with_peer: bool) {
        if !self.transport.is_empty() {
            out.push(KeyValue::new(attr::NETWORK_TRANSPORT, self.transport));
        }
        if self.http {
            out.push(KeyValue::new(attr::NETWORK_PROTOCOL_NAME, "http"));
        }
        if let Some(version) = self.http_version {
            out.push(KeyValue::new(attr::NETWORK_PROTOCOL_VERSION, version));
        }
        if with_peer {
            self.peer_attributes(side, out);
        }
    }

    /// `client.address`/`port` on the server, `server.address`/`port` on the client.
    fn peer_attributes(&self, side: Side, out: &mut Vec<KeyValue>) {
        if let Some(peer) = &self.peer {
            let (a, p) = match side {
                Side::Received => (attr::CLIENT_ADDRESS, attr::CLIENT_PORT),
                Side::Sent => (attr::SERVER_ADDRESS, attr::SERVER_PORT),
            };
            out.push(KeyValue::new(a, peer.address()));
            out.push(KeyValue::new(p, i64::from(peer.port())));
        }
    }
}

/// What is known of a message when its operation starts.
#[derive(Debug)]
pub(crate) struct Facts<'a> {
    pub(crate) method: &'a str,
    /// `None` for a notification.
    pub(crate) id: Option<&'a RequestId>,
    pub(crate) version: Option<&'a str>,
    /// The tool of a `tools/call`, the prompt of a `prompts/get`, the URI of a resource
    /// request.
    pub(crate) target: Option<&'a str>,
    /// A legacy session's id.
    pub(crate) session: Option<&'a str>,
    /// A `tools/call`'s or `prompts/get`'s arguments (recorded only when sensitive data is
    /// on).
    pub(crate) arguments: Option<&'a JsonObject>,
    pub(crate) network: &'a Network,
}

/// How an operation ended.
#[derive(Debug)]
pub(crate) enum Outcome<'a> {
    /// A result (its JSON text, when there is one to read).
    Result(Option<&'a str>),
    /// A JSON-RPC error.
    Error { code: i64, message: &'a str },
    /// No answer: `timeout`, `transport`, `cancelled`, …
    Failed(&'static str),
}

/// An operation under way: its span (in its context) and what its duration is recorded
/// with.
#[derive(Debug)]
pub(crate) struct Operation {
    telemetry: Telemetry,
    side: Side,
    cx: Context,
    started: Instant,
    /// What the duration is recorded with.
    point: Point,
}

/// The attributes of an operation's duration point, held as values until it ends: most
/// points find their bound instrument by these values' bytes ([`Point::key`]), and only the
/// first of each set builds its attribute list ([`Point::attributes`]).
#[derive(Debug)]
pub(crate) struct Point {
    side: Side,
    method: Value,
    version: Option<Value>,
    is_call: bool,
    /// The tool or prompt, with its attribute's name.
    target: Option<(&'static str, Value)>,
    network: Network,
    status: Option<Value>,
    error: Option<Value>,
}

impl Point {
    /// Writes the point's values into `out`, each tagged and with its length: equal bytes,
    /// equal attribute sets (which attributes a set has follows from the tags).
    pub(crate) fn key(&self, out: &mut Vec<u8>) {
        let mut field = |tag: u8, bytes: &[u8]| {
            out.push(tag);
            out.extend_from_slice(&u32::try_from(bytes.len()).unwrap_or(u32::MAX).to_le_bytes());
            out.extend_from_slice(bytes);
        };
        field(b'm', self.method.as_str().as_bytes());
        if let Some(version) = &self.version {
            field(b'v', version.as_str().as_bytes());
        }
        if let Some((key, target)) = &self.target {
            let tag = if *key == attr::GEN_AI_TOOL_NAME {
                b't'
            } else {
                b'p'
            };
            field(tag, target.as_str().as_bytes());
        }
        let network = &self.network;
        field(b'n', network.transport.as_bytes());
        if let Some(version) = network.http_version {
            field(b'h', version.as_bytes());
        } else if network.http {
            field(b'H', &[]);
        }
        if self.side == Side::Sent
            && let Some(peer) = &network.peer
        {
            field(b'p', peer.address().as_str().as_bytes());
            field(b'P', &peer.port().to_le_bytes());
        }
        if let Some(status) = &self.status {
            field(b's', status.as_str().as_bytes());
        }
        if let Some(error) = &self.error {
            field(b'e', error.as_str().as_bytes());
        }
        out.push(u8::from(self.is_call) | (u8::from(self.side == Side::Sent) << 1));
    }

    /// The point's attributes.
    pub(crate) fn attributes(&self) -> Vec<KeyValue> {
        let mut out = Vec::with_capacity(11);
        out.push(KeyValue::new(attr::MCP_METHOD_NAME, self.method.clone()));
        if let Some(version) = &self.version {
            out.push(KeyValue::new(attr::MCP_PROTOCOL_VERSION, version.clone()));
        }
        if self.is_call {
            out.push(KeyValue::new(attr::GEN_AI_OPERATION_NAME, "execute_tool"));
        }
        if let Some((key, target)) = &self.target {
            out.push(KeyValue::new(*key, target.clone()));
        }
        // The peer is a metric attribute on the client only (the server's would be a
        // label per client).
        self.network
            .attributes(self.side, &mut out, self.side == Side::Sent);
        if let Some(status) = &self.status {
            out.push(KeyValue::new(
                attr::RPC_RESPONSE_STATUS_CODE,
                status.clone(),
            ));
        }
        if let Some(error) = &self.error {
            out.push(KeyValue::new(attr::ERROR_TYPE, error.clone()));
        }
        out
    }
}

/// `s` as a static string when it is one of the methods and protocol versions messages
/// name (most are): their attribute values then allocate nothing.
fn known(s: &str) -> Option<&'static str> {
    Some(match s {
        "tools/call" => "tools/call",
        "tools/list" => "tools/list",
        "prompts/get" => "prompts/get",
        "prompts/list" => "prompts/list",
        "resources/read" => "resources/read",
        "resources/list" => "resources/list",
        "resources/templates/list" => "resources/templates/list",
        "resources/subscribe" => "resources/subscribe",
        "resources/unsubscribe" => "resources/unsubscribe",
        "completion/complete" => "completion/complete",
        "initialize" => "initialize",
        "ping" => "ping",
        "logging/setLevel" => "logging/setLevel",
        "server/discover" => "server/discover",
        "subscriptions/listen" => "subscriptions/listen",
        "elicitation/create" => "elicitation/create",
        "sampling/createMessage" => "sampling/createMessage",
        "roots/list" => "roots/list",
        "notifications/initialized" => "notifications/initialized",
        "notifications/cancelled" => "notifications/cancelled",
        "notifications/progress" => "notifications/progress",
        "notifications/message" => "notifications/message",
        "notifications/roots/list_changed" => "notifications/roots/list_changed",
        "notifications/tools/list_changed" => "notifications/tools/list_changed",
        "notifications/prompts/list_changed" => "notifications/prompts/list_changed",
        "notifications/resources/list_changed" => "notifications/resources/list_changed",
        "notifications/resources/updated" => "notifications/resources/updated",
        "2026-07-28" => "2026-07-28",
        "2025-11-25" => "2025-11-25",
        "2025-06-18" => "2025-06-18",
        "2025-03-26" => "2025-03-26",
        "2024-11-05" => "2024-11-05",
        _ => return None,
    })
}

/// An attribute value of `s`: static when known, else a copy.
fn text(s: &str) -> Value {
    match known(s) {
        Some(k) => Value::from(k),
        None => Value::from(s.to_owned()),
    }
}

/// What a method names (the span name's target, and its attribute).
fn target_attribute(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" => Some(attr::GEN_AI_TOOL_NAME),
        "prompts/get" => Some(attr::GEN_AI_PROMPT_NAME),
        "resources/read"
        | "resources/subscribe"
        | "resources/unsubscribe"
        | "notifications/resources/updated" => Some(attr::MCP_RESOURCE_URI),
        _ => None,
    }
}

/// The fingerprint a session id is recorded as: the first 8 bytes of its SHA-256, in hex.
pub(crate) fn session_fingerprint(id: &str) -> String {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(id.as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

impl Operation {
    /// Starts the span of `facts` under `parent`, with `links`.
    pub(crate) fn start(
        telemetry: &Telemetry,
        side: Side,
        facts: &Facts<'_>,
        parent: &Context,
        links: Vec<Link>,
    ) -> Self {
        let target_key = target_attribute(facts.method);
        let is_call = facts.method == "tools/call";
        let named = match (target_key, facts.target) {
            (Some(key), Some(target)) if key != attr::MCP_RESOURCE_URI => Some((key, target)),
            _ => None,
        };
        let point = Point {
            side,
            method: text(facts.method),
            version: facts.version.map(text),
            is_call,
            // Shared by the span's and the metric's attributes.
            target: named
                .map(|(key, target)| (key, Value::String(Arc::<str>::from(target).into()))),
            network: facts.network.clone(),
            status: None,
            error: None,
        };
        let mut span_attributes = Vec::with_capacity(16);
        span_attributes.push(KeyValue::new(attr::MCP_METHOD_NAME, point.method.clone()));
        if let Some(version) = &point.version {
            span_attributes.push(KeyValue::new(attr::MCP_PROTOCOL_VERSION, version.clone()));
        }
        if is_call {
            span_attributes.push(KeyValue::new(attr::GEN_AI_OPERATION_NAME, "execute_tool"));
        }
        if let Some((key, target)) = &point.target {
            span_attributes.push(KeyValue::new(*key, target.clone()));
        }
        facts.network.attributes(side, &mut span_attributes, true);
        let named = named.map(|(_, target)| target);
        if let Some(id) = facts.id {
            let id = match id {
                RequestId::Number(n) => n.to_string(),
                RequestId::String(s) => s.clone(),
            };
            span_attributes.push(KeyValue::new(attr::JSONRPC_REQUEST_ID, id));
        }
        if let Some(session) = facts.session {
            span_attributes.push(KeyValue::new(
                attr::MCP_SESSION_ID,
                session_fingerprint(session),
            ));
        }
        let uri = (target_key == Some(attr::MCP_RESOURCE_URI))
            .then_some(facts.target)
            .flatten();
        if let Some(uri) = uri {
            span_attributes.push(KeyValue::new(attr::MCP_RESOURCE_URI, uri.to_owned()));
        }
        if telemetry.shared.sensitive
            && let Some(arguments) = facts.arguments
        {
            if is_call {
                let json = serde_json::to_string(arguments).unwrap_or_default();
                span_attributes.push(KeyValue::new(attr::GEN_AI_TOOL_CALL_ARGUMENTS, json));
            } else if facts.method == "prompts/get" {
                for (name, value) in arguments {
                    let value = match value {
                        serde_json::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    span_attributes.push(KeyValue::new(
                        format!("{}{name}", attr::GEN_AI_PROMPT_VARIABLE_PREFIX),
                        value,
                    ));
                }
            }
        }
        let name: Cow<'static, str> = match named.or(uri.filter(|_| telemetry.shared.uri_in_name)) {
            Some(target) => {
                let mut name = String::with_capacity(facts.method.len() + 1 + target.len());
                name.push_str(facts.method);
                name.push(' ');
                name.push_str(target);
                name.into()
            }
            None => match known(facts.method) {
                Some(method) => Cow::Borrowed(method),
                None => facts.method.to_owned().into(),
            },
        };
        let kind = match side {
            Side::Received => SpanKind::Server,
            Side::Sent => SpanKind::Client,
        };
        // Built in one go: each `with_*` moves the (large) builder once more.
        let builder = SpanBuilder {
            span_kind: Some(kind),
            attributes: Some(span_attributes),
            links: (!links.is_empty()).then_some(links),
            ..SpanBuilder::from_name(name)
        };
        let span = telemetry.shared.tracer.build_with_context(builder, parent);
        Self {
            telemetry: telemetry.clone(),
            side,
            cx: parent.with_span(span),
            started: Instant::now(),
            point,
        }
    }

    /// The context whose span is this operation's: what runs on its behalf runs in it.
    pub(crate) fn context(&self) -> &Context {
        &self.cx
    }

    /// Ends the span with `outcome` and records the duration.
    pub(crate) fn finish(mut self, outcome: Outcome<'_>) {
        let span = self.cx.span();
        let mut error_type: Option<Value> = None;
        match outcome {
            Outcome::Result(text) => {
                if self.point.is_call
                    && let Some(text) = text
                {
                    if is_tool_error(text) {
                        error_type = Some("tool_error".into());
                        span.set_status(Status::error(""));
                    } else if self.telemetry.shared.sensitive {
                        span.set_attribute(KeyValue::new(
                            attr::GEN_AI_TOOL_CALL_RESULT,
                            text.to_owned(),
                        ));
                    }
                }
            }
            Outcome::Error { code, message } => {
                let code_text: Value = code.to_string().into();
                self.point.status = Some(code_text.clone());
                span.set_attribute(KeyValue::new(
                    attr::RPC_RESPONSE_STATUS_CODE,
                    code_text.clone(),
                ));
                let failed = match self.side {
                    // The server's own failures; a request it could not serve is the caller's.
                    Side::Received => code == -32603 || (-32099..=-32000).contains(&code),
                    Side::Sent => true,
                };
                if failed {
                    error_type = Some(code_text);
                    span.set_status(Status::error(message.to_owned()));
                }
            }
            Outcome::Failed(kind) => {
                error_type = Some(kind.into());
                span.set_status(Status::error(kind));
            }
        }
        if let Some(error_type) = error_type {
            span.set_attribute(KeyValue::new(attr::ERROR_TYPE, error_type.clone()));
            self.point.error = Some(error_type);
        }
        span.end();
        let seconds = self.started.elapsed().as_secs_f64();
        let histogram = match self.side {
            Side::Received => &self.telemetry.shared.server_operation,
            Side::Sent => &self.telemetry.shared.client_operation,
        };
        histogram.record(seconds, &self.point);
    }
}

/// Whether a `tools/call` result reports a tool error (`"isError": true`).
fn is_tool_error(text: &str) -> bool {
    let Some(at) = text.find("\"isError\"") else {
        return false;
    };
    let rest = text[at + 9..].trim_start();
    rest.strip_prefix(':')
        .is_some_and(|r| r.trim_start().starts_with("true"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_errors_are_read_from_the_result_text() {
        assert!(is_tool_error(r#"{"content":[],"isError":true}"#));
        assert!(is_tool_error(r#"{"isError" : true}"#));
        assert!(!is_tool_error(r#"{"content":[],"isError":false}"#));
        assert!(!is_tool_error(r#"{"content":[]}"#));
    }

    #[test]
    fn ipv4_addresses_are_dotted_decimal() {
        for ip in [
            "127.0.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "10.20.100.9",
            "1.99.100.250",
        ] {
            assert_eq!(ipv4(ip.parse().unwrap()), ip);
        }
    }

    #[test]
    fn known_methods_and_versions_are_static() {
        assert_eq!(known("tools/call"), Some("tools/call"));
        assert_eq!(known("2026-07-28"), Some(crate::protocol::MODERN_VERSION));
        assert_eq!(known("tools/calls"), None);
    }

    #[test]
    fn points_of_different_attribute_sets_have_different_keys() {
        let point = |method: &str, target: Option<&str>, error: Option<&str>| Point {
            side: Side::Received,
            method: text(method),
            version: Some(text("2026-07-28")),
            is_call: method == "tools/call",
            target: target.map(|t| (attr::GEN_AI_TOOL_NAME, Value::from(t.to_owned()))),
            network: Network::local(false),
            status: error.map(|e| Value::from(e.to_owned())),
            error: error.map(|e| Value::from(e.to_owned())),
        };
        let key = |p: &Point| {
            let mut out = Vec::new();
            p.key(&mut out);
            out
        };
        let a = key(&point("tools/call", Some("add"), None));
        assert_eq!(a, key(&point("tools/call", Some("add"), None)));
        assert_ne!(a, key(&point("tools/call", Some("ad"), None)));
        assert_ne!(a, key(&point("tools/call", Some("add"), Some("-32603"))));
        assert_ne!(a, key(&point("tools/call", None, None)));
        assert_ne!(
            key(&point("tools/list", None, None)),
            key(&point("tools/call", None, None))
        );
        assert_eq!(
            point("tools/call", Some("add"), Some("-32603"))
                .attributes()
                .len(),
            7
        );
    }

    #[test]
    fn session_ids_are_fingerprinted() {
        let f = session_fingerprint("191c4850af6c49e08843a3f6c80e5046");
        assert_eq!(f.len(), 16);
        assert!(!f.contains("191c"));
    }
}

/// An operation that lasts as long as a value (a `subscriptions/listen` stream): it ends,
/// as answered, when dropped.
#[derive(Debug)]
pub(crate) struct Lasting(Option<Operation>);

impl Lasting {
    /// `operation`, ended when this is dropped.
    pub(crate) fn new(operation: Operation) -> Self {
        Self(Some(operation))
    }

    /// Ends it now with the error `code`, `message` (a refused request).
    pub(crate) fn refused(mut self, code: i64, message: &str) {
        if let Some(operation) = self.0.take() {
            operation.finish(Outcome::Error { code, message });
        }
    }
}

impl Drop for Lasting {
    fn drop(&mut self) {
        if let Some(operation) = self.0.take() {
            operation.finish(Outcome::Result(None));
        }
    }
}
