//! Typed clients: what `#[mcp::service(client)]` generates from a service and
//! `#[mcp::client]` from a trait stands on this module.
//!
//! A typed client wraps a connected [`Client`] and has one method per tool, taking the
//! tool's own parameter types and returning a [`TypedCall`] of the tool's output type.
//! Awaiting the call runs the whole `tools/call` (header mirroring, `input_required`
//! rounds answered by the client's handlers) and decodes the result; the call's options —
//! [`deadline`](TypedCall::deadline), extra [`meta`](TypedCall::meta), a
//! [`progress`](TypedCall::on_progress) callback, per-call [`header`](TypedCall::header)s
//! — are set on it before it is awaited. Dropping the future cancels the call on the
//! server (`notifications/cancelled`).
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, schemars::JsonSchema)]
//! pub struct Sum {
//!     pub sum: i64,
//! }
//!
//! pub struct Calculator;
//!
//! #[mcp::service(name = "calculator", version = "1.0.0", client)]
//! impl Calculator {
//!     /// Adds two numbers.
//!     pub fn add(&self, a: i64, b: i64) -> Sum {
//!         Sum { sum: a + b }
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), mcp::client::CallError> {
//! // In a test: the typed client of the service, in-process, both eras served.
//! let calculator = mcp::client::typed::in_process(Calculator).await?;
//! assert_eq!(calculator.add(2, 3).await?.sum, 5);
//! # Ok(())
//! # }
//! ```
//!
//! Over HTTP or stdio, connect a [`Client`] as usual and wrap it:
//! `CalculatorClient::from_client(client)` (the [`TypedClient`] trait), or
//! [`TypedClient::connect`] with a URL.
//!
//! A tool that ran and failed (`isError: true`) is [`CallError::Tool`], apart from
//! JSON-RPC and transport errors ([`CallError::Client`]) and a result that is not of the
//! declared type ([`CallError::Decode`]).

mod decode;
mod verify;

use std::future::{Future, IntoFuture};
use std::time::Duration;

use http::{HeaderName, HeaderValue};
use serde_json::Value;
use tokio::time::Instant;

pub use decode::Decoder;
pub use verify::{Mismatch, VerifyError, verify};

use super::progress::Progress;
use super::{CallBuilder, Client, ClientConfig, ClientError};
use crate::base::BoxFuture;
use crate::dispatch::{IntoService, Server};
use crate::protocol::{CallToolResult, Implementation, JsonObject, Tool};

/// A generated typed client: a connected [`Client`] and the tools it expects.
///
/// Every client `#[mcp::service(client)]` and `#[mcp::client]` generate implements it; its
/// provided methods connect one (over HTTP, or in-process to a [`Server`]) and check a
/// server against it.
pub trait TypedClient: Sized + Clone + Send + Sync + 'static {
    /// Wraps a client; it must be connected before the first call.
    fn from_client(client: Client) -> Self;

    /// The underlying client (for what the typed methods do not cover).
    fn client(&self) -> &Client;

    /// The tool definitions this client was generated from, as a server would list them.
    fn expected_tools() -> &'static [Tool];

    /// Connects to the MCP endpoint at `url` (Streamable HTTP, the auto era, the default
    /// identity) and wraps the client.
    fn connect(url: &str) -> impl Future<Output = Result<Self, ClientError>> + Send {
        let url = url.to_owned();
        async move { Ok(Self::from_client(super::connect(&url).await?)) }
    }

    /// Serves `server` in-process and connects this client to it with `config` (its
    /// protocol mode picks the era; the default is the modern one).
    fn in_process(
        server: Server,
        config: ClientConfig,
    ) -> impl Future<Output = Result<Self, ClientError>> + Send {
        async move {
            let client = Client::in_process(server.in_process(), config)?;
            client.connect(identity()).await?;
            Ok(Self::from_client(client))
        }
    }

    /// Compares the server's `tools/list` with [`expected_tools`](Self::expected_tools):
    /// every tool missing, argument unknown, retyped or newly required, and output schema
    /// that does not fit is one [`Mismatch`] of the error.
    fn verify(&self) -> impl Future<Output = Result<(), VerifyError>> + Send {
        let client = self.client().clone();
        async move { verify(&client, Self::expected_tools()).await }
    }
}

/// A service whose `#[mcp::service(client)]` generated a typed client.
pub trait ServiceClient: IntoService + Sized {
    /// The generated client.
    type Client: TypedClient;
}

/// The identity typed clients connect with.
fn identity() -> Implementation {
    Implementation::new("mcp-typed-client", env!("CARGO_PKG_VERSION"))
}

/// Serves `service` in-process and returns its typed client, connected on the modern era
/// (one call, for tests: `mcp::client::typed::in_process(MyService).await?`).
pub async fn in_process<S: ServiceClient>(service: S) -> Result<S::Client, ClientError> {
    in_process_with(service, ClientConfig::new()).await
}

