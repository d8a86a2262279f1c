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
    /// A tool parameter has an unsupported type (the macro raises it for a borrow it cannot
    /// lend; the trait bound `ToolArgument` for the rest).
    Mcp202,
    /// Invalid `#[http_header]` parameter.
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
    /// A template variable with no argument of its name.
    Mcp301,
    /// An invalid resource URI or URI template.
    Mcp303,
    /// Two resources (or templates) with the same URI.
    Mcp304,
    /// Two prompts with the same name.
    Mcp305,
    /// A completer naming a prompt, argument or template that does not exist.
    Mcp307,
    /// A resource, prompt or completer method with an unusable signature.
    Mcp311,
    /// An invalid middleware key value (`timeout`, `rate_limit`, `concurrency`,
    /// `concurrency_per_caller`).
    Mcp401,
    /// A method of an `#[mcp::client]` trait that cannot be a typed call.
    Mcp503,
    /// An invalid `#[tool(task = "...")]` value.
    Mcp601,
}

impl Code {
    /// The code as written in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Mcp201 => "MCP_201",
            Self::Mcp202 => "MCP_202",
            Self::Mcp208 => "MCP_208",
            Self::Mcp210 => "MCP_210",
            Self::Mcp211 => "MCP_211",
            Self::Mcp213 => "MCP_213",
            Self::Mcp216 => "MCP_216",
            Self::Mcp217 => "MCP_217",
            Self::Mcp218 => "MCP_218",
            Self::Mcp221 => "MCP_221",
            Self::Mcp301 => "MCP_301",
            Self::Mcp303 => "MCP_303",
            Self::Mcp304 => "MCP_304",
            Self::Mcp305 => "MCP_305",
            Self::Mcp307 => "MCP_307",
            Self::Mcp311 => "MCP_311",
            Self::Mcp401 => "MCP_401",
            Self::Mcp503 => "MCP_503",
            Self::Mcp601 => "MCP_601",
        }
    }
}

/// An error with its code first.
pub fn error(code: Code, span: Span, message: impl Display) -> syn::Error {
    syn::Error::new(span, coded(code, message))
}

