//! Parameter kinds: what a tool parameter binds, decided by its type, and the rule traits
//! whose `on_unimplemented` messages are the parameter diagnostics.

use std::marker::PhantomData;

use http::HeaderMap;
use http::request::Parts;
use serde_json::Value;

use super::Probe;
use super::tools::{CallArgs, SchemaFn};
use crate::dispatch::{AuthContext, Context, RequestMeta};
use crate::error::ServerError;
use crate::protocol::{CallToolParams, ErrorCode};
use crate::schema::argument::{HeaderArgument, ToolArgument};
use crate::session::Session;

/// An ordinary argument of type `T`.
pub struct ArgKind<T>(PhantomData<fn() -> T>);
/// `mcp::Session` (required).
pub struct SessionKind;
/// `Option<mcp::Session>`.
pub struct OptSessionKind;
/// `Option<mcp::RequestMeta>`.
pub struct MetaKind;
/// `mcp::RequestMeta` (not optional: MCP_206).
pub struct MetaRequiredKind;
/// `http::HeaderMap`.
pub struct HeadersKind;
/// `http::request::Parts`.
pub struct PartsKind;
/// `mcp::Context`.
pub struct ContextKind;
/// `mcp::AuthContext` (required).
pub struct AuthKind;
/// `Option<mcp::AuthContext>`.
pub struct OptAuthKind;

/// Probe level 1: runtime parameter types.
pub trait RuntimeParam {
    /// The kind.
    type Kind;
    /// The kind of this parameter.
    fn kind(self) -> Self::Kind;
}

/// Probe level 2: anything else is an argument.
pub trait ArgumentParam {
    /// The kind.
    type Kind;
    /// The kind of this parameter.
    fn kind(self) -> Self::Kind;
}

impl<T> ArgumentParam for &Probe<T> {
    type Kind = ArgKind<T>;
    fn kind(self) -> ArgKind<T> {
        ArgKind(PhantomData)
    }
}

macro_rules! runtime_param {
    ($($ty:ty => $kind:ident),* $(,)?) => {$(
        impl RuntimeParam for &&Probe<$ty> {
            type Kind = $kind;
            fn kind(self) -> $kind { $kind }
        }
    )*};
}

runtime_param! {
    Session => SessionKind,
    Option<Session> => OptSessionKind,
    Option<RequestMeta> => MetaKind,
    RequestMeta => MetaRequiredKind,
    HeaderMap => HeadersKind,
    Parts => PartsKind,
    Context => ContextKind,
    AuthContext => AuthKind,
    Option<AuthContext> => OptAuthKind,
}

/// Parameter groups, for MCP_207: a tool binds each runtime value once. The names are
/// unique in the crate graph so that rustc prints them unqualified in diagnostics.
pub mod group {
    /// An ordinary argument.
    pub struct ToolArgumentParameter;
    /// `Session` or `Option<Session>`.
    pub struct SessionParameter;
    /// `RequestMeta` or `Option<RequestMeta>`.
    pub struct RequestMetaParameter;
    /// `HeaderMap`.
    pub struct HeaderMapParameter;
    /// `Parts`.
    pub struct RequestPartsParameter;
    /// `Context`.
    pub struct ContextParameter;
    /// `AuthContext` or `Option<AuthContext>`.
    pub struct AuthContextParameter;
}

/// A parameter kind: how it binds and what schema it contributes.
#[diagnostic::on_unimplemented(message = "MCP_202: this parameter cannot be bound by a tool")]
pub trait Kind {
    /// The bound value.
    type Out;
    /// Binds the value for one call.
    fn bind(self, call: &mut CallArgs<'_>, name: &'static str) -> Result<Self::Out, ServerError>;
    /// The argument's schema, `None` for runtime values.
    fn schema(self) -> Option<SchemaFn>;
    /// Whether the parameter lets the tool answer input-required (the call's
    /// [`Context`] samples through it): the tool's arguments are then kept for the request
    /// state's binding instead of moved into the parameters.
    fn may_ask(self) -> bool;
    /// Whether the argument must be present (`false` for runtime values and for types that
    /// accept `null`, such as `Option<T>`).
    fn required(self) -> bool;
}

/// The group of a parameter kind (for every kind, so duplicate checks add no MCP_202).
pub trait HasGroup {
    /// The group.
    type Group;
}

