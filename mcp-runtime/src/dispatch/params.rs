//! Runtime parameters a tool can bind besides its arguments.

use std::ops::Deref;

use serde_json::Value;

use crate::protocol::JsonObject;

/// The request's `_meta` object, without the reserved envelope keys. Bind it as
/// `Option<mcp::RequestMeta>`: clients may omit it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RequestMeta(pub JsonObject);

impl Deref for RequestMeta {
    type Target = JsonObject;
    fn deref(&self) -> &JsonObject {
        &self.0
    }
}

impl RequestMeta {
    /// The progress token of the request, if any.
    pub fn progress_token(&self) -> Option<&Value> {
        self.0.get("progressToken")
    }
}

/// What a tool (or resource, prompt) does *with* the client while it runs: log, report
/// progress, notice cancellation, ask the client's model ([`sample`](Self::sample)), and read
/// the answers of a multi-round call (elicitation).
///
/// Bind it as a runtime parameter `ctx: mcp::Context`. Its neighbours answer other
/// questions: [`RequestContext`](crate::RequestContext) describes the request (era, HTTP
/// parts, `_meta`, client capabilities) and is what advanced handlers receive;
/// [`AuthContext`](crate::AuthContext) is the authenticated caller. `Context` is the only one that talks back.
///
/// | call | legacy (initialize, sessions) | modern (2026-07-28) |
/// | --- | --- | --- |
/// | [`log`](Self::log) | `notifications/message` on the request's stream, filtered by the session's `logging/setLevel` (every level when none) | sent only when the request's `_meta` carries `io.modelcontextprotocol/logLevel`, filtered by it |
/// | [`progress`](Self::progress) | `notifications/progress` with the request's `progressToken`; nothing without one | same |
/// | [`cancelled`](Self::cancelled) | a `notifications/cancelled` naming the request, or the client closing its connection | the client closing its request |
/// | [`sample`](Self::sample) | a `sampling/createMessage` request on the call's stream (needs a session) | an `input_required` round asking `sampling/createMessage` |
///
/// Over HTTP the response of a request that sends anything switches from JSON to an SSE
/// stream. A `Context` built outside a request (`Context::default()`) sends nothing.
#[derive(Clone, Debug, Default)]
pub struct Context {
    pub(crate) input_responses: Option<JsonObject>,
    pub(crate) request_state: Option<String>,
    pub(crate) call: Option<std::sync::Arc<super::channel::CallState>>,
    pub(crate) progress_token: Option<Value>,
    /// The round carries a request state the server signed (modern continuation).
    pub(crate) signed_round: bool,
    /// The client capabilities declared for the request.
    pub(crate) client_capabilities: Option<std::sync::Arc<crate::protocol::ClientCapabilities>>,
}

impl PartialEq for Context {
    fn eq(&self, other: &Self) -> bool {
        self.input_responses == other.input_responses
            && self.request_state == other.request_state
            && self.progress_token == other.progress_token
            && self.signed_round == other.signed_round
            && self.client_capabilities == other.client_capabilities
            && match (&self.call, &other.call) {
                (None, None) => true,
                (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
                _ => false,
            }
    }
}

impl Context {
    /// The [`Notifier`](crate::Notifier) of the server running this handler (`None` outside
    /// a request): a tool announces changes through it.
    pub fn notifier(&self) -> Option<crate::notify::Notifier> {
        super::current_notifier()
    }

    /// The answer to input request `key`: `None` when the client did not answer it (or sent
    /// a shape that is not an elicitation result).
    pub fn elicit_result(&self, key: &str) -> Option<crate::protocol::ElicitResult> {
        let value = self.input_responses.as_ref()?.get(key)?;
        serde_json::from_value(value.clone()).ok()
    }

    /// The content the user submitted for input request `key`, as `T`. `None` when the
    /// request was not answered, was declined or cancelled, or the content does not convert
    /// to `T`: treat `None` as "ask again".
    pub fn accepted_content<T: serde::de::DeserializeOwned>(&self, key: &str) -> Option<T> {
        let result = self.elicit_result(key)?;
        if result.action != crate::protocol::ElicitAction::Accept {
            return None;
        }
        serde_json::from_value(Value::Object(result.content?)).ok()
    }

    /// The client's roots, answered to input request `key`
    /// ([`InputRequired::list_roots`](crate::InputRequired::list_roots)): `None` when the
    /// request was not answered or the answer is not a `roots/list` result.
    pub fn roots(&self, key: &str) -> Option<Vec<crate::protocol::Root>> {
        let value = self.input_responses.as_ref()?.get(key)?;
        serde_json::from_value::<crate::protocol::ListRootsResult>(value.clone())
            .ok()
            .map(|r| r.roots)
    }

    /// The client capabilities declared for the request (modern: its envelope; legacy: the
    /// session's `initialize`, none known on a stateless request); `None` outside a request.
    /// Ask only for what the client can answer:
    ///
    /// ```
    /// fn can_elicit(ctx: &mcp::Context) -> bool {
    ///     ctx.client_capabilities().is_some_and(|c| c.elicitation.is_some())
    /// }
    /// assert!(!can_elicit(&mcp::Context::default()));
    /// ```
    pub fn client_capabilities(&self) -> Option<&crate::protocol::ClientCapabilities> {
        self.client_capabilities.as_deref()
    }

    /// `true` when this round carries answers or state (a continuation).
    pub fn is_continuation(&self) -> bool {
        self.input_responses.is_some() || self.request_state.is_some()
    }

    /// The request state the tool returned in the previous round.
    pub fn request_state(&self) -> Option<&str> {
        self.request_state.as_deref()
    }
}
