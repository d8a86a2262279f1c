//! The `IntoService` and `ServiceHandler` implementations of an advanced service: binds the parameters of `on_list_tools` and
//! `on_call_tool` by type and maps their results.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::{bind_params, call_method, config};
use crate::model::{AdvancedDef, AdvancedMethod, ServiceDef};

/// The generated handler.
pub fn handler(svc: &ServiceDef, adv: &AdvancedDef) -> TokenStream {
    let k = &svc.krate;
    let self_ty = &svc.self_ty;
    let config = config(svc);
    let list = method_call(k, &adv.list, "list", quote!(bind_list), quote!(list_return));
    let call = method_call(k, &adv.call, "call", quote!(bind_call), quote!(call_return));
    let kind_fns = kind_fns(k, &adv.list, "list", quote!(#k::__private::ListBind)).chain(kind_fns(
        k,
        &adv.call,
        "call",
        quote!(#k::__private::CallBind),
    ));
    quote! {
        #(#kind_fns)*

        impl #k::IntoService for #self_ty {
            fn into_builder(self) -> #k::ServerBuilder {
                #config
            }
        }

        impl #k::__private::ServiceHandler for #self_ty {
            fn kind(&self) -> #k::__private::ServiceKind {
                #k::__private::ServiceKind::Advanced
            }

            fn list_tools<'__mcp_a>(
                &'__mcp_a self,
                cursor: ::core::option::Option<::std::string::String>,
                request: &'__mcp_a #k::RequestContext,
            ) -> #k::BoxFuture<'__mcp_a, ::core::result::Result<#k::ListToolsResult, #k::ServerError>> {
                #k::__private::boxed(async move {
                    #[allow(unused_imports)]
                    use #k::__private::prelude::*;
                    #[allow(unused_mut)]
                    let mut __mcp_call = #k::__private::CallArgs::for_list(cursor, request);
                    #list
                })
            }

            fn call_tool<'__mcp_a>(
                &'__mcp_a self,
                params: &'__mcp_a mut #k::CallToolParams,
                request: &'__mcp_a #k::RequestContext,
            ) -> #k::BoxFuture<'__mcp_a, ::core::result::Result<#k::CallToolResponse, #k::ServerError>> {
                #k::__private::boxed(async move {
                    #[allow(unused_imports)]
                    use #k::__private::prelude::*;
                    // An advanced tool may answer input-required at any time: the dispatcher
                    // keeps the params whole to bind its request state.
                    #[allow(unused_mut)]
                    let mut __mcp_call = #k::__private::CallArgs::for_call(::core::clone::Clone::clone(&*params), request);
                    #call
                })
            }
        }
    }
}

/// The kind functions of both methods, for the error path: they carry the MCP_211 checks,
/// and nothing uses them there.
pub fn all_kind_fns(k: &syn::Path, adv: &AdvancedDef) -> TokenStream {
    kind_fns(k, &adv.list, "list", quote!(#k::__private::ListBind))
        .chain(kind_fns(
            k,
            &adv.call,
            "call",
            quote!(#k::__private::CallBind),
        ))
        .map(|f| quote!(#[allow(dead_code)] #f))
        .collect()
}

fn kind_fn_name(tag: &str, param: usize) -> syn::Ident {
    format_ident!("__mcp_{}_kind_{}", tag, param)
}

/// One function per parameter (except `#[http_header]` values) returning its kind as an opaque
/// `ListBind`/`CallBind`, so a parameter the method cannot take is reported once (MCP_211),
/// on its type.
fn kind_fns<'a>(
    k: &'a syn::Path,
    m: &'a AdvancedMethod,
    tag: &'a str,
    bound: TokenStream,
) -> impl Iterator<Item = TokenStream> + 'a {
    m.params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.http_header.is_none())
        .map(move |(j, p)| super::kind_fn(k, &kind_fn_name(tag, j), &bound, &p.ty, &[]))
}

fn method_call(
    k: &syn::Path,
    m: &AdvancedMethod,
    tag: &str,
    bind: TokenStream,
    ret: TokenStream,
) -> TokenStream {
    let bind = quote!(#k::__private::#bind);
    let binds = bind_params(k, &m.params, |j| kind_fn_name(tag, j), &bind);
    let call = call_method(&m.ident, &m.params, m.is_async);
    // Without a return type the method returns `()`: MCP_212 points at its name.
    let span = m.output.as_ref().map_or(m.sig_span, Spanned::span);
    let ret = quote_spanned!(span=> #k::__private::#ret(__mcp_out));
    quote! {
        #(#binds)*
        // Serving a `#[deprecated]` method is not a use of it.
        #[allow(deprecated)]
        let __mcp_out = #call;
        #ret
    }
}
