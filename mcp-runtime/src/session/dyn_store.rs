//! [`DynSessionStore`]: any [`SessionStore`] behind one cloneable, type-erased handle.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use super::{Created, Owner, SessionInfo, SessionLimits, SessionStore, StoreError, Update};
use crate::base::BoxFuture;

/// [`SessionStore`] with boxed futures, so one handle type can hold any store.
trait ErasedStore: Send + Sync + 'static {
    fn dyn_create<'a>(
        &'a self,
        owner: &'a Owner,
        info: SessionInfo,
        limits: &'a SessionLimits,
    ) -> BoxFuture<'a, Result<Created, StoreError>>;

    fn dyn_open<'a>(
        &'a self,
        id: &'a str,
        owner: &'a Owner,
        limits: &'a SessionLimits,
    ) -> BoxFuture<'a, Result<Option<SessionInfo>, StoreError>>;

    fn dyn_delete<'a>(
        &'a self,
        id: &'a str,
        owner: &'a Owner,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    fn dyn_get<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, StoreError>>;

    fn dyn_set<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
        value: Value,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    fn dyn_remove<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, StoreError>>;

    fn dyn_keys<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<String>, StoreError>>;

    fn dyn_update<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
        f: &'a (dyn Fn(Option<Value>) -> Update + Send + Sync),
    ) -> BoxFuture<'a, Result<Option<Value>, StoreError>>;

    fn dyn_len(&self) -> BoxFuture<'_, Result<usize, StoreError>>;

    fn dyn_is_empty(&self) -> BoxFuture<'_, Result<bool, StoreError>>;
}

impl<T: SessionStore> ErasedStore for T {
    fn dyn_create<'a>(
        &'a self,
        owner: &'a Owner,
        info: SessionInfo,
        limits: &'a SessionLimits,
    ) -> BoxFuture<'a, Result<Created, StoreError>> {
        Box::pin(self.create(owner, info, limits))
    }

    fn dyn_open<'a>(
        &'a self,
        id: &'a str,
        owner: &'a Owner,
        limits: &'a SessionLimits,
    ) -> BoxFuture<'a, Result<Option<SessionInfo>, StoreError>> {
        Box::pin(self.open(id, owner, limits))
    }

    fn dyn_delete<'a>(
        &'a self,
        id: &'a str,
        owner: &'a Owner,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(self.delete(id, owner))
    }

    fn dyn_get<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
        Box::pin(self.get(id, key))
    }

    fn dyn_set<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
        value: Value,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(self.set(id, key, value))
    }

    fn dyn_remove<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
        Box::pin(self.remove(id, key))
    }

    fn dyn_keys<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<String>, StoreError>> {
        Box::pin(self.keys(id))
    }

    fn dyn_update<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
        f: &'a (dyn Fn(Option<Value>) -> Update + Send + Sync),
    ) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
        Box::pin(self.update(id, key, f))
    }

    fn dyn_len(&self) -> BoxFuture<'_, Result<usize, StoreError>> {
        Box::pin(self.len())
    }

    fn dyn_is_empty(&self) -> BoxFuture<'_, Result<bool, StoreError>> {
        Box::pin(self.is_empty())
    }
}

/// Any [`SessionStore`] behind one cloneable handle (clones share the store), the form the
/// server keeps: [`ServerBuilder::session_store`](crate::ServerBuilder::session_store)
/// wraps the store it is given in one, and
/// [`Server::session_store`](crate::Server::session_store) hands it back.
///
/// Its methods are those of [`SessionStore`] (which it implements too), so they can be
/// called without importing the trait.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use mcp::session::{DynSessionStore, MemoryStore};
///
/// let store = DynSessionStore::new(MemoryStore::new());
/// let shared = store.clone();
/// assert_eq!(shared.len().await.unwrap(), 0);
/// # }
/// ```
#[derive(Clone)]
pub struct DynSessionStore(Arc<dyn ErasedStore>);

impl DynSessionStore {
    /// Wraps `store` (a `DynSessionStore` given here is returned as it is, not wrapped twice).
    pub fn new<S: SessionStore>(store: S) -> Self {
        let mut slot = Some(store);
        if let Some(handle) = (&mut slot as &mut dyn Any)
            .downcast_mut::<Option<Self>>()
            .and_then(Option::take)
        {
            return handle;
        }
        match slot {
            Some(store) => Self(Arc::new(store)),
            None => unreachable!("the store is only taken when it is a DynSessionStore"),
        }
    }

