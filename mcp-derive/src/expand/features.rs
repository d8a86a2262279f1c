//! Resources, resource templates, prompts and completers of a basic service: the catalog
//! (built once), the `ServiceHandler` methods that dispatch to the methods, and the type
//! checks (MCP_302, MCP_306, MCP_308 … MCP_310, MCP_312, and MCP_307 for a completer's
//! prompt argument).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt as _;
use syn::spanned::Spanned;

use super::{bind_params, call_method, opt_str, spanned_ref, wire_name};
use crate::diag::{Code, coded};
use crate::model::{MethodDef, ParamDef, ServiceDef};

/// `true` when the service has any resource, prompt or completer.
pub fn any(svc: &ServiceDef) -> bool {
    !svc.resources.is_empty() || !svc.prompts.is_empty() || !svc.completers.is_empty()
}

fn kind_name(prefix: char, i: usize, j: usize) -> syn::Ident {
    format_ident!("__mcp_{}kind_{}_{}", prefix, i, j)
}

/// Whether `p` is one of the template variables `vars` (bound by name).
fn is_variable(p: &ParamDef, vars: &[String]) -> bool {
    vars.iter().any(|v| p.ident.unraw() == v)
}

/// `(&&&&Probe::<ty>::NEW).variable_tag()`: how a template variable of type `ty` is read
/// (MCP_312 when it cannot be), spanned over the type (see [`super::span_range`]).
fn variable_tag(k: &syn::Path, ty: &syn::Type) -> TokenStream {
    let (first, last) = super::span_range(ty);
    let probe = quote_spanned!(first=> (&&&&#k::__private::Probe::<#ty>::NEW));
    let tag = syn::Ident::new("variable_tag", last);
    quote_spanned!(last=> #probe.#tag())
}

/// The kind functions of every parameter of these methods.
pub fn kind_fns(svc: &ServiceDef) -> TokenStream {
    let k = &svc.krate;
    let no_vars: &[String] = &[];
    let methods = svc
        .resources
        .iter()
        .map(|r| ('r', &r.method, &r.vars[..]))
        .chain(svc.prompts.iter().map(|p| ('p', &p.method, no_vars)))
        .chain(svc.completers.iter().map(|c| ('c', &c.method, no_vars)));
    let mut counters = [0usize; 3];
    let mut out = TokenStream::new();
    for (prefix, m, vars) in methods {
        let slot = match prefix {
            'r' => 0,
            'p' => 1,
            _ => 2,
        };
        let i = counters[slot];
        counters[slot] += 1;
        for (j, p) in m.params.iter().enumerate() {
            // Template variables are read from their text (see `arm`), not bound as kinds.
            if p.http_header.is_some() || is_variable(p, vars) {
                continue;
            }
            let bound = quote!(#k::__private::Kind);
            out.extend(super::kind_fn(
                k,
                &kind_name(prefix, i, j),
                &bound,
                &p.ty,
                &m.cfg_attrs,
            ));
        }
    }
    out
}

/// The catalog function.
pub fn catalog(svc: &ServiceDef) -> TokenStream {
    let k = &svc.krate;
    let resources = svc.resources.iter().enumerate().map(|(i, r)| {
        let cfg = &r.method.cfg_attrs;
        let uri = r.uri.value();
        let template = r.template;
        let name = &r.name;
        let title = opt_str(r.title.as_deref());
        let description = opt_str(r.description.as_deref());
        let mime = opt_str(r.mime_type.as_deref());
        let audience = &r.audience;
        let priority = match r.priority {
            Some(p) => quote!(::core::option::Option::Some(#p)),
            None => quote!(::core::option::Option::None),
        };
        let size = match r.size {
            Some(s) => quote!(::core::option::Option::Some(#s)),
            None => quote!(::core::option::Option::None),
        };
        quote! {
            #(#cfg)*
            __mcp_resources.push(#k::__private::ResourceSpec {
                id: #i, uri: #uri, template: #template, name: #name, title: #title,
                description: #description, mime_type: #mime, audience: &[#(#audience),*],
                priority: #priority, size: #size,
            });
        }
    });
    let prompts = svc.prompts.iter().enumerate().map(|(i, p)| {
        let cfg = &p.method.cfg_attrs;
        let name = &p.name;
        let title = opt_str(p.title.as_deref());
        let description = opt_str(p.description.as_deref());
        let args = p
            .method
            .params
            .iter()
            .enumerate()
            .filter(|(_, a)| a.http_header.is_none())
            .map(|(j, a)| {
                let arg_name = wire_name(&a.ident);
                let desc = opt_str(a.description.as_deref());
                let kind = kind_name('p', i, j);
                quote! {
                    #k::__private::PromptArgSpec {
                        name: #arg_name,
                        description: #desc,
                        listed: #k::__private::is_argument(#kind()),
                        required: #k::__private::Kind::required(#kind()),
                    }
                }
            });
        quote! {
            #(#cfg)*
            __mcp_prompts.push(#k::__private::PromptSpec {
                id: #i, name: #name, title: #title, description: #description,
                arguments: ::std::vec![#(#args),*],
            });
        }
    });
    let completers = svc.completers.iter().enumerate().map(|(i, c)| {
        let cfg = &c.method.cfg_attrs;
        let target = c.target.value();
        let template = c.template;
        let argument = c.argument.value();
        quote! {
            #(#cfg)*
            __mcp_completers.push(#k::__private::CompleterSpec {
                id: #i, target: #target, template: #template, argument: #argument,
            });
        }
    });
    quote! {
        fn __mcp_catalog() -> &'static #k::__private::Catalog {
            static __MCP_CATALOG: ::std::sync::OnceLock<#k::__private::Catalog> = ::std::sync::OnceLock::new();
            __MCP_CATALOG.get_or_init(|| {
                #[allow(unused_mut)]
                let mut __mcp_resources: ::std::vec::Vec<#k::__private::ResourceSpec> = ::std::vec::Vec::new();
                #[allow(unused_mut)]
                let mut __mcp_prompts: ::std::vec::Vec<#k::__private::PromptSpec> = ::std::vec::Vec::new();
                #[allow(unused_mut)]
                let mut __mcp_completers: ::std::vec::Vec<#k::__private::CompleterSpec> = ::std::vec::Vec::new();
                #(#resources)*
                #(#prompts)*
                #(#completers)*
                #k::__private::Catalog::new(__mcp_resources, __mcp_prompts, __mcp_completers)
            })
        }
    }
}

fn arm(
    svc: &ServiceDef,
    (prefix, i): (char, usize),
    m: &MethodDef,
    vars: &[String],
    pre: TokenStream,
    convert: TokenStream,
) -> TokenStream {
    let k = &svc.krate;
    let bind = quote!(#k::__private::Kind::bind);
    let binds = bind_params(k, &m.params, |j| kind_name(prefix, i, j), &bind)
        .zip(&m.params)
        .map(|(bind, p)| {
            if p.http_header.is_some() || !is_variable(p, vars) {
                return bind;
            }
            let ident = &p.ident;
            let ty = &p.ty;
            let mutable = (p.by_ref == Some(true)).then(|| quote!(mut));
            let name = wire_name(ident);
            let tag = variable_tag(k, ty);
            quote!(#[allow(non_snake_case)] let #mutable #ident: #ty = #tag.bind(&mut __mcp_call, #name)?;)
        });
    let call = call_method(&m.ident, &m.params, m.is_async);
    let cfg = &m.cfg_attrs;
    quote! {
        #(#cfg)*
        #i => {
            #pre
            #(#binds)*
            #[allow(deprecated)]
            let __mcp_out = #call;
            #convert
        }
    }
}

/// The `ServiceHandler` methods (inside the generated impl).
pub fn handler_methods(svc: &ServiceDef) -> TokenStream {
    if !any(svc) {
        return TokenStream::new();
    }
    let k = &svc.krate;
    let out_ty = |m: &MethodDef| match &m.output {
        Some(t) => quote!(#t),
        None => quote!(()),
    };
    let read_arms = svc.resources.iter().enumerate().map(|(i, r)| {
        let ty = out_ty(&r.method);
        let convert = quote! {
            (&&#k::__private::Probe::<#ty>::NEW).read_tag().convert(__mcp_out, &params.uri, __mcp_mime)
        };
        arm(svc, ('r', i), &r.method, &r.vars, TokenStream::new(), convert)
    });
    let prompt_arms = svc.prompts.iter().enumerate().map(|(i, p)| {
        let ty = out_ty(&p.method);
        let convert = quote!((&&#k::__private::Probe::<#ty>::NEW).prompt_tag().convert(__mcp_out));
        arm(svc, ('p', i), &p.method, &[], TokenStream::new(), convert)
    });
    let complete_arms = svc.completers.iter().enumerate().map(|(i, c)| {
        let names = c.method.params.iter().enumerate().map(|(j, p)| {
            let name = wire_name(&p.ident);
            if p.http_header.is_some() {
                quote!((#name, false))
            } else {
                let kind = kind_name('c', i, j);
                quote!((#name, #k::__private::is_argument(#kind())))
            }
        });
        let pre = quote! {
            #[allow(unused_mut, unused_variables)]
            let mut __mcp_call = #k::__private::completer_call(&params, &[#(#names),*], request);
        };
        let ty = out_ty(&c.method);
        let convert =
            quote!((&&#k::__private::Probe::<#ty>::NEW).completion_tag().convert(__mcp_out));
        arm(svc, ('c', i), &c.method, &[], pre, convert)
    });
    let fut = |t: TokenStream| quote!(#k::BoxFuture<'__mcp_a, ::core::result::Result<#t, #k::ServerError>>);
    let list_res = fut(quote!(#k::ListResourcesResult));
    let list_tpl = fut(quote!(#k::ListResourceTemplatesResult));
    let list_pr = fut(quote!(#k::ListPromptsResult));
    let read = fut(quote!(#k::ReadResourceResult));
    let get = fut(quote!(#k::GetPromptResponse));
    let complete = fut(quote!(#k::CompleteResult));
    quote! {
        fn features(&self) -> #k::Features {
            __mcp_catalog().features()
        }

        fn list_resources<'__mcp_a>(&'__mcp_a self, cursor: ::core::option::Option<::std::string::String>, _request: &'__mcp_a #k::RequestContext) -> #list_res {
            #k::__private::boxed(::core::future::ready(__mcp_catalog().list_resources(cursor)))
        }

        fn list_resource_templates<'__mcp_a>(&'__mcp_a self, cursor: ::core::option::Option<::std::string::String>, _request: &'__mcp_a #k::RequestContext) -> #list_tpl {
            #k::__private::boxed(::core::future::ready(__mcp_catalog().list_templates(cursor)))
        }

        fn list_prompts<'__mcp_a>(&'__mcp_a self, cursor: ::core::option::Option<::std::string::String>, _request: &'__mcp_a #k::RequestContext) -> #list_pr {
            #k::__private::boxed(::core::future::ready(__mcp_catalog().list_prompts(cursor)))
        }

        fn read_resource<'__mcp_a>(&'__mcp_a self, params: #k::ReadResourceParams, request: &'__mcp_a #k::RequestContext) -> #read {
            #k::__private::boxed(async move {
                #[allow(unused_imports)]
                use #k::__private::prelude::*;
                let (__mcp_id, __mcp_vars) = __mcp_catalog().find_resource(&params.uri)?;
                let __mcp_mime = __mcp_catalog().mime_type(__mcp_id);
                #[allow(unused_mut, unused_variables)]
                let mut __mcp_call = #k::__private::resource_call(&params.uri, __mcp_vars, request);
                match __mcp_id {
                    #(#read_arms)*
                    _ => ::core::result::Result::Err(#k::ServerError::resource_not_found(&params.uri)),
                }
            })
        }

        fn get_prompt<'__mcp_a>(&'__mcp_a self, params: #k::GetPromptParams, request: &'__mcp_a #k::RequestContext) -> #get {
            #k::__private::boxed(async move {
                #[allow(unused_imports)]
                use #k::__private::prelude::*;
                let __mcp_id = __mcp_catalog().find_prompt(&params.name)?;
                #[allow(unused_mut, unused_variables)]
                let mut __mcp_call = #k::__private::prompt_call(params, request);
                match __mcp_id {
                    #(#prompt_arms)*
                    _ => ::core::result::Result::Err(#k::ServerError::prompt_not_found(__mcp_call.tool())),
                }
            })
        }

        fn complete<'__mcp_a>(&'__mcp_a self, params: #k::CompleteParams, request: &'__mcp_a #k::RequestContext) -> #complete {
            #k::__private::boxed(async move {
                #[allow(unused_imports)]
                use #k::__private::prelude::*;
                let ::core::option::Option::Some(__mcp_id) = __mcp_catalog().find_completer(&params)? else {
                    return #k::__private::no_completion();
                };
                match __mcp_id {
                    #(#complete_arms)*
                    _ => #k::__private::no_completion(),
                }
            })
        }
    }
}

/// The type checks of these methods.
pub fn checks(svc: &ServiceDef) -> TokenStream {
    let k = &svc.krate;
    let mut out = TokenStream::new();
    type Extra<'a> = &'a dyn Fn(&ParamDef, &syn::Ident, (Span, Span)) -> TokenStream;
    let mut check = |name: syn::Ident, m: &MethodDef, extra: Extra<'_>, output: TokenStream| {
        let mut body = super::checks::params_checks(svc, &m.params);
        for (j, p) in m.params.iter().enumerate() {
            if p.http_header.is_some() {
                continue;
            }
            let range = super::span_range(&p.ty);
            let var = syn::Ident::new(&format!("__mcp_k{j}"), range.1);
            body.extend(extra(p, &var, range));
        }
        let (ty, span) = match &m.output {
            Some(t) => (quote!(#t), t.span()),
            None => (quote!(()), m.sig_span),
        };
        body.extend(quote_spanned!(span=> #k::__private::#output::<#ty>();));
        let cfg = &m.cfg_attrs;
        let lints = m
            .lint_attrs
            .iter()
            .chain(&svc.lint_attrs)
            .map(super::checks::expect_as_allow);
        out.extend(quote! {
            #[allow(dead_code)]
            #(#cfg)*
            #(#lints)*
            fn #name() {
                #[allow(unused_imports)]
                use #k::__private::prelude::*;
                #body
            }
        });
    };
    for (i, r) in svc.resources.iter().enumerate() {
        let vars = &r.vars;
        check(
            format_ident!("__mcp_rcheck_{}", i),
            &r.method,
            &|p, var, range| {
                if is_variable(p, vars) {
                    let tag = syn::Ident::new(&format!("{var}_variable"), range.1);
                    let probe = variable_tag(k, &p.ty);
                    let arg = spanned_ref(&tag, range);
                    return quote! {
                        let #tag = #probe;
                        #k::__private::assert_template_variable(#arg);
                    };
                }
                let arg = spanned_ref(var, range);
                quote!(#k::__private::assert_resource_runtime(#arg);)
            },
            quote!(assert_readable),
        );
    }
    for (i, p) in svc.prompts.iter().enumerate() {
        check(
            format_ident!("__mcp_pcheck_{}", i),
            &p.method,
            &|_, var, range| {
                let arg = spanned_ref(var, range);
                quote!(#k::__private::assert_prompt_param(#arg);)
            },
            quote!(assert_prompt_output),
        );
    }
    for (i, c) in svc.completers.iter().enumerate() {
        check(
            format_ident!("__mcp_ccheck_{}", i),
            &c.method,
            &|_, _, _| TokenStream::new(),
            quote!(assert_completion_output),
        );
    }
    out.extend(completer_arguments(svc));
    out
}

/// For each completer of a prompt's argument and each prompt of that name, a constant that
/// fails to evaluate when the completer's `argument` is not an argument of the prompt
/// (MCP_307, reported at the `argument` literal, listing the prompt's arguments). Which
/// parameters are arguments is judged on their types, so a runtime parameter
/// (`meta: Option<mcp::RequestMeta>`, or an alias of it) is not one. The constant carries
/// the `#[cfg]`s of both methods: it is evaluated in the builds that have both.
fn completer_arguments(svc: &ServiceDef) -> TokenStream {
    let k = &svc.krate;
    let mut out = TokenStream::new();
    for c in svc.completers.iter().filter(|c| !c.template) {
        let target = c.target.value();
        let argument = c.argument.value();
        for p in svc.prompts.iter().filter(|p| p.name == target) {
            let mut fns = TokenStream::new();
            let mut entries = Vec::new();
            for (j, param) in p.method.params.iter().enumerate() {
                let name = wire_name(&param.ident);
                if param.http_header.is_some() {
                    entries.push(quote!((#name, false)));
                    continue;
                }
                let f = format_ident!("__mcp_a{}", j);
                let probe = super::probe_kind(k, &param.ty);
                fns.extend(quote! {
                    fn #f() -> impl #k::__private::ArgumentFlag {
                        #[allow(unused_imports)]
                        use #k::__private::prelude::*;
                        #probe
                    }
                });
                entries.push(quote!((#name, #k::__private::argument_flag(#f))));
            }
            let message = if p
                .method
                .params
                .iter()
                .any(|q| wire_name(&q.ident) == argument)
            {
                coded(
                    Code::Mcp307,
                    format_args!(
                        "`{argument}` is a runtime parameter of prompt {target:?}, not an argument a client sends"
                    ),
                )
            } else {
                coded(
                    Code::Mcp307,
                    format_args!("prompt {target:?} has no argument `{argument}`"),
                )
            };
            let panic = quote_spanned! {c.argument.span()=>
                ::core::panic!("{}", __mcp_message.as_str())
            };
            let cfg = p.method.cfg_attrs.iter().chain(&c.method.cfg_attrs);
            out.extend(quote! {
                #(#cfg)*
                const _: () = {
                    #fns
                    if let ::core::option::Option::Some(__mcp_message) =
                        &#k::__private::completer_argument(#message, #argument, &[#(#entries),*])
                    {
                        #panic
                    }
                };
            });
        }
    }
    out
}
