//! The compile-time diagnostics of `#[mcp::service]`, one page per code.
//!
//! The rules of the Ballerina `mcp.v2` module are checked when your crate compiles, under the
//! same codes. Every message starts with its code and points at the offending tokens. Each
//! code below is a page with what triggers it, an example that fails to compile, and the fix.
//!
//! A proc macro sees tokens, not types, so each rule uses one of three mechanisms:
//!
//! - **syntactic**: the macro itself reports a compile error at the offending tokens (a
//!   header name, a schema literal, a method name). All such errors of one impl block are
//!   reported in one compile, and the impl block is still emitted, so its methods keep
//!   existing and no follow-on errors bury the real ones.
//! - **trait bound**: the macro generates a check that the compiler evaluates on the actual
//!   type, whose failure message is the diagnostic (`#[diagnostic::on_unimplemented]`). A
//!   type alias or a re-exported type is therefore judged by what it is, not by its name.
//! - **deprecation warning**: stable Rust has no warning API for proc macros, so the macro
//!   generates, inside the method concerned, a use of a deprecated item named after the code
//!   and rustc prints ``warning: use of deprecated method
//!   `mcp::diagnostics::MCP_WARNING_2xx::emit`: MCP_WARNING_2xx: ...``. Acknowledge one with
//!   `#[allow(deprecated)]` or `#[expect(deprecated)]` on the method or on the impl block;
//!   `-D warnings` makes it an error.
//!
//! | code | diagnostic | mechanism |
//! | --- | --- | --- |
//! | [`MCP_201`] | The tool's input schema cannot be generated | syntactic |
//! | [`MCP_202`] | A tool parameter has an unsupported type | trait bound ([`ToolArgument`](crate::ToolArgument)); syntactic for a borrow inside a type (`Option<&str>`) |
//! | [`MCP_204`] | A required `mcp::Session` parameter in a stateless service | trait bound |
//! | [`MCP_206`] | Request metadata is not optional | trait bound |
//! | [`MCP_207`] | Duplicate parameter | trait bound |
//! | [`MCP_208`] | Invalid `#[http_header]` parameter | syntactic (name) and trait bound ([`HeaderParam`](crate::HeaderParam), type) |
//! | [`MCP_210`] | An advanced service lacks `on_list_tools` or `on_call_tool` (or a hook its resources or prompts need) | syntactic |
//! | [`MCP_211`] | Invalid parameters of an advanced service method | trait bound; syntactic for a missing `mcp::CallToolParams` |
//! | [`MCP_212`] | Invalid return type of an advanced service method | trait bound |
//! | [`MCP_213`] | An unsupported method in an advanced service | syntactic |
//! | [`MCP_214`] | A required `mcp::Session` parameter in modern protocol mode | trait bound |
//! | [`MCP_215`] | Invalid type of an `#[argument(header = ...)]` parameter | trait bound ([`HeaderArgument`](crate::HeaderArgument)) |
//! | [`MCP_216`] | Invalid `#[argument(header = ...)]` header name | syntactic |
//! | [`MCP_217`] | Duplicate `#[argument(header = ...)]` header name | syntactic |
//! | [`MCP_218`] | `#[argument(header = ...)]` with an explicit `#[tool(schema = ...)]` | syntactic |
//! | [`MCP_219`] | A struct field that cannot be a form field | trait bound ([`FormField`](crate::FormField)) |
//! | [`MCP_220`] | An `elicit_form` schema that is neither a form schema value nor a named form type | trait bound ([`IntoFormSchema`](crate::IntoFormSchema)) |
//! | [`MCP_221`] | `structured_output = false` with an explicit `output_schema` | syntactic |
//! | [`MCP_222`] | `structured_output = true` on a tool whose return type has no JSON Schema | trait bound |
//! | [`MCP_301`] | A resource template variable with no argument of its name | syntactic |
//! | [`MCP_302`] | A resource method argument that is neither a template variable nor a runtime parameter | trait bound ([`ResourceRuntimeParam`]) |
//! | [`MCP_303`] | An invalid resource URI or URI template | syntactic |
//! | [`MCP_304`] | Two resources with the same URI | syntactic (under different `#[cfg]`s, a `compile_error!` under a generated cfg) |
//! | [`MCP_305`] | Two prompts with the same name | syntactic (under different `#[cfg]`s, a `compile_error!` under a generated cfg) |
//! | [`MCP_306`] | A prompt argument that is not a string type | trait bound ([`PromptParam`]) |
//! | [`MCP_307`] | A completer naming a prompt, argument or template that does not exist | syntactic (under `#[cfg]`s, a `compile_error!` under a generated cfg); for a prompt's argument, a constant evaluated on the prompt's parameter types |
//! | [`MCP_308`] | A resource return type that cannot be read | trait bound ([`IntoReadResult`]) |
//! | [`MCP_309`] | A prompt return type that is not prompt messages | trait bound ([`IntoPromptResult`]) |
//! | [`MCP_310`] | A completer return type that is not completion values | trait bound ([`IntoCompletion`]) |
//! | [`MCP_311`] | A resource, prompt or completer method with an unusable signature | syntactic |
//! | [`MCP_312`] | A template variable whose type cannot be read from text | trait bound ([`TemplateVariable`](crate::TemplateVariable)) |
//! | [`MCP_401`] | An invalid middleware key value (`timeout`, `rate_limit`, `concurrency`, `concurrency_per_caller`) | syntactic |
//! | [`MCP_402`] | A `layer = ...` that does not fit an MCP server | trait bound ([`McpLayer`](crate::middleware::McpLayer)) |
//! | [`MCP_501`] | A parameter the typed client cannot send (not `Serialize`, or a runtime parameter the macro reads otherwise than the compiler) | trait bound |
//! | [`MCP_502`] | An output type the typed client cannot read (not `Deserialize`, or a `Result` under an alias) | trait bound |
//! | [`MCP_503`] | A method of an `#[mcp::client]` trait that cannot be a typed call | syntactic |
//! | [`MCP_601`] | An invalid `#[tool(task = "...")]` value | syntactic |
//! | [`MCP_WARNING_202`] | A required `mcp::Session` parameter in auto protocol mode | deprecation warning |
//! | [`MCP_WARNING_203`] | An `mcp::Session` parameter in modern protocol mode | deprecation warning |
//! | [`MCP_WARNING_204`] | An optional `mcp::Session` parameter in auto protocol mode | deprecation warning |
//! | [`MCP_WARNING_901`] | A `pub(crate)`/`pub(super)` method in a service impl, which is not a tool (the framework's own code) | deprecation warning |
//!
//! The codes from MCP_301 up are the framework's own rules for resource, prompt and
//! completer methods, which the seed does not cover; they follow the same mechanisms. The
//! codes from MCP_401 up are those of the [middleware keys](crate::attributes::middleware)
//! (`layer`, `timeout`, `rate_limit`, `concurrency`, `concurrency_per_caller`). The codes
//! from MCP_501 up are those of the typed clients (`#[mcp::service(client)]`, an
//! [`#[mcp::client]`](crate::attributes::client) trait); MCP_501 and MCP_502 are raised only
//! in builds with the `client` feature, where the clients exist. MCP_601 is the tasks
//! extension's `#[tool(task = "...")]` key.
//!
//! A macro cannot evaluate `#[cfg]`s. Rules that compare two methods (duplicate tool names,
//! MCP_304, MCP_305, MCP_307) reason about them the same way for every kind: two methods
//! under the same cfgs are compared now; two methods under different cfgs clash only in the
//! builds where both exist, so the error is emitted under a generated `#[cfg(all(...))]` and
//! reads "...: both `#[cfg]`s hold in this build". Methods under mutually exclusive cfgs
//! (`#[cfg(unix)]` and `#[cfg(not(unix))]`) therefore never clash, and a method whose cfg
//! never holds clashes with nothing. A completer whose prompt or template is compiled out
//! where the completer is not is MCP_307 in those builds.
//!
//! The macro also rejects, without a code, what the seed has no rule for: duplicate (under
//! the cfg reasoning above) or invalid tool names, generic impl blocks, tool methods whose
//! receiver is not shared (`&self`, `&'a self`, `self: &Self` are; `&mut self`, `self`,
//! `self: Box<Self>` are not), `unsafe fn` tools, and a second `#[mcp::service]` impl of one
//! type (rustc reports the duplicate `only_one_mcp_service_impl_per_type` next to the
//! conflicting `ServiceHandler` impls).
//!
//! What is *not* an error: in a basic service, associated functions without a receiver
//! (constructors such as `pub fn new() -> Self`) and `pub` methods marked `#[tool(skip)]` are
//! not tools; private methods are helpers. Raw identifiers lose their prefix (`r#type` is the
//! tool or argument `type`), lifetime parameters do not make a tool generic, `const fn`
//! methods are tools, and a parameter taken by reference (`&str`, `&[T]`, `&T`) is read
//! owned and lent to the method.

