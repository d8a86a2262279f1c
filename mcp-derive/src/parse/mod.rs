//! syn → model: reads the impl block, its methods and their attributes, records every
//! single-attribute error in the context, and strips the attributes the macro consumes so
//! the impl can be re-emitted.

mod advanced;
mod attrs;
mod client;
mod features;
mod middleware;
mod types;

pub use client::client_trait;
pub use types::lend;

use darling::util::SpannedValue;

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::ext::IdentExt as _;
use syn::spanned::Spanned;
use syn::{
    Expr, ExprLit, ExprUnary, FnArg, ImplItem, ImplItemFn, ItemImpl, Lit, LitStr, Pat, ReturnType,
    Type, UnOp, Visibility,
};

use crate::diag::{Code, Ctxt, error, plain};
use crate::doc;
use crate::model::{
    AnnotationsDef, CacheHintDef, OutputPolicy, ParamDef, ProtocolMode, ServiceDef, SessionMode,
    ToolDef,
};
use crate::symbol::{ARGUMENT, HTTP_HEADER, LEGACY_STRUCTURED_OUTPUT, TOOL};
use attrs::{ArgumentAttr, ServiceArgs, ToolAttr};

/// Reads the service; `item` loses the attributes the macro consumes.
pub fn service(cx: &Ctxt, args: TokenStream, item: &mut ItemImpl) -> ServiceDef {
    let args = match darling::ast::NestedMeta::parse_meta_list(args) {
        Ok(list) => <ServiceArgs as darling::FromMeta>::from_list(&list).unwrap_or_else(|e| {
            cx.push_darling(e);
            ServiceArgs::default()
        }),
        Err(e) => {
            cx.push(e);
            ServiceArgs::default()
        }
    };
    if !item.generics.params.is_empty() {
        cx.push(plain(item.generics.span(), "`#[mcp::service]` does not support generic impl blocks: tool schemas are computed once per service"));
    }
    if let Some((_, path, _)) = &item.trait_ {
        cx.push(plain(
            path.span(),
            "`#[mcp::service]` goes on an inherent impl block, not a trait impl",
        ));
    }
    let krate = match &args.krate {
        Some(lit) => lit.parse::<syn::Path>().unwrap_or_else(|e| {
            cx.push(e);
            syn::parse_quote!(::mcp)
        }),
        None => syn::parse_quote!(::mcp),
    };
    let protocol_mode = match mode_value(
        cx,
        args.protocol_mode.as_ref(),
        "protocol_mode",
        PROTOCOL_MODES,
    ) {
        None => ProtocolMode::Auto,
        Some((v, span)) => match v.as_str() {
            "auto" => ProtocolMode::Auto,
            "modern" => ProtocolMode::Modern,
            "legacy" => ProtocolMode::Legacy,
            other => {
                cx.push(plain(
                    span,
                    format!("unknown protocol mode `{other}`: expected {PROTOCOL_MODES}"),
                ));
                ProtocolMode::Auto
            }
        },
    };
    let session_mode = match mode_value(
        cx,
        args.session_mode.as_ref(),
        "session_mode",
        SESSION_MODES,
    ) {
        None => SessionMode::Auto,
        Some((v, span)) => match v.as_str() {
            "auto" => SessionMode::Auto,
            "stateful" => SessionMode::Stateful,
            "stateless" => SessionMode::Stateless,
            other => {
                cx.push(plain(
                    span,
                    format!("unknown session mode `{other}`: expected {SESSION_MODES}"),
                ));
                SessionMode::Auto
            }
        },
    };
    let (discover_cache, list_tools_cache) = match &args.cache {
        Some(c) => (
            c.discover.as_ref().map(|h| hint(cx, h)),
            c.list_tools.as_ref().map(|h| hint(cx, h)),
        ),
        None => (None, None),
    };
    let positive = |v: &Option<SpannedValue<u64>>, what: &str| -> Option<u64> {
        let v = v.as_ref()?;
        if **v == 0 {
            cx.push(plain(v.span(), format!("`{what}` must be positive")));
        }
        Some(**v)
    };
    let session_limits = args.session_limits.as_ref().map(|l| {
        (
            positive(&l.idle_timeout_secs, "idle_timeout_secs"),
            positive(&l.max_per_owner, "max_per_owner"),
            positive(&l.max_anonymous, "max_anonymous"),
        )
    });
    let request_state_ttl = args
        .request_state
        .as_ref()
        .and_then(|r| positive(&r.ttl_secs, "ttl_secs"));
    let allowed_origins = args.allowed_origins.clone().unwrap_or_default();
    for o in &allowed_origins {
        let v = o.value();
        if v != "*" && !v.contains("://") {
            cx.push(plain(
                o.span(),
                format!("allowed origin {v:?} is not `*` or a scheme://host[:port] origin"),
            ));
        }
    }
    let lint_attrs = attrs::lint_attrs(&item.attrs);
    let advanced = args.advanced.is_present();
    if let Some(v) = args.legacy_structured_output.as_ref().filter(|_| advanced) {
        cx.push(plain(v.span(), format!("`{LEGACY_STRUCTURED_OUTPUT}` applies to basic services: an advanced service's object-rooted `outputSchema` and `structuredContent` already reach legacy clients")));
    }
    let mut found = Found::default();
    let (mut tools, mut advanced, restricted) = if advanced {
        (Vec::new(), advanced::methods_of(cx, item), Vec::new())
    } else {
        let (tools, restricted) = basic_tools(cx, item, &mut found);
        (tools, None, restricted)
    };
    // Generated checks live outside the impl, where `Self` means nothing: name the type.
    let mut de_self = DeSelf(&item.self_ty);
    let params = tools
        .iter_mut()
        .flat_map(|t| t.params.iter_mut().map(|p| &mut p.ty).chain(&mut t.output));
    let adv = advanced.iter_mut().flat_map(|a| &mut a.hooks);
    let adv = adv.flat_map(|m| m.params.iter_mut().map(|p| &mut p.ty).chain(&mut m.output));
    let feature_methods = found
        .resources
        .iter_mut()
        .map(|r| &mut r.method)
        .chain(found.prompts.iter_mut().map(|p| &mut p.method))
        .chain(found.completers.iter_mut().map(|c| &mut c.method));
    let feature_types =
        feature_methods.flat_map(|m| m.params.iter_mut().map(|p| &mut p.ty).chain(&mut m.output));
    for ty in params.chain(adv).chain(feature_types) {
        syn::visit_mut::VisitMut::visit_type_mut(&mut de_self, ty);
    }
    let client = args
        .client
        .as_ref()
        .and_then(|c| client_name(cx, c, &item.self_ty, advanced.is_some()));
    ServiceDef {
        client,
        krate,
        self_ty: (*item.self_ty).clone(),
        lint_attrs,
        name: args.name,
        version: args.version,
        title: args.title,
        instructions: args.instructions,
        protocol_mode,
        session_mode,
        discover_cache,
        list_tools_cache,
        allowed_origins,
        session_limits,
        request_state_ttl,
        legacy_structured_output: args.legacy_structured_output.map(|v| *v),
        tools,
        cfg_errors: Vec::new(),
        restricted,
        advanced,
        resources: found.resources,
        prompts: found.prompts,
        completers: found.completers,
    }
}

