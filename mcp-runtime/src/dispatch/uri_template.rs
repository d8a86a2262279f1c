//! URI templates of resource templates: the subset of RFC 6570 the MCP peers use (levels 1–3
//! and the `*` explode modifier), matched as the TypeScript SDK matches them
//! (`UriTemplate.match`: the template becomes an anchored regular expression), with the
//! captured values percent-decoded and checked.

use std::collections::BTreeMap;

use regex::Regex;

/// The longest template or URI, in bytes (the TypeScript SDK's limit, in characters).
pub const MAX_URI_BYTES: usize = 1_000_000;

/// The most expressions a template may hold.
pub const MAX_EXPRESSIONS: usize = 10_000;

/// A parsed URI template.
///
/// ```
/// let t = mcp::UriTemplate::parse("file:///{dir}/{+path}")?;
/// let vars = t.match_uri("file:///notes/a%20b/c.md")?.expect("matches");
/// assert_eq!(vars["dir"], "notes");
/// assert_eq!(vars["path"], "a b/c.md");
/// assert!(t.match_uri("http://other/")?.is_none());
/// # Ok::<(), mcp::UriTemplateError>(())
/// ```
#[derive(Clone, Debug)]
pub struct UriTemplate {
    template: String,
    regex: Regex,
    /// The captured variables in group order, with their operator.
    captures: Vec<(String, Op)>,
    names: Vec<String>,
}

/// Why a template cannot be parsed or a URI cannot be bound.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UriTemplateError {
    /// The template is malformed.
    #[error("invalid URI template: {0}")]
    Template(String),
    /// The URI matched, but a value is not acceptable (the message says why; it never
    /// repeats the value).
    #[error("{0}")]
    Value(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Simple,
    Reserved,
    Fragment,
    Label,
    Path,
    Query,
    QueryContinuation,
}

impl Op {
    fn of(c: char) -> Option<Self> {
        Some(match c {
            '+' => Self::Reserved,
            '#' => Self::Fragment,
            '.' => Self::Label,
            '/' => Self::Path,
            '?' => Self::Query,
            '&' => Self::QueryContinuation,
            _ => return None,
        })
    }
}

impl UriTemplate {
    /// `true` when `s` holds an expression (`{...}` with no whitespace inside), as the
    /// peers decide whether a resource URI is a template.
    pub fn is_template(s: &str) -> bool {
        let mut rest = s;
        while let Some(open) = rest.find('{') {
            let after = &rest[open + 1..];
            match after.find('}') {
                Some(close) if close > 0 && !after[..close].chars().any(char::is_whitespace) => {
                    return true;
                }
                _ => rest = after,
            }
        }
        false
    }