#![allow(non_camel_case_types)]

#[doc = include_str!("../../docs/diagnostics/MCP_201.md")]
pub struct MCP_201;

#[doc = include_str!("../../docs/diagnostics/MCP_202.md")]
pub struct MCP_202;

#[doc = include_str!("../../docs/diagnostics/MCP_204.md")]
pub struct MCP_204;

#[doc = include_str!("../../docs/diagnostics/MCP_206.md")]
pub struct MCP_206;

#[doc = include_str!("../../docs/diagnostics/MCP_207.md")]
pub struct MCP_207;

#[doc = include_str!("../../docs/diagnostics/MCP_208.md")]
pub struct MCP_208;

#[doc = include_str!("../../docs/diagnostics/MCP_210.md")]
pub struct MCP_210;

#[doc = include_str!("../../docs/diagnostics/MCP_211.md")]
pub struct MCP_211;

#[doc = include_str!("../../docs/diagnostics/MCP_212.md")]
pub struct MCP_212;

#[doc = include_str!("../../docs/diagnostics/MCP_213.md")]
pub struct MCP_213;

#[doc = include_str!("../../docs/diagnostics/MCP_214.md")]
pub struct MCP_214;

#[doc = include_str!("../../docs/diagnostics/MCP_215.md")]
pub struct MCP_215;

