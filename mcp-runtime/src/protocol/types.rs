//! MCP messages shared by both eras: implementations, capabilities, tools,
//! `tools/list`, `tools/call`, `server/discover` and `initialize`.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::Content;

/// A JSON object.
pub type JsonObject = Map<String, Value>;

/// Deserializes a present member as `Some`, even when it is `null` (for members where
/// `null` is a legitimate value, such as modern `structuredContent`).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// An icon (MCP 2025-11-25 shape: `src` required, inline data as a `data:` URI).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Icon {
    /// URL or `data:` URI of the image.
    pub src: String,
    /// MIME type of the image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes, such as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// `"light"` or `"dark"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

/// The identity of a client or server (`clientInfo` / `serverInfo`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Version string.
    pub version: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Website of the implementation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
}

/// The `tools` server capability.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolsCapability {
    /// Whether the server sends `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// Server capabilities (both eras; `tasks` is never sent).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerCapabilities {
    /// Experimental capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Logging.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// Argument completion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// Prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<JsonObject>,
    /// Resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<JsonObject>,
    /// Tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// Extensions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
}

/// The `elicitation` client capability.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitationCapability {
    /// Form mode support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// URL mode support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
}

impl ElicitationCapability {
    /// Form support: declared explicitly, or implied by an empty capability.
    pub fn supports_form(&self) -> bool {
        self.form.is_some() || (self.form.is_none() && self.url.is_none())
    }

    /// URL support (declared explicitly).
    pub fn supports_url(&self) -> bool {
        self.url.is_some()
    }
}

/// Client capabilities (both eras; unknown members are kept).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientCapabilities {
    /// Elicitation support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Sampling support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<JsonObject>,
    /// Roots support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<JsonObject>,
    /// Experimental capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Other members, kept as sent.
    #[serde(flatten)]
    pub other: JsonObject,
}

/// Tool behaviour hints.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// Display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same arguments has no further effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// A tool definition as listed by `tools/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// Unique name.
    pub name: String,
    /// Display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments; the root is an object schema.
    pub input_schema: JsonObject,
    /// JSON Schema of `structuredContent` (any root on modern; object root on legacy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Whether a cached result may be shared between callers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Only for the same authorization context (the default).
    #[default]
    Private,
    /// Shareable between callers.
    Public,
}

/// `resultType` of a modern result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ResultType {
    /// The operation completed.
    Complete,
    /// The server needs input before it can complete (`input_required`).
    InputRequired,
    /// The request goes on as a task (`task`, the tasks extension): the result is a
    /// [`Task`](crate::protocol::Task) handle.
    Task,
}

/// `tools/list` params.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ListToolsParams {
    /// The cursor of the page to fetch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// `tools/list` result. On modern results the server adds `resultType`, `ttlMs`,
/// `cacheScope` and the server-info `_meta`; a value set here by an advanced service wins
/// over the configured hint.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListToolsResult {
    /// The tools of this page.
    pub tools: Vec<Tool>,
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

/// `tools/call` params.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolParams {
    /// The tool name.
    pub name: String,
    /// The arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// Answers to the previous round's input requests (modern continuation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<JsonObject>,
    /// The request state of the previous round, echoed (modern continuation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Request metadata (without the reserved envelope keys on the server side).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CallToolParams {
    /// Moves the params of a `tools/call` out of their JSON object without rebuilding the
    /// `arguments` and `_meta` objects (what `serde_json::from_value` does), in one pass over
    /// the object. `Err(map)`, untouched, when a member has a type deserializing would
    /// refuse: the caller then deserializes `map` for the exact error. Other members are
    /// ignored, as by deserializing.
    pub(crate) fn take(map: JsonObject) -> Result<Self, JsonObject> {
        let valid = map.contains_key("name")
            && map.iter().all(|(key, value)| match key.as_str() {
                "name" => value.is_string(),
                "arguments" | "inputResponses" | "_meta" => value.is_object() || value.is_null(),
                "requestState" => value.is_string() || value.is_null(),
                _ => true,
            });
        if !valid {
            return Err(map);
        }
        let mut params = Self {
            name: String::new(),
            arguments: None,
            input_responses: None,
            request_state: None,
            meta: None,
        };
        for (key, value) in map {
            match (key.as_str(), value) {
                ("name", serde_json::Value::String(s)) => params.name = s,
                ("arguments", serde_json::Value::Object(o)) => params.arguments = Some(o),
                ("inputResponses", serde_json::Value::Object(o)) => {
                    params.input_responses = Some(o);
                }
                ("_meta", serde_json::Value::Object(o)) => params.meta = Some(o),
                ("requestState", serde_json::Value::String(s)) => params.request_state = Some(s),
                _ => {}
            }
        }
        Ok(params)
    }
}

