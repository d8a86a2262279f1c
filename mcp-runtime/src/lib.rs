#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod attributes;
#[cfg(feature = "oauth")]
pub mod auth;
mod base;
#[cfg(feature = "client")]
pub mod client;
pub mod diagnostics;
mod dispatch;
mod error;
pub mod middleware;
pub mod notify;
#[cfg(feature = "otel")]
#[path = "telemetry/mod.rs"]
pub mod otel;
pub mod protocol;
mod redact;
pub mod schema;
pub mod session;
mod state;
pub mod tasks;
#[cfg(feature = "test-util")]
pub mod testing;
pub mod transport;

pub use base::{AuthContext, BoxFuture, Caller, Extensions};
#[doc(hidden)]
pub use dispatch::__form_field;
pub use dispatch::{
    AdvancedService, CacheHint, Context, IntoServer, IntoService, MAX_LEGACY_ROUNDS, McpRequest,
    McpResponse, ProtocolMode, RequestContext, RequestMeta, Server, ServerBuilder, SessionMode,
    ToolError, TransportKind,
};
pub use dispatch::{
    ClientChannel, ClientLogLayer, ClientRequester, LogLevel, SamplingError, TaskSupport,
};
pub use dispatch::{Features, MAX_URI_BYTES, UriTemplate, UriTemplateError};
pub use dispatch::{
    Form, FormEnum, FormField, FormOf, FormSchema, InputRequired, IntoFormSchema, ToolOutput,
    elicit_form, elicit_url, form_of,
};
pub use error::{BoxError, Error, InsufficientScopeError, ServerError, ToolResultExt};
/// Derives [`Form`] for a struct with named fields (a flat elicitation form) or
/// [`FormEnum`] for a fieldless enum (the options of a select field). Keys of `#[form(...)]`
/// and the serde attributes it follows: [`attributes::form`].
pub use mcp_derive::Form;
/// Turns a trait describing an MCP server's tools into a typed client of that server
/// (`#[mcp::client] trait Github { async fn create_issue(&self, repo: String) -> Issue; }`
/// generates `GithubClient`): see [`client::typed`]. With the `client` feature.
#[cfg(feature = "client")]
pub use mcp_derive::client;
/// Turns an inherent `impl` block into an MCP service: every `pub` method taking `&self` is a
/// tool. The keys: [`attributes::service`]; on methods [`attributes::tool`],
/// [`attributes::resource`], [`attributes::prompt`] and [`attributes::complete`], on
/// parameters [`attributes::argument`] and [`attributes::http_header`]; the compile-time rules:
/// [`diagnostics`].
pub use mcp_derive::service;
pub use notify::{EventBus, Notifier};
pub use protocol::{
    CacheScope, CallToolParams, CallToolResponse, CallToolResult, Content, Implementation,
    InputRequiredResult, ListToolsResult, Tool, ToolAnnotations,
};
pub use protocol::{
    CompleteParams, CompleteResult, Completion, GetPromptParams, GetPromptResponse,
    GetPromptResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, Prompt,
    PromptArgument, PromptMessage, ReadResourceParams, ReadResourceResult, Reference, Resource,
    ResourceContents, ResourceTemplate, Role,
};
pub use protocol::{ElicitAction, ElicitRequest, ElicitResult};
pub use protocol::{SamplingMessage, SamplingRequest, SamplingResult};
pub use schema::argument::{HeaderArgument, HeaderParam, TemplateVariable, ToolArgument};
pub use session::Session;
pub use transport::http::{HttpServer, McpService};

/// The `schemars` this crate builds schemas with: derive `JsonSchema` through it
/// (`#[derive(mcp::schemars::JsonSchema)] #[schemars(crate = "mcp::schemars")]`) to never
/// have to match its version, or depend on `schemars = "1"` yourself.
pub use schemars;
/// The `serde_json` of this crate's `Value`s and `Map`s (`mcp::serde_json::json!`).
pub use serde_json;

#[doc(hidden)]
pub mod __private;

/// Keeps its input in a build with the `client` feature and drops it in a server-only
/// build: the typed clients `#[mcp::service(client)]` generates exist only where the client
/// does. Not public API.
#[cfg(feature = "client")]
#[doc(hidden)]
#[macro_export]
macro_rules! __if_client {
    ($($item:tt)*) => { $($item)* };
}

/// Keeps its input in a build with the `client` feature and drops it in a server-only
/// build. Not public API.
#[cfg(not(feature = "client"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __if_client {
    ($($item:tt)*) => {};
}

/// The repository README's code, compiled as doc tests so it cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
mod readme {}

/// A server-only build compiles no client code: `#[mcp::service(client)]` generates nothing
/// without the `client` feature, so a type of the generated client's name can be declared
/// next to the service (a second definition would not compile). Checked by every build
/// without the feature (`scripts/test.sh` builds the runtime with no features).
#[cfg(not(feature = "client"))]
#[allow(dead_code, unreachable_pub)]
mod server_only {
    struct Probe;

    /// Declared by hand: the generated client would clash with it.
    struct ProbeClient;

    #[crate::service(crate = "crate", name = "probe", version = "1.0.0", client)]
    impl Probe {
        /// A tool.
        pub fn ping(&self) -> String {
            "pong".into()
        }
    }
}
