//! The behaviour every [`SessionStore`] must have, as assertions a store's own tests call:
//! least-recently-used eviction per pool (floods of anonymous sessions never evict an
//! identified caller's), owner checks, values, atomic `update` across connections, updates
//! that leave a value they cannot change untouched, and idle expiry. `MemoryStore` and `RedisStore` run it; run it against your own store too.
//!
//! Each function panics (with the failing expectation) when the store misbehaves; give each
//! a store with no sessions.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use std::sync::Arc;
//! use mcp::session::{MemoryStore, contract};
//!
//! contract::foreign_owners_see_nothing(&MemoryStore::new()).await;
//! // Handles of one store, as several servers hold (an `Arc`, or a `DynSessionStore`).
//! let store = Arc::new(MemoryStore::new());
//! contract::update_is_atomic(&[store.clone(), store]).await;
//! # }
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Value, json};

use super::streams::Streams;
use super::{
    DynSessionStore, Owner, Session, SessionError, SessionInfo, SessionLimits, SessionStore, Update,
};

/// The session information the contract creates sessions with.
pub fn info() -> SessionInfo {
    SessionInfo {
        protocol_version: "2025-11-25".into(),
        client_capabilities: json!({"elicitation": {}}),
    }
}

/// Limits with a one-minute idle timeout.
pub fn limits(max_per_owner: usize, max_anonymous: usize) -> SessionLimits {
    SessionLimits {
        idle_timeout: Duration::from_secs(60),
        max_per_owner,
        max_anonymous,
    }
}

async fn is_open(store: &impl SessionStore, id: &str, owner: &Owner, l: &SessionLimits) -> bool {
    store.open(id, owner, l).await.expect("open").is_some()
}

/// Per pool, `create` evicts the least recently used session while the pool is full; the
/// anonymous pool and an identified owner's pool never evict each other; `open` returns what
/// `create` stored.
pub async fn evicts_the_least_recently_used_of_the_same_pool(store: &impl SessionStore) {
    let l = limits(2, 3);
    let alice = Owner::Caller("alice".into());
    let a1 = store.create(&alice, info(), &l).await.expect("create").id;
    let a2 = store.create(&alice, info(), &l).await.expect("create").id;
    // Touch a1 so a2 is the least recently used.
    assert!(is_open(store, &a1, &alice, &l).await);
    // A flood of anonymous sessions never evicts alice's.
    let mut anon = Vec::new();
    for _ in 0..10 {
        anon.push(
            store
                .create(&Owner::Anonymous, info(), &l)
                .await
                .expect("create"),
        );
    }
    assert!(is_open(store, &a1, &alice, &l).await);
    assert!(is_open(store, &a2, &alice, &l).await);
    for (i, created) in anon.iter().enumerate() {
        let expected: Vec<String> = if i >= 3 {
            vec![anon[i - 3].id.clone()]
        } else {
            vec![]
        };
        assert_eq!(created.evicted, expected, "anonymous session {i}");
    }
    for gone in &anon[..7] {
        assert!(!is_open(store, &gone.id, &Owner::Anonymous, &l).await);
    }
    // Touch a1 again, then a third alice session evicts a2 (least recently used).
    assert!(is_open(store, &a1, &alice, &l).await);
    let a3 = store.create(&alice, info(), &l).await.expect("create");
    assert_eq!(a3.evicted, vec![a2.clone()]);
    assert!(!is_open(store, &a2, &alice, &l).await);
    assert_eq!(store.len().await.expect("len"), 2 + 3);
    assert_eq!(
        store.open(&a3.id, &alice, &l).await.expect("open"),
        Some(info())
    );
}

/// Another owner (or the anonymous pool) can neither open nor delete a session.
pub async fn foreign_owners_see_nothing(store: &impl SessionStore) {
    let l = limits(5, 5);
    let alice = Owner::Caller("alice".into());
    let bob = Owner::Caller("bob".into());
    let a = store.create(&alice, info(), &l).await.expect("create").id;
    assert!(!is_open(store, &a, &bob, &l).await);
    assert!(!is_open(store, &a, &Owner::Anonymous, &l).await);
    assert!(!store.delete(&a, &bob).await.expect("delete"));
    assert!(!store.delete(&a, &Owner::Anonymous).await.expect("delete"));
    assert!(is_open(store, &a, &alice, &l).await);
    assert!(store.delete(&a, &alice).await.expect("delete"));
    assert!(!is_open(store, &a, &alice, &l).await);
    assert!(!store.delete(&a, &alice).await.expect("delete"));
    assert_eq!(store.len().await.expect("len"), 0);
}