/// [`in_process`] with a client configuration: its
/// [`protocol_mode`](ClientConfig::protocol_mode) picks the era (`ProtocolMode::Legacy`
/// tests the `initialize` era), its handlers answer elicitation and sampling.
pub async fn in_process_with<S: ServiceClient>(
    service: S,
    config: ClientConfig,
) -> Result<S::Client, ClientError> {
    let server = service
        .into_builder()
        .build()
        .map_err(|e| ClientError::Config(e.to_string()))?;
    S::Client::in_process(server, config).await
}

/// Why a typed call failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// The tool ran and failed: its result had `isError: true`. The message is the
    /// result's text; the whole result is kept.
    #[error("tool `{tool}` failed: {message}")]
    Tool {
        /// The tool.
        tool: String,
        /// The result's text.
        message: String,
        /// The result as the server sent it.
        result: Box<CallToolResult>,
    },
    /// The call did not reach a result: a JSON-RPC error (its code in
    /// [`ClientError::code`]), a transport failure, a refused argument.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// The result is not of the type the client declares.
    #[error("the result of tool `{tool}` is not a `{expected}`: {reason}")]
    Decode {
        /// The tool.
        tool: String,
        /// The type the client expected.
        expected: &'static str,
        /// What did not fit.
        reason: String,
    },
    /// The call's [`deadline`](TypedCall::deadline) passed first; the call was cancelled.
    #[error("tool `{tool}` did not answer before its deadline")]
    DeadlineExceeded {
        /// The tool.
        tool: String,
    },
}

impl CallError {
    /// The JSON-RPC error code, when the server answered one.
    pub fn code(&self) -> Option<i64> {
        match self {
            Self::Client(e) => e.code().map(|c| i64::from(c.0)),
            _ => None,
        }
    }

    /// The failed result, when the tool ran and failed.
    pub fn tool_result(&self) -> Option<&CallToolResult> {
        match self {
            Self::Tool { result, .. } => Some(result),
            _ => None,
        }
    }
}

/// A typed `tools/call` being prepared: set its options, then await it for the tool's
/// output. Nothing is sent until it is awaited; the future is `Send + 'static`.
#[must_use = "a call is sent only when it is awaited"]
pub struct TypedCall<T> {
    tool: &'static str,
    call: Result<CallBuilder, ClientError>,
    decode: Decoder<T>,
    deadline: Option<Instant>,
}

impl<T> std::fmt::Debug for TypedCall<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedCall")
            .field("tool", &self.tool)
            .field("call", &self.call)
            .field("output", &std::any::type_name::<T>())
            .field("deadline", &self.deadline)
            .finish()
    }
}

impl<T: Send + 'static> TypedCall<T> {
    /// A call of `tool` on `client` with `arguments`, whose result `decode` reads. For
    /// generated code.
    pub fn new(
        client: &Client,
        tool: &'static str,
        arguments: Arguments,
        decode: Decoder<T>,
    ) -> Self {
        Self {
            tool,
            call: arguments.call(client, tool),
            decode,
            deadline: None,
        }
    }

    fn map(mut self, f: impl FnOnce(CallBuilder) -> CallBuilder) -> Self {
        self.call = self.call.map(f);
        self
    }

    /// The call fails with [`CallError::DeadlineExceeded`] (and is cancelled on the
    /// server) if it has not ended by `deadline`.
    pub fn deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// [`deadline`](Self::deadline) `timeout` from now.
    pub fn timeout(self, timeout: Duration) -> Self {
        self.deadline(Instant::now() + timeout)
    }

    /// Request metadata (`params._meta`) for this call; the client adds its own keys.
    pub fn meta(self, meta: JsonObject) -> Self {
        self.map(|c| c.meta(meta))
    }

    /// Calls `report` with each progress report the server sends about this call (see
    /// [`CallBuilder::on_progress`]).
    pub fn on_progress(self, report: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.map(|c| c.on_progress(report))
    }

    /// An HTTP header for this call only (see [`CallBuilder::header`]).
    pub fn header(self, name: HeaderName, value: HeaderValue) -> Self {
        self.map(|c| c.header(name, value))
    }

    /// Runs the call and returns the result as the server sent it, undecoded (a failed
    /// tool is then `Ok` with `is_error()`).
    pub async fn raw(self) -> Result<CallToolResult, CallError> {
        self.start(Decoder::RAW, true).await
    }

    /// Runs the call and decodes its result (the same as awaiting it).
    pub async fn send(self) -> Result<T, CallError> {
        self.into_future().await
    }

    /// Runs the call declaring the tasks extension (see
    /// [`CallBuilder::as_task`](super::CallBuilder::as_task)): the server may answer with a
    /// task, which the returned [`TypedTask`] follows to the decoded output.
    ///
    /// ```no_run
    /// # async fn run(c: mcp::client::Client) -> Result<(), mcp::client::CallError> {
    /// # let call: mcp::client::TypedCall<String> = unimplemented!();
    /// let mut task = call.as_task().await?;
    /// if let Some(id) = task.id() {
    ///     println!("running as task {id}");
    /// }
    /// let output = task.wait().await?;
    /// # Ok(()) }
    /// ```
    pub async fn as_task(self) -> Result<TypedTask<T>, CallError> {
        let started = self.call?.as_task();
        let started = match self.deadline {
            Some(at) => tokio::time::timeout_at(at, started).await.map_err(|_| {
                CallError::DeadlineExceeded {
                    tool: self.tool.to_owned(),
                }
            })?,
            None => started.await,
        }?;
        Ok(TypedTask {
            call: started,
            decode: self.decode,
            tool: self.tool,
        })
    }

    /// The future of the call, its result read by `decode`; with `raw`, a failed tool is a
    /// result rather than [`CallError::Tool`].
    fn start<O>(self, decode: Decoder<O>, raw: bool) -> TypedFuture<O> {
        TypedFuture {
            // Boxed once, as awaiting the builder boxes it: the typed layer adds no copy of
            // the exchange's state.
            exchange: self.call.map(IntoFuture::into_future).map_err(Some),
            deadline: self
                .deadline
                .map(|at| Box::pin(tokio::time::sleep_until(at))),
            decode,
            tool: self.tool,
            raw,
        }
    }
}

