//! A server's tools handed to an LLM tool-calling loop: each tool as an OpenAI-style function
//! definition, and one call that runs a model's tool call and returns the text the model
//! should see.
//!
//! The rules are seed 004's (`mcp_tools` / `mcp_tools_respond`): on success the model sees
//! the result's content rendered as text (text blocks as they are, other blocks as their
//! JSON, joined with newlines), or the JSON of `structuredContent` when there is no content;
//! a tool-level failure (`isError`) is an [`Err`] carrying that same text, so the loop can
//! tell the model the call failed.
//!
//! ```no_run
//! use mcp::client::llm::FunctionCallError;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let client = mcp::client::connect("http://localhost:9090/mcp").await?;
//! let tools = client.function_tools().await?;
//! // `tools.chat_completions()` goes into a Chat Completions request's `tools`; the model
//! // answers with a tool call (a name and a JSON arguments string):
//! let (name, arguments) = ("get_current_weather", r#"{"city":"Lisbon"}"#);
//! let for_the_model = match client.call_function(name, arguments).await {
//!     Ok(text) => text,
//!     Err(FunctionCallError::Tool(text)) => format!("The tool failed: {text}"),
//!     Err(other) => return Err(other.into()),
//! };
//! # let _ = (tools, for_the_model);
//! # Ok(())
//! # }
//! ```

use serde_json::{Map, Value, json};

#[cfg(feature = "openai")]
mod openai;
#[cfg(feature = "openai")]
pub use openai::{chat_tool_message, function_call_output};

use super::{Client, ClientError};
use crate::protocol::{CallToolResult, Tool};

/// A server's tools, as function definitions for a model.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionTools {
    tools: Vec<Tool>,
}

impl FunctionTools {
    /// Wraps tool definitions (from [`Client::list_tools`] or elsewhere).
    pub fn new(tools: Vec<Tool>) -> Self {
        Self { tools }
    }

    /// The MCP tool definitions.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The Chat Completions API's `tools` entries:
    /// `{"type": "function", "function": {"name", "description", "parameters"}}`.
    pub fn chat_completions(&self) -> Vec<Value> {
        self.tools
            .iter()
            .map(|tool| {
                let mut function = Map::new();
                function.insert("name".into(), json!(tool.name));
                if let Some(description) = description(tool) {
                    function.insert("description".into(), json!(description));
                }
                function.insert("parameters".into(), parameters(tool));
                json!({"type": "function", "function": function})
            })
            .collect()
    }

    /// The Responses API's function tools:
    /// `{"type": "function", "name", "description", "parameters", "strict": false}`
    /// (MCP input schemas are not written for strict mode).
    pub fn responses(&self) -> Vec<Value> {
        self.tools
            .iter()
            .map(|tool| {
                let mut function = Map::new();
                function.insert("type".into(), json!("function"));
                function.insert("name".into(), json!(tool.name));
                if let Some(description) = description(tool) {
                    function.insert("description".into(), json!(description));
                }
                function.insert("parameters".into(), parameters(tool));
                function.insert("strict".into(), json!(false));
                Value::Object(function)
            })
            .collect()
    }
}

/// The description a model reads: the tool's description, else its title.
fn description(tool: &Tool) -> Option<&str> {
    tool.description.as_deref().or(tool.title.as_deref())
}

/// The input schema as function parameters; an object schema without `properties` gets an
/// empty one, which some providers require.
fn parameters(tool: &Tool) -> Value {
    let mut schema = tool.input_schema.clone();
    schema
        .entry("type")
        .or_insert_with(|| Value::String("object".into()));
    schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    Value::Object(schema)
}

/// Why a model's tool call produced no result text.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FunctionCallError {
    /// The tool ran and failed (`isError`): the text the model should see.
    #[error("the tool failed: {0}")]
    Tool(String),
    /// The model's arguments are not a JSON object.
    #[error("the tool call's arguments are not a JSON object")]
    Arguments(#[source] serde_json::Error),
    /// The call itself failed (transport, protocol, JSON-RPC error).
    #[error("the tool call failed")]
    Client(#[source] ClientError),
}

/// The text a model sees for a tool result: `Ok` for a success, `Err` (the same rendering)
/// for a result flagged `isError`.
///
/// ```
/// use mcp::client::llm::model_text;
/// use mcp::{CallToolResult, Content};
/// use serde_json::json;
///
/// assert_eq!(model_text(&CallToolResult::text("21 °C")), Ok("21 °C".to_owned()));
/// let structured_only = CallToolResult::content(vec![]).with_structured(json!({"sum": 5}));
/// assert_eq!(model_text(&structured_only), Ok(r#"{"sum":5}"#.to_owned()));
/// assert_eq!(model_text(&CallToolResult::error("no such city")), Err("no such city".to_owned()));
/// ```
pub fn model_text(result: &CallToolResult) -> Result<String, String> {
    let parts: Vec<String> = result
        .content
        .iter()
        .map(|content| match content.as_text() {
            Some(text) => text.to_owned(),
            None => serde_json::to_string(content).unwrap_or_default(),
        })
        .collect();
    let text = if parts.is_empty() {
        result
            .structured_content
            .as_ref()
            .map(Value::to_string)
            .unwrap_or_default()
    } else {
        parts.join("\n")
    };
    if result.is_error() {
        Err(text)
    } else {
        Ok(text)
    }
}

impl Client {
    /// Every tool of the server (all pages), as function definitions for a model.
    pub async fn function_tools(&self) -> Result<FunctionTools, ClientError> {
        Ok(FunctionTools::new(self.list_tools().await?.tools))
    }

    /// Runs a model's tool call — the function `name` and its `arguments` as the JSON text
    /// the model produced (empty means no arguments) — and returns the text the model should
    /// see ([`model_text`]'s rules).
    pub async fn call_function(
        &self,
        name: &str,
        arguments: &str,
    ) -> Result<String, FunctionCallError> {
        let arguments: Map<String, Value> = if arguments.trim().is_empty() {
            Map::new()
        } else {
            serde_json::from_str(arguments).map_err(FunctionCallError::Arguments)?
        };
        let result = self
            .call(name)
            .arguments(arguments)
            .map_err(FunctionCallError::Client)?
            .send()
            .await
            .map_err(FunctionCallError::Client)?;
        model_text(&result).map_err(FunctionCallError::Tool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Content;

    fn tool(schema: Value) -> Tool {
        Tool::new("t", schema)
    }

    #[test]
    fn definitions_carry_name_description_and_parameters() {
        let tools = FunctionTools::new(vec![
            tool(json!({"type": "object", "properties": {"a": {"type": "integer"}}}))
                .with_description("Adds."),
            tool(json!({"type": "object"})).with_title("Bare"),
        ]);
        assert_eq!(
            tools.chat_completions()[0],
            json!({"type": "function", "function": {"name": "t", "description": "Adds.",
                "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}})
        );
        assert_eq!(
            tools.responses()[1],
            json!({"type": "function", "name": "t", "description": "Bare",
                   "parameters": {"type": "object", "properties": {}}, "strict": false})
        );
    }

    #[test]
    fn non_text_blocks_are_rendered_as_json() {
        let result = CallToolResult::content(vec![
            Content::text("a"),
            Content::image("aGk=", "image/png"),
        ]);
        let text = model_text(&result).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("a"));
        let image: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
        assert_eq!(image["type"], "image");
        assert_eq!(image["mimeType"], "image/png");
    }

    #[test]
    fn an_empty_result_is_empty_text() {
        assert_eq!(
            model_text(&CallToolResult::content(vec![])),
            Ok(String::new())
        );
    }
}
