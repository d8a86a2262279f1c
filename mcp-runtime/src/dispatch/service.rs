//! The traits services implement, generated from one list of hooks.
//!
//! [`hooks!`] lists every hook a service answers once (its name in the dispatcher, its name
//! in [`AdvancedService`], its parameter and its result) and generates from that list:
//! - [`ServiceHandler`], the object-safe trait the dispatcher calls (boxed futures; what
//!   `#[mcp::service]` implements for a basic service),
//! - [`AdvancedService`], the public trait applications and `#[mcp::service(advanced)]`
//!   implement (`async fn` hooks),
//! - the bridge [`Advanced<T>`] that runs an [`AdvancedService`] as a [`ServiceHandler`].

use std::future::Future;

use super::tasks::TaskSupport;
use super::{Features, RequestContext, ServerBuilder};
use crate::base::BoxFuture;
use crate::error::ServerError;
use crate::protocol::{
    CallToolParams, CallToolResponse, CompleteParams, CompleteResult, GetPromptParams,
    GetPromptResponse, Implementation, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, ReadResourceParams, ReadResourceResult, Tool,
};

/// Whether a service's tools are generated (basic) or listed and dispatched by the
/// application (advanced). It decides the legacy wire shape of results (macro plumbing,
/// not public API).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ServiceKind {
    /// Generated from an annotated impl block: legacy clients get the 1.x shape (text only,
    /// no output schema), unless `legacy_structured_output` sends structured output to
    /// clients of 2025-06-18 or later.
    Basic,
    /// Application-defined: legacy clients get the results with non-object
    /// `outputSchema` / `structuredContent` removed.
    Advanced,
}

/// The parameter type of a hook in [`AdvancedService`]: the dispatcher's, unless the entry
/// names another.
macro_rules! hook_param {
    ($handler:ty) => {
        $handler
    };
    ($handler:ty, $advanced:ty) => {
        $advanced
    };
}

/// The argument the bridge passes to a hook of [`AdvancedService`]: the dispatcher's, unless
/// the entry converts it.
macro_rules! hook_arg {
    ($param:ident) => {
        $param
    };
    ($param:ident, $convert:expr) => {
        $convert
    };
}

