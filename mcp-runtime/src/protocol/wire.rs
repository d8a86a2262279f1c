//! The fast read of a single request or notification, straight from the body bytes.
//!
//! [`Message::from_value`] is the strict reader: it needs a [`Value`] for the whole message.
//! Most HTTP bodies are one request, and for them the transport reads the envelope members
//! straight from the bytes and, for a modern request, lifts the reserved `_meta` keys of the
//! per-request envelope (PROTOCOL.md §7) out while reading: they are kept as raw JSON text
//! and read once into a typed [`RequestEnvelope`], instead of being built into a `Value`
//! tree, read from it and stripped from it again. Whatever this reader does not take on
//! (batches, responses, invalid messages, duplicate or escaped member names, an envelope
//! that does not read) it leaves to the strict reader, which gives the same message or the
//! precise error, so both accept exactly the same messages.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::jsonrpc::{is_progress_token, parse_id};
use super::{
    CallToolParams, ClientCapabilities, Implementation, META_CLIENT_CAPABILITIES, META_CLIENT_INFO,
    META_LOG_LEVEL, META_PROTOCOL_VERSION, Message, Notification, Request, RequestEnvelope,
};

impl Message {
    /// Reads a request or a notification straight from `body`, without building a [`Value`]
    /// for the whole message: the fast path of the HTTP transport. `None` when `body` is
    /// anything else (a batch, a response, an invalid message, a duplicate or escaped
    /// member name): the caller then parses it into a [`Value`] and uses
    /// [`Message::from_value`], which gives the same message or the precise error, so both
    /// paths accept exactly the same messages.
    pub fn from_slice_fast(body: &[u8]) -> Option<Self> {
        read_as::<false>(body, false).map(|read| read.message)
    }
}

/// What [`read`] gives: the message, the envelope it lifted, and the params of a
/// `tools/call` read straight into their type.
#[derive(Debug, PartialEq)]
pub(crate) struct Read {
    pub(crate) message: Message,
    pub(crate) envelope: Option<RequestEnvelope>,
    /// The params of a request whose `method` (`tools/call`) came before its `params` (as
    /// every client writes it): read into [`CallToolParams`] without an object for the
    /// params (the message then has none), members other than the five it has skipped, as
    /// [`CallToolParams::take`] skips them. When a member has a type `take` would refuse,
    /// or `requestState` is not a string (a modern call refuses even `null`), the read is
    /// left to the object and strict paths, which name the problem.
    pub(crate) call: Option<Box<CallToolParams>>,
}

/// [`Message::from_slice_fast`], and with `lift` a modern envelope lifted out of
/// `params._meta`: when `_meta` claims the modern era (has the protocol version key), its
/// reserved keys are read into the returned [`RequestEnvelope`] and are not in the message's
/// `_meta` (left out when nothing else was in it); handlers never see those keys anyway
/// ([`RequestEnvelope::strip`]). Without a claim, or without `lift` (a legacy-only
/// endpoint, whose handlers see `_meta` as sent), `_meta` keeps every key. `None` also when
/// a claimed envelope does not read: the strict path then names the problem. The params of a
/// `tools/call` are read typed ([`Read::call`]).
pub(crate) fn read(body: &[u8], lift: bool) -> Option<Read> {
    if lift {
        read_as::<true>(body, true)
    } else {
        read_as::<false>(body, true)
    }
}

/// [`read`], lifting or not, reading `tools/call` params typed or not.
fn read_as<const LIFT: bool>(body: &[u8], typed: bool) -> Option<Read> {
    // UTF-8 is checked once for the whole body (as the strict path's parse checks it), and
    // the strings are then read without a check each.
    let text = std::str::from_utf8(body).ok()?;
    let mut de = serde_json::Deserializer::from_str(text);
    let wire = de::Deserializer::deserialize_map(&mut de, CallVisitor::<LIFT> { typed }).ok()?;
    de.end().ok()?;
    if wire.jsonrpc != "2.0" {
        return None;
    }
    let id = match wire.id {
        None => None,
        Some(v) => Some(parse_id(v).ok()?),
    };
    let (params, envelope, call) = match wire.params {
        None => (None, None, None),
        Some(Params::Object(p)) => {
            let WireParams {
                mut params,
                reserved,
            } = p;
            let meta = match params.get_mut("_meta") {
                Some(Value::Object(meta)) => Some(meta),
                _ => None,
            };
            let envelope = settle::<LIFT>(reserved, meta)?;
            (Some(params), envelope, None)
        }
        Some(Params::Call(mut call, reserved)) => {
            let envelope = settle::<LIFT>(reserved, call.meta.as_mut())?;
            (None, envelope, Some(call))
        }
    };
    let meta = match (&params, &call) {
        (Some(p), _) => p.get("_meta").and_then(Value::as_object),
        (None, Some(call)) => call.meta.as_ref(),
        (None, None) => None,
    };
    if meta
        .and_then(|m| m.get("progressToken"))
        .is_some_and(|t| !is_progress_token(t))
    {
        return None;
    }
    let method = wire.method;
    let message = match id {
        Some(id) => Message::Request(Request { id, method, params }),
        // A notification is never `tools/call`: its params stay an object.
        None if call.is_some() => return None,
        None => Message::Notification(Notification { method, params }),
    };
    Some(Read {
        message,
        envelope,
        call,
    })
}

