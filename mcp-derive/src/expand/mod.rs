//! model → tokens. Generated code is thin: it names types and calls `::mcp::__private`.

mod advanced;
mod basic;
mod checks;
mod client;
mod features;
mod middleware;

use proc_macro2::{Punct, Spacing, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::ItemImpl;
use syn::ext::IdentExt as _;
use syn::spanned::Spanned as _;

use crate::model::{CacheHintDef, ParamDef, ProtocolMode, ServiceDef, SessionMode};

/// The user's impl (attributes stripped, warnings nested in its methods) and, in a
/// `const _` block, the generated handler and checks.
pub fn service(svc: &ServiceDef, item: &ItemImpl) -> TokenStream {
    let handler = match &svc.advanced {
        Some(adv) => advanced::handler(svc, adv),
        None => basic::handler(svc),
    };
    let checks = checks::service(svc);
    let feature_checks = features::checks(svc);
    let item = with_warnings(svc, item);
    let shared = shared_items(svc, false);
    let (client, client_checks) = client::service_client(svc);
    quote! {
        #item
        #shared
        #client
        const _: () = {
            #handler
            #checks
            #feature_checks
            #client_checks
        };
    }
}

/// The typed client of an `#[mcp::client]` trait (the trait itself is consumed).
pub fn client_trait(def: &crate::model::ClientTraitDef) -> TokenStream {
    client::trait_client(def)
}

/// Items emitted whether or not the macro reported errors: the errors that depend on cfgs,
/// and a marker that makes a second `#[mcp::service]` impl of the type a
/// readable error.
fn shared_items(svc: &ServiceDef, generic: bool) -> TokenStream {
    let mut out = TokenStream::new();
    for e in &svc.cfg_errors {
        let cfg = &e.cfg;
        let message = &e.message;
        out.extend(quote_spanned! {e.span=>
            #[cfg(#cfg)]
            ::core::compile_error! { #message }
        });
    }
    if generic {
        return out;
    }
    // E0592 names the constant: "duplicate definitions with name
    // `only_one_mcp_service_impl_per_type`", at both impls.
    let self_ty = &svc.self_ty;
    let name = proc_macro2::Ident::new("only_one_mcp_service_impl_per_type", span_range(self_ty).0);
    out.extend(quote! {
        #[doc(hidden)]
        #[allow(dead_code, non_upper_case_globals)]
        impl #self_ty {
            const #name: () = ();
        }
    });
    out
}

/// The impl with, in each method that raises warnings, a nested function raising them:
/// nested in the method, they obey its `#[allow]`/`#[expect]` and the impl's.
fn with_warnings(svc: &ServiceDef, item: &ItemImpl) -> ItemImpl {
    let k = &svc.krate;
    let mut item = item.clone();
    let mut bodies: Vec<(usize, TokenStream)> = Vec::new();
    for tool in svc.tools.iter().filter(|t| !t.generic) {
        bodies.push((tool.index, checks::warnings(svc, &tool.params)));
    }
    if let Some(adv) = &svc.advanced {
        for m in &adv.hooks {
            bodies.push((m.index, checks::warnings(svc, &m.params)));
        }
    }
    let feature_methods = svc
        .resources
        .iter()
        .map(|r| &r.method)
        .chain(svc.prompts.iter().map(|p| &p.method))
        .chain(svc.completers.iter().map(|c| &c.method));
    for m in feature_methods {
        bodies.push((m.index, checks::warnings(svc, &m.params)));
    }
    for (index, span) in &svc.restricted {
        let emit = proc_macro2::Ident::new("emit", *span);
        bodies.push((
            *index,
            quote_spanned!(*span=> #k::diagnostics::MCP_WARNING_901.#emit();),
        ));
    }
    for (index, body) in bodies.into_iter().filter(|(_, b)| !b.is_empty()) {
        if let Some(syn::ImplItem::Fn(method)) = item.items.get_mut(index) {
            let nested: syn::Stmt = syn::parse_quote! {
                #[allow(dead_code, non_snake_case, unused_variables)]
                fn __mcp_warnings() {
                    #[allow(unused_imports)]
                    use #k::__private::prelude::*;
                    #body
                }
            };
            method.block.stmts.insert(0, nested);
        }
    }
    item
}

/// On errors: the user's impl, the errors, and a stub handler so the type stays a service
/// (`IntoService` and `ServiceHandler`, or `AdvancedService`) and no follow-on errors bury
/// the real ones. The type checks are emitted too (unless the impl is generic), so the
/// compiler reports the type rules' errors in the same compile as the macro's.
pub fn stub(svc: &ServiceDef, item: &ItemImpl, errors: TokenStream) -> TokenStream {
    let k = &svc.krate;
    let shared = shared_items(svc, !item.generics.params.is_empty());
    let checks = if item.generics.params.is_empty() {
        let kinds = match &svc.advanced {
            Some(adv) => advanced::all_kind_fns(k, adv),
            None => basic::all_kind_fns(svc),
        };
        let checks = checks::service(svc);
        let feature_checks = features::checks(svc);
        quote!(#kinds #checks #feature_checks)
    } else {
        TokenStream::new()
    };
    let item = with_warnings(svc, item);
    let service = match &svc.advanced {
        Some(_) => advanced::stub(svc),
        None => basic_stub(svc),
    };
    quote! {
        #item
        #errors
        #shared
        const _: () = {
            #checks
            #service
        };
    }
}

/// The stub handler of a basic service.
fn basic_stub(svc: &ServiceDef) -> TokenStream {
    let k = &svc.krate;
    let self_ty = &svc.self_ty;
    let config = config(svc);
    quote! {
        impl #k::IntoService for #self_ty {
            fn into_builder(self) -> #k::ServerBuilder { #config }
        }
        impl #k::__private::ServiceHandler for #self_ty {
            fn kind(&self) -> #k::__private::ServiceKind { #k::__private::ServiceKind::Basic }
            fn list_tools<'__mcp_a>(&'__mcp_a self, _: ::core::option::Option<::std::string::String>, _: &'__mcp_a #k::RequestContext)
                -> #k::BoxFuture<'__mcp_a, ::core::result::Result<#k::ListToolsResult, #k::ServerError>> {
                ::core::unreachable!()
            }
            fn call_tool<'__mcp_a>(&'__mcp_a self, _: &'__mcp_a mut #k::CallToolParams, _: &'__mcp_a #k::RequestContext)
                -> #k::BoxFuture<'__mcp_a, ::core::result::Result<#k::CallToolResponse, #k::ServerError>> {
                ::core::unreachable!()
            }
        }
    }
}