impl<T> HasGroup for ArgKind<T> {
    type Group = group::ToolArgumentParameter;
}

impl<T: ToolArgument> Kind for ArgKind<T> {
    type Out = T;
    fn bind(self, call: &mut CallArgs<'_>, name: &'static str) -> Result<T, ServerError> {
        call.argument::<T>(name)
    }
    fn schema(self) -> Option<SchemaFn> {
        Some(super::tools::argument_schema::<T>)
    }
    fn may_ask(self) -> bool {
        false
    }
    fn required(self) -> bool {
        T::decode(Value::Null).is_err()
    }
}

macro_rules! runtime_kind {
    ($kind:ident, $out:ty, $group:ident, |$call:ident| $bind:expr) => {
        runtime_kind!($kind, $out, $group, may_ask = false, |$call| $bind);
    };
    ($kind:ident, $out:ty, $group:ident, may_ask = $asks:literal, |$call:ident| $bind:expr) => {
        impl HasGroup for $kind {
            type Group = group::$group;
        }
        impl Kind for $kind {
            type Out = $out;
            fn bind(
                self,
                $call: &mut CallArgs<'_>,
                _name: &'static str,
            ) -> Result<$out, ServerError> {
                $bind
            }
            fn schema(self) -> Option<SchemaFn> {
                None
            }
            fn may_ask(self) -> bool {
                $asks
            }
            fn required(self) -> bool {
                false
            }
        }
    };
}

/// The refusal of a call whose tool needs what the request does not have.
fn lacks(call: &CallArgs<'_>, what: &str) -> ServerError {
    ServerError::Rpc {
        code: ErrorCode::INVALID_REQUEST,
        message: format!("Invalid Request: tool `{}` {what}", call.tool()),
        data: None,
    }
}

runtime_kind!(SessionKind, Session, SessionParameter, |call| call
    .session()
    .ok_or_else(|| lacks(call, "needs a legacy HTTP session")));
runtime_kind!(
    OptSessionKind,
    Option<Session>,
    SessionParameter,
    |call| Ok(call.session())
);
runtime_kind!(
    MetaKind,
    Option<RequestMeta>,
    RequestMetaParameter,
    |call| Ok(call.meta())
);
runtime_kind!(
    MetaRequiredKind,
    RequestMeta,
    RequestMetaParameter,
    |call| Ok(call.meta().unwrap_or_default())
);
// Without HTTP (stdio, in-process) a request has no headers: the map is empty.
runtime_kind!(HeadersKind, HeaderMap, HeaderMapParameter, |call| Ok(call
    .request()
    .headers()
    .cloned()
    .unwrap_or_default()));
runtime_kind!(PartsKind, Parts, RequestPartsParameter, |call| call
    .request()
    .parts()
    .cloned()
    .ok_or_else(|| lacks(
        call,
        "reads the HTTP request, and this request did not come over HTTP"
    )));
runtime_kind!(
    ContextKind,
    Context,
    ContextParameter,
    may_ask = true,
    |call| Ok(call.context())
);
runtime_kind!(AuthKind, AuthContext, AuthContextParameter, |call| call
    .auth()
    .ok_or_else(|| ServerError::client_message(format!(
        "tool `{}` needs an authenticated caller, and this service has no OAuth configuration",
        call.tool()
    ))));
runtime_kind!(
    OptAuthKind,
    Option<AuthContext>,
    AuthContextParameter,
    |call| Ok(call.auth())
);

// ----------------------------------------------------------------- rule traits

