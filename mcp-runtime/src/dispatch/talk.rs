//! What [`Context`] sends to the client: logs, progress, cancellation and sampling.

use std::future::Future;

use serde_json::{Map, Value, json};

use super::Context;
use super::channel::LogLevel;
use crate::protocol::{
    Era, ErrorCode, ErrorObject, JsonObject, SAMPLING_CREATE_MESSAGE, SamplingRequest,
    SamplingResult,
};

/// The prefix of a modern request state that carries the sampling answers of earlier
/// rounds (and the tool's own state): `mcp:sampling:{"state":…,"answers":{…}}`, signed and
/// bound to the call like any request state.
pub(crate) const SAMPLING_STATE: &str = "mcp:sampling:";

/// The request state of the next round: the tool's own `state` and the sampling answers
/// known so far.
pub(crate) fn wrap_state(state: Option<String>, answers: &JsonObject) -> String {
    format!(
        "{SAMPLING_STATE}{}",
        json!({"state": state, "answers": answers})
    )
}

/// The tool's own state and the earlier answers of a state made by [`wrap_state`].
fn unwrap_state(state: Option<String>) -> (Option<String>, JsonObject) {
    let Some(inner) = state
        .as_deref()
        .and_then(|s| s.strip_prefix(SAMPLING_STATE))
    else {
        return (state, JsonObject::new());
    };
    let mut v: Value = serde_json::from_str(inner).unwrap_or_default();
    let tool_state = v["state"].as_str().map(str::to_owned);
    let answers = match v["answers"].take() {
        Value::Object(a) => a,
        _ => JsonObject::new(),
    };
    (tool_state, answers)
}

/// Why [`Context::sample`] has no answer.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SamplingError {
    /// Modern protocol: the question is sent to the client with an `input_required` result
    /// when the tool returns; the tool is called again with the answer. Return early (`?`).
    InputRequired,
    /// The client did not declare the `sampling` capability.
    NotSupported,
    /// The request cannot reach the client (a legacy request without a session, or a
    /// `Context` used outside a request).
    NoChannel,
    /// The client answered with an error, did not answer in time, or answered with
    /// something that is not a sampling result: the call is answered with this JSON-RPC
    /// error when the tool fails.
    Failed(ErrorObject),
}

impl std::fmt::Display for SamplingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::InputRequired => f.write_str("the sampling request is sent to the client first"),
            Self::NotSupported => f.write_str("the client does not support sampling"),
            Self::NoChannel => f.write_str("this request cannot send a sampling request"),
            Self::Failed(e) => write!(f, "sampling failed: {}", e.message),
        }
    }
}

impl std::error::Error for SamplingError {}

impl From<SamplingError> for crate::error::ToolError {
    fn from(e: SamplingError) -> Self {
        Self::from_source("Sampling failed", e)
    }
}

impl Context {
    /// The context of a call served with `request`: its channel, progress token and the
    /// answers of the round (modern).
    pub(crate) fn for_call(
        request: &super::RequestContext,
        input_responses: Option<crate::protocol::JsonObject>,
        request_state: Option<String>,
    ) -> Self {
        let signed_round = request_state.is_some();
        let (request_state, earlier) = unwrap_state(request_state);
        let input_responses = if earlier.is_empty() {
            input_responses
        } else {
            let mut all = earlier;
            all.extend(input_responses.unwrap_or_default());
            Some(all)
        };
        let progress_token = request
            .meta()
            .and_then(|m| m.get("progressToken"))
            .filter(|t| t.is_string() || t.is_i64() || t.is_u64())
            .cloned();
        Self {
            input_responses,
            request_state,
            call: Some(request.call.clone()),
            progress_token,
            signed_round,
        }
    }

    /// Sends a log message (`notifications/message`) of `level` with `data` (any JSON:
    /// text or an object) when the client's threshold lets it through.
    ///
    /// ```no_run
    /// # async fn tool(ctx: mcp::Context) {
    /// ctx.log(mcp::LogLevel::Info, "Tool execution started").await;
    /// ctx.log(mcp::LogLevel::Debug, serde_json::json!({"rows": 42})).await;
    /// # }
    /// ```
    pub async fn log(&self, level: LogLevel, data: impl Into<Value>) {
        self.send_log(level, None, data.into()).await;
    }

