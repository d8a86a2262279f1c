//! `tools/call`: the [`CallBuilder`], header mirroring and the `input_required` rounds.

use std::future::IntoFuture;
use std::sync::Arc;

use http::header::AUTHORIZATION;
use http::{HeaderMap, HeaderName, HeaderValue};
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::exchange::{Call, Rounds, STATE_ONLY_RETRY_DELAY};
use super::handlers::Unanswered;
use super::progress::{Progress, ProgressFn};
use super::wire::{MCP_NAME, is_reserved};
use super::{
    Client, ClientError, Connection, Inner, ToolCallError, invalid, parse_result, to_object,
};
use crate::base::BoxFuture;
use crate::protocol::{
    CallToolParams, CallToolResponse, CallToolResult, ELICITATION_CREATE, Era, ErrorCode,
    InputRequiredResult, JsonObject,
};
use crate::schema::headers::{HeaderDecl, MAX_SAFE_INTEGER, encode_value};

impl Client {
    /// Starts a call of the tool `name`: set its arguments and headers on the returned
    /// [`CallBuilder`], then await it (the complete result) or call
    /// [`once`](CallBuilder::once) (a single exchange).
    ///
    /// ```no_run
    /// use mcp::client::ClientError;
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Serialize)]
    /// struct Add {
    ///     a: i64,
    ///     b: i64,
    /// }
    ///
    /// #[derive(Deserialize)]
    /// struct Sum {
    ///     sum: i64,
    /// }
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = mcp::client::connect("http://127.0.0.1:9090/mcp").await?;
    /// let result = client.call("add").arguments(&Add { a: 2, b: 3 })?.await?;
    /// if result.is_error() {
    ///     eprintln!("the tool failed: {}", result.joined_text());
    /// } else {
    ///     println!("2 + 3 = {}", result.structured::<Sum>()?.sum);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn call(&self, name: impl Into<String>) -> CallBuilder {
        CallBuilder {
            client: self.clone(),
            params: CallToolParams {
                name: name.into(),
                ..CallToolParams::default()
            },
            headers: HeaderMap::new(),
            progress: None,
        }
    }
}

/// A `tools/call` being prepared, from [`Client::call`]. Nothing is sent
/// until it is awaited (or [`send`](Self::send) or [`once`](Self::once) is awaited).
///
/// Awaiting it runs the whole call: on a modern connection the arguments declared with
/// `x-mcp-header` are mirrored into `Mcp-Param-*` headers, using the listed tool definition
/// (the list is fetched when the tool is not known yet); an integer beyond ±(2^53−1) there
/// is refused with [`ToolCallError::HeaderValueOutOfRange`]. On an `input_required` result
/// the elicitation handler answers each input request, in the server's order, and the call
/// is retried with the answers and the echoed request state, for at most
/// [`ClientConfig::max_input_rounds`](super::ClientConfig::max_input_rounds) rounds. On
/// `-32020` (header mismatch) the `tools/list` cache is dropped, the list fetched again and
/// the call retried once.
///
/// A tool that fails is data ([`CallToolResult::is_error`]); a JSON-RPC error is an `Err`.
/// The future is `Send + 'static`: it can be spawned.
#[must_use = "a call is sent only when it is awaited"]
pub struct CallBuilder {
    client: Client,
    params: CallToolParams,
    headers: HeaderMap,
    progress: Option<ProgressFn>,
}

impl std::fmt::Debug for CallBuilder {
    /// Shows the tool and the header names; argument and header values (tokens) are not
    /// shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallBuilder")
            .field("tool", &self.params.name)
            .field("arguments", &self.params.arguments.is_some())
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("progress", &self.progress.is_some())
            .finish_non_exhaustive()
    }
}

impl CallBuilder {
    /// The tool this call names.
    pub fn tool(&self) -> &str {
        &self.params.name
    }

    /// The arguments as an object already built.
    pub(crate) fn object(mut self, arguments: JsonObject) -> Self {
        self.params.arguments = Some(arguments);
        self
    }