    /// Parses `template`.
    pub fn parse(template: &str) -> Result<Self, UriTemplateError> {
        if template.len() > MAX_URI_BYTES {
            return Err(UriTemplateError::Template(format!(
                "longer than {MAX_URI_BYTES} bytes"
            )));
        }
        let mut pattern = String::from("^");
        let mut captures = Vec::new();
        let mut names = Vec::new();
        let mut rest = template;
        let mut expressions = 0;
        while let Some(open) = rest.find('{') {
            pattern.push_str(&regex::escape(&rest[..open]));
            let after = &rest[open + 1..];
            let close = after.find('}').ok_or_else(|| {
                UriTemplateError::Template(format!(
                    "unclosed `{{` at byte {}",
                    template.len() - rest.len() + open
                ))
            })?;
            let expr = &after[..close];
            rest = &after[close + 1..];
            expressions += 1;
            if expressions > MAX_EXPRESSIONS {
                return Err(UriTemplateError::Template(format!(
                    "more than {MAX_EXPRESSIONS} expressions"
                )));
            }
            let mut chars = expr.chars();
            let (op, list) = match chars.next().and_then(Op::of) {
                Some(op) => (op, chars.as_str()),
                None => (Op::Simple, expr),
            };
            let mut vars = Vec::new();
            for raw in list.split(',') {
                let (name, explode) = match raw.strip_suffix('*') {
                    Some(n) => (n, true),
                    None => (raw, false),
                };
                if name.is_empty()
                    || !name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '%')
                {
                    return Err(UriTemplateError::Template(format!(
                        "invalid variable name {name:?} in `{{{expr}}}`"
                    )));
                }
                vars.push((name.to_owned(), explode));
            }
            names.extend(vars.iter().map(|(n, _)| n.clone()));
            let segment = |explode: bool| {
                if explode {
                    "([^/,]+(?:,[^/,]+)*)"
                } else {
                    "([^/,]+)"
                }
            };
            match op {
                Op::Simple | Op::Label | Op::Path => {
                    let (name, explode) = &vars[0];
                    match op {
                        Op::Label => pattern.push_str("\\."),
                        Op::Path => pattern.push('/'),
                        _ => {}
                    }
                    pattern.push_str(segment(*explode));
                    captures.push((name.clone(), op));
                }
                Op::Reserved | Op::Fragment => {
                    pattern.push_str("(.+)");
                    captures.push((vars[0].0.clone(), op));
                }
                Op::Query | Op::QueryContinuation => {
                    for (i, (name, _)) in vars.iter().enumerate() {
                        let lead = if i == 0 && op == Op::Query {
                            "\\?"
                        } else {
                            "&"
                        };
                        pattern.push_str(lead);
                        pattern.push_str(&regex::escape(name));
                        pattern.push_str("=([^&]+)");
                        captures.push((name.clone(), op));
                    }
                }
            }
        }
        pattern.push_str(&regex::escape(rest));
        pattern.push('$');
        let regex = Regex::new(&pattern)
            .map_err(|e| UriTemplateError::Template(format!("cannot be matched: {e}")))?;
        Ok(Self {
            template: template.to_owned(),
            regex,
            captures,
            names,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.template
    }

    /// Every variable name, in order.
    pub fn variable_names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }

    /// Matches `uri`: `Ok(None)` when it does not match, else the values of the captured
    /// variables, percent-decoded. A value is refused (an error, never a match) when it is
    /// not UTF-8 once decoded, holds a control character (NUL included), is a dot segment
    /// (`.` or `..`) or holds one (`{+var}`, `{#var}`), or decodes a `/` into a variable
    /// that matches one path segment (`%2F` in `{var}`).
    pub fn match_uri(
        &self,
        uri: &str,
    ) -> Result<Option<BTreeMap<String, String>>, UriTemplateError> {
        if uri.len() > MAX_URI_BYTES {
            return Err(UriTemplateError::Value(format!(
                "the URI is longer than {MAX_URI_BYTES} bytes"
            )));
        }
        let Some(caps) = self.regex.captures(uri) else {
            return Ok(None);
        };
        let mut out = BTreeMap::new();
        for (i, (name, op)) in self.captures.iter().enumerate() {
            let Some(raw) = caps.get(i + 1) else { continue };
            let value = decode(raw.as_str(), name, *op)?;
            out.insert(name.clone(), value);
        }
        Ok(Some(out))
    }
}

impl UriTemplate {
    /// Expands the template with `values` (RFC 6570 levels 1–3, each value a string; a
    /// variable without a value is left out as the RFC says): what a client reads a
    /// resource template's URI with.
    ///
    /// ```
    /// let t = mcp::UriTemplate::parse("file:///{dir}/{+path}{?rev}")?;
    /// let uri = t.expand(|name| match name {
    ///     "dir" => Some("my notes".into()),
    ///     "path" => Some("a/b.md".into()),
    ///     _ => None,
    /// });
    /// assert_eq!(uri, "file:///my%20notes/a/b.md");
    /// # Ok::<(), mcp::UriTemplateError>(())
    /// ```
    pub fn expand(&self, value_of: impl Fn(&str) -> Option<String>) -> String {
        expand_template(&self.template, value_of)
    }
}

