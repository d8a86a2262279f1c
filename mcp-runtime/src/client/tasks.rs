//! Tool calls as tasks (the tasks extension, `io.modelcontextprotocol/tasks`): a call that
//! declares the extension may be answered with a task handle; [`TaskHandle`] polls it
//! (`tasks/get`, honouring `pollIntervalMs`), answers its input requests through the
//! client's handlers (`tasks/update`), and cancels it (`tasks/cancel`).
//!
//! [`CallBuilder::as_task`](super::CallBuilder::as_task) declares the extension on one
//! call and returns the handle; with [`ClientConfig::tasks`](super::ClientConfig::tasks)
//! every call declares it and awaiting a call polls its task to the result, so code
//! written for plain results keeps working.

use std::collections::BTreeSet;
use std::time::Duration;

use http::HeaderValue;
use serde_json::{Map, Value, json};

use super::exchange::Call;
use super::wire::MCP_NAME;
use super::{Client, ClientError, Connection, Inner, ProtocolError, ToolCallError, invalid};
use crate::protocol::{
    CallToolResult, Era, JsonObject, META_CLIENT_CAPABILITIES, ResultType, TASKS_CANCEL,
    TASKS_EXTENSION, TASKS_GET, TASKS_UPDATE, Task, TaskStatus,
};

/// The shortest and longest wait between two polls, whatever `pollIntervalMs` says.
const MIN_POLL: Duration = Duration::from_millis(10);
const MAX_POLL: Duration = Duration::from_secs(60);

/// How a call made with [`CallBuilder::as_task`](super::CallBuilder::as_task) was
/// answered: a task to follow, or (the server decides) the result itself.
#[derive(Debug)]
pub enum TaskCall {
    /// The call runs as a task.
    Task(TaskHandle),
    /// The server answered with the result directly.
    Complete(CallToolResult),
}

impl TaskCall {
    /// Waits for the result either way (see [`TaskHandle::wait`]).
    pub async fn result(self) -> Result<CallToolResult, ClientError> {
        match self {
            Self::Task(mut handle) => handle.wait().await,
            Self::Complete(result) => Ok(result),
        }
    }
}

/// A task on the server: its last known state, and the means to follow, answer and
/// cancel it. Dropping a handle leaves the task running (resume it later with
/// [`Client::task`](super::Client::task) and its [`id`](Self::id)).
///
/// ```no_run
/// # async fn run(client: mcp::client::Client) -> Result<(), mcp::client::ClientError> {
/// use mcp::client::TaskCall;
///
/// match client.call("generate_report").as_task().await? {
///     TaskCall::Task(mut task) => {
///         println!("task {} is {}", task.id(), task.status());
///         let result = task
///             .wait_with(|t| println!("{}: {}", t.status, t.status_message.as_deref().unwrap_or("")))
///             .await?;
///         println!("{}", result.joined_text());
///     }
///     TaskCall::Complete(result) => println!("{}", result.joined_text()),
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct TaskHandle {
    client: Client,
    tool: String,
    /// Boxed: a handle moves through [`TaskCall`] and futures.
    task: Box<Task>,
    /// Input request keys already answered (a poll repeats them until the server moves on).
    answered: BTreeSet<String>,
}

impl TaskHandle {
    pub(crate) fn new(client: Client, tool: String, task: Task) -> Self {
        Self {
            client,
            tool,
            task: Box::new(task),
            answered: BTreeSet::new(),
        }
    }

    /// The task's id (persist it to resume polling after a restart).
    pub fn id(&self) -> &str {
        &self.task.task_id
    }

    /// The last known state (from creation, or the last poll).
    pub fn task(&self) -> &Task {
        &self.task
    }

    /// The last known status.
    pub fn status(&self) -> TaskStatus {
        self.task.status
    }

    /// Polls once (`tasks/get`) and returns the new state.
    pub async fn refresh(&mut self) -> Result<&Task, ClientError> {
        *self.task = self.client.get_task(self.id()).await?;
        Ok(&self.task)
    }

    /// Answers the task's input requests (`tasks/update`): `responses` keyed as
    /// [`Task::input_requests`]. The server applies them eventually; poll to see.
    pub async fn respond(&mut self, responses: JsonObject) -> Result<(), ClientError> {
        self.answered.extend(responses.keys().cloned());
        let mut params = Map::new();
        params.insert("inputResponses".into(), Value::Object(responses));
        self.client
            .inner
            .task_request(TASKS_UPDATE, self.id(), params)
            .await
            .map(drop)
    }

    /// Asks the server to cancel the task (`tasks/cancel`); cancelling is cooperative and
    /// the task may still finish otherwise.
    pub async fn cancel(&self) -> Result<(), ClientError> {
        self.client.cancel_task(self.id()).await
    }

    /// Polls until the task ends, answering its input requests with the client's handlers
    /// (elicitation, sampling, roots), and returns the result: the tool's result (tool
    /// errors included) once `completed`, the JSON-RPC error once `failed`
    /// ([`ProtocolError::Rpc`]), [`ToolCallError::TaskCancelled`] once `cancelled`.
    pub async fn wait(&mut self) -> Result<CallToolResult, ClientError> {
        self.wait_with(|_| {}).await
    }