    /// [`log`](Self::log) naming the `logger` (a component name the client may show).
    pub async fn log_as(&self, logger: &str, level: LogLevel, data: impl Into<Value>) {
        self.send_log(level, Some(logger), data.into()).await;
    }

    async fn send_log(&self, level: LogLevel, logger: Option<&str>, data: Value) {
        let Some(call) = &self.call else { return };
        if !call.wants(level).await {
            return;
        }
        let mut params = Map::new();
        params.insert("level".into(), json!(level));
        if let Some(logger) = logger {
            params.insert("logger".into(), json!(logger));
        }
        params.insert("data".into(), data);
        call.notify("notifications/message", Value::Object(params))
            .await;
    }

    /// Reports progress (`notifications/progress`) with the request's `progressToken`:
    /// `done` out of `total` (when known), with an optional `message`. Nothing is sent when
    /// the request has no token, or when `done` does not increase (the protocol requires
    /// every value to be larger than the last).
    ///
    /// ```no_run
    /// # async fn tool(ctx: mcp::Context) {
    /// ctx.progress(0.0, 100.0, None).await;
    /// ctx.progress(50.0, 100.0, Some("Processed b.csv")).await;
    /// ctx.progress(3.0, None, None).await; // total unknown
    /// # }
    /// ```
    pub async fn progress(&self, done: f64, total: impl Into<Option<f64>>, message: Option<&str>) {
        let (Some(call), Some(token)) = (&self.call, &self.progress_token) else {
            return;
        };
        if !done.is_finite() || !call.advance(done) {
            tracing::debug!(done, "not sending a progress value that does not increase");
            return;
        }
        let mut params = Map::new();
        params.insert("progressToken".into(), token.clone());
        params.insert("progress".into(), json!(done));
        if let Some(total) = total.into().filter(|t| t.is_finite()) {
            params.insert("total".into(), json!(total));
        }
        if let Some(message) = message {
            params.insert("message".into(), json!(message));
        }
        call.notify("notifications/progress", Value::Object(params))
            .await;
    }

    /// The request's progress token, when the client sent one.
    pub fn progress_token(&self) -> Option<&Value> {
        self.progress_token.as_ref()
    }

