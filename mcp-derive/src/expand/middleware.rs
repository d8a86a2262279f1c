//! The layers of the middleware keys: `.tool_layer(..)`, `.prompt_layer(..)` and
//! `.resource_layer(..)` calls on the builder a basic service's `IntoService::into_builder`
//! returns, outermost first: `rate_limit`, `concurrency_per_caller`, `concurrency`, the
//! `layer` expressions in written order, `timeout` (nearest the handler).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned as _;

use crate::model::{MiddlewareDef, ServiceDef};

/// One statement per tool, prompt and resource with layers of its own, under the method's
/// `#[cfg]`s, each rebinding `__mcp_builder` (empty when none has any).
pub fn statements(svc: &ServiceDef) -> TokenStream {
    let k = &svc.krate;
    let tools = svc.tools.iter().map(|t| {
        let rate_name = format!("tool:{}", t.name);
        (
            quote!(tool_layer),
            t.name.clone(),
            rate_name,
            &t.middleware,
            &t.cfg_attrs,
        )
    });
    let prompts = svc.prompts.iter().map(|p| {
        let rate_name = format!("prompt:{}", p.name);
        let cfg = &p.method.cfg_attrs;
        (
            quote!(prompt_layer),
            p.name.clone(),
            rate_name,
            &p.middleware,
            cfg,
        )
    });
    let resources = svc.resources.iter().map(|r| {
        let uri = r.uri.value();
        let rate_name = format!("resource:{uri}");
        let cfg = &r.method.cfg_attrs;
        (quote!(resource_layer), uri, rate_name, &r.middleware, cfg)
    });
    tools
        .chain(prompts)
        .chain(resources)
        .filter(|(.., m, _)| !m.is_empty())
        .map(|(method, target, rate_name, m, cfg)| {
            let calls = layers(k, m, &rate_name)
                .into_iter()
                .map(|layer| quote!(.#method(#target, #layer)));
            quote! {
                #(#cfg)*
                let __mcp_builder = __mcp_builder #(#calls)*;
            }
        })
        .collect()
}

/// The layer expressions of one target, outermost first.
fn layers(k: &syn::Path, m: &MiddlewareDef, rate_name: &str) -> Vec<TokenStream> {
    let mut out = Vec::new();
    if let Some((count, secs)) = m.rate_limit {
        // Checked by the macro; a constant, so it cannot fail at run time.
        out.push(quote! {
            #k::middleware::RateLimitLayer::per_caller(
                const { #k::__private::quota(#count, #secs) }
            ).named(#rate_name)
        });
    }
    if let Some(n) = m.concurrency_per_caller {
        out.push(quote!(#k::middleware::ConcurrencyLimitLayer::per_caller(#n)));
    }
    if let Some(n) = m.concurrency {
        out.push(quote!(#k::middleware::ConcurrencyLimitLayer::total(#n)));
    }
    for expr in &m.layers {
        // MCP_402: the bound of `__private::layer` fails at the user's expression, and
        // "required by a bound introduced by this call" points at its first token.
        let span = expr.span();
        let k = crate::parse::respan(quote!(#k), span);
        out.push(quote_spanned!(span=> #k::__private::layer(#expr)));
    }
    if let Some(nanos) = m.timeout_nanos {
        out.push(quote! {
            #k::middleware::DeadlineLayer::new(::core::time::Duration::from_nanos(#nanos))
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_in_order() {
        let k: syn::Path = syn::parse_quote!(::mcp);
        let m = MiddlewareDef {
            rate_limit: Some((10, 60)),
            concurrency_per_caller: Some(2),
            concurrency: Some(4),
            layers: vec![syn::parse_quote!(a()), syn::parse_quote!(b())],
            timeout_nanos: Some(30_000_000_000),
        };
        let text: Vec<String> = layers(&k, &m, "tool:t")
            .iter()
            .map(|t| t.to_string().replace(' ', ""))
            .collect();
        assert_eq!(
            text,
            [
                "::mcp::middleware::RateLimitLayer::per_caller(const{::mcp::__private::quota(10u32,60u64)}).named(\"tool:t\")",
                "::mcp::middleware::ConcurrencyLimitLayer::per_caller(2usize)",
                "::mcp::middleware::ConcurrencyLimitLayer::total(4usize)",
                "::mcp::__private::layer(a())",
                "::mcp::__private::layer(b())",
                "::mcp::middleware::DeadlineLayer::new(::core::time::Duration::from_nanos(30000000000u64))",
            ]
        );
    }
}
