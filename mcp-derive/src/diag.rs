//! Diagnostics: the codes, and a context that collects every error of an item so one compile
//! reports them all.

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::Span;

/// The diagnostic codes of the seed's table that the macro raises itself (type rules are
/// raised by trait bounds in the runtime).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// The tool's input schema cannot be generated.
    Mcp201,
    /// Invalid `#[header]` parameter.
    Mcp208,
    /// An advanced service lacks `on_list_tools` or `on_call_tool`.
    Mcp210,
    /// Invalid parameters of an advanced service method.
    Mcp211,
    /// An unsupported method in an advanced service.
    Mcp213,
    /// Invalid `#[argument(header)]` name.
    Mcp216,
    /// Duplicate `#[argument(header)]` name.
    Mcp217,
    /// `#[argument(header)]` with an explicit `#[tool(schema)]`.
    Mcp218,
    /// `structured_output = false` with an explicit `output_schema`.
    Mcp221,
}

impl Code {
    /// The code as written in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Mcp201 => "MCP_201",
            Self::Mcp208 => "MCP_208",
            Self::Mcp210 => "MCP_210",
            Self::Mcp211 => "MCP_211",
            Self::Mcp213 => "MCP_213",
            Self::Mcp216 => "MCP_216",
            Self::Mcp217 => "MCP_217",
            Self::Mcp218 => "MCP_218",
            Self::Mcp221 => "MCP_221",
        }
    }
}

/// An error with its code first.
pub fn error(code: Code, span: Span, message: impl Display) -> syn::Error {
    syn::Error::new(span, format!("{}: {message}", code.as_str()))
}

/// An error that is not one of the seed's codes (rules beyond the seed, macro usage).
pub fn plain(span: Span, message: impl Display) -> syn::Error {
    syn::Error::new(span, message.to_string())
}

/// Collects errors; must be checked before it is dropped.
#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    /// A new context.
    pub fn new() -> Self {
        Self {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records an error.
    pub fn push(&self, error: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("Ctxt used after check")
            .push(error);
    }

    /// Records a darling error (every error it holds, with its span).
    pub fn push_darling(&self, error: darling::Error) {
        self.push(error.into());
    }

    /// All errors, combined; consumes the context.
    pub fn check(self) -> Result<(), syn::Error> {
        let errors = self.errors.borrow_mut().take().expect("Ctxt checked twice");
        let mut iter = errors.into_iter();
        let Some(mut first) = iter.next() else {
            return Ok(());
        };
        for e in iter {
            first.combine(e);
        }
        Err(first)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("a Ctxt was dropped without check()");
        }
    }
}