/// Generates [`ServiceHandler`], [`AdvancedService`] and the bridge [`Advanced<T>`] from the
/// list of hooks below, so that a hook is declared in one place.
///
/// Each entry is `fn <dispatcher name> / <AdvancedService name>(<param>: <type the
/// dispatcher passes> [=> <type the hook takes> = <conversion>]) -> <result>;`. `required`
/// hooks have no default; `provided` ones answer "method not found". `queries` are
/// synchronous and forwarded as they are.
macro_rules! hooks {
    (
        queries {$(
            $(#[doc = $qdoc:literal])*
            fn $query:ident() -> $qout:ty = $qdefault:expr;
        )*}
        required {$(
            $(#[doc = $rdoc:literal])*
            fn $rhandler:ident / $rhook:ident(
                $rparam:ident: $rty:ty $(=> $raty:ty = $rconv:expr)?
            ) -> $rout:ty;
        )*}
        provided {$(
            $(#[doc = $pdoc:literal])*
            fn $phandler:ident / $phook:ident($pparam:ident: $pty:ty) -> $pout:ty;
        )*}
    ) => {
        /// The dispatch interface of a service (macro plumbing, not public API): the
        /// dispatcher calls it through a `Box<dyn ServiceHandler>`.
        ///
        /// `#[mcp::service]` implements it for a basic service; an application writing its
        /// own discovery and dispatch implements [`AdvancedService`] (by hand or with
        /// `#[mcp::service(advanced)]`), which the runtime bridges to this trait. The hooks
        /// are those of [`AdvancedService`] under their dispatcher names, with boxed futures;
        /// `call_tool` is lent the params (the dispatcher keeps them to bind a request state
        /// to an input-required answer; a basic tool that can never ask takes its arguments
        /// out of them instead of copying each one).
        #[doc(hidden)]
        pub trait ServiceHandler: Send + Sync + 'static {
            /// Basic or advanced.
            fn kind(&self) -> ServiceKind;

            /// The tool definitions when they are fixed (basic services). Modern
            /// `tools/call` then finds a tool's header declarations without listing pages.
            fn static_tools(&self) -> Option<&[Tool]> {
                None
            }

            /// The OAuth scopes calling tool `name` needs (`#[tool(scopes = [...])]`),
            /// enforced on `tools/call` of OAuth-protected services and never listed.
            fn tool_scopes(&self, name: &str) -> &'static [&'static str] {
                let _ = name;
                &[]
            }

            /// Whether legacy clients that negotiated 2025-06-18 or later get tool `name`'s
            /// output schema and structured content (`#[tool(legacy_structured_output =
            /// ...)]`); `None` follows
            /// [`ServerBuilder::legacy_structured_output`](crate::ServerBuilder::legacy_structured_output).
            /// Basic services only.
            fn legacy_structured_output(&self, name: &str) -> Option<bool> {
                let _ = name;
                None
            }

            /// Whether tool `name` may run as a task (`#[tool(task = "...")]`).
            fn task_support(&self, name: &str) -> TaskSupport {
                let _ = name;
                TaskSupport::Forbidden
            }

            /// Whether any tool may run as a task (the server then advertises the tasks
            /// extension).
            fn serves_tasks(&self) -> bool {
                false
            }

            $(
                $(#[doc = $qdoc])*
                fn $query(&self) -> $qout {
                    $qdefault
                }
            )*

            $(
                $(#[doc = $rdoc])*
                fn $rhandler<'a>(
                    &'a self,
                    $rparam: $rty,
                    request: &'a RequestContext,
                ) -> BoxFuture<'a, Result<$rout, ServerError>>;
            )*

            $(
                $(#[doc = $pdoc])*
                fn $phandler<'a>(
                    &'a self,
                    $pparam: $pty,
                    request: &'a RequestContext,
                ) -> BoxFuture<'a, Result<$pout, ServerError>> {
                    let _ = ($pparam, request);
                    Box::pin(std::future::ready(Err(ServerError::method_not_found())))
                }
            )*
        }

        /// A service that defines its discovery and dispatch itself (the seed's advanced
        /// service): it names itself ([`info`](Self::info)), lists and calls its tools, and
        /// may serve resources, prompts and completion through the other hooks (declared
        /// in [`features`](Self::features)).
        ///
        /// Write the hooks as `async fn`s, or let `#[mcp::service(advanced)]` implement
        /// this trait from an impl block whose `on_*` methods take only the parameters they
        /// need (runtime parameters such as `http::HeaderMap` included) and whose attribute
        /// gives the name and version.
        ///
        /// ```
        /// use mcp::{AdvancedService, CallToolParams, CallToolResponse, CallToolResult,
        ///           Implementation, ListToolsResult, RequestContext, ServerError, Tool};
        /// use serde_json::json;
        ///
        /// struct Echo;
        ///
        /// impl AdvancedService for Echo {
        ///     fn info(&self) -> Implementation {
        ///         Implementation::new("echo", "1.0.0")
        ///     }
        ///
        ///     async fn on_list_tools(&self, cursor: Option<String>, _request: &RequestContext)
        ///         -> Result<ListToolsResult, ServerError> {
        ///         if cursor.is_some() {
        ///             return Err(ServerError::invalid_params("Unknown cursor"));
        ///         }
        ///         let schema = json!({"type": "object", "properties": {"value": {"type": "string"}},
        ///                             "required": ["value"]});
        ///         Ok(ListToolsResult::new(vec![Tool::new("echo", schema)]))
        ///     }
        ///
        ///     async fn on_call_tool(&self, params: CallToolParams, _request: &RequestContext)
        ///         -> Result<CallToolResponse, ServerError> {
        ///         if params.name != "echo" {
        ///             return Err(ServerError::invalid_params(format!("Unknown tool: {}", params.name)));
        ///         }
        ///         let value = params.arguments.unwrap_or_default().remove("value").unwrap_or_default();
        ///         Ok(CallToolResult::text(value.to_string()).with_structured(value).into())
        ///     }
        /// }
        ///
        /// let server = mcp::Server::builder(Echo).build()?;
        /// assert_eq!(server.info().name, "echo");
        /// # Ok::<(), mcp::Error>(())
        /// ```
        ///
        /// A service that does not say who it is does not compile:
        ///
        /// ```compile_fail,E0046
        /// use mcp::{AdvancedService, CallToolParams, CallToolResponse, ListToolsResult,
        ///           RequestContext, ServerError};
        ///
        /// struct Anonymous;
        ///
        /// impl AdvancedService for Anonymous { // error[E0046]: not all trait items implemented, missing: `info`
        ///     async fn on_list_tools(&self, _: Option<String>, _: &RequestContext)
        ///         -> Result<ListToolsResult, ServerError> {
        ///         Ok(ListToolsResult::default())
        ///     }
        ///
        ///     async fn on_call_tool(&self, params: CallToolParams, _: &RequestContext)
        ///         -> Result<CallToolResponse, ServerError> {
        ///         Err(ServerError::invalid_params(format!("Unknown tool: {}", params.name)))
        ///     }
        /// }
        /// ```
        #[diagnostic::on_unimplemented(
            message = "`{Self}` is not an MCP service",
            label = "not an `mcp::AdvancedService`",
            note = "annotate an impl block of `{Self}` with `#[mcp::service]` (tools from its methods) or `#[mcp::service(advanced)]` (tools from `on_list_tools` and `on_call_tool`), or implement `mcp::AdvancedService` by hand"
        )]
        pub trait AdvancedService: Send + Sync + 'static {
            /// The server's identity (`serverInfo`: name and version, optionally a title,
            /// icons, a website), sent in `initialize` and `server/discover`. Required: a
            /// service cannot be served without a name and a version.
            /// `#[mcp::service(advanced)]` takes them from its `name` and `version` keys
            /// (default: the crate's); [`ServerBuilder::info`] and
            /// [`ServerBuilder::server_info`] override them.
            fn info(&self) -> Implementation;

            /// The service's own settings, applied to its builder after the
            /// [`info`](Self::info) and before the methods called on
            /// [`Server::builder`](crate::Server::builder)'s result (which override them).
            /// Default: none. `#[mcp::service(advanced, ...)]` applies its attribute's keys
            /// (`instructions`, `protocol_mode`, `cache(...)`, ...) here.
            fn configure(builder: ServerBuilder) -> ServerBuilder
            where
                Self: Sized,
            {
                builder
            }

            /// Whether tool `name` may run as a task (the tasks extension,
            /// `io.modelcontextprotocol/tasks`): [`TaskSupport::Optional`] or
            /// [`TaskSupport::Required`] make a modern call of a client that declares the
            /// extension a task, run in the background through
            /// [`on_call_tool`](Self::on_call_tool) (see [`TaskSupport`]). Default: no tool.
            fn task_support(&self, tool: &str) -> TaskSupport {
                let _ = tool;
                TaskSupport::Forbidden
            }

            /// Whether any tool may run as a task: the server then advertises the tasks
            /// extension. Default: `false`; return `true` when
            /// [`task_support`](Self::task_support) allows a tool.
            fn serves_tasks(&self) -> bool {
                false
            }

            $(
                $(#[doc = $qdoc])*
                fn $query(&self) -> $qout {
                    $qdefault
                }
            )*

            $(
                $(#[doc = $rdoc])*
                fn $rhook(
                    &self,
                    $rparam: hook_param!($rty $(, $raty)?),
                    request: &RequestContext,
                ) -> impl Future<Output = Result<$rout, ServerError>> + Send;
            )*

            $(
                $(#[doc = $pdoc])*
                ///
                /// Default: "method not found".
                fn $phook(
                    &self,
                    $pparam: $pty,
                    request: &RequestContext,
                ) -> impl Future<Output = Result<$pout, ServerError>> + Send {
                    let _ = ($pparam, request);
                    std::future::ready(Err(ServerError::method_not_found()))
                }
            )*
        }

        /// Runs an [`AdvancedService`] as a [`ServiceHandler`].
        pub(crate) struct Advanced<T> {
            pub(crate) service: T,
        }

        impl<T: AdvancedService> ServiceHandler for Advanced<T> {
            fn kind(&self) -> ServiceKind {
                ServiceKind::Advanced
            }

            fn task_support(&self, name: &str) -> TaskSupport {
                self.service.task_support(name)
            }

            fn serves_tasks(&self) -> bool {
                self.service.serves_tasks()
            }

            $(
                fn $query(&self) -> $qout {
                    self.service.$query()
                }
            )*

            $(
                fn $rhandler<'a>(
                    &'a self,
                    $rparam: $rty,
                    request: &'a RequestContext,
                ) -> BoxFuture<'a, Result<$rout, ServerError>> {
                    Box::pin(self.service.$rhook(hook_arg!($rparam $(, $rconv)?), request))
                }
            )*

            $(
                fn $phandler<'a>(
                    &'a self,
                    $pparam: $pty,
                    request: &'a RequestContext,
                ) -> BoxFuture<'a, Result<$pout, ServerError>> {
                    Box::pin(self.service.$phook($pparam, request))
                }
            )*
        }
    };
}

