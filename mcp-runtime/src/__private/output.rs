//! Return values of tools: splitting a `Result`, turning the success value into a result
//! (text content, `structuredContent`), the error into a tool error or a JSON-RPC error, and
//! finding the output schema, all decided by type.

use std::convert::Infallible;
use std::fmt::Display;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::Serialize;

use super::Probe;
use super::tools::SchemaFn;
use crate::dispatch::ToolError;
use crate::error::ServerError;
use crate::protocol::{
    CallToolResponse, CallToolResult, Content, InputRequiredResult, ListToolsResult,
};

// ------------------------------------------------------------------- splitting

/// A `Result<T, E>` return.
pub struct ResultSplit<T, E>(PhantomData<fn() -> (T, E)>);
/// Any other return type `R`.
pub struct PlainSplit<R>(PhantomData<fn() -> R>);

/// Probe level 1: `Result<T, E>`.
pub trait SplitResult {
    /// The tag.
    type Tag;
    /// The split tag.
    fn split_tag(self) -> Self::Tag;
}
/// Probe level 2: anything else.
pub trait GenericSplit {
    /// The tag.
    type Tag;
    /// The split tag.
    fn split_tag(self) -> Self::Tag;
}

impl<T, E> SplitResult for &&Probe<Result<T, E>> {
    type Tag = ResultSplit<T, E>;
    fn split_tag(self) -> Self::Tag {
        ResultSplit(PhantomData)
    }
}

impl<R> GenericSplit for &Probe<R> {
    type Tag = PlainSplit<R>;
    fn split_tag(self) -> Self::Tag {
        PlainSplit(PhantomData)
    }
}

impl<T, E> ResultSplit<T, E> {
    /// The value as a `Result`.
    pub fn split(&self, value: Result<T, E>) -> Result<T, E> {
        value
    }
    /// A probe of the success type.
    pub fn ok_probe(&self) -> Probe<T> {
        Probe::NEW
    }
    /// A probe of the error type.
    pub fn err_probe(&self) -> Probe<E> {
        Probe::NEW
    }
}

impl<R> PlainSplit<R> {
    /// The value as a `Result` that cannot fail.
    pub fn split(&self, value: R) -> Result<R, Infallible> {
        Ok(value)
    }
    /// A probe of the success type.
    pub fn ok_probe(&self) -> Probe<R> {
        Probe::NEW
    }
    /// A probe of the (impossible) error type.
    pub fn err_probe(&self) -> Probe<Infallible> {
        Probe::NEW
    }
}

// ------------------------------------------------------------- success values

/// How a success value becomes a tool result.
pub trait ValueTag<V> {
    /// Builds the response; `structured` tells whether the tool advertises an output
    /// schema (then `structuredContent` carries the value).
    fn complete(self, value: V, structured: bool) -> Result<CallToolResponse, ServerError>;
}

/// `()`: no content block.
pub struct UnitValue;
/// A string: the text as is.
pub struct TextValue;
/// A response built by the tool itself, which may be input-required.
pub struct RawValue;
/// A complete result built by the tool itself (`CallToolResult`).
pub struct ResultValue;
/// Content blocks built by the tool itself.
pub struct ContentValue;
/// Any other serializable value: its JSON text.
pub struct JsonValue<T>(PhantomData<fn() -> T>);

/// Probe level 1: specific return types.
pub trait SpecificValue {
    /// The tag.
    type Tag;
    /// The value tag.
    fn value_tag(self) -> Self::Tag;
}
/// Probe level 2: any other type.
pub trait GenericValue {
    /// The tag.
    type Tag;
    /// The value tag.
    fn value_tag(self) -> Self::Tag;
}

macro_rules! specific_value {
    ($($ty:ty => $tag:ident),* $(,)?) => {$(
        impl SpecificValue for &&Probe<$ty> {
            type Tag = $tag;
            fn value_tag(self) -> $tag { $tag }
        }
    )*};
}
specific_value! {
    () => UnitValue,
    String => TextValue,
    CallToolResult => ResultValue,
    CallToolResponse => RawValue,
    InputRequiredResult => RawValue,
    Content => ContentValue,
    Vec<Content> => ContentValue,
}

// A borrowed string of any lifetime (`-> &str` from `&self`, `-> &'a str`).
impl SpecificValue for &&Probe<&str> {
    type Tag = TextValue;
    fn value_tag(self) -> TextValue {
        TextValue
    }
}

/// `mcp::ToolOutput<T>`: the value, or an input-required result.
pub struct OutputValue;

