//! The `mcp::AdvancedService` implementation of an advanced service: one trait method per
//! `on_*` hook of the impl, binding the hook's parameters by type and mapping its result,
//! plus the service's identity (`info`), its attribute's settings (`configure`) and the
//! features its hooks define (`features`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::{bind_params, call_method, info, settings};
use crate::model::{AdvancedDef, AdvancedMethod, Hook, ServiceDef};

/// How a hook is declared in `mcp::AdvancedService` and bound: the type of its own value,
/// its result type, the binding trait and functions.
struct Shape {
    /// The type of the value the hook receives (the cursor, the params).
    value: TokenStream,
    /// The result type (`ListToolsResult`, ...).
    out: TokenStream,
    /// The bound each parameter's kind must meet (MCP_211), and its generic arguments
    /// (each followed by a comma).
    bound: (TokenStream, TokenStream),
    /// The call making the binding context `__mcp_call` from `__mcp_value` and
    /// `__mcp_request`.
    args: TokenStream,
    /// The function binding one parameter.
    bind: TokenStream,
    /// The function mapping the result `__mcp_out` (MCP_212).
    ret: TokenStream,
    /// Its arguments before `__mcp_out`.
    ret_args: TokenStream,
}

fn shape(k: &syn::Path, hook: Hook) -> Shape {
    let p = quote!(#k::__private);
    let cursor = quote!(::core::option::Option<::std::string::String>);
    let hook_shape = |value: TokenStream, out: TokenStream| Shape {
        bound: (quote!(#p::HookBind), quote!(#value,)),
        args: quote!(#p::HookArgs::new(__mcp_value, __mcp_request)),
        bind: quote!(#p::bind_hook),
        ret: quote!(#p::hook_return),
        ret_args: quote!(::core::marker::PhantomData::<#out>,),
        value,
        out,
    };
    match hook {
        Hook::ListTools => Shape {
            value: cursor.clone(),
            out: quote!(#k::ListToolsResult),
            bound: (quote!(#p::ListBind), TokenStream::new()),
            args: quote!(#p::CallArgs::for_list(__mcp_value, __mcp_request)),
            bind: quote!(#p::bind_list),
            ret: quote!(#p::list_return),
            ret_args: TokenStream::new(),
        },
        Hook::CallTool => Shape {
            value: quote!(#k::CallToolParams),
            out: quote!(#k::CallToolResponse),
            bound: (quote!(#p::CallBind), TokenStream::new()),
            args: quote!(#p::CallArgs::for_call(__mcp_value, __mcp_request)),
            bind: quote!(#p::bind_call),
            ret: quote!(#p::call_return),
            ret_args: TokenStream::new(),
        },
        Hook::ListResources => hook_shape(cursor, quote!(#k::ListResourcesResult)),
        Hook::ListResourceTemplates => hook_shape(cursor, quote!(#k::ListResourceTemplatesResult)),
        Hook::ReadResource => hook_shape(
            quote!(#k::ReadResourceParams),
            quote!(#k::ReadResourceResult),
        ),
        Hook::ListPrompts => hook_shape(cursor, quote!(#k::ListPromptsResult)),
        Hook::GetPrompt => hook_shape(quote!(#k::GetPromptParams), quote!(#k::GetPromptResponse)),
        Hook::Complete => hook_shape(quote!(#k::CompleteParams), quote!(#k::CompleteResult)),
    }
}

/// The generated `impl mcp::AdvancedService`.
pub fn handler(svc: &ServiceDef, adv: &AdvancedDef) -> TokenStream {
    let k = &svc.krate;
    let self_ty = &svc.self_ty;
    let info = info(svc);
    let settings = settings(svc);
    let features = features(k, adv);
    let kind_fns = adv.hooks.iter().flat_map(|m| kind_fns(k, m));
    let hooks = adv.hooks.iter().map(|m| hook(k, m));
    quote! {
        #(#kind_fns)*

        impl #k::AdvancedService for #self_ty {
            fn info(&self) -> #k::Implementation {
                #info
            }

            fn configure(__mcp_builder: #k::ServerBuilder) -> #k::ServerBuilder {
                __mcp_builder #settings
            }

            fn features(&self) -> #k::Features {
                #features
            }

            #(#hooks)*
        }
    }
}

/// The features the defined hooks serve.
fn features(k: &syn::Path, adv: &AdvancedDef) -> TokenStream {
    let mut out = quote!(#k::Features::none());
    let any = |hooks: &[Hook]| hooks.iter().any(|h| adv.has(*h));
    if any(&[
        Hook::ListResources,
        Hook::ListResourceTemplates,
        Hook::ReadResource,
    ]) {
        out.extend(quote!(.with_resources()));
    }
    if any(&[Hook::ListPrompts, Hook::GetPrompt]) {
        out.extend(quote!(.with_prompts()));
    }
    if any(&[Hook::Complete]) {
        out.extend(quote!(.with_completions()));
    }
    out
}

/// One hook: `fn on_x(&self, value, request) -> impl Future<..> + Send`, binding the
/// method's parameters and calling it.
fn hook(k: &syn::Path, m: &AdvancedMethod) -> TokenStream {
    let Shape {
        value,
        out,
        args,
        bind,
        ret,
        ret_args,
        ..
    } = shape(k, m.hook);
    let name = format_ident!("{}", m.hook.name());
    let binds = bind_params(k, &m.params, |j| kind_fn_name(m.hook, j), &bind);
    // The user's inherent method of the same name takes precedence over the trait's.
    let call = call_method(&m.ident, &m.params, m.is_async);
    // Without a return type the method returns `()`: MCP_212 points at its name.
    let span = m.output.as_ref().map_or(m.sig_span, Spanned::span);
    let ret = quote_spanned!(span=> #ret(#ret_args __mcp_out));
    quote! {
        fn #name(
            &self,
            __mcp_value: #value,
            __mcp_request: &#k::RequestContext,
        ) -> impl ::core::future::Future<Output = ::core::result::Result<#out, #k::ServerError>> + ::core::marker::Send {
            async move {
                #[allow(unused_imports)]
                use #k::__private::prelude::*;
                #[allow(unused_mut)]
                let mut __mcp_call = #args;
                #(#binds)*
                // Serving a `#[deprecated]` method is not a use of it.
                #[allow(deprecated)]
                let __mcp_out = #call;
                #ret
            }
        }
    }
}

/// The kind functions of every hook, for the error path: they carry the MCP_211 checks,
/// and nothing uses them there.
pub fn all_kind_fns(k: &syn::Path, adv: &AdvancedDef) -> TokenStream {
    adv.hooks
        .iter()
        .flat_map(|m| kind_fns(k, m))
        .map(|f| quote!(#[allow(dead_code)] #f))
        .collect()
}

fn kind_fn_name(hook: Hook, param: usize) -> syn::Ident {
    format_ident!("__mcp_{}_kind_{}", hook.name(), param)
}

/// One function per parameter (except `#[http_header]` values) returning its kind as an
/// opaque `ListBind`/`CallBind`/`HookBind<_>`, so a parameter the hook cannot take is
/// reported once (MCP_211), on its type.
fn kind_fns<'a>(k: &'a syn::Path, m: &'a AdvancedMethod) -> impl Iterator<Item = TokenStream> + 'a {
    let (bound, args) = shape(k, m.hook).bound;
    m.params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.http_header.is_none())
        .map(move |(j, p)| {
            super::kind_fn_with(k, &kind_fn_name(m.hook, j), &bound, &args, &p.ty, &[])
        })
}

/// On errors: a stub `impl mcp::AdvancedService`, so the type stays a service and no
/// follow-on errors bury the real ones.
pub fn stub(svc: &ServiceDef) -> TokenStream {
    let k = &svc.krate;
    let self_ty = &svc.self_ty;
    let stub = |hook: Hook| {
        let Shape { value, out, .. } = shape(k, hook);
        let name = format_ident!("{}", hook.name());
        quote! {
            fn #name(&self, _: #value, _: &#k::RequestContext)
                -> impl ::core::future::Future<Output = ::core::result::Result<#out, #k::ServerError>> + ::core::marker::Send {
                async { ::core::unreachable!() }
            }
        }
    };
    let list = stub(Hook::ListTools);
    let call = stub(Hook::CallTool);
    quote! {
        impl #k::AdvancedService for #self_ty {
            fn info(&self) -> #k::Implementation { ::core::unreachable!() }
            #list
            #call
        }
    }
}
