//! [`Extensions`]: what a transport knows about a request besides its message, by type.

use std::any::{Any, TypeId};
use std::sync::Arc;

/// The facts only a request's transport knows, one value per type: over Streamable HTTP the
/// request's `http::request::Parts`; nothing on stdio and in-process. A value is kept
/// behind an `Arc`, so a transport that already shares one (as HTTP shares its parts)
/// adds it without copying, and a clone of the extensions copies pointers only.
///
/// ```
/// let mut extensions = mcp::Extensions::new();
/// extensions.insert(7_u32);
/// assert_eq!(extensions.get::<u32>(), Some(&7));
/// assert!(extensions.get::<String>().is_none());
/// ```
#[derive(Clone, Default)]
pub struct Extensions {
    /// The first value (most requests carry one or none: no allocation for it).
    first: Option<Arc<dyn Any + Send + Sync>>,
    /// Any further values.
    rest: Vec<Arc<dyn Any + Send + Sync>>,
}

impl std::fmt::Debug for Extensions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Extensions")
            .field(
                "len",
                &(usize::from(self.first.is_some()) + self.rest.len()),
            )
            .finish_non_exhaustive()
    }
}

impl Extensions {
    /// No extensions.
    pub const fn new() -> Self {
        Self {
            first: None,
            rest: Vec::new(),
        }
    }

    /// Adds `value`, replacing a value of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.insert_shared(Arc::new(value));
    }

    /// Adds a shared `value` without copying it, replacing a value of the same type.
    pub fn insert_shared<T: Send + Sync + 'static>(&mut self, value: Arc<T>) {
        let id = TypeId::of::<T>();
        match &mut self.first {
            Some(first) if (**first).type_id() == id => *first = value,
            Some(_) => {
                self.rest.retain(|v| (**v).type_id() != id);
                self.rest.push(value);
            }
            None => self.first = Some(value),
        }
    }

    /// The value of type `T`, if there is one.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.first
            .iter()
            .chain(&self.rest)
            .find_map(|v| v.downcast_ref::<T>())
    }

    /// Whether there is no value.
    pub fn is_empty(&self) -> bool {
        self.first.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_type_shared_without_copies() {
        let mut e = Extensions::new();
        assert!(e.is_empty());
        let shared = Arc::new(String::from("parts"));
        e.insert_shared(shared.clone());
        e.insert(1_u8);
        e.insert(2_u8);
        assert_eq!(e.get::<u8>(), Some(&2));
        assert!(std::ptr::eq(e.get::<String>().unwrap(), &*shared));
        let copy = e.clone();
        assert_eq!(Arc::strong_count(&shared), 3);
        assert_eq!(copy.get::<String>().map(String::as_str), Some("parts"));
    }
}