/// The name of the typed client `client` asks for: the one given, or `<Service>Client`.
fn client_name(
    cx: &Ctxt,
    arg: &attrs::ClientArg,
    self_ty: &Type,
    advanced: bool,
) -> Option<syn::Ident> {
    if advanced {
        cx.push(plain(
            Span::call_site(),
            "`client` applies to basic services: an advanced service's tools are listed at run time, so there is nothing to type a client by",
        ));
        return None;
    }
    if let Some(name) = &arg.0 {
        return match syn::parse_str::<syn::Ident>(&name.value()) {
            Ok(ident) => Some(syn::Ident::new(&ident.to_string(), name.span())),
            Err(_) => {
                cx.push(plain(
                    name.span(),
                    format!(
                        "`client = {:?}`: the client's name must be a Rust identifier",
                        name.value()
                    ),
                ));
                None
            }
        };
    }
    match self_ty {
        Type::Path(p) if p.qself.is_none() => p
            .path
            .segments
            .last()
            .map(|s| syn::Ident::new(&format!("{}Client", s.ident.unraw()), s.ident.span())),
        other => {
            cx.push(plain(
                other.span(),
                "a typed client is named after the service type: name it with `client = \"Name\"`",
            ));
            None
        }
    }
}

/// The resource, prompt and completer methods of a basic service.
#[derive(Default)]
struct Found {
    resources: Vec<crate::model::ResourceDef>,
    prompts: Vec<crate::model::PromptDef>,
    completers: Vec<crate::model::CompleterDef>,
}

