//! Wire types of prompts (`prompts/list`, `prompts/get`; identical in both eras, modern
//! results add `resultType` and the server-info `_meta`): a prompt, its arguments and
//! messages, and `prompts/get`'s params and answers (a result, or the input it needs first).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Content, Icon, JsonObject, ResultType, Role};

/// An argument of a prompt.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptArgument {
    /// The argument name.
    pub name: String,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the argument must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

impl PromptArgument {
    /// An argument named `name`, required or not.
    pub fn new(name: impl Into<String>, required: bool) -> Self {
        Self {
            name: name.into(),
            description: None,
            required: Some(required),
        }
    }
}

setters!(PromptArgument {
    /// Sets the description.
    with_description => description: String,
});

/// A prompt, as `prompts/list` lists it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Prompt {
    /// The prompt name.
    pub name: String,
    /// Display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl Prompt {
    /// A prompt named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }
}

setters!(Prompt {
    /// Sets the display title.
    with_title => title: String,
    /// Sets the description.
    with_description => description: String,
    /// Sets the arguments.
    with_arguments => arguments: Vec<PromptArgument>,
    /// Sets the icons.
    with_icons => icons: Vec<Icon>,
});

/// `prompts/get` params. Argument values are strings on the wire; a modern continuation of
/// an `input_required` answer adds `inputResponses` and `requestState`, as on `tools/call`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetPromptParams {
    /// The prompt name.
    pub name: String,
    /// The arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Answers to the previous round's input requests, keyed like the requests (modern
    /// continuation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<JsonObject>,
    /// The request state of the previous round, echoed (modern continuation). The server
    /// verifies it before the prompt runs, which then sees the plain state it returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Request metadata (without the reserved envelope keys on the server side).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl GetPromptParams {
    /// Params getting prompt `name` without arguments.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }

    /// Sets argument `name`.
    #[must_use]
    pub fn with_argument(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.arguments
            .get_or_insert_with(BTreeMap::new)
            .insert(name.into(), value.into());
        self
    }
}

setters!(GetPromptParams {
    /// Sets the answers to the previous round's input requests (modern continuation).
    with_input_responses => input_responses: JsonObject,
    /// Sets the echoed request state of the previous round (modern continuation).
    with_request_state => request_state: String,
    /// Sets the request metadata.
    with_meta => meta: JsonObject,
});

/// One message of a prompt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptMessage {
    /// Who speaks.
    pub role: Role,
    /// One content block (text, image, audio, resource link or embedded resource).
    pub content: Content,
}

impl PromptMessage {
    /// A message of `role` with `content`.
    pub fn new(role: Role, content: Content) -> Self {
        Self { role, content }
    }

    /// A user text message.
    ///
    /// ```
    /// let m = mcp::PromptMessage::user("Review this code");
    /// assert_eq!(m.content.as_text(), Some("Review this code"));
    /// ```
    pub fn user(text: impl Into<String>) -> Self {
        Self::new(Role::User, Content::text(text))
    }

    /// An assistant text message.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::new(Role::Assistant, Content::text(text))
    }
}

/// `prompts/get` result (no cache hints in either era).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetPromptResult {
    /// Description of the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// `"complete"` on modern results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl GetPromptResult {
    /// A result with these messages.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        Self {
            messages,
            ..Self::default()
        }
    }

    /// Sets the description.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// What a `prompts/get` handler answers: the prompt's messages, or (modern only; legacy
/// clients on a session are asked with real requests and the prompt runs again) a request
/// for input first, as [`CallToolResponse`](super::CallToolResponse) is for a tool.
///
/// ```
/// use mcp::{GetPromptResponse, GetPromptResult, InputRequired, PromptMessage};
///
/// let done: GetPromptResponse = GetPromptResult::new(vec![PromptMessage::user("Hi")]).into();
/// assert!(matches!(done, GetPromptResponse::Complete(_)));
/// let ask: GetPromptResponse = InputRequired::new().state("waiting").into();
/// assert!(matches!(ask, GetPromptResponse::InputRequired(_)));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum GetPromptResponse {
    /// The prompt's messages.
    Complete(GetPromptResult),
    /// The server needs input first (modern only).
    InputRequired(super::InputRequiredResult),
}

impl From<GetPromptResult> for GetPromptResponse {
    fn from(r: GetPromptResult) -> Self {
        Self::Complete(r)
    }
}

impl From<super::InputRequiredResult> for GetPromptResponse {
    fn from(r: super::InputRequiredResult) -> Self {
        Self::InputRequired(r)
    }
}
