//! Rules that compare items: duplicate tool names, tool-name validity, duplicate header
//! names (MCP_217), header arguments with an explicit schema (MCP_218), and
//! `structured_output = false` with an explicit output schema (MCP_221).

use std::collections::HashMap;

use crate::diag::{Code, Ctxt, error, plain};
use crate::model::{OutputPolicy, ServiceDef, ToolDef};

/// Checks the whole service.
pub fn service(cx: &Ctxt, svc: &ServiceDef) {
    let mut names: HashMap<&str, &ToolDef> = HashMap::new();
    for tool in &svc.tools {
        if !valid_tool_name(&tool.name) {
            cx.push(plain(
                tool.name_span,
                format!("invalid tool name `{}`: MCP tool names are 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`", tool.name),
            ));
        }
        if let Some(first) = names.insert(&tool.name, tool) {
            cx.push(plain(
                tool.name_span,
                format!(
                    "duplicate tool name `{}` (already used by method `{}`)",
                    tool.name, first.ident
                ),
            ));
        }
        headers(cx, tool);
        if tool.policy == OutputPolicy::Disabled
            && let Some(schema) = &tool.output_schema
        {
            cx.push(error(
                Code::Mcp221,
                schema.span(),
                format!("`structured_output = false` conflicts with the explicit `output_schema` of tool `{}`: remove one of them", tool.name),
            ));
        }
        for scope in &tool.scopes {
            let v = scope.value();
            if v.is_empty()
                || !v
                    .bytes()
                    .all(|b| (0x21..=0x7e).contains(&b) && b != b'"' && b != b'\\')
            {
                cx.push(plain(scope.span(), format!("invalid scope {v:?}: scopes are printable ASCII without spaces, `\"` or `\\`")));
            } else if v == "offline_access" {
                cx.push(plain(scope.span(), "`offline_access` cannot be a tool scope: it asks for a refresh token and grants nothing on this server"));
            }
        }
    }
}

fn headers(cx: &Ctxt, tool: &ToolDef) {
    let mut seen: HashMap<String, &syn::Ident> = HashMap::new();
    for param in &tool.params {
        let Some(h) = &param.header_arg else { continue };
        if tool.input_schema.is_some() {
            cx.push(error(
                Code::Mcp218,
                h.span(),
                format!("`#[argument(header = ...)]` cannot be used with the explicit `schema` of tool `{}`: declare `\"x-mcp-header\"` in the schema instead", tool.name),
            ));
        }
        if let Some(first) = seen.insert(h.value().to_ascii_lowercase(), &param.ident) {
            cx.push(error(
                Code::Mcp217,
                h.span(),
                format!(
                    "duplicate header name `{}` (already used by parameter `{first}`)",
                    h.value()
                ),
            ));
        }
    }
}

/// MCP tool names: 1–128 characters of `[A-Za-z0-9_.-]`.
pub fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;
    use syn::parse_quote;

    fn errors(args: proc_macro2::TokenStream, mut item: syn::ItemImpl) -> Vec<String> {
        let cx = Ctxt::new();
        let svc = parse::service(&cx, args, &mut item);
        service(&cx, &svc);
        match cx.check() {
            Ok(()) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn collects_every_error_of_a_block() {
        let errs = errors(
            quote::quote!(name = "x"),
            parse_quote! {
                impl S {
                    pub fn a(&self, #[argument(header = "Region")] r: String, #[argument(header = "region")] s: String) {}
                    #[tool(name = "a")]
                    pub fn b(&self, #[argument(header = "bad name")] r: String) {}
                    #[tool(structured_output = false, output_schema = r#"{"type":"string"}"#)]
                    pub fn c(&self) {}
                    #[tool(schema = r#"{"type":"object"}"#)]
                    pub fn d(&self, #[argument(header = "H")] h: String) {}
                    #[tool(name = "bad name!")]
                    pub fn e(&self) {}
                    #[tool(schema = r#"{"type":"array"}"#)]
                    pub fn f(&self) {}
                }
            },
        );
        let codes: Vec<_> = errs
            .iter()
            .map(|e| e.split(':').next().unwrap_or_default().to_owned())
            .collect();
        for code in ["MCP_217", "MCP_216", "MCP_221", "MCP_218", "MCP_201"] {
            assert!(
                codes.iter().any(|c| c == code),
                "{code} missing from {errs:#?}"
            );
        }
        assert!(
            errs.iter()
                .any(|e| e.starts_with("duplicate tool name `a`")),
            "{errs:#?}"
        );
        assert!(
            errs.iter().any(|e| e.starts_with("invalid tool name")),
            "{errs:#?}"
        );
    }

    #[test]
    fn advanced_rules() {
        let errs = errors(
            quote::quote!(advanced),
            parse_quote! { impl S { pub fn helper(&self) {} } },
        );
        assert!(errs.iter().any(|e| e.starts_with("MCP_210")), "{errs:#?}");
        assert!(errs.iter().any(|e| e.starts_with("MCP_213")), "{errs:#?}");
    }

    #[test]
    fn misspelled_keys_suggest_the_right_one() {
        let errs = errors(
            quote::quote!(protocol_mod = "auto"),
            parse_quote! { impl S {} },
        );
        assert!(
            errs.iter().any(|e| e.contains("protocol_mode")),
            "{errs:#?}"
        );
    }

    #[test]
    fn clean_service_has_no_errors() {
        let errs = errors(
            quote::quote!(
                name = "weather",
                protocol_mode = "auto",
                cache(list_tools(ttl_ms = 60000, scope = "public"))
            ),
            parse_quote! {
                impl S {
                    /// Forecast.
                    pub async fn forecast(&self, #[argument(header = "Region")] region: String, days: Option<u8>) -> String { String::new() }
                    fn helper(&self) {}
                }
            },
        );
        assert!(errs.is_empty(), "{errs:#?}");
    }
}
