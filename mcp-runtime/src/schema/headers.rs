//! `x-mcp-header`: the declarations in a tool's input schema, and the encoding of argument
//! values into `Mcp-Param-{Name}` headers (client) and their decoding and comparison
//! (server), as the TypeScript SDK does it (SEP-2243).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

use crate::protocol::JsonObject;

/// The schema keyword that mirrors an argument into a header.
pub const X_MCP_HEADER: &str = "x-mcp-header";
pub(crate) use crate::protocol::headers::MCP_PARAM_PREFIX as PARAM_HEADER_PREFIX;

/// The largest integer a header may carry (±(2^53−1)).
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// The JSON type of a header-bound property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamType {
    /// `"string"`.
    String,
    /// `"integer"`.
    Integer,
    /// `"boolean"`.
    Boolean,
}

/// One `x-mcp-header` declaration of a tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderDecl {
    /// Property names from the root to the argument.
    pub path: Vec<String>,
    /// The header name after `Mcp-Param-`.
    pub name: String,
    /// The property's type.
    pub ty: ParamType,
}

impl HeaderDecl {
    /// The full header name, `Mcp-Param-{name}`.
    pub fn header_name(&self) -> String {
        format!("{PARAM_HEADER_PREFIX}{}", self.name)
    }

    /// The argument value at the declared path, if present and not `null`.
    pub fn value<'a>(&self, arguments: Option<&'a Map<String, Value>>) -> Option<&'a Value> {
        let mut obj = arguments?;
        let (last, parents) = self.path.split_last()?;
        for key in parents {
            obj = obj.get(key)?.as_object()?;
        }
        obj.get(last).filter(|v| !v.is_null())
    }
}

/// Why a tool's header declarations are invalid.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidDeclaration {
    /// The keyword appears somewhere other than a property reached through `properties`.
    #[error("`x-mcp-header` at `{0}` is not on a property reached through `properties`")]
    Misplaced(String),
    /// The header name is not an RFC 9110 token.
    #[error("`x-mcp-header` value {0:?} is not a valid header name token")]
    InvalidName(String),
    /// Two declarations share a name (case-insensitively).
    #[error("duplicate `x-mcp-header` name {0:?}")]
    Duplicate(String),
    /// The property is not a string, integer or boolean.
    #[error("`x-mcp-header` {0:?} is on a property that is not a string, integer or boolean")]
    InvalidType(String),
}

/// `true` for a non-empty RFC 9110 token.
pub fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Collects the `x-mcp-header` declarations of an input schema, rejecting the tool when any
/// is invalid (misplaced, bad name, duplicate, wrong type).
pub fn declarations(input_schema: &JsonObject) -> Result<Vec<HeaderDecl>, InvalidDeclaration> {
    let mut out = Vec::new();
    if input_schema.contains_key(X_MCP_HEADER) {
        return Err(InvalidDeclaration::Misplaced("#".into()));
    }
    walk_properties(input_schema, &mut Vec::new(), &mut out)?;
    let mut seen = std::collections::HashSet::new();
    for d in &out {
        if !seen.insert(d.name.to_ascii_lowercase()) {
            return Err(InvalidDeclaration::Duplicate(d.name.clone()));
        }
    }
    Ok(out)
}

fn walk_properties(
    schema: &JsonObject,
    path: &mut Vec<String>,
    out: &mut Vec<HeaderDecl>,
) -> Result<(), InvalidDeclaration> {
    for (key, value) in schema {
        if key == "properties" {
            let Some(props) = value.as_object() else {
                continue;
            };
            for (name, prop) in props {
                let Some(prop) = prop.as_object() else {
                    continue;
                };
                path.push(name.clone());
                if let Some(header) = prop.get(X_MCP_HEADER) {
                    out.push(declaration(path, header, prop)?);
                }
                walk_properties(prop, path, out)?;
                path.pop();
            }
        } else if key != X_MCP_HEADER {
            // Anything below another keyword is unreachable through `properties` alone.
            if let Some(at) = find_keyword(value) {
                return Err(InvalidDeclaration::Misplaced(format!(
                    "{}/{key}{at}",
                    pointer(path)
                )));
            }
        }
    }
    Ok(())
}