/// The rule of `MCP_206`: request metadata must be optional.
#[diagnostic::on_unimplemented(
    message = "MCP_206: request metadata must be optional: use `Option<mcp::RequestMeta>`",
    label = "clients may omit `_meta`",
    note = "declare the parameter as `Option<mcp::RequestMeta>`; it is `None` when the request has no `_meta`"
)]
pub trait MetaOptional {}
/// The rule of `MCP_204`: no required session in a stateless
/// service.
#[diagnostic::on_unimplemented(
    message = "MCP_204: a required `mcp::Session` parameter cannot be used in a stateless service",
    label = "stateless services have no session",
    note = "use `Option<mcp::Session>`, or set `session_mode = \"stateful\"` or `\"auto\"`"
)]
pub trait StatelessOk {}
/// The rule of `MCP_214`: no required session in modern protocol
/// mode.
#[diagnostic::on_unimplemented(
    message = "MCP_214: a required `mcp::Session` parameter cannot be used in modern protocol mode",
    label = "modern requests have no session",
    note = "use `Option<mcp::Session>`, or set `protocol_mode = \"auto\"` or `\"legacy\"`"
)]
pub trait ModernOk {}
/// The rule of `MCP_215` for runtime parameters marked as header
/// arguments (arguments need [`HeaderArgument`](crate::HeaderArgument)).
#[diagnostic::on_unimplemented(
    message = "MCP_215: `#[argument(header = ...)]` applies to a non-optional `String`, integer or `bool` argument",
    label = "not a tool argument"
)]
pub trait HeaderArgumentKind {}
/// The rule of `MCP_207`: a runtime value is bound twice.
/// Implemented for every pair of different parameter groups (and, in basic tools, for two
/// ordinary arguments).
#[diagnostic::on_unimplemented(
    message = "MCP_207: duplicate parameter: an earlier parameter of this tool already binds the same runtime value",
    label = "binds it again",
    note = "a tool binds each runtime value (session, request metadata, headers, request parts, context, auth context) at most once: remove this parameter"
)]
pub trait Distinct<Earlier> {}
/// The rule of `MCP_207` in advanced methods, where a second
/// primary parameter is a duplicate too.
#[diagnostic::on_unimplemented(
    message = "MCP_207: duplicate parameter: an earlier parameter of this method already binds the same value",
    label = "binds it again",
    note = "a hook of an advanced service binds its own value (the cursor, or its params such as `mcp::CallToolParams`) and each runtime value at most once: remove this parameter"
)]
pub trait DistinctAdvanced<Earlier> {}

/// A parameter kind whose group differs from the group of kind `Earlier` (MCP_207).
pub trait DistinctKind<Earlier> {}
impl<E: HasGroup, K: HasGroup> DistinctKind<E> for K where K::Group: Distinct<E::Group> {}
/// A parameter kind of an advanced method whose group differs from that of `Earlier`.
pub trait DistinctAdvancedKind<Earlier> {}
impl<E: HasGroup, K: HasGroup> DistinctAdvancedKind<E> for K where
    K::Group: DistinctAdvanced<E::Group>
{
}

macro_rules! all_kinds_except {
    ($tr:ident; $($kind:ident),*) => {
        impl<T> $tr for ArgKind<T> {}
        $( impl $tr for $kind {} )*
    };
}
all_kinds_except!(MetaOptional; SessionKind, OptSessionKind, MetaKind, HeadersKind, PartsKind, ContextKind, AuthKind, OptAuthKind);
all_kinds_except!(StatelessOk; OptSessionKind, MetaKind, MetaRequiredKind, HeadersKind, PartsKind, ContextKind, AuthKind, OptAuthKind);
all_kinds_except!(ModernOk; OptSessionKind, MetaKind, MetaRequiredKind, HeadersKind, PartsKind, ContextKind, AuthKind, OptAuthKind);
impl<T: HeaderArgument> HeaderArgumentKind for ArgKind<T> {}

