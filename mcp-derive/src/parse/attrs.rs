//! darling receivers for the attribute arguments, and attribute matching by exact path.

use darling::FromMeta;
use darling::ast::NestedMeta;
use darling::util::{Flag, SpannedValue};
use syn::{Attribute, Expr, LitStr, Meta};

use crate::symbol::CRATE;

/// `#[mcp::service(...)]`.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct ServiceArgs {
    pub name: Option<LitStr>,
    pub version: Option<LitStr>,
    pub title: Option<LitStr>,
    pub instructions: Option<LitStr>,
    /// Any expression, so that a non-string value gets a message naming the accepted ones.
    pub protocol_mode: Option<RawExpr>,
    /// As `protocol_mode`.
    pub session_mode: Option<RawExpr>,
    pub cache: Option<CacheArgs>,
    pub allowed_origins: Option<Vec<LitStr>>,
    pub session_limits: Option<SessionLimitsArgs>,
    pub request_state: Option<RequestStateArgs>,
    pub advanced: Flag,
    pub legacy_structured_output: Option<SpannedValue<bool>>,
    #[darling(rename = "crate")]
    pub krate: Option<LitStr>,
    /// `client` or `client = "Name"`.
    pub client: Option<ClientArg>,
}

/// `client` (the typed client named `<Service>Client`) or `client = "Name"`.
#[derive(Debug)]
pub struct ClientArg(pub Option<LitStr>);

impl FromMeta for ClientArg {
    fn from_word() -> darling::Result<Self> {
        Ok(Self(None))
    }

    fn from_string(_: &str) -> darling::Result<Self> {
        Err(darling::Error::custom(
            "unreachable: read through from_expr",
        ))
    }

    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        match expr {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Ok(Self(Some(s.clone()))),
            other => Err(darling::Error::custom(
                "`client` takes no value, or the client's name as a string: `client = \"WeatherApi\"`",
            )
            .with_span(other)),
        }
    }
}

/// `#[mcp::client(...)]`.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct ClientTraitArgs {
    #[darling(rename = "crate")]
    pub krate: Option<LitStr>,
    /// The client's name (default `<Trait>Client`).
    pub name: Option<LitStr>,
}

/// The value of `key = <expr>` as written (darling's `Expr` would parse a string's
/// contents as an expression).
#[derive(Debug)]
pub struct RawExpr(pub Expr);

impl FromMeta for RawExpr {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        Ok(Self(expr.clone()))
    }
}

/// `session_limits(idle_timeout_secs = 1800, max_per_owner = 100, max_anonymous = 10_000)`.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct SessionLimitsArgs {
    pub idle_timeout_secs: Option<SpannedValue<u64>>,
    pub max_per_owner: Option<SpannedValue<u64>>,
    pub max_anonymous: Option<SpannedValue<u64>>,
}

/// `request_state(ttl_secs = 300)` (keys are secrets: they are given at run time).
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct RequestStateArgs {
    pub ttl_secs: Option<SpannedValue<u64>>,
}

/// `cache(discover(...), list_tools(...))`.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct CacheArgs {
    pub discover: Option<HintArgs>,
    pub list_tools: Option<HintArgs>,
}

/// `discover(ttl_ms = 300000, scope = "public")`.
#[derive(Debug, FromMeta)]
pub struct HintArgs {
    pub ttl_ms: Expr,
    #[darling(default)]
    pub scope: Option<LitStr>,
}

/// `#[tool(...)]`.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct ToolAttr {
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    pub annotations: Option<AnnotationsArgs>,
    pub schema: Option<LitStr>,
    pub output_schema: Option<LitStr>,
    pub structured_output: Option<SpannedValue<bool>>,
    pub legacy_structured_output: Option<SpannedValue<bool>>,
    pub scopes: Option<Vec<LitStr>>,
    /// `task = "optional" | "required" | "forbidden"` (checked by validate, MCP_601).
    pub task: Option<LitStr>,
    /// `#[tool(skip)]`: a `pub` method that is not a tool.
    pub skip: Flag,
    /// `layer`, `timeout`, `rate_limit`, `concurrency`, `concurrency_per_caller`.
    #[darling(flatten)]
    pub middleware: MiddlewareArgs,
}