    /// [`wait`](Self::wait), calling `on_update` with every state polled (to show
    /// progress: the server puts it in [`Task::status_message`]).
    pub async fn wait_with(
        &mut self,
        mut on_update: impl FnMut(&Task),
    ) -> Result<CallToolResult, ClientError> {
        loop {
            on_update(&self.task);
            match self.task.status {
                TaskStatus::Completed => return self.result(),
                TaskStatus::Failed => {
                    let error = self
                        .task
                        .error
                        .clone()
                        .ok_or_else(|| invalid(TASKS_GET, "a failed task without its error"))?;
                    return Err(ProtocolError::Rpc {
                        error,
                        http_status: None,
                    }
                    .into());
                }
                TaskStatus::Cancelled => {
                    return Err(ToolCallError::TaskCancelled {
                        tool: self.tool.clone(),
                        task: self.id().to_owned(),
                    }
                    .into());
                }
                TaskStatus::InputRequired => {
                    let requests: Vec<(String, Value)> = self
                        .task
                        .input_requests
                        .iter()
                        .flatten()
                        .filter(|(k, _)| !self.answered.contains(*k))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    if !requests.is_empty() {
                        let answers = self
                            .client
                            .inner
                            .answer_inputs(&self.tool, requests)
                            .await?;
                        self.respond(answers).await?;
                        self.refresh().await?;
                        continue;
                    }
                }
                TaskStatus::Working => {}
            }
            let interval = self
                .task
                .poll_interval_ms
                .map_or(Duration::from_millis(500), Duration::from_millis)
                .clamp(MIN_POLL, MAX_POLL);
            tokio::time::sleep(interval).await;
            self.refresh().await?;
        }
    }

    /// The result of a completed task.
    fn result(&self) -> Result<CallToolResult, ClientError> {
        let result = self
            .task
            .result
            .clone()
            .ok_or_else(|| invalid(TASKS_GET, "a completed task without its result"))?;
        serde_json::from_value(Value::Object(result)).map_err(|e| invalid(TASKS_GET, e))
    }
}

impl Client {
    /// A handle of task `id` (created earlier, perhaps by another process), after one
    /// `tasks/get`.
    pub async fn task(&self, id: &str) -> Result<TaskHandle, ClientError> {
        let task = self.get_task(id).await?;
        Ok(TaskHandle::new(self.clone(), String::new(), task))
    }

    /// The current state of task `id` (`tasks/get`).
    pub async fn get_task(&self, id: &str) -> Result<Task, ClientError> {
        let raw = self.inner.task_request(TASKS_GET, id, Map::new()).await?;
        let task: Task = serde_json::from_str(raw.get()).map_err(|e| invalid(TASKS_GET, e))?;
        if task.task_id != id {
            return Err(invalid(TASKS_GET, "the task answered has another id"));
        }
        Ok(task)
    }

    /// Asks the server to cancel task `id` (`tasks/cancel`).
    pub async fn cancel_task(&self, id: &str) -> Result<(), ClientError> {
        self.inner
            .task_request(TASKS_CANCEL, id, Map::new())
            .await
            .map(drop)
    }
}

/// Cancels a task nobody waits for any more: the transparent polling of a plain call
/// whose future was dropped.
pub(crate) struct CancelOnDrop {
    pub(crate) client: Option<Client>,
    pub(crate) id: String,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(client) = self.client.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let id = std::mem::take(&mut self.id);
            runtime.spawn(async move {
                if let Err(e) = client.cancel_task(&id).await {
                    tracing::debug!(error = %e, "cannot cancel an abandoned task");
                }
            });
        }
    }
}

impl Inner {
    /// `capabilities` (the connection's declared ones) with the tasks extension, as a
    /// request's `io.modelcontextprotocol/clientCapabilities`.
    fn capabilities_with_tasks(conn: &Connection) -> Value {
        let mut caps = json!(conn.options.capabilities);
        if let Some(caps) = caps.as_object_mut() {
            let extensions = caps
                .entry("extensions")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(extensions) = extensions.as_object_mut() {
                extensions.insert(TASKS_EXTENSION.into(), json!({}));
            }
        }
        caps
    }

    /// Declares the tasks extension in `meta` (a request's `_meta`): the connection's
    /// capabilities with the extension added. Only modern connections have it.
    pub(super) fn declare_tasks(conn: &Connection, meta: &mut Option<JsonObject>) {
        if conn.info.era != Era::Modern {
            return;
        }
        meta.get_or_insert_with(Map::new).insert(
            META_CLIENT_CAPABILITIES.into(),
            Self::capabilities_with_tasks(conn),
        );
    }

    /// A `tasks/*` request about task `id`, with `Mcp-Name` and the extension declared.
    pub(crate) async fn task_request(
        &self,
        method: &'static str,
        id: &str,
        mut params: JsonObject,
    ) -> Result<Box<serde_json::value::RawValue>, ClientError> {
        let conn = self.connection()?;
        if conn.info.era != Era::Modern {
            return Err(ClientError::Config(format!(
                "{method} needs a modern connection (the tasks extension is not defined for legacy protocol versions)"
            )));
        }
        params.insert("taskId".into(), Value::String(id.to_owned()));
        let mut meta = None;
        Self::declare_tasks(&conn, &mut meta);
        if let Some(meta) = meta {
            params.insert("_meta".into(), Value::Object(meta));
        }
        let mut call = Call::new(method, params);
        if let Some(v) = crate::schema::headers::encode_value(&Value::String(id.to_owned()))
            .and_then(|s| HeaderValue::from_str(&s).ok())
        {
            call.headers.insert(MCP_NAME, v);
        }
        self.request(&conn, &call).await
    }
}

/// A `CreateTaskResult` read from a `tools/call` answer.
pub(crate) fn created_task(value: Value) -> Result<Task, ClientError> {
    let task: Task = serde_json::from_value(value).map_err(|e| invalid("tools/call", e))?;
    if task.result_type != Some(ResultType::Task) {
        return Err(invalid(
            "tools/call",
            "a task handle without resultType task",
        ));
    }
    Ok(task)
}