#[doc = include_str!("../../docs/diagnostics/MCP_216.md")]
pub struct MCP_216;

#[doc = include_str!("../../docs/diagnostics/MCP_217.md")]
pub struct MCP_217;

#[doc = include_str!("../../docs/diagnostics/MCP_218.md")]
pub struct MCP_218;

#[doc = include_str!("../../docs/diagnostics/MCP_219.md")]
pub struct MCP_219;

#[doc = include_str!("../../docs/diagnostics/MCP_220.md")]
pub struct MCP_220;

#[doc = include_str!("../../docs/diagnostics/MCP_221.md")]
pub struct MCP_221;

#[doc = include_str!("../../docs/diagnostics/MCP_222.md")]
pub struct MCP_222;

#[doc = include_str!("../../docs/diagnostics/MCP_301.md")]
pub struct MCP_301;

#[doc = include_str!("../../docs/diagnostics/MCP_302.md")]
pub struct MCP_302;

#[doc = include_str!("../../docs/diagnostics/MCP_303.md")]
pub struct MCP_303;

#[doc = include_str!("../../docs/diagnostics/MCP_304.md")]
pub struct MCP_304;

#[doc = include_str!("../../docs/diagnostics/MCP_305.md")]
pub struct MCP_305;

#[doc = include_str!("../../docs/diagnostics/MCP_306.md")]
pub struct MCP_306;

#[doc = include_str!("../../docs/diagnostics/MCP_307.md")]
pub struct MCP_307;

#[doc = include_str!("../../docs/diagnostics/MCP_308.md")]
pub struct MCP_308;

#[doc = include_str!("../../docs/diagnostics/MCP_309.md")]
pub struct MCP_309;

#[doc = include_str!("../../docs/diagnostics/MCP_310.md")]
pub struct MCP_310;

#[doc = include_str!("../../docs/diagnostics/MCP_311.md")]
pub struct MCP_311;

#[doc = include_str!("../../docs/diagnostics/MCP_312.md")]
pub struct MCP_312;

#[doc = include_str!("../../docs/diagnostics/MCP_401.md")]
pub struct MCP_401;

#[doc = include_str!("../../docs/diagnostics/MCP_402.md")]
pub struct MCP_402;

#[doc = include_str!("../../docs/diagnostics/MCP_501.md")]
pub struct MCP_501;

#[doc = include_str!("../../docs/diagnostics/MCP_502.md")]
pub struct MCP_502;

#[doc = include_str!("../../docs/diagnostics/MCP_503.md")]
pub struct MCP_503;

#[doc = include_str!("../../docs/diagnostics/MCP_601.md")]
pub struct MCP_601;

#[doc = include_str!("../../docs/diagnostics/MCP_WARNING_202.md")]
pub struct MCP_WARNING_202;

#[doc = include_str!("../../docs/diagnostics/MCP_WARNING_203.md")]
pub struct MCP_WARNING_203;

#[doc = include_str!("../../docs/diagnostics/MCP_WARNING_204.md")]
pub struct MCP_WARNING_204;

#[doc = include_str!("../../docs/diagnostics/MCP_WARNING_901.md")]
pub struct MCP_WARNING_901;