impl ToolAttr {
    /// `true` when an option other than `skip` is given.
    pub fn has_options(&self) -> bool {
        self.name.is_some()
            || self.title.is_some()
            || self.description.is_some()
            || self.annotations.is_some()
            || self.schema.is_some()
            || self.output_schema.is_some()
            || self.structured_output.is_some()
            || self.legacy_structured_output.is_some()
            || self.scopes.is_some()
            || self.task.is_some()
            || !self.middleware.is_empty()
    }
}

/// The middleware keys shared by `#[tool]`, `#[prompt]` and `#[resource]`. Each value is
/// kept as written: `parse::middleware` checks it (MCP_401), so that a value of the wrong
/// kind gets a message naming the accepted ones.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct MiddlewareArgs {
    /// `layer = <expr>`, in written order.
    #[darling(multiple)]
    pub layer: Vec<RawExpr>,
    /// `timeout = "30s"`.
    pub timeout: Option<RawExpr>,
    /// `rate_limit = "10/min"`.
    pub rate_limit: Option<RawExpr>,
    /// `concurrency = 4`.
    pub concurrency: Option<RawExpr>,
    /// `concurrency_per_caller = 2`.
    pub concurrency_per_caller: Option<RawExpr>,
}

impl MiddlewareArgs {
    /// `true` when no middleware key is given.
    pub fn is_empty(&self) -> bool {
        self.layer.is_empty()
            && self.timeout.is_none()
            && self.rate_limit.is_none()
            && self.concurrency.is_none()
            && self.concurrency_per_caller.is_none()
    }
}

/// `annotations(read_only = true, ...)`.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct AnnotationsArgs {
    pub title: Option<String>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

/// `#[resource(...)]`.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct ResourceAttr {
    pub uri: Option<LitStr>,
    pub template: Option<LitStr>,
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    pub mime_type: Option<LitStr>,
    pub annotations: Option<ResourceAnnotationsArgs>,
    pub size: Option<SpannedValue<u64>>,
    #[darling(flatten)]
    pub middleware: MiddlewareArgs,
}

/// `annotations(audience = ["user"], priority = 0.5)` of a resource.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct ResourceAnnotationsArgs {
    pub audience: Option<Vec<LitStr>>,
    pub priority: Option<syn::Lit>,
}

/// `#[prompt(...)]`.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct PromptAttr {
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    #[darling(flatten)]
    pub middleware: MiddlewareArgs,
}

/// `#[complete(...)]`.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct CompleteAttr {
    pub prompt: Option<LitStr>,
    pub template: Option<LitStr>,
    pub argument: Option<LitStr>,
}

/// `#[argument(...)]`.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
pub struct ArgumentAttr {
    pub header: Option<LitStr>,
    pub description: Option<LitStr>,
}

/// `true` when `attr` is `#[name(...)]` or `#[mcp::name(...)]` (exact path).
pub fn is_attr(attr: &Attribute, name: &str) -> bool {
    let path = attr.path();
    let segs: Vec<_> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match segs.as_slice() {
        [one] => path.leading_colon.is_none() && one == name,
        [krate, one] => krate == CRATE && one == name,
        _ => false,
    }
}

/// Removes the attributes named `name` from `attrs` and returns them.
pub fn take(attrs: &mut Vec<Attribute>, name: &str) -> Vec<Attribute> {
    let (taken, kept) = std::mem::take(attrs)
        .into_iter()
        .partition(|a| is_attr(a, name));
    *attrs = kept;
    taken
}

/// Parses the arguments of a list attribute with darling.
pub fn parse_list<T: FromMeta>(attr: &Attribute) -> darling::Result<T> {
    match &attr.meta {
        Meta::List(list) => {
            let items = NestedMeta::parse_meta_list(list.tokens.clone())?;
            T::from_list(&items)
        }
        Meta::Path(_) => T::from_list(&[]),
        Meta::NameValue(_) => Err(darling::Error::unsupported_format("name-value").with_span(attr)),
    }
}

/// The attributes of `attrs` that are lints (`allow`, `expect`, `warn`, `deny`).
pub fn lint_attrs(attrs: &[Attribute]) -> Vec<Attribute> {
    attrs
        .iter()
        .filter(|a| {
            crate::symbol::LINT_ATTRS
                .iter()
                .any(|l| a.path().is_ident(l))
        })
        .cloned()
        .collect()
}

/// The `#[cfg(...)]` attributes of `attrs`.
pub fn cfg_attrs(attrs: &[Attribute]) -> Vec<Attribute> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .cloned()
        .collect()
}
