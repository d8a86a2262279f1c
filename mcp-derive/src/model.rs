//! The model between syn and quote: plain data with spans. `expand` reads only this.

use proc_macro2::Span;
use syn::{Attribute, Expr, Ident, LitStr, Path, Type};

/// Protocol mode of a service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProtocolMode {
    /// Both eras.
    Auto,
    /// 2026-07-28 only.
    Modern,
    /// initialize-based only.
    Legacy,
}

/// Session mode of a service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionMode {
    /// Decided by the request lifecycle.
    Auto,
    /// Sessions required.
    Stateful,
    /// No sessions.
    Stateless,
}

/// A cache hint from the attribute.
#[derive(Clone, Debug)]
pub struct CacheHintDef {
    /// Freshness in ms.
    pub ttl_ms: i64,
    /// `true` for public.
    pub public: bool,
}

/// Structured-output policy of a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputPolicy {
    /// Omitted.
    Auto,
    /// `structured_output = true`.
    Required,
    /// `structured_output = false`.
    Disabled,
}

/// Tool annotations from the attribute.
#[derive(Clone, Debug, Default)]
pub struct AnnotationsDef {
    /// Display title hint.
    pub title: Option<String>,
    /// `read_only`.
    pub read_only: Option<bool>,
    /// `destructive`.
    pub destructive: Option<bool>,
    /// `idempotent`.
    pub idempotent: Option<bool>,
    /// `open_world`.
    pub open_world: Option<bool>,
}

/// The service.
pub struct ServiceDef {
    /// The runtime crate path (`::mcp` unless `crate = "..."`).
    pub krate: Path,
    /// The implementing type.
    pub self_ty: Type,
    /// Lint attributes of the impl, copied onto generated check items.
    pub lint_attrs: Vec<Attribute>,
    /// Server name (default: the crate name).
    pub name: Option<LitStr>,
    /// Server version (default: the crate version).
    pub version: Option<LitStr>,
    /// Display title.
    pub title: Option<LitStr>,
    /// Instructions for the model.
    pub instructions: Option<LitStr>,
    /// Protocol mode.
    pub protocol_mode: ProtocolMode,
    /// Session mode.
    pub session_mode: SessionMode,
    /// `server/discover` cache hint.
    pub discover_cache: Option<CacheHintDef>,
    /// `tools/list` cache hint.
    pub list_tools_cache: Option<CacheHintDef>,
    /// Allowed browser origins.
    pub allowed_origins: Vec<LitStr>,
    /// `session_limits(...)`: idle timeout (s), per owner, anonymous; `None` keeps defaults.
    pub session_limits: Option<(Option<u64>, Option<u64>, Option<u64>)>,
    /// `request_state(ttl_secs = ...)`.
    pub request_state_ttl: Option<u64>,
    /// `legacy_structured_output = ...`: whether legacy clients of 2025-06-18 or later get
    /// output schemas and structured content (`None` keeps the runtime default, off).
    pub legacy_structured_output: Option<bool>,
    /// Basic tools (empty for advanced services).
    pub tools: Vec<ToolDef>,
    /// Errors whose verdict depends on `#[cfg]`s (a name used twice under different cfgs, a
    /// completer of a prompt that is compiled out): each is emitted under the `#[cfg(...)]`
    /// that holds where it is an error and judged where cfgs are resolved.
    pub cfg_errors: Vec<CfgError>,
    /// `pub(crate)`/`pub(super)` methods with a `&self` receiver that are not tools
    /// (MCP_WARNING_901): the index of the method in the impl and the visibility's span.
    pub restricted: Vec<(usize, Span)>,
    /// The advanced methods, for `#[mcp::service(advanced)]`.
    pub advanced: Option<AdvancedDef>,
    /// `#[resource]` methods (static resources and templates), in declaration order.
    pub resources: Vec<ResourceDef>,
    /// `#[prompt]` methods.
    pub prompts: Vec<PromptDef>,
    /// `#[complete]` methods.
    pub completers: Vec<CompleterDef>,
    /// `client` / `client = "Name"`: the name of the typed client to generate.
    pub client: Option<Ident>,
}

/// A trait under `#[mcp::client]`: the tools of a server written elsewhere.
pub struct ClientTraitDef {
    /// The runtime crate path.
    pub krate: Path,
    /// The trait's visibility, given to the client.
    pub vis: syn::Visibility,
    /// The client's name (`<Trait>Client`).
    pub client: Ident,
    /// The trait's doc comments and lint attributes, carried to the client.
    pub attrs: Vec<Attribute>,
    /// One per method.
    pub tools: Vec<ToolDef>,
}

