//! The legacy shim: a legacy client on a stateful session has no `input_required` result,
//! so the server asks for the input with real `elicitation/create` requests on the call's
//! response stream, then re-enters the tool (or prompt) with the answers, as the TypeScript
//! SDK does.
//! Rounds are bounded and each answer has a timeout.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::{BoxFuture, RequestContext, input_checks};
use crate::protocol::{ErrorCode, ErrorObject, InputRequiredResult, JsonObject};
use crate::state::Subject;

/// The most rounds one call may take.
pub const MAX_LEGACY_ROUNDS: usize = 10;

/// Sends server→client requests for the call being served and awaits the answers.
pub trait ClientRequester: Send + Sync {
    /// Sends `method` with `params` and waits (at most `timeout`) for the client's answer.
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Value,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, ErrorObject>>;
}

/// The handle a legacy request on a session carries.
pub(crate) type Requester = Arc<dyn ClientRequester>;

/// After legacy round `round` (from 0) of the tool or prompt `name` ended `input_required`
/// with `result`: the answers of the session's client for the next round, or the error that
/// ends the request — no session to ask, more than [`MAX_LEGACY_ROUNDS`] rounds, or a
/// failed answer ([`ask`]).
pub(crate) async fn next_round(
    cx: &RequestContext,
    result: InputRequiredResult,
    round: usize,
    timeout: Duration,
    subject: Subject,
    name: &str,
) -> Result<(JsonObject, Option<String>), ErrorObject> {
    let what = subject.as_str();
    let Some(requester) = cx.requester.clone() else {
        return Err(ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!(
                "This {what} needs input from the user, which a legacy request without a session cannot provide"
            ),
        ));
    };
    if round >= MAX_LEGACY_ROUNDS {
        tracing::warn!(what, name, "a legacy request exceeded the input rounds");
        return Err(ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!("The {what} asked for input more than {MAX_LEGACY_ROUNDS} times"),
        ));
    }
    ask(&*requester, result, cx, timeout, subject).await
}

/// Asks the client for each input request of `result` (in order) and returns the answers
/// keyed like the requests, or the error that ends the call of the tool or prompt
/// (`subject`).
pub(crate) async fn ask(
    requester: &dyn ClientRequester,
    mut result: InputRequiredResult,
    cx: &RequestContext,
    timeout: Duration,
    subject: Subject,
) -> Result<(JsonObject, Option<String>), ErrorObject> {
    let what = subject.as_str();
    input_checks::check(&mut result, Some(&cx.client_capabilities)).map_err(|refusal| match refusal {
        input_checks::Refusal::Capability { .. } => ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!("This {what} needs input from the user, and the client did not declare that elicitation mode at initialize"),
        ),
        input_checks::Refusal::Sampling { .. } => ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!("This {what} needs sampling, and the client did not declare the sampling capability at initialize"),
        ),
        input_checks::Refusal::Roots { .. } => ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!("This {what} needs the client's roots, and the client did not declare the roots capability at initialize"),
        ),
        other => other.to_error(),
    })?;
    let url_supported = cx.protocol_version() >= "2025-11-25";
    let mut answers = JsonObject::new();
    for (key, request) in result.input_requests.take().unwrap_or_default() {
        let mut params = request.get("params").cloned().unwrap_or_else(|| json!({}));
        let method = request
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or(crate::protocol::ELICITATION_CREATE);
        if method == crate::protocol::SAMPLING_CREATE_MESSAGE
            || method == crate::protocol::ROOTS_LIST
        {
            let answer = cx.call.ask(requester, method, params, timeout).await?;
            answers.insert(key, answer);
            continue;
        }
        if params["mode"] == "url" {
            if !url_supported {
                return Err(ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    format!(
                        "This {what} needs a URL elicitation, which protocol {} does not support",
                        cx.protocol_version()
                    ),
                ));
            }
            params["elicitationId"] = json!(uuid::Uuid::new_v4().to_string());
        }
        let answer = cx
            .call
            .ask(requester, "elicitation/create", params, timeout)
            .await?;
        answers.insert(key, answer);
    }
    Ok((answers, result.request_state))
}