fn declaration(
    path: &[String],
    header: &Value,
    prop: &JsonObject,
) -> Result<HeaderDecl, InvalidDeclaration> {
    let name = match header {
        Value::String(s) if is_token(s) => s.clone(),
        other => return Err(InvalidDeclaration::InvalidName(other.to_string())),
    };
    let ty = match prop.get("type").and_then(Value::as_str) {
        Some("string") => ParamType::String,
        Some("integer") => ParamType::Integer,
        Some("boolean") => ParamType::Boolean,
        _ => return Err(InvalidDeclaration::InvalidType(name)),
    };
    Ok(HeaderDecl {
        path: path.to_vec(),
        name,
        ty,
    })
}

fn find_keyword(value: &Value) -> Option<String> {
    match value {
        Value::Object(o) => o.iter().find_map(|(k, v)| {
            if k == X_MCP_HEADER {
                Some(String::new())
            } else {
                find_keyword(v).map(|rest| format!("/{k}{rest}"))
            }
        }),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, v)| find_keyword(v).map(|rest| format!("/{i}{rest}"))),
        _ => None,
    }
}

fn pointer(path: &[String]) -> String {
    let mut s = String::from("#");
    for p in path {
        s.push_str("/properties/");
        s.push_str(p);
    }
    s
}

/// Encodes an argument value for its header, as a client does. `None` means "send no
/// header": `null`, non-scalar values, non-finite numbers and integers beyond ±(2^53−1).
pub fn encode_value(value: &Value) -> Option<String> {
    let raw = match value {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                // `unsigned_abs`: `abs` overflows on i64::MIN (found by the param_header fuzz
                // target).
                if i.unsigned_abs() > MAX_SAFE_INTEGER as u64 {
                    return None;
                }
                i.to_string()
            } else if let Some(u) = n.as_u64() {
                if u > MAX_SAFE_INTEGER as u64 {
                    return None;
                }
                u.to_string()
            } else {
                let f = n.as_f64()?;
                if !f.is_finite() {
                    return None;
                }
                js_number(f)
            }
        }
        _ => return None,
    };
    Some(wrap_if_needed(raw))
}

/// Formats a float as JavaScript's `String(n)` does for the common cases (integral values
/// without a fraction).
fn js_number(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e21 {
        format!("{f:.0}")
    } else {
        f.to_string()
    }
}

fn wrap_if_needed(raw: String) -> String {
    let plain = !raw.is_empty()
        && !raw.starts_with([' ', '\t'])
        && !raw.ends_with([' ', '\t'])
        && raw.chars().all(|c| c == '\t' || (' '..='~').contains(&c))
        && !looks_wrapped(&raw);
    if plain {
        raw
    } else {
        format!("=?base64?{}?=", STANDARD.encode(raw.as_bytes()))
    }
}

fn looks_wrapped(s: &str) -> bool {
    s.len() >= 11 && s.starts_with("=?base64?") && s.ends_with("?=")
}

/// Why a header value cannot be decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid Mcp-Param header encoding")]
pub struct InvalidEncoding;

/// Decodes a header value (raw bytes as received): the `=?base64?…?=` form must carry
/// canonical padded base64 of UTF-8; any other value must be visible ASCII or TAB.
pub fn decode_value(raw: &[u8]) -> Result<String, InvalidEncoding> {
    let s = std::str::from_utf8(raw).map_err(|_| InvalidEncoding)?;
    if s.len() >= 11 && s.starts_with("=?base64?") && s.ends_with("?=") {
        let payload = &s[9..s.len() - 2];
        let bytes = STANDARD.decode(payload).map_err(|_| InvalidEncoding)?;
        return String::from_utf8(bytes).map_err(|_| InvalidEncoding);
    }
    if s.chars().all(|c| c == '\t' || (' '..='~').contains(&c)) {
        Ok(s.trim_matches([' ', '\t']).to_owned())
    } else {
        Err(InvalidEncoding)
    }
}

