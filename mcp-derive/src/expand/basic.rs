//! The `IntoService` and `ServiceHandler` implementations of a basic service: the tool table (built once) and the dispatch of
//! `tools/call` to the methods.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::{bind_params, call_method, config, opt_str, split, wire_name};
use crate::model::{OutputPolicy, ParamDef, ServiceDef, ToolDef};

/// Up to this many tools, `tools/call` finds its tool with a `match` on the name; above, with
/// a table built once.
const LINEAR_TOOLS: usize = 16;

/// The generated handler.
pub fn handler(svc: &ServiceDef) -> TokenStream {
    let k = &svc.krate;
    let self_ty = &svc.self_ty;
    let config = config(svc);
    let kind_fns = svc
        .tools
        .iter()
        .enumerate()
        .flat_map(|(i, t)| kind_fns(k, i, t));
    let tools_table = tools_table(k, &svc.tools);
    let index_arms = svc.tools.iter().enumerate().map(|(i, t)| {
        let cfg = &t.cfg_attrs;
        let name = &t.name;
        quote!(#(#cfg)* #name => #i,)
    });
    let index_inserts = svc.tools.iter().enumerate().map(|(i, t)| {
        let cfg = &t.cfg_attrs;
        let name = &t.name;
        quote!(#(#cfg)* __mcp_map.insert(#name, #i);)
    });
    let structured_sets = svc.tools.iter().enumerate().map(|(i, t)| {
        let cfg = &t.cfg_attrs;
        let name = &t.name;
        quote!(#(#cfg)* { __mcp_flags[#i] = #k::__private::is_structured(__mcp_tools(), #name); })
    });
    let tool_count = svc.tools.len();
    // Which tool a call names: a `match` on the name for a few tools, a table built once
    // for more (a `match` compares the names one by one: it grows with the tool count).
    let find_index = if tool_count <= LINEAR_TOOLS {
        quote! {
            match params.name.as_str() {
                #(#index_arms)*
                _ => return ::core::result::Result::Err(#k::__private::unknown_tool(&params.name)),
            }
        }
    } else {
        quote! {
            static __MCP_INDEX: ::std::sync::OnceLock<::std::collections::HashMap<&'static str, usize>> =
                ::std::sync::OnceLock::new();
            let __mcp_index = __MCP_INDEX.get_or_init(|| {
                let mut __mcp_map = ::std::collections::HashMap::new();
                #(#index_inserts)*
                __mcp_map
            });
            match __mcp_index.get(params.name.as_str()) {
                ::core::option::Option::Some(&__mcp_i) => __mcp_i,
                ::core::option::Option::None => {
                    return ::core::result::Result::Err(#k::__private::unknown_tool(&params.name))
                }
            }
        }
    };
    let scope_arms = svc.tools.iter().filter(|t| !t.scopes.is_empty()).map(|t| {
        let cfg = &t.cfg_attrs;
        let name = &t.name;
        let scopes = t.scopes.iter();
        quote!(#(#cfg)* #name => &[#(#scopes),*],)
    });
    let task_arms: Vec<_> = svc
        .tools
        .iter()
        .filter_map(|t| {
            let variant = match t.task.as_ref()?.value().as_str() {
                "optional" => quote!(Optional),
                "required" => quote!(Required),
                _ => return None,
            };
            let cfg = &t.cfg_attrs;
            let name = &t.name;
            Some(quote!(#(#cfg)* #name => #k::TaskSupport::#variant,))
        })
        .collect();
    let serves_tasks = !task_arms.is_empty();
    let legacy_arms = svc.tools.iter().filter_map(|t| {
        let on = t.legacy_structured_output?;
        let cfg = &t.cfg_attrs;
        let name = &t.name;
        Some(quote!(#(#cfg)* #name => ::core::option::Option::Some(#on),))
    });
    let call_arms = svc.tools.iter().enumerate().map(|(i, t)| {
        let cfg = &t.cfg_attrs;
        let body = call_arm(svc, i, t);
        quote!(#(#cfg)* #i => { #body })
    });
    let feature_kinds = super::features::kind_fns(svc);
    let catalog = if super::features::any(svc) {
        super::features::catalog(svc)
    } else {
        TokenStream::new()
    };
    let feature_methods = super::features::handler_methods(svc);
    quote! {
        #feature_kinds
        #catalog

        #tools_table

        /// Per tool (by its index in the `impl`): whether it advertises an output schema,
        /// read once from the tool table.
        #[allow(dead_code)]
        fn __mcp_structured() -> &'static [bool] {
            static __MCP_STRUCTURED: ::std::sync::OnceLock<::std::vec::Vec<bool>> = ::std::sync::OnceLock::new();
            __MCP_STRUCTURED.get_or_init(|| {
                #[allow(unused_mut)]
                let mut __mcp_flags = ::std::vec![false; #tool_count];
                #(#structured_sets)*
                __mcp_flags
            })
        }

        #(#kind_fns)*

        impl #k::IntoService for #self_ty {
            fn into_builder(self) -> #k::ServerBuilder {
                #config
            }
        }

        impl #k::__private::ServiceHandler for #self_ty {
            fn kind(&self) -> #k::__private::ServiceKind {
                #k::__private::ServiceKind::Basic
            }

            fn static_tools(&self) -> ::core::option::Option<&[#k::Tool]> {
                ::core::option::Option::Some(__mcp_tools())
            }

            fn tool_scopes(&self, name: &str) -> &'static [&'static str] {
                match name {
                    #(#scope_arms)*
                    _ => &[],
                }
            }

            fn legacy_structured_output(&self, name: &str) -> ::core::option::Option<bool> {
                match name {
                    #(#legacy_arms)*
                    _ => ::core::option::Option::None,
                }
            }

            fn task_support(&self, name: &str) -> #k::TaskSupport {
                match name {
                    #(#task_arms)*
                    _ => #k::TaskSupport::Forbidden,
                }
            }

            fn serves_tasks(&self) -> bool {
                #serves_tasks
            }

            fn list_tools<'__mcp_a>(
                &'__mcp_a self,
                cursor: ::core::option::Option<::std::string::String>,
                _request: &'__mcp_a #k::RequestContext,
            ) -> #k::BoxFuture<'__mcp_a, ::core::result::Result<#k::ListToolsResult, #k::ServerError>> {
                #k::__private::boxed(::core::future::ready(#k::__private::list_static(__mcp_tools(), cursor)))
            }

            #feature_methods

            // A service with no tool has no arm that does not return early.
            #[allow(unreachable_code)]
            fn call_tool<'__mcp_a>(
                &'__mcp_a self,
                params: &'__mcp_a mut #k::CallToolParams,
                request: &'__mcp_a #k::RequestContext,
            ) -> #k::BoxFuture<'__mcp_a, ::core::result::Result<#k::CallToolResponse, #k::ServerError>> {
                #k::__private::boxed(async move {
                    #[allow(unused_imports)]
                    use #k::__private::prelude::*;
                    let __mcp_index: usize = { #find_index };
                    match __mcp_index {
                        #(#call_arms)*
                        _ => ::core::unreachable!(),
                    }
                })
            }
        }
    }
}