/// Whether a success value of this tag can be an input-required answer: a tool returning
/// one keeps its arguments in the params for the request state's binding
/// (`CallArgs::new`). Saying yes is always correct, only a copy slower.
macro_rules! may_ask {
    ($($tag:ident$(<$t:ident>)? => $asks:literal),* $(,)?) => {$(
        impl$(<$t>)? $tag$(<$t>)? {
            /// Whether the value can be an input-required answer.
            pub const fn may_ask(&self) -> bool {
                $asks
            }
        }
    )*};
}
may_ask! {
    UnitValue => false,
    TextValue => false,
    RawValue => true,
    ResultValue => false,
    ContentValue => false,
    JsonValue<T> => false,
    OutputValue => true,
}

impl<T> SpecificValue for &&Probe<crate::dispatch::ToolOutput<T>> {
    type Tag = OutputValue;
    fn value_tag(self) -> OutputValue {
        OutputValue
    }
}

impl<T: ToolReturn + Serialize> ValueTag<crate::dispatch::ToolOutput<T>> for OutputValue {
    fn complete(
        self,
        value: crate::dispatch::ToolOutput<T>,
        structured: bool,
    ) -> Result<CallToolResponse, ServerError> {
        match value {
            crate::dispatch::ToolOutput::InputRequired(r) => Ok(r.into()),
            crate::dispatch::ToolOutput::Done(v) => {
                if serde_json::to_value(&v).is_ok_and(|j| j.is_null()) {
                    return Ok(CallToolResult::content(Vec::new()).into());
                }
                JsonValue(PhantomData).complete(v, structured)
            }
        }
    }
}

impl<T> GenericValue for &Probe<T> {
    type Tag = JsonValue<T>;
    fn value_tag(self) -> Self::Tag {
        JsonValue(PhantomData)
    }
}

impl ValueTag<CallToolResult> for ResultValue {
    fn complete(self, value: CallToolResult, _: bool) -> Result<CallToolResponse, ServerError> {
        Ok(value.into())
    }
}

impl ValueTag<()> for UnitValue {
    fn complete(self, (): (), _: bool) -> Result<CallToolResponse, ServerError> {
        Ok(CallToolResult::content(Vec::new()).into())
    }
}

impl<S: Into<String>> ValueTag<S> for TextValue {
    fn complete(self, value: S, structured: bool) -> Result<CallToolResponse, ServerError> {
        let text: String = value.into();
        let structured = structured.then(|| serde_json::Value::String(text.clone()));
        Ok(CallToolResult {
            content: vec![Content::text(text)],
            structured_content: structured,
            ..Default::default()
        }
        .into())
    }
}

impl<R: Into<CallToolResponse>> ValueTag<R> for RawValue {
    fn complete(self, value: R, _: bool) -> Result<CallToolResponse, ServerError> {
        Ok(value.into())
    }
}

impl ValueTag<Content> for ContentValue {
    fn complete(self, value: Content, _: bool) -> Result<CallToolResponse, ServerError> {
        Ok(CallToolResult::content(vec![value]).into())
    }
}

impl ValueTag<Vec<Content>> for ContentValue {
    fn complete(self, value: Vec<Content>, _: bool) -> Result<CallToolResponse, ServerError> {
        Ok(CallToolResult::content(value).into())
    }
}

/// A type a tool can return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool: it does not implement `serde::Serialize`",
    label = "tools return any `Serialize` value, `()`, `Result<T, E>`, `mcp::CallToolResult` or content blocks"
)]
pub trait ToolReturn {}

#[diagnostic::do_not_recommend]
impl<T: Serialize> ToolReturn for T {}

impl<T: ToolReturn + Serialize> ValueTag<T> for JsonValue<T> {
    fn complete(self, value: T, structured: bool) -> Result<CallToolResponse, ServerError> {
        let json = serde_json::to_value(&value).map_err(|e| {
            tracing::error!(error = %e, "a tool's return value failed to serialize");
            ServerError::client_message("Internal error")
        })?;
        // `serde_json::to_string` writes what `Display` writes, without the formatter.
        let text = match &json {
            serde_json::Value::String(s) => s.clone(),
            other => serde_json::to_string(other).unwrap_or_default(),
        };
        Ok(CallToolResult {
            content: vec![Content::text(text)],
            structured_content: structured.then_some(json),
            ..Default::default()
        }
        .into())
    }
}

/// Turns a success value into the call's response.
pub fn complete<V, T: ValueTag<V>>(
    tag: T,
    value: V,
    structured: bool,
) -> Result<CallToolResponse, ServerError> {
    tag.complete(value, structured)
}

