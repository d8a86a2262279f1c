//! Wire types of resources, resource templates, prompts and completion (identical in both
//! eras; modern results add `resultType`, cache hints on the cacheable ones, and the
//! server-info `_meta`). The types are `#[non_exhaustive]`: code outside this crate builds
//! them with `new(...)` and `with_*` setters.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Annotations, CacheScope, Icon, JsonObject, Prompt, ResourceContents, ResultType};

/// The members the server fills on modern cacheable results.
pub(crate) struct CacheFields<'a> {
    pub(crate) ttl_ms: &'a mut Option<i64>,
    pub(crate) cache_scope: &'a mut Option<CacheScope>,
    pub(crate) result_type: &'a mut Option<ResultType>,
    pub(crate) meta: &'a mut Option<JsonObject>,
}

/// A result whose modern form carries cache hints.
pub(crate) trait Cacheable {
    /// Its cache members.
    fn cache_fields(&mut self) -> CacheFields<'_>;
}

/// A concrete resource, as `resources/list` lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Resource {
    /// The URI.
    pub uri: String,
    /// The programmatic name.
    pub name: String,
    /// Display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type of the resource as a whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl Resource {
    /// A resource at `uri` named `name`.
    ///
    /// ```
    /// let r = mcp::Resource::new("config://app", "app").with_mime_type("application/json");
    /// assert_eq!(r.mime_type.as_deref(), Some("application/json"));
    /// ```
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            icons: None,
            meta: None,
        }
    }
}

setters!(Resource {
    /// Sets the display title.
    with_title => title: String,
    /// Sets the description.
    with_description => description: String,
    /// Sets the MIME type.
    with_mime_type => mime_type: String,
    /// Sets the size in bytes.
    with_size => size: u64,
    /// Sets the annotations.
    with_annotations => annotations: Annotations,
    /// Sets the icons.
    with_icons => icons: Vec<Icon>,
    /// Sets the metadata.
    with_meta => meta: JsonObject,
});

/// A resource template (RFC 6570 URI template), as `resources/templates/list` lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceTemplate {
    /// The URI template.
    pub uri_template: String,
    /// The programmatic name.
    pub name: String,
    /// Display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type of the matching resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl ResourceTemplate {
    /// A template `uri_template` named `name`.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            annotations: None,
            icons: None,
            meta: None,
        }
    }
}

setters!(ResourceTemplate {
    /// Sets the display title.
    with_title => title: String,
    /// Sets the description.
    with_description => description: String,
    /// Sets the MIME type.
    with_mime_type => mime_type: String,
    /// Sets the annotations.
    with_annotations => annotations: Annotations,
    /// Sets the icons.
    with_icons => icons: Vec<Icon>,
    /// Sets the metadata.
    with_meta => meta: JsonObject,
});

/// Params of the paginated list methods (`resources/list`, `resources/templates/list`,
/// `prompts/list`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PaginatedParams {
    /// The cursor of the page to fetch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Generates a paginated, cacheable list result type.
macro_rules! list_result {
    ($(#[$doc:meta])* $name:ident, $field:ident: $item:ty, $wire:literal) => {
        $(#[$doc])*
        ///
        /// On modern results the server adds `resultType`, `ttlMs`, `cacheScope` and the
        /// server-info `_meta`; a value set here wins over the default hint (0 ms, private).
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        #[non_exhaustive]
        pub struct $name {
            /// The items of this page.
            #[serde(rename = $wire)]
            pub $field: Vec<$item>,
            /// Cursor of the next page; absent on the last.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub next_cursor: Option<String>,
            /// How long (ms) a client may treat the result as fresh (modern only).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub ttl_ms: Option<i64>,
            /// Whether the result may be shared between callers (modern only).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub cache_scope: Option<CacheScope>,
            /// `"complete"` on modern results.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub result_type: Option<ResultType>,
            /// Metadata.
            #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
            pub meta: Option<JsonObject>,
        }

        impl $name {
            /// One page holding `items` (the last page, unless a cursor is set).
            pub fn new($field: Vec<$item>) -> Self {
                Self { $field, ..Self::default() }
            }

            /// Sets the cursor of the next page.
            #[must_use]
            pub fn with_next_cursor(mut self, cursor: impl Into<String>) -> Self {
                self.next_cursor = Some(cursor.into());
                self
            }

            /// Sets the cache hint (modern results only).
            #[must_use]
            pub fn with_cache_hint(mut self, ttl_ms: i64, scope: CacheScope) -> Self {
                self.ttl_ms = Some(ttl_ms);
                self.cache_scope = Some(scope);
                self
            }
        }

        impl Cacheable for $name {
            fn cache_fields(&mut self) -> CacheFields<'_> {
                CacheFields {
                    ttl_ms: &mut self.ttl_ms,
                    cache_scope: &mut self.cache_scope,
                    result_type: &mut self.result_type,
                    meta: &mut self.meta,
                }
            }
        }
    };
}

list_result!(
    /// `resources/list` result.
    ListResourcesResult, resources: Resource, "resources"
);
list_result!(
    /// `resources/templates/list` result.
    ListResourceTemplatesResult, resource_templates: ResourceTemplate, "resourceTemplates"
);
list_result!(
    /// `prompts/list` result.
    ListPromptsResult, prompts: Prompt, "prompts"
);

/// `resources/read` params.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadResourceParams {
    /// The URI to read.
    pub uri: String,
    /// Request metadata (without the reserved envelope keys on the server side).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl ReadResourceParams {
    /// Params reading `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            meta: None,
        }
    }
}