    /// The tool's arguments: any value that serializes to a JSON object (a struct, a map,
    /// `serde_json::json!({...})`), or to `null` for none.
    ///
    /// Fails with [`ToolCallError::ArgumentsNotSerializable`] when serialization fails and
    /// [`ToolCallError::InvalidArguments`] when the value is not an object.
    pub fn arguments(mut self, arguments: impl Serialize) -> Result<Self, ClientError> {
        let tool = &self.params.name;
        self.params.arguments = match serde_json::to_value(arguments) {
            Ok(Value::Null) => None,
            Ok(Value::Object(o)) => Some(o),
            Ok(_) => return Err(ToolCallError::InvalidArguments { tool: tool.clone() }.into()),
            Err(source) => {
                return Err(ToolCallError::ArgumentsNotSerializable {
                    tool: tool.clone(),
                    source,
                }
                .into());
            }
        };
        Ok(self)
    }

    /// An HTTP header for this call only (appended to those already set). An
    /// `Authorization` header here replaces the token provider's and bypasses the
    /// `tools/list` cache. Headers the client sets itself (`Mcp-*`, `Content-Type`,
    /// `Accept`) fail the call with [`ToolCallError::ReservedHeader`].
    pub fn header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.append(name, value);
        self
    }

    /// HTTP headers for this call only: [`header`](Self::header) for each.
    pub fn headers(mut self, headers: HeaderMap) -> Self {
        for (name, value) in &headers {
            self.headers.append(name, value.clone());
        }
        self
    }

    /// Request metadata (`params._meta`, for example a `progressToken`). On a modern
    /// connection the client adds the protocol envelope keys next to it.
    pub fn meta(mut self, meta: JsonObject) -> Self {
        self.params.meta = Some(meta);
        self
    }

    /// Calls `report` with each `notifications/progress` the server sends about this call:
    /// the call's `_meta` gets a `progressToken` of the client's own (replacing one set with
    /// [`meta`](Self::meta)), and the callback is dropped when the call ends or its future is
    /// dropped. Progress the server sends for a call keeps reaching
    /// [`ClientConfig::notification_handler`](super::ClientConfig::notification_handler) too.
    pub fn on_progress(mut self, report: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(report));
        self
    }

    /// Answers to the input requests of a previous round (modern continuation, with
    /// [`request_state`](Self::request_state)), keyed as the server keyed the requests.
    pub fn input_responses(mut self, responses: JsonObject) -> Self {
        self.params.input_responses = Some(responses);
        self
    }

    /// The `requestState` of a previous `input_required` round, echoed (modern
    /// continuation); `None` sends none.
    pub fn request_state(mut self, state: impl Into<Option<String>>) -> Self {
        self.params.request_state = state.into();
        self
    }

    /// Runs the call to its complete result (the same as awaiting the builder). With
    /// [`ClientConfig::tasks`](super::ClientConfig::tasks), a call the server runs as a
    /// task is followed to its result (and the task cancelled if this future is dropped
    /// first).
    pub async fn send(self) -> Result<CallToolResult, ClientError> {
        let tasks = self.client.inner.config.tasks;
        let (client, tool, settled) = self.settle(tasks).await;
        match settled? {
            Settled::Complete(result) => Ok(result),
            Settled::Task(task) => {
                let mut guard = super::tasks::CancelOnDrop {
                    client: Some(client.clone()),
                    id: task.task_id.clone(),
                };
                let mut handle = super::tasks::TaskHandle::new(client, tool, task);
                let result = handle.wait().await;
                guard.client = None;
                result
            }
        }
    }

    /// Runs the call declaring the tasks extension (`io.modelcontextprotocol/tasks`), so
    /// that the server may run it as a task: the answer is the task's handle (follow it,
    /// answer it, cancel it, or keep its id to resume later), or the result when the
    /// server answered directly. Input the tool asks for before the task exists (SEP-2322
    /// rounds) is answered with the client's handlers first. On a legacy connection the
    /// extension does not exist: the call runs as usual.
    pub async fn as_task(self) -> Result<super::TaskCall, ClientError> {
        let (client, tool, settled) = self.settle(true).await;
        Ok(match settled? {
            Settled::Complete(result) => super::TaskCall::Complete(result),
            Settled::Task(task) => {
                super::TaskCall::Task(super::tasks::TaskHandle::new(client, tool, task))
            }
        })
    }

    /// Runs the call's rounds (declaring the tasks extension with `tasks`), watching its
    /// progress meanwhile: the client, the tool and how the rounds ended.
    async fn settle(mut self, tasks: bool) -> (Client, String, Result<Settled, ClientError>) {
        let inner = Arc::clone(&self.client.inner);
        let _watch = self
            .progress
            .take()
            .map(|report| inner.watch_progress(&mut self.params, report));
        let tool = self.params.name.clone();
        let settled = inner.settle(self.params, self.headers, tasks).await;
        (self.client, tool, settled)
    }

    /// Sends one `tools/call` round and returns the server's answer as it is: a complete
    /// result, or (modern only) an `input_required` result for the application to answer
    /// itself, by calling again with [`input_responses`](Self::input_responses) and the
    /// echoed [`request_state`](Self::request_state). A header mismatch (`-32020`) is still
    /// retried once after listing the tools again. On a legacy connection, requests the
    /// server pushes on the response stream are still answered by the elicitation handler.
    pub async fn once(mut self) -> Result<CallToolResponse, ClientError> {
        let inner = &self.client.inner;
        let _watch = self
            .progress
            .take()
            .map(|report| inner.watch_progress(&mut self.params, report));
        let (conn, mut call_headers) = inner.prepare_call(&self.params, &self.headers).await?;
        let mut retried = false;
        Ok(
            match inner
                .round(
                    &conn,
                    &self.params,
                    &self.headers,
                    &mut call_headers,
                    &mut retried,
                    &Rounds::default(),
                )
                .await?
            {
                Round::Complete(r) => CallToolResponse::Complete(r),
                Round::InputRequired(r, _) => CallToolResponse::InputRequired(r),
                Round::Task(_) => {
                    return Err(invalid(
                        "tools/call",
                        "a task handle to a call that did not declare the tasks extension",
                    ));
                }
            },
        )
    }
}

