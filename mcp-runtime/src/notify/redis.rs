//! The Redis event bus: Redis pub/sub on one channel (`mcp:events` by default).
//!
//! Pub/sub, not streams: the bus carries live traffic only (change notifications for open
//! listeners, messages for open GET streams, answers to calls that wait right now), which
//! is worthless once its listener is gone, so nothing needs storing, trimming or
//! acknowledging. While a replica is disconnected from Redis, messages published by the
//! others do not reach it: when its subscription is back, the replica tells every client
//! that every list (and every subscribed resource) may have changed, so clients re-read
//! what they could have missed; its own changes still reach its own clients at once, and
//! their publication to the others is logged as lost.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};
use futures_util::StreamExt as _;

use super::{BusError, BusMessage, Deliver, EventBus};
use crate::base::BoxFuture;

/// The default pub/sub channel.
const DEFAULT_CHANNEL: &str = "mcp:events";

/// An [`EventBus`] on Redis pub/sub, shared by every replica connected to the same Redis
/// and channel. Cheap to clone; the subscription ends when the last clone is dropped.
#[derive(Clone)]
pub struct RedisBus {
    inner: Arc<Inner>,
}

struct Inner {
    conn: ConnectionManager,
    channel: String,
    subscribers: Arc<Mutex<Vec<Deliver>>>,
    task: tokio::task::AbortHandle,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl std::fmt::Debug for RedisBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBus")
            .field("channel", &self.inner.channel)
            .finish_non_exhaustive()
    }
}

impl RedisBus {
    /// Connects to the Redis at `url` and subscribes to the channel `mcp:events`.
    pub async fn connect(url: &str) -> Result<Self, BusError> {
        Self::connect_to_channel(url, DEFAULT_CHANNEL).await
    }

    /// Connects to the Redis at `url` and subscribes to `channel` (replicas of one server
    /// use the same channel; other servers on the same Redis use their own).
    pub async fn connect_to_channel(url: &str, channel: &str) -> Result<Self, BusError> {
        let shown = crate::session::redis_shown_url(url);
        let unavailable = |what: &str, e: ::redis::RedisError| {
            let text = crate::session::redis_error_text(e, url);
            BusError::Unavailable(format!("{what} {shown}: {text}"))
        };
        let client = ::redis::Client::open(url).map_err(|e| unavailable("invalid Redis URL", e))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(5)))
            .set_response_timeout(Some(Duration::from_secs(5)))
            .set_number_of_retries(1);
        let conn = ConnectionManager::new_with_config(client.clone(), config)
            .await
            .map_err(|e| unavailable("cannot connect to Redis at", e))?;
        let mut pubsub = client
            .get_async_pubsub()
            .await
            .map_err(|e| unavailable("cannot subscribe at", e))?;
        pubsub
            .subscribe(channel)
            .await
            .map_err(|e| unavailable("cannot subscribe at", e))?;
        let subscribers: Arc<Mutex<Vec<Deliver>>> = Arc::default();
        let task = tokio::spawn(run(client, channel.to_owned(), pubsub, subscribers.clone()));
        Ok(Self {
            inner: Arc::new(Inner {
                conn,
                channel: channel.to_owned(),
                subscribers,
                task: task.abort_handle(),
            }),
        })
    }
}

fn deliver_all(subscribers: &Mutex<Vec<Deliver>>, message: &BusMessage) {
    let subscribers = subscribers
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    for deliver in subscribers {
        deliver(message.clone());
    }
}

/// Reads the subscription; when it breaks, resubscribes (backing off up to 2 s) and
/// delivers a resync.
async fn run(
    client: ::redis::Client,
    channel: String,
    mut pubsub: ::redis::aio::PubSub,
    subscribers: Arc<Mutex<Vec<Deliver>>>,
) {
    loop {
        {
            let mut messages = pubsub.on_message();
            while let Some(msg) = messages.next().await {
                let text: String = match msg.get_payload() {
                    Ok(t) => t,
                    Err(e) => {
                        tracing::warn!(error = %e, "ignoring a non-text event bus message");
                        continue;
                    }
                };
                match BusMessage::from_json(&text) {
                    Ok(message) => deliver_all(&subscribers, &message),
                    Err(e) => tracing::warn!(error = %e, "ignoring an event bus message"),
                }
            }
        }
        tracing::warn!("lost the Redis event bus subscription; reconnecting");
        let mut backoff = Duration::from_millis(50);
        pubsub = loop {
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(2));
            let Ok(mut p) = client.get_async_pubsub().await else {
                continue;
            };
            if p.subscribe(&channel).await.is_ok() {
                break p;
            }
        };
        tracing::info!("the Redis event bus subscription is back");
        deliver_all(&subscribers, &BusMessage::resync());
    }
}

impl EventBus for RedisBus {
    fn publish(&self, message: BusMessage) -> BoxFuture<'_, Result<(), BusError>> {
        Box::pin(async move {
            let mut conn = self.inner.conn.clone();
            ::redis::cmd("PUBLISH")
                .arg(&self.inner.channel)
                .arg(message.to_json())
                .query_async::<i64>(&mut conn)
                .await
                .map(drop)
                .map_err(|e| {
                    BusError::Unavailable(format!("Redis PUBLISH failed: {}", e.category()))
                })
        })
    }

    fn subscribe(&self, deliver: Deliver) {
        self.inner
            .subscribers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(deliver);
    }
}