const PROTOCOL_MODES: &str = "\"auto\", \"modern\" or \"legacy\"";
const SESSION_MODES: &str = "\"auto\", \"stateful\" or \"stateless\"";

/// The string of `key = "..."`; any other value is reported with the accepted ones.
fn mode_value(
    cx: &Ctxt,
    expr: Option<&attrs::RawExpr>,
    key: &str,
    accepted: &str,
) -> Option<(String, Span)> {
    match &expr?.0 {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some((s.value(), s.span())),
        other => {
            cx.push(plain(
                other.span(),
                format!(
                    "`{key}` takes a string: {accepted} (found `{}`)",
                    other.to_token_stream()
                ),
            ));
            None
        }
    }
}

/// Replaces `Self` in a type by the impl's type, spanned where `Self` was written.
struct DeSelf<'a>(&'a Type);

impl syn::visit_mut::VisitMut for DeSelf<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(p) = ty
            && p.qself.is_none()
            && p.path.is_ident("Self")
        {
            let span = p.path.span();
            *ty = syn::parse2(respan(self.0.to_token_stream(), span))
                .unwrap_or_else(|_| self.0.clone());
            return;
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// `tokens` with every token (and group) spanned at `span`.
pub fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            proc_macro2::TokenTree::Group(g) => {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                group.into()
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}

fn hint(cx: &Ctxt, h: &attrs::HintArgs) -> CacheHintDef {
    let ttl_ms = match &h.ttl_ms {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<i64>().unwrap_or_else(|e| {
            cx.push(e);
            0
        }),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => {
            cx.push(plain(
                h.ttl_ms.span(),
                format!(
                    "a cache hint's `ttl_ms` must not be negative (found `{}`)",
                    h.ttl_ms.to_token_stream()
                ),
            ));
            let _ = expr;
            0
        }
        other => {
            cx.push(plain(
                other.span(),
                "`ttl_ms` must be an integer literal (milliseconds)",
            ));
            0
        }
    };
    let public = match h.scope.as_ref().map(LitStr::value).as_deref() {
        None | Some("private") => false,
        Some("public") => true,
        Some(other) => {
            cx.push(plain(
                h.scope.as_ref().map_or(Span::call_site(), LitStr::span),
                format!("unknown cache scope `{other}`: expected \"public\" or \"private\""),
            ));
            false
        }
    };
    CacheHintDef { ttl_ms, public }
}

/// The methods of the impl with their positions in its items.
fn methods(item: &mut ItemImpl) -> impl Iterator<Item = (usize, &mut ImplItemFn)> {
    item.items
        .iter_mut()
        .enumerate()
        .filter_map(|(i, it)| match it {
            ImplItem::Fn(f) => Some((i, f)),
            _ => None,
        })
}

fn basic_tools(
    cx: &Ctxt,
    item: &mut ItemImpl,
    found: &mut Found,
) -> (Vec<ToolDef>, Vec<(usize, Span)>) {
    let self_ty = (*item.self_ty).clone();
    let mut tools = Vec::new();
    let mut restricted = Vec::new();
    for (index, method) in methods(item) {
        if features::is_feature(method) {
            match features::method(cx, index, method, &self_ty) {
                Some(features::Feature::Resource(r)) => found.resources.push(r),
                Some(features::Feature::Prompt(p)) => found.prompts.push(p),
                Some(features::Feature::Completer(c)) => found.completers.push(c),
                None => {}
            }
            continue;
        }
        let tool_attrs = attrs::take(&mut method.attrs, TOOL);
        let attr = tool_attr(cx, &tool_attrs, |second| {
            plain(second.span(), "duplicate `#[tool]` attribute")
        });
        if attr.skip.is_present() {
            if attr.has_options() {
                cx.push(plain(
                    attr.skip.span(),
                    "`#[tool(skip)]` marks a method that is not a tool: it takes no other options",
                ));
            }
            strip_param_attrs(cx, method, true);
            continue;
        }
        let receiver = types::receiver(&method.sig, &self_ty);
        match (&method.vis, &receiver) {
            (Visibility::Public(_), types::Receiver::Shared) => {}
            (Visibility::Public(_), types::Receiver::Other(span)) => {
                cx.push(plain(
                    *span,
                    format!(
                        "tool `{}` must take `&self` (or `self: &Self`); mark a method that is not a tool `#[tool(skip)]`",
                        method.sig.ident.unraw()
                    ),
                ));
                strip_param_attrs(cx, method, false);
                continue;
            }
            (_, types::Receiver::None) => {
                // Constructors and other associated functions are not tools.
                if let Some(a) = tool_attrs.first() {
                    cx.push(plain(
                        a.span(),
                        "`#[tool]` on an associated function: a tool is a method taking `&self`",
                    ));
                }
                strip_param_attrs(cx, method, !tool_attrs.is_empty());
                continue;
            }
            (vis, receiver) => {
                if let Some(a) = tool_attrs.first() {
                    cx.push(plain(
                        a.span(),
                        "`#[tool]` on a method that is not `pub`: only `pub` methods are tools",
                    ));
                } else if let (Visibility::Restricted(r), types::Receiver::Shared) = (vis, receiver)
                    && !r.path.is_ident("self")
                {
                    // `pub(crate)`, `pub(super)`, `pub(in path)`: MCP_WARNING_901
                    // (`pub(self)` is private).
                    restricted.push((index, r.span()));
                }
                strip_param_attrs(cx, method, false);
                continue;
            }
        }
        // The macro serves it: a private service type makes `unreachable_pub` fire on every
        // tool, and its fix (`pub(crate)`) would silently remove the tool.
        method
            .attrs
            .push(syn::parse_quote!(#[allow(unreachable_pub)]));
        if let Some(tool) = tool(cx, index, method, attr) {
            tools.push(tool);
        }
    }
    (tools, restricted)
}

/// The keys of a method's `#[tool]` attributes (`tool_attrs`, taken from it); a second one
/// is the error `duplicate` makes of it.
fn tool_attr(
    cx: &Ctxt,
    tool_attrs: &[syn::Attribute],
    duplicate: impl Fn(&syn::Attribute) -> syn::Error,
) -> ToolAttr {
    match tool_attrs {
        [] => ToolAttr::default(),
        [one] => attrs::parse_list::<ToolAttr>(one).unwrap_or_else(|e| {
            cx.push_darling(e);
            ToolAttr::default()
        }),
        [_, second, ..] => {
            cx.push(duplicate(second));
            ToolAttr::default()
        }
    }
}

/// Rules on a tool's or advanced method's signature other than the receiver.
fn check_signature(cx: &Ctxt, method: &ImplItemFn, what: &str) {
    let sig = &method.sig;
    if types::has_type_generics(sig) {
        cx.push(error(
            Code::Mcp201,
            sig.generics.span(),
            format!(
                "the input schema of `{}` cannot be generated: tool methods cannot have type or const parameters",
                sig.ident.unraw()
            ),
        ));
    }
    if let Some(t) = &sig.unsafety {
        cx.push(plain(
            t.span,
            format!("{what} cannot be `unsafe fn`: the generated call would be unsafe"),
        ));
    }
}

fn tool(cx: &Ctxt, index: usize, method: &mut ImplItemFn, attr: ToolAttr) -> Option<ToolDef> {
    check_signature(cx, method, "tool");
    let docs = doc::parse(&method.attrs);
    let params = params(cx, method, true, &docs);
    let ident = method.sig.ident.clone();
    let (name, name_span) = match &attr.name {
        Some(l) => (l.value(), l.span()),
        // `r#type` is the tool `type`: the raw prefix is Rust syntax, not part of the name.
        None => (ident.unraw().to_string(), ident.span()),
    };
    let output = return_type(cx, &method.sig);
    if let Some(schema) = &attr.schema {
        match serde_json::from_str::<serde_json::Value>(&schema.value()) {
            Ok(serde_json::Value::Object(o))
                if o.get("type").and_then(|t| t.as_str()) == Some("object") => {}
            Ok(_) => cx.push(error(
                Code::Mcp201,
                schema.span(),
                "an explicit input schema's root must be an object schema (`\"type\": \"object\"`)",
            )),
            Err(e) => cx.push(error(
                Code::Mcp201,
                schema.span(),
                format!("the explicit input schema is not valid JSON: {e}"),
            )),
        }
    }
    if let Some(schema) = &attr.output_schema {
        match serde_json::from_str::<serde_json::Value>(&schema.value()) {
            Ok(serde_json::Value::Object(_)) => {}
            Ok(_) => cx.push(plain(
                schema.span(),
                "an output schema must be a JSON object",
            )),
            Err(e) => cx.push(plain(
                schema.span(),
                format!("the output schema is not valid JSON: {e}"),
            )),
        }
    }
    let policy = match &attr.structured_output {
        None => OutputPolicy::Auto,
        Some(v) if **v => OutputPolicy::Required,
        Some(_) => OutputPolicy::Disabled,
    };
    let legacy_structured_output = attr.legacy_structured_output.as_ref().map(|v| {
        if **v && policy == OutputPolicy::Disabled {
            cx.push(plain(v.span(), format!("`{LEGACY_STRUCTURED_OUTPUT} = true` on a tool with `structured_output = false`: the tool has no output schema to send; drop one of the two")));
        }
        **v
    });
    let annotations = attr.annotations.map(|a| AnnotationsDef {
        title: a.title,
        read_only: a.read_only,
        destructive: a.destructive,
        idempotent: a.idempotent,
        open_world: a.open_world,
    });
    Some(ToolDef {
        ident,
        index,
        name,
        name_span,
        title: attr.title.map(|l| l.value()),
        description: attr.description.map(|l| l.value()).or(docs.description),
        annotations,
        input_schema: attr.schema,
        output_schema: attr.output_schema,
        policy,
        legacy_structured_output,
        scopes: attr.scopes.unwrap_or_default(),
        task: attr.task,
        params,
        output,
        is_async: method.sig.asyncness.is_some(),
        generic: types::has_type_generics(&method.sig),
        cfg_attrs: attrs::cfg_attrs(&method.attrs),
        lint_attrs: attrs::lint_attrs(&method.attrs),
        middleware: middleware::middleware(cx, attr.middleware),
    })
}

fn return_type(cx: &Ctxt, sig: &syn::Signature) -> Option<Type> {
    let mut ty = return_type_of(cx, &sig.output)?;
    types::erase_method_lifetimes(sig, &mut ty);
    Some(ty)
}

fn return_type_of(cx: &Ctxt, output: &ReturnType) -> Option<Type> {
    match output {
        ReturnType::Default => None,
        ReturnType::Type(_, ty) => {
            if let Type::ImplTrait(t) = &**ty {
                cx.push(plain(
                    t.span(),
                    "a tool cannot return `impl Trait`: name the return type",
                ));
            }
            match &**ty {
                Type::Tuple(t) if t.elems.is_empty() => None,
                ty => Some(ty.clone()),
            }
        }
    }
}

/// Reads the parameters after `&self`, stripping `#[argument]` and `#[http_header]`.
fn params(
    cx: &Ctxt,
    method: &mut ImplItemFn,
    arguments_allowed: bool,
    docs: &doc::Docs,
) -> Vec<ParamDef> {
    let mut out = Vec::new();
    for input in method.sig.inputs.iter_mut() {
        let FnArg::Typed(pt) = input else { continue };
        let argument_attrs = attrs::take(&mut pt.attrs, ARGUMENT);
        let header_attrs = attrs::take(&mut pt.attrs, HTTP_HEADER);
        let ident = match &*pt.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
            other => {
                cx.push(error(Code::Mcp201, other.span(), "the tool's input schema cannot be generated: a parameter must be a plain name, not a pattern"));
                continue;
            }
        };
        if let Type::ImplTrait(t) = &*pt.ty {
            cx.push(error(Code::Mcp201, t.span(), format!("the input schema cannot be generated for `{ident}`: `impl Trait` parameters have no JSON Schema")));
            continue;
        }
        let mut argument = ArgumentAttr::default();
        match argument_attrs.as_slice() {
            [] => {}
            [one] if arguments_allowed => match attrs::parse_list::<ArgumentAttr>(one) {
                Ok(a) => argument = a,
                Err(e) => cx.push_darling(e),
            },
            [one] => cx.push(plain(
                one.span(),
                "`#[argument]` applies to tool parameters; advanced methods have no arguments",
            )),
            [_, second, ..] => cx.push(plain(second.span(), "duplicate `#[argument]` attribute")),
        }
        if let Some(h) = &argument.header
            && !is_token(&h.value())
        {
            cx.push(error(Code::Mcp216, h.span(), format!("invalid header name {:?}: a header name is a non-empty token of letters, digits and !#$%&'*+-.^_`|~", h.value())));
        }
        let http_header = match header_attrs.as_slice() {
            [] => None,
            [one] => match one.parse_args::<LitStr>() {
                Ok(l) if is_token(&l.value()) => Some(l),
                Ok(l) => {
                    cx.push(error(
                        Code::Mcp208,
                        l.span(),
                        format!(
                            "invalid `#[http_header]` name {:?}: not an HTTP header name",
                            l.value()
                        ),
                    ));
                    None
                }
                Err(e) => {
                    cx.push(error(
                        Code::Mcp208,
                        e.span(),
                        "`#[http_header]` takes the header name: `#[http_header(\"X-Name\")]`",
                    ));
                    None
                }
            },
            [_, second, ..] => {
                cx.push(plain(second.span(), "duplicate `#[http_header]` attribute"));
                None
            }
        };
        if let (Some(h), Some(_)) = (&http_header, &argument.header) {
            cx.push(plain(
                h.span(),
                "a parameter is either a `#[http_header]` value or a tool argument, not both",
            ));
        }
        let description = argument
            .description
            .map(|d| d.value())
            .or_else(|| docs.arguments.get(&ident.unraw().to_string()).cloned());
        let (ty, by_ref) = types::owned_param(&pt.ty);
        if let Some(fix) = types::nested_borrow_fix(&ty) {
            cx.push(error(
                Code::Mcp202,
                pt.ty.span(),
                format!(
                    "parameter `{}` borrows inside `{}`: arguments are read owned, and only a whole-parameter reference (`&str`, `&[T]`, `&T`) can be lent; declare `{}`",
                    ident.unraw(),
                    types::display(&pt.ty),
                    types::display(&fix)
                ),
            ));
            continue;
        }
        out.push(ParamDef {
            ident,
            ty,
            by_ref,
            description,
            header_arg: argument.header,
            http_header,
        });
    }
    out
}

fn strip_param_attrs(cx: &Ctxt, method: &mut ImplItemFn, report: bool) {
    for input in method.sig.inputs.iter_mut() {
        if let FnArg::Typed(pt) = input {
            for a in attrs::take(&mut pt.attrs, ARGUMENT)
                .iter()
                .chain(&attrs::take(&mut pt.attrs, HTTP_HEADER))
            {
                if report {
                    cx.push(plain(
                        a.span(),
                        "parameter attributes apply to tools and advanced methods only",
                    ));
                }
            }
        }
    }
}

/// `true` for a non-empty RFC 9110 token.
pub fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}
