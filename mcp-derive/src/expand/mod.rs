//! model → tokens. Generated code is thin: it names types and calls `::mcp::__private`.

mod advanced;
mod basic;
mod checks;

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemImpl;
use syn::ext::IdentExt as _;

use crate::model::{CacheHintDef, ProtocolMode, ServiceDef, SessionMode};

/// The user's impl (attributes stripped) and, in a `const _` block, the generated handler
/// and checks.
pub fn service(svc: &ServiceDef, item: &ItemImpl) -> TokenStream {
    let handler = match &svc.advanced {
        Some(adv) => advanced::handler(svc, adv),
        None => basic::handler(svc),
    };
    let checks = checks::service(svc);
    quote! {
        #item
        const _: () = {
            #handler
            #checks
        };
    }
}

/// On errors: the user's impl, the errors, and a stub handler so the type keeps
/// implementing `ServiceHandler` and no follow-on errors bury the real ones.
pub fn stub(svc: &ServiceDef, item: &ItemImpl, errors: TokenStream) -> TokenStream {
    let k = &svc.krate;
    let self_ty = &svc.self_ty;
    let config = config(svc);
    quote! {
        #item
        #errors
        const _: () = {
            impl #k::ServiceHandler for #self_ty {
                fn config(&self) -> #k::ServiceConfig { #config }
                fn kind(&self) -> #k::ServiceKind { #k::ServiceKind::Basic }
                fn list_tools<'__mcp_a>(&'__mcp_a self, _: ::core::option::Option<::std::string::String>, _: &'__mcp_a #k::RequestContext)
                    -> #k::BoxFuture<'__mcp_a, ::core::result::Result<#k::ListToolsResult, #k::ServerError>> {
                    ::core::unreachable!()
                }
                fn call_tool<'__mcp_a>(&'__mcp_a self, _: #k::CallToolParams, _: &'__mcp_a #k::RequestContext)
                    -> #k::BoxFuture<'__mcp_a, ::core::result::Result<#k::CallToolResponse, #k::ServerError>> {
                    ::core::unreachable!()
                }
            }
        };
    }
}

/// `ServiceConfig` from the attribute.
pub fn config(svc: &ServiceDef) -> TokenStream {
    let k = &svc.krate;
    let name = svc
        .name
        .as_ref()
        .map_or_else(|| quote!(::core::env!("CARGO_PKG_NAME")), |l| quote!(#l));
    let version = svc
        .version
        .as_ref()
        .map_or_else(|| quote!(::core::env!("CARGO_PKG_VERSION")), |l| quote!(#l));
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
        #k::ServiceConfig::new(#name, #version)
            .protocol_mode(#k::ProtocolMode::#protocol)
            .session_mode(#k::SessionMode::#session)
    };
    if let Some(t) = &svc.title {
        chain.extend(quote!(.title(#t)));
    }
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
    if !svc.allowed_origins.is_empty() {
        let o = &svc.allowed_origins;
        chain.extend(quote!(.allowed_origins([#(#o),*])));
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