/// A message with its code first (for an error emitted later, under a `#[cfg]`).
pub fn coded(code: Code, message: impl Display) -> String {
    format!("{}: {message}", code.as_str())
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::fs;
    use std::path::{Path, PathBuf};

    use super::*;

    /// Every variant; the match in `every_variant_is_listed` fails to compile when one is
    /// added, so this list cannot fall behind.
    const ALL: [Code; 19] = [
        Code::Mcp201,
        Code::Mcp202,
        Code::Mcp208,
        Code::Mcp210,
        Code::Mcp211,
        Code::Mcp213,
        Code::Mcp216,
        Code::Mcp217,
        Code::Mcp218,
        Code::Mcp221,
        Code::Mcp301,
        Code::Mcp303,
        Code::Mcp304,
        Code::Mcp305,
        Code::Mcp307,
        Code::Mcp311,
        Code::Mcp401,
        Code::Mcp503,
        Code::Mcp601,
    ];

    #[test]
    fn every_variant_is_listed() {
        for code in ALL {
            let position = match code {
                Code::Mcp201 => 0,
                Code::Mcp202 => 1,
                Code::Mcp208 => 2,
                Code::Mcp210 => 3,
                Code::Mcp211 => 4,
                Code::Mcp213 => 5,
                Code::Mcp216 => 6,
                Code::Mcp217 => 7,
                Code::Mcp218 => 8,
                Code::Mcp221 => 9,
                Code::Mcp301 => 10,
                Code::Mcp303 => 11,
                Code::Mcp304 => 12,
                Code::Mcp305 => 13,
                Code::Mcp307 => 14,
                Code::Mcp311 => 15,
                Code::Mcp401 => 16,
                Code::Mcp503 => 17,
                Code::Mcp601 => 18,
            };
            assert_eq!(ALL[position], code);
        }
    }

    /// Codes the runtime raises whose ui cases and docs pages come with the work that
    /// introduced them (elicitation forms, `#[derive(mcp::Form)]`). The test fails once such
    /// a code has both, so the entry is removed and the code is checked like the others.
    const PENDING: [&str; 0] = [];

    fn workspace() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("the workspace root")
            .to_path_buf()
    }

    fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                files(&path, ext, out);
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }

    /// The codes the runtime's rule traits and deprecated items raise: every
    /// `message = "MCP_…:` / `note = "MCP_WARNING_…:` string in its sources.
    fn runtime_codes() -> BTreeSet<String> {
        let mut sources = Vec::new();
        files(&workspace().join("mcp-runtime/src"), "rs", &mut sources);
        let mut codes = BTreeSet::new();
        for path in sources {
            let text = fs::read_to_string(&path).expect("a source file");
            for (at, _) in text.match_indices("= \"MCP_") {
                let code: String = text[at + 3..]
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                if text[at + 3 + code.len()..].starts_with(':') {
                    codes.insert(code);
                }
            }
        }
        codes
    }

    fn names(dir: &Path, ext: &str) -> Vec<String> {
        let mut paths = Vec::new();
        files(dir, ext, &mut paths);
        paths
            .iter()
            .filter_map(|p| p.file_name()?.to_str().map(str::to_owned))
            .collect()
    }

    #[test]
    fn every_code_has_a_ui_case_and_a_docs_page() {
        let root = workspace();
        let runtime = runtime_codes();
        for expected in ["MCP_202", "MCP_204", "MCP_222", "MCP_WARNING_204"] {
            assert!(
                runtime.contains(expected),
                "the scan of the runtime found no {expected}: {runtime:?}"
            );
        }
        let codes: BTreeSet<String> = ALL
            .iter()
            .map(|c| c.as_str().to_owned())
            .chain(runtime)
            .collect();
        let fail_cases = names(&root.join("ui-tests/ui/fail"), "rs");
        let stderr = names(&root.join("ui-tests/ui/fail"), "stderr");
        let pass_cases = names(&root.join("ui-tests/ui/pass"), "rs");
        let docs_module = fs::read_to_string(root.join("mcp-runtime/src/diagnostics.rs"))
            .expect("mcp-runtime/src/diagnostics.rs");
        let mut missing = Vec::new();
        for code in &codes {
            let prefix = format!("{}_", code.to_ascii_lowercase());
            let cases: Vec<_> = fail_cases
                .iter()
                .filter(|f| f.starts_with(&prefix))
                .collect();
            let page = format!("docs/diagnostics/{code}.md");
            if PENDING.contains(&code.as_str()) {
                if !cases.is_empty() && root.join(&page).exists() {
                    missing.push(format!(
                        "{code} has a ui case and {page}: remove it from PENDING"
                    ));
                }
                continue;
            }
            if cases.is_empty() {
                missing.push(format!("{code}: no ui-tests/ui/fail/<area>/{prefix}*.rs"));
            }
            for case in cases {
                let blessed = case.replace(".rs", ".stderr");
                if !stderr.contains(&blessed) {
                    missing.push(format!("{code}: {case} has no blessed {blessed}"));
                }
            }
            if code.starts_with("MCP_WARNING_")
                && !pass_cases.iter().any(|f| f.starts_with(&prefix))
            {
                missing.push(format!("{code}: no ui-tests/ui/pass/{prefix}*.rs proving `#[allow(deprecated)]` silences it"));
            }
            match fs::read_to_string(root.join(&page)) {
                Ok(text) => {
                    if !text.starts_with(&format!("# {code}: ")) {
                        missing.push(format!("{page}: does not start with `# {code}: `"));
                    }
                    if !text.contains("```rust,compile_fail") {
                        missing.push(format!("{page}: no compile_fail example"));
                    }
                }
                Err(_) => missing.push(format!("{code}: no {page}")),
            }
            let include = format!("include_str!(\"../../{page}\")]\npub struct {code};");
            if !docs_module.contains(&include) {
                missing.push(format!(
                    "{code}: mcp::diagnostics has no `pub struct {code};` with {page}"
                ));
            }
        }
        assert!(missing.is_empty(), "{missing:#?}");
    }
}
