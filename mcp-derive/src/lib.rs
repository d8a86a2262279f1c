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

/// The item an attribute macro is on, or (when it does not parse as `T`) the error followed
/// by the item unchanged, so that the compiler reports nothing else about it.
fn parse_or_echo<T: syn::parse::Parse>(input: TokenStream) -> Result<T, TokenStream> {
    syn::parse::<T>(input.clone()).map_err(|e| {
        let mut out = e.to_compile_error();
        out.extend(proc_macro2::TokenStream::from(input));
        out.into()
    })
}

/// Turns an impl block into an MCP service. Every key of `#[mcp::service]`, `#[tool]`,
/// `#[resource]`, `#[prompt]`, `#[complete]`, `#[argument]` and `#[http_header]` is documented in
/// the `mcp` crate's `mcp::attributes` module.
#[proc_macro_attribute]
pub fn service(args: TokenStream, input: TokenStream) -> TokenStream {
    let started = std::time::Instant::now();
    let mut item = match parse_or_echo::<syn::ItemImpl>(input) {
        Ok(item) => item,
        Err(out) => return out,
    };
    let cx = diag::Ctxt::new();
    let mut svc = parse::service(&cx, args.into(), &mut item);
    svc.cfg_errors = validate::service(&cx, &svc);
    let out = match cx.check() {
        Ok(()) => expand::service(&svc, &item),
        Err(errors) => expand::stub(&svc, &item, errors.to_compile_error()),
    };
    if std::env::var_os("MCP_DERIVE_DEBUG").is_some() {
        eprintln!("{out}");
    }
    // Read by scripts/bench-macro.sh: the macro's own time (parse, checks, expansion).
    if std::env::var_os("MCP_DERIVE_TIMING").is_some() {
        eprintln!(
            "mcp-derive: #[mcp::service] on `{}` expanded in {} us",
            quote::ToTokens::to_token_stream(&svc.self_ty),
            started.elapsed().as_micros()
        );
    }
    out.into()
}

/// Turns a trait describing the tools of an MCP server (written with this crate or not)
/// into a typed client, `<Trait>Client`: one method per trait method, calling the tool of
/// its name (or `#[tool(name = "...")]`). Documented in the `mcp` crate's
/// `mcp::client::typed` module.
#[proc_macro_attribute]
pub fn client(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = match parse_or_echo::<syn::ItemTrait>(input) {
        Ok(item) => item,
        Err(out) => return out,
    };
    let cx = diag::Ctxt::new();
    let def = parse::client_trait(&cx, args.into(), &item);
    let out = expand::client_trait(&def);
    match cx.check() {
        Ok(()) => out.into(),
        Err(errors) => {
            let mut errors = errors.to_compile_error();
            errors.extend(out);
            errors.into()
        }
    }
}

/// Derives `mcp::Form` (for a struct with named fields: a flat elicitation form) or
/// `mcp::FormEnum` (for a fieldless enum: the options of a select field). Its keys are
/// documented in the `mcp` crate's `mcp::attributes::form` module.
#[proc_macro_derive(Form, attributes(form))]
pub fn derive_form(input: TokenStream) -> TokenStream {
    match syn::parse::<syn::DeriveInput>(input) {
        Ok(input) => form::derive(&input).into(),
        Err(e) => e.to_compile_error().into(),
    }
}
