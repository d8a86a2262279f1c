//! Resources, resource templates, prompts and completion on the client: the list methods
//! follow every page, `read_resource` and `get_prompt` mirror the URI or name into
//! `Mcp-Name` on the modern era (as `tools/call` does), and results are the protocol types
//! the server side uses.

use std::collections::BTreeMap;
use std::sync::Arc;

use http::{HeaderMap, HeaderValue};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::exchange::Call;
use super::wire::MCP_NAME;
use super::{Client, ClientError, Connection, ProtocolError, parse_result};
use crate::protocol::{
    CompleteResult, Completion, Era, GetPromptResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Reference,
};
use crate::schema::headers::encode_value;

/// The most pages one listing follows.
const MAX_PAGES: usize = 64;

/// A paginated list result, merged page by page.
trait Paged: DeserializeOwned {
    type Item;
    fn split(self) -> (Vec<Self::Item>, Option<String>);
    fn from_items(items: Vec<Self::Item>) -> Self;
}

macro_rules! paged {
    ($ty:ty, $item:ty, $field:ident) => {
        impl Paged for $ty {
            type Item = $item;
            fn split(self) -> (Vec<$item>, Option<String>) {
                (self.$field, self.next_cursor)
            }
            fn from_items(items: Vec<$item>) -> Self {
                Self::new(items)
            }
        }
    };
}

paged!(ListResourcesResult, crate::protocol::Resource, resources);
paged!(
    ListResourceTemplatesResult,
    crate::protocol::ResourceTemplate,
    resource_templates
);
paged!(ListPromptsResult, crate::protocol::Prompt, prompts);

impl Client {
    /// Lists every resource (all pages merged; the merged result has no cursor).
    pub async fn list_resources(&self) -> Result<ListResourcesResult, ClientError> {
        self.all_pages("resources/list").await
    }

    /// Lists every resource template (all pages merged).
    pub async fn list_resource_templates(
        &self,
    ) -> Result<ListResourceTemplatesResult, ClientError> {
        self.all_pages("resources/templates/list").await
    }

    /// Lists every prompt (all pages merged).
    pub async fn list_prompts(&self) -> Result<ListPromptsResult, ClientError> {
        self.all_pages("prompts/list").await
    }

    /// Reads the resource at `uri` (a static resource's URI or one a template matches).
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        let conn = self.inner.connection()?;
        let params = object(json!({"uri": uri}));
        self.named("resources/read", &conn, params, uri).await
    }

    /// Gets prompt `name` with its `arguments` (string values; an empty map for none).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<GetPromptResult, ClientError> {
        let conn = self.inner.connection()?;
        let mut params = object(json!({"name": name}));
        if !arguments.is_empty() {
            params.insert("arguments".into(), json!(arguments));
        }
        self.named("prompts/get", &conn, params, name).await
    }

    /// Completes argument `argument` of `reference` (a prompt or a resource template) from
    /// its partial `value`, given the values of the other arguments in `context`.
    pub async fn complete(
        &self,
        reference: Reference,
        argument: &str,
        value: &str,
        context: BTreeMap<String, String>,
    ) -> Result<Completion, ClientError> {
        let conn = self.inner.connection()?;
        let mut params = object(json!({
            "ref": reference,
            "argument": {"name": argument, "value": value},
        }));
        if !context.is_empty() {
            params.insert("context".into(), json!({"arguments": context}));
        }
        let call = Call::new("completion/complete", params);
        let reply = self.inner.request(&conn, &call).await?;
        let result: CompleteResult = parse_result("completion/complete", &reply, conn.info.era)?;
        Ok(result.completion)
    }

    /// Sets the level of the log messages the server sends (`notifications/message`, see
    /// [`ClientConfig::notification_handler`](super::ClientConfig::notification_handler)):
    /// legacy, a `logging/setLevel` request for the session; modern, the level every later
    /// request carries in its `_meta` (the modern era has no `logging/setLevel`; without a
    /// level a modern server sends no logs).
    pub async fn set_logging_level(
        &self,
        level: crate::protocol::LogLevel,
    ) -> Result<(), ClientError> {
        let conn = self.inner.connection()?;
        if conn.info.era == Era::Legacy {
            let call = Call::new("logging/setLevel", object(json!({"level": level.as_str()})));
            self.inner.request(&conn, &call).await?;
        }
        *self
            .inner
            .log_level
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(level);
        Ok(())
    }

    /// Subscribes the legacy session to updates of the resource at `uri`
    /// (`resources/subscribe`; the modern era has no such method).
    pub async fn subscribe_resource(&self, uri: &str) -> Result<(), ClientError> {
        let conn = self.inner.connection()?;
        let call = Call::new("resources/subscribe", object(json!({"uri": uri})));
        self.inner.request(&conn, &call).await.map(drop)
    }

    /// Ends a subscription made with [`subscribe_resource`](Self::subscribe_resource).
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<(), ClientError> {
        let conn = self.inner.connection()?;
        let call = Call::new("resources/unsubscribe", object(json!({"uri": uri})));
        self.inner.request(&conn, &call).await.map(drop)
    }

    /// Tells a legacy server that the client's roots changed
    /// (`notifications/roots/list_changed`), so it asks again with `roots/list`. A modern
    /// server asks for roots in each request that needs them: there is nothing to send, and
    /// this returns `Ok(())`.
    pub async fn roots_changed(&self) -> Result<(), ClientError> {
        let conn = self.inner.connection()?;
        if conn.info.era == Era::Modern {
            return Ok(());
        }
        self.inner
            .notify(&conn.wire(), crate::protocol::ROOTS_LIST_CHANGED)
            .await
    }

    /// A request naming a resource or prompt: modern requests carry the name in `Mcp-Name`.
    async fn named<T: DeserializeOwned>(
        &self,
        method: &'static str,
        conn: &Arc<Connection>,
        params: Map<String, Value>,
        name: &str,
    ) -> Result<T, ClientError> {
        let mut call = Call::new(method, params);
        if conn.info.era == Era::Modern {
            let mut headers = HeaderMap::new();
            if let Some(v) = encode_value(&Value::String(name.to_owned()))
                .and_then(|s| HeaderValue::from_str(&s).ok())
            {
                headers.insert(MCP_NAME, v);
            }
            call.headers = headers;
        }
        let reply = self.inner.request(conn, &call).await?;
        parse_result(method, &reply, conn.info.era)
    }

    /// Every page of a list method, merged.
    async fn all_pages<T: Paged>(&self, method: &'static str) -> Result<T, ClientError> {
        let conn = self.inner.connection()?;
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let mut params = Map::new();
            if let Some(c) = &cursor {
                params.insert("cursor".into(), Value::String(c.clone()));
            }
            let reply = self
                .inner
                .request(&conn, &Call::new(method, params))
                .await?;
            let page: T = parse_result(method, &reply, conn.info.era)?;
            let (mut page_items, next) = page.split();
            items.append(&mut page_items);
            match next {
                Some(n) if cursor.as_deref() != Some(n.as_str()) => cursor = Some(n),
                _ => return Ok(T::from_items(items)),
            }
        }
        Err(ProtocolError::InvalidResponse {
            method: method.into(),
            reason: format!("more than {MAX_PAGES} pages"),
        }
        .into())
    }
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}