// --------------------------------------------------------------------- failures

/// How an error value ends the call.
pub trait FailureTag<E> {
    /// A tool error result (`Ok`) or a JSON-RPC error (`Err`).
    fn fail(self, error: E) -> Result<CallToolResponse, ServerError>;
}

/// `mcp::ToolError`: a result with `isError: true`.
pub struct ToolFailure;
/// `mcp::ServerError`: a JSON-RPC error with its code and message.
pub struct RpcFailure;
/// Any other error: a generic internal error; the detail goes to `tracing`.
pub struct OpaqueFailure<E>(PhantomData<fn() -> E>);

/// Probe level 1: errors with a defined mapping.
pub trait SpecificFailure {
    /// The tag.
    type Tag;
    /// The failure tag.
    fn failure_tag(self) -> Self::Tag;
}
/// Probe level 2: any other error.
pub trait GenericFailure {
    /// The tag.
    type Tag;
    /// The failure tag.
    fn failure_tag(self) -> Self::Tag;
}

impl SpecificFailure for &&Probe<ToolError> {
    type Tag = ToolFailure;
    fn failure_tag(self) -> ToolFailure {
        ToolFailure
    }
}
impl SpecificFailure for &&Probe<ServerError> {
    type Tag = RpcFailure;
    fn failure_tag(self) -> RpcFailure {
        RpcFailure
    }
}
impl SpecificFailure for &&Probe<crate::error::InsufficientScopeError> {
    type Tag = RpcFailure;
    fn failure_tag(self) -> RpcFailure {
        RpcFailure
    }
}
impl<E> GenericFailure for &Probe<E> {
    type Tag = OpaqueFailure<E>;
    fn failure_tag(self) -> Self::Tag {
        OpaqueFailure(PhantomData)
    }
}

impl FailureTag<ToolError> for ToolFailure {
    fn fail(self, error: ToolError) -> Result<CallToolResponse, ServerError> {
        Ok(error.into_call_result().into())
    }
}

impl<E: Into<ServerError>> FailureTag<E> for RpcFailure {
    fn fail(self, error: E) -> Result<CallToolResponse, ServerError> {
        Err(error.into())
    }
}

/// A type a tool can fail with.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's error type: it does not implement `Display`",
    label = "use `mcp::ToolError` for failures the model should see, `mcp::ServerError` for JSON-RPC errors, or any `Display` error"
)]
pub trait ToolFailureType {}

#[diagnostic::do_not_recommend]
impl<E: Display> ToolFailureType for E {}

impl<E: ToolFailureType + Display> FailureTag<E> for OpaqueFailure<E> {
    fn fail(self, error: E) -> Result<CallToolResponse, ServerError> {
        tracing::error!(error = %error, "a tool failed");
        Err(ServerError::client_message("Internal error"))
    }
}

/// Turns an error value into the call's response.
pub fn fail<E, T: FailureTag<E>>(tag: T, error: E) -> Result<CallToolResponse, ServerError> {
    tag.fail(error)
}

// ---------------------------------------------------------------- output schema

/// A success type with a JSON Schema.
pub struct HasSchema<T>(PhantomData<fn() -> T>);
/// A success type without one.
pub struct NoSchema<T>(PhantomData<fn() -> T>);

/// Probe level 1: types that never carry structured output.
pub trait SpecificOutputSchema {
    /// The tag.
    type Tag;
    /// The schema tag.
    fn schema_tag(self) -> Self::Tag;
}
/// Probe level 2: types with a JSON Schema.
pub trait SchemaOutput {
    /// The tag.
    type Tag;
    /// The schema tag.
    fn schema_tag(self) -> Self::Tag;
}
/// Probe level 3: anything else.
pub trait NoOutputSchema {
    /// The tag.
    type Tag;
    /// The schema tag.
    fn schema_tag(self) -> Self::Tag;
}

macro_rules! unstructured {
    ($($ty:ty),*) => {$(
        impl SpecificOutputSchema for &&Probe<$ty> {
            type Tag = NoSchema<$ty>;
            fn schema_tag(self) -> Self::Tag { NoSchema(PhantomData) }
        }
    )*};
}
unstructured!(
    (),
    CallToolResult,
    CallToolResponse,
    InputRequiredResult,
    Content,
    Vec<Content>,
    ListToolsResult
);

impl<T: JsonSchema> SchemaOutput for &Probe<T> {
    type Tag = HasSchema<T>;
    fn schema_tag(self) -> Self::Tag {
        HasSchema(PhantomData)
    }
}

