#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "oauth")]
pub mod auth;
#[cfg(feature = "client")]
pub mod client;
pub mod diagnostics;
pub mod dispatch;
mod error;
pub mod protocol;
pub mod schema;
pub mod session;
pub mod state;
pub mod testing;
pub mod transport;

#[doc(hidden)]
pub use dispatch::__form_field;
pub use dispatch::{
    AdvancedService, AuthContext, BoxFuture, CacheHint, CacheHints, Context, IntoServer,
    ProtocolMode, Reply, RequestContext, RequestMeta, Server, ServerBuilder, ServiceConfig,
    ServiceHandler, ServiceKind, SessionMode, ToolError,
};
pub use dispatch::{
    Form, FormEnum, FormField, FormOf, FormSchema, InputRequired, IntoFormSchema, ToolOutput,
    elicit_form, elicit_url, form_of,
};
pub use error::{BoxError, Error, InsufficientScopeError, ResultExt, ServerError};
pub use mcp_derive::Form;
pub use mcp_derive::service;
pub use protocol::{
    CacheScope, CallToolParams, CallToolResponse, CallToolResult, Content, Implementation,
    InputRequiredResult, ListToolsResult, Tool, ToolAnnotations,
};
pub use protocol::{ElicitAction, ElicitRequest, ElicitResult};
pub use schema::argument::{HeaderArgument, HeaderParam, ToolArgument};
pub use session::HttpSession;
pub use transport::StreamableHttpListener;

#[doc(hidden)]
pub mod __private;
