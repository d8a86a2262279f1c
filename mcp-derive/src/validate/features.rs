//! Rules that compare resource, prompt and completer methods: duplicate URIs (MCP_304),
//! duplicate prompt names (MCP_305), and completers' targets and duplicates (MCP_307). They
//! reason about `#[cfg]`s as the tool rules do ([`super::cfg`]).

use syn::ext::IdentExt as _;

use super::cfg;
use crate::diag::{Code, Ctxt, coded, error};
use crate::model::{CfgError, CompleterDef, MethodDef, ServiceDef};

/// Checks the resources, prompts and completers; returns the errors whose verdict depends
/// on cfgs.
pub fn service(cx: &Ctxt, svc: &ServiceDef) -> Vec<CfgError> {
    let mut cfg_errors = cfg::unique(
        &svc.resources,
        |r| r.uri.value(),
        |r| &r.method.cfg_attrs,
        |first, r| {
            error(
                Code::Mcp304,
                r.uri.span(),
                format!(
                    "duplicate resource URI {:?} (already served by method `{}`)",
                    r.uri.value(),
                    first.method.ident.unraw()
                ),
            )
        },
    )
    .report(cx);
    cfg_errors.extend(
        cfg::unique(
            &svc.prompts,
            |p| p.name.as_str(),
            |p| &p.method.cfg_attrs,
            |first, p| {
                error(
                    Code::Mcp305,
                    p.name_span,
                    format!(
                        "duplicate prompt name `{}` (already used by method `{}`)",
                        p.name,
                        first.method.ident.unraw()
                    ),
                )
            },
        )
        .report(cx),
    );
    cfg_errors.extend(
        cfg::unique(
            &svc.completers,
            |c| (c.template, c.target.value(), c.argument.value()),
            |c| &c.method.cfg_attrs,
            |first, c| {
                let (argument, what) = names(c);
                error(
                    Code::Mcp307,
                    c.argument.span(),
                    format!(
                        "{argument} `{}` of {what} {:?} already has a completer (method `{}`)",
                        c.argument.value(),
                        c.target.value(),
                        first.method.ident.unraw()
                    ),
                )
            },
        )
        .report(cx),
    );
    for c in &svc.completers {
        cfg_errors.extend(target(cx, svc, c));
    }
    cfg_errors
}

/// What a completer's argument and target are called in messages.
fn names(c: &CompleterDef) -> (&'static str, &'static str) {
    if c.template {
        ("variable", "resource template")
    } else {
        ("argument", "prompt")
    }
}

