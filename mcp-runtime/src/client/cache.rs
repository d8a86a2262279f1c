//! The `tools/list` result cache: pages by cursor, fresh for the server's `ttlMs` (capped),
//! bounded in size, plus the header declarations of every listed tool (used to mirror
//! `x-mcp-header` arguments even when pages are not reusable).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::config::ResultCacheConfig;
use crate::protocol::{ListToolsResult, Tool};
use crate::schema::headers::{HeaderDecl, declarations};

#[derive(Debug)]
struct Entry {
    page: ListToolsResult,
    expires: Instant,
    inserted: Instant,
}

/// The cache. Every invalidation bumps a generation, so a fetch that started before it
/// does not store its (possibly stale) result afterwards.
#[derive(Debug)]
pub(crate) struct ToolCache {
    config: Option<ResultCacheConfig>,
    pages: HashMap<Option<String>, Entry>,
    known: HashMap<String, Arc<Vec<HeaderDecl>>>,
    generation: u64,
}

impl ToolCache {
    pub(crate) fn new(config: Option<ResultCacheConfig>) -> Self {
        Self {
            config,
            pages: HashMap::new(),
            known: HashMap::new(),
            generation: 0,
        }
    }

    /// The current generation; pass it back to [`Self::store`].
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// Drops every page and every remembered declaration.
    pub(crate) fn clear(&mut self) {
        self.generation += 1;
        self.pages.clear();
        self.known.clear();
    }

    /// A fresh page for `cursor`.
    pub(crate) fn get(&self, cursor: Option<&str>, now: Instant) -> Option<ListToolsResult> {
        let entry = self.pages.get(&cursor.map(str::to_owned))?;
        (entry.expires > now).then(|| entry.page.clone())
    }

    /// Remembers the declarations of the page's tools and, when the hint allows, caches the
    /// page — unless the cache was invalidated since `generation`.
    pub(crate) fn store(
        &mut self,
        generation: u64,
        cursor: Option<&str>,
        page: &ListToolsResult,
        now: Instant,
    ) {
        if generation != self.generation {
            return;
        }
        for tool in &page.tools {
            if let Ok(decls) = declarations(&tool.input_schema) {
                self.known.insert(tool.name.clone(), Arc::new(decls));
            }
        }
        let Some(config) = self.config else {
            return;
        };
        let key = cursor.map(str::to_owned);
        let ttl = Duration::from_millis(page.ttl_ms.unwrap_or(0).max(0).unsigned_abs())
            .min(config.max_ttl);
        if ttl.is_zero() || config.max_entries == 0 {
            self.pages.remove(&key);
            return;
        }
        if !self.pages.contains_key(&key) && self.pages.len() >= config.max_entries {
            self.pages.retain(|_, e| e.expires > now);
            while self.pages.len() >= config.max_entries {
                let oldest = self
                    .pages
                    .iter()
                    .min_by_key(|(_, e)| e.inserted)
                    .map(|(k, _)| k.clone());
                match oldest {
                    Some(k) => self.pages.remove(&k),
                    None => break,
                };
            }
        }
        self.pages.insert(
            key,
            Entry {
                page: page.clone(),
                expires: now + ttl,
                inserted: now,
            },
        );
    }

    /// The header declarations of a listed tool.
    pub(crate) fn known(&self, name: &str) -> Option<Arc<Vec<HeaderDecl>>> {
        self.known.get(name).cloned()
    }

    /// Number of cached pages (tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.pages.len()
    }
}

/// Removes tools whose `x-mcp-header` declarations are invalid.
pub(crate) fn drop_invalid_tools(tools: &mut Vec<Tool>) {
    tools.retain(|tool| match declarations(&tool.input_schema) {
        Ok(_) => true,
        Err(e) => {
            tracing::warn!(tool = %tool.name, error = %e, "leaving out a tool with invalid x-mcp-header declarations");
            false
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn page(name: &str, ttl: i64) -> ListToolsResult {
        ListToolsResult {
            tools: vec![Tool::new(
                name,
                json!({"type":"object","properties":{"r":{"type":"string","x-mcp-header":"R"}}})
                    .as_object()
                    .cloned()
                    .unwrap(),
            )],
            ttl_ms: Some(ttl),
            ..ListToolsResult::default()
        }
    }

    #[test]
    fn caches_by_cursor_for_the_capped_ttl() {
        let mut c = ToolCache::new(Some(
            ResultCacheConfig::new().max_ttl(Duration::from_millis(1000)),
        ));
        let now = Instant::now();
        c.store(0, None, &page("a", 60_000), now);
        c.store(0, Some("p2"), &page("b", 500), now);
        assert!(c.get(None, now + Duration::from_millis(999)).is_some());
        assert!(
            c.get(None, now + Duration::from_millis(1001)).is_none(),
            "capped"
        );
        assert!(
            c.get(Some("p2"), now + Duration::from_millis(499))
                .is_some()
        );
        assert!(
            c.get(Some("p2"), now + Duration::from_millis(501))
                .is_none()
        );
        assert_eq!(c.known("a").unwrap()[0].name, "R");
    }

    #[test]
    fn zero_and_negative_ttl_are_not_cached_but_remembered() {
        let mut c = ToolCache::new(Some(ResultCacheConfig::new()));
        let now = Instant::now();
        c.store(0, None, &page("a", 0), now);
        c.store(0, Some("x"), &page("b", -5), now);
        assert_eq!(c.len(), 0);
        assert!(c.known("a").is_some() && c.known("b").is_some());
    }

    #[test]
    fn bounded_and_generation_checked() {
        let mut c = ToolCache::new(Some(ResultCacheConfig::new().max_entries(2)));
        let now = Instant::now();
        c.store(0, Some("1"), &page("a", 1000), now);
        c.store(
            0,
            Some("2"),
            &page("b", 1000),
            now + Duration::from_millis(1),
        );
        c.store(
            0,
            Some("3"),
            &page("c", 1000),
            now + Duration::from_millis(2),
        );
        assert_eq!(c.len(), 2);
        assert!(c.get(Some("1"), now).is_none(), "oldest evicted");
        let g = c.generation();
        c.clear();
        c.store(g, None, &page("d", 1000), now);
        assert_eq!(c.len(), 0, "stale fetch not stored");
        assert!(c.known("d").is_none());
    }

    #[test]
    fn disabled_cache_still_remembers_declarations() {
        let mut c = ToolCache::new(None);
        c.store(0, None, &page("a", 1000), Instant::now());
        assert_eq!(c.len(), 0);
        assert!(c.known("a").is_some());
    }
}
