//! Tool calls as tasks (the tasks extension, `io.modelcontextprotocol/tasks`, SEP-2663):
//! a modern `tools/call` of a task-capable tool from a client that declares the extension
//! is answered with a task handle while the tool runs in the background; `tasks/get`,
//! `tasks/update` and `tasks/cancel` follow it.
//!
//! A task is a record in the service's [`TaskStore`](crate::tasks::TaskStore): the call (tool, arguments, `_meta`),
//! its status, the outstanding input requests, the answers gathered for the next round,
//! the tool's request state, and the result or error. Input works as SEP-2322 rounds do
//! for a plain call: a round that ends `input_required` parks the task; once
//! `tasks/update` has answered every request, the tool is called again with the answers
//! (on whichever replica received the last answer). The state of a round never leaves the
//! server, so it is not signed.
//!
//! A running round is claimed by its replica with a lease, renewed every third of
//! [`TaskConfig::lease`]; a working task whose lease lapsed (its replica stopped) is failed
//! with `-32603` when it is next read. A task cancelled on another replica stops at that
//! replica's next renewal.

mod methods;
mod record;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use super::channel::{CallState, Threshold};
use super::reply::Reply;
use super::{RequestContext, Server, guarded, input_checks, serve, talk};
use crate::base::BoxFuture;
use crate::protocol::{
    CallToolParams, CallToolResponse, ClientCapabilities, Era, ErrorObject, JsonObject, ResultType,
    TaskStatus,
};
use crate::redact::Redacted;
use crate::tasks::{StoredTask, TaskConfig, new_task_id, now_ms};

use record::{Record, error_of, internal, store_error};
pub(crate) use record::{Tasks, missing_extension};

/// Whether a tool may run as a task (`#[tool(task = "optional")]`, `"required"`, or
/// [`AdvancedService::task_support`](crate::AdvancedService::task_support)).
///
/// A modern `tools/call` of a task-capable tool from a client whose request declares the
/// tasks extension becomes a task: the answer is a task handle (`resultType: "task"`)
/// and the tool runs in the background. A client that does not declare it gets the result
/// directly (`Optional`) or `-32021` naming the extension (`Required`). Legacy clients
/// (which cannot declare the extension) always get the result directly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never a task (the default).
    #[default]
    Forbidden,
    /// A task when the client declares the extension, else a plain call.
    Optional,
    /// Only as a task: modern clients that do not declare the extension get `-32021`.
    Required,
}

/// What a future running one round of a task produces.
type Outcome = talk::Outcome;

/// What a round's outcome makes of its task.
enum Next {
    Done(Box<RawValue>),
    Failed(ErrorObject),
    Input(JsonObject, Option<String>),
}

/// Polls `future` once, without a timer or a real waker: a future still pending is then
/// moved into a task of its own, whose first poll registers the task's waker.
fn poll_once<F: std::future::Future + Unpin>(future: &mut F) -> Option<F::Output> {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match std::pin::Pin::new(future).poll(&mut cx) {
        std::task::Poll::Ready(v) => Some(v),
        std::task::Poll::Pending => None,
    }
}

/// The reporter a task's rounds give [`Context::progress`](crate::Context::progress): a
/// task sends no notifications, so progress becomes its `statusMessage`.
#[derive(Clone)]
pub(crate) struct TaskReporter {
    server: Server,
    id: Arc<str>,
}

impl TaskReporter {
    /// Records `done` of `total` with `message` as the task's status message.
    pub(crate) async fn progress(&self, done: f64, total: Option<f64>, message: Option<&str>) {
        let text = match (message, total) {
            (Some(m), _) => m.to_owned(),
            (None, Some(t)) => format!("{done}/{t}"),
            (None, None) => format!("{done}"),
        };
        let tasks = self.server.tasks();
        let result = tasks
            .update(&self.id, |r| {
                if r.status != TaskStatus::Working || r.message.as_deref() == Some(&text) {
                    return false;
                }
                r.message = Some(text.clone());
                true
            })
            .await;
        if let Ok(Some((record, true))) = result {
            self.server.announce_task(&self.id, &record);
        }
    }
}

