//! The same bridge in the types of [`async_openai`] (feature `openai`): tool definitions a
//! request builder accepts as they are, the model's tool calls taken as the crate parses
//! them, and the messages that carry the answers back.
//!
//! Only the crate's type modules are compiled (`chat-completion-types`, `response-types`):
//! the feature adds no HTTP client of its own.

use async_openai::types::chat::{
    ChatCompletionMessageToolCall, ChatCompletionRequestToolMessage,
    ChatCompletionRequestToolMessageContent, ChatCompletionTool, ChatCompletionTools,
    FunctionObject,
};
use async_openai::types::responses::{
    FunctionCallOutput, FunctionCallOutputItemParam, FunctionTool, FunctionToolCall, Tool,
};

use super::{FunctionCallError, FunctionTools, description, parameters};
use crate::client::Client;

impl FunctionTools {
    /// The Chat Completions `tools`, as `async_openai` types (the same definitions as
    /// [`chat_completions`](Self::chat_completions)).
    pub fn chat_completion_tools(&self) -> Vec<ChatCompletionTools> {
        self.tools()
            .iter()
            .map(|tool| {
                ChatCompletionTools::Function(ChatCompletionTool {
                    function: FunctionObject {
                        name: tool.name.clone(),
                        description: description(tool).map(str::to_owned),
                        parameters: Some(parameters(tool)),
                        strict: None,
                    },
                })
            })
            .collect()
    }

    /// The Responses API function tools, as `async_openai` types (the same definitions as
    /// [`responses`](Self::responses)).
    pub fn response_tools(&self) -> Vec<Tool> {
        self.tools()
            .iter()
            .map(|tool| {
                Tool::Function(FunctionTool {
                    name: tool.name.clone(),
                    description: description(tool).map(str::to_owned),
                    parameters: Some(parameters(tool)),
                    strict: Some(false),
                    ..FunctionTool::default()
                })
            })
            .collect()
    }
}

impl Client {
    /// Runs a Chat Completions tool call ([`call_function`](Self::call_function) with its
    /// name and arguments).
    pub async fn call_chat_tool_call(
        &self,
        call: &ChatCompletionMessageToolCall,
    ) -> Result<String, FunctionCallError> {
        self.call_function(&call.function.name, &call.function.arguments)
            .await
    }

    /// Runs a Responses API function call ([`call_function`](Self::call_function) with its
    /// name and arguments).
    pub async fn call_response_function_call(
        &self,
        call: &FunctionToolCall,
    ) -> Result<String, FunctionCallError> {
        self.call_function(&call.name, &call.arguments).await
    }
}

/// The Chat Completions `tool` message answering the tool call `tool_call_id` with `text`.
pub fn chat_tool_message(
    tool_call_id: impl Into<String>,
    text: impl Into<String>,
) -> ChatCompletionRequestToolMessage {
    ChatCompletionRequestToolMessage {
        content: ChatCompletionRequestToolMessageContent::Text(text.into()),
        tool_call_id: tool_call_id.into(),
    }
}

/// The Responses API `function_call_output` input item answering the call `call_id` with
/// `text`.
pub fn function_call_output(
    call_id: impl Into<String>,
    text: impl Into<String>,
) -> FunctionCallOutputItemParam {
    FunctionCallOutputItemParam {
        call_id: Some(call_id.into()),
        output: FunctionCallOutput::Text(text.into()),
        id: None,
        status: None,
        name: None,
        namespace: None,
        caller: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Tool as McpTool;
    use serde_json::{Value, json};

    fn tools() -> FunctionTools {
        let with_props = McpTool::new(
            "add",
            json!({"type": "object", "properties": {"a": {"type": "integer"}}})
                .as_object()
                .cloned()
                .unwrap(),
        )
        .with_description("Add");
        let bare = McpTool::new("ping", json!({}));
        FunctionTools::new(vec![with_props, bare])
    }

    #[test]
    fn the_typed_definitions_are_the_json_ones() {
        let tools = tools();
        assert_eq!(
            json!(tools.chat_completion_tools()),
            Value::Array(tools.chat_completions())
        );
        assert_eq!(
            json!(tools.response_tools()),
            Value::Array(tools.responses())
        );
    }

    #[test]
    fn answers_are_shaped_for_the_apis() {
        assert_eq!(
            json!(
                async_openai::types::chat::ChatCompletionRequestMessage::Tool(chat_tool_message(
                    "call_1", "5"
                ))
            ),
            json!({"role": "tool", "tool_call_id": "call_1", "content": "5"})
        );
        assert_eq!(
            json!(function_call_output("fc_1", "5")),
            json!({"call_id": "fc_1", "output": "5"})
        );
    }
}