/// The builder of a basic service with the attribute's settings and the layers of its
/// tools, prompts and resources (`self` is the service).
pub fn config(svc: &ServiceDef) -> TokenStream {
    let k = &svc.krate;
    let info = info(svc);
    let settings = settings(svc);
    let builder = quote!(#k::__private::builder(self, #info) #settings);
    let layers = middleware::statements(svc);
    if layers.is_empty() {
        return builder;
    }
    quote! {{
        let __mcp_builder = #builder;
        #layers
        __mcp_builder
    }}
}

/// The server's identity from the attribute: `name` and `version` (default: the crate's),
/// and the `title`.
pub fn info(svc: &ServiceDef) -> TokenStream {
    let k = &svc.krate;
    let name = svc
        .name
        .as_ref()
        .map_or_else(|| quote!(::core::env!("CARGO_PKG_NAME")), |l| quote!(#l));
    let version = svc
        .version
        .as_ref()
        .map_or_else(|| quote!(::core::env!("CARGO_PKG_VERSION")), |l| quote!(#l));
    let mut info = quote!(#k::Implementation::new(#name, #version));
    if let Some(t) = &svc.title {
        info.extend(quote!(.with_title(#t)));
    }
    info
}

/// The builder method calls for the attribute's other keys (`.protocol_mode(..)` ...).
pub fn settings(svc: &ServiceDef) -> TokenStream {
    let k = &svc.krate;
    let protocol = match svc.protocol_mode {
        ProtocolMode::Auto => quote!(Auto),
        ProtocolMode::Modern => quote!(Modern),
        ProtocolMode::Legacy => quote!(Legacy),
    };
    let session = match svc.session_mode {
        SessionMode::Auto => quote!(Auto),
        SessionMode::Stateful => quote!(Stateful),
        SessionMode::Stateless => quote!(Stateless),
    };
    let mut chain = quote! {
        .protocol_mode(#k::ProtocolMode::#protocol)
        .session_mode(#k::SessionMode::#session)
    };
    if let Some(i) = &svc.instructions {
        chain.extend(quote!(.instructions(#i)));
    }
    let hint = |h: &CacheHintDef| {
        let ttl = h.ttl_ms;
        let scope = if h.public {
            quote!(Public)
        } else {
            quote!(Private)
        };
        quote!(#k::CacheHint::new(#ttl, #k::CacheScope::#scope))
    };
    if let Some(h) = &svc.discover_cache {
        let h = hint(h);
        chain.extend(quote!(.discover_cache(#h)));
    }
    if let Some(h) = &svc.list_tools_cache {
        let h = hint(h);
        chain.extend(quote!(.list_tools_cache(#h)));
    }
    if let Some((idle, per_owner, anonymous)) = svc.session_limits {
        let mut limits = quote!(#k::session::SessionLimits::default());
        if let Some(s) = idle {
            limits.extend(quote!(.with_idle_timeout(::core::time::Duration::from_secs(#s))));
        }
        if let Some(n) = per_owner {
            let n = n as usize;
            limits.extend(quote!(.with_max_per_owner(#n)));
        }
        if let Some(n) = anonymous {
            let n = n as usize;
            limits.extend(quote!(.with_max_anonymous(#n)));
        }
        chain.extend(quote!(.session_limits(#limits)));
    }
    if let Some(ttl) = svc.request_state_ttl {
        chain.extend(quote!(.request_state_ttl(::core::time::Duration::from_secs(#ttl))));
    }
    if let Some(on) = svc.legacy_structured_output {
        chain.extend(quote!(.legacy_structured_output(#on)));
    }
    if !svc.allowed_origins.is_empty() {
        let o = &svc.allowed_origins;
        chain.extend(quote!(.transport(|http: #k::transport::http::HttpConfig| http.allowed_origins([#(#o),*]))));
    }
    chain
}

/// The wire name of a parameter (`r#type` → `type`).
pub fn wire_name(ident: &syn::Ident) -> String {
    ident.unraw().to_string()
}

fn opt_str(v: Option<&str>) -> TokenStream {
    match v {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

/// The spans of the first and last tokens of `tokens`. On stable a proc macro cannot join
/// spans, but rustc reports an expression over its first to its last token: an expression
/// that starts with a token spanned at `first` and ends with one spanned at `last` is
/// underlined as the whole type.
pub fn span_range(tokens: &impl ToTokens) -> (Span, Span) {
    let mut iter = tokens.to_token_stream().into_iter();
    let first = iter.next().map_or_else(Span::call_site, |t| t.span());
    let last = iter.last().map_or(first, |t| t.span());
    (first, last)
}

/// The span of the last identifier of a type (`Session` in `Option<mcp::Session>`),
/// for diagnostics that can only be attached to one token, such as deprecation warnings.
pub fn last_ident_span(ty: &syn::Type) -> Span {
    fn walk(stream: TokenStream, found: &mut Option<Span>) {
        for tt in stream {
            match tt {
                TokenTree::Ident(i) => *found = Some(i.span()),
                TokenTree::Group(g) => walk(g.stream(), found),
                _ => {}
            }
        }
    }
    let mut found = None;
    walk(ty.to_token_stream(), &mut found);
    found.unwrap_or_else(|| span_range(ty).0)
}

/// `&name`, spanned so that rustc underlines `first..last` when it reports the expression.
pub fn spanned_ref(name: &syn::Ident, (first, _): (Span, Span)) -> TokenStream {
    let mut amp = Punct::new('&', Spacing::Alone);
    amp.set_span(first);
    quote!(#amp #name)
}

/// The probe of the return type's `Result` split.
pub fn split(k: &syn::Path, output: Option<&syn::Type>) -> TokenStream {
    match output {
        Some(ty) => quote_spanned!(ty.span()=> (&&#k::__private::Probe::<#ty>::NEW).split_tag()),
        None => quote!((&&#k::__private::Probe::<()>::NEW).split_tag()),
    }
}

/// `(&&Probe::<ty>::NEW).kind()`, spanned over the type (see [`span_range`]).
pub fn probe_kind(k: &syn::Path, ty: &syn::Type) -> TokenStream {
    let (first, last) = span_range(ty);
    let inner = quote::quote_spanned!(first=> && #k::__private::Probe::<#ty>::NEW);
    let mut open = proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, inner);
    open.set_span(first);
    let kind = proc_macro2::Ident::new("kind", last);
    let mut args = proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, TokenStream::new());
    args.set_span(last);
    let dot = {
        let mut p = Punct::new('.', Spacing::Alone);
        p.set_span(last);
        p
    };
    quote!(#open #dot #kind #args)
}

/// `fn name() -> impl Bound<Out = ty> { probe }`: the kind of a parameter as an opaque type,
/// so that a type the bound rejects is reported once, over the parameter's type, and the
/// code using the kind sees no further error.
pub fn kind_fn(
    k: &syn::Path,
    name: &syn::Ident,
    bound: &TokenStream,
    ty: &syn::Type,
    attrs: &[syn::Attribute],
) -> TokenStream {
    kind_fn_with(k, name, bound, &TokenStream::new(), ty, attrs)
}

/// [`kind_fn`] for a generic bound: `impl Bound<args, Out = ty>` (`args` ends with a comma).
pub fn kind_fn_with(
    k: &syn::Path,
    name: &syn::Ident,
    bound: &TokenStream,
    bound_args: &TokenStream,
    ty: &syn::Type,
    attrs: &[syn::Attribute],
) -> TokenStream {
    let (first, last) = span_range(ty);
    let impl_kw = proc_macro2::Ident::new("impl", first);
    let out = quote::quote_spanned!(last=> #bound<#bound_args Out = #ty>);
    let probe = probe_kind(k, ty);
    quote! {
        #(#attrs)*
        fn #name() -> #impl_kw #out {
            #[allow(unused_imports)]
            use #k::__private::prelude::*;
            #probe
        }
    }
}

/// `let <param>: <Type> = ...;` for each parameter of a tool or advanced method: `#[http_header]`
/// values come from the request headers (MCP_208 on the type), everything else is bound
/// through its kind function (`kind_fn(j)`) and `bind` (`Kind::bind`, `bind_list`, ...).
pub fn bind_params<'a>(
    k: &'a syn::Path,
    params: &'a [ParamDef],
    kind_fn: impl Fn(usize) -> syn::Ident + 'a,
    bind: &'a TokenStream,
) -> impl Iterator<Item = TokenStream> + 'a {
    params.iter().enumerate().map(move |(j, p)| {
        let ident = &p.ident;
        let ty = &p.ty;
        // A `&mut T` parameter lends a mutable binding.
        let mutable = (p.by_ref == Some(true)).then(|| quote!(mut));
        // A parameter named as its argument is on the wire (`resourceUri`) is the user's to
        // allow on the method; its binding here would warn a second time.
        match &p.http_header {
            Some(h) => quote_spanned! {ty.span()=>
                #[allow(non_snake_case)]
                let #mutable #ident: #ty = #k::__private::header_param::<#ty>(&__mcp_call, #h)?;
            },
            None => {
                let name = wire_name(ident);
                let kind = kind_fn(j);
                quote! {
                    #[allow(non_snake_case)]
                    let #mutable #ident: #ty = #bind(#kind(), &mut __mcp_call, #name)?;
                }
            }
        }
    })
}

/// `self.<method>(<params>)`, awaited for `async fn`; borrowed parameters are lent.
pub fn call_method(method: &syn::Ident, params: &[ParamDef], is_async: bool) -> TokenStream {
    let args = params
        .iter()
        .map(|p| crate::parse::lend(&p.ident, p.by_ref));
    if is_async {
        quote!(self.#method(#(#args),*).await)
    } else {
        quote!(self.#method(#(#args),*))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(span: Span) -> String {
        span.source_text().unwrap_or_default()
    }

    #[test]
    fn spans_of_a_type_cover_its_first_and_last_tokens() {
        let ty: syn::Type = syn::parse_str("Option<mcp::Session>").unwrap();
        let (first, last) = span_range(&ty);
        assert_eq!(text(first), "Option");
        assert_eq!(text(last), ">");
        assert_eq!(text(last_ident_span(&ty)), "Session");

        let ty: syn::Type = syn::parse_str("(u8, Vec<String>)").unwrap();
        let (first, last) = span_range(&ty);
        assert_eq!(text(first), "(u8, Vec<String>)");
        assert_eq!(text(last), "(u8, Vec<String>)");
        assert_eq!(text(last_ident_span(&ty)), "String");

        let ty: syn::Type = syn::parse_str("Session").unwrap();
        assert_eq!(span_range(&ty).0.start(), span_range(&ty).1.start());
    }

    #[test]
    fn probes_start_and_end_on_the_type() {
        let k: syn::Path = syn::parse_quote!(::mcp);
        let ty: syn::Type = syn::parse_str("mcp::RequestMeta").unwrap();
        let probe: Vec<_> = probe_kind(&k, &ty).into_iter().collect();
        assert_eq!(text(probe[0].span()), "mcp");
        assert_eq!(text(probe[probe.len() - 1].span()), "RequestMeta");
        let var = syn::Ident::new("__mcp_k0", span_range(&ty).1);
        let arg: Vec<_> = spanned_ref(&var, span_range(&ty)).into_iter().collect();
        assert_eq!(text(arg[0].span()), "mcp");
        assert_eq!(text(arg[1].span()), "RequestMeta");
    }
}
