//! Types as the generated code needs them: receivers, borrowed parameters (bound owned and
//! lent to the method), and lifetimes (the generated items live outside the method, where
//! its lifetimes do not exist).

use std::collections::BTreeSet;

use proc_macro2::Span;
use quote::{ToTokens, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{FnArg, GenericArgument, GenericParam, Lifetime, PathArguments, Signature, Type};

/// How a method receives `self`.
pub enum Receiver {
    /// `&self`, `&'a self`, `self: &Self`, `self: &'a Self` or `self: &TheType`.
    Shared,
    /// Any other receiver (`&mut self`, `self`, `self: Box<Self>`, ...), with its span.
    Other(Span),
    /// No receiver: an associated function (a constructor, a helper).
    None,
}

/// The receiver of `sig`; `self_ty` is the impl's type (`self: &Counter` is `&self`).
pub fn receiver(sig: &Signature, self_ty: &Type) -> Receiver {
    let Some(FnArg::Receiver(r)) = sig.inputs.first() else {
        return Receiver::None;
    };
    // syn gives `&self` the type `&Self` too, so one check covers both spellings.
    match strip_groups(&r.ty) {
        Type::Reference(reference) if reference.mutability.is_none() => {
            let elem = strip_groups(&reference.elem);
            let is_self =
                matches!(elem, Type::Path(p) if p.qself.is_none() && p.path.is_ident("Self"));
            let same = elem.to_token_stream().to_string()
                == strip_groups(self_ty).to_token_stream().to_string();
            if is_self || same {
                Receiver::Shared
            } else {
                Receiver::Other(r.span())
            }
        }
        _ => Receiver::Other(r.span()),
    }
}

fn strip_groups(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => strip_groups(&g.elem),
        Type::Paren(p) => strip_groups(&p.elem),
        other => other,
    }
}

/// `true` when the method has type or const parameters; lifetimes alone do not make a
/// tool generic.
pub fn has_type_generics(sig: &Signature) -> bool {
    sig.generics
        .params
        .iter()
        .any(|p| !matches!(p, GenericParam::Lifetime(_)))
}

/// The type a parameter is bound as and whether the method borrows it (`Some(mutable)`):
/// `&str` → `String`, `&[T]` → `Vec<T>`, `&Path` → `PathBuf`, `&T` / `&mut T` → `T`; every lifetime becomes
/// `'static` (the value is owned by the call), and `Cow<str>` gets its elided lifetime.
pub fn owned_param(ty: &Type) -> (Type, Option<bool>) {
    let (mut owned, by_ref) = match strip_groups(ty) {
        Type::Reference(r) => {
            let span = r.elem.span();
            let owned: Type = match strip_groups(&r.elem) {
                Type::Path(p) if p.qself.is_none() && p.path.is_ident("str") => {
                    syn::parse_quote_spanned!(span=> ::std::string::String)
                }
                Type::Slice(s) => {
                    let elem = &s.elem;
                    syn::parse_quote_spanned!(span=> ::std::vec::Vec<#elem>)
                }
                Type::Path(p)
                    if p.qself.is_none()
                        && p.path.segments.last().is_some_and(|s| s.ident == "Path") =>
                {
                    syn::parse_quote_spanned!(span=> ::std::path::PathBuf)
                }
                other => other.clone(),
            };
            (owned, Some(r.mutability.is_some()))
        }
        _ => (ty.clone(), None),
    };
    StaticLifetimes.visit_type_mut(&mut owned);
    (owned, by_ref)
}

/// For a type that still borrows after [`owned_param`] (`Option<&str>`, `Vec<&str>`): the
/// owned type to declare instead (`Option<String>`). `None` when nothing is borrowed.
pub fn nested_borrow_fix(owned: &Type) -> Option<Type> {
    let mut fixed = owned.clone();
    let mut fix = OwnBorrows(false);
    fix.visit_type_mut(&mut fixed);
    fix.0.then_some(fixed)
}

struct OwnBorrows(bool);

impl VisitMut for OwnBorrows {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Reference(r) = ty {
            self.0 = true;
            let (mut owned, _) = owned_param(&Type::Reference(r.clone()));
            self.visit_type_mut(&mut owned);
            *ty = owned;
            return;
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// Makes every lifetime `'static`, names elided reference lifetimes, and gives `Cow` its
/// lifetime argument.
struct StaticLifetimes;

impl VisitMut for StaticLifetimes {
    fn visit_lifetime_mut(&mut self, lt: &mut Lifetime) {
        *lt = Lifetime::new("'static", lt.span());
    }

    fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
        if r.lifetime.is_none() {
            r.lifetime = Some(Lifetime::new("'static", r.and_token.span));
        }
        syn::visit_mut::visit_type_reference_mut(self, r);
    }

    fn visit_path_segment_mut(&mut self, seg: &mut syn::PathSegment) {
        if seg.ident == "Cow"
            && let PathArguments::AngleBracketed(args) = &mut seg.arguments
            && !matches!(args.args.first(), Some(GenericArgument::Lifetime(_)))
        {
            let lt = Lifetime::new("'static", seg.ident.span());
            args.args.insert(0, GenericArgument::Lifetime(lt));
        }
        syn::visit_mut::visit_path_segment_mut(self, seg);
    }
}

/// Replaces the lifetimes declared by the method (`'a` in `fn f<'a>(&'a self) -> &'a str`)
/// with `'_`, so a return type can be named in the generated call code.
pub fn erase_method_lifetimes(sig: &Signature, ty: &mut Type) {
    let declared: BTreeSet<String> = sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            GenericParam::Lifetime(l) => Some(l.lifetime.ident.to_string()),
            _ => None,
        })
        .collect();
    if !declared.is_empty() {
        Erase(&declared).visit_type_mut(ty);
    }
}

