//! Rules that compare items: duplicate tool names, tool-name validity, duplicate header
//! names (MCP_217), header arguments with an explicit schema (MCP_218),
//! `structured_output = false` with an explicit output schema (MCP_221), and the rules of
//! resources, prompts and completers ([`features`]). Rules whose verdict depends on
//! `#[cfg]`s follow [`cfg`].

mod cfg;
mod features;

use std::collections::HashMap;

use syn::ext::IdentExt as _;

use crate::diag::{Code, Ctxt, error, plain};
use crate::model::{CfgError, OutputPolicy, ServiceDef, ToolDef};

/// Checks the whole service; returns the errors whose verdict depends on cfgs.
pub fn service(cx: &Ctxt, svc: &ServiceDef) -> Vec<CfgError> {
    let cfg::Clashes { mut now, gated } = cfg::unique(
        &svc.tools,
        |t| t.name.as_str(),
        |t| &t.cfg_attrs,
        |first, tool| {
            plain(
                tool.name_span,
                format!(
                    "duplicate tool name `{}` (already used by method `{}`)",
                    tool.name,
                    first.ident.unraw()
                ),
            )
        },
    );
    for (tool, duplicate) in svc.tools.iter().zip(&mut now) {
        if !valid_tool_name(&tool.name) {
            cx.push(plain(
                tool.name_span,
                format!("invalid tool name `{}`: MCP tool names are 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`", tool.name),
            ));
        }
        if let Some(e) = duplicate.take() {
            cx.push(e);
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
        if let Some(task) = &tool.task
            && !matches!(task.value().as_str(), "optional" | "required" | "forbidden")
        {
            cx.push(error(
                Code::Mcp601,
                task.span(),
                format!(
                    "invalid task support {:?} for tool `{}`: use \"optional\" (a task when the client declares the tasks extension), \"required\" (only as a task) or \"forbidden\"",
                    task.value(),
                    tool.name
                ),
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
    let mut cfg_errors = gated;
    cfg_errors.extend(features::service(cx, svc));
    cfg_errors
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
        let _ = service(&cx, &svc);
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
    fn advanced_hooks_are_read_in_their_groups() {
        let mut item: syn::ItemImpl = parse_quote! {
            impl S {
                pub fn on_call_tool(&self, p: mcp::CallToolParams) {}
                pub fn on_list_tools(&self) {}
                pub async fn on_list_resources(&self, cursor: Option<String>, h: http::HeaderMap) {}
                pub fn on_read_resource(&self, p: mcp::ReadResourceParams) {}
                pub fn on_complete(&self, p: mcp::CompleteParams) {}
            }
        };
        let cx = Ctxt::new();
        let svc = parse::service(&cx, quote::quote!(advanced), &mut item);
        cx.check().expect("no errors");
        let hooks: Vec<_> = svc
            .advanced
            .expect("advanced")
            .hooks
            .iter()
            .map(|m| (m.hook, m.params.len()))
            .collect();
        use crate::model::Hook;
        assert_eq!(
            hooks,
            [
                (Hook::CallTool, 1),
                (Hook::ListTools, 0),
                (Hook::ListResources, 2),
                (Hook::ReadResource, 1),
                (Hook::Complete, 1),
            ]
        );

        let errs = errors(
            quote::quote!(advanced),
            parse_quote! {
                impl S {
                    pub fn on_list_tools(&self) {}
                    pub fn on_call_tool(&self, p: mcp::CallToolParams) {}
                    pub fn on_list_resource_templates(&self) {}
                    pub fn on_get_prompt(&self, p: mcp::GetPromptParams) {}
                }
            },
        );
        assert_eq!(
            errs,
            [
                "MCP_210: an advanced service with resources must define `on_list_resources` and `on_read_resource`; missing: `on_list_resources`, `on_read_resource`",
                "MCP_210: an advanced service with prompts must define `on_list_prompts` and `on_get_prompt`; missing: `on_list_prompts`",
            ]
        );
    }

    #[test]
    fn constant_limits_must_be_positive() {
        let errs = errors(
            quote::quote!(
                session_limits(idle_timeout_secs = 0, max_per_owner = 5),
                request_state(ttl_secs = 0)
            ),
            parse_quote! { impl S {} },
        );
        assert!(
            errs.iter()
                .any(|e| e == "`idle_timeout_secs` must be positive"),
            "{errs:#?}"
        );
        assert!(
            errs.iter().any(|e| e == "`ttl_secs` must be positive"),
            "{errs:#?}"
        );
        assert_eq!(errs.len(), 2, "{errs:#?}");
    }

    #[test]
    fn skip_takes_no_other_key() {
        let errs = errors(
            quote::quote!(),
            parse_quote! {
                impl S {
                    #[tool(skip, legacy_structured_output = true)]
                    pub fn helper(&self) {}
                }
            },
        );
        assert_eq!(
            errs,
            ["`#[tool(skip)]` marks a method that is not a tool: it takes no other options"],
        );
    }

    #[test]
    fn durations_name_their_unit() {
        // The pre-rename keys are unknown: a duration key names its unit.
        let errs = errors(
            quote::quote!(session_limits(idle_timeout = 60), request_state(ttl = 60)),
            parse_quote! { impl S {} },
        );
        assert!(errs.iter().any(|e| e.contains("idle_timeout")), "{errs:#?}");
        assert!(errs.iter().any(|e| e.contains("`ttl`")), "{errs:#?}");
        assert_eq!(errs.len(), 2, "{errs:#?}");
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

    /// Errors of `src` (an impl block) with `args` (the attribute's arguments), each with the
    /// text its span starts at in `args` or `src`. Parsing from strings gives the tokens
    /// real positions.
    fn located(args: &str, src: &str) -> Vec<(String, String)> {
        let args_tokens: proc_macro2::TokenStream = args.parse().expect("arguments");
        let mut item: syn::ItemImpl = syn::parse_str(src).expect("an impl block");
        let cx = Ctxt::new();
        let svc = parse::service(&cx, args_tokens, &mut item);
        let _ = service(&cx, &svc);
        let text_at = |text: &str, line: usize, column: usize| {
            text.lines()
                .nth(line.wrapping_sub(1))
                .map(|l| l.chars().skip(column).collect::<String>())
                .unwrap_or_default()
        };
        match cx.check() {
            Ok(()) => Vec::new(),
            Err(e) => e
                .into_iter()
                .map(|e| {
                    let start = e.span().start();
                    // Each parsed string is its own source: an error in the arguments has
                    // positions within `args`.
                    let in_args = e.span().source_text().is_some_and(|t| args.contains(&t))
                        && !src.contains(&e.span().source_text().unwrap_or_default());
                    let text = if in_args { args } else { src };
                    (e.to_string(), text_at(text, start.line, start.column))
                })
                .collect(),
        }
    }

    #[test]
    fn each_problem_is_reported_once_at_its_token() {
        let src = r##"impl S {
    pub fn a(&self, #[argument(header = "Region")] r: String, #[argument(header = "REGION")] s: String) {}
    pub fn b(&self, #[argument(header = "bad name")] r: String, #[http_header("X Y")] h: String) {}
    #[tool(structured_output = false, output_schema = r#"{"type":"string"}"#)]
    pub fn c(&self) {}
    #[tool(schema = r#"{"type":"object"}"#)]
    pub fn d(&self, #[argument(header = "H")] h: String) {}
    #[tool(name = "a")]
    pub fn e(&self, (x, y): (i32, i32)) {}
    pub fn f<T>(&self) {}
    pub fn g(&mut self) {}
}"##;
        let errs = located("name = \"x\"", src);
        let expect = [
            ("MCP_217", "\"REGION\""),
            ("MCP_216", "\"bad name\""),
            ("MCP_208", "\"X Y\""),
            ("MCP_221", "r#\"{\"type\":\"string\"}\"#"),
            ("MCP_218", "\"H\""),
            ("duplicate tool name `a`", "\"a\""),
            ("MCP_201: the tool's input schema", "(x, y)"),
            ("MCP_201: the input schema of `f`", "<T>"),
            ("tool `g` must take `&self`", "&mut self"),
        ];
        assert_eq!(errs.len(), expect.len(), "{errs:#?}");
        for (message, token) in expect {
            let found = errs.iter().find(|(m, _)| m.starts_with(message));
            let Some((m, at)) = found else {
                panic!("no error starting with {message:?}: {errs:#?}")
            };
            assert!(
                at.starts_with(token),
                "{m:?} points at {at:?}, not at {token:?}"
            );
        }
    }

    #[test]
    fn advanced_errors_point_at_their_tokens() {
        let src = r#"impl S {
    pub fn on_call_tool(&self) {}
    pub fn helper(&self) {}
}"#;
        let errs = located("advanced", src);
        assert_eq!(errs.len(), 3, "{errs:#?}");
        for (message, token) in [
            ("MCP_211", "(&self)"),
            ("MCP_213", "helper"),
            ("MCP_210", "S {"),
        ] {
            let (m, at) = errs
                .iter()
                .find(|(m, _)| m.starts_with(message))
                .unwrap_or_else(|| panic!("no {message}: {errs:#?}"));
            assert!(
                at.starts_with(token),
                "{m:?} points at {at:?}, not at {token:?}"
            );
        }
        assert!(
            errs.iter()
                .any(|(m, _)| m.contains("missing: `on_list_tools`")),
            "{errs:#?}"
        );
    }

    #[test]
    fn darling_errors_keep_their_spans_and_do_not_stop_the_rest() {
        let src = r#"impl S {
    #[tool(nmae = "x")]
    pub fn a(&self, #[argument(header = "bad name")] r: String) {}
}"#;
        let errs = located("protocol_mode = \"future\"", src);
        assert_eq!(errs.len(), 3, "{errs:#?}");
        assert!(
            errs.iter()
                .any(|(m, at)| m.starts_with("unknown protocol mode `future`")
                    && at.starts_with("\"future\"")),
            "{errs:#?}"
        );
        assert!(
            errs.iter()
                .any(|(m, at)| m.contains("nmae") && m.contains("name") && at.starts_with("nmae")),
            "{errs:#?}"
        );
        assert!(
            errs.iter().any(|(m, _)| m.starts_with("MCP_216")),
            "{errs:#?}"
        );
    }

    #[test]
    fn self_in_signatures_names_the_type_where_self_was_written() {
        let src = "impl Counter { pub fn add(&self, other: Self, all: Vec<Self>) -> Option<Self> { None } }";
        let mut item: syn::ItemImpl = syn::parse_str(src).unwrap();
        let cx = Ctxt::new();
        let svc = parse::service(&cx, quote::quote!(), &mut item);
        cx.check().unwrap();
        let tool = &svc.tools[0];
        let types: Vec<_> = tool
            .params
            .iter()
            .map(|p| &p.ty)
            .chain(&tool.output)
            .map(|t| quote::ToTokens::to_token_stream(t).to_string())
            .collect();
        assert_eq!(types, ["Counter", "Vec < Counter >", "Option < Counter >"]);
        let span = syn::spanned::Spanned::span(&tool.params[0].ty);
        assert_eq!(span.source_text().as_deref(), Some("Self"));
    }

    pub(super) fn parsed(
        args: proc_macro2::TokenStream,
        mut item: syn::ItemImpl,
    ) -> (crate::model::ServiceDef, Vec<String>) {
        let cx = Ctxt::new();
        let mut svc = parse::service(&cx, args, &mut item);
        svc.cfg_errors = service(&cx, &svc);
        let errs = match cx.check() {
            Ok(()) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        };
        (svc, errs)
    }

    #[test]
    fn valid_rust_is_accepted() {
        let (svc, errs) = parsed(
            quote::quote!(name = "x"),
            parse_quote! {
                impl S {
                    pub fn new() -> Self { S }
                    pub fn r#type(&self, r#match: String) {}
                    pub fn typed(self: &Self) {}
                    pub fn named<'a>(self: &'a S, text: &'a str) -> &'a str { text }
                    pub const fn limit(&self) -> u32 { 1 }
                    #[tool(skip)]
                    pub fn helper(&mut self) {}
                    #[cfg(unix)]
                    pub fn os(&self) {}
                    #[cfg(not(unix))]
                    pub fn os(&self) {}
                }
            },
        );
        assert!(errs.is_empty(), "{errs:#?}");
        let names: Vec<_> = svc.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["type", "typed", "named", "limit", "os", "os"]);
        assert_eq!(
            crate::expand::wire_name(&svc.tools[0].params[0].ident),
            "match"
        );
        assert!(!svc.tools[2].generic);
        assert_eq!(svc.tools[2].params[0].by_ref, Some(false));
        assert_eq!(svc.cfg_errors.len(), 1);
        assert_eq!(svc.cfg_errors[0].cfg.to_string(), "all (unix , not (unix))");
        assert_eq!(
            svc.cfg_errors[0].message,
            "duplicate tool name `os` (already used by method `os`): both `#[cfg]`s hold in this build"
        );
    }

    #[test]
    fn duplicates_under_the_same_cfgs_are_errors_now() {
        let (svc, errs) = parsed(
            quote::quote!(),
            parse_quote! {
                impl S {
                    #[cfg(unix)]
                    #[cfg(test)]
                    pub fn a(&self) {}
                    #[cfg(test)]
                    #[cfg(unix)]
                    #[tool(name = "a")]
                    pub fn b(&self) {}
                }
            },
        );
        assert_eq!(
            errs,
            ["duplicate tool name `a` (already used by method `a`)"]
        );
        assert!(svc.cfg_errors.is_empty());
    }

    #[test]
    fn restricted_methods_are_recorded_for_the_warning() {
        let (svc, errs) = parsed(
            quote::quote!(),
            parse_quote! {
                impl S {
                    pub(crate) fn a(&self) {}
                    pub(super) fn b(&self) {}
                    pub(crate) fn c() {}
                    fn d(&self) {}
                    #[tool(skip)]
                    pub(crate) fn e(&self) {}
                    pub(self) fn f(&self) {}
                    pub(in crate::x) fn g(&self) {}
                }
            },
        );
        assert!(errs.is_empty(), "{errs:#?}");
        let indexes: Vec<_> = svc.restricted.iter().map(|(i, _)| *i).collect();
        assert_eq!(indexes, [0, 1, 6]);
    }

    #[test]
    fn modes_that_are_not_strings_name_the_accepted_values() {
        let errs = errors(
            quote::quote!(protocol_mode = 3, session_mode = stateless),
            parse_quote! { impl S {} },
        );
        assert_eq!(
            errs,
            [
                "`protocol_mode` takes a string: \"auto\", \"modern\" or \"legacy\" (found `3`)",
                "`session_mode` takes a string: \"auto\", \"stateful\" or \"stateless\" (found `stateless`)",
            ]
        );
    }
}
