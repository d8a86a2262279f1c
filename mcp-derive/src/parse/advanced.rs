//! The methods of `#[mcp::service(advanced)]`: each `on_*` method defines the hook of
//! `mcp::AdvancedService` of its name (MCP_210 for a missing required one, MCP_211 for an
//! `on_call_tool` without params, MCP_213 for another `pub` method).

use syn::ext::IdentExt as _;
use syn::spanned::Spanned;
use syn::{ItemImpl, Visibility};

use super::attrs::{self, ToolAttr};
use super::{check_signature, features, methods, params, return_type, strip_param_attrs, types};
use crate::diag::{Code, Ctxt, error, plain};
use crate::doc;
use crate::model::{AdvancedDef, AdvancedMethod, Hook};
use crate::symbol::TOOL;

/// The hooks that come together: a service defining one of a group must define the
/// required ones of it (MCP_210).
const GROUPS: [(&str, &[Hook], &[Hook]); 3] = [
    ("", &[], &[Hook::ListTools, Hook::CallTool]),
    (
        " with resources",
        &[
            Hook::ListResources,
            Hook::ListResourceTemplates,
            Hook::ReadResource,
        ],
        &[Hook::ListResources, Hook::ReadResource],
    ),
    (
        " with prompts",
        &[Hook::ListPrompts, Hook::GetPrompt],
        &[Hook::ListPrompts, Hook::GetPrompt],
    ),
];

/// Reads the hooks of an advanced service (all of them, also when a required one is
/// missing: the type checks of the others are still generated).
pub fn methods_of(cx: &Ctxt, item: &mut ItemImpl) -> Option<AdvancedDef> {
    let self_span = item.self_ty.span();
    let self_ty = (*item.self_ty).clone();
    let mut hooks: Vec<AdvancedMethod> = Vec::new();
    for (index, method) in methods(item) {
        features::reject(cx, method);
        let mut skip = false;
        for a in attrs::take(&mut method.attrs, TOOL) {
            match attrs::parse_list::<ToolAttr>(&a) {
                Ok(t) if t.skip.is_present() && !t.has_options() => skip = true,
                _ => cx.push(plain(
                    a.span(),
                    "`#[tool]` does not apply to advanced services: `on_list_tools` defines the tools (only `#[tool(skip)]` marks a `pub` helper)",
                )),
            }
        }
        let name = method.sig.ident.unraw().to_string();
        let receiver = types::receiver(&method.sig, &self_ty);
        let Some(hook) = Hook::from_name(&name).filter(|_| !skip) else {
            // Constructors and associated functions are not remote methods.
            if matches!(method.vis, Visibility::Public(_))
                && !skip
                && !matches!(receiver, types::Receiver::None)
            {
                cx.push(error(Code::Mcp213, method.sig.ident.span(), format!("unsupported method `{name}` in an advanced service: only the hooks of `mcp::AdvancedService` (`on_list_tools`, `on_call_tool`, `on_list_resources`, ...) may be `pub`; make helpers private or mark them `#[tool(skip)]`")));
            }
            strip_param_attrs(cx, method, true);
            continue;
        };
        match receiver {
            types::Receiver::Shared => {}
            types::Receiver::Other(span) => {
                cx.push(plain(
                    span,
                    format!("advanced method `{name}` must take `&self` (or `self: &Self`)"),
                ));
            }
            types::Receiver::None => cx.push(plain(
                method.sig.ident.span(),
                format!("advanced method `{name}` must take `&self`"),
            )),
        }
        check_signature(cx, method, "advanced method");
        method
            .attrs
            .push(syn::parse_quote!(#[allow(unreachable_pub)]));
        let params = params(cx, method, false, &doc::Docs::default());
        if hook == Hook::CallTool && params.is_empty() {
            cx.push(error(
                Code::Mcp211,
                method.sig.paren_token.span.join(),
                "`on_call_tool` needs a `mcp::CallToolParams` parameter: `fn on_call_tool(&self, params: mcp::CallToolParams)`",
            ));
        }
        hooks.push(AdvancedMethod {
            hook,
            ident: method.sig.ident.clone(),
            index,
            sig_span: method.sig.ident.span(),
            params,
            output: return_type(cx, &method.sig),
            is_async: method.sig.asyncness.is_some(),
            lint_attrs: attrs::lint_attrs(&method.attrs),
        });
    }
    let def = AdvancedDef { hooks };
    for (what, any, required) in GROUPS {
        if !any.is_empty() && !any.iter().any(|h| def.has(*h)) {
            continue;
        }
        let missing: Vec<_> = required
            .iter()
            .filter(|h| !def.has(**h))
            .map(|h| h.name())
            .collect();
        if !missing.is_empty() {
            let names: Vec<_> = required.iter().map(|h| h.name()).collect();
            cx.push(error(
                Code::Mcp210,
                self_span,
                format!(
                    "an advanced service{what} must define `{}`; missing: `{}`",
                    names.join("` and `"),
                    missing.join("`, `")
                ),
            ));
        }
    }
    Some(def)
}