/// A disagreement between a parameter header and the argument it mirrors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamMismatch {
    /// The full header name (`Mcp-Param-Region`).
    pub header: String,
    /// What is wrong, in prose.
    pub problem: String,
}

/// Checks the parameter headers of one `tools/call` against its arguments, as a modern
/// server does. `header` looks a header up by its full name (case-insensitively) and
/// returns its raw bytes.
pub fn check_params<'h>(
    decls: &[HeaderDecl],
    arguments: Option<&Map<String, Value>>,
    header: impl Fn(&str) -> Option<&'h [u8]>,
) -> Result<(), ParamMismatch> {
    for decl in decls {
        let full = decl.header_name();
        let Some(value) = decl.value(arguments) else {
            continue;
        };
        let Some(expected) = encode_value(value) else {
            continue;
        };
        let Some(raw) = header(&full) else {
            return Err(ParamMismatch {
                header: full,
                problem: format!(
                    "the {PARAM_HEADER_PREFIX}{} header is required by the tool's input schema but missing",
                    decl.name
                ),
            });
        };
        let decoded = decode_value(raw).map_err(|_| ParamMismatch {
            header: full.clone(),
            problem: format!("the {full} header value is not validly encoded"),
        })?;
        if !matches(decl.ty, &decoded, value, &expected) {
            return Err(ParamMismatch {
                header: full.clone(),
                problem: format!(
                    "the {full} header value does not match the argument `{}`",
                    decl.path.join(".")
                ),
            });
        }
    }
    Ok(())
}

fn matches(ty: ParamType, decoded: &str, value: &Value, expected_encoded: &str) -> bool {
    if ty == ParamType::Integer
        && is_decimal(decoded)
        && let (Ok(h), Some(b)) = (decoded.parse::<f64>(), value.as_f64())
    {
        return h == b;
    }
    // Compare the decoded header with the argument's string form.
    let body = match value {
        Value::String(s) => s.clone(),
        _ => match decode_value(expected_encoded.as_bytes()) {
            Ok(s) => s,
            Err(_) => return false,
        },
    };
    decoded == body
}