/// Identities that differ in any part never share a session or a per-owner pool, whatever
/// characters their parts hold: subjects `ab` and `a\u{1f}b`, parts shifted across the old
/// separator, an empty part against a missing one, a Basic user against a token.
pub async fn identities_never_collide(store: &impl SessionStore) {
    let l = limits(1, 5);
    let owners = colliding_identities();
    let mut ids = Vec::new();
    for owner in &owners {
        let created = store.create(owner, info(), &l).await.expect("create");
        // One session per owner: another owner's session is never evicted for it.
        assert!(
            created.evicted.is_empty(),
            "{owner:?} evicted {:?}",
            created.evicted
        );
        ids.push(created.id);
    }
    for (i, id) in ids.iter().enumerate() {
        for (j, owner) in owners.iter().enumerate() {
            assert_eq!(
                is_open(store, id, owner, &l).await,
                i == j,
                "session of {:?} opened by {owner:?}",
                owners[i]
            );
        }
    }
    assert_eq!(store.len().await.expect("len"), owners.len());
    for (id, owner) in ids.iter().zip(&owners) {
        assert!(store.delete(id, owner).await.expect("delete"));
    }
}

/// Pairwise different identities whose keys collided when the parts were joined with a
/// separator (and the separator dropped from the parts).
pub fn colliding_identities() -> Vec<Owner> {
    vec![
        Owner::token("https://as", "app", "ab"),
        Owner::token("https://as", "app", "a\u{1f}b"),
        Owner::token("https://as", "app\u{1f}", "ab"),
        Owner::token("https://as", "app", "\u{1f}ab"),
        Owner::token("https://as\u{1f}app", "", "ab"),
        Owner::token("https://as", "", "app\u{1f}ab"),
        Owner::token("https://as", "app", ""),
        Owner::token("https://as", "", "app"),
        Owner::token("", "", ""),
        Owner::token("basic", "", "alice"),
        Owner::token("", "basic", "alice"),
        Owner::user("alice"),
        Owner::user("basic\u{1f}alice"),
        Owner::user("[\"basic\",\"alice\"]"),
        Owner::Caller("https://as\u{1f}app\u{1f}ab".into()),
    ]
}

/// get / set / remove / keys (sorted), `update` returning `None` removes, and the values of
/// an unknown session are errors.
pub async fn values_get_set_remove_and_keys(store: &impl SessionStore) {
    let l = limits(5, 5);
    let id = store
        .create(&Owner::Anonymous, info(), &l)
        .await
        .expect("create")
        .id;
    assert_eq!(store.get(&id, "cart").await.expect("get"), None);
    assert!(store.keys(&id).await.expect("keys").is_empty());
    store.set(&id, "cart", json!(["apple"])).await.expect("set");
    store.set(&id, "a:b", json!({"x": 1})).await.expect("set");
    assert_eq!(
        store.get(&id, "cart").await.expect("get"),
        Some(json!(["apple"]))
    );
    assert_eq!(store.keys(&id).await.expect("keys"), vec!["a:b", "cart"]);
    assert_eq!(
        store.remove(&id, "cart").await.expect("remove"),
        Some(json!(["apple"]))
    );
    assert_eq!(store.remove(&id, "cart").await.expect("remove"), None);
    assert_eq!(store.keys(&id).await.expect("keys"), vec!["a:b"]);
    let remove = |_: Option<Value>| Update::Remove;
    assert_eq!(
        store.update(&id, "a:b", &remove).await.expect("update"),
        None
    );
    assert!(store.keys(&id).await.expect("keys").is_empty());
    store.delete(&id, &Owner::Anonymous).await.expect("delete");
    assert!(store.get(&id, "cart").await.is_err());
    assert!(store.set(&id, "cart", json!(1)).await.is_err());
    assert!(store.remove(&id, "cart").await.is_err());
    assert!(store.keys(&id).await.is_err());
    let one = |_: Option<Value>| Update::Set(json!(1));
    assert!(store.update(&id, "n", &one).await.is_err());
}

