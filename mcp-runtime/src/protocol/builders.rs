//! Constructors and setters of the protocol types. The types are `#[non_exhaustive]` (MCP
//! revisions add members), so code outside this crate builds them here: `new(...)` takes
//! the required members, `with_*` sets an optional one.

use serde_json::{Map, Value};

use super::{
    CacheScope, CallToolParams, CallToolResult, ClientCapabilities, DiscoverResult,
    ElicitationCapability, Icon, Implementation, InitializeParams, InitializeResult,
    InputRequiredResult, JsonObject, ListToolsParams, ListToolsResult, ServerCapabilities, Tool,
    ToolAnnotations, ToolsCapability,
};

/// A JSON Schema usable as a tool's input or output schema: a JSON object
/// ([`JsonObject`]), a [`serde_json::Value`] or a [`schemars::Schema`].
///
/// Boolean schemas become their object forms (`true` → `{}`, `false` → `{"not": {}}`). A
/// value that is neither an object nor a boolean is not a JSON Schema: it becomes `{}`,
/// which a server rejects when it is built, because the root of an input schema must be
/// `{"type": "object", …}`.
pub trait IntoSchemaObject {
    /// The schema as a JSON object.
    fn into_schema_object(self) -> JsonObject;
}

impl IntoSchemaObject for JsonObject {
    fn into_schema_object(self) -> JsonObject {
        self
    }
}

impl IntoSchemaObject for Value {
    fn into_schema_object(self) -> JsonObject {
        match self {
            Value::Object(o) => o,
            Value::Bool(false) => {
                let mut o = Map::new();
                o.insert("not".into(), Value::Object(Map::new()));
                o
            }
            _ => Map::new(),
        }
    }
}

impl IntoSchemaObject for schemars::Schema {
    fn into_schema_object(self) -> JsonObject {
        Value::from(self).into_schema_object()
    }
}

/// Generates `with_*` setters of optional members.
macro_rules! setters {
    ($ty:ty { $($(#[$doc:meta])* $name:ident => $field:ident: $arg:ty),* $(,)? }) => {
        impl $ty {
            $(
                $(#[$doc])*
                #[must_use]
                pub fn $name(mut self, value: impl Into<$arg>) -> Self {
                    self.$field = Some(value.into());
                    self
                }
            )*
        }
    };
}

impl Icon {
    /// An icon at a URL or `data:` URI.
    ///
    /// ```
    /// let icon = mcp::protocol::Icon::new("https://example.com/icon.png").with_mime_type("image/png");
    /// assert_eq!(icon.src, "https://example.com/icon.png");
    /// ```
    pub fn new(src: impl Into<String>) -> Self {
        Self {
            src: src.into(),
            mime_type: None,
            sizes: None,
            theme: None,
        }
    }
}

setters!(Icon {
    /// Sets the MIME type of the image.
    with_mime_type => mime_type: String,
    /// Sets the sizes (`"48x48"`, `"any"`).
    with_sizes => sizes: Vec<String>,
    /// Sets the theme (`"light"` or `"dark"`).
    with_theme => theme: String,
});

impl Implementation {
    /// An implementation with a name and a version.
    ///
    /// ```
    /// let info = mcp::Implementation::new("weather", "1.0.0").with_title("Weather");
    /// assert_eq!(info.title.as_deref(), Some("Weather"));
    /// ```
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            website_url: None,
            icons: None,
        }
    }
}

setters!(Implementation {
    /// Sets the display name.
    with_title => title: String,
    /// Sets the human-readable description.
    with_description => description: String,
    /// Sets the website.
    with_website_url => website_url: String,
    /// Sets the icons.
    with_icons => icons: Vec<Icon>,
});

impl ToolsCapability {
    /// The `tools` capability; `list_changed` says whether the server sends
    /// `notifications/tools/list_changed`.
    pub fn new(list_changed: bool) -> Self {
        Self {
            list_changed: Some(list_changed),
        }
    }
}

setters!(ServerCapabilities {
    /// Sets the experimental capabilities.
    with_experimental => experimental: JsonObject,
    /// Sets the logging capability.
    with_logging => logging: JsonObject,
    /// Sets the completions capability.
    with_completions => completions: JsonObject,
    /// Sets the prompts capability.
    with_prompts => prompts: JsonObject,
    /// Sets the resources capability.
    with_resources => resources: JsonObject,
    /// Sets the tools capability.
    with_tools => tools: ToolsCapability,
    /// Sets the extensions.
    with_extensions => extensions: JsonObject,
});

setters!(ElicitationCapability {
    /// Declares form-mode support.
    with_form => form: JsonObject,
    /// Declares URL-mode support.
    with_url => url: JsonObject,
});

setters!(ClientCapabilities {
    /// Sets the elicitation capability.
    with_elicitation => elicitation: ElicitationCapability,
    /// Sets the sampling capability.
    with_sampling => sampling: JsonObject,
    /// Sets the roots capability.
    with_roots => roots: JsonObject,
    /// Sets the experimental capabilities.
    with_experimental => experimental: JsonObject,
});

impl ClientCapabilities {
    /// Adds a capability this crate has no member for (kept as sent).
    ///
    /// ```
    /// use mcp::protocol::ClientCapabilities;
    /// use serde_json::json;
    ///
    /// let caps = ClientCapabilities::default().with_other("tasks", json!({}));
    /// assert_eq!(serde_json::to_value(&caps)?, json!({"tasks": {}}));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    #[must_use]
    pub fn with_other(mut self, key: impl Into<String>, value: Value) -> Self {
        self.other.insert(key.into(), value);
        self
    }
}

setters!(ToolAnnotations {
    /// Sets the display title.
    with_title => title: String,
    /// Says whether the tool leaves its environment unchanged.
    with_read_only_hint => read_only_hint: bool,
    /// Says whether the tool may perform destructive updates.
    with_destructive_hint => destructive_hint: bool,
    /// Says whether repeating a call with the same arguments has no further effect.
    with_idempotent_hint => idempotent_hint: bool,
    /// Says whether the tool interacts with an open world of external entities.
    with_open_world_hint => open_world_hint: bool,
});

impl Tool {
    /// A tool with a name and an input schema (a [`serde_json::Value`], a [`JsonObject`]
    /// or a [`schemars::Schema`]; see [`IntoSchemaObject`]).
    ///
    /// ```
    /// use mcp::Tool;
    /// use serde_json::json;
    ///
    /// let tool = Tool::new("add", json!({"type": "object", "properties": {"a": {"type": "integer"}}}))
    ///     .with_description("Adds two numbers");
    /// assert_eq!(tool.input_schema["type"], "object");
    /// ```
    pub fn new(name: impl Into<String>, input_schema: impl IntoSchemaObject) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            input_schema: input_schema.into_schema_object(),
            output_schema: None,
            annotations: None,
            icons: None,
            meta: None,
        }
    }

    /// Sets the output schema (the schema of `structuredContent`).
    #[must_use]
    pub fn with_output_schema(mut self, schema: impl IntoSchemaObject) -> Self {
        self.output_schema = Some(schema.into_schema_object());
        self
    }
}