    /// Completes when the request is cancelled: a legacy `notifications/cancelled` names
    /// it, or the client closes its connection (legacy) or its request (modern). The
    /// tool's own future is dropped at that moment and the call gets no response; wait on
    /// this in work the tool spawned, which outlives it. Never completes outside a request.
    pub fn cancelled(&self) -> impl Future<Output = ()> + Send + 'static {
        let token = self.call.as_ref().map(|c| c.cancel.clone());
        async move {
            match token {
                Some(t) => t.cancelled_owned().await,
                None => std::future::pending().await,
            }
        }
    }

    /// `true` once the request is cancelled (see [`cancelled`](Self::cancelled)).
    pub fn is_cancelled(&self) -> bool {
        self.call.as_ref().is_some_and(|c| c.cancel.is_cancelled())
    }

    /// Ends this request's SSE stream now with a `retry` hint (SSE polling, legacy
    /// sessions): the client reconnects with `Last-Event-ID` and receives what the tool
    /// sends afterwards, its result included, on the session's stream. `false` (and the
    /// stream stays open) when the request has no session or is not served over HTTP.
    pub async fn close_stream(&self, retry: std::time::Duration) -> bool {
        match self.call.as_ref().and_then(|c| c.channel.clone()) {
            Some(channel) => channel.close_stream(retry).await,
            None => false,
        }
    }

    /// Asks the client's model for a completion (`sampling/createMessage`).
    ///
    /// Legacy: a real request on the call's stream; the answer comes back here. Modern: the
    /// first time, this returns [`SamplingError::InputRequired`] and the call is answered
    /// with an `input_required` result carrying the request; the client calls the tool again
    /// with the answer, and the same `sample` call in that round returns it. So write the
    /// tool to reach its `sample` calls in the same order every round, and return early
    /// with `?`.
    ///
    /// ```no_run
    /// # async fn tool(ctx: mcp::Context) -> Result<String, mcp::ToolError> {
    /// let ask = mcp::SamplingRequest::new(vec![mcp::SamplingMessage::user("What is 2+2?")], 50);
    /// let answer = ctx.sample(ask).await?;
    /// Ok(answer.text().unwrap_or_default().to_owned())
    /// # }
    /// ```
    pub async fn sample(&self, request: SamplingRequest) -> Result<SamplingResult, SamplingError> {
        let Some(call) = self.call.clone() else {
            return Err(SamplingError::NoChannel);
        };
        let key = call.next_sample_key();
        let fail = |e: SamplingError| {
            let error = match &e {
                SamplingError::Failed(e) => e.clone(),
                SamplingError::NotSupported => ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    "This tool needs sampling, and the client did not declare the sampling capability",
                ),
                SamplingError::NoChannel => ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    "This tool needs sampling, which a legacy request without a session cannot provide",
                ),
                SamplingError::InputRequired => return e,
            };
            let mut round = call.sampling();
            round.failure.get_or_insert(error);
            e
        };
        let params = match serde_json::to_value(&request) {
            Ok(Value::Object(p)) => p,
            _ => return Err(fail(SamplingError::NoChannel)),
        };
        match call.era {
            Era::Modern => {
                let answered = self
                    .signed_round
                    .then(|| self.input_responses.as_ref()?.get(&key))
                    .flatten();
                if let Some(answer) = answered {
                    let parsed = parse_answer(&key, answer.clone()).map_err(fail)?;
                    call.sampling().answered.insert(key, answer.clone());
                    return Ok(parsed);
                }
                if !call.client_sampling {
                    let mut round = call.sampling();
                    round.failure.get_or_insert(
                        ErrorObject::new(
                            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
                            format!("Cannot request input '{key}' ({SAMPLING_CREATE_MESSAGE}): the request's client capabilities do not declare the required capability"),
                        )
                        .with_data(json!({"requiredCapabilities": {"sampling": {}}})),
                    );
                    return Err(SamplingError::NotSupported);
                }
                call.sampling().pending.push((key, params));
                Err(SamplingError::InputRequired)
            }
            Era::Legacy => {
                if !call.client_sampling {
                    return Err(fail(SamplingError::NotSupported));
                }
                let Some(channel) = call.channel.clone().filter(|_| call.has_session) else {
                    return Err(fail(SamplingError::NoChannel));
                };
                let answer = channel
                    .request(SAMPLING_CREATE_MESSAGE, Value::Object(params), call.timeout)
                    .await
                    .map_err(|e| fail(SamplingError::Failed(e)))?;
                parse_answer(&key, answer).map_err(fail)
            }
        }
    }
}

/// The client's answer as a sampling result, or the `-32602` naming what is wrong.
fn parse_answer(key: &str, answer: Value) -> Result<SamplingResult, SamplingError> {
    serde_json::from_value(answer).map_err(|e| {
        SamplingError::Failed(ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            format!("Invalid params: the answer to {SAMPLING_CREATE_MESSAGE} `{key}` is not a sampling result: {e}"),
        ))
    })
}

/// What a finished call's handler produced, before the sampling of the call is settled.
pub(crate) type Outcome = Result<crate::protocol::CallToolResponse, Option<super::Reply>>;

fn failed(outcome: &Outcome) -> bool {
    match outcome {
        Err(_) => true,
        Ok(crate::protocol::CallToolResponse::Complete(r)) => r.is_error == Some(true),
        Ok(crate::protocol::CallToolResponse::InputRequired(_)) => false,
    }
}