/// A complete `tools/call` result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolResult {
    /// Content blocks (always sent, `[]` when empty).
    #[serde(default)]
    pub content: Vec<Content>,
    /// Structured result: any JSON value on modern, an object on legacy.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// `true` for a tool-level failure (a successful JSON-RPC result).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// `"complete"` on modern results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CallToolResult {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![Content::text(text)],
            ..Self::default()
        }
    }

    /// A tool-level failure with one text block.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            content: vec![Content::text(text)],
            is_error: Some(true),
            ..Self::default()
        }
    }

    /// A successful result with the given content blocks.
    pub fn content(content: Vec<Content>) -> Self {
        Self {
            content,
            ..Self::default()
        }
    }

    /// Sets `structuredContent`.
    pub fn with_structured(mut self, value: Value) -> Self {
        self.structured_content = Some(value);
        self
    }
}

/// A modern `input_required` result: the server needs answers before it can complete.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InputRequiredResult {
    /// Input requests keyed by server-chosen strings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<JsonObject>,
    /// Opaque state the client echoes on the continuation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// `"input_required"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
    /// Asked before the call becomes a task (see [`before_task`](Self::before_task)); not
    /// sent.
    #[serde(skip)]
    pub before_task: bool,
}

impl InputRequiredResult {
    /// Marks these requests as asked in the `tools/call` itself, before a task-capable
    /// call becomes a task (SEP-2322 rounds; SEP-2663 recommends resolving them before
    /// creating the task). Without the mark, a task-capable call asks through its task
    /// (`tasks/get` shows the requests, `tasks/update` answers them).
    #[must_use]
    pub fn before_task(mut self) -> Self {
        self.before_task = true;
        self
    }
}

/// What a `tools/call` handler answers: a complete result, or a request for input.
#[derive(Clone, Debug, PartialEq)]
pub enum CallToolResponse {
    /// The call completed (possibly with `isError`).
    Complete(CallToolResult),
    /// The server needs input (modern only).
    InputRequired(InputRequiredResult),
}

impl From<CallToolResult> for CallToolResponse {
    fn from(r: CallToolResult) -> Self {
        Self::Complete(r)
    }
}

impl From<InputRequiredResult> for CallToolResponse {
    fn from(r: InputRequiredResult) -> Self {
        Self::InputRequired(r)
    }
}

/// `server/discover` result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DiscoverResult {
    /// Modern versions the server speaks.
    pub supported_versions: Vec<String>,
    /// Server capabilities.
    pub capabilities: ServerCapabilities,
    /// Instructions for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// `"complete"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Cache lifetime hint in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<i64>,
    /// Cache scope hint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Metadata; carries the server identity under `io.modelcontextprotocol/serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// `initialize` params (legacy).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeParams {
    /// The version the client asks for.
    pub protocol_version: String,
    /// Client capabilities.
    #[serde(default)]
    pub capabilities: ClientCapabilities,
    /// Client identity.
    pub client_info: Implementation,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// `initialize` result (legacy).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeResult {
    /// The negotiated version.
    pub protocol_version: String,
    /// Server capabilities.
    pub capabilities: ServerCapabilities,
    /// Server identity.
    pub server_info: Implementation,
    /// Instructions for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `CallToolParams::take` reads what deserializing reads, and leaves to it what it
    /// would refuse.
    #[test]
    fn take_agrees_with_deserializing() {
        let read = [
            json!({"name": "add", "arguments": {"a": 1}, "_meta": {"progressToken": 1}}),
            json!({"name": "add", "arguments": null, "requestState": "s", "other": [1]}),
            json!({"name": "add", "inputResponses": {"k": {}}, "requestState": null}),
            json!({"name": "add"}),
        ];
        for params in read {
            let map = params.as_object().unwrap().clone();
            let expected: CallToolParams = serde_json::from_value(params.clone()).unwrap();
            assert_eq!(CallToolParams::take(map), Ok(expected), "{params}");
        }
        let refused = [
            json!({}),
            json!({"name": 1}),
            json!({"name": "add", "arguments": [1]}),
            json!({"name": "add", "requestState": 2}),
            json!({"name": "add", "_meta": "x"}),
            json!({"name": "add", "inputResponses": true}),
        ];
        for params in refused {
            let map = params.as_object().unwrap().clone();
            assert_eq!(
                CallToolParams::take(map).as_ref().err(),
                params.as_object(),
                "left untouched: {params}"
            );
            assert!(serde_json::from_value::<CallToolParams>(params).is_err());
        }
    }
}