/// What the resource, prompt and completer methods share.
pub struct MethodDef {
    /// The method.
    pub ident: Ident,
    /// Its position in the impl's items.
    pub index: usize,
    /// Parameters after `&self`.
    pub params: Vec<ParamDef>,
    /// The return type (`None` for `()`).
    pub output: Option<Type>,
    /// The span a missing return type is reported at (the method name).
    pub sig_span: Span,
    /// `async fn`.
    pub is_async: bool,
    /// `#[cfg]` attributes, copied onto every fragment generated for the method.
    pub cfg_attrs: Vec<Attribute>,
    /// Lint attributes of the method.
    pub lint_attrs: Vec<Attribute>,
}

/// A `#[resource(uri = ...)]` or `#[resource(template = ...)]` method.
pub struct ResourceDef {
    /// The method.
    pub method: MethodDef,
    /// The URI or URI template.
    pub uri: LitStr,
    /// Whether `uri` is a template.
    pub template: bool,
    /// The template's variables.
    pub vars: Vec<String>,
    /// The resource name.
    pub name: String,
    /// Display title.
    pub title: Option<String>,
    /// Description.
    pub description: Option<String>,
    /// MIME type.
    pub mime_type: Option<String>,
    /// Audience annotation.
    pub audience: Vec<String>,
    /// Priority annotation.
    pub priority: Option<f64>,
    /// Size in bytes.
    pub size: Option<u64>,
    /// Its own layers (on its URI or template).
    pub middleware: MiddlewareDef,
}

/// A `#[prompt]` method.
pub struct PromptDef {
    /// The method.
    pub method: MethodDef,
    /// The prompt name.
    pub name: String,
    /// The span of the name.
    pub name_span: Span,
    /// Display title.
    pub title: Option<String>,
    /// Description.
    pub description: Option<String>,
    /// Its own layers.
    pub middleware: MiddlewareDef,
}

/// A `#[complete(...)]` method.
pub struct CompleterDef {
    /// The method.
    pub method: MethodDef,
    /// `prompt = ...` or `template = ...`.
    pub target: LitStr,
    /// Whether `target` is a template.
    pub template: bool,
    /// `argument = ...`.
    pub argument: LitStr,
}

/// An error that holds only in the builds where a cfg predicate does.
pub struct CfgError {
    /// The predicate (`all(unix, test)`), emitted as `#[cfg(<predicate>)]`.
    pub cfg: proc_macro2::TokenStream,
    /// The span to report at (the second name, the completer's target).
    pub span: Span,
    /// The message.
    pub message: String,
}

/// A basic tool (a `pub` method).
pub struct ToolDef {
    /// The method.
    pub ident: Ident,
    /// Its position in the impl's items (two methods of one name may exist under exclusive
    /// `#[cfg]`s).
    pub index: usize,
    /// The tool name and the span to report it at.
    pub name: String,
    /// Span of the name (the `name = "..."` literal or the method ident).
    pub name_span: Span,
    /// Display title.
    pub title: Option<String>,
    /// Description.
    pub description: Option<String>,
    /// Annotations.
    pub annotations: Option<AnnotationsDef>,
    /// Explicit input schema (JSON text) and its literal.
    pub input_schema: Option<LitStr>,
    /// Explicit output schema (JSON text) and its literal.
    pub output_schema: Option<LitStr>,
    /// Policy and the span of `structured_output`.
    pub policy: OutputPolicy,
    /// `legacy_structured_output = ...` on the tool (`None` follows the service).
    pub legacy_structured_output: Option<bool>,
    /// Scopes.
    pub scopes: Vec<LitStr>,
    /// `task = "..."` as written (validated to `optional`, `required` or `forbidden`).
    pub task: Option<LitStr>,
    /// Parameters after `&self`.
    pub params: Vec<ParamDef>,
    /// The return type (`None` for `()`).
    pub output: Option<Type>,
    /// `async fn`.
    pub is_async: bool,
    /// The method has generic parameters (an MCP_201 error): its types cannot be checked
    /// outside the method, so no check is generated for it.
    pub generic: bool,
    /// `#[cfg]` attributes, copied onto every fragment generated for the tool.
    pub cfg_attrs: Vec<Attribute>,
    /// Lint attributes of the method.
    pub lint_attrs: Vec<Attribute>,
    /// Its own layers.
    pub middleware: MiddlewareDef,
}