macro_rules! distinct {
    ($tr:ident: $($a:ident => [$($b:ident),*]);* $(;)?) => {
        $( $(
            #[diagnostic::do_not_recommend]
            impl $tr<group::$b> for group::$a {}
        )* )*
    };
}
distinct! { Distinct:
    ToolArgumentParameter => [ToolArgumentParameter, SessionParameter, RequestMetaParameter, HeaderMapParameter, RequestPartsParameter, ContextParameter, AuthContextParameter];
    SessionParameter => [ToolArgumentParameter, RequestMetaParameter, HeaderMapParameter, RequestPartsParameter, ContextParameter, AuthContextParameter];
    RequestMetaParameter => [ToolArgumentParameter, SessionParameter, HeaderMapParameter, RequestPartsParameter, ContextParameter, AuthContextParameter];
    HeaderMapParameter => [ToolArgumentParameter, SessionParameter, RequestMetaParameter, RequestPartsParameter, ContextParameter, AuthContextParameter];
    RequestPartsParameter => [ToolArgumentParameter, SessionParameter, RequestMetaParameter, HeaderMapParameter, ContextParameter, AuthContextParameter];
    ContextParameter => [ToolArgumentParameter, SessionParameter, RequestMetaParameter, HeaderMapParameter, RequestPartsParameter, AuthContextParameter];
    AuthContextParameter => [ToolArgumentParameter, SessionParameter, RequestMetaParameter, HeaderMapParameter, RequestPartsParameter, ContextParameter];
}
distinct! { DistinctAdvanced:
    ToolArgumentParameter => [SessionParameter, RequestMetaParameter, HeaderMapParameter, RequestPartsParameter, ContextParameter, AuthContextParameter];
    SessionParameter => [ToolArgumentParameter, RequestMetaParameter, HeaderMapParameter, RequestPartsParameter, ContextParameter, AuthContextParameter];
    RequestMetaParameter => [ToolArgumentParameter, SessionParameter, HeaderMapParameter, RequestPartsParameter, ContextParameter, AuthContextParameter];
    HeaderMapParameter => [ToolArgumentParameter, SessionParameter, RequestMetaParameter, RequestPartsParameter, ContextParameter, AuthContextParameter];
    RequestPartsParameter => [ToolArgumentParameter, SessionParameter, RequestMetaParameter, HeaderMapParameter, ContextParameter, AuthContextParameter];
    ContextParameter => [ToolArgumentParameter, SessionParameter, RequestMetaParameter, HeaderMapParameter, RequestPartsParameter, AuthContextParameter];
    AuthContextParameter => [ToolArgumentParameter, SessionParameter, RequestMetaParameter, HeaderMapParameter, RequestPartsParameter, ContextParameter];
}

/// MCP_206 check.
pub fn assert_meta_optional<K: MetaOptional>(_: &K) {}
/// MCP_204 check.
pub fn assert_stateless_ok<K: StatelessOk>(_: &K) {}
/// MCP_214 check.
pub fn assert_modern_ok<K: ModernOk>(_: &K) {}
/// MCP_215 check.
pub fn assert_header_argument<K: HeaderArgumentKind>(_: &K) {}
/// MCP_207 check for a pair of parameters of a tool (reported on the later one).
pub fn assert_distinct<E, K: DistinctKind<E>>(_: &E, _: &K) {}
/// MCP_207 check for a pair of parameters of an advanced method (reported on the later one).
pub fn assert_distinct_advanced<E, K: DistinctAdvancedKind<E>>(_: &E, _: &K) {}

// ------------------------------------------------------------- warnings (by type)

/// No warning: its `emit` is an ordinary method.
pub struct NoWarning;

impl NoWarning {
    /// Nothing to report.
    pub fn emit(&self) {}
}

// The warnings of each kind in each protocol mode are in `crate::diagnostics`, next to
// the warnings' pages.

impl<T> ArgKind<T> {
    /// No warning in auto protocol mode.
    pub fn in_auto_mode(&self) -> NoWarning {
        NoWarning
    }
    /// No warning in auto protocol mode with stateless sessions.
    pub fn in_auto_stateless_mode(&self) -> NoWarning {
        NoWarning
    }
    /// No warning in modern protocol mode.
    pub fn in_modern_mode(&self) -> NoWarning {
        NoWarning
    }
}

// ------------------------------------------------------------- advanced methods

/// The primary parameter of `on_list_tools`, the cursor: a rule of
/// `MCP_211`.
#[diagnostic::on_unimplemented(
    message = "MCP_211: `{Self}` is not a parameter `on_list_tools` accepts",
    label = "expected the cursor (`Option<String>`) or a runtime parameter",
    note = "`on_list_tools` takes `cursor: Option<String>` and runtime parameters (`http::HeaderMap`, `http::request::Parts`, `#[http_header]` parameters, `mcp::AuthContext`, `Option<mcp::Session>`)"
)]
pub trait ListPrimary: Sized {
    /// Takes the value from the call.
    fn take(call: &mut CallArgs<'_>) -> Self;
}

impl ListPrimary for Option<String> {
    fn take(call: &mut CallArgs<'_>) -> Self {
        call.take_cursor()
    }
}

/// The primary parameter of `on_call_tool`, the call parameters: a rule of
/// `MCP_211`.
#[diagnostic::on_unimplemented(
    message = "MCP_211: `{Self}` is not a parameter `on_call_tool` accepts",
    label = "expected `mcp::CallToolParams` or a runtime parameter",
    note = "`on_call_tool` takes one `mcp::CallToolParams` and runtime parameters (`http::HeaderMap`, `http::request::Parts`, `#[http_header]` parameters, `mcp::AuthContext`, `Option<mcp::Session>`); read request metadata from `CallToolParams::meta`"
)]
pub trait CallPrimary: Sized {
    /// Takes the value from the call.
    fn take(call: &mut CallArgs<'_>) -> Self;
}

impl CallPrimary for CallToolParams {
    fn take(call: &mut CallArgs<'_>) -> Self {
        call.take_params()
    }
}

/// Binds a parameter of `on_list_tools`: the rule of `MCP_211`.
#[diagnostic::on_unimplemented(
    message = "MCP_211: this parameter cannot be bound by `on_list_tools`",
    label = "not a parameter of `on_list_tools`",
    note = "`on_list_tools` takes `cursor: Option<String>` and runtime parameters (`http::HeaderMap`, `http::request::Parts`, `#[http_header]` parameters, `mcp::AuthContext`, `Option<mcp::Session>`)"
)]
pub trait ListBind {
    /// The bound value.
    type Out;
    /// Binds it.
    fn bind_list(
        self,
        call: &mut CallArgs<'_>,
        name: &'static str,
    ) -> Result<Self::Out, ServerError>;
}