impl IntoFuture for CallBuilder {
    type Output = Result<CallToolResult, ClientError>;
    type IntoFuture = BoxFuture<'static, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.send())
    }
}

/// How one `tools/call` round ended.
enum Round {
    Complete(CallToolResult),
    InputRequired(InputRequiredResult, Vec<(String, Value)>),
    /// The server runs the call as a task (only when the call declared the extension).
    Task(crate::protocol::Task),
}

/// How the rounds of a call ended: its result, or the task running it.
pub(crate) enum Settled {
    Complete(CallToolResult),
    Task(crate::protocol::Task),
}

/// `inputRequests` in the server's order (`serde_json::Map` sorts its keys).
struct OrderedEntries(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for OrderedEntries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedEntries;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    out.push(entry);
                }
                Ok(OrderedEntries(out))
            }
        }
        d.deserialize_map(V)
    }
}

#[derive(Deserialize)]
struct OrderedInputRequests {
    #[serde(rename = "inputRequests", default)]
    input_requests: Option<OrderedEntries>,
}

/// `true` for a JSON number outside ±(2^53−1).
fn beyond_safe_integer(value: &Value) -> bool {
    let Value::Number(n) = value else {
        return false;
    };
    if let Some(i) = n.as_i64() {
        i.unsigned_abs() > MAX_SAFE_INTEGER.unsigned_abs()
    } else if let Some(u) = n.as_u64() {
        u > MAX_SAFE_INTEGER.unsigned_abs()
    } else {
        n.as_f64()
            .is_some_and(|f| f.abs() > MAX_SAFE_INTEGER as f64)
    }
}

/// The `Mcp-Param-*` headers of a call.
fn mirror_headers(
    tool: &str,
    arguments: Option<&JsonObject>,
    decls: &[HeaderDecl],
    headers: &mut HeaderMap,
) -> Result<(), ToolCallError> {
    for decl in decls {
        let Some(value) = decl.value(arguments) else {
            continue;
        };
        if beyond_safe_integer(value) {
            return Err(ToolCallError::HeaderValueOutOfRange {
                tool: tool.into(),
                argument: decl.path.join("."),
                header: decl.header_name(),
            });
        }
        let Some(encoded) = encode_value(value) else {
            continue;
        };
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(decl.header_name().as_bytes()),
            HeaderValue::from_str(&encoded),
        ) {
            headers.insert(name, value);
        }
    }
    Ok(())
}

impl Inner {
    /// Checks the per-call headers and builds the headers of a `tools/call`.
    async fn prepare_call(
        &self,
        params: &CallToolParams,
        per_call: &HeaderMap,
    ) -> Result<(Arc<Connection>, HeaderMap), ClientError> {
        if let Some(name) = per_call.keys().find(|n| is_reserved(n)) {
            return Err(ToolCallError::ReservedHeader {
                header: name.as_str().into(),
            }
            .into());
        }
        let conn = self.connection()?;
        let headers = self.call_headers(&conn, params, per_call).await?;
        Ok((conn, headers))
    }