/// `resources/read` result.
///
/// On modern results the server adds `resultType`, `ttlMs`, `cacheScope` and the
/// server-info `_meta`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadResourceResult {
    /// The contents (several for a resource with sub-resources).
    pub contents: Vec<ResourceContents>,
    /// How long (ms) a client may treat the result as fresh (modern only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<i64>,
    /// Whether the result may be shared between callers (modern only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// `"complete"` on modern results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl ReadResourceResult {
    /// A result with these contents.
    ///
    /// ```
    /// use mcp::{ReadResourceResult, ResourceContents};
    /// let r = ReadResourceResult::new(vec![ResourceContents::text("config://app", "{}")]);
    /// assert_eq!(r.contents.len(), 1);
    /// ```
    pub fn new(contents: Vec<ResourceContents>) -> Self {
        Self {
            contents,
            ..Self::default()
        }
    }

    /// Sets the cache hint (modern results only).
    #[must_use]
    pub fn with_cache_hint(mut self, ttl_ms: i64, scope: CacheScope) -> Self {
        self.ttl_ms = Some(ttl_ms);
        self.cache_scope = Some(scope);
        self
    }
}

impl Cacheable for ReadResourceResult {
    fn cache_fields(&mut self) -> CacheFields<'_> {
        CacheFields {
            ttl_ms: &mut self.ttl_ms,
            cache_scope: &mut self.cache_scope,
            result_type: &mut self.result_type,
            meta: &mut self.meta,
        }
    }
}

/// `resources/subscribe` and `resources/unsubscribe` params (legacy era).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SubscribeParams {
    /// The URI.
    pub uri: String,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// What `completion/complete` completes: a prompt's argument or a template's variable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum Reference {
    /// `ref/prompt`: an argument of prompt `name`.
    #[serde(rename = "ref/prompt")]
    Prompt {
        /// The prompt name.
        name: String,
    },
    /// `ref/resource`: a variable of the template `uri` (the template string, not an
    /// expanded URI).
    #[serde(rename = "ref/resource")]
    Resource {
        /// The URI template.
        uri: String,
    },
}

impl Reference {
    /// A reference to prompt `name`.
    pub fn prompt(name: impl Into<String>) -> Self {
        Self::Prompt { name: name.into() }
    }

    /// A reference to the resource template `uri_template`.
    pub fn resource(uri_template: impl Into<String>) -> Self {
        Self::Resource {
            uri: uri_template.into(),
        }
    }
}

/// The argument being completed and what the user typed so far.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompleteArgument {
    /// The argument (or template variable) name.
    pub name: String,
    /// The partial value.
    pub value: String,
}

/// Already-filled values of the other arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompleteContext {
    /// The other arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
}

/// `completion/complete` params.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompleteParams {
    /// What is completed.
    #[serde(rename = "ref")]
    pub reference: Reference,
    /// The argument and its partial value.
    pub argument: CompleteArgument,
    /// The other arguments' values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompleteContext>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CompleteParams {
    /// Params completing argument `name` of `reference` from `value`.
    pub fn new(reference: Reference, name: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            reference,
            argument: CompleteArgument {
                name: name.into(),
                value: value.into(),
            },
            context: None,
            meta: None,
        }
    }

    /// The already-given value of another argument.
    pub fn context_argument(&self, name: &str) -> Option<&str> {
        self.context
            .as_ref()?
            .arguments
            .as_ref()?
            .get(name)
            .map(String::as_str)
    }
}

