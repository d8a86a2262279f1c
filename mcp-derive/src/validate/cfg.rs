//! `#[cfg]` reasoning shared by every kind of item (tools, resources, prompts, completers).
//!
//! The macro cannot evaluate a `#[cfg]`: whether `unix` or a feature holds is known where
//! the crate is compiled, not where the macro runs. A rule that compares two items whose
//! cfgs differ is therefore not decided by the macro. It emits the error under a generated
//! `#[cfg(...)]` that holds exactly in the builds where the error does, and the compiler
//! judges it. Two methods under `#[cfg(unix)]` and `#[cfg(not(unix))]` never clash; under
//! `#[cfg(unix)]` and no cfg they clash on unix only.

use std::collections::HashMap;
use std::hash::Hash;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Attribute;

use crate::diag::Ctxt;
use crate::model::CfgError;

/// The predicates of an item's `#[cfg(...)]` attributes (all of them hold when the item
/// exists).
pub fn predicates(cfg_attrs: &[Attribute]) -> Vec<TokenStream> {
    cfg_attrs
        .iter()
        .filter_map(|a| match &a.meta {
            syn::Meta::List(l) => Some(l.tokens.clone()),
            _ => None,
        })
        .collect()
}

/// The predicates as comparable text (order-insensitive).
fn key(cfg_attrs: &[Attribute]) -> Vec<String> {
    let mut key: Vec<String> = predicates(cfg_attrs)
        .iter()
        .map(ToString::to_string)
        .collect();
    key.sort();
    key.dedup();
    key
}

/// `true` when the two items exist in the same builds as far as their tokens tell (the
/// same predicates, in any order).
pub fn same(a: &[Attribute], b: &[Attribute]) -> bool {
    key(a) == key(b)
}

/// `true` when every build with an item under `outer` also has the item under `inner`
/// (each predicate of `inner` is one of `outer`'s).
pub fn implies(outer: &[Attribute], inner: &[Attribute]) -> bool {
    let outer = key(outer);
    key(inner).iter().all(|p| outer.contains(p))
}

/// `all(<the predicates of every item>)`: holds in the builds where all the items exist.
pub fn all_of<'a>(items: impl IntoIterator<Item = &'a [Attribute]>) -> TokenStream {
    let preds = items.into_iter().flat_map(predicates);
    quote!(all(#(#preds),*))
}

/// Holds in the builds where `item` exists and none of `others` does.
pub fn without(item: &[Attribute], others: &[&[Attribute]]) -> TokenStream {
    let preds = predicates(item);
    let others = others.iter().map(|o| all_of([*o]));
    quote!(all(#(#preds,)* not(any(#(#others),*))))
}

/// An error that holds only where `cfg` does.
pub fn gated(cfg: TokenStream, span: Span, message: String) -> CfgError {
    CfgError { cfg, span, message }
}

/// The duplicates among items whose key must be unique.
pub struct Clashes {
    /// For each item, the error against an earlier item under the same cfgs, if any.
    pub now: Vec<Option<syn::Error>>,
    /// The errors against earlier items under other cfgs.
    pub gated: Vec<CfgError>,
}

impl Clashes {
    /// Reports the errors that hold now, in item order; returns the gated ones.
    pub fn report(self, cx: &Ctxt) -> Vec<CfgError> {
        for e in self.now.into_iter().flatten() {
            cx.push(e);
        }
        self.gated
    }
}

/// Items whose key must be unique in the service (a tool's name, a resource's URI, a
/// prompt's name, a completer's argument): for each item, `clash(first, later)` is the
/// error against an earlier item with the same key. It holds now when both have the same
/// cfgs, and is a [`CfgError`] when the verdict depends on cfgs (it then reads "...: both
/// `#[cfg]`s hold in this build").
pub fn unique<'a, T, K: Eq + Hash>(
    items: &'a [T],
    key: impl Fn(&'a T) -> K,
    cfg_attrs: impl Fn(&'a T) -> &'a [Attribute],
    clash: impl Fn(&'a T, &'a T) -> syn::Error,
) -> Clashes {
    let mut seen: HashMap<K, Vec<&T>> = HashMap::new();
    let mut clashes = Clashes {
        now: Vec::with_capacity(items.len()),
        gated: Vec::new(),
    };
    for item in items {
        let earlier = seen.entry(key(item)).or_default();
        let mut now = None;
        for first in earlier.iter() {
            let error = clash(first, item);
            if same(cfg_attrs(first), cfg_attrs(item)) {
                now = Some(error);
                break;
            }
            clashes.gated.push(gated(
                all_of([cfg_attrs(first), cfg_attrs(item)]),
                error.span(),
                format!("{error}: both `#[cfg]`s hold in this build"),
            ));
        }
        clashes.now.push(now);
        earlier.push(item);
    }
    clashes
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn attrs(item: syn::ItemFn) -> Vec<Attribute> {
        item.attrs
    }

    #[test]
    fn comparisons_ignore_order() {
        let a = attrs(parse_quote!(
            #[cfg(unix)]
            #[cfg(test)]
            fn a() {}
        ));
        let b = attrs(parse_quote!(
            #[cfg(test)]
            #[cfg(unix)]
            fn b() {}
        ));
        let c = attrs(parse_quote!(
            #[cfg(unix)]
            fn c() {}
        ));
        let none = attrs(parse_quote!(
            fn d() {}
        ));
        assert!(same(&a, &b));
        assert!(!same(&a, &c));
        assert!(implies(&a, &c));
        assert!(!implies(&c, &a));
        assert!(implies(&c, &none));
        assert!(!implies(&none, &c));
    }

    #[test]
    fn generated_predicates() {
        let a = attrs(parse_quote!(
            #[cfg(unix)]
            fn a() {}
        ));
        let b = attrs(parse_quote!(
            #[cfg(not(unix))]
            #[cfg(test)]
            fn b() {}
        ));
        let none = attrs(parse_quote!(
            fn c() {}
        ));
        assert_eq!(
            all_of([a.as_slice(), b.as_slice()]).to_string(),
            "all (unix , not (unix) , test)"
        );
        assert_eq!(
            without(&a, &[&b, &none]).to_string(),
            "all (unix , not (any (all (not (unix) , test) , all ())))"
        );
    }
}