setters!(Tool {
    /// Sets the display title.
    with_title => title: String,
    /// Sets the description for the model.
    with_description => description: String,
    /// Sets the behaviour hints.
    with_annotations => annotations: ToolAnnotations,
    /// Sets the icons.
    with_icons => icons: Vec<Icon>,
    /// Sets the metadata.
    with_meta => meta: JsonObject,
});

impl ListToolsParams {
    /// The params of the first page.
    pub fn new() -> Self {
        Self::default()
    }
}

setters!(ListToolsParams {
    /// Sets the cursor of the page to fetch.
    with_cursor => cursor: String,
    /// Sets the request metadata.
    with_meta => meta: JsonObject,
});

impl ListToolsResult {
    /// A page of tools (the last one unless [`with_next_cursor`](Self::with_next_cursor)
    /// is set).
    ///
    /// ```
    /// use mcp::{ListToolsResult, Tool};
    /// use serde_json::json;
    ///
    /// let page = ListToolsResult::new(vec![Tool::new("echo", json!({"type": "object"}))])
    ///     .with_next_cursor("page-2");
    /// assert_eq!(page.tools.len(), 1);
    /// ```
    pub fn new(tools: Vec<Tool>) -> Self {
        Self {
            tools,
            ..Self::default()
        }
    }
}

setters!(ListToolsResult {
    /// Sets the cursor of the next page.
    with_next_cursor => next_cursor: String,
    /// Sets how long (ms) a client may treat the result as fresh (modern only).
    with_ttl_ms => ttl_ms: i64,
    /// Sets whether the result may be shared between callers (modern only).
    with_cache_scope => cache_scope: CacheScope,
    /// Sets the metadata.
    with_meta => meta: JsonObject,
});

impl CallToolParams {
    /// A call of tool `name` without arguments.
    ///
    /// ```
    /// use mcp::CallToolParams;
    /// use serde_json::json;
    ///
    /// let params = CallToolParams::new("add")
    ///     .with_arguments(json!({"a": 2, "b": 3}).as_object().cloned().unwrap_or_default());
    /// assert_eq!(params.name, "add");
    /// ```
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }
}

setters!(CallToolParams {
    /// Sets the arguments.
    with_arguments => arguments: JsonObject,
    /// Sets the answers to the previous round's input requests (modern continuation).
    with_input_responses => input_responses: JsonObject,
    /// Sets the echoed request state of the previous round (modern continuation).
    with_request_state => request_state: String,
    /// Sets the request metadata.
    with_meta => meta: JsonObject,
});

