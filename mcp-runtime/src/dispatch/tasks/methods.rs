//! `tasks/get`, `tasks/update` and `tasks/cancel`: one store read serves the owner check and
//! the operation.

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::lease_ms;
use super::record::{Record, internal, missing_extension, not_found};
use crate::dispatch::reply::{Reply, method_not_found};
use crate::dispatch::{RequestContext, Server};
use crate::protocol::{
    CallToolParams, ErrorCode, ErrorObject, JsonObject, ResultType, TASKS_CANCEL, TASKS_EXTENSION,
    TASKS_GET, TASKS_UPDATE, TaskStatus, declares_tasks,
};
use crate::tasks::{StoredTask, now_ms};

impl Server {
    /// `tasks/get`, `tasks/update`, `tasks/cancel` (modern requests).
    pub(crate) async fn task_method(
        &self,
        method: &str,
        params: Option<JsonObject>,
        cx: RequestContext,
    ) -> Reply {
        if !self.serves_tasks() {
            return method_not_found(http::StatusCode::NOT_FOUND);
        }
        if !declares_tasks(&cx.client_capabilities) {
            return Reply::in_band(missing_extension(format!(
                "{method} needs the {TASKS_EXTENSION} extension: declare it in the request's client capabilities"
            )));
        }
        let mut params = params.unwrap_or_default();
        let Some(Value::String(id)) = params.remove("taskId") else {
            return Reply::in_band(ErrorObject::new(
                ErrorCode::INVALID_PARAMS,
                "Invalid params: taskId must be a string",
            ));
        };
        let who = crate::dispatch::caller(&cx).unwrap_or_default();
        // One read serves the owner check and the operation (one store round trip).
        let read = match self.tasks().load(&id).await {
            Ok(Some((stored, record))) if stored.owner == who => (stored, record),
            Ok(_) => return not_found(),
            Err(e) => return Reply::in_band(e),
        };
        match method {
            TASKS_GET => self.get_task(&id, read).await,
            TASKS_UPDATE => self.update_task(&id, read, params, cx).await,
            TASKS_CANCEL => self.cancel_task(&id, read).await,
            _ => method_not_found(http::StatusCode::NOT_FOUND),
        }
    }

    async fn get_task(&self, id: &str, read: (StoredTask, Record)) -> Reply {
        let tasks = self.tasks();
        let now = now_ms();
        // A working task whose replica stopped renewing its claim will not finish.
        let result = tasks
            .update_from(id, Some(read), |r| {
                let lapsed = r.status == TaskStatus::Working
                    && r.lease.as_ref().is_some_and(|(_, until)| *until < now);
                if lapsed {
                    let error = internal(
                        "The server running this task stopped before it finished (its lease expired)",
                    );
                    r.finish(TaskStatus::Failed, Some(error.message.clone()));
                    r.error = Some(error);
                }
                lapsed
            })
            .await;
        match result {
            Ok(Some((record, changed))) => {
                if changed {
                    self.announce_task(id, &record);
                }
                let mut task = record.to_task(id, true);
                task.result_type = Some(ResultType::Complete);
                Reply::result(&task)
            }
            Ok(None) => not_found(),
            Err(e) => Reply::in_band(e),
        }
    }

    async fn update_task(
        &self,
        id: &str,
        read: (StoredTask, Record),
        mut params: JsonObject,
        cx: RequestContext,
    ) -> Reply {
        let responses = match params.remove("inputResponses") {
            Some(Value::Object(o)) => o,
            _ => {
                return Reply::in_band(ErrorObject::new(
                    ErrorCode::INVALID_PARAMS,
                    "Invalid params: inputResponses must be an object",
                ));
            }
        };
        if let Some((key, _)) = responses.iter().find(|(_, v)| !v.is_object()) {
            return Reply::in_band(ErrorObject::new(
                ErrorCode::INVALID_PARAMS,
                format!("Invalid params: the answer to input request `{key}` must be an object"),
            ));
        }
        let tasks = self.tasks();
        let runner = tasks.runner.clone();
        let lease = lease_ms(&tasks.config);
        let result = tasks
            .update_from(id, Some(read), |r| {
                if r.status != TaskStatus::InputRequired {
                    return false;
                }
                let mut changed = false;
                for (wire, answer) in &responses {
                    if let Some(key) = r.keys.remove(wire) {
                        r.pending.remove(wire);
                        r.answers.insert(key, answer.clone());
                        changed = true;
                    }
                }
                if changed && r.pending.is_empty() {
                    r.status = TaskStatus::Working;
                    r.rounds += 1;
                    r.lease = Some((runner.clone(), now_ms() + lease));
                }
                changed
            })
            .await;
        let record = match result {
            Ok(Some((record, true))) => record,
            Ok(Some((_, false))) => return ack(),
            Ok(None) => return not_found(),
            Err(e) => return Reply::in_band(e),
        };
        self.announce_task(id, &record);
        if record.status == TaskStatus::Working {
            let params = CallToolParams {
                name: record.tool.clone(),
                arguments: record.arguments.clone(),
                input_responses: Some(record.answers.clone()),
                request_state: record.state.clone(),
                meta: record.meta.clone(),
            };
            let token = CancellationToken::new();
            tasks.running().insert(id.to_owned(), token.clone());
            let cx = cx.with_meta(record.meta.clone());
            let (call, task_cx) = self.task_context(&cx, id, token.clone());
            let round = self.round(params, task_cx, call);
            self.spawn_round(id.to_owned(), round, token, cx.client_capabilities.clone());
        }
        ack()
    }

    async fn cancel_task(&self, id: &str, read: (StoredTask, Record)) -> Reply {
        let result = self
            .tasks()
            .update_from(id, Some(read), |r| {
                if r.status.is_terminal() {
                    return false;
                }
                r.finish(
                    TaskStatus::Cancelled,
                    Some("The task was cancelled at the client's request".into()),
                );
                true
            })
            .await;
        match result {
            Ok(Some((record, changed))) => {
                if changed {
                    if let Some(token) = self.tasks().running().remove(id) {
                        token.cancel();
                    }
                    self.announce_task(id, &record);
                }
                ack()
            }
            Ok(None) => not_found(),
            Err(e) => Reply::in_band(e),
        }
    }
}

/// The empty acknowledgement of `tasks/update` and `tasks/cancel`.
fn ack() -> Reply {
    Reply::result(&json!({"resultType": "complete"}))
}
