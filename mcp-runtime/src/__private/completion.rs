//! The check that a completer's `argument` is an argument of its prompt (a rule of MCP_307).
//!
//! Which parameters of a prompt are arguments is a question of their types (a runtime
//! parameter such as `Option<mcp::RequestMeta>` is not one, whatever its name or alias), so
//! the macro cannot answer it from tokens, and a trait bound cannot name the arguments the
//! prompt does have. The check is a constant instead: the generated code passes each
//! parameter's name with [`ArgumentFlag::ARGUMENT`] of its kind, and when the completer's
//! argument is not among the arguments it panics with the message this module builds, which
//! rustc reports as ``evaluation panicked: MCP_307: ...`` at the completer's `argument`.

use super::kinds::{
    ArgKind, AuthKind, ContextKind, HeadersKind, MetaKind, MetaRequiredKind, OptAuthKind,
    OptSessionKind, PartsKind, SessionKind,
};

/// Whether a parameter kind is an argument (listed, sent by the client) rather than a
/// runtime value; a constant, for [`completer_argument`].
pub trait ArgumentFlag {
    /// `true` for arguments.
    const ARGUMENT: bool;
}

impl<T> ArgumentFlag for ArgKind<T> {
    const ARGUMENT: bool = true;
}

macro_rules! runtime_flags {
    ($($kind:ty),*) => {$(
        impl ArgumentFlag for $kind {
            const ARGUMENT: bool = false;
        }
    )*};
}
for_runtime_kinds!(runtime_flags);

/// [`ArgumentFlag::ARGUMENT`] of the kind a generated function returns (its type is opaque).
pub const fn argument_flag<K: ArgumentFlag>(_: fn() -> K) -> bool {
    K::ARGUMENT
}

const CAPACITY: usize = 1024;

/// A message built in a constant (whole pieces only, so it is always valid UTF-8; a piece
/// that does not fit is left out and the message ends in `...`).
pub struct ConstMessage {
    bytes: [u8; CAPACITY],
    len: usize,
    full: bool,
}

impl ConstMessage {
    const fn new() -> Self {
        Self {
            bytes: [0; CAPACITY],
            len: 0,
            full: false,
        }
    }

    const fn push(mut self, piece: &str) -> Self {
        let piece = piece.as_bytes();
        if self.full || self.len + piece.len() + 3 > CAPACITY {
            if !self.full {
                self.full = true;
                self = self.push_bytes(b"...");
            }
            return self;
        }
        self.push_bytes(piece)
    }

    const fn push_bytes(mut self, piece: &[u8]) -> Self {
        let mut i = 0;
        while i < piece.len() {
            self.bytes[self.len] = piece[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// The message.
    pub const fn as_str(&self) -> &str {
        let (message, _) = self.bytes.split_at(self.len);
        match core::str::from_utf8(message) {
            Ok(message) => message,
            Err(_) => "MCP_307: this completer's argument is not an argument of its prompt",
        }
    }
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `None` when `argument` is one of the `parameters` flagged as arguments; otherwise the
/// message: `message` followed by ` (it has: <the arguments>)`.
pub const fn completer_argument(
    message: &str,
    argument: &str,
    parameters: &[(&str, bool)],
) -> Option<ConstMessage> {
    let mut i = 0;
    while i < parameters.len() {
        if parameters[i].1 && same(parameters[i].0, argument) {
            return None;
        }
        i += 1;
    }
    let mut out = ConstMessage::new().push(message).push(" (it has: ");
    let mut listed = 0;
    let mut i = 0;
    while i < parameters.len() {
        if parameters[i].1 {
            if listed > 0 {
                out = out.push(", ");
            }
            out = out.push(parameters[i].0);
            listed += 1;
        }
        i += 1;
    }
    if listed == 0 {
        out = out.push("none");
    }
    Some(out.push(")"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn message(argument: &str) -> Option<ConstMessage> {
        completer_argument(
            "MCP_307: no",
            argument,
            &[("language", true), ("meta", false), ("style", true)],
        )
    }

    #[test]
    fn lists_only_arguments() {
        const { assert!(message("style").is_none()) };
        let m = message("meta").unwrap();
        assert_eq!(m.as_str(), "MCP_307: no (it has: language, style)");
        let m = completer_argument("x", "a", &[("meta", false)]).unwrap();
        assert_eq!(m.as_str(), "x (it has: none)");
    }

    #[test]
    fn long_messages_are_cut_at_a_piece() {
        let long = "é".repeat(400);
        let params = [(long.as_str(), true), (long.as_str(), true)];
        let m = completer_argument("MCP_307: no", "a", &params).unwrap();
        assert!(m.as_str().ends_with("..."), "{}", m.as_str());
        assert!(m.as_str().len() <= CAPACITY);
    }
}