    async fn call_headers(
        &self,
        conn: &Arc<Connection>,
        params: &CallToolParams,
        per_call: &HeaderMap,
    ) -> Result<HeaderMap, ClientError> {
        let mut headers = per_call.clone();
        if conn.info.era == Era::Modern {
            if let Some(v) = encode_value(&Value::String(params.name.clone()))
                .and_then(|s| HeaderValue::from_str(&s).ok())
            {
                headers.insert(MCP_NAME, v);
            }
            let auth = per_call.contains_key(AUTHORIZATION).then_some(per_call);
            let decls = self.tool_decls(conn, &params.name, auth).await?;
            mirror_headers(
                &params.name,
                params.arguments.as_ref(),
                &decls,
                &mut headers,
            )?;
        }
        Ok(headers)
    }

    /// One `tools/call` round; on `-32020` drops the cache, rebuilds the headers from a
    /// fresh listing and retries once per call.
    async fn round(
        &self,
        conn: &Arc<Connection>,
        params: &CallToolParams,
        per_call: &HeaderMap,
        headers: &mut HeaderMap,
        mismatch_retried: &mut bool,
        rounds: &Rounds,
    ) -> Result<Round, ClientError> {
        loop {
            let mut call = Call::new("tools/call", to_object(params));
            call.headers = headers.clone();
            call.rounds = rounds.clone();
            match self.request(conn, &call).await {
                Ok(reply) => return Self::parse_round(&reply, conn.info.era),
                Err(e) if e.code() == Some(ErrorCode::HEADER_MISMATCH) => {
                    self.lock_cache().clear();
                    if *mismatch_retried || conn.info.era != Era::Modern {
                        return Err(e);
                    }
                    tracing::debug!(tool = %params.name, "header mismatch; listing tools again and retrying once");
                    *mismatch_retried = true;
                    *headers = self.call_headers(conn, params, per_call).await?;
                }
                Err(e) => return Err(e),
            }
        }
    }

    fn parse_round(raw: &RawValue, era: Era) -> Result<Round, ClientError> {
        const METHOD: &str = "tools/call";
        let value: Value = serde_json::from_str(raw.get()).map_err(|e| invalid(METHOD, e))?;
        if era == Era::Modern {
            match value.get("resultType") {
                None => {}
                Some(Value::String(t)) if t == "complete" => {}
                Some(Value::String(t)) if t == "input_required" => {
                    let ordered: OrderedInputRequests =
                        serde_json::from_str(raw.get()).map_err(|e| invalid(METHOD, e))?;
                    let result: InputRequiredResult =
                        serde_json::from_value(value).map_err(|e| invalid(METHOD, e))?;
                    let requests = ordered.input_requests.map(|o| o.0).unwrap_or_default();
                    if requests.is_empty() && result.request_state.is_none() {
                        return Err(invalid(
                            METHOD,
                            "an input_required result needs inputRequests or requestState",
                        ));
                    }
                    return Ok(Round::InputRequired(result, requests));
                }
                Some(Value::String(t)) if t == "task" => {
                    return super::tasks::created_task(value).map(Round::Task);
                }
                Some(other) => return Err(invalid(METHOD, format!("unknown resultType {other}"))),
            }
        }
        parse_result(METHOD, raw, era).map(Round::Complete)
    }

    /// A whole call: rounds until the result is complete, or (when `tasks` declares the
    /// extension) a task runs it.
    async fn settle(
        &self,
        mut params: CallToolParams,
        per_call: HeaderMap,
        tasks: bool,
    ) -> Result<Settled, ClientError> {
        let (conn, mut headers) = self.prepare_call(&params, &per_call).await?;
        if tasks {
            Inner::declare_tasks(&conn, &mut params.meta);
        }
        let mut mismatch_retried = false;
        let mut rounds = 0;
        let call_rounds = Rounds::of_call();
        loop {
            match self
                .round(
                    &conn,
                    &params,
                    &per_call,
                    &mut headers,
                    &mut mismatch_retried,
                    &call_rounds,
                )
                .await?
            {
                Round::Complete(result) => return Ok(Settled::Complete(result)),
                Round::Task(task) if tasks => return Ok(Settled::Task(task)),
                Round::Task(_) => {
                    return Err(invalid(
                        "tools/call",
                        "a task handle to a call that did not declare the tasks extension",
                    ));
                }
                Round::InputRequired(result, requests) => {
                    if rounds >= self.config.max_input_rounds {
                        return Err(ToolCallError::InputRoundsExhausted {
                            tool: params.name,
                            rounds,
                        }
                        .into());
                    }
                    rounds += 1;
                    let answers = self.answer_inputs(&params.name, requests).await?;
                    if answers.is_empty() {
                        tokio::time::sleep(STATE_ONLY_RETRY_DELAY).await;
                    }
                    params.input_responses = (!answers.is_empty()).then_some(answers);
                    params.request_state = result.request_state;
                }
            }
        }
    }

