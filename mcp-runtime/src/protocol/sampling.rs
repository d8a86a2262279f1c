//! Sampling (`sampling/createMessage`): a server asks the client's model for a completion.
//! The request travels as a real server→client request on legacy sessions and as an input
//! request of an `input_required` result on the modern protocol; the shapes are the same.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Content, JsonObject, Role};

/// The method name of a sampling request.
pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";

/// One message of a sampling conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said: text, image or audio.
    pub content: Content,
}

impl SamplingMessage {
    /// A message of `role` with `content`.
    pub fn new(role: Role, content: Content) -> Self {
        Self { role, content }
    }

    /// A user text message.
    pub fn user(text: impl Into<String>) -> Self {
        Self::new(Role::User, Content::text(text))
    }

    /// An assistant text message.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::new(Role::Assistant, Content::text(text))
    }
}

/// The params of `sampling/createMessage`: what the server asks the client's model.
///
/// ```
/// let ask = mcp::SamplingRequest::new(vec![mcp::SamplingMessage::user("Summarise: ...")], 200)
///     .with_system_prompt("You write one-line summaries.")
///     .with_temperature(0.2);
/// let wire = serde_json::to_value(&ask).unwrap();
/// assert_eq!(wire["maxTokens"], 200);
/// assert_eq!(wire["messages"][0]["content"]["type"], "text");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SamplingRequest {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// The most tokens the client's model may produce.
    pub max_tokens: u64,
    /// A system prompt the client may use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Sequences that stop the generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Model preferences (`hints`, `costPriority`, `speedPriority`, `intelligencePriority`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<JsonObject>,
    /// Which MCP context to include (`none`, `thisServer`, `allServers`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<String>,
    /// Provider-specific metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

impl SamplingRequest {
    /// A request for at most `max_tokens` tokens continuing `messages`.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        Self {
            messages,
            max_tokens,
            system_prompt: None,
            temperature: None,
            stop_sequences: None,
            model_preferences: None,
            include_context: None,
            metadata: None,
        }
    }

    /// Sets the system prompt.
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Sets the temperature.
    pub fn with_temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Sets the stop sequences.
    pub fn with_stop_sequences(mut self, stops: Vec<String>) -> Self {
        self.stop_sequences = Some(stops);
        self
    }

    /// Sets the model preferences.
    pub fn with_model_preferences(mut self, preferences: JsonObject) -> Self {
        self.model_preferences = Some(preferences);
        self
    }
}

/// The client's answer to `sampling/createMessage`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SamplingResult {
    /// Who speaks (the model: usually `assistant`).
    pub role: Role,
    /// What the model produced.
    pub content: Content,
    /// The model that produced it.
    pub model: String,
    /// Why it stopped (`endTurn`, `stopSequence`, `maxTokens`, or another reason).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl SamplingResult {
    /// A result of `model` with `content` spoken by `role`.
    pub fn new(role: Role, content: Content, model: impl Into<String>) -> Self {
        Self {
            role,
            content,
            model: model.into(),
            stop_reason: None,
            meta: None,
        }
    }

    /// Sets the stop reason.
    pub fn with_stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }

    /// The text of a text answer.
    pub fn text(&self) -> Option<&str> {
        self.content.as_text()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn result_roundtrips_and_rejects_other_shapes() {
        let wire = json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m", "stopReason": "endTurn"});
        let r: SamplingResult = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(r.text(), Some("hi"));
        assert_eq!(serde_json::to_value(&r).unwrap(), wire);
        for bad in [
            json!({"action": "accept"}),
            json!({"role": "assistant", "content": {"type": "text", "text": "x"}}),
            json!({"role": "robot", "content": {"type": "text", "text": "x"}, "model": "m"}),
            json!("text"),
        ] {
            assert!(serde_json::from_value::<SamplingResult>(bad).is_err());
        }
    }
}
