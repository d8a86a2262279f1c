//! Compile-time checks on types: one never-called function per tool (or advanced method)
//! whose body asks the compiler the questions the macro cannot answer from tokens. Each
//! question is a trait bound whose `on_unimplemented` message is a diagnostic (MCP_204,
//! 206, 207, 214, 215, 222), or a call of a deprecated method (the MCP_WARNING_* codes),
//! spanned on the offending type.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::model::{OutputPolicy, ParamDef, ProtocolMode, ServiceDef, SessionMode};

/// All check functions of the service.
pub fn service(svc: &ServiceDef) -> TokenStream {
    let mut out = TokenStream::new();
    for (i, tool) in svc.tools.iter().enumerate() {
        let mut body = params(svc, &tool.params, false);
        if tool.policy == OutputPolicy::Required && tool.output_schema.is_none() {
            let k = &svc.krate;
            let split = super::basic::split(k, tool.output.as_ref());
            let span = tool
                .output
                .as_ref()
                .map_or_else(|| tool.ident.span(), |t| t.span());
            body.extend(quote_spanned! {span=>
                let __mcp_split = #split;
                #k::__private::assert_structured(&(&&__mcp_split.ok_probe()).schema_tag());
            });
        }
        let name = format_ident!("__mcp_check_{}", i);
        let attrs = tool
            .cfg_attrs
            .iter()
            .chain(&tool.lint_attrs)
            .chain(&svc.lint_attrs);
        out.extend(check_fn(svc, &name, attrs, body));
    }
    if let Some(adv) = &svc.advanced {
        for (m, tag) in [(&adv.list, "list"), (&adv.call, "call")] {
            let body = params(svc, &m.params, true);
            let name = format_ident!("__mcp_check_{}", tag);
            let attrs = m.lint_attrs.iter().chain(&svc.lint_attrs);
            out.extend(check_fn(svc, &name, attrs, body));
        }
    }
    out
}

fn check_fn<'a>(
    svc: &ServiceDef,
    name: &syn::Ident,
    attrs: impl Iterator<Item = &'a syn::Attribute>,
    body: TokenStream,
) -> TokenStream {
    let k = &svc.krate;
    quote! {
        #[allow(dead_code)]
        #(#attrs)*
        fn #name() {
            #[allow(unused_imports)]
            use #k::__private::prelude::*;
            #body
        }
    }
}

fn params(svc: &ServiceDef, params: &[ParamDef], advanced: bool) -> TokenStream {
    let k = &svc.krate;
    let mut body = TokenStream::new();
    let probed: Vec<_> = params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.http_header.is_none())
        .collect();
    for (j, p) in &probed {
        let ty = &p.ty;
        let var = format_ident!("__mcp_k{}", j);
        body.extend(quote_spanned! {ty.span()=>
            let #var = (&&#k::__private::Probe::<#ty>::NEW).kind();
            #k::__private::assert_meta_optional(&#var);
        });
        match (svc.protocol_mode, svc.session_mode) {
            (ProtocolMode::Legacy, SessionMode::Stateless) | (_, SessionMode::Stateless) => {
                body.extend(quote_spanned!(ty.span()=> #k::__private::assert_stateless_ok(&#var);));
            }
            _ => {}
        }
        match svc.protocol_mode {
            ProtocolMode::Modern => body.extend(quote_spanned! {ty.span()=>
                #k::__private::assert_modern_ok(&#var);
                #var.in_modern_mode();
            }),
            ProtocolMode::Auto if svc.session_mode != SessionMode::Stateless => {
                body.extend(quote_spanned!(ty.span()=> #var.in_auto_mode();));
            }
            ProtocolMode::Auto | ProtocolMode::Legacy => {}
        }
        if let Some(h) = &p.header_arg {
            body.extend(quote_spanned!(h.span()=> #k::__private::assert_header_argument(&#var);));
        }
    }
    let distinct = if advanced {
        quote!(assert_distinct_advanced)
    } else {
        quote!(assert_distinct)
    };
    for (a, (i, _)) in probed.iter().enumerate() {
        for (j, second) in probed.iter().skip(a + 1) {
            let (vi, vj) = (format_ident!("__mcp_k{}", i), format_ident!("__mcp_k{}", j));
            let ty = &second.ty;
            body.extend(quote_spanned!(ty.span()=> #k::__private::#distinct(&#vi, &#vj);));
        }
    }
    body
}
