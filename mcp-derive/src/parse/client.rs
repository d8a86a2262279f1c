//! syn → model for `#[mcp::client]`: each method of the trait is read as the tool it calls,
//! with the tool reader itself (a trait method is a tool method without a body), so names,
//! descriptions and argument keys mean what they mean on a service.

use proc_macro2::TokenStream;
use syn::spanned::Spanned;
use syn::{ImplItemFn, ItemTrait, TraitItem, Type, Visibility};

use super::attrs::{self, ClientTraitArgs};
use super::types;
use crate::diag::{Code, Ctxt, error};
use crate::model::ClientTraitDef;
use crate::symbol::TOOL;

/// Reads the trait.
pub fn client_trait(cx: &Ctxt, args: TokenStream, item: &ItemTrait) -> ClientTraitDef {
    let args = match darling::ast::NestedMeta::parse_meta_list(args) {
        Ok(list) => <ClientTraitArgs as darling::FromMeta>::from_list(&list).unwrap_or_else(|e| {
            cx.push_darling(e);
            ClientTraitArgs::default()
        }),
        Err(e) => {
            cx.push(e);
            ClientTraitArgs::default()
        }
    };
    let krate = match &args.krate {
        Some(lit) => lit.parse::<syn::Path>().unwrap_or_else(|e| {
            cx.push(e);
            syn::parse_quote!(::mcp)
        }),
        None => syn::parse_quote!(::mcp),
    };
    let client = match &args.name {
        Some(name) => syn::Ident::new(&name.value(), name.span()),
        None => syn::Ident::new(&format!("{}Client", item.ident), item.ident.span()),
    };
    if !item.generics.params.is_empty() || item.generics.where_clause.is_some() {
        let at = match (item.generics.params.first(), &item.generics.where_clause) {
            (Some(param), _) => param.span(),
            (None, Some(w)) => w.where_token.span(),
            (None, None) => item.generics.span(),
        };
        cx.push(error(
            Code::Mcp503,
            at,
            "an `#[mcp::client]` trait cannot be generic: its tools' schemas are fixed",
        ));
    }
    if let Some(colon) = &item.colon_token {
        let at = item
            .supertraits
            .first()
            .map_or_else(|| colon.span(), Spanned::span);
        cx.push(error(
            Code::Mcp503,
            at,
            "an `#[mcp::client]` trait has no supertraits: it describes a server's tools",
        ));
    }
    let self_ty: Type = syn::parse_quote!(Self);
    let mut tools = Vec::new();
    for (index, it) in item.items.iter().enumerate() {
        let TraitItem::Fn(m) = it else {
            // At the item's name (or macro), not at its doc comment.
            let at = match it {
                TraitItem::Type(t) => t.ident.span(),
                TraitItem::Const(c) => c.ident.span(),
                TraitItem::Macro(m) => m.mac.path.span(),
                other => other.span(),
            };
            cx.push(error(
                Code::Mcp503,
                at,
                "an `#[mcp::client]` trait holds only methods, one per tool",
            ));
            continue;
        };
        if let Some(body) = &m.default {
            cx.push(error(Code::Mcp503, body.span(), "a method of an `#[mcp::client]` trait has no body: the generated client calls the tool"));
        }
        if !matches!(types::receiver(&m.sig, &self_ty), types::Receiver::Shared) {
            cx.push(error(
                Code::Mcp503,
                m.sig.ident.span(),
                format!(
                    "`{}` must take `&self`: it becomes a method of the client",
                    m.sig.ident
                ),
            ));
            continue;
        }
        let mut method = ImplItemFn {
            attrs: m.attrs.clone(),
            vis: Visibility::Public(Default::default()),
            defaultness: None,
            sig: m.sig.clone(),
            block: syn::parse_quote!({}),
        };
        let tool_attrs = attrs::take(&mut method.attrs, TOOL);
        let attr = super::tool_attr(cx, &tool_attrs, |second| {
            error(
                Code::Mcp503,
                second.path().span(),
                "duplicate `#[tool]` attribute",
            )
        });
        if attr.skip.is_present() {
            cx.push(error(
                Code::Mcp503,
                attr.skip.span(),
                "`skip` has no meaning in an `#[mcp::client]` trait: remove the method",
            ));
        }
        if let Some(tool) = super::tool(cx, index, &mut method, attr) {
            tools.push(tool);
        }
    }
    let attrs = item
        .attrs
        .iter()
        .filter(|a| {
            a.path().is_ident("doc") || attrs::lint_attrs(std::slice::from_ref(a)).len() == 1
        })
        .cloned()
        .collect();
    ClientTraitDef {
        krate,
        vis: item.vis.clone(),
        client,
        attrs,
        tools,
    }
}