    /// [`SessionStore::create`].
    pub fn create<'a>(
        &'a self,
        owner: &'a Owner,
        info: SessionInfo,
        limits: &'a SessionLimits,
    ) -> BoxFuture<'a, Result<Created, StoreError>> {
        self.0.dyn_create(owner, info, limits)
    }

    /// [`SessionStore::open`].
    pub fn open<'a>(
        &'a self,
        id: &'a str,
        owner: &'a Owner,
        limits: &'a SessionLimits,
    ) -> BoxFuture<'a, Result<Option<SessionInfo>, StoreError>> {
        self.0.dyn_open(id, owner, limits)
    }

    /// [`SessionStore::delete`].
    pub fn delete<'a>(
        &'a self,
        id: &'a str,
        owner: &'a Owner,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.0.dyn_delete(id, owner)
    }

    /// [`SessionStore::get`].
    pub fn get<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
        self.0.dyn_get(id, key)
    }

    /// [`SessionStore::set`].
    pub fn set<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
        value: Value,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.0.dyn_set(id, key, value)
    }

    /// [`SessionStore::remove`].
    pub fn remove<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
        self.0.dyn_remove(id, key)
    }

    /// [`SessionStore::keys`].
    pub fn keys<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<String>, StoreError>> {
        self.0.dyn_keys(id)
    }

    /// [`SessionStore::update`].
    pub fn update<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
        f: &'a (dyn Fn(Option<Value>) -> Update + Send + Sync),
    ) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
        self.0.dyn_update(id, key, f)
    }

    /// [`SessionStore::len`].
    pub fn len(&self) -> BoxFuture<'_, Result<usize, StoreError>> {
        self.0.dyn_len()
    }

    /// [`SessionStore::is_empty`].
    pub fn is_empty(&self) -> BoxFuture<'_, Result<bool, StoreError>> {
        self.0.dyn_is_empty()
    }
}

impl fmt::Debug for DynSessionStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DynSessionStore(..)")
    }
}

impl SessionStore for DynSessionStore {
    async fn create(
        &self,
        owner: &Owner,
        info: SessionInfo,
        limits: &SessionLimits,
    ) -> Result<Created, StoreError> {
        self.0.dyn_create(owner, info, limits).await
    }

    async fn open(
        &self,
        id: &str,
        owner: &Owner,
        limits: &SessionLimits,
    ) -> Result<Option<SessionInfo>, StoreError> {
        self.0.dyn_open(id, owner, limits).await
    }

    async fn delete(&self, id: &str, owner: &Owner) -> Result<bool, StoreError> {
        self.0.dyn_delete(id, owner).await
    }

    async fn get(&self, id: &str, key: &str) -> Result<Option<Value>, StoreError> {
        self.0.dyn_get(id, key).await
    }

    async fn set(&self, id: &str, key: &str, value: Value) -> Result<(), StoreError> {
        self.0.dyn_set(id, key, value).await
    }

    async fn remove(&self, id: &str, key: &str) -> Result<Option<Value>, StoreError> {
        self.0.dyn_remove(id, key).await
    }

    async fn keys(&self, id: &str) -> Result<Vec<String>, StoreError> {
        self.0.dyn_keys(id).await
    }

    async fn update(
        &self,
        id: &str,
        key: &str,
        f: &(dyn Fn(Option<Value>) -> Update + Send + Sync),
    ) -> Result<Option<Value>, StoreError> {
        self.0.dyn_update(id, key, f).await
    }

    async fn len(&self) -> Result<usize, StoreError> {
        self.0.dyn_len().await
    }

    async fn is_empty(&self) -> Result<bool, StoreError> {
        self.0.dyn_is_empty().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::MemoryStore;

    #[tokio::test]
    async fn wrapping_a_handle_shares_its_store() {
        let store = DynSessionStore::new(MemoryStore::new());
        let again = DynSessionStore::new(store.clone());
        assert!(Arc::ptr_eq(&store.0, &again.0));
        let limits = SessionLimits::default();
        let created = store
            .create(&Owner::Anonymous, crate::session::contract::info(), &limits)
            .await
            .expect("create");
        assert_eq!(again.len().await.expect("len"), 1);
        assert!(!SessionStore::is_empty(&again).await.expect("is_empty"));
        assert!(
            again
                .delete(&created.id, &Owner::Anonymous)
                .await
                .expect("delete")
        );
        assert!(store.is_empty().await.expect("is_empty"));
    }
}