    /// Answers one round's input requests, one at a time in the server's order.
    pub(crate) async fn answer_inputs(
        &self,
        tool: &str,
        requests: Vec<(String, Value)>,
    ) -> Result<JsonObject, ClientError> {
        let mut answers = Map::new();
        for (key, request) in requests {
            let (method, params) = match request {
                Value::Object(mut o) => (
                    match o.remove("method") {
                        Some(Value::String(m)) => m,
                        _ => String::new(),
                    },
                    o.remove("params"),
                ),
                _ => (String::new(), None),
            };
            let unsupported = || ToolCallError::UnsupportedInputRequest {
                tool: tool.into(),
                key: key.clone(),
                method: method.clone(),
            };
            if method == "ping" {
                return Err(unsupported().into());
            }
            match self.config.handlers.answer(&method, params).await {
                Ok(answer) => {
                    answers.insert(key, answer);
                }
                Err(Unanswered::Failed(e)) => return Err(e),
                Err(Unanswered::BadParams(message)) => {
                    return Err(invalid(
                        "tools/call",
                        format!("input request `{key}`: {message}"),
                    ));
                }
                Err(Unanswered::NoHandler) if method == ELICITATION_CREATE => {
                    return Err(ToolCallError::NoElicitationHandler { tool: tool.into() }.into());
                }
                Err(Unanswered::NoHandler) => return Err(unsupported().into()),
            }
        }
        Ok(answers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::headers::declarations;
    use serde_json::json;

    fn decls(schema: Value) -> Vec<HeaderDecl> {
        declarations(schema.as_object().unwrap()).unwrap()
    }

    #[test]
    fn mirrors_and_refuses_unsafe_integers() {
        let d = decls(json!({"type":"object","properties":{
            "region":{"type":"string","x-mcp-header":"Region"},
            "limit":{"type":"integer","x-mcp-header":"Limit"}
        }}));
        let mut h = HeaderMap::new();
        let args = json!({"region":"São Paulo","limit":5});
        mirror_headers("t", args.as_object(), &d, &mut h).unwrap();
        assert_eq!(h["mcp-param-region"], "=?base64?U8OjbyBQYXVsbw==?=");
        assert_eq!(h["mcp-param-limit"], "5");
        for big in [
            json!(9_007_199_254_740_992_i64),
            json!(-9_007_199_254_740_992_i64),
            json!(u64::MAX),
            json!(1e300),
        ] {
            let args = json!({"region":"x","limit":big});
            assert!(matches!(
                mirror_headers("t", args.as_object(), &d, &mut HeaderMap::new()),
                Err(ToolCallError::HeaderValueOutOfRange { .. })
            ));
        }
        let edge = json!({"limit": MAX_SAFE_INTEGER});
        assert!(mirror_headers("t", edge.as_object(), &d, &mut HeaderMap::new()).is_ok());
    }

    #[test]
    fn keeps_the_servers_order_of_input_requests() {
        let raw = RawValue::from_string(
            r#"{"resultType":"input_required","inputRequests":{"zeta":{"method":"elicitation/create","params":{"message":"1","requestedSchema":{"type":"object"}}},"alpha":{"method":"elicitation/create","params":{"message":"2","requestedSchema":{"type":"object"}}}}}"#.into(),
        )
        .unwrap();
        let Round::InputRequired(_, requests) = Inner::parse_round(&raw, Era::Modern).unwrap()
        else {
            panic!("expected input_required");
        };
        let keys: Vec<_> = requests.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["zeta", "alpha"]);
        let empty = RawValue::from_string(r#"{"resultType":"input_required"}"#.into()).unwrap();
        assert!(Inner::parse_round(&empty, Era::Modern).is_err());
        let legacy =
            RawValue::from_string(r#"{"content":[],"resultType":"whatever"}"#.into()).unwrap();
        assert!(matches!(
            Inner::parse_round(&legacy, Era::Legacy).unwrap(),
            Round::Complete(_)
        ));
    }
}