/// The members of a request or a notification as [`read`] reads them; any other member,
/// a repeated one or a missing `jsonrpc` or `method` fails the read (and sends the body to
/// the strict path).
struct WireCall<'a, const LIFT: bool> {
    jsonrpc: &'a str,
    /// `Some(Value::Null)` for `"id": null`, which is not a notification.
    id: Option<Value>,
    method: String,
    /// `"params": null` fails the read (the strict path refuses it).
    params: Option<Params<'a, LIFT>>,
}

/// `params`, as an object or, for a `tools/call`, typed.
enum Params<'a, const LIFT: bool> {
    Object(WireParams<'a, LIFT>),
    Call(Box<CallToolParams>, Reserved<'a>),
}

/// Reads a [`WireCall`]; `typed` reads the params of a `tools/call` typed.
struct CallVisitor<const LIFT: bool> {
    typed: bool,
}

impl<'de, const LIFT: bool> Visitor<'de> for CallVisitor<LIFT> {
    type Value = WireCall<'de, LIFT>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC request or notification")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut jsonrpc: Option<&'de str> = None;
        let mut id: Option<Value> = None;
        let mut method: Option<String> = None;
        let mut params: Option<Params<'de, LIFT>> = None;
        while let Some(Key(key)) = access.next_key()? {
            let repeated = match key.as_ref() {
                "jsonrpc" => jsonrpc.replace(access.next_value()?).is_some(),
                "id" => id.replace(access.next_value()?).is_some(),
                "method" => method.replace(access.next_value()?).is_some(),
                "params" => {
                    let read = if self.typed && method.as_deref() == Some("tools/call") {
                        let (call, reserved) = access.next_value_seed(CallSeed::<LIFT>)?;
                        Params::Call(call, reserved)
                    } else {
                        Params::Object(access.next_value()?)
                    };
                    params.replace(read).is_some()
                }
                other => return Err(de::Error::unknown_field(other, &[])),
            };
            if repeated {
                return Err(de::Error::custom("a member appears twice"));
            }
        }
        Ok(WireCall {
            jsonrpc: jsonrpc.ok_or_else(|| de::Error::missing_field("jsonrpc"))?,
            id,
            method: method.ok_or_else(|| de::Error::missing_field("method"))?,
            params,
        })
    }
}

/// `params`: an object whose `_meta` (when it is an object) has the envelope's reserved keys
/// set aside: read into their types when lifting (`LIFT`), as raw text otherwise.
struct WireParams<'a, const LIFT: bool> {
    params: Map<String, Value>,
    reserved: Reserved<'a>,
}

/// The reserved envelope keys of `params._meta`: as raw text without lifting, read when
/// lifting.
#[derive(Default)]
struct Reserved<'a> {
    raw: [Option<&'a RawValue>; 4],
    /// Boxed: most bodies have none, and the params are moved a few times while read.
    typed: Option<Box<Typed>>,
}

/// The reserved keys read into their types.
#[derive(Default)]
struct Typed {
    protocol_version: Option<String>,
    client_capabilities: Option<ClientCapabilities>,
    client_info: Option<Implementation>,
    log_level: Option<String>,
}

/// The reserved keys, in the order of [`Reserved::raw`].
const RESERVED: [&str; 4] = [
    META_PROTOCOL_VERSION,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
];

impl Reserved<'_> {
    fn is_empty(&self) -> bool {
        self.raw.iter().all(Option::is_none) && self.typed.is_none()
    }
}

