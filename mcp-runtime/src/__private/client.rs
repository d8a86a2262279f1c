//! Support for the typed clients `#[mcp::service(client)]` and `#[mcp::client]` generate:
//! the decoder of an output type (chosen by probe, as the server chooses its encoder) and
//! the rules MCP_501 and MCP_502, which hold the macro's reading of a signature (written
//! types) to the compiler's (resolved types).

use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Probe;
use super::kinds::*;
use super::output::{PlainSplit, ResultSplit};
use crate::client::typed::{Arguments, Decoder};
use crate::protocol::{CallToolResult, Content};

/// Probe level 1: output types read in their own way.
pub trait SpecificDecoder {
    /// The decoder's tag.
    type Tag;
    /// The tag.
    fn decoder_tag(self) -> Self::Tag;
}

/// Probe level 2: any other type, read as JSON.
pub trait GenericDecoder {
    /// The decoder's tag.
    type Tag;
    /// The tag.
    fn decoder_tag(self) -> Self::Tag;
}

/// A type with a decoder of its own.
pub struct OwnDecoder<T>(Decoder<T>);
/// A type read as JSON.
pub struct JsonDecoder<T>(PhantomData<fn() -> T>);

macro_rules! own_decoder {
    ($($ty:ty => $decoder:expr),* $(,)?) => {$(
        impl SpecificDecoder for &&Probe<$ty> {
            type Tag = OwnDecoder<$ty>;
            fn decoder_tag(self) -> Self::Tag {
                OwnDecoder($decoder)
            }
        }
    )*};
}

own_decoder! {
    () => Decoder::UNIT,
    String => Decoder::TEXT,
    CallToolResult => Decoder::RAW,
    Vec<Content> => Decoder::CONTENT,
    Content => Decoder::ONE_CONTENT,
}

impl<T> GenericDecoder for &Probe<T> {
    type Tag = JsonDecoder<T>;
    fn decoder_tag(self) -> Self::Tag {
        JsonDecoder(PhantomData)
    }
}

/// The rule of MCP_502: a typed client reads a tool's output as the type its method
/// declares.
#[diagnostic::on_unimplemented(
    message = "MCP_502: the typed client cannot read `{Self}`: it does not implement `serde::Deserialize`",
    label = "the tool's output type, which the client decodes",
    note = "derive `serde::Deserialize` for it (the server needs `Serialize`, the client `Deserialize`), or return `String`, `()`, `mcp::CallToolResult` or content blocks"
)]
pub trait ClientOutput: Sized {
    /// How the client reads it.
    fn decoder() -> Decoder<Self>;
}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned> ClientOutput for T {
    fn decoder() -> Decoder<T> {
        Decoder::JSON
    }
}

/// A decoder tag that yields a decoder.
pub trait DecoderTag<T> {
    /// The decoder.
    fn decoder(self) -> Decoder<T>;
}

impl<T> DecoderTag<T> for OwnDecoder<T> {
    fn decoder(self) -> Decoder<T> {
        self.0
    }
}

impl<T: ClientOutput> DecoderTag<T> for JsonDecoder<T> {
    fn decoder(self) -> Decoder<T> {
        T::decoder()
    }
}

/// The decoder of output type `T`, from its probe's tag.
pub fn decoder<T, D: DecoderTag<T>>(tag: D) -> Decoder<T> {
    tag.decoder()
}

/// The rule of MCP_501: a parameter the typed client sends is an argument of a type it can
/// serialize.
#[diagnostic::on_unimplemented(
    message = "MCP_501: the typed client cannot send this parameter",
    label = "an argument the client sends",
    note = "an argument's type must implement `serde::Serialize` (the server needs `Deserialize`, the client `Serialize`); a runtime parameter must be written as its own type (`mcp::Context`, `mcp::Session`, `Option<mcp::RequestMeta>`, `http::HeaderMap`, `http::request::Parts`, `mcp::AuthContext`), not through an alias, so that the client leaves it out"
)]
pub trait SentArgument {}

// Not recommended, so that rustc reports `SentArgument` (MCP_501) rather than the unmet
// `T: Serialize` beneath it.
#[diagnostic::do_not_recommend]
impl<T: Serialize> SentArgument for ArgKind<T> {}

/// An argument of a generated method, added to the call's arguments by probe: serialized
/// when its type is `Serialize` ([`PutSerialize`]), and otherwise not at all
/// ([`PutOther`]), so that the method itself compiles and the only error is MCP_501, from
/// the check of the parameter ([`sent`]); no program that compiles takes the second way.
pub struct Sent<'a, T>(pub &'a T);

/// Probe level 1: an argument of a `Serialize` type.
pub trait PutSerialize {
    /// Adds the argument.
    fn put(self, args: Arguments, name: &str) -> Arguments;
}

impl<T: Serialize> PutSerialize for &&Sent<'_, T> {
    fn put(self, args: Arguments, name: &str) -> Arguments {
        args.arg(name, self.0)
    }
}

/// Probe level 2: any other type (rejected by MCP_501's check).
pub trait PutOther {
    /// Leaves the arguments as they are.
    fn put(self, args: Arguments, name: &str) -> Arguments;
}

impl<T> PutOther for &Sent<'_, T> {
    fn put(self, args: Arguments, _name: &str) -> Arguments {
        args
    }
}

/// Checks that a parameter the client sends is an argument (MCP_501).
pub fn sent<K: SentArgument>(_kind: K) {}

/// The rule of MCP_501 for what the macro reads as a runtime parameter.
#[diagnostic::on_unimplemented(
    message = "MCP_501: this parameter is named like a runtime parameter but is a tool argument",
    label = "the typed client would leave it out",
    note = "runtime parameters are `mcp::Session`, `Option<mcp::Session>`, `Option<mcp::RequestMeta>`, `http::HeaderMap`, `http::request::Parts`, `mcp::Context`, `mcp::AuthContext` and `Option<mcp::AuthContext>`; name an argument type differently"
)]
pub trait LeftOut {}

macro_rules! left_out {
    ($($kind:ident),*) => {$(impl LeftOut for $kind {})*};
}
for_runtime_kinds!(left_out);

/// Checks that a parameter the client leaves out is a runtime parameter (MCP_501).
pub fn left_out<K: LeftOut>(_kind: K) {}

/// The rule of MCP_502 for return types: the client's output type is read from the return
/// type as written, so a `Result` must be written as one.
#[diagnostic::on_unimplemented(
    message = "MCP_502: the typed client reads this return type as written: write `Result<T, E>` rather than an alias of it",
    label = "a `Result` under another name",
    note = "the client's method returns the success type `T`; it finds it only in a return type spelled `Result<T, E>` (any path ending in `Result`)"
)]
pub trait WrittenAsPlain {}

impl<R> WrittenAsPlain for PlainSplit<R> {}

/// Checks that a return type read as plain is not a `Result` (MCP_502).
pub fn plain<S: WrittenAsPlain>(_split: &S) {}

/// A `Result` return type's success type, for the check that the macro's reading of it
/// matches.
pub trait WrittenAsResult<T> {}

impl<T, E> WrittenAsResult<T> for ResultSplit<T, E> {}

/// Checks that a return type read as `Result<T, _>` has success type `T`.
pub fn result_of<T, S: WrittenAsResult<T>>(_split: &S) {}