/// Binds a parameter of `on_call_tool`: the rule of `MCP_211`.
#[diagnostic::on_unimplemented(
    message = "MCP_211: this parameter cannot be bound by `on_call_tool`",
    label = "not a parameter of `on_call_tool`",
    note = "`on_call_tool` reads request metadata from `CallToolParams::meta`; it takes one `mcp::CallToolParams` and runtime parameters"
)]
pub trait CallBind {
    /// The bound value.
    type Out;
    /// Binds it.
    fn bind_call(
        self,
        call: &mut CallArgs<'_>,
        name: &'static str,
    ) -> Result<Self::Out, ServerError>;
}

impl<T: ListPrimary> ListBind for ArgKind<T> {
    type Out = T;
    fn bind_list(self, call: &mut CallArgs<'_>, _: &'static str) -> Result<T, ServerError> {
        Ok(T::take(call))
    }
}

impl<T: CallPrimary> CallBind for ArgKind<T> {
    type Out = T;
    fn bind_call(self, call: &mut CallArgs<'_>, _: &'static str) -> Result<T, ServerError> {
        Ok(T::take(call))
    }
}

macro_rules! advanced_runtime {
    ($($kind:ident),*) => {$(
        impl ListBind for $kind {
            type Out = <$kind as Kind>::Out;
            fn bind_list(self, call: &mut CallArgs<'_>, name: &'static str) -> Result<Self::Out, ServerError> {
                self.bind(call, name)
            }
        }
        impl CallBind for $kind {
            type Out = <$kind as Kind>::Out;
            fn bind_call(self, call: &mut CallArgs<'_>, name: &'static str) -> Result<Self::Out, ServerError> {
                self.bind(call, name)
            }
        }
    )*};
}
advanced_runtime!(
    SessionKind,
    OptSessionKind,
    HeadersKind,
    PartsKind,
    AuthKind,
    OptAuthKind,
    ContextKind
);

/// Binds a parameter of `on_list_tools` (MCP_211 when it cannot be one).
pub fn bind_list<K: ListBind>(
    kind: K,
    call: &mut CallArgs<'_>,
    name: &'static str,
) -> Result<K::Out, ServerError> {
    kind.bind_list(call, name)
}

/// Binds a parameter of `on_call_tool` (MCP_211 when it cannot be one).
pub fn bind_call<K: CallBind>(
    kind: K,
    call: &mut CallArgs<'_>,
    name: &'static str,
) -> Result<K::Out, ServerError> {
    kind.bind_call(call, name)
}

/// `#[http_header("X-Name")]` parameters (MCP_208 when the type cannot be one).
pub fn header_param<T: crate::schema::argument::HeaderParam>(
    call: &CallArgs<'_>,
    header: &'static str,
) -> Result<T, ServerError> {
    // Without HTTP the request has no headers: the parameter reads as absent.
    let none = HeaderMap::new();
    let headers = call.request().headers().unwrap_or(&none);
    T::from_headers(headers, header).map_err(ServerError::InvalidParams)
}

/// The raw JSON of an argument, for tests of generated code.
pub fn raw_argument(call: &CallArgs<'_>, name: &str) -> Option<Value> {
    call.peek(name).cloned()
}