/// The envelope of the params whose `_meta` (`meta`, when it is an object) had `reserved`
/// set aside (see [`read`]); `None` when a claimed envelope does not read, or when lifting
/// read reserved keys of an unclaimed `_meta` (the strict path then keeps them as sent).
/// Without lifting, `meta` gets its reserved keys back, as sent.
fn settle<const LIFT: bool>(
    reserved: Reserved<'_>,
    meta: Option<&mut Map<String, Value>>,
) -> Option<Option<RequestEnvelope>> {
    if reserved.is_empty() {
        return Some(None);
    }
    if LIFT {
        let typed = *reserved.typed?;
        let envelope = RequestEnvelope::from_parts(
            typed.protocol_version?,
            typed.client_capabilities,
            typed.client_info,
            typed.log_level,
        )?;
        return Some(Some(envelope));
    }
    let meta = meta?;
    for (key, raw) in RESERVED.into_iter().zip(reserved.raw) {
        if let Some(raw) = raw {
            meta.insert(key.to_owned(), serde_json::from_str(raw.get()).ok()?);
        }
    }
    Some(None)
}

impl<'de: 'a, 'a, const LIFT: bool> Deserialize<'de> for WireParams<'a, LIFT> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ParamsVisitor::<LIFT>)
    }
}

struct ParamsVisitor<const LIFT: bool>;

impl<'de, const LIFT: bool> Visitor<'de> for ParamsVisitor<LIFT> {
    type Value = WireParams<'de, LIFT>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a params object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut params = Map::new();
        let mut reserved = Reserved::default();
        let mut seen_meta = false;
        while let Some(Key(key)) = access.next_key()? {
            if key == "_meta" {
                if seen_meta {
                    return Err(de::Error::duplicate_field("_meta"));
                }
                seen_meta = true;
                let meta = access.next_value_seed(MetaSeed::<LIFT> {
                    reserved: &mut reserved,
                })?;
                if let Some(meta) = kept::<LIFT>(meta, &reserved) {
                    params.insert(key.into_owned(), Value::Object(meta));
                }
            } else {
                let value = access.next_value::<Value>()?;
                params.insert(key.into_owned(), value);
            }
        }
        Ok(WireParams { params, reserved })
    }
}

/// The `_meta` handlers see: left out when it held only the lifted envelope (handlers see
/// no `_meta` either way, [`RequestEnvelope::strip`]).
fn kept<const LIFT: bool>(
    meta: Map<String, Value>,
    reserved: &Reserved<'_>,
) -> Option<Map<String, Value>> {
    (!(LIFT && meta.is_empty() && reserved.typed.is_some())).then_some(meta)
}

/// Reads the params of a `tools/call` into [`CallToolParams`], with `_meta` read as
/// [`MetaSeed`] reads it.
struct CallSeed<const LIFT: bool>;