hooks! {
    queries {
        /// Which features beyond tools the service has (none by default): they decide the
        /// capabilities sent in `initialize` and `server/discover`, and a method of a
        /// feature the service lacks is answered "method not found" without calling its
        /// hook. Declare the features whose hooks you define.
        fn features() -> Features = Features::default();
    }
    required {
        /// Lists one page of tools (`tools/list`). `cursor` is `None` for the first page;
        /// set `next_cursor` on every page but the last, and answer an unknown cursor with
        /// [`ServerError::InvalidParams`].
        fn list_tools / on_list_tools(cursor: Option<String>) -> ListToolsResult;
        /// Calls a tool (`tools/call`). An unknown tool should be answered with
        /// [`ServerError::InvalidParams`]. The hook gets a copy of the params: an advanced
        /// tool may answer input-required at any time, and the dispatcher keeps them to
        /// bind the request state.
        fn call_tool / on_call_tool(
            params: &'a mut CallToolParams => CallToolParams = params.clone()
        ) -> CallToolResponse;
    }
    provided {
        /// Lists one page of resources (`resources/list`).
        fn list_resources / on_list_resources(cursor: Option<String>) -> ListResourcesResult;
        /// Lists one page of resource templates (`resources/templates/list`).
        fn list_resource_templates / on_list_resource_templates(
            cursor: Option<String>
        ) -> ListResourceTemplatesResult;
        /// Reads a resource (`resources/read`); answer an unknown URI with
        /// [`ServerError::resource_not_found`].
        fn read_resource / on_read_resource(params: ReadResourceParams) -> ReadResourceResult;
        /// Lists one page of prompts (`prompts/list`).
        fn list_prompts / on_list_prompts(cursor: Option<String>) -> ListPromptsResult;
        /// Gets a prompt (`prompts/get`); answer an unknown prompt with
        /// [`ServerError::prompt_not_found`]. Answer the messages
        /// (`GetPromptResult::new(messages).into()`), or ask for input first, as a tool
        /// does, with an [`InputRequiredResult`] or an
        /// [`InputRequired`](crate::InputRequired) (`.into()` either): a modern
        /// client gets an `input_required` result (its request state signed and bound to
        /// the prompt, its arguments and the caller) and gets the prompt again with the
        /// answers, which [`Context::from_prompt`](crate::Context::from_prompt) reads; a
        /// legacy client on a session is asked with real requests and the hook runs again.
        ///
        /// [`InputRequiredResult`]: crate::InputRequiredResult
        fn get_prompt / on_get_prompt(params: GetPromptParams) -> GetPromptResponse;
        /// Completes an argument (`completion/complete`).
        fn complete / on_complete(params: CompleteParams) -> CompleteResult;
    }
}
