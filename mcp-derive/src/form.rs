//! `#[derive(mcp::Form)]`: the form schema of a struct (each field a form field, its doc
//! comment the description, `Option` fields and fields with defaults not required), or the
//! options of a fieldless enum (a select field). Field types are checked by the
//! `mcp::FormField` bound (MCP_219), spanned on each field's type.

use darling::util::Flag;
use darling::{FromDeriveInput, FromField, FromVariant};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ext::IdentExt as _;
use syn::spanned::Spanned;
use syn::{Attribute, DeriveInput, Ident, Type};

use crate::doc;

#[derive(FromDeriveInput)]
#[darling(attributes(form), forward_attrs(doc, serde))]
struct FormInput {
    ident: Ident,
    generics: syn::Generics,
    data: darling::ast::Data<VariantDef, FieldDef>,
    attrs: Vec<Attribute>,
}

#[derive(FromField)]
#[darling(attributes(form), forward_attrs(doc, serde))]
struct FieldDef {
    ident: Option<Ident>,
    ty: Type,
    attrs: Vec<Attribute>,
    #[darling(default)]
    title: Option<String>,
    #[darling(default)]
    description: Option<String>,
    default: Flag,
}

#[derive(FromVariant)]
#[darling(attributes(form), forward_attrs(doc, serde))]
struct VariantDef {
    ident: Ident,
    fields: darling::ast::Fields<darling::util::Ignored>,
    attrs: Vec<Attribute>,
    #[darling(default)]
    title: Option<String>,
}

/// What the serde attributes of an item say.
#[derive(Default)]
struct Serde {
    rename: Option<String>,
    rename_all: Option<String>,
    default: bool,
    /// `skip` or `skip_deserializing`: serde does not read the field, so the form has none.
    skip: bool,
}

fn serde_attrs(attrs: &[Attribute]) -> Serde {
    let mut out = Serde::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                if let Ok(v) = meta.value().and_then(|v| v.parse::<syn::LitStr>()) {
                    out.rename = Some(v.value());
                }
            } else if meta.path.is_ident("rename_all") {
                if let Ok(v) = meta.value().and_then(|v| v.parse::<syn::LitStr>()) {
                    out.rename_all = Some(v.value());
                }
            } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_deserializing") {
                out.skip = true;
            } else if meta.path.is_ident("default") {
                out.default = true;
                if meta.input.peek(syn::Token![=]) {
                    let _ = meta.value().and_then(|v| v.parse::<syn::Expr>());
                }
            } else if meta.input.peek(syn::Token![=]) {
                let _ = meta.value().and_then(|v| v.parse::<syn::Expr>());
            } else if meta.input.peek(syn::token::Paren) {
                let _ = meta.input.parse::<proc_macro2::Group>();
            }
            Ok(())
        });
    }
    out
}

fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    for c in name.chars() {
        if c == '_' {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
        } else if c.is_uppercase() && !current.is_empty() {
            words.push(std::mem::take(&mut current));
            current.push(c);
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// Applies a serde `rename_all` rule to a name.
fn rename(name: &str, rule: &str) -> String {
    let w = words(name);
    let lower: Vec<String> = w.iter().map(|s| s.to_lowercase()).collect();
    let cap = |s: &String| {
        let mut c = s.chars();
        c.next()
            .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
            .unwrap_or_default()
    };
    match rule {
        "lowercase" => name.to_lowercase(),
        "UPPERCASE" => name.to_uppercase(),
        "snake_case" => lower.join("_"),
        "SCREAMING_SNAKE_CASE" => lower.join("_").to_uppercase(),
        "kebab-case" => lower.join("-"),
        "SCREAMING-KEBAB-CASE" => lower.join("-").to_uppercase(),
        "camelCase" => lower
            .iter()
            .enumerate()
            .map(|(i, s)| if i == 0 { s.clone() } else { cap(s) })
            .collect(),
        "PascalCase" => lower.iter().map(cap).collect(),
        _ => name.to_owned(),
    }
}

/// The derive's expansion.
pub fn derive(input: &DeriveInput) -> TokenStream {
    let form = match FormInput::from_derive_input(input) {
        Ok(f) => f,
        Err(e) => return e.write_errors(),
    };
    if !form.generics.params.is_empty() {
        return syn::Error::new(
            form.generics.span(),
            "`#[derive(mcp::Form)]` does not support generic types",
        )
        .to_compile_error();
    }
    let ident = &form.ident;
    let container = serde_attrs(&form.attrs);
    match form.data {
        darling::ast::Data::Struct(fields) if fields.style != darling::ast::Style::Struct => {
            syn::Error::new(
                input.ident.span(),
                format!("`#[derive(mcp::Form)]` needs named fields: each field of `{ident}` is a form field named after it (or a fieldless enum, for the options of a select field)"),
            )
            .to_compile_error()
        }
        darling::ast::Data::Struct(fields) => {
            let entries = fields.fields.iter().map(|f| {
                let Some(field_ident) = &f.ident else { return TokenStream::new() };
                let serde = serde_attrs(&f.attrs);
                if serde.skip {
                    return TokenStream::new();
                }
                let raw = syn::ext::IdentExt::unraw(field_ident).to_string();
                let name = serde
                    .rename
                    .clone()
                    .unwrap_or_else(|| container.rename_all.as_deref().map_or(raw.clone(), |r| rename(&raw, r)));
                let description = f.description.clone().or_else(|| doc::parse(&f.attrs).description);
                let description = option(description.as_deref());
                let title = option(f.title.as_deref());
                let defaulted = serde.default || container.default || f.default.is_present();
                let ty = &f.ty;
                let field = quote_spanned!(ty.span()=> ::mcp::__form_field::<#ty>(#description, #title));
                quote! {
                    let (__mcp_schema, __mcp_required) = #field;
                    __mcp_form = __mcp_form.field(#name, __mcp_schema, __mcp_required && !#defaulted);
                }
            });
            quote! {
                impl ::mcp::Form for #ident {
                    fn form_schema() -> ::mcp::FormSchema {
                        #[allow(unused_mut)]
                        let mut __mcp_form = ::mcp::FormSchema::new();
                        #(#entries)*
                        __mcp_form
                    }
                }
            }
        }
        darling::ast::Data::Enum(variants) => {
            let mut errors = darling::Error::accumulator();
            for v in variants.iter().filter(|v| !v.fields.is_empty()) {
                errors.push(
                    darling::Error::custom(format!(
                        "variant `{}` carries data: a form enum is the options of a select field, so its variants have no fields (forms accept `String`, numbers, `bool`, fieldless enums and `Vec`/`Option` of those; put the data in a struct with `#[derive(mcp::Form)]`)",
                        v.ident.unraw()
                    ))
                    .with_span(&v.ident),
                );
            }
            if let Err(e) = errors.finish() {
                return e.write_errors();
            }
            let options = variants.iter().filter(|v| !serde_attrs(&v.attrs).skip).map(|v| {
                let serde = serde_attrs(&v.attrs);
                let raw = v.ident.unraw().to_string();
                let value = serde.rename.clone().unwrap_or_else(|| {
                    container
                        .rename_all
                        .as_deref()
                        .map_or(raw.clone(), |r| rename(&raw, r))
                });
                let title = v
                    .title
                    .clone()
                    .or_else(|| doc::parse(&v.attrs).description)
                    .unwrap_or_else(|| raw.clone());
                quote!((#value, #title))
            });
            quote! {
                impl ::mcp::FormEnum for #ident {
                    fn options() -> ::std::vec::Vec<(&'static str, &'static str)> {
                        ::std::vec![#(#options),*]
                    }
                }
            }
        }
    }
}

fn option(v: Option<&str>) -> TokenStream {
    match v {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rename_rules() {
        assert_eq!(rename("IndoorTable", "snake_case"), "indoor_table");
        assert_eq!(rename("IndoorTable", "kebab-case"), "indoor-table");
        assert_eq!(rename("IndoorTable", "lowercase"), "indoortable");
        assert_eq!(
            rename("IndoorTable", "SCREAMING_SNAKE_CASE"),
            "INDOOR_TABLE"
        );
        assert_eq!(rename("party_size", "camelCase"), "partySize");
        assert_eq!(rename("party_size", "PascalCase"), "PartySize");
    }
}
