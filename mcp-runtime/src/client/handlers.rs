//! How a client answers what a server asks of it: sampling (`sampling/createMessage`) and
//! roots (`roots/list`) next to elicitation, and the one place that turns a server→client
//! request — pushed on a legacy stream or stdio, or an input request of a modern
//! `input_required` result — into its answer.

use std::future::Future;
use std::sync::Arc;

use serde_json::{Value, json};

use super::ClientError;
use super::elicitation::{DynElicitationHandler, sanitize};
use crate::base::BoxFuture;
use crate::protocol::{
    ELICITATION_CREATE, ElicitRequest, ElicitRequestParams, ErrorCode, ErrorObject,
    ListRootsResult, ROOTS_LIST, Root, SAMPLING_CREATE_MESSAGE, SamplingRequest, SamplingResult,
};

/// Answers a server's `sampling/createMessage`: runs the client's model on the server's
/// conversation.
///
/// The client declares `{"sampling":{}}` once a handler is configured, and calls it for each
/// sampling request, legacy (pushed on a stream or stdio) or modern (an input request of an
/// `input_required` result). A handler should show the request to the user before running
/// it, as the MCP specification asks: the server chose the prompt.
///
/// ```
/// use mcp::client::{ClientConfig, ClientError, SamplingHandler};
/// use mcp::{Content, Role, SamplingRequest, SamplingResult};
///
/// struct Echo;
///
/// impl SamplingHandler for Echo {
///     async fn create_message(&self, request: SamplingRequest) -> Result<SamplingResult, ClientError> {
///         let last = request.messages.last().map(|m| m.content.clone());
///         let content = last.unwrap_or_else(|| Content::text(""));
///         Ok(SamplingResult::new(Role::Assistant, content, "echo-1").with_stop_reason("endTurn"))
///     }
/// }
///
/// let config = ClientConfig::new().sampling_handler(Echo);
/// # drop(config);
/// ```
pub trait SamplingHandler: Send + Sync + 'static {
    /// Produces the model's message. An error is answered `-32603` to the server (and fails
    /// a modern call in progress).
    fn create_message(
        &self,
        request: SamplingRequest,
    ) -> impl Future<Output = Result<SamplingResult, ClientError>> + Send;
}

impl<F, Fut> SamplingHandler for F
where
    F: Fn(SamplingRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<SamplingResult, ClientError>> + Send + 'static,
{
    fn create_message(
        &self,
        request: SamplingRequest,
    ) -> impl Future<Output = Result<SamplingResult, ClientError>> + Send {
        self(request)
    }
}

/// Supplies the client's roots when a server sends `roots/list`.
///
/// A fixed list is a provider ([`ClientConfig::roots`](super::ClientConfig::roots)); so is an
/// `async` closure, for roots that change (call
/// [`Client::roots_changed`](super::Client::roots_changed) after a change so a legacy server
/// asks again):
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use mcp::client::ClientConfig;
/// use mcp::protocol::Root;
///
/// let open = Arc::new(Mutex::new(vec![Root::new("file:///work/app")]));
/// let shared = open.clone();
/// let config = ClientConfig::new().roots_provider(move || {
///     let roots = shared.lock().unwrap().clone();
///     async move { Ok(roots) }
/// });
/// # drop(config);
/// ```
pub trait RootsProvider: Send + Sync + 'static {
    /// The roots now.
    fn roots(&self) -> impl Future<Output = Result<Vec<Root>, ClientError>> + Send;
}

impl<F, Fut> RootsProvider for F
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<Root>, ClientError>> + Send + 'static,
{
    fn roots(&self) -> impl Future<Output = Result<Vec<Root>, ClientError>> + Send {
        self()
    }
}

/// A fixed list of roots.
pub(crate) struct FixedRoots(pub(crate) Vec<Root>);

impl RootsProvider for FixedRoots {
    async fn roots(&self) -> Result<Vec<Root>, ClientError> {
        Ok(self.0.clone())
    }
}

/// [`SamplingHandler`] with a boxed future.
pub(crate) trait DynSamplingHandler: Send + Sync + 'static {
    fn dyn_create_message(
        &self,
        request: SamplingRequest,
    ) -> BoxFuture<'_, Result<SamplingResult, ClientError>>;
}

impl<T: SamplingHandler> DynSamplingHandler for T {
    fn dyn_create_message(
        &self,
        request: SamplingRequest,
    ) -> BoxFuture<'_, Result<SamplingResult, ClientError>> {
        Box::pin(self.create_message(request))
    }
}

/// [`RootsProvider`] with a boxed future.
pub(crate) trait DynRootsProvider: Send + Sync + 'static {
    fn dyn_roots(&self) -> BoxFuture<'_, Result<Vec<Root>, ClientError>>;
}

impl<T: RootsProvider> DynRootsProvider for T {
    fn dyn_roots(&self) -> BoxFuture<'_, Result<Vec<Root>, ClientError>> {
        Box::pin(self.roots())
    }
}

/// Everything a client answers server requests with.
#[derive(Clone, Default)]
pub(crate) struct ServerRequestHandlers {
    pub(crate) elicitation: Option<Arc<dyn DynElicitationHandler>>,
    pub(crate) sampling: Option<Arc<dyn DynSamplingHandler>>,
    pub(crate) roots: Option<Arc<dyn DynRootsProvider>>,
}