/// The most values a completion carries on the wire; the rest is cut and `hasMore` set.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// Completion values.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Completion {
    /// The suggestions (at most [`MAX_COMPLETION_VALUES`] are sent).
    pub values: Vec<String>,
    /// How many suggestions exist in total.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more suggestions exist than were sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// These suggestions; the server sends them [`truncated`](Self::truncated).
    pub fn new(values: Vec<String>) -> Self {
        Self {
            values,
            total: None,
            has_more: None,
        }
    }

    /// No suggestion: `{"values": [], "hasMore": false}`.
    pub fn empty() -> Self {
        Self {
            values: Vec::new(),
            total: None,
            has_more: Some(false),
        }
    }

    /// Sets the total count.
    #[must_use]
    pub fn with_total(mut self, total: u64) -> Self {
        self.total = Some(total);
        self
    }

    /// Says whether more suggestions exist.
    #[must_use]
    pub fn with_has_more(mut self, has_more: bool) -> Self {
        self.has_more = Some(has_more);
        self
    }

    /// The completion as sent: at most [`MAX_COMPLETION_VALUES`] values; when values were
    /// cut, `total` is at least the count before the cut and `has_more` is `true`; else,
    /// unless `has_more` is set, `total` defaults to the count and `has_more` says whether
    /// `total` exceeds it.
    ///
    /// ```
    /// let c = mcp::Completion::new((0..150).map(|i| i.to_string()).collect()).truncated();
    /// assert_eq!((c.values.len(), c.total, c.has_more), (100, Some(150), Some(true)));
    /// ```
    #[must_use]
    pub fn truncated(mut self) -> Self {
        let count = self.values.len();
        if count > MAX_COMPLETION_VALUES {
            self.values.truncate(MAX_COMPLETION_VALUES);
            let count = count as u64;
            self.total = Some(self.total.map_or(count, |t| t.max(count)));
            self.has_more = Some(true);
        } else if self.has_more.is_none() {
            let total = *self.total.get_or_insert(count as u64);
            self.has_more = Some(total > count as u64);
        }
        self
    }
}

impl From<Vec<String>> for Completion {
    fn from(values: Vec<String>) -> Self {
        Self::new(values)
    }
}

/// `completion/complete` result (no cache hints in either era).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CompleteResult {
    /// The completion.
    pub completion: Completion,
    /// `"complete"` on modern results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CompleteResult {
    /// A result carrying `completion`.
    pub fn new(completion: Completion) -> Self {
        Self {
            completion,
            ..Self::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn wire_shapes() {
        let r = Resource::new("test://static-text", "static-text").with_mime_type("text/plain");
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"uri": "test://static-text", "name": "static-text", "mimeType": "text/plain"})
        );
        let page =
            ListResourceTemplatesResult::new(vec![ResourceTemplate::new("file:///{path}", "file")]);
        assert_eq!(
            serde_json::to_value(&page).unwrap(),
            json!({"resourceTemplates": [{"uriTemplate": "file:///{path}", "name": "file"}]})
        );
        let p: CompleteParams = serde_json::from_value(json!({
            "ref": {"type": "ref/prompt", "name": "review"},
            "argument": {"name": "language", "value": "ru"},
            "context": {"arguments": {"style": "short"}}
        }))
        .unwrap();
        assert_eq!(p.reference, Reference::prompt("review"));
        assert_eq!(p.context_argument("style"), Some("short"));
        assert!(
            serde_json::from_value::<CompleteParams>(json!({
                "ref": {"type": "ref/other"}, "argument": {"name": "a", "value": ""}
            }))
            .is_err()
        );
        assert_eq!(
            serde_json::to_value(super::super::PromptMessage::user("hi")).unwrap(),
            json!({"role": "user", "content": {"type": "text", "text": "hi"}})
        );
    }

    #[test]
    fn completion_truncates_to_one_hundred() {
        let c = Completion::new(vec!["a".into(), "b".into()]).truncated();
        assert_eq!((c.total, c.has_more), (Some(2), Some(false)));
        let c = Completion {
            values: (0..101).map(|i| i.to_string()).collect(),
            total: Some(5),
            has_more: Some(false),
        }
        .truncated();
        assert_eq!(c.values.len(), 100);
        assert_eq!((c.total, c.has_more), (Some(101), Some(true)));
        let c = Completion::new(vec!["a".into()]).with_total(10).truncated();
        assert_eq!((c.total, c.has_more), (Some(10), Some(true)));
        assert_eq!(
            serde_json::to_value(Completion::empty()).unwrap(),
            json!({"values": [], "hasMore": false})
        );
    }
}
