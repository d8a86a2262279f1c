//! [`RedisTaskStore`] against a real Redis (`MCP_TEST_REDIS_URL`, default
//! `redis://127.0.0.1:6379`; `scripts/test.sh` starts a throwaway one). Never skips.
//!
//! The store contract, then two servers sharing one Redis (replicas in one process): a task
//! created through one is read, answered and cancelled through the other, the per-caller
//! limit holds across them, and the keys a finished task leaves expire with it.

#![allow(missing_docs)]

use std::sync::Arc;
use std::time::Duration;

use mcp::client::{Client, ClientConfig, ProtocolMode, TaskCall};
use mcp::protocol::TaskStatus;
use mcp::tasks::{RedisTaskStore, TaskConfig};
use mcp::{Context, ElicitRequest, ElicitResult, InputRequired, ToolOutput};
use serde::Deserialize;
use serde_json::json;

mod test_redis;

use test_redis::{connect, redis_url, unique_prefix};

#[derive(Deserialize, schemars::JsonSchema, mcp::Form)]
pub struct Go {
    pub ok: bool,
}

pub struct Replica(&'static str);

#[mcp::service(name = "replica", version = "1.0.0")]
impl Replica {
    /// Asks, then works.
    #[tool(task = "optional")]
    pub async fn job(&self, ctx: Context, millis: u64) -> ToolOutput<String> {
        if ctx.accepted_content::<Go>("go").is_none() {
            return InputRequired::new()
                .elicit("go", mcp::elicit_form("Go?", mcp::form_of::<Go>()))
                .into();
        }
        tokio::time::sleep(Duration::from_millis(millis)).await;
        ToolOutput::Done(format!("done on {}", self.0))
    }
}

async fn store(prefix: &str) -> RedisTaskStore {
    RedisTaskStore::from_manager(connect(prefix).await.connection()).with_prefix(prefix)
}

async fn client_of(server: mcp::Server) -> Client {
    let config = ClientConfig::new()
        .protocol_mode(ProtocolMode::Modern)
        .elicitation_handler(|_: ElicitRequest| async {
            Ok(ElicitResult::accept(
                json!({"ok": true}).as_object().cloned().unwrap(),
            ))
        });
    let client = Client::in_process(server.in_process(), config).unwrap();
    client
        .connect(mcp::client::ConnectOptions::default())
        .await
        .unwrap();
    client
}

#[tokio::test]
async fn redis_task_store_keeps_the_contract() {
    let prefix = unique_prefix("tasks-contract");
    mcp::tasks::contract::check(Arc::new(store(&prefix).await), &prefix).await;
}

#[tokio::test]
async fn replicas_share_tasks_through_redis() {
    let prefix = unique_prefix("tasks-replicas");
    let config = TaskConfig::default()
        .with_poll_interval(Duration::from_millis(20))
        .with_max_active_anonymous(3);
    let replica = |name| {
        let prefix = prefix.clone();
        async move {
            mcp::Server::builder(Replica(name))
                .tasks(config)
                .task_store(store(&prefix).await)
                .build()
                .unwrap()
        }
    };
    let a = client_of(replica("a").await).await;
    let b = client_of(replica("b").await).await;

    let TaskCall::Task(created) = a
        .call("job")
        .arguments(json!({"millis": 50}))
        .unwrap()
        .as_task()
        .await
        .unwrap()
    else {
        panic!("a direct result");
    };
    let mut on_b = b.task(created.id()).await.expect("b reads a's task");
    while on_b.status() != TaskStatus::InputRequired {
        tokio::time::sleep(Duration::from_millis(10)).await;
        on_b.refresh().await.unwrap();
    }
    // b answers with its handler: the work then runs on b.
    assert_eq!(on_b.wait().await.unwrap().joined_text(), "done on b");
    assert_eq!(
        a.get_task(created.id()).await.unwrap().status,
        TaskStatus::Completed
    );

    // The anonymous limit (3 active tasks) holds across both replicas.
    let start = |c: &Client| {
        c.call("job")
            .arguments(json!({"millis": 10}))
            .unwrap()
            .as_task()
    };
    let mut held = Vec::new();
    for c in [&a, &b, &a] {
        let TaskCall::Task(t) = start(c).await.unwrap() else {
            panic!()
        };
        held.push(t);
    }
    let refused = start(&b).await.unwrap_err();
    assert_eq!(
        refused.code(),
        Some(mcp::protocol::ErrorCode::OVERLOADED),
        "{refused}"
    );
    // Cancelled through the other replica, they free their places.
    for t in &held {
        b.cancel_task(t.id()).await.unwrap();
        assert_eq!(
            a.get_task(t.id()).await.unwrap().status,
            TaskStatus::Cancelled
        );
    }
    let TaskCall::Task(_) = start(&b).await.unwrap() else {
        panic!()
    };

    // Every task key expires (the TTL of the task).
    let client = redis::Client::open(redis_url()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}:task:*"))
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(!keys.is_empty());
    for key in keys {
        let ttl: i64 = redis::cmd("PTTL")
            .arg(&key)
            .query_async(&mut conn)
            .await
            .unwrap();
        assert!(ttl > 0 && ttl <= 3_600_000, "{key}: {ttl}");
    }
}
