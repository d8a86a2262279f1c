//! The contract every [`TaskStore`] keeps, as one async check a store's tests run
//! ([`MemoryTaskStore`](super::MemoryTaskStore) in its unit tests, `RedisTaskStore` against
//! a real Redis): read-your-write creation, compare-and-set replacement that keeps the
//! expiry, the per-owner limit of active tasks (finished and expired tasks do not count),
//! expiry, and concurrent updates that lose nothing.

use std::sync::Arc;
use std::time::Duration;

use super::{StoredTask, TaskStore, TaskStoreError, now_ms};

/// Runs the contract against `store`; task ids and owners start with `tag`, so several
/// runs can share one backend. Panics on the first broken rule.
pub async fn check<S: TaskStore>(store: Arc<S>, tag: &str) {
    let id = |n: &str| format!("{tag}-{n}");
    let far = Some(now_ms() + 3_600_000);

    // Created, then read back as stored.
    let first = StoredTask::new(
        id("one"),
        format!("{tag}-alice"),
        1,
        true,
        far,
        r#"{"n":0}"#,
    );
    store.create(first.clone(), 10).await.expect("creates");
    let read = store
        .load(&first.id)
        .await
        .unwrap()
        .expect("reads its write");
    assert_eq!(read, first);
    assert!(store.load(&id("none")).await.unwrap().is_none());

    // Compare-and-set: only from the stored version; the expiry stays.
    let mut next = StoredTask::new(
        first.id.clone(),
        first.owner.clone(),
        2,
        true,
        None,
        r#"{"n":1}"#,
    );
    assert!(
        !store.replace(next.clone(), 7).await.unwrap(),
        "a stale version"
    );
    assert!(store.replace(next.clone(), 1).await.unwrap());
    next.expires_at_ms = far;
    assert_eq!(store.load(&first.id).await.unwrap().unwrap(), next);
    let ghost = StoredTask::new(id("ghost"), "x", 2, true, None, "{}");
    assert!(!store.replace(ghost, 1).await.unwrap(), "no such task");

    // The owner limit: active tasks only.
    let owner = format!("{tag}-bob");
    for n in 0..3 {
        let t = StoredTask::new(id(&format!("bob{n}")), owner.clone(), 1, true, far, "{}");
        store.create(t, 3).await.expect("under the limit");
    }
    let over = StoredTask::new(id("bob3"), owner.clone(), 1, true, far, "{}");
    assert!(matches!(
        store.create(over.clone(), 3).await,
        Err(TaskStoreError::OwnerLimit { limit: 3 })
    ));
    let done = StoredTask::new(
        id("bob0"),
        owner.clone(),
        2,
        false,
        None,
        r#"{"done":true}"#,
    );
    assert!(store.replace(done, 1).await.unwrap());
    store
        .create(over, 3)
        .await
        .expect("a finished task frees its place");

    // Expiry: gone once expired, and no longer counted.
    let carol = format!("{tag}-carol");
    let soon = StoredTask::new(
        id("soon"),
        carol.clone(),
        1,
        true,
        Some(now_ms() + 300),
        "{}",
    );
    store.create(soon.clone(), 1).await.unwrap();
    assert!(store.load(&soon.id).await.unwrap().is_some());
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(store.load(&soon.id).await.unwrap().is_none(), "expired");
    let after = StoredTask::new(id("after"), carol, 1, true, far, "{}");
    store
        .create(after, 1)
        .await
        .expect("an expired task is not counted");

    // Concurrent compare-and-set updates lose nothing: 8 writers × 10 increments.
    let counter = StoredTask::new(id("counter"), format!("{tag}-dave"), 1, true, far, "0");
    store.create(counter.clone(), 10).await.unwrap();
    let mut writers = Vec::new();
    for _ in 0..8 {
        let store = store.clone();
        let key = counter.id.clone();
        writers.push(tokio::spawn(async move {
            let mut done = 0;
            while done < 10 {
                let t = store.load(&key).await.unwrap().unwrap();
                let n: u64 = t.data.parse().unwrap();
                let mut next = t.clone();
                next.version += 1;
                next.data = (n + 1).to_string();
                if store.replace(next, t.version).await.unwrap() {
                    done += 1;
                }
            }
        }));
    }
    for w in writers {
        w.await.unwrap();
    }
    let end = store.load(&counter.id).await.unwrap().unwrap();
    assert_eq!(end.data, "80", "no update lost");
    assert_eq!(end.version, 81);
}