// The warnings are raised by calling a deprecated method of the code's page struct, so
// rustc's message names the code: ``use of deprecated method
// `mcp::diagnostics::MCP_WARNING_202::emit` ``. The generated code calls it; never call it.

impl MCP_WARNING_202 {
    #[doc(hidden)]
    #[deprecated(
        note = "MCP_WARNING_202: a required `mcp::Session` parameter in auto protocol mode: modern requests have no session, so modern calls of this tool fail; use `Option<mcp::Session>` or `protocol_mode = \"legacy\"`"
    )]
    pub fn emit(&self) {}
}

impl MCP_WARNING_203 {
    #[doc(hidden)]
    #[deprecated(
        note = "MCP_WARNING_203: an `mcp::Session` parameter in modern protocol mode is always `None`: modern requests have no session; remove the parameter"
    )]
    pub fn emit(&self) {}
}

impl MCP_WARNING_204 {
    #[doc(hidden)]
    #[deprecated(
        note = "MCP_WARNING_204: an optional `mcp::Session` parameter in auto protocol mode is `None` for modern requests: handle that case, then put `#[allow(deprecated)]` or `#[expect(deprecated)]` on the method"
    )]
    pub fn emit(&self) {}
}

impl MCP_WARNING_901 {
    #[doc(hidden)]
    #[deprecated(
        note = "MCP_WARNING_901: this `pub(crate)`/`pub(super)` method of a service is not a tool: only `pub` methods are tools; make it `pub` to serve it; if it is a helper, make it private or mark it `#[tool(skip)]`"
    )]
    pub fn emit(&self) {}
}

/// The traits behind the type rules of resource, prompt and completer methods (see above).
pub use crate::__private::features::{
    IntoCompletion, IntoPromptResult, IntoReadResult, PromptParam, ResourceRuntimeParam,
};
/// The traits behind the type rules. The checks `#[mcp::service]` generates require them of
/// each parameter's or return value's kind, and their `#[diagnostic::on_unimplemented]`
/// messages are the diagnostics above; rustc names them in the `help:` line of an error.
/// They are implemented by the runtime for every accepted kind: never implement them.
pub use crate::__private::kinds::{
    CallBind, CallPrimary, Distinct, DistinctAdvanced, HeaderArgumentKind, ListBind, ListPrimary,
    MetaOptional, ModernOk, StatelessOk,
};
/// The traits behind the type rules on return values (see above).
pub use crate::__private::output::{CallToolReturn, ListToolsReturn, Unstructured};

use crate::__private::kinds::{
    AuthKind, ContextKind, HeadersKind, MetaKind, MetaRequiredKind, NoWarning, OptAuthKind,
    OptSessionKind, PartsKind, SessionKind,
};

/// The warning a parameter kind raises in each protocol mode: the generated code calls
/// `kind.in_<mode>().emit()`, and a kind that warns returns the code's page struct from
/// this module, whose `emit` is deprecated. rustc then reports
/// ``use of deprecated method `mcp::diagnostics::MCP_WARNING_2xx::emit` ``.
macro_rules! warnings {
    ($($kind:ty => [$auto:ident, $auto_stateless:ident, $modern:ident]),* $(,)?) => {$(
        impl $kind {
            /// The warning in auto protocol mode.
            pub fn in_auto_mode(&self) -> $auto {
                $auto
            }
            /// The warning in auto protocol mode with `session_mode = "stateless"`.
            pub fn in_auto_stateless_mode(&self) -> $auto_stateless {
                $auto_stateless
            }
            /// The warning in modern protocol mode.
            pub fn in_modern_mode(&self) -> $modern {
                $modern
            }
        }
    )*};
}

warnings!(
    MetaKind => [NoWarning, NoWarning, NoWarning],
    MetaRequiredKind => [NoWarning, NoWarning, NoWarning],
    HeadersKind => [NoWarning, NoWarning, NoWarning],
    PartsKind => [NoWarning, NoWarning, NoWarning],
    ContextKind => [NoWarning, NoWarning, NoWarning],
    AuthKind => [NoWarning, NoWarning, NoWarning],
    OptAuthKind => [NoWarning, NoWarning, NoWarning],
    // A required session in a stateless service is MCP_204 (an error), and in modern mode
    // MCP_214: no warning on top.
    SessionKind => [MCP_WARNING_202, NoWarning, NoWarning],
    OptSessionKind => [MCP_WARNING_204, MCP_WARNING_204, MCP_WARNING_203],
);