impl<T: Send + 'static> IntoFuture for TypedCall<T> {
    type Output = Result<T, CallError>;
    type IntoFuture = TypedFuture<T>;

    fn into_future(self) -> TypedFuture<T> {
        let decode = self.decode;
        self.start(decode, false)
    }
}

/// A typed call the server may run as a task ([`TypedCall::as_task`]): its handle, or the
/// result it answered directly; [`wait`](Self::wait) decodes the output either way.
pub struct TypedTask<T> {
    call: super::TaskCall,
    decode: Decoder<T>,
    tool: &'static str,
}

impl<T> std::fmt::Debug for TypedTask<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedTask")
            .field("tool", &self.tool)
            .field("call", &self.call)
            .finish()
    }
}

impl<T> TypedTask<T> {
    /// The task's id; `None` when the server answered directly.
    pub fn id(&self) -> Option<&str> {
        match &self.call {
            super::TaskCall::Task(handle) => Some(handle.id()),
            super::TaskCall::Complete(_) => None,
        }
    }

    /// The task's handle (to poll, answer or cancel it by hand); `None` when the server
    /// answered directly.
    pub fn handle(&mut self) -> Option<&mut super::TaskHandle> {
        match &mut self.call {
            super::TaskCall::Task(handle) => Some(handle),
            super::TaskCall::Complete(_) => None,
        }
    }

    /// Follows the task to its end (see [`TaskHandle::wait`](super::TaskHandle::wait)) and
    /// decodes the output; a failed tool is [`CallError::Tool`].
    pub async fn wait(&mut self) -> Result<T, CallError> {
        self.wait_with(|_| {}).await
    }

    /// [`wait`](Self::wait), calling `on_update` with every state polled.
    pub async fn wait_with(
        &mut self,
        on_update: impl FnMut(&crate::protocol::Task),
    ) -> Result<T, CallError> {
        let result = match &mut self.call {
            super::TaskCall::Task(handle) => handle.wait_with(on_update).await?,
            super::TaskCall::Complete(result) => result.clone(),
        };
        read_output(self.tool, self.decode, result, false)
    }
}

/// A call's output read from its `result` by `decode`; a failed tool is
/// [`CallError::Tool`] unless `raw`.
fn read_output<T>(
    tool: &'static str,
    decode: Decoder<T>,
    result: CallToolResult,
    raw: bool,
) -> Result<T, CallError> {
    if result.is_error() && !raw {
        return Err(CallError::Tool {
            tool: tool.to_owned(),
            message: result.joined_text(),
            result: Box::new(result),
        });
    }
    decode.decode(result).map_err(|reason| CallError::Decode {
        tool: tool.to_owned(),
        expected: std::any::type_name::<T>(),
        reason,
    })
}

/// The future of a [`TypedCall`]: the exchange, the deadline, then the decoding. Dropping it
/// cancels the call on the server.
#[must_use = "futures do nothing unless polled"]
pub struct TypedFuture<T> {
    exchange: Result<BoxFuture<'static, Result<CallToolResult, ClientError>>, Option<ClientError>>,
    deadline: Option<std::pin::Pin<Box<tokio::time::Sleep>>>,
    decode: Decoder<T>,
    tool: &'static str,
    /// `true`: a failed tool is a result, not a [`CallError::Tool`].
    raw: bool,
}

