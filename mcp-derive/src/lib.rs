//! Procedural macros of the `mcp` crate. Use them through `mcp` (`#[mcp::service]`), which
//! re-exports them; this crate's version is pinned by the runtime.

mod diag;
mod doc;
mod expand;
mod form;
mod model;
mod parse;
mod symbol;
mod validate;

use proc_macro::TokenStream;

/// Turns an impl block into an MCP service. See the `mcp` crate's documentation.
#[proc_macro_attribute]
pub fn service(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut item = match syn::parse::<syn::ItemImpl>(input.clone()) {
        Ok(item) => item,
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(proc_macro2::TokenStream::from(input));
            return out.into();
        }
    };
    let cx = diag::Ctxt::new();
    let svc = parse::service(&cx, args.into(), &mut item);
    validate::service(&cx, &svc);
    let out = match cx.check() {
        Ok(()) => expand::service(&svc, &item),
        Err(errors) => expand::stub(&svc, &item, errors.to_compile_error()),
    };
    if std::env::var_os("MCP_DERIVE_DEBUG").is_some() {
        eprintln!("{out}");
    }
    out.into()
}

/// Derives `mcp::Form` (for a struct with named fields: a flat elicitation form) or
/// `mcp::FormEnum` (for a fieldless enum: the options of a select field). See the `mcp`
/// crate's documentation.
#[proc_macro_derive(Form, attributes(form))]
pub fn derive_form(input: TokenStream) -> TokenStream {
    match syn::parse::<syn::DeriveInput>(input) {
        Ok(input) => form::derive(&input).into(),
        Err(e) => e.to_compile_error().into(),
    }
}
