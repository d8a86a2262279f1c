struct Prompts;

#[mcp::service(name = "prompts", advanced)]
impl Prompts {
    pub fn on_list_tools(&self) -> mcp::ListToolsResult {
        mcp::ListToolsResult::default()
    }

    pub fn on_call_tool(&self, params: mcp::CallToolParams) -> mcp::CallToolResult {
        mcp::CallToolResult::text(params.name)
    }

    pub fn on_list_prompts(&self) -> mcp::ListPromptsResult {
        mcp::ListPromptsResult::default()
    }

    pub fn on_get_prompt(&self, params: mcp::GetPromptParams) -> String {
        params.name
    }
}

fn main() {}