fn is_decimal(s: &str) -> bool {
    let s = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (s, None),
    };
    !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> JsonObject {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn collects_declarations_through_properties() {
        let schema = obj(json!({"type":"object","properties":{
            "region":{"type":"string","x-mcp-header":"Region"},
            "dryRun":{"type":"boolean","x-mcp-header":"Dry-Run"},
            "opts":{"type":"object","properties":{"limit":{"type":"integer","x-mcp-header":"Limit"}}}
        }}));
        let d = declarations(&schema).unwrap();
        assert_eq!(d.len(), 3);
        assert!(
            d.iter()
                .any(|d| d.path == ["opts", "limit"] && d.ty == ParamType::Integer)
        );
    }

    #[test]
    fn rejects_invalid_declarations() {
        let cases = [
            json!({"type":"object","x-mcp-header":"Root"}),
            json!({"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}),
            json!({"type":"object","properties":{"a":{"x-mcp-header":"A"}}}),
            json!({"type":"object","properties":{"a":{"type":"string","x-mcp-header":"bad name"}}}),
            json!({"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}),
            json!({"type":"object","properties":{"a":{"type":"string","x-mcp-header":"X"},"b":{"type":"string","x-mcp-header":"x"}}}),
            json!({"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}),
            json!({"type":"object","anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}),
            json!({"type":"object","$defs":{"x":{"type":"string","x-mcp-header":"A"}}}),
        ];
        for c in cases {
            assert!(declarations(&obj(c.clone())).is_err(), "{c}");
        }
    }

    #[test]
    fn encodes_like_the_ts_client() {
        assert_eq!(encode_value(&json!("eu-west")).unwrap(), "eu-west");
        assert_eq!(
            encode_value(&json!("São Paulo")).unwrap(),
            "=?base64?U8OjbyBQYXVsbw==?="
        );
        assert_eq!(encode_value(&json!("")).unwrap(), "=?base64??=");
        assert_eq!(encode_value(&json!(" x")).unwrap(), "=?base64?IHg=?=");
        assert_eq!(encode_value(&json!(false)).unwrap(), "false");
        assert_eq!(encode_value(&json!(5)).unwrap(), "5");
        assert_eq!(encode_value(&json!(42.0)).unwrap(), "42");
        assert_eq!(
            encode_value(&json!(MAX_SAFE_INTEGER)).unwrap(),
            "9007199254740991"
        );
        assert_eq!(encode_value(&json!(MAX_SAFE_INTEGER + 1)), None);
        assert_eq!(encode_value(&json!(-MAX_SAFE_INTEGER - 1)), None);
        // Fuzz regression (param_header): `abs` overflowed here.
        assert_eq!(encode_value(&json!(i64::MIN)), None);
        assert_eq!(encode_value(&json!(i64::MIN + 1)), None);
        assert_eq!(encode_value(&json!(null)), None);
        assert_eq!(encode_value(&json!({"a":1})), None);
        assert!(
            encode_value(&json!("=?base64?abc?="))
                .unwrap()
                .starts_with("=?base64?")
        );
        assert!(
            encode_value(&json!("a\nb"))
                .unwrap()
                .starts_with("=?base64?")
        );
    }

    #[test]
    fn decodes_strictly() {
        assert_eq!(
            decode_value(b"=?base64?U8OjbyBQYXVsbw==?=").unwrap(),
            "São Paulo"
        );
        assert_eq!(decode_value(b"=?base64??=").unwrap(), "");
        assert_eq!(decode_value(b"plain").unwrap(), "plain");
        assert!(
            decode_value(b"=?base64?U8OjbyBQYXVsbw?=").is_err(),
            "unpadded"
        );
        assert!(decode_value(b"=?base64?!!!!?=").is_err());
        assert!(decode_value(b"=?base64?/w==?=").is_err(), "not UTF-8");
        assert!(decode_value("é".as_bytes()).is_err());
        assert!(decode_value(b"a\x01b").is_err());
    }

    #[test]
    fn checks_params_against_arguments() {
        let schema = obj(json!({"type":"object","properties":{
            "region":{"type":"string","x-mcp-header":"Region"},
            "limit":{"type":"integer","x-mcp-header":"Limit"}
        }}));
        let decls = declarations(&schema).unwrap();
        let args = obj(json!({"region":"São Paulo","limit":5}));
        let ok = |name: &str| -> Option<&'static [u8]> {
            match name {
                "Mcp-Param-Region" => Some(b"=?base64?U8OjbyBQYXVsbw==?="),
                "Mcp-Param-Limit" => Some(b"5.0"),
                _ => None,
            }
        };
        assert_eq!(check_params(&decls, Some(&args), ok), Ok(()));
        let missing =
            |name: &str| -> Option<&'static [u8]> { (name == "Mcp-Param-Limit").then_some(b"5") };
        assert_eq!(
            check_params(&decls, Some(&args), missing)
                .unwrap_err()
                .header,
            "Mcp-Param-Region"
        );
        let wrong = |name: &str| -> Option<&'static [u8]> {
            match name {
                "Mcp-Param-Region" => Some(b"Lisbon"),
                _ => Some(b"5"),
            }
        };
        assert!(check_params(&decls, Some(&args), wrong).is_err());
        // No argument, no header required; a header without argument is ignored.
        let none = obj(json!({}));
        assert_eq!(
            check_params(&decls, Some(&none), |_| Some(b"x".as_slice())),
            Ok(())
        );
        // Integers beyond 2^53 are not mirrored, so not required.
        let big = obj(json!({"limit": 9007199254740993_i64}));
        assert_eq!(check_params(&decls, Some(&big), |_| None), Ok(()));
    }
}
