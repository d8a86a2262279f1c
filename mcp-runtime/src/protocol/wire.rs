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
    ClientCapabilities, Implementation, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL,
    META_PROTOCOL_VERSION, Message, Notification, Request, RequestEnvelope,
};

impl Message {
    /// Reads a request or a notification straight from `body`, without building a [`Value`]
    /// for the whole message: the fast path of the HTTP transport. `None` when `body` is
    /// anything else (a batch, a response, an invalid message, a duplicate or escaped
    /// member name): the caller then parses it into a [`Value`] and uses
    /// [`Message::from_value`], which gives the same message or the precise error, so both
    /// paths accept exactly the same messages.
    pub fn from_slice_fast(body: &[u8]) -> Option<Self> {
        read(body, false).map(|(message, _)| message)
    }
}

/// [`Message::from_slice_fast`], and with `lift` a modern envelope lifted out of
/// `params._meta`: when `_meta` claims the modern era (has the protocol version key), its
/// reserved keys are read into the returned [`RequestEnvelope`] and are not in the message's
/// `_meta` (left out when nothing else was in it); handlers never see those keys anyway
/// ([`RequestEnvelope::strip`]). Without a claim, or without `lift` (a legacy-only
/// endpoint, whose handlers see `_meta` as sent), `_meta` keeps every key. `None` also when
/// a claimed envelope does not read: the strict path then names the problem.
pub(crate) fn read(body: &[u8], lift: bool) -> Option<(Message, Option<RequestEnvelope>)> {
    if lift {
        read_as::<true>(body)
    } else {
        read_as::<false>(body)
    }
}

/// [`read`], lifting or not.
fn read_as<const LIFT: bool>(body: &[u8]) -> Option<(Message, Option<RequestEnvelope>)> {
    let wire: WireCall<'_, LIFT> = serde_json::from_slice(body).ok()?;
    if wire.jsonrpc != "2.0" {
        return None;
    }
    let id = match wire.id {
        None => None,
        Some(v) => Some(parse_id(v).ok()?),
    };
    let (params, envelope) = match wire.params {
        None => (None, None),
        Some(p) => {
            let (params, envelope) = p.finish()?;
            (Some(params), envelope)
        }
    };
    let token = params
        .as_ref()
        .and_then(|p| p.get("_meta")?.get("progressToken"));
    if token.is_some_and(|t| !is_progress_token(t)) {
        return None;
    }
    let method = wire.method;
    let message = match id {
        Some(id) => Message::Request(Request { id, method, params }),
        None => Message::Notification(Notification { method, params }),
    };
    Some((message, envelope))
}

/// The members of a request or a notification as [`read`] reads them; any other member
/// fails the read (and sends the body to the strict path).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireCall<'a, const LIFT: bool> {
    #[serde(borrow)]
    jsonrpc: &'a str,
    /// `Some(Value::Null)` for `"id": null`, which is not a notification.
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    method: String,
    /// `"params": null` fails the read (the strict path refuses it).
    #[serde(borrow, default, deserialize_with = "present_params")]
    params: Option<WireParams<'a, LIFT>>,
}

/// A member that is present, even when it is `null`.
fn present<'de, D: de::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

fn present_params<'de, D: de::Deserializer<'de>, const LIFT: bool>(
    d: D,
) -> Result<Option<WireParams<'de, LIFT>>, D::Error> {
    WireParams::deserialize(d).map(Some)
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

impl<const LIFT: bool> WireParams<'_, LIFT> {
    /// The params object, and the envelope when lifted (see [`read`]); `None` when a claimed
    /// envelope does not read, or when lifting read reserved keys of an unclaimed `_meta`
    /// (the strict path then keeps them as sent).
    fn finish(self) -> Option<(Map<String, Value>, Option<RequestEnvelope>)> {
        let WireParams {
            mut params,
            reserved,
        } = self;
        if reserved.is_empty() {
            return Some((params, None));
        }
        if LIFT {
            let typed = *reserved.typed?;
            let envelope = RequestEnvelope::from_parts(
                typed.protocol_version?,
                typed.client_capabilities,
                typed.client_info,
                typed.log_level,
            )?;
            return Some((params, Some(envelope)));
        }
        // Not lifted: `_meta` gets its reserved keys back, as sent.
        let Some(Value::Object(meta)) = params.get_mut("_meta") else {
            return None;
        };
        for (key, raw) in RESERVED.into_iter().zip(reserved.raw) {
            if let Some(raw) = raw {
                meta.insert(key.to_owned(), serde_json::from_str(raw.get()).ok()?);
            }
        }
        Some((params, None))
    }
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
                // A `_meta` that held only the lifted envelope is left out: handlers see
                // no `_meta` either way (`RequestEnvelope::strip`).
                if !(LIFT && meta.is_empty() && reserved.typed.is_some()) {
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
                        text => serde_json::from_str(text).map_err(de::Error::custom)?,
                    };
                    r.client_capabilities.replace(capabilities).is_some()
                }
                2 => r.client_info.replace(access.next_value()?).is_some(),
                _ => r.log_level.replace(access.next_value()?).is_some(),
            };
            if repeated {
                return Err(twice());
            }
        }
        Ok(meta)
    }
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
            assert_eq!(read(body.as_bytes(), true), Some(strict(body)), "{body}");
            let unlifted = Message::from_value(serde_json::from_str(body).unwrap()).unwrap();
            assert_eq!(
                read(body.as_bytes(), false),
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
            read(unclaimed.as_bytes(), false),
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
}