setters!(CallToolResult {
    /// Sets the metadata.
    with_meta => meta: JsonObject,
});

impl InputRequiredResult {
    /// An `input_required` result asking the client for `input_requests` (keyed by
    /// server-chosen strings; each value is a request such as an
    /// [`ElicitRequest`](super::ElicitRequest)).
    ///
    /// ```
    /// use mcp::{ElicitRequest, InputRequiredResult};
    /// use serde_json::json;
    ///
    /// let ask = ElicitRequest::form("Delete?", json!({"type": "object", "properties": {}}));
    /// let mut requests = serde_json::Map::new();
    /// requests.insert("confirm".into(), serde_json::to_value(&ask)?);
    /// let result = InputRequiredResult::new(requests).with_request_state("round-1");
    /// assert_eq!(result.request_state.as_deref(), Some("round-1"));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn new(input_requests: JsonObject) -> Self {
        Self {
            input_requests: Some(input_requests),
            ..Self::default()
        }
    }
}

setters!(InputRequiredResult {
    /// Sets the opaque state the client echoes on the continuation.
    with_request_state => request_state: String,
    /// Sets the metadata.
    with_meta => meta: JsonObject,
});

impl DiscoverResult {
    /// A `server/discover` result.
    pub fn new(supported_versions: Vec<String>, capabilities: ServerCapabilities) -> Self {
        Self {
            supported_versions,
            capabilities,
            instructions: None,
            result_type: None,
            ttl_ms: None,
            cache_scope: None,
            meta: None,
        }
    }
}

setters!(DiscoverResult {
    /// Sets the instructions for the model.
    with_instructions => instructions: String,
    /// Sets the cache lifetime hint in ms.
    with_ttl_ms => ttl_ms: i64,
    /// Sets the cache scope hint.
    with_cache_scope => cache_scope: CacheScope,
    /// Sets the metadata.
    with_meta => meta: JsonObject,
});

impl InitializeParams {
    /// `initialize` params asking for `protocol_version`, with empty capabilities.
    pub fn new(protocol_version: impl Into<String>, client_info: Implementation) -> Self {
        Self {
            protocol_version: protocol_version.into(),
            capabilities: ClientCapabilities::default(),
            client_info,
            meta: None,
        }
    }

    /// Sets the client capabilities.
    #[must_use]
    pub fn with_capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }
}

setters!(InitializeParams {
    /// Sets the request metadata.
    with_meta => meta: JsonObject,
});

impl InitializeResult {
    /// An `initialize` result.
    pub fn new(
        protocol_version: impl Into<String>,
        capabilities: ServerCapabilities,
        server_info: Implementation,
    ) -> Self {
        Self {
            protocol_version: protocol_version.into(),
            capabilities,
            server_info,
            instructions: None,
            meta: None,
        }
    }
}

setters!(InitializeResult {
    /// Sets the instructions for the model.
    with_instructions => instructions: String,
    /// Sets the metadata.
    with_meta => meta: JsonObject,
});

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn schemas_from_values_and_schemars() {
        let object = json!({"type": "object"});
        assert_eq!(
            Tool::new("a", object.clone()).input_schema,
            *object.as_object().unwrap()
        );
        let schema =
            schemars::json_schema!({"type": "object", "properties": {"x": {"type": "string"}}});
        assert_eq!(
            Tool::new("b", schema).input_schema["properties"]["x"]["type"],
            "string"
        );
        assert_eq!(Value::Bool(true).into_schema_object(), Map::new());
        assert_eq!(Value::Bool(false).into_schema_object()["not"], json!({}));
        assert_eq!(json!([1]).into_schema_object(), Map::new());
    }

    #[test]
    fn setters_write_the_wire_members() {
        let tool = Tool::new("t", json!({"type": "object"}))
            .with_title("T")
            .with_annotations(ToolAnnotations::default().with_read_only_hint(true))
            .with_output_schema(json!({"type": "object"}));
        assert_eq!(
            serde_json::to_value(&tool).unwrap(),
            json!({"name": "t", "title": "T", "inputSchema": {"type": "object"},
                   "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}})
        );
        let page = ListToolsResult::new(vec![])
            .with_next_cursor("2")
            .with_ttl_ms(5);
        assert_eq!(
            serde_json::to_value(&page).unwrap(),
            json!({"tools": [], "nextCursor": "2", "ttlMs": 5})
        );
        let caps = ServerCapabilities::default().with_tools(ToolsCapability::new(false));
        assert_eq!(
            serde_json::to_value(&caps).unwrap(),
            json!({"tools": {"listChanged": false}})
        );
    }
}
