//! Request-state signing: the state a handler returns with an input-required result is
//! sealed (HMAC-SHA256) and verified on the continuation before the handler runs, so handlers
//! only ever see the plain text they returned.
//!
//! The token is `v1.<base64url(payload)>.<base64url(mac)>`, where the payload is
//! `{"p": state, "exp": unix-seconds}` and the MAC covers the token prefix *and* the binding:
//! the tool (or prompt) name, the call's arguments in canonical key order, and the caller (the identity
//! key that owns its legacy sessions: issuer, client and subject of a token, or a Basic user
//! name; or none). The binding is recomputed on verification, so a state issued
//! for another call or caller fails closed. Signed is not encrypted: the client can read the
//! state.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use crate::protocol::JsonObject;

type HmacSha256 = Hmac<Sha256>;

/// The shortest key accepted (bytes).
pub const MIN_KEY_BYTES: usize = 32;
/// The default lifetime of a request state (each round renews it).
pub const DEFAULT_TTL: Duration = Duration::from_secs(600);
/// Tokens longer than this are refused before any work.
pub const MAX_TOKEN_BYTES: usize = 64 * 1024;

const PREFIX: &str = "v1.";

/// What a request state continues: a `tools/call` or a `prompts/get`. A state issued by
/// one never opens for the other, whatever their names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    /// A tool call.
    Tool,
    /// A prompt.
    Prompt,
}

impl Subject {
    /// `"tool"` or `"prompt"`, for messages.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Prompt => "prompt",
        }
    }
}

/// What a request state is bound to.
#[derive(Clone, Copy, Debug)]
pub struct Binding<'a> {
    /// Whether a tool or a prompt is continued.
    pub subject: Subject,
    /// The tool or prompt name.
    pub name: &'a str,
    /// The call's arguments (a prompt's string arguments as JSON strings).
    pub arguments: Option<&'a JsonObject>,
    /// The caller's identity key ([`Owner::key`](crate::session::Owner::key) of an identified
    /// caller: the issuer, client and subject of a token, or a Basic user name; `None` for
    /// callers that cannot be told apart).
    pub caller: Option<&'a str>,
}

/// Why a token was refused. Only logged (at debug level), never sent to the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// Not a `v1.` token of two base64url parts, or too long.
    #[error("malformed request state")]
    Malformed,
    /// No key verifies the MAC (tampered, another call or caller, or an unknown key).
    #[error("request state signature mismatch")]
    Signature,
    /// The token has expired.
    #[error("request state expired")]
    Expired,
}

/// Why a signer could not be configured.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SignerConfigError {
    /// A key is shorter than [`MIN_KEY_BYTES`].
    #[error(
        "request-state key {index} is {len} bytes; keys must be at least {MIN_KEY_BYTES} bytes"
    )]
    ShortKey {
        /// Position in the key list.
        index: usize,
        /// Its length.
        len: usize,
    },
    /// The TTL is zero.
    #[error("the request-state ttl must be positive")]
    Ttl,
}

/// Seals and opens request states. The first key signs; every key verifies (rotation: put
/// the new key first and drop the old one once its states have expired).
#[derive(Clone)]
pub struct Signer {
    keys: Vec<HmacSha256>,
    ttl: Duration,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signer")
            .field(
                "keys",
                &vec![crate::redact::Redacted::HIDDEN; self.keys.len()],
            )
            .field("ttl", &self.ttl)
            .finish()
    }
}

impl Signer {
    /// A signer with `keys` (≥ 32 bytes each) and `ttl`. Without keys a random key is
    /// generated: its states do not survive a restart and no other replica accepts them.
    pub fn new(keys: &[Vec<u8>], ttl: Duration) -> Result<Self, SignerConfigError> {
        if ttl.is_zero() {
            return Err(SignerConfigError::Ttl);
        }
        let random;
        let keys: &[Vec<u8>] = if keys.is_empty() {
            random = vec![rand::random::<[u8; 32]>().to_vec()];
            &random
        } else {
            keys
        };
        let mut macs = Vec::with_capacity(keys.len());
        for (index, key) in keys.iter().enumerate() {
            if key.len() < MIN_KEY_BYTES {
                return Err(SignerConfigError::ShortKey {
                    index,
                    len: key.len(),
                });
            }
            macs.push(HmacSha256::new_from_slice(key).map_err(|_| {
                SignerConfigError::ShortKey {
                    index,
                    len: key.len(),
                }
            })?);
        }
        Ok(Self { keys: macs, ttl })
    }

    /// Seals `state` for `binding`, expiring `ttl` from now.
    pub fn seal(&self, state: &str, binding: &Binding<'_>) -> String {
        self.seal_at(state, binding, now())
    }