/// The completer's target exists, has the argument or variable it completes, and is
/// compiled wherever the completer is.
fn target(cx: &Ctxt, svc: &ServiceDef, c: &CompleterDef) -> Option<CfgError> {
    let target = c.target.value();
    let argument = c.argument.value();
    let (_, what) = names(c);
    let candidates: Vec<&MethodDef> = if c.template {
        let templates: Vec<_> = svc
            .resources
            .iter()
            .filter(|r| r.template && r.uri.value() == target)
            .collect();
        // One template text has one set of variables, whichever method serves it.
        if let Some(r) = templates.first()
            && !r.vars.contains(&argument)
        {
            cx.push(error(
                Code::Mcp307,
                c.argument.span(),
                format!(
                    "resource template {target:?} has no variable `{argument}` (it has: {})",
                    r.vars.join(", ")
                ),
            ));
        }
        templates.into_iter().map(|r| &r.method).collect()
    } else {
        let prompts: Vec<_> = svc.prompts.iter().filter(|p| p.name == target).collect();
        let arguments = |m: &MethodDef| -> Vec<String> {
            m.params
                .iter()
                .filter(|p| p.http_header.is_none())
                .map(|p| p.ident.unraw().to_string())
                .collect()
        };
        // Each variant of a prompt under exclusive cfgs may have its own arguments.
        if let Some(first) = prompts.first()
            && !prompts
                .iter()
                .any(|p| arguments(&p.method).contains(&argument))
        {
            let args = arguments(&first.method);
            cx.push(error(
                Code::Mcp307,
                c.argument.span(),
                format!(
                    "prompt {target:?} has no argument `{argument}` (it has: {})",
                    if args.is_empty() {
                        "none".to_owned()
                    } else {
                        args.join(", ")
                    }
                ),
            ));
        }
        prompts.into_iter().map(|p| &p.method).collect()
    };
    if candidates.is_empty() {
        cx.push(error(
            Code::Mcp307,
            c.target.span(),
            format!("this completer names {what} {target:?}, which this service does not have"),
        ));
        return None;
    }
    if candidates
        .iter()
        .any(|m| cfg::implies(&c.method.cfg_attrs, &m.cfg_attrs))
    {
        return None;
    }
    // The target exists in some builds: the completer is an error in those where it
    // exists and no method of its target does.
    let others: Vec<&[syn::Attribute]> = candidates.iter().map(|m| &m.cfg_attrs[..]).collect();
    Some(cfg::gated(
        cfg::without(&c.method.cfg_attrs, &others),
        c.target.span(),
        coded(
            Code::Mcp307,
            format!(
                "{what} {target:?} is compiled out of this build, but this completer is not: give the completer the `#[cfg]` of its {what}"
            ),
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::super::tests::parsed;
    use syn::parse_quote;

    fn cfg_errors(item: syn::ItemImpl) -> (Vec<(String, String)>, Vec<String>) {
        let (svc, errs) = parsed(quote::quote!(), item);
        let gated = svc
            .cfg_errors
            .iter()
            .map(|e| (e.cfg.to_string(), e.message.clone()))
            .collect();
        (gated, errs)
    }

    #[test]
    fn exclusive_cfgs_are_not_duplicates() {
        let (gated, errs) = cfg_errors(parse_quote! {
            impl S {
                #[cfg(unix)]
                #[resource(uri = "x://a")]
                fn a(&self) -> String { String::new() }
                #[cfg(not(unix))]
                #[resource(uri = "x://a")]
                fn b(&self) -> String { String::new() }
                #[cfg(unix)]
                #[prompt(name = "p")]
                fn p1(&self, topic: String) -> String { topic }
                #[cfg(not(unix))]
                #[prompt(name = "p")]
                fn p2(&self, topic: String) -> String { topic }
                #[cfg(unix)]
                #[complete(prompt = "p", argument = "topic")]
                fn c1(&self, v: String) -> Vec<String> { vec![v] }
                #[cfg(not(unix))]
                #[complete(prompt = "p", argument = "topic")]
                fn c2(&self, v: String) -> Vec<String> { vec![v] }
            }
        });
        assert!(errs.is_empty(), "{errs:#?}");
        // Each duplicate is an error only where both cfgs hold (never, here); each
        // completer's prompt exists wherever the completer does.
        assert_eq!(
            gated,
            [
                (
                    "all (unix , not (unix))".to_owned(),
                    "MCP_304: duplicate resource URI \"x://a\" (already served by method `a`): both `#[cfg]`s hold in this build".to_owned()
                ),
                (
                    "all (unix , not (unix))".to_owned(),
                    "MCP_305: duplicate prompt name `p` (already used by method `p1`): both `#[cfg]`s hold in this build".to_owned()
                ),
                (
                    "all (unix , not (unix))".to_owned(),
                    "MCP_307: argument `topic` of prompt \"p\" already has a completer (method `c1`): both `#[cfg]`s hold in this build".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn the_same_cfgs_are_duplicates_now() {
        let (gated, errs) = cfg_errors(parse_quote! {
            impl S {
                #[cfg(unix)]
                #[resource(uri = "x://a")]
                fn a(&self) -> String { String::new() }
                #[cfg(unix)]
                #[resource(uri = "x://a")]
                fn b(&self) -> String { String::new() }
                #[prompt(name = "p")]
                fn p1(&self) -> String { String::new() }
                #[prompt(name = "p")]
                fn p2(&self) -> String { String::new() }
            }
        });
        assert!(gated.is_empty(), "{gated:#?}");
        assert_eq!(
            errs,
            [
                "MCP_304: duplicate resource URI \"x://a\" (already served by method `a`)",
                "MCP_305: duplicate prompt name `p` (already used by method `p1`)",
            ]
        );
    }

    #[test]
    fn a_completer_of_a_compiled_out_target_is_an_error_where_it_is_compiled_out() {
        let (gated, errs) = cfg_errors(parse_quote! {
            impl S {
                #[cfg(feature = "a")]
                #[prompt]
                fn review(&self, topic: String, tone: String) -> String { topic + &tone }
                #[complete(prompt = "review", argument = "topic")]
                fn topics(&self, v: String) -> Vec<String> { vec![v] }
                #[cfg(feature = "a")]
                #[complete(prompt = "review", argument = "tone")]
                fn tones(&self, v: String) -> Vec<String> { vec![v] }
                #[cfg(unix)]
                #[resource(template = "x://{id}")]
                fn item(&self, id: String) -> String { id }
                #[cfg(not(unix))]
                #[resource(template = "x://{id}")]
                fn item_elsewhere(&self, id: String) -> String { id }
                #[complete(template = "x://{id}", argument = "id")]
                fn ids(&self, v: String) -> Vec<String> { vec![v] }
            }
        });
        assert!(errs.is_empty(), "{errs:#?}");
        assert_eq!(
            gated,
            [
                (
                    "all (unix , not (unix))".to_owned(),
                    "MCP_304: duplicate resource URI \"x://{id}\" (already served by method `item`): both `#[cfg]`s hold in this build".to_owned()
                ),
                (
                    "all (not (any (all (feature = \"a\"))))".to_owned(),
                    "MCP_307: prompt \"review\" is compiled out of this build, but this completer is not: give the completer the `#[cfg]` of its prompt".to_owned()
                ),
                (
                    "all (not (any (all (unix) , all (not (unix)))))".to_owned(),
                    "MCP_307: resource template \"x://{id}\" is compiled out of this build, but this completer is not: give the completer the `#[cfg]` of its resource template".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn completer_targets_that_do_not_exist() {
        let (gated, errs) = cfg_errors(parse_quote! {
            impl S {
                #[resource(template = "x://{id}/{+path}")]
                fn item(&self, id: String, path: String) -> String { id + &path }
                #[complete(template = "x://{id}/{+path}", argument = "name")]
                fn names(&self, v: String) -> Vec<String> { vec![v] }
                #[complete(template = "x://{id}", argument = "id")]
                fn ids(&self, v: String) -> Vec<String> { vec![v] }
                #[cfg(unix)]
                #[complete(prompt = "review", argument = "topic")]
                fn topics(&self, v: String) -> Vec<String> { vec![v] }
            }
        });
        assert!(gated.is_empty(), "{gated:#?}");
        assert_eq!(
            errs,
            [
                "MCP_307: resource template \"x://{id}/{+path}\" has no variable `name` (it has: id, path)",
                "MCP_307: this completer names resource template \"x://{id}\", which this service does not have",
                "MCP_307: this completer names prompt \"review\", which this service does not have",
            ]
        );
    }
}