impl<'de, const LIFT: bool> DeserializeSeed<'de> for CallSeed<LIFT> {
    type Value = (Box<CallToolParams>, Reserved<'de>);

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, const LIFT: bool> Visitor<'de> for CallSeed<LIFT> {
    type Value = (Box<CallToolParams>, Reserved<'de>);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the params of a tools/call")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut name = None;
        let mut call = Box::new(CallToolParams {
            name: String::new(),
            arguments: None,
            input_responses: None,
            request_state: None,
            meta: None,
        });
        let mut reserved = Reserved::default();
        // Which of name, arguments, inputResponses, requestState and _meta were read.
        let mut seen = [false; 5];
        while let Some(Key(key)) = access.next_key()? {
            let slot = match key.as_ref() {
                "name" => 0,
                "arguments" => 1,
                "inputResponses" => 2,
                "requestState" => 3,
                "_meta" => 4,
                _ => {
                    range_safe(access.next_value()?)?;
                    continue;
                }
            };
            if std::mem::replace(&mut seen[slot], true) {
                return Err(de::Error::custom("a member appears twice"));
            }
            match slot {
                0 => name = Some(access.next_value::<String>()?),
                1 => call.arguments = access.next_value()?,
                2 => call.input_responses = access.next_value()?,
                // `null` goes to the object path: a modern call refuses it there.
                3 => call.request_state = Some(access.next_value()?),
                _ => {
                    let meta = access.next_value_seed(MetaSeed::<LIFT> {
                        reserved: &mut reserved,
                    })?;
                    call.meta = kept::<LIFT>(meta, &reserved);
                }
            }
        }
        call.name = name.ok_or_else(|| de::Error::missing_field("name"))?;
        Ok((call, reserved))
    }
}

/// Reads `_meta` (an object; anything else fails the fast read), setting the reserved keys
/// aside.
struct MetaSeed<'r, 'a, const LIFT: bool> {
    reserved: &'r mut Reserved<'a>,
}

impl<'de: 'a, 'a, const LIFT: bool> DeserializeSeed<'de> for MetaSeed<'_, 'a, LIFT> {
    type Value = Map<String, Value>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de: 'a, 'a, const LIFT: bool> Visitor<'de> for MetaSeed<'_, 'a, LIFT> {
    type Value = Map<String, Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a _meta object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut meta = Map::new();
        let twice = || de::Error::custom("a reserved _meta key appears twice");
        while let Some(Key(key)) = access.next_key()? {
            let Some(index) = RESERVED.iter().position(|r| *r == key) else {
                let value = access.next_value::<Value>()?;
                meta.insert(key.into_owned(), value);
                continue;
            };
            if !LIFT {
                if self.reserved.raw[index]
                    .replace(access.next_value()?)
                    .is_some()
                {
                    return Err(twice());
                }
                continue;
            }
            let r = self.reserved.typed.get_or_insert_default();
            let repeated = match index {
                0 => r.protocol_version.replace(access.next_value()?).is_some(),
                1 => {
                    // `{}` (what most clients send) is the default, without serde's
                    // buffering of a struct with flattened members.
                    let raw: &'de RawValue = access.next_value()?;
                    let capabilities = match raw.get() {
                        "{}" => ClientCapabilities::default(),
                        _ => serde_json::from_str(range_safe(raw)?).map_err(de::Error::custom)?,
                    };
                    r.client_capabilities.replace(capabilities).is_some()
                }
                2 => {
                    let raw: &'de RawValue = access.next_value()?;
                    let info = serde_json::from_str(range_safe(raw)?).map_err(de::Error::custom)?;
                    r.client_info.replace(info).is_some()
                }
                _ => r.log_level.replace(access.next_value()?).is_some(),
            };
            if repeated {
                return Err(twice());
            }
        }
        Ok(meta)
    }
}

/// The text of `raw`, a value whose members serde may skip without reading them, once it is
/// known to hold no number the strict path would refuse: a skipped number is
/// not checked against `f64`'s range, which the strict path's parse refuses (`1e400`, or
/// 400 digits). An error, which leaves the body to the strict path, when `raw` may hold
/// such a number: a digit followed by an exponent, or a run of 300 digits (rare outside
/// such numbers; the strict path answers those bodies just the same).
fn range_safe<E: de::Error>(raw: &RawValue) -> Result<&str, E> {
    let text = raw.get();
    let mut digits = 0;
    for &b in text.as_bytes() {
        if b.is_ascii_digit() {
            digits += 1;
            if digits == 300 {
                return Err(E::custom("a long number"));
            }
        } else if digits > 0 && matches!(b, b'e' | b'E') {
            return Err(E::custom("a number with an exponent"));
        } else {
            digits = 0;
        }
    }
    Ok(text)
}

