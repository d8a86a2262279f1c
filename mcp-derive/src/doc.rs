//! Descriptions from doc comments: one helper joins the lines and trims paragraphs, and
//! splits out a rustdoc `# Arguments` list (`* `name` - text`).

use std::collections::BTreeMap;

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The doc comment of an item: its description and its argument descriptions.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Docs {
    /// The text without the `# Arguments` section; `None` when empty.
    pub description: Option<String>,
    /// `name` → description from the `# Arguments` list.
    pub arguments: BTreeMap<String, String>,
}

/// The raw lines of `#[doc = "..."]` attributes.
pub fn doc_lines(attrs: &[Attribute]) -> Vec<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let Meta::NameValue(nv) = &attr.meta
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
        {
            let value = s.value();
            if value.trim().is_empty() {
                lines.push(String::new());
            }
            for line in value.lines() {
                lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned());
            }
        }
    }
    lines
}

/// Reads the doc comment of an item.
pub fn parse(attrs: &[Attribute]) -> Docs {
    let mut description = Vec::new();
    let mut arguments = BTreeMap::new();
    let mut in_arguments = false;
    let mut current: Option<String> = None;
    for line in doc_lines(attrs) {
        let trimmed = line.trim();
        if let Some(heading) = trimmed.strip_prefix('#') {
            in_arguments = heading
                .trim_start_matches('#')
                .trim()
                .eq_ignore_ascii_case("arguments");
            current = None;
            if in_arguments {
                continue;
            }
        }
        if !in_arguments {
            description.push(line);
            continue;
        }
        if let Some((name, text)) = argument_item(trimmed) {
            arguments.insert(name.clone(), text);
            current = Some(name);
        } else if let Some(name) = &current
            && !trimmed.is_empty()
            && let Some(text) = arguments.get_mut(name)
        {
            text.push(' ');
            text.push_str(trimmed);
        }
    }
    Docs {
        description: join(&description),
        arguments,
    }
}

/// `* `name` - text`, `- `name`: text` and variants.
fn argument_item(line: &str) -> Option<(String, String)> {
    let rest = line
        .strip_prefix('*')
        .or_else(|| line.strip_prefix('-'))?
        .trim_start();
    let rest = rest.strip_prefix('`')?;
    let (name, rest) = rest.split_once('`')?;
    let text = rest
        .trim_start()
        .trim_start_matches([':', '-', '—', '–'])
        .trim();
    Some((name.trim().to_owned(), text.to_owned()))
}

/// Joins lines into paragraphs: lines of a paragraph are joined with spaces, paragraphs with
/// a blank line.
pub fn join(lines: &[String]) -> Option<String> {
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in lines {
        let t = line.trim();
        if t.is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
        } else {
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(t);
        }
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    (!paragraphs.is_empty()).then(|| paragraphs.join("\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn splits_description_and_arguments() {
        let item: syn::ItemFn = parse_quote! {
            /// Get the forecast
            /// for a city.
            ///
            /// Uses the national service.
            ///
            /// # Arguments
            ///
            /// * `city` - The city name,
            ///   as written locally.
            /// * `days`: How many days.
            fn f() {}
        };
        let docs = parse(&item.attrs);
        assert_eq!(
            docs.description.as_deref(),
            Some("Get the forecast for a city.\n\nUses the national service.")
        );
        assert_eq!(docs.arguments["city"], "The city name, as written locally.");
        assert_eq!(docs.arguments["days"], "How many days.");
    }

    #[test]
    fn no_docs() {
        let item: syn::ItemFn = parse_quote! { fn f() {} };
        assert_eq!(parse(&item.attrs), Docs::default());
    }
}
