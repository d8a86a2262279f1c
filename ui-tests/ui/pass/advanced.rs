//! `#[mcp::service(advanced)]` implements `mcp::AdvancedService`: the application lists and
//! dispatches its tools (and here serves resources, prompts and completion through the other
//! hooks); the macro binds the hooks' parameters by type, maps their results, names the
//! service from its attribute and declares the features its hooks define.
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use mcp::protocol::Era;
use mcp::__private::{ServiceHandler as _, ServiceKind};
use mcp::{
    AdvancedService as _, CallToolParams, CallToolResult, CompleteParams, CompleteResult, Completion,
    GetPromptParams, GetPromptResponse, GetPromptResult, ListPromptsResult, ListResourcesResult, ListToolsResult,
    Prompt, PromptMessage, ReadResourceParams, ReadResourceResult, Reference, Resource,
    ResourceContents, ServerError, Tool,
};
use serde_json::json;
use support::*;

struct Echo;

#[mcp::service(name = "echo", version = "1.0.0", title = "Echo", instructions = "Echoes.", advanced)]
impl Echo {
    pub async fn on_list_tools(&self, cursor: Option<String>) -> Result<ListToolsResult, ServerError> {
        if let Some(cursor) = cursor {
            return Err(ServerError::invalid_params(format!("Unknown cursor: {cursor}")));
        }
        let schema = json!({"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]});
        let tool = Tool::new("echo", schema);
        Ok(ListToolsResult::new(vec![tool]))
    }

    pub fn on_call_tool(&self, params: CallToolParams, headers: http::HeaderMap) -> Result<CallToolResult, ServerError> {
        if params.name != "echo" {
            return Err(ServerError::invalid_params(format!("Unknown tool: {}", params.name)));
        }
        let value = params
            .arguments
            .as_ref()
            .and_then(|a| a.get("value"))
            .and_then(|v| v.as_str())
            .unwrap_or_default();
        let from = headers.get("x-from").and_then(|v| v.to_str().ok()).unwrap_or("?");
        Ok(CallToolResult::text(format!("{value} (from {from})")))
    }

    pub fn on_list_resources(&self) -> ListResourcesResult {
        ListResourcesResult::new(vec![Resource::new("echo://last", "last")])
    }

    pub async fn on_read_resource(
        &self,
        params: ReadResourceParams,
        #[http_header("X-From")] from: Option<String>,
    ) -> Result<ReadResourceResult, ServerError> {
        if params.uri != "echo://last" {
            return Err(ServerError::resource_not_found(&params.uri));
        }
        let text = from.unwrap_or_else(|| "?".into());
        Ok(ReadResourceResult::new(vec![ResourceContents::text(params.uri, text)]))
    }

    pub fn on_list_prompts(&self, _cursor: Option<String>) -> ListPromptsResult {
        ListPromptsResult::new(vec![Prompt::new("greet")])
    }

    pub fn on_get_prompt(&self, params: &GetPromptParams) -> Result<GetPromptResult, ServerError> {
        Ok(GetPromptResult::new(vec![PromptMessage::user(format!("hello from {}", params.name))]))
    }

    pub fn on_complete(&self, params: CompleteParams, _context: mcp::Context) -> CompleteResult {
        CompleteResult::new(Completion::new(vec![format!("{}!", params.argument.value)]))
    }

    fn helper(&self) -> &'static str {
        "private helpers are allowed"
    }
}

fn main() {
    assert_eq!(Echo.info().name, "echo");
    assert_eq!(Echo.info().title.as_deref(), Some("Echo"));
    assert_eq!(Echo.features(), mcp::Features::none().with_resources().with_prompts().with_completions());
    assert_eq!(Echo.helper(), "private helpers are allowed");
    let svc = advanced(Echo);
    assert_eq!(svc.kind(), ServiceKind::Advanced);
    let tools = tools(&svc);
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "echo");

    let cx = request(Era::Modern, &[]);
    let err = block_on(svc.list_tools(Some("p2".into()), &cx)).unwrap_err();
    assert!(matches!(err, ServerError::InvalidParams(_)), "{err:?}");

    let cx = request(Era::Modern, &[("X-From", "ui")]);
    let r = complete(call_in(&svc, &cx, "echo", json!({"value": "hi"})));
    assert_eq!(r.joined_text(), "hi (from ui)");
    assert!(call(&svc, "nope", json!({})).is_err());

    let listed = block_on(svc.list_resources(None, &cx)).unwrap();
    assert_eq!(listed.resources[0].uri, "echo://last");
    let read = block_on(svc.read_resource(ReadResourceParams::new("echo://last"), &cx)).unwrap();
    assert_eq!(read.contents[0], ResourceContents::text("echo://last", "ui"));
    assert!(block_on(svc.read_resource(ReadResourceParams::new("echo://other"), &cx)).is_err());
    assert!(block_on(svc.list_resource_templates(None, &cx)).is_err(), "not defined: method not found");
    assert_eq!(block_on(svc.list_prompts(None, &cx)).unwrap().prompts[0].name, "greet");
    let prompt = block_on(svc.get_prompt(GetPromptParams::new("greet"), &cx)).unwrap();
    let GetPromptResponse::Complete(prompt) = prompt else { panic!("asked for input") };
    assert_eq!(prompt.messages[0], PromptMessage::user("hello from greet"));
    let reference = Reference::Prompt { name: "greet".into() };
    let completed = block_on(svc.complete(CompleteParams::new(reference, "who", "wor"), &cx)).unwrap();
    assert_eq!(completed.completion.values, ["wor!"]);

    let server = server(Echo);
    assert_eq!((server.info().name.as_str(), server.info().version.as_str()), ("echo", "1.0.0"));
    let _ = mcp::transport::http::router("/mcp", server);
}