impl<T> std::fmt::Debug for TypedFuture<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedFuture")
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}

impl<T> Future for TypedFuture<T> {
    type Output = Result<T, CallError>;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        use std::task::Poll;
        let this = self.get_mut();
        let exchange = match &mut this.exchange {
            Ok(exchange) => exchange,
            Err(e) => {
                let e = e.take().unwrap_or(ClientError::NotConnected);
                return Poll::Ready(Err(CallError::Client(e)));
            }
        };
        if let Poll::Ready(result) = exchange.as_mut().poll(cx) {
            return Poll::Ready(this.finish(result));
        }
        if let Some(deadline) = &mut this.deadline
            && deadline.as_mut().poll(cx).is_ready()
        {
            return Poll::Ready(Err(CallError::DeadlineExceeded {
                tool: this.tool.to_owned(),
            }));
        }
        Poll::Pending
    }
}

impl<T> TypedFuture<T> {
    fn finish(&self, result: Result<CallToolResult, ClientError>) -> Result<T, CallError> {
        read_output(self.tool, self.decode, result?, self.raw)
    }
}

/// The arguments of a typed call, built one by one: an argument that serializes to `null`
/// (`None`) is left out, as a client that omits an optional argument does.
#[derive(Debug, Default)]
pub struct Arguments {
    map: JsonObject,
    error: Option<serde_json::Error>,
}

impl Arguments {
    /// No arguments yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds argument `name`.
    pub fn arg(mut self, name: &str, value: impl serde::Serialize) -> Self {
        if self.error.is_some() {
            return self;
        }
        match serde_json::to_value(value) {
            Ok(Value::Null) => {}
            Ok(v) => {
                self.map.insert(name.to_owned(), v);
            }
            Err(e) => self.error = Some(e),
        }
        self
    }

    /// The call of `tool` on `client` with these arguments.
    fn call(self, client: &Client, tool: &str) -> Result<CallBuilder, ClientError> {
        if let Some(source) = self.error {
            return Err(super::ToolCallError::ArgumentsNotSerializable {
                tool: tool.to_owned(),
                source,
            }
            .into());
        }
        let call = client.call(tool);
        Ok(if self.map.is_empty() {
            call
        } else {
            call.object(self.map)
        })
    }
}

/// The text of a resource template variable: a string as is, a number or boolean as
/// written in JSON, `None` (left out of the URI) for `null`.
pub fn variable(value: &impl serde::Serialize) -> Option<String> {
    match serde_json::to_value(value).ok()? {
        Value::Null => None,
        Value::String(s) => Some(s),
        other => Some(other.to_string()),
    }
}

/// The URI a resource template names for `values` (see
/// [`UriTemplate::expand`](crate::UriTemplate::expand)). The template is not parsed again:
/// the macro checked it (MCP_303), and expanding needs no matcher.
pub fn expand(template: &str, values: &[(&str, Option<String>)]) -> String {
    crate::dispatch::expand_template(template, |name| {
        values
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| v.clone())
    })
}

/// A prompt argument a typed client sends: a string, or an optional one left out when
/// `None`.
pub trait PromptArgument {
    /// Puts the argument into `arguments` under `name`.
    fn put(self, name: &str, arguments: &mut std::collections::BTreeMap<String, String>);
}

impl PromptArgument for String {
    fn put(self, name: &str, arguments: &mut std::collections::BTreeMap<String, String>) {
        arguments.insert(name.to_owned(), self);
    }
}

impl PromptArgument for Option<String> {
    fn put(self, name: &str, arguments: &mut std::collections::BTreeMap<String, String>) {
        if let Some(value) = self {
            arguments.insert(name.to_owned(), value);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[tokio::test]
    async fn an_argument_that_does_not_serialize_fails_the_call_before_sending() {
        // A map with non-string keys is `Serialize` but has no JSON form. The client is
        // never connected: nothing is sent.
        let client = Client::new("http://127.0.0.1:9/mcp", ClientConfig::new()).unwrap();
        let map = HashMap::from([(vec![1u8], 1)]);
        let arguments = Arguments::new().arg("ok", 1).arg("map", &map);
        let call = TypedCall::new(&client, "t", arguments, Decoder::<i64>::JSON);
        match call.await {
            Err(CallError::Client(ClientError::ToolCall(
                super::super::ToolCallError::ArgumentsNotSerializable { tool, .. },
            ))) => assert_eq!(tool, "t"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn null_arguments_are_left_out() {
        let arguments = Arguments::new().arg("a", Some(1)).arg("b", None::<i64>);
        assert_eq!(arguments.map.keys().collect::<Vec<_>>(), ["a"]);
    }
}
