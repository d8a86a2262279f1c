//! Compile-time checks on types: one never-called function per tool (or advanced method)
//! whose body asks the compiler the questions the macro cannot answer from tokens. Each
//! question is a trait bound whose `on_unimplemented` message is a diagnostic (MCP_204,
//! 206, 207, 214, 215, 222), spanned on the offending type. The warnings (MCP_WARNING_*)
//! are calls of deprecated methods in a function nested in the method's own body
//! ([`warnings`]), so `#[allow(deprecated)]` and `#[expect(deprecated)]` on the method or
//! the impl apply to them as to any code of the method.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::{last_ident_span, probe_kind, span_range, spanned_ref};
use crate::model::{OutputPolicy, ParamDef, ProtocolMode, ServiceDef, SessionMode};

/// All check functions of the service.
pub fn service(svc: &ServiceDef) -> TokenStream {
    let mut out = TokenStream::new();
    for (i, tool) in svc.tools.iter().enumerate().filter(|(_, t)| !t.generic) {
        let mut body = params(svc, &tool.params, false);
        if tool.policy == OutputPolicy::Required && tool.output_schema.is_none() {
            let k = &svc.krate;
            let split = super::split(k, tool.output.as_ref());
            let range = match &tool.output {
                Some(ty) => span_range(success_type(ty)),
                None => (tool.ident.span(), tool.ident.span()),
            };
            let tag = Ident::new("__mcp_tag", range.1);
            let arg = spanned_ref(&tag, range);
            body.extend(quote! {
                let __mcp_split = #split;
                let #tag = (&&__mcp_split.ok_probe()).schema_tag();
                #k::__private::assert_structured(#arg);
            });
        }
        let name = format_ident!("__mcp_check_{}", i);
        let lints: Vec<_> = tool
            .lint_attrs
            .iter()
            .chain(&svc.lint_attrs)
            .map(expect_as_allow)
            .collect();
        out.extend(check_fn(
            svc,
            &name,
            tool.cfg_attrs.iter().chain(&lints),
            body,
        ));
    }
    if let Some(adv) = &svc.advanced {
        for m in &adv.hooks {
            let body = params(svc, &m.params, true);
            let name = format_ident!("__mcp_check_{}", m.hook.name());
            let lints: Vec<_> = m
                .lint_attrs
                .iter()
                .chain(&svc.lint_attrs)
                .map(expect_as_allow)
                .collect();
            out.extend(check_fn(svc, &name, lints.iter(), body));
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

/// The parameter checks shared with resource, prompt and completer methods.
pub fn params_checks(svc: &ServiceDef, p: &[ParamDef]) -> TokenStream {
    params(svc, p, false)
}

fn params(svc: &ServiceDef, params: &[ParamDef], advanced: bool) -> TokenStream {
    let k = &svc.krate;
    let mut body = TokenStream::new();
    // One probe per parameter that is not a `#[http_header]` value; every rule on it is a call
    // whose argument is spanned over the parameter's type, so rustc reports it there.
    let probed: Vec<_> = params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.http_header.is_none())
        .map(|(j, p)| {
            let range = span_range(&p.ty);
            (Ident::new(&format!("__mcp_k{j}"), range.1), range, p)
        })
        .collect();
    for (var, range, p) in &probed {
        let probe = probe_kind(k, &p.ty);
        let arg = spanned_ref(var, *range);
        body.extend(quote! {
            let #var = #probe;
            #k::__private::assert_meta_optional(#arg);
        });
        if svc.session_mode == SessionMode::Stateless {
            body.extend(quote!(#k::__private::assert_stateless_ok(#arg);));
        }
        if svc.protocol_mode == ProtocolMode::Modern {
            body.extend(quote!(#k::__private::assert_modern_ok(#arg);));
        }
        if p.header_arg.is_some() {
            body.extend(quote!(#k::__private::assert_header_argument(#arg);));
        }
    }
    let distinct = if advanced {
        quote!(assert_distinct_advanced)
    } else {
        quote!(assert_distinct)
    };
    for (a, (earlier, _, _)) in probed.iter().enumerate() {
        for (later, range, _) in probed.iter().skip(a + 1) {
            let arg = spanned_ref(later, *range);
            body.extend(quote!(#k::__private::#distinct(&#earlier, #arg);));
        }
    }
    body
}

/// A copy of a lint attribute for a generated item: `#[expect(...)]` becomes `#[allow(...)]`,
/// since the generated item need not raise what the user's item does.
pub fn expect_as_allow(attr: &syn::Attribute) -> syn::Attribute {
    let mut attr = attr.clone();
    if let syn::Meta::List(list) = &mut attr.meta
        && list.path.is_ident("expect")
    {
        list.path = syn::parse_quote!(allow);
    }
    attr
}

/// The statements raising the protocol-mode warnings (MCP_WARNING_202/203/204) of a
/// method's parameters, each spanned on the parameter's type; empty when no mode warns.
pub fn warnings(svc: &ServiceDef, params: &[ParamDef]) -> TokenStream {
    let method = match (svc.protocol_mode, svc.session_mode) {
        (ProtocolMode::Modern, _) => "in_modern_mode",
        (ProtocolMode::Auto, SessionMode::Stateless) => "in_auto_stateless_mode",
        (ProtocolMode::Auto, _) => "in_auto_mode",
        (ProtocolMode::Legacy, _) => return TokenStream::new(),
    };
    let k = &svc.krate;
    let mut body = TokenStream::new();
    for (j, p) in params.iter().enumerate() {
        if p.http_header.is_some() {
            continue;
        }
        let warn = last_ident_span(&p.ty);
        let var = Ident::new(&format!("__mcp_w{j}"), warn);
        let probe = probe_kind(k, &p.ty);
        let mode = Ident::new(method, warn);
        let emit = Ident::new("emit", warn);
        body.extend(quote! {
            let #var = #probe;
            #var.#mode().#emit();
        });
    }
    body
}

/// The success type of a return type written `Result<T, E>` (any path ending in `Result`),
/// else the type itself: MCP_222 is about the value that becomes `structuredContent`.
fn success_type(ty: &syn::Type) -> &syn::Type {
    if let syn::Type::Path(p) = ty
        && let Some(last) = p.path.segments.last()
        && last.ident == "Result"
        && let syn::PathArguments::AngleBracketed(args) = &last.arguments
        && let Some(syn::GenericArgument::Type(ok)) = args.args.first()
    {
        return ok;
    }
    ty
}