/// `fn __mcp_tools() -> &'static [Tool]`: the tool table, built once (the server lists it;
/// a typed client verifies a server against it).
pub fn tools_table(k: &syn::Path, tools: &[ToolDef]) -> TokenStream {
    let specs = tools.iter().enumerate().map(|(i, t)| {
        let cfg = &t.cfg_attrs;
        let spec = spec(k, i, t);
        quote!(#(#cfg)* __mcp_specs.push(#spec);)
    });
    quote! {
        fn __mcp_tools() -> &'static [#k::Tool] {
            static __MCP_TOOLS: ::std::sync::OnceLock<::std::vec::Vec<#k::Tool>> = ::std::sync::OnceLock::new();
            __MCP_TOOLS.get_or_init(|| {
                #[allow(unused_imports)]
                use #k::__private::prelude::*;
                #[allow(unused_mut)]
                let mut __mcp_specs: ::std::vec::Vec<#k::__private::ToolSpec> = ::std::vec::Vec::new();
                #(#specs)*
                __mcp_specs.iter().map(#k::__private::ToolSpec::build).collect()
            })
        }
    }
}

/// The name of the generated function returning parameter `j`'s kind.
pub fn kind_fn_name(tool: usize, param: usize) -> syn::Ident {
    format_ident!("__mcp_kind_{}_{}", tool, param)
}

/// The kind functions of every tool, for the error path: they carry the MCP_202 checks,
/// and nothing uses them there.
pub fn all_kind_fns(svc: &ServiceDef) -> TokenStream {
    svc.tools
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.generic)
        .flat_map(|(i, t)| kind_fns(&svc.krate, i, t))
        .map(|f| quote!(#[allow(dead_code)] #f))
        .collect()
}

/// One function per argument-like parameter returning its kind as an opaque `Kind`, so the
/// type's MCP_202 check happens in exactly one place.
pub fn kind_fns<'a>(
    k: &'a syn::Path,
    i: usize,
    tool: &'a ToolDef,
) -> impl Iterator<Item = TokenStream> + 'a {
    tool.params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.http_header.is_none())
        .map(move |(j, p)| {
            let bound = quote!(#k::__private::Kind);
            super::kind_fn(k, &kind_fn_name(i, j), &bound, &p.ty, &tool.cfg_attrs)
        })
}