    /// Opens a token for `binding`, returning the plain state.
    pub fn open(&self, token: &str, binding: &Binding<'_>) -> Result<String, StateError> {
        self.open_at(token, binding, now())
    }

    fn seal_at(&self, state: &str, binding: &Binding<'_>, now: u64) -> String {
        let exp = now.saturating_add(self.ttl.as_secs().max(1));
        let payload = URL_SAFE_NO_PAD.encode(json!({"p": state, "exp": exp}).to_string());
        let signed = format!("{PREFIX}{payload}");
        let mut mac = self.keys[0].clone();
        mac.update(signed.as_bytes());
        mac.update(b"\n");
        mac.update(&binding_bytes(binding));
        let tag = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        format!("{signed}.{tag}")
    }

    fn open_at(&self, token: &str, binding: &Binding<'_>, now: u64) -> Result<String, StateError> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(StateError::Malformed);
        }
        let rest = token.strip_prefix(PREFIX).ok_or(StateError::Malformed)?;
        let (payload, tag) = rest.split_once('.').ok_or(StateError::Malformed)?;
        let tag = URL_SAFE_NO_PAD
            .decode(tag)
            .map_err(|_| StateError::Malformed)?;
        let signed = &token[..PREFIX.len() + payload.len()];
        let bound = binding_bytes(binding);
        let verified = self.keys.iter().any(|key| {
            let mut mac = key.clone();
            mac.update(signed.as_bytes());
            mac.update(b"\n");
            mac.update(&bound);
            mac.verify_slice(&tag).is_ok()
        });
        if !verified {
            return Err(StateError::Signature);
        }
        let payload = URL_SAFE_NO_PAD
            .decode(payload)
            .map_err(|_| StateError::Malformed)?;
        let payload: Value = serde_json::from_slice(&payload).map_err(|_| StateError::Malformed)?;
        let exp = payload
            .get("exp")
            .and_then(Value::as_u64)
            .ok_or(StateError::Malformed)?;
        if exp <= now {
            return Err(StateError::Expired);
        }
        payload
            .get("p")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or(StateError::Malformed)
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The binding as bytes: canonical JSON (keys sorted at every depth, whatever the
/// `serde_json` features) of the subject, arguments and caller. A tool is its name as a
/// JSON string (the form of the first tokens, which stay valid), a prompt the object
/// `{"prompt": name}`, which no string equals.
fn binding_bytes(binding: &Binding<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    let caller = binding.caller.map_or(Value::Null, |key| json!(key));
    match binding.subject {
        Subject::Tool => canonical(&json!(binding.name), &mut out),
        Subject::Prompt => canonical(&json!({"prompt": binding.name}), &mut out),
    }
    out.push(b'\n');
    match binding.arguments {
        Some(args) => canonical_object(args, &mut out),
        None => out.extend_from_slice(b"{}"),
    }
    out.push(b'\n');
    canonical(&caller, &mut out);
    out
}

fn canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(o) => canonical_object(o, out),
        Value::Array(a) => {
            out.push(b'[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                canonical(v, out);
            }
            out.push(b']');
        }
        scalar => out.extend_from_slice(scalar.to_string().as_bytes()),
    }
}

