//! `tools/list`: every page merged, one page, through the result cache.

use std::sync::Arc;
use std::time::Instant;

use http::HeaderMap;
use http::header::AUTHORIZATION;
use serde_json::{Map, Value};

use super::cache::drop_invalid_tools;
use super::exchange::Call;
use super::{CacheMode, Client, ClientError, Connection, Inner, invalid, parse_result};
use crate::protocol::{CacheScope, Era, ErrorCode, ListToolsResult};
use crate::schema::headers::{HeaderDecl, declarations};

/// The most `tools/list` pages one listing follows.
const MAX_PAGES: usize = 64;

impl Client {
    /// Lists all tools, following every page, reusing fresh cached pages.
    pub async fn list_tools(&self) -> Result<ListToolsResult, ClientError> {
        self.list_tools_with(CacheMode::Normal).await
    }

    /// Lists all tools, following every page, with the given cache mode.
    ///
    /// The merged result has no `next_cursor`; its `ttl_ms` is the smallest of the pages'.
    /// Tools whose `x-mcp-header` declarations are invalid are left out.
    pub async fn list_tools_with(&self, mode: CacheMode) -> Result<ListToolsResult, ClientError> {
        let conn = self.inner.connection()?;
        let listed = self.inner.list_all(&conn, mode, None).await?;
        self.inner
            .tools_stale
            .store(false, std::sync::atomic::Ordering::Relaxed);
        Ok(listed)
    }

    /// Whether the server announced (`notifications/tools/list_changed`) that its tools
    /// changed since the last complete [`list_tools`](Self::list_tools); the cache is dropped
    /// at once, so the next listing asks the server.
    pub fn tools_stale(&self) -> bool {
        self.inner
            .tools_stale
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Fetches one page of tools (`cursor` `None` for the first), with the given cache mode.
    pub async fn list_tools_page(
        &self,
        cursor: Option<&str>,
        mode: CacheMode,
    ) -> Result<ListToolsResult, ClientError> {
        let conn = self.inner.connection()?;
        self.inner.fetch_page(&conn, cursor, mode, None).await
    }
}

impl Inner {
    /// One page of `tools/list`, through the cache.
    async fn fetch_page(
        &self,
        conn: &Arc<Connection>,
        cursor: Option<&str>,
        mode: CacheMode,
        headers: Option<&HeaderMap>,
    ) -> Result<ListToolsResult, ClientError> {
        let bypass =
            mode == CacheMode::Bypass || headers.is_some_and(|h| h.contains_key(AUTHORIZATION));
        if mode == CacheMode::Normal
            && !bypass
            && let Some(page) = self.lock_cache().get(cursor, Instant::now())
        {
            return Ok(page);
        }
        let generation = self.lock_cache().generation();
        let mut params = Map::new();
        if let Some(c) = cursor {
            params.insert("cursor".into(), Value::String(c.into()));
        }
        let mut call = Call::new("tools/list", params);
        if let Some(h) = headers {
            call.headers = h.clone();
        }
        let reply = match self.request(conn, &call).await {
            Ok(r) => r,
            Err(e) => {
                let code = e.code();
                if (code == Some(ErrorCode::INVALID_PARAMS) && cursor.is_some())
                    || code == Some(ErrorCode::HEADER_MISMATCH)
                {
                    self.lock_cache().clear();
                }
                return Err(e);
            }
        };
        let era = conn.info.era;
        let mut page: ListToolsResult = parse_result("tools/list", &reply, era)?;
        match era {
            Era::Legacy => {
                // Hints are modern-only.
                page.ttl_ms = None;
                page.cache_scope = None;
            }
            Era::Modern => page.ttl_ms = Some(page.ttl_ms.unwrap_or(0).max(0)),
        }
        drop_invalid_tools(&mut page.tools);
        if !bypass {
            self.lock_cache()
                .store(generation, cursor, &page, Instant::now());
        }
        Ok(page)
    }

    /// Every page of `tools/list`, merged.
    async fn list_all(
        &self,
        conn: &Arc<Connection>,
        mode: CacheMode,
        headers: Option<&HeaderMap>,
    ) -> Result<ListToolsResult, ClientError> {
        let mut out: Option<ListToolsResult> = None;
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let page = self
                .fetch_page(conn, cursor.as_deref(), mode, headers)
                .await?;
            let next = page.next_cursor.clone();
            match &mut out {
                None => {
                    let mut first = page;
                    first.next_cursor = None;
                    out = Some(first);
                }
                Some(all) => {
                    all.ttl_ms = match (all.ttl_ms, page.ttl_ms) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        _ => None,
                    };
                    all.cache_scope = match (all.cache_scope, page.cache_scope) {
                        (None, None) => None,
                        (Some(CacheScope::Public), Some(CacheScope::Public)) => {
                            Some(CacheScope::Public)
                        }
                        _ => Some(CacheScope::Private),
                    };
                    all.tools.extend(page.tools);
                }
            }
            match next {
                Some(n) if cursor.as_deref() != Some(n.as_str()) => cursor = Some(n),
                _ => return Ok(out.unwrap_or_default()),
            }
        }
        Err(invalid(
            "tools/list",
            format!("the server returned more than {MAX_PAGES} pages"),
        ))
    }

    /// The header declarations of a tool: remembered from a listing, or listed now.
    pub(super) async fn tool_decls(
        &self,
        conn: &Arc<Connection>,
        name: &str,
        auth_headers: Option<&HeaderMap>,
    ) -> Result<Arc<Vec<HeaderDecl>>, ClientError> {
        if auth_headers.is_none()
            && let Some(decls) = self.lock_cache().known(name)
        {
            return Ok(decls);
        }
        let mode = if auth_headers.is_some() {
            CacheMode::Bypass
        } else {
            CacheMode::Normal
        };
        let all = self.list_all(conn, mode, auth_headers).await?;
        Ok(all
            .tools
            .iter()
            .find(|t| t.name == name)
            .and_then(|t| declarations(&t.input_schema).ok())
            .map(Arc::new)
            .unwrap_or_default())
    }
}