/// Why a server request got no answer from the client's handlers.
pub(crate) enum Unanswered {
    /// No handler for the method (or an unknown method): `-32601`.
    NoHandler,
    /// The params do not parse: `-32602`.
    BadParams(String),
    /// The handler failed: `-32603` to the server, the error to the caller.
    Failed(ClientError),
}

impl ServerRequestHandlers {
    /// The answer to `method` with `params`.
    pub(crate) async fn answer(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, Unanswered> {
        let params = params.unwrap_or(Value::Null);
        match method {
            "ping" => Ok(json!({})),
            ELICITATION_CREATE => {
                let handler = self.elicitation.as_ref().ok_or(Unanswered::NoHandler)?;
                let params = serde_json::from_value::<ElicitRequestParams>(params)
                    .map_err(|e| Unanswered::BadParams(format!("{method} params: {e}")))?;
                let request = ElicitRequest { params };
                let result = handler
                    .dyn_elicit(request.clone())
                    .await
                    .map_err(Unanswered::Failed)?;
                Ok(json!(sanitize(&request, result)))
            }
            SAMPLING_CREATE_MESSAGE => {
                let handler = self.sampling.as_ref().ok_or(Unanswered::NoHandler)?;
                let request = serde_json::from_value::<SamplingRequest>(params)
                    .map_err(|e| Unanswered::BadParams(format!("{method} params: {e}")))?;
                let result = handler
                    .dyn_create_message(request)
                    .await
                    .map_err(Unanswered::Failed)?;
                Ok(json!(result))
            }
            ROOTS_LIST => {
                let provider = self.roots.as_ref().ok_or(Unanswered::NoHandler)?;
                let roots = provider.dyn_roots().await.map_err(Unanswered::Failed)?;
                Ok(json!(ListRootsResult::new(roots)))
            }
            _ => Err(Unanswered::NoHandler),
        }
    }

    /// The JSON-RPC answer to a pushed server request, and the handler's failure, if any,
    /// for the caller.
    pub(crate) async fn outcome(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> (Result<Value, ErrorObject>, Option<ClientError>) {
        match self.answer(method, params).await {
            Ok(result) => (Ok(result), None),
            Err(Unanswered::NoHandler) => (
                Err(ErrorObject::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    match method {
                        ELICITATION_CREATE | SAMPLING_CREATE_MESSAGE | ROOTS_LIST => {
                            format!("Method not found: this client has no handler for {method}")
                        }
                        _ => format!("Method not found: {method}"),
                    },
                )),
                None,
            ),
            Err(Unanswered::BadParams(message)) => (
                Err(ErrorObject::new(
                    ErrorCode::INVALID_PARAMS,
                    format!("invalid {message}"),
                )),
                None,
            ),
            Err(Unanswered::Failed(e)) => (
                Err(ErrorObject::new(ErrorCode::INTERNAL_ERROR, e.to_string())),
                Some(e),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Content, Role};

    fn handlers() -> ServerRequestHandlers {
        ServerRequestHandlers {
            elicitation: None,
            sampling: Some(Arc::new(|r: SamplingRequest| async move {
                Ok(SamplingResult::new(
                    Role::Assistant,
                    Content::text(format!("{} messages", r.messages.len())),
                    "m",
                ))
            })),
            roots: Some(Arc::new(FixedRoots(vec![Root::new("file:///a")]))),
        }
    }

    #[tokio::test]
    async fn answers_sampling_roots_and_ping() {
        let h = handlers();
        let params = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5});
        let (answer, failure) = h.outcome(SAMPLING_CREATE_MESSAGE, Some(params)).await;
        assert!(failure.is_none());
        assert_eq!(
            answer.unwrap(),
            json!({"role": "assistant", "content": {"type": "text", "text": "1 messages"}, "model": "m"})
        );
        let (answer, _) = h.outcome(ROOTS_LIST, None).await;
        assert_eq!(answer.unwrap(), json!({"roots": [{"uri": "file:///a"}]}));
        assert_eq!(h.outcome("ping", None).await.0.unwrap(), json!({}));
    }

    #[tokio::test]
    async fn refuses_what_it_cannot_answer() {
        let h = handlers();
        let (answer, _) = h.outcome(ELICITATION_CREATE, Some(json!({}))).await;
        assert_eq!(answer.unwrap_err().code, ErrorCode::METHOD_NOT_FOUND);
        let (answer, _) = h.outcome("tasks/get", None).await;
        assert_eq!(answer.unwrap_err().message, "Method not found: tasks/get");
        let (answer, _) = h
            .outcome(SAMPLING_CREATE_MESSAGE, Some(json!({"messages": 3})))
            .await;
        assert_eq!(answer.unwrap_err().code, ErrorCode::INVALID_PARAMS);
        let failing = ServerRequestHandlers {
            roots: Some(Arc::new(|| async {
                Err::<Vec<Root>, _>(ClientError::handler("no roots"))
            })),
            ..Default::default()
        };
        let (answer, failure) = failing.outcome(ROOTS_LIST, None).await;
        assert_eq!(answer.unwrap_err().code, ErrorCode::INTERNAL_ERROR);
        assert!(failure.is_some());
    }
}