impl<T> NoOutputSchema for Probe<T> {
    type Tag = NoSchema<T>;
    fn schema_tag(self) -> Self::Tag {
        NoSchema(PhantomData)
    }
}

impl<T: JsonSchema> HasSchema<T> {
    /// The generator of the output schema.
    pub fn schema_fn(&self) -> Option<SchemaFn> {
        Some(super::tools::output_schema::<T>)
    }
}

impl<T> NoSchema<T> {
    /// No output schema.
    pub fn schema_fn(&self) -> Option<SchemaFn> {
        None
    }
}

/// The rule of `MCP_222`: a return type without a JSON Schema
/// cannot back `structured_output = true`.
#[diagnostic::on_unimplemented(
    message = "MCP_222: `structured_output = true` on a tool whose return type `{Self}` has no JSON Schema",
    label = "this return type produces no structured value",
    note = "derive `schemars::JsonSchema` for the returned type, supply `output_schema = r#\"...\"#`, or drop `structured_output = true`"
)]
pub trait Unstructured {}

/// A tag that can back `structured_output = true`.
pub trait RequiredSchema {}
impl<T: JsonSchema> RequiredSchema for HasSchema<T> {}
impl<T: Unstructured> RequiredSchema for NoSchema<T> {}

/// MCP_222 check.
pub fn assert_structured<T: RequiredSchema>(_: &T) {}

// ------------------------------------------------------------- advanced returns

/// What `on_list_tools` may return: the rule of `MCP_212`.
#[diagnostic::on_unimplemented(
    message = "MCP_212: `on_list_tools` cannot return `{Self}`",
    label = "expected `mcp::ListToolsResult` or `Result<mcp::ListToolsResult, E>` with `E: Into<mcp::ServerError>`",
    note = "declare the return type; an error type must convert into `mcp::ServerError`, because an advanced method's error is the JSON-RPC error the client receives: map others with `.map_err(mcp::ServerError::client_message)` (the text is sent) or `.map_err(mcp::ServerError::internal)` (the error is logged) (basic tools differ: they log any `Display` error and answer a generic internal error)"
)]
pub trait ListToolsReturn {
    /// The result.
    fn into_list(self) -> Result<ListToolsResult, ServerError>;
}

impl ListToolsReturn for ListToolsResult {
    fn into_list(self) -> Result<ListToolsResult, ServerError> {
        Ok(self)
    }
}

#[diagnostic::do_not_recommend]
impl<E: Into<ServerError>> ListToolsReturn for Result<ListToolsResult, E> {
    fn into_list(self) -> Result<ListToolsResult, ServerError> {
        self.map_err(Into::into)
    }
}

/// What `on_call_tool` may return: the rule of `MCP_212`.
#[diagnostic::on_unimplemented(
    message = "MCP_212: `on_call_tool` cannot return `{Self}`",
    label = "expected `mcp::CallToolResult`, `mcp::CallToolResponse`, `mcp::InputRequiredResult`, or a `Result` of one with `E: Into<mcp::ServerError>`",
    note = "declare the return type; an error type must convert into `mcp::ServerError`, because an advanced method's error is the JSON-RPC error the client receives: map others with `.map_err(mcp::ServerError::client_message)` (the text is sent) or `.map_err(mcp::ServerError::internal)` (the error is logged) (basic tools differ: they log any `Display` error and answer a generic internal error)"
)]
pub trait CallToolReturn {
    /// The response.
    fn into_call(self) -> Result<CallToolResponse, ServerError>;
}

macro_rules! call_return {
    ($($ty:ty),*) => {$(
        impl CallToolReturn for $ty {
            fn into_call(self) -> Result<CallToolResponse, ServerError> { Ok(self.into()) }
        }
        #[diagnostic::do_not_recommend]
        impl<E: Into<ServerError>> CallToolReturn for Result<$ty, E> {
            fn into_call(self) -> Result<CallToolResponse, ServerError> {
                self.map(Into::into).map_err(Into::into)
            }
        }
    )*};
}
call_return!(CallToolResult, CallToolResponse, InputRequiredResult);

/// The result of `on_list_tools` (MCP_212 when the type cannot be one).
pub fn list_return<R: ListToolsReturn>(value: R) -> Result<ListToolsResult, ServerError> {
    value.into_list()
}

/// The result of `on_call_tool` (MCP_212 when the type cannot be one).
pub fn call_return<R: CallToolReturn>(value: R) -> Result<CallToolResponse, ServerError> {
    value.into_call()
}