/// Settles a modern call: sampling requests asked in this round turn the answer into an
/// `input_required` result (with the tool's own input requests, if any); a sampling failure
/// answers a call whose tool failed; earlier answers ride the next round's state.
/// `round_state` is this round's (verified) request state.
pub(crate) fn settle_modern(
    cx: &super::RequestContext,
    outcome: Outcome,
    round_state: Option<String>,
) -> Outcome {
    use crate::protocol::{CallToolResponse, InputRequiredResult};
    let (pending, failure, answered) = {
        let mut round = cx.call.sampling();
        (
            std::mem::take(&mut round.pending),
            round.failure.take(),
            std::mem::take(&mut round.answered),
        )
    };
    if !pending.is_empty() {
        let (mut result, tool_state) = match outcome {
            Ok(CallToolResponse::InputRequired(mut r)) => {
                let state = r.request_state.take();
                (r, state)
            }
            _ => (InputRequiredResult::default(), unwrap_state(round_state).0),
        };
        let requests = result.input_requests.get_or_insert_with(JsonObject::new);
        for (key, params) in pending {
            requests.insert(
                key,
                json!({"method": SAMPLING_CREATE_MESSAGE, "params": params}),
            );
        }
        result.request_state = Some(wrap_state(tool_state, &answered));
        return Ok(CallToolResponse::InputRequired(result));
    }
    if let Some(failure) = failure.filter(|_| failed(&outcome)) {
        return Err(Some(super::Reply::in_band(failure)));
    }
    match outcome {
        Ok(CallToolResponse::InputRequired(mut r)) if !answered.is_empty() => {
            r.request_state = Some(wrap_state(r.request_state.take(), &answered));
            Ok(CallToolResponse::InputRequired(r))
        }
        other => other,
    }
}

/// Settles a legacy call: a sampling failure answers a call whose tool failed.
pub(crate) fn settle_legacy(cx: &super::RequestContext, outcome: Outcome) -> Outcome {
    let failure = cx.call.sampling().failure.take();
    match failure.filter(|_| failed(&outcome)) {
        Some(failure) => Err(Some(super::Reply::in_band(failure))),
        None => outcome,
    }
}

/// `logging/setLevel` (legacy): `{}`; the level is kept in the session (a request without a
/// session is answered the same and nothing is kept, as a stateless TypeScript server
/// does). An unknown level is `-32603` with the issue list, as the TypeScript server sends.
pub(crate) async fn set_log_level(
    params: Option<JsonObject>,
    cx: &super::RequestContext,
) -> super::Reply {
    let level = params
        .as_ref()
        .and_then(|p| p.get("level"))
        .and_then(Value::as_str)
        .and_then(LogLevel::parse);
    let Some(level) = level else {
        return super::Reply::in_band(invalid_level(params.as_ref()));
    };
    if let Some(session) = &cx.session
        && let Err(e) = session
            .set(super::channel::SESSION_LOG_LEVEL_KEY, level)
            .await
    {
        tracing::warn!(error = %e, "cannot store the session's log level");
        return super::Reply::in_band(ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            "Internal error",
        ));
    }
    super::Reply::result(&json!({}))
}

/// The error of a `logging/setLevel` whose level is missing or unknown.
fn invalid_level(params: Option<&JsonObject>) -> ErrorObject {
    let received = params.and_then(|p| p.get("level"));
    let options = LogLevel::ALL.map(LogLevel::as_str);
    let issue = match received {
        None | Some(Value::String(_)) => json!([{
            "code": "invalid_value",
            "values": options,
            "path": ["params", "level"],
            "message": format!("Invalid option: expected one of {}", options.map(|o| format!("\"{o}\"")).join("|")),
        }]),
        Some(other) => json!([{
            "expected": "string",
            "code": "invalid_type",
            "path": ["params", "level"],
            "message": format!("Invalid input: expected string, received {}", json_type(other)),
        }]),
    };
    ErrorObject::new(
        ErrorCode::INTERNAL_ERROR,
        serde_json::to_string_pretty(&issue).unwrap_or_default(),
    )
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