/// A member name, borrowed from the body unless it has escapes: the reserved keys are
/// recognised without allocating.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Key(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Key(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Key(Cow::Owned(v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message and envelope the strict path gives for `body` (the envelope as
    /// `classify` reads it, then stripped from `_meta` as handlers see it).
    fn strict(body: &str) -> (Message, Option<RequestEnvelope>) {
        let mut message = Message::from_value(serde_json::from_str(body).unwrap()).unwrap();
        let params = match &mut message {
            Message::Request(r) => &mut r.params,
            Message::Notification(n) => &mut n.params,
            Message::Response(_) => unreachable!(),
        };
        if !RequestEnvelope::has_claim(params.as_ref()) {
            return (message, None);
        }
        let envelope = RequestEnvelope::parse(params.as_ref()).unwrap();
        let params = params.as_mut().unwrap();
        if let Some(Value::Object(meta)) = params.get_mut("_meta") {
            for key in crate::protocol::RESERVED_META_KEYS {
                meta.remove(key);
            }
            if meta.is_empty() {
                params.remove("_meta");
            }
        }
        (message, Some(envelope))
    }

    /// A read as `(message, envelope)`, typed `tools/call` params put back as the params
    /// object (with the members they have).
    fn untyped(read: Read) -> (Message, Option<RequestEnvelope>) {
        let Read {
            mut message,
            envelope,
            call,
        } = read;
        if let (Some(call), Message::Request(request)) = (call, &mut message) {
            let Value::Object(params) = serde_json::to_value(*call).unwrap() else {
                unreachable!()
            };
            request.params = Some(params);
        }
        (message, envelope)
    }

    /// The fast path reads the same message as the strict one, or leaves the body to it.
    #[test]
    fn fast_path_agrees_with_the_strict_one() {
        let same = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":1},"_meta":{"progressToken":"t"}}}"#,
            r#"{"method":"ping","id":"a","jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":-3,"method":"x","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}}}"#,
        ];
        for body in same {
            let strict = Message::from_value(serde_json::from_str(body).unwrap()).unwrap();
            assert_eq!(
                Message::from_slice_fast(body.as_bytes()),
                Some(strict),
                "{body}"
            );
        }
        // Each of these is left to the strict path (which answers it or names the error).
        let left = [
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","extra":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"progressToken":{}}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":[]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{},"_meta":{}}}"#,
        ];
        for body in left {
            assert_eq!(Message::from_slice_fast(body.as_bytes()), None, "{body}");
            assert!(read(body.as_bytes(), true).is_none(), "{body}");
        }
    }

    /// With `lift`, a claimed envelope is read as `classify` reads it from the strict
    /// message, and `_meta` is what handlers see after stripping it; an unclaimed `_meta`
    /// keeps its keys.
    #[test]
    fn lifting_agrees_with_the_strict_envelope() {
        let bodies = [
            concat!(
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","#,
                r#""arguments":{"a":2,"b":3},"_meta":{"#,
                r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
                r#""io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"#,
                r#""io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"#,
                r#""io.modelcontextprotocol/logLevel":"info","progressToken":7}}}"#
            ),
            concat!(
                r#"{"jsonrpc":"2.0","method":"notifications/x","params":{"_meta":{"#,
                r#""io.modelcontextprotocol/clientCapabilities":{},"#,
                r#""io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}"#
            ),
            r#"{"jsonrpc":"2.0","id":"s","method":"server/discover","params":{"a":1}}"#,
        ];
        for body in bodies {
            let lifted = read(body.as_bytes(), true).map(untyped);
            assert_eq!(lifted, Some(strict(body)), "{body}");
            let unlifted = Message::from_value(serde_json::from_str(body).unwrap()).unwrap();
            assert_eq!(
                read(body.as_bytes(), false).map(untyped),
                Some((unlifted, None)),
                "{body}"
            );
        }
        // Reserved keys without a claim: kept as sent without lifting; lifting leaves the
        // body to the strict path, which keeps them too.
        let unclaimed = concat!(
            r#"{"jsonrpc":"2.0","id":"s","method":"server/discover","params":{"_meta":{"#,
            r#""io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"k":[1]}}}"#
        );
        let strict_message = Message::from_value(serde_json::from_str(unclaimed).unwrap()).unwrap();
        assert_eq!(
            read(unclaimed.as_bytes(), false).map(untyped),
            Some((strict_message, None))
        );
        assert_eq!(read(unclaimed.as_bytes(), true), None);
        // A claimed envelope that does not read is left to the strict path, which names
        // the problem.
        let bad = [
            r#"{"io.modelcontextprotocol/protocolVersion":1,"io.modelcontextprotocol/clientCapabilities":{}}"#,
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#,
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}"#,
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":1}}"#,
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}"#,
            r#"{"io.modelcontextprotocol/protocolVersion":"a","io.modelcontextprotocol/protocolVersion":"b","io.modelcontextprotocol/clientCapabilities":{}}"#,
        ];
        for meta in bad {
            let body =
                format!(r#"{{"jsonrpc":"2.0","id":1,"method":"x","params":{{"_meta":{meta}}}}}"#);
            assert!(read(body.as_bytes(), true).is_none(), "{body}");
        }
    }

    /// The params of a `tools/call` whose method comes first read typed, as
    /// `CallToolParams::take` reads the strict params (other members skipped); anything
    /// `take` would refuse, and the rare shapes, are left to the strict path.
    #[test]
    fn tools_call_params_read_typed() {
        let call = |params: &str| {
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#)
        };
        let typed = [
            r#"{"name":"add","arguments":{"a":2,"b":3}}"#,
            r#"{"arguments":{"a":[1,{"b":null}]},"name":"add","extra":[1,{"x":2}]}"#,
            r#"{"name":"add","arguments":null,"inputResponses":{"k":{}}}"#,
            r#"{"name":"a\u0064d","requestState":"s","_meta":{"progressToken":"t","k":1}}"#,
            r#"{"name":"add","_meta":{"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}}"#,
        ];
        for params in typed {
            let body = call(params);
            let Read { message, call, .. } = read(body.as_bytes(), false).expect(&body);
            let strict = Message::from_value(serde_json::from_str(&body).unwrap()).unwrap();
            let Message::Request(mut request) = strict else {
                unreachable!()
            };
            let expected = CallToolParams::take(request.params.take().unwrap()).unwrap();
            assert_eq!(call.as_deref(), Some(&expected), "{body}");
            assert_eq!(message, Message::Request(request), "{body}");
        }
        // Lifted: the envelope leaves `_meta`, which is left out when nothing else was in it.
        let body = call(concat!(
            r#"{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
            r#""io.modelcontextprotocol/clientCapabilities":{}}}"#
        ));
        let lifted = read(body.as_bytes(), true).unwrap();
        assert_eq!(lifted.envelope.unwrap().protocol_version, "2026-07-28");
        assert_eq!(lifted.call.unwrap().meta, None);
        // `params` before `method`: read as an object.
        let late = r#"{"jsonrpc":"2.0","id":1,"params":{"name":"add"},"method":"tools/call"}"#;
        let late = read(late.as_bytes(), true).unwrap();
        assert!(late.call.is_none());
        assert!(matches!(late.message, Message::Request(r) if r.params.is_some()));
        let strict_only = [
            r#"{"arguments":{}}"#,
            r#"{"name":7}"#,
            r#"{"name":"add","arguments":[1]}"#,
            r#"{"name":"add","requestState":5}"#,
            r#"{"name":"add","requestState":null}"#,
            r#"{"name":"add","inputResponses":"x"}"#,
            r#"{"name":"add","name":"sub"}"#,
            r#"{"name":"add","_meta":null}"#,
            r#"{"name":"add","_meta":{"progressToken":[]}}"#,
            r#"null"#,
        ];
        let mut bodies: Vec<Vec<u8>> = strict_only.iter().map(|p| call(p).into_bytes()).collect();
        // Invalid UTF-8 in a member the typed read skips: the strict path refuses the body.
        let mut bad = call(r#"{"name":"add","other":"x"}"#).into_bytes();
        let at = bad.iter().position(|&b| b == b'x').unwrap();
        bad[at] = 0xee;
        assert!(serde_json::from_slice::<Value>(&bad).is_err());
        bodies.push(bad);
        for body in bodies {
            let shown = String::from_utf8_lossy(&body);
            assert!(read(&body, true).is_none(), "{shown}");
            assert!(read(&body, false).is_none(), "{shown}");
        }
        // Numbers serde would skip without the range check the strict parse makes: in a
        // skipped member, in `clientInfo`, in `clientCapabilities`.
        let envelope = |extra: &str| {
            format!(
                r#"{{"name":"add","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},{extra}}}}}"#
            )
        };
        let long = "9".repeat(400);
        for params in [
            r#"{"name":"add","other":[1e400]}"#.to_owned(),
            format!(r#"{{"name":"add","other":{long}}}"#),
            envelope(
                r#""io.modelcontextprotocol/clientInfo":{"name":"c","version":"1","x":-2E999}"#,
            ),
        ] {
            let body = call(&params);
            assert!(serde_json::from_str::<Value>(&body).is_err(), "{body}");
            assert!(read(body.as_bytes(), true).is_none(), "{body}");
            assert!(read(body.as_bytes(), false).is_none(), "{body}");
        }
        // The bound: a run of 299 digits reads typed (the strict parse takes it too); from
        // 300 on, the body goes to the strict path, which takes it as well.
        for (digits, typed) in [(299, true), (300, false)] {
            let body = call(&format!(
                r#"{{"name":"add","other":{}}}"#,
                "9".repeat(digits)
            ));
            assert!(serde_json::from_str::<Value>(&body).is_ok(), "{digits}");
            assert_eq!(read(body.as_bytes(), true).is_some(), typed, "{digits}");
        }
        // A `tools/call` notification keeps its params object (through the strict path).
        let note = r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add"}}"#;
        assert!(read(note.as_bytes(), true).is_none());
        assert!(Message::from_slice_fast(note.as_bytes()).is_some());
    }
}
