//! The resource, prompt and completion hooks of `#[mcp::service(advanced)]`
//! (`on_list_resources`, `on_read_resource`, `on_get_prompt`, ...): binding their parameters
//! by type and mapping their results, as `ListBind`/`CallBind` and `list_return`/
//! `call_return` do for `on_list_tools` and `on_call_tool`.

use super::kinds::{
    ArgKind, AuthKind, ContextKind, HeadersKind, Kind as _, OptAuthKind, OptSessionKind, PartsKind,
    SessionKind,
};
use super::tools::CallArgs;
use crate::dispatch::{Context, RequestContext};
use crate::error::ServerError;
use crate::protocol::{
    CompleteParams, CompleteResult, GetPromptParams, GetPromptResponse, GetPromptResult,
    InputRequiredResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ReadResourceParams, ReadResourceResult,
};

/// The values a hook whose own value is a `P` binds its parameters from: that value, and
/// the call's runtime values (through `Deref`, so `#[http_header]` parameters bind as for a
/// tool).
pub struct HookArgs<'a, P> {
    call: CallArgs<'a>,
    primary: Option<P>,
}

impl<'a, P: HookValue> HookArgs<'a, P> {
    /// For a hook called with `value`.
    pub fn new(value: P, request: &'a RequestContext) -> Self {
        let context = value.context(request);
        Self {
            call: CallArgs::for_list(None, request).with_context(context),
            primary: Some(value),
        }
    }
}

/// The value a hook is called with: it decides what an `mcp::Context` parameter of the hook
/// knows (the answers of the round, for `on_get_prompt`).
pub trait HookValue {
    /// The context of a hook called with this value for `request`.
    fn context(&self, request: &RequestContext) -> Context {
        Context::for_call(request, None, None)
    }
}

impl HookValue for Option<String> {}
impl HookValue for ReadResourceParams {}
impl HookValue for CompleteParams {}

impl HookValue for GetPromptParams {
    fn context(&self, request: &RequestContext) -> Context {
        Context::from_prompt(self, request)
    }
}

impl<'a, P> std::ops::Deref for HookArgs<'a, P> {
    type Target = CallArgs<'a>;
    fn deref(&self) -> &CallArgs<'a> {
        &self.call
    }
}

/// Binds a parameter of a hook whose own value is a `P` (the cursor of a list hook, the
/// params of `on_read_resource`, `on_get_prompt`, `on_complete`): the rule of
/// [MCP_211](crate::diagnostics::MCP_211).
#[diagnostic::on_unimplemented(
    message = "MCP_211: this parameter cannot be bound by this hook",
    label = "expected `{P}` or a runtime parameter",
    note = "a hook takes its own value (`{P}`) and runtime parameters (`http::HeaderMap`, `http::request::Parts`, `#[http_header]` parameters, `mcp::AuthContext`, `Option<mcp::Session>`, `mcp::Context`)"
)]
pub trait HookBind<P> {
    /// The bound value.
    type Out;
    /// Binds it.
    fn bind_hook(
        self,
        args: &mut HookArgs<'_, P>,
        name: &'static str,
    ) -> Result<Self::Out, ServerError>;
}

impl<P> HookBind<P> for ArgKind<P> {
    type Out = P;
    fn bind_hook(self, args: &mut HookArgs<'_, P>, name: &'static str) -> Result<P, ServerError> {
        // Taken twice only by a hook with two parameters of its value's type, which MCP_207
        // rejects at compile time.
        args.primary
            .take()
            .ok_or_else(|| ServerError::internal(format!("hook parameter `{name}` bound twice")))
    }
}

macro_rules! hook_runtime {
    ($($kind:ident),*) => {$(
        impl<P> HookBind<P> for $kind {
            type Out = <$kind as super::kinds::Kind>::Out;
            fn bind_hook(self, args: &mut HookArgs<'_, P>, name: &'static str) -> Result<Self::Out, ServerError> {
                self.bind(&mut args.call, name)
            }
        }
    )*};
}
hook_runtime!(
    SessionKind,
    OptSessionKind,
    HeadersKind,
    PartsKind,
    AuthKind,
    OptAuthKind,
    ContextKind
);

/// Binds a parameter of a hook (MCP_211 when it cannot be one).
pub fn bind_hook<P, K: HookBind<P>>(
    kind: K,
    args: &mut HookArgs<'_, P>,
    name: &'static str,
) -> Result<K::Out, ServerError> {
    kind.bind_hook(args, name)
}

/// What a hook answering a `T` may return: the rule of
/// [MCP_212](crate::diagnostics::MCP_212).
#[diagnostic::on_unimplemented(
    message = "MCP_212: this hook cannot return `{Self}`",
    label = "expected `{T}` or `Result<{T}, E>` with `E: Into<mcp::ServerError>`",
    note = "declare the return type; an error type must convert into `mcp::ServerError`, because a hook's error is the JSON-RPC error the client receives: map others with `.map_err(mcp::ServerError::client_message)` (the text is sent) or `.map_err(mcp::ServerError::internal)` (the error is logged)"
)]
pub trait HookReturn<T> {
    /// The result.
    fn into_hook(self) -> Result<T, ServerError>;
}

macro_rules! hook_return {
    ($($ty:ty $(: $($from:ty),+)?);* $(;)?) => {$(
        impl HookReturn<$ty> for $ty {
            fn into_hook(self) -> Result<$ty, ServerError> {
                Ok(self)
            }
        }

        #[diagnostic::do_not_recommend]
        impl<E: Into<ServerError>> HookReturn<$ty> for Result<$ty, E> {
            fn into_hook(self) -> Result<$ty, ServerError> {
                self.map_err(Into::into)
            }
        }

        $($(
            impl HookReturn<$ty> for $from {
                fn into_hook(self) -> Result<$ty, ServerError> {
                    Ok(self.into())
                }
            }

            #[diagnostic::do_not_recommend]
            impl<E: Into<ServerError>> HookReturn<$ty> for Result<$from, E> {
                fn into_hook(self) -> Result<$ty, ServerError> {
                    self.map(Into::into).map_err(Into::into)
                }
            }
        )+)?
    )*};
}
hook_return!(
    ListResourcesResult;
    ListResourceTemplatesResult;
    ReadResourceResult;
    ListPromptsResult;
    // A prompt's messages, or a request for input first.
    GetPromptResponse: GetPromptResult, InputRequiredResult, crate::dispatch::InputRequired;
    CompleteResult;
);

/// The result of a hook answering a `T` (MCP_212 when the type cannot be one). `T` is named
/// first, so the error names the result type expected.
pub fn hook_return<T, R: HookReturn<T>>(
    _: std::marker::PhantomData<T>,
    value: R,
) -> Result<T, ServerError> {
    value.into_hook()
}