fn canonical_object(o: &JsonObject, out: &mut Vec<u8>) {
    let mut keys: Vec<&String> = o.keys().collect();
    keys.sort();
    out.push(b'{');
    for (i, k) in keys.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(Value::String(k.clone()).to_string().as_bytes());
        out.push(b':');
        canonical(&o[k], out);
    }
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(b: u8) -> Vec<u8> {
        vec![b; 32]
    }

    fn args(v: Value) -> JsonObject {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn round_trip_binds_tool_arguments_caller_and_expiry() {
        let s = Signer::new(&[key(1)], Duration::from_secs(60)).unwrap();
        let a = args(json!({"b": 1, "a": {"y": 2, "x": [1, {"k": true}]}}));
        let reordered = args(json!({"a": {"x": [1, {"k": true}], "y": 2}, "b": 1}));
        let bind = Binding {
            subject: Subject::Tool,
            name: "t",
            arguments: Some(&a),
            caller: Some(r#"["token","iss","cli","sub"]"#),
        };
        let token = s.seal_at("step-2", &bind, 1000);
        assert!(token.starts_with("v1."));
        let same = Binding {
            arguments: Some(&reordered),
            ..bind
        };
        assert_eq!(s.open_at(&token, &same, 1001).unwrap(), "step-2");
        // Another tool, arguments or caller.
        assert_eq!(
            s.open_at(&token, &Binding { name: "u", ..bind }, 1001),
            Err(StateError::Signature)
        );
        let other = args(json!({"b": 2, "a": {"y": 2, "x": [1, {"k": true}]}}));
        assert_eq!(
            s.open_at(
                &token,
                &Binding {
                    arguments: Some(&other),
                    ..bind
                },
                1001
            ),
            Err(StateError::Signature)
        );
        assert_eq!(
            s.open_at(
                &token,
                &Binding {
                    caller: Some(r#"["token","iss","other","sub"]"#),
                    ..bind
                },
                1001
            ),
            Err(StateError::Signature)
        );
        assert_eq!(
            s.open_at(
                &token,
                &Binding {
                    caller: None,
                    ..bind
                },
                1001
            ),
            Err(StateError::Signature)
        );
        // Expired.
        assert_eq!(s.open_at(&token, &bind, 1060), Err(StateError::Expired));
    }

    #[test]
    fn a_tool_state_never_opens_for_a_prompt_of_the_same_name() {
        let s = Signer::new(&[key(1)], Duration::from_secs(60)).unwrap();
        let a = args(json!({"topic": "rust"}));
        let tool = Binding {
            subject: Subject::Tool,
            name: "review",
            arguments: Some(&a),
            caller: None,
        };
        let prompt = Binding {
            subject: Subject::Prompt,
            ..tool
        };
        let for_tool = s.seal_at("x", &tool, 1000);
        let for_prompt = s.seal_at("x", &prompt, 1000);
        assert_eq!(s.open_at(&for_prompt, &prompt, 1001).unwrap(), "x");
        assert_eq!(
            s.open_at(&for_tool, &prompt, 1001),
            Err(StateError::Signature)
        );
        assert_eq!(
            s.open_at(&for_prompt, &tool, 1001),
            Err(StateError::Signature)
        );
        // A tool whose name is the prompt's binding text is still another subject.
        let lookalike = Binding {
            name: r#"{"prompt":"review"}"#,
            ..tool
        };
        assert_eq!(
            s.open_at(&for_prompt, &lookalike, 1001),
            Err(StateError::Signature)
        );
    }

    #[test]
    fn tampering_and_truncation_are_refused() {
        let s = Signer::new(&[key(1)], DEFAULT_TTL).unwrap();
        let bind = Binding {
            subject: Subject::Tool,
            name: "t",
            arguments: None,
            caller: None,
        };
        let token = s.seal_at("x", &bind, 0);
        let (head, tag) = token.rsplit_once('.').unwrap();
        let forged_payload =
            URL_SAFE_NO_PAD.encode(json!({"p": "admin", "exp": 9_999_999_999_u64}).to_string());
        for bad in [
            format!("{}.{}", "v1.".to_owned() + &forged_payload, tag),
            token[..token.len() - 3].to_owned(),
            head.to_owned(),
            format!("v2.{}", &token[3..]),
            format!("{head}.!!!"),
            String::new(),
            "v1..".to_owned(),
            "x".repeat(MAX_TOKEN_BYTES + 1),
        ] {
            assert!(s.open_at(&bad, &bind, 1).is_err(), "{bad}");
        }
    }

    #[test]
    fn rotation_first_key_signs_all_verify() {
        let old = Signer::new(&[key(1)], DEFAULT_TTL).unwrap();
        let rotated = Signer::new(&[key(2), key(1)], DEFAULT_TTL).unwrap();
        let bind = Binding {
            subject: Subject::Tool,
            name: "t",
            arguments: None,
            caller: None,
        };
        let old_token = old.seal_at("s", &bind, 0);
        assert_eq!(rotated.open_at(&old_token, &bind, 1).unwrap(), "s");
        let new_token = rotated.seal_at("s", &bind, 0);
        assert_eq!(
            old.open_at(&new_token, &bind, 1),
            Err(StateError::Signature)
        );
        let retired = Signer::new(&[key(2)], DEFAULT_TTL).unwrap();
        assert_eq!(
            retired.open_at(&old_token, &bind, 1),
            Err(StateError::Signature)
        );
    }

    #[test]
    fn configuration_is_checked() {
        assert_eq!(
            Signer::new(&[vec![0; 31]], DEFAULT_TTL).unwrap_err(),
            SignerConfigError::ShortKey { index: 0, len: 31 }
        );
        assert_eq!(
            Signer::new(&[key(1)], Duration::ZERO).unwrap_err(),
            SignerConfigError::Ttl
        );
        // Without keys, each signer has its own random key.
        let (a, b) = (
            Signer::new(&[], DEFAULT_TTL).unwrap(),
            Signer::new(&[], DEFAULT_TTL).unwrap(),
        );
        let bind = Binding {
            subject: Subject::Tool,
            name: "t",
            arguments: None,
            caller: None,
        };
        assert_eq!(
            b.open(&a.seal("s", &bind), &bind),
            Err(StateError::Signature)
        );
        assert_eq!(a.open(&a.seal("s", &bind), &bind).unwrap(), "s");
    }
}