/// 8 tasks, spread over `stores` (handles of one shared store, as several servers hold),
/// each increment one value 100 times through `update`: no increment is lost.
pub async fn update_is_atomic<S: SessionStore + Clone>(stores: &[S]) {
    assert!(!stores.is_empty(), "give at least one store");
    let l = limits(10, 10);
    let id = stores[0]
        .create(&Owner::Anonymous, info(), &l)
        .await
        .expect("create")
        .id;
    let runs = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for t in 0..8 {
        let (store, id, runs) = (stores[t % stores.len()].clone(), id.clone(), runs.clone());
        tasks.push(tokio::spawn(async move {
            for _ in 0..100 {
                let inc = |v: Option<Value>| {
                    runs.fetch_add(1, Ordering::Relaxed);
                    Update::Set(Value::from(v.and_then(|v| v.as_i64()).unwrap_or(0) + 1))
                };
                store.update(&id, "n", &inc).await.expect("update");
            }
        }));
    }
    for t in tasks {
        t.await.expect("an update task panicked");
    }
    let last = stores.last().map_or(&stores[0], |s| s);
    assert_eq!(
        last.get(&id, "n").await.expect("get"),
        Some(Value::from(800))
    );
    assert!(runs.load(Ordering::Relaxed) >= 800);
}

/// With idle timeout `idle`: opening renews the timer, an idle session expires (its values
/// with it), and expired sessions neither count against the limit nor show up as evicted.
/// Takes about 1.2 × `idle`.
pub async fn idle_sessions_expire(store: &impl SessionStore, idle: Duration) {
    let l = SessionLimits {
        idle_timeout: idle,
        ..limits(10, 3)
    };
    let kept = store
        .create(&Owner::Anonymous, info(), &l)
        .await
        .expect("create")
        .id;
    let dropped = store
        .create(&Owner::Anonymous, info(), &l)
        .await
        .expect("create")
        .id;
    store.set(&dropped, "n", json!(1)).await.expect("set");
    tokio::time::sleep(idle.mul_f64(0.6)).await;
    assert!(
        is_open(store, &kept, &Owner::Anonymous, &l).await,
        "opening renews the idle timer"
    );
    tokio::time::sleep(idle.mul_f64(0.6)).await;
    assert!(
        !is_open(store, &dropped, &Owner::Anonymous, &l).await,
        "an idle session expires"
    );
    assert!(store.get(&dropped, "n").await.is_err());
    assert_eq!(store.len().await.expect("len"), 1);
    let a = store
        .create(&Owner::Anonymous, info(), &l)
        .await
        .expect("create");
    let b = store
        .create(&Owner::Anonymous, info(), &l)
        .await
        .expect("create");
    assert!(a.evicted.is_empty() && b.evicted.is_empty(), "{a:?} {b:?}");
    let c = store
        .create(&Owner::Anonymous, info(), &l)
        .await
        .expect("create");
    assert_eq!(c.evicted, vec![kept]);
}

/// A list that refuses to be serialized once it holds `poison`.
#[derive(Debug, Deserialize)]
struct Picky(Vec<String>);

impl Serialize for Picky {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0.iter().any(|item| item == "poison") {
            return Err(serde::ser::Error::custom("poison cannot be stored"));
        }
        self.0.serialize(serializer)
    }
}