struct Erase<'a>(&'a BTreeSet<String>);

impl VisitMut for Erase<'_> {
    fn visit_lifetime_mut(&mut self, lt: &mut Lifetime) {
        if self.0.contains(&lt.ident.to_string()) {
            *lt = Lifetime::new("'_", lt.span());
        }
    }
}

/// A type as a user writes it (`Option<String>`, not `Option < :: std :: string :: String >`):
/// the standard library's `String` and `Vec` unqualified, no spaces around `<`, `>`, `::`, `&`.
pub fn display(ty: &Type) -> String {
    let mut text = ty.to_token_stream().to_string();
    for (from, to) in [
        (":: std :: string :: ", ""),
        (":: std :: vec :: ", ""),
        (":: std :: path :: ", ""),
        (" :: ", "::"),
        (" < ", "<"),
        ("< ", "<"),
        (" >", ">"),
        (" ,", ","),
        ("& ", "&"),
        ("' ", "'"),
    ] {
        text = text.replace(from, to);
    }
    text
}

/// `&name` or `&mut name` for a borrowed parameter, spanned at the parameter.
pub fn lend(ident: &syn::Ident, by_ref: Option<bool>) -> proc_macro2::TokenStream {
    let span = ident.span();
    match by_ref {
        None => quote_spanned!(span=> #ident),
        Some(false) => quote_spanned!(span=> &#ident),
        Some(true) => quote_spanned!(span=> &mut #ident),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(src: &str) -> (String, Option<bool>) {
        let ty: Type = syn::parse_str(src).unwrap();
        let (t, r) = owned_param(&ty);
        (t.to_token_stream().to_string(), r)
    }

    #[test]
    fn borrowed_parameters_are_bound_owned() {
        assert_eq!(
            owned("&str"),
            (":: std :: string :: String".into(), Some(false))
        );
        assert_eq!(owned("&'a str").0, ":: std :: string :: String");
        assert_eq!(owned("&[u8]").0, ":: std :: vec :: Vec < u8 >");
        assert_eq!(
            owned("&mut Vec<String>"),
            ("Vec < String >".into(), Some(true))
        );
        assert_eq!(owned("&http::HeaderMap").0, "http :: HeaderMap");
        assert_eq!(owned("&std::path::Path").0, ":: std :: path :: PathBuf");
        assert_eq!(owned("Cow<str>").0, "Cow < 'static , str >");
        assert_eq!(owned("Cow<'a, str>").0, "Cow < 'static , str >");
        assert_eq!(owned("Option<&str>").0, "Option < & 'static str >");
        assert_eq!(owned("String"), ("String".into(), None));
        let fix = |src: &str| {
            let (t, _) = owned_param(&syn::parse_str(src).unwrap());
            nested_borrow_fix(&t).map(|t| t.to_token_stream().to_string())
        };
        assert_eq!(
            fix("Option<&str>").as_deref(),
            Some("Option < :: std :: string :: String >")
        );
        assert_eq!(
            fix("Vec<&[u8]>").as_deref(),
            Some("Vec < :: std :: vec :: Vec < u8 > >")
        );
        assert_eq!(fix("&str"), None);
        let shown = display(&syn::parse_str("Option<&'a ::std::vec::Vec<(u8, String)>>").unwrap());
        assert_eq!(shown, "Option<&'a Vec<(u8, String)>>");
        assert_eq!(fix("Cow<str>"), None);
    }

    #[test]
    fn receivers() {
        let ty: Type = syn::parse_str("Counter").unwrap();
        let shared = |src: &str| {
            let sig: Signature = syn::parse_str(src).unwrap();
            matches!(receiver(&sig, &ty), Receiver::Shared)
        };
        assert!(shared("fn f(&self)"));
        assert!(shared("fn f<'a>(&'a self)"));
        assert!(shared("fn f(self: &Self)"));
        assert!(shared("fn f<'a>(self: &'a Self)"));
        assert!(shared("fn f(self: &Counter)"));
        assert!(!shared("fn f(&mut self)"));
        assert!(!shared("fn f(self)"));
        assert!(!shared("fn f(self: Box<Self>)"));
        let sig: Signature = syn::parse_str("fn new() -> Self").unwrap();
        assert!(matches!(receiver(&sig, &ty), Receiver::None));
    }

    #[test]
    fn only_type_and_const_generics_make_a_tool_generic() {
        let g = |src: &str| has_type_generics(&syn::parse_str(src).unwrap());
        assert!(!g("fn f<'a>(&'a self)"));
        assert!(g("fn f<T>(&self)"));
        assert!(g("fn f<const N: usize>(&self)"));
    }
}
