//! Attribute keywords, named once.

/// `#[tool(...)]` on a method.
pub const TOOL: &str = "tool";
/// `#[argument(...)]` on a parameter.
pub const ARGUMENT: &str = "argument";
/// `#[http_header("X-Name")]` on a parameter (a raw HTTP request header).
pub const HTTP_HEADER: &str = "http_header";
/// `legacy_structured_output = ...` on the service and on a tool.
pub const LEGACY_STRUCTURED_OUTPUT: &str = "legacy_structured_output";
/// The crate path segment attributes may be written under (`#[mcp::tool]`).
pub const CRATE: &str = "mcp";
/// The advanced list method.
pub const ON_LIST_TOOLS: &str = "on_list_tools";
/// The advanced call method.
pub const ON_CALL_TOOL: &str = "on_call_tool";
/// The advanced resource list hook.
pub const ON_LIST_RESOURCES: &str = "on_list_resources";
/// The advanced resource template list hook.
pub const ON_LIST_RESOURCE_TEMPLATES: &str = "on_list_resource_templates";
/// The advanced resource read hook.
pub const ON_READ_RESOURCE: &str = "on_read_resource";
/// The advanced prompt list hook.
pub const ON_LIST_PROMPTS: &str = "on_list_prompts";
/// The advanced prompt hook.
pub const ON_GET_PROMPT: &str = "on_get_prompt";
/// The advanced completion hook.
pub const ON_COMPLETE: &str = "on_complete";
/// Lint attributes copied onto generated check items.
pub const LINT_ATTRS: [&str; 4] = ["allow", "expect", "warn", "deny"];
/// `#[resource(...)]` on a method.
pub const RESOURCE: &str = "resource";
/// `#[prompt(...)]` on a method.
pub const PROMPT: &str = "prompt";
/// `#[complete(...)]` on a method.
pub const COMPLETE: &str = "complete";
/// `timeout = "30s"` on a tool, prompt or resource.
pub const TIMEOUT: &str = "timeout";
/// `rate_limit = "10/min"` on a tool, prompt or resource.
pub const RATE_LIMIT: &str = "rate_limit";
/// `concurrency = N` on a tool, prompt or resource.
pub const CONCURRENCY: &str = "concurrency";
/// `concurrency_per_caller = N` on a tool, prompt or resource.
pub const CONCURRENCY_PER_CALLER: &str = "concurrency_per_caller";