impl Server {
    pub(crate) fn tasks(&self) -> &Tasks {
        &self.inner.tasks
    }

    /// Whether this server serves the tasks extension.
    pub(crate) fn serves_tasks(&self) -> bool {
        self.inner.handler.serves_tasks()
    }

    /// The state and context of one round of task `id`: no channel back (a task sends no
    /// notifications), progress into the status message, `token` for cancellation;
    /// otherwise the request `cx` that started the round.
    fn task_context(
        &self,
        cx: &RequestContext,
        id: &str,
        token: CancellationToken,
    ) -> (Arc<CallState>, RequestContext) {
        let mut state = CallState::new(Era::Modern, None, Threshold::Off, token);
        state.client_sampling = cx.client_capabilities.sampling.is_some();
        state.timeout = self.config().input_round_timeout;
        state.notifier = Some(self.notifier());
        state.task = Some(TaskReporter {
            server: self.clone(),
            id: id.into(),
        });
        let state = Arc::new(state);
        let mut task_cx = cx.clone();
        task_cx.call = state.clone();
        task_cx.requester = None;
        (state, task_cx)
    }

    /// One round of a task's tool, settled as a modern call's round is.
    fn round(
        &self,
        mut params: CallToolParams,
        cx: RequestContext,
        call: Arc<CallState>,
    ) -> BoxFuture<'static, Outcome> {
        let server = self.clone();
        Box::pin(serve::scoped(call, async move {
            let state = params.request_state.clone();
            let outcome = guarded(server.inner.handler.call_tool(&mut params, &cx)).await;
            talk::settle_modern(&cx, outcome, state)
        }))
    }

    /// A modern `tools/call` of a task-capable tool from a client that declared the
    /// extension: creates the task, runs the tool for [`TaskConfig::sync_window`] here,
    /// and answers the task handle (or, for input the tool asks
    /// [`before_task`](crate::InputRequired::before_task), the `input_required` round).
    pub(crate) async fn call_as_task(
        &self,
        params: CallToolParams,
        cx: RequestContext,
        who: Option<String>,
        before_task: impl FnOnce(crate::protocol::InputRequiredResult) -> Reply,
    ) -> Reply {
        let tasks = self.tasks();
        let config = tasks.config;
        let id = new_task_id();
        let now = now_ms();
        let ttl = config
            .ttl
            .map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX));
        let record = Record {
            owner: who.clone().unwrap_or_default(),
            status: TaskStatus::Working,
            message: None,
            created: now,
            updated: now,
            ttl,
            poll: u64::try_from(config.poll_interval.as_millis())
                .unwrap_or(u64::MAX)
                .max(1),
            tool: params.name.clone(),
            arguments: params.arguments.clone(),
            meta: params.meta.clone(),
            pending: JsonObject::new(),
            keys: BTreeMap::new(),
            answers: JsonObject::new(),
            issued: BTreeSet::new(),
            rounds: 1,
            state: None,
            result: None,
            error: None,
            lease: Some((tasks.runner.clone(), now + lease_ms(&config))),
        };
        let data = match serde_json::to_string(&record) {
            Ok(d) => d,
            Err(e) => return Reply::in_band(internal(&e.to_string())),
        };
        let mut record = record;
        let max = if who.is_some() {
            config.max_active_per_caller
        } else {
            config.max_active_anonymous
        };
        let stored = StoredTask::new(
            id.clone(),
            who.unwrap_or_default(),
            1,
            true,
            ttl.map(|t| now.saturating_add(t)),
            data,
        );
        if let Err(e) = tasks.store.create(stored, max).await {
            return Reply::in_band(store_error(e));
        }
        let token = CancellationToken::new();
        let (call, task_cx) = self.task_context(&cx, &id, token.clone());
        let mut round = self.round(params, task_cx, call);
        let caps = cx.client_capabilities.clone();
        let early = if config.sync_window.is_zero() {
            // The tool runs until it first waits (no timer for a zero window).
            poll_once(&mut round)
        } else {
            tokio::time::timeout(config.sync_window, &mut round)
                .await
                .ok()
        };
        match early {
            Some(Ok(CallToolResponse::InputRequired(r))) if r.before_task => {
                // The handle was never sent: the record is closed and never shown.
                record.finish(TaskStatus::Cancelled, None);
                if !self.store_settled(&id, &record).await {
                    let closed = |r: &mut Record| {
                        r.finish(TaskStatus::Cancelled, None);
                        true
                    };
                    if let Err(e) = tasks.update(&id, closed).await {
                        tracing::error!(error = %e.message, "cannot close an unused task");
                    }
                }
                return before_task(r);
            }
            Some(outcome) => {
                // Nobody else knows the id yet: the round's end replaces version 1 as is,
                // unless the tool changed the task meanwhile (its progress message).
                let next = self.next_of(outcome, &caps);
                if Self::apply(&mut record, &next) {
                    record.updated = now_ms().max(record.updated);
                    if !self.store_settled(&id, &record).await {
                        match tasks.update(&id, |r| Self::apply(r, &next)).await {
                            Ok(Some((stored, _))) => record = stored,
                            Ok(None) => {}
                            Err(e) => {
                                tracing::error!(error = %e.message, "cannot record a task's first round")
                            }
                        }
                    }
                    self.announce_task(&id, &record);
                }
            }
            None => {
                tasks.running().insert(id.clone(), token.clone());
                self.spawn_round(id.clone(), round, token, caps);
            }
        }
        let mut task = record.to_task(&id, false);
        task.result_type = Some(ResultType::Task);
        task.meta = Some(self.stamp(None));
        Reply::result(&task)
    }

    /// Replaces version 1 of task `id`, created by this request and not yet shown to
    /// anyone, with `record`; `false` when version 1 is no longer the stored one (the
    /// tool's first round changed it: its progress).
    async fn store_settled(&self, id: &str, record: &Record) -> bool {
        let tasks = self.tasks();
        let data = match serde_json::to_string(record) {
            Ok(d) => d,
            Err(e) => {
                tracing::error!(error = %e, "cannot serialize a task");
                return true;
            }
        };
        let next = StoredTask::new(
            id,
            record.owner.clone(),
            2,
            !record.status.is_terminal(),
            None,
            data,
        );
        match tasks.store.replace(next, 1).await {
            Ok(replaced) => replaced,
            Err(e) => {
                tracing::error!(error = %e, "cannot record a task's first round");
                true
            }
        }
    }

    /// Runs the rest of a round in the background, renewing the lease while it runs and
    /// stopping it when the task is cancelled (here, or on another replica).
    fn spawn_round(
        &self,
        id: String,
        round: BoxFuture<'static, Outcome>,
        token: CancellationToken,
        caps: Arc<ClientCapabilities>,
    ) {
        let server = self.clone();
        tokio::spawn(async move {
            let every = Duration::from_millis((lease_ms(&server.tasks().config) / 3).max(1));
            let renew = async {
                loop {
                    tokio::time::sleep(every).await;
                    if !server.renew(&id).await {
                        return;
                    }
                }
            };
            // A cancelled task's round is dropped (as a cancelled request's handler is):
            // work the tool spawned sees `Context::cancelled`.
            tokio::select! {
                outcome = round => server.settle_round(&id, outcome, &caps).await,
                () = token.cancelled() => {
                    tracing::info!(task = %Redacted::fingerprint(&id), "stopped the round of a cancelled task");
                }
                () = renew => {
                    token.cancel();
                    tracing::info!(task = %Redacted::fingerprint(&id), "stopped the round of a task cancelled or taken over elsewhere");
                }
            }
            server.tasks().running().remove(&id);
        });
    }

    /// Extends this replica's claim on running task `id`; `false` when the task is no
    /// longer running here (cancelled, gone, or claimed by another replica).
    async fn renew(&self, id: &str) -> bool {
        let tasks = self.tasks();
        let until = now_ms() + lease_ms(&tasks.config);
        let runner = tasks.runner.clone();
        match tasks
            .update(id, |r| {
                let ours = r.status == TaskStatus::Working
                    && r.lease.as_ref().is_some_and(|(who, _)| *who == runner);
                if ours {
                    r.lease = Some((runner.clone(), until));
                }
                ours
            })
            .await
        {
            Ok(Some((_, renewed))) => renewed,
            Ok(None) => false,
            // The store is unreachable: keep running, try again at the next tick.
            Err(_) => true,
        }
    }

    /// What a round's outcome makes of its task.
    fn next_of(&self, outcome: Outcome, caps: &ClientCapabilities) -> Next {
        let max = self.tasks().config.max_result_bytes;
        match outcome {
            Ok(CallToolResponse::Complete(mut result)) => {
                result.result_type = None;
                match serde_json::value::to_raw_value(&result) {
                    Ok(raw) if raw.get().len() > max => Next::Failed(internal(&format!(
                        "The tool's result is {} bytes, more than the {max} bytes a task keeps",
                        raw.get().len()
                    ))),
                    Ok(raw) => Next::Done(raw),
                    Err(_) => Next::Failed(internal("Internal error")),
                }
            }
            Ok(CallToolResponse::InputRequired(mut r)) => {
                match input_checks::check(&mut r, Some(caps)) {
                    Ok(()) => Next::Input(r.input_requests.unwrap_or_default(), r.request_state),
                    Err(refusal) => {
                        tracing::error!(?refusal, "refusing a task's input-required round");
                        Next::Failed(refusal.to_error())
                    }
                }
            }
            Err(reply) => Next::Failed(error_of(reply)),
        }
    }

    /// Applies `next` to `record`; `false` when the task reached a terminal status first
    /// (cancelled): it keeps it.
    fn apply(record: &mut Record, next: &Next) -> bool {
        let r = record;
        if r.status.is_terminal() {
            return false;
        }
        match next {
            Next::Done(result) => {
                r.finish(TaskStatus::Completed, None);
                r.result = Some(result.clone());
            }
            Next::Failed(error) => {
                r.finish(TaskStatus::Failed, Some(error.message.clone()));
                r.error = Some(error.clone());
            }
            Next::Input(requests, state) => {
                r.status = TaskStatus::InputRequired;
                r.message = None;
                r.lease = None;
                r.answers.clear();
                r.pending.clear();
                r.keys.clear();
                r.state = state.clone();
                for (key, request) in requests {
                    let mut wire = key.clone();
                    let mut n = r.rounds;
                    while r.issued.contains(&wire) {
                        wire = format!("{key}~{n}");
                        n += 1;
                    }
                    r.issued.insert(wire.clone());
                    r.keys.insert(wire.clone(), key.clone());
                    r.pending.insert(wire, request.clone());
                }
            }
        }
        true
    }

    /// Records how a round ended: the result, the failure, or the next input requests.
    /// A task that reached a terminal status meanwhile (cancelled) keeps it.
    async fn settle_round(&self, id: &str, outcome: Outcome, caps: &ClientCapabilities) {
        let next = self.next_of(outcome, caps);
        let result = self.tasks().update(id, |r| Self::apply(r, &next)).await;
        match result {
            Ok(Some((record, true))) => self.announce_task(id, &record),
            Ok(_) => {}
            Err(e) => tracing::error!(error = %e.message, "cannot record a task's round"),
        }
    }

    /// Tells `notifications/tasks` listeners of task `id` its new state.
    fn announce_task(&self, id: &str, record: &Record) {
        self.hub()
            .announce_task(id, &record.owner, || record.detailed(id));
    }
}

fn lease_ms(config: &TaskConfig) -> u64 {
    u64::try_from(config.lease.as_millis())
        .unwrap_or(u64::MAX)
        .max(3)
}
