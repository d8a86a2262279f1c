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
//!   generates a use of a `#[deprecated]` item and rustc prints
//!   ``warning: use of deprecated method ...: MCP_WARNING_2xx: ...``. Silence one with
//!   `#[allow(deprecated)]` on the method or on the impl block; `-D warnings` makes it an
//!   error.
//!
//! | code | diagnostic | mechanism |
//! | --- | --- | --- |
//! | [`MCP_201`] | The tool's input schema cannot be generated | syntactic |
//! | [`MCP_202`] | A tool parameter has an unsupported type | trait bound ([`ToolArgument`](crate::ToolArgument)) |
//! | [`MCP_204`] | A required `mcp::HttpSession` parameter in a stateless service | trait bound |
//! | [`MCP_206`] | Request metadata is not optional | trait bound |
//! | [`MCP_207`] | Duplicate parameter | trait bound |
//! | [`MCP_208`] | Invalid `#[header]` parameter | syntactic (name) and trait bound ([`HeaderParam`](crate::HeaderParam), type) |
//! | [`MCP_210`] | An advanced service lacks `on_list_tools` or `on_call_tool` | syntactic |
//! | [`MCP_211`] | Invalid parameters of an advanced service method | trait bound; syntactic for a missing `mcp::CallToolParams` |
//! | [`MCP_212`] | Invalid return type of an advanced service method | trait bound |
//! | [`MCP_213`] | An unsupported method in an advanced service | syntactic |
//! | [`MCP_214`] | A required `mcp::HttpSession` parameter in modern protocol mode | trait bound |
//! | [`MCP_215`] | Invalid type of an `#[argument(header = ...)]` parameter | trait bound ([`HeaderArgument`](crate::HeaderArgument)) |
//! | [`MCP_216`] | Invalid `#[argument(header = ...)]` header name | syntactic |
//! | [`MCP_217`] | Duplicate `#[argument(header = ...)]` header name | syntactic |
//! | [`MCP_218`] | `#[argument(header = ...)]` with an explicit `#[tool(schema = ...)]` | syntactic |
//! | [`MCP_219`] | A struct field that cannot be a form field | trait bound ([`FormField`](crate::FormField)) |
//! | [`MCP_220`] | An `elicit_form` schema that is neither a form schema value nor a named form type | trait bound ([`IntoFormSchema`](crate::IntoFormSchema)) |
//! | [`MCP_221`] | `structured_output = false` with an explicit `output_schema` | syntactic |
//! | [`MCP_222`] | `structured_output = true` on a tool whose return type has no JSON Schema | trait bound |
//! | [`MCP_WARNING_202`] | A required `mcp::HttpSession` parameter in auto protocol mode | deprecation warning |
//! | [`MCP_WARNING_203`] | An `mcp::HttpSession` parameter in modern protocol mode | deprecation warning |
//! | [`MCP_WARNING_204`] | An optional `mcp::HttpSession` parameter in auto protocol mode | deprecation warning |
//!
//! MCP_219 and MCP_220 belong to elicitation forms (`#[derive(mcp::Form)]`, `mcp::FormField`,
//! `mcp::IntoFormSchema`) and are not listed here yet. The macro also rejects, without a
//! code, what the seed has no rule for: duplicate or invalid tool names, generic impl blocks,
//! and tool methods that do not take `&self`.

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

#[doc = include_str!("../../docs/diagnostics/MCP_WARNING_202.md")]
pub struct MCP_WARNING_202;

#[doc = include_str!("../../docs/diagnostics/MCP_WARNING_203.md")]
pub struct MCP_WARNING_203;

#[doc = include_str!("../../docs/diagnostics/MCP_WARNING_204.md")]
pub struct MCP_WARNING_204;

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