/// The layers of one tool, prompt or resource from its middleware keys, checked (MCP_401).
/// The generated layers run outermost first in the order of the fields.
#[derive(Default)]
pub struct MiddlewareDef {
    /// `rate_limit = "<n>/<unit>"`: `n` requests per period, and the period in seconds.
    pub rate_limit: Option<(u32, u64)>,
    /// `concurrency_per_caller = N`.
    pub concurrency_per_caller: Option<usize>,
    /// `concurrency = N`.
    pub concurrency: Option<usize>,
    /// `layer = <expr>`, in written order (checked by the compiler: MCP_402).
    pub layers: Vec<Expr>,
    /// `timeout = "..."`, in nanoseconds (innermost).
    pub timeout_nanos: Option<u64>,
}

impl MiddlewareDef {
    /// `true` when the method has no layer of its own.
    pub fn is_empty(&self) -> bool {
        self.rate_limit.is_none()
            && self.concurrency_per_caller.is_none()
            && self.concurrency.is_none()
            && self.layers.is_empty()
            && self.timeout_nanos.is_none()
    }
}

/// A parameter of a tool or advanced method.
pub struct ParamDef {
    /// The binding.
    pub ident: Ident,
    /// The type the value is bound as: the declared type, or for a reference (`&T`,
    /// `&mut T`) the owned type it borrows from (`&str` → `String`, `&[T]` → `Vec<T>`,
    /// `&T` → `T`), with every lifetime made `'static` (the value is owned by the call).
    pub ty: Type,
    /// `Some(mutable)` when the method takes a reference: the call lends the bound value.
    pub by_ref: Option<bool>,
    /// Description.
    pub description: Option<String>,
    /// `#[argument(header = "...")]`.
    pub header_arg: Option<LitStr>,
    /// `#[http_header("...")]`.
    pub http_header: Option<LitStr>,
}

/// The hooks an advanced service defines, in the impl's order.
pub struct AdvancedDef {
    /// One per hook the impl defines (`on_list_tools` and `on_call_tool` always).
    pub hooks: Vec<AdvancedMethod>,
}

impl AdvancedDef {
    /// Whether the impl defines `hook`.
    pub fn has(&self, hook: Hook) -> bool {
        self.hooks.iter().any(|m| m.hook == hook)
    }
}

/// A hook of `mcp::AdvancedService`, which an advanced service's `on_*` method defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hook {
    /// `on_list_tools`.
    ListTools,
    /// `on_call_tool`.
    CallTool,
    /// `on_list_resources`.
    ListResources,
    /// `on_list_resource_templates`.
    ListResourceTemplates,
    /// `on_read_resource`.
    ReadResource,
    /// `on_list_prompts`.
    ListPrompts,
    /// `on_get_prompt`.
    GetPrompt,
    /// `on_complete`.
    Complete,
}

impl Hook {
    /// Every hook, in the trait's order.
    pub const ALL: [Self; 8] = [
        Self::ListTools,
        Self::CallTool,
        Self::ListResources,
        Self::ListResourceTemplates,
        Self::ReadResource,
        Self::ListPrompts,
        Self::GetPrompt,
        Self::Complete,
    ];

    /// The method name (in the impl and in the trait).
    pub fn name(self) -> &'static str {
        use crate::symbol::*;
        match self {
            Self::ListTools => ON_LIST_TOOLS,
            Self::CallTool => ON_CALL_TOOL,
            Self::ListResources => ON_LIST_RESOURCES,
            Self::ListResourceTemplates => ON_LIST_RESOURCE_TEMPLATES,
            Self::ReadResource => ON_READ_RESOURCE,
            Self::ListPrompts => ON_LIST_PROMPTS,
            Self::GetPrompt => ON_GET_PROMPT,
            Self::Complete => ON_COMPLETE,
        }
    }

    /// The hook named `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|h| h.name() == name)
    }
}

/// One advanced method.
pub struct AdvancedMethod {
    /// The hook it defines.
    pub hook: Hook,
    /// The method name.
    pub ident: Ident,
    /// Its position in the impl's items.
    pub index: usize,
    /// The span a missing return type is reported at (the method name).
    pub sig_span: Span,
    /// Its parameters after `&self`.
    pub params: Vec<ParamDef>,
    /// Its return type (`None` for `()`).
    pub output: Option<Type>,
    /// `async fn`.
    pub is_async: bool,
    /// Lint attributes.
    pub lint_attrs: Vec<Attribute>,
}