/// [`UriTemplate::expand`] on a template's text, without building its matcher (a client
/// expands templates it already trusts).
pub(crate) fn expand_template(template: &str, value_of: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let expression = &rest[open + 1..open + close];
        rest = &rest[open + close + 1..];
        let (op, list) = match expression.chars().next().and_then(Op::of) {
            Some(op) => (op, &expression[1..]),
            None => (Op::Simple, expression),
        };
        let (first, sep, named, reserved) = match op {
            Op::Simple => ("", ",", false, false),
            Op::Reserved => ("", ",", false, true),
            Op::Fragment => ("#", ",", false, true),
            Op::Label => (".", ".", false, false),
            Op::Path => ("/", "/", false, false),
            Op::Query => ("?", "&", true, false),
            Op::QueryContinuation => ("&", "&", true, false),
        };
        let mut started = false;
        for spec in list.split(',') {
            let (name, prefix) = match spec.trim_end_matches('*').split_once(':') {
                Some((name, n)) => (name, n.parse::<usize>().ok()),
                None => (spec.trim_end_matches('*'), None),
            };
            let Some(mut value) = value_of(name) else {
                continue;
            };
            if let Some(n) = prefix {
                value = value.chars().take(n).collect();
            }
            out.push_str(if started { sep } else { first });
            started = true;
            if named {
                out.push_str(name);
                out.push('=');
            }
            encode_into(&mut out, &value, reserved);
        }
    }
    out.push_str(rest);
    out
}

/// Appends `value` percent-encoded: unreserved characters kept, and for `+` and `#`
/// expansions the reserved ones and existing `%XX` triplets too.
fn encode_into(out: &mut String, value: &str, reserved: bool) {
    const RESERVED: &str = ":/?#[]@!$&'()*+,;=";
    let bytes = value.as_bytes();
    for (i, c) in value.char_indices() {
        let triplet = reserved
            && c == '%'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
        if c.is_ascii_alphanumeric()
            || "-._~".contains(c)
            || triplet
            || (reserved && RESERVED.contains(c))
        {
            out.push(c);
        } else {
            let mut buf = [0; 4];
            let encoded = c.encode_utf8(&mut buf).as_bytes();
            out.extend(percent_encoding::percent_encode(
                encoded,
                percent_encoding::NON_ALPHANUMERIC,
            ));
        }
    }
}