fn spec(k: &syn::Path, i: usize, tool: &ToolDef) -> TokenStream {
    let name = &tool.name;
    let title = opt_str(tool.title.as_deref());
    let description = opt_str(tool.description.as_deref());
    let annotations = match &tool.annotations {
        None => quote!(::core::option::Option::None),
        Some(a) => {
            // Only the keys the attribute sets: `ToolAnnotations` is `#[non_exhaustive]`.
            let title = a.title.as_ref().map(|t| quote!(.with_title(#t)));
            let hints = [
                (quote!(with_read_only_hint), a.read_only),
                (quote!(with_destructive_hint), a.destructive),
                (quote!(with_idempotent_hint), a.idempotent),
                (quote!(with_open_world_hint), a.open_world),
            ]
            .into_iter()
            .filter_map(|(setter, b)| b.map(|b| quote!(.#setter(#b))));
            quote! {
                ::core::option::Option::Some(
                    <#k::ToolAnnotations as ::core::default::Default>::default() #title #(#hints)*
                )
            }
        }
    };
    let params = tool
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.http_header.is_none())
        .map(|(j, p)| param_spec(k, i, j, p));
    let input_schema = opt_str(tool.input_schema.as_ref().map(|l| l.value()).as_deref());
    let output_schema = opt_str(tool.output_schema.as_ref().map(|l| l.value()).as_deref());
    let policy = match tool.policy {
        OutputPolicy::Auto => quote!(Auto),
        OutputPolicy::Required => quote!(Required),
        OutputPolicy::Disabled => quote!(Disabled),
    };
    let split = split(k, tool.output.as_ref());
    let scopes = tool.scopes.iter();
    quote! {
        #k::__private::ToolSpec {
            name: #name,
            title: #title,
            description: #description,
            annotations: #annotations,
            params: ::std::vec![#(#params),*],
            input_schema: #input_schema,
            output_schema: #output_schema,
            generated_output: (&&#split.ok_probe()).schema_tag().schema_fn(),
            policy: #k::__private::OutputPolicy::#policy,
            scopes: &[#(#scopes),*],
        }
    }
}

fn param_spec(k: &syn::Path, i: usize, j: usize, p: &ParamDef) -> TokenStream {
    let name = wire_name(&p.ident);
    let description = opt_str(p.description.as_deref());
    let header = opt_str(p.header_arg.as_ref().map(|l| l.value()).as_deref());
    let kind = kind_fn_name(i, j);
    quote! {
        #k::__private::ParamSpec {
            name: #name,
            description: #description,
            header: #header,
            schema: #k::__private::Kind::schema(#kind()),
            required: #k::__private::Kind::required(#kind()),
        }
    }
}

fn call_arm(svc: &ServiceDef, i: usize, tool: &ToolDef) -> TokenStream {
    let k = &svc.krate;
    let bind = quote!(#k::__private::Kind::bind);
    let binds = bind_params(k, &tool.params, |j| kind_fn_name(i, j), &bind);
    let call = call_method(&tool.ident, &tool.params, tool.is_async);
    let split = split(k, tool.output.as_ref());
    let out_span = tool
        .output
        .as_ref()
        .map_or_else(Span::call_site, |t| t.span());
    let complete = quote_spanned! {out_span=>
        match __mcp_split.split(__mcp_out) {
            ::core::result::Result::Ok(__mcp_value) => #k::__private::complete(
                (&&__mcp_split.ok_probe()).value_tag(), __mcp_value, __mcp_structured),
            ::core::result::Result::Err(__mcp_error) => #k::__private::fail(
                (&&__mcp_split.err_probe()).failure_tag(), __mcp_error),
        }
    };
    // Runtime parameters that let the tool ask (a `Context`): judged on their kinds.
    let param_asks = tool
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.http_header.is_none())
        .map(|(j, _)| {
            let kind = kind_fn_name(i, j);
            quote!(|| #k::__private::Kind::may_ask(#kind()))
        });
    quote! {
        let __mcp_split = #split;
        // A tool that cannot answer input-required moves its arguments out of the params.
        let __mcp_may_ask = (&&__mcp_split.ok_probe()).value_tag().may_ask() #(#param_asks)*;
        let mut __mcp_call = #k::__private::CallArgs::new(params, request, __mcp_may_ask);
        #(#binds)*
        __mcp_call.finish()?;
        // Serving a `#[deprecated]` method is not a use of it.
        #[allow(deprecated)]
        let __mcp_out = #call;
        let __mcp_structured = __mcp_structured()[#i];
        #complete
    }
}