/// `update` never loses data, through the store and through [`Session`]:
///
/// - [`Update::Keep`] writes nothing and returns the stored value; [`Update::Remove`]
///   removes it;
/// - a stored value of another shape than the type asked for is
///   [`SessionError::WrongShape`] (from `get`, `update` and `update_with`), never `None`, and
///   stays as it was;
/// - a new value that fails to serialize is [`SessionError::Serialize`] and the stored value
///   stays as it was (an absent key stays absent);
/// - `update_with` returns the value and output of the run whose value was stored: 4 tasks ×
///   25 increments of one counter get back each count from 1 to 100 exactly once, whatever
///   the retries.
pub async fn update_keeps_what_it_cannot_change(store: impl SessionStore) {
    let store = DynSessionStore::new(store);
    let l = limits(5, 5);
    let id = store
        .create(&Owner::Anonymous, info(), &l)
        .await
        .expect("create")
        .id;
    // The store level.
    store.set(&id, "n", json!(1)).await.expect("set");
    let keep = |_: Option<Value>| Update::Keep;
    assert_eq!(
        store.update(&id, "n", &keep).await.expect("update"),
        Some(json!(1))
    );
    assert_eq!(store.get(&id, "n").await.expect("get"), Some(json!(1)));
    assert_eq!(
        store.update(&id, "absent", &keep).await.expect("update"),
        None
    );
    let remove = |_: Option<Value>| Update::Remove;
    assert_eq!(store.update(&id, "n", &remove).await.expect("update"), None);
    assert!(store.keys(&id).await.expect("keys").is_empty());

    let session = Session::new(
        id.as_str().into(),
        store.clone(),
        Arc::new(Streams::default()),
    );
    let push = |item: &'static str| {
        move |items: Option<Vec<String>>| {
            let mut items = items.unwrap_or_default();
            items.push(item.into());
            items
        }
    };
    assert_eq!(
        session.update("items", push("a")).await.expect("update"),
        vec!["a"]
    );
    let (items, count) = session
        .update_with("items", |items: Option<Vec<String>>| {
            let mut items = items.unwrap_or_default();
            items.push("b".into());
            let count = items.len();
            (items, count)
        })
        .await
        .expect("update_with");
    assert_eq!((items, count), (vec!["a".to_owned(), "b".to_owned()], 2));

    // A stored value of another shape is an error, and stays.
    let foreign = json!({"owner": "another tool"});
    store.set(&id, "cart", foreign.clone()).await.expect("set");
    let wrong = session.update("cart", push("c")).await;
    assert!(
        matches!(&wrong, Err(SessionError::WrongShape { key, .. }) if key == "cart"),
        "{wrong:?}"
    );
    let wrong = session
        .update_with("cart", |items: Option<Vec<String>>| {
            (items.unwrap_or_default(), ())
        })
        .await;
    assert!(
        matches!(wrong, Err(SessionError::WrongShape { .. })),
        "{wrong:?}"
    );
    let wrong = session.get::<Vec<String>>("cart").await;
    assert!(
        matches!(wrong, Err(SessionError::WrongShape { .. })),
        "{wrong:?}"
    );
    assert_eq!(store.get(&id, "cart").await.expect("get"), Some(foreign));

    // A value that fails to serialize writes nothing.
    let poisoned = session
        .update("items", |items: Option<Picky>| {
            let mut items = items.map_or_else(Vec::new, |p| p.0);
            items.push("poison".into());
            Picky(items)
        })
        .await;
    assert!(
        matches!(&poisoned, Err(SessionError::Serialize { key, .. }) if key == "items"),
        "{poisoned:?}"
    );
    assert_eq!(
        store.get(&id, "items").await.expect("get"),
        Some(json!(["a", "b"]))
    );
    let poisoned = session
        .update("fresh", |_: Option<Picky>| Picky(vec!["poison".into()]))
        .await;
    assert!(
        matches!(poisoned, Err(SessionError::Serialize { .. })),
        "{poisoned:?}"
    );
    let poisoned = session.set("fresh", Picky(vec!["poison".into()])).await;
    assert!(
        matches!(poisoned, Err(SessionError::Serialize { .. })),
        "{poisoned:?}"
    );
    assert_eq!(store.keys(&id).await.expect("keys"), vec!["cart", "items"]);

    // Concurrent `update_with`s: each output is the count its own stored value holds.
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let session = session.clone();
        tasks.push(tokio::spawn(async move {
            let mut seen = Vec::new();
            for _ in 0..25 {
                let (stored, output) = session
                    .update_with("counter", |n: Option<u32>| {
                        let next = n.unwrap_or(0) + 1;
                        (next, next)
                    })
                    .await
                    .expect("update_with");
                assert_eq!(stored, output);
                seen.push(output);
            }
            seen
        }));
    }
    let mut seen = Vec::new();
    for t in tasks {
        seen.extend(t.await.expect("an update task panicked"));
    }
    seen.sort_unstable();
    assert_eq!(seen, (1..=100).collect::<Vec<u32>>());
    assert_eq!(
        store.get(&id, "counter").await.expect("get"),
        Some(json!(100))
    );
    store.delete(&id, &Owner::Anonymous).await.expect("delete");
}