fn decode(raw: &str, name: &str, op: Op) -> Result<String, UriTemplateError> {
    let value = percent_encoding::percent_decode_str(raw)
        .decode_utf8()
        .map_err(|_| {
            UriTemplateError::Value(format!("the value of `{name}` is not UTF-8 once decoded"))
        })?
        .into_owned();
    if value.chars().any(char::is_control) {
        return Err(UriTemplateError::Value(format!(
            "the value of `{name}` holds a control character"
        )));
    }
    match op {
        Op::Reserved | Op::Fragment => {
            if value.split('/').any(|s| s == ".." || s == ".") {
                return Err(UriTemplateError::Value(format!(
                    "the value of `{name}` holds a dot segment"
                )));
            }
        }
        Op::Simple | Op::Label | Op::Path => {
            if value == "." || value == ".." {
                return Err(UriTemplateError::Value(format!(
                    "the value of `{name}` is a dot segment"
                )));
            }
            if value.contains('/') {
                return Err(UriTemplateError::Value(format!(
                    "the value of `{name}` encodes a `/` in one path segment"
                )));
            }
        }
        Op::Query | Op::QueryContinuation => {}
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(t: &str, uri: &str) -> Option<BTreeMap<String, String>> {
        UriTemplate::parse(t).unwrap().match_uri(uri).unwrap()
    }

    #[test]
    fn expansion_round_trips_through_matching() {
        let t = UriTemplate::parse("x://{a}/{+b}{#c}{.d}{/e}{?f,g}{&h}").unwrap();
        let values = |n: &str| match n {
            "a" => Some("a b/ü".to_owned()),
            "b" => Some("p/q%20r".to_owned()),
            "c" => Some("frag".to_owned()),
            "d" => Some("json".to_owned()),
            "e" => Some("seg".to_owned()),
            "f" => Some("1&2".to_owned()),
            "h" => Some(String::new()),
            _ => None,
        };
        let uri = t.expand(values);
        assert_eq!(uri, "x://a%20b%2F%C3%BC/p/q%20r#frag.json/seg?f=1%262&h=");
        // What a client expands, a server matches back to the same values.
        let t = UriTemplate::parse("file:///{dir}/{+path}").unwrap();
        let uri = t.expand(|n| match n {
            "dir" => Some("my notes ü".to_owned()),
            _ => Some("a b/c.md".to_owned()),
        });
        assert_eq!(uri, "file:///my%20notes%20%C3%BC/a%20b/c.md");
        let back = t.match_uri(&uri).unwrap().expect("matches");
        assert_eq!(back["dir"], "my notes ü");
        assert_eq!(back["path"], "a b/c.md");
    }

    #[test]
    fn the_peers_operators() {
        assert_eq!(
            m("test://template/{id}/data", "test://template/123/data").unwrap()["id"],
            "123"
        );
        assert!(m("test://template/{id}/data", "test://template/1/2/data").is_none());
        assert_eq!(
            m("file:///{+path}", "file:///a/b/c.md").unwrap()["path"],
            "a/b/c.md"
        );
        assert_eq!(m("x://{a}{.ext}", "x://readme.md").unwrap()["ext"], "md");
        assert_eq!(m("x://r{/seg}", "x://r/one").unwrap()["seg"], "one");
        let q = m("x://s{?q,lang}", "x://s?q=rust&lang=en").unwrap();
        assert_eq!((q["q"].as_str(), q["lang"].as_str()), ("rust", "en"));
        assert!(m("x://s{?q,lang}", "x://s?lang=en&q=rust").is_none());
        assert_eq!(m("x://{list*}", "x://a,b").unwrap()["list"], "a,b");
        assert!(m("x://{a,b}", "x://x,y").is_none());
        assert_eq!(
            m("x://{a}", "x://caf%C3%A9%20au%20lait").unwrap()["a"],
            "café au lait"
        );
        assert!(m("config://app", "config://app").unwrap().is_empty());
        // Literal text is not a pattern.
        assert!(m("x://a.b/{id}", "x://aXb/1").is_none());
    }

    #[test]
    fn hostile_values_are_refused() {
        let t = UriTemplate::parse("file:///{name}").unwrap();
        for uri in [
            "file:///..",
            "file:///%2E%2E",
            "file:///a%2Fb",
            "file:///a%00b",
            "file:///%FF",
        ] {
            assert!(
                matches!(t.match_uri(uri), Err(UriTemplateError::Value(_))),
                "{uri}"
            );
        }
        let t = UriTemplate::parse("file:///{+path}").unwrap();
        assert!(t.match_uri("file:///a/../b").is_err());
        assert!(t.match_uri("file:///a/%2e%2e/b").is_err());
        assert_eq!(
            t.match_uri("file:///a%2Fb").unwrap().unwrap()["path"],
            "a/b"
        );
        let big = format!("file:///{}", "a".repeat(MAX_URI_BYTES));
        assert!(t.match_uri(&big).is_err());
        let fits = format!("file:///{}", "a".repeat(1000));
        assert!(t.match_uri(&fits).unwrap().is_some());
    }

    #[test]
    fn malformed_templates() {
        assert!(UriTemplate::parse("file:///{path").is_err());
        assert!(UriTemplate::parse("file:///{}").is_err());
        assert!(UriTemplate::parse("file:///{a b}").is_err());
        assert!(UriTemplate::is_template("file:///{path}"));
        assert!(!UriTemplate::is_template("file:///{ path }"));
        assert!(!UriTemplate::is_template("config://app"));
        let t = UriTemplate::parse("x://{a}/{+b}{?c,d}").unwrap();
        assert_eq!(t.variable_names().collect::<Vec<_>>(), ["a", "b", "c", "d"]);
    }
}
