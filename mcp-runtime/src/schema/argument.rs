//! The traits that decide, by type, what a tool parameter or return value can be. Their
//! `on_unimplemented` messages are the compile-time diagnostics of `#[mcp::service]`, so a
//! type alias or a re-exported type is judged by what it is, not by its name.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A type a tool can take as an ordinary argument: it has a JSON Schema and can be
/// deserialized. Implemented for every `serde::Deserialize + schemars::JsonSchema` type.
#[diagnostic::on_unimplemented(
    message = "MCP_202: `{Self}` cannot be a tool parameter",
    label = "this type has no JSON Schema or cannot be deserialized",
    note = "tool arguments need `serde::Deserialize` and `schemars::JsonSchema` (derive both); runtime parameters are `mcp::Session`, `Option<mcp::Session>`, `Option<mcp::RequestMeta>`, `http::HeaderMap`, `http::request::Parts`, `mcp::Context`, `mcp::AuthContext` and `#[http_header(\"Name\")]` parameters"
)]
pub trait ToolArgument: Sized {
    /// The property schema of the argument.
    fn schema(generator: &mut SchemaGenerator) -> Schema;
    /// Decodes the argument from its JSON value.
    fn decode(value: Value) -> Result<Self, serde_json::Error>;
}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> ToolArgument for T {
    fn schema(generator: &mut SchemaGenerator) -> Schema {
        generator.subschema_for::<T>()
    }

    fn decode(value: Value) -> Result<Self, serde_json::Error> {
        decode(value)
    }
}

/// Decodes a JSON value. JSON Schema's `integer` includes `2.0`, and a JavaScript peer
/// cannot tell it from `2`: a client may send either. Decodes as sent first (an `f64` or a
/// `Value` keeps its float), then with integral floats read as integers.
fn decode<T: DeserializeOwned>(value: Value) -> Result<T, serde_json::Error> {
    if !has_integral_float(&value) {
        return serde_json::from_value(value);
    }
    T::deserialize(&value).or_else(|first| {
        let mut value = value;
        integral_floats_to_integers(&mut value);
        serde_json::from_value(value).map_err(|_| first)
    })
}

/// A type a variable of a resource template can have
/// ([`#[resource(template = ...)]`](crate::attributes::resource)): its value is read from the
/// variable's text, percent-decoded. The rule of [MCP_312](crate::diagnostics::MCP_312).
///
/// Implemented for every `serde::Deserialize` type: the text is read as a JSON string first
/// (`String`, `char`, a unit-variant enum, and every type that deserializes from a string),
/// then, when that fails, as JSON text (`{id}` = `42` for an integer, `true` for a `bool`,
/// `2.5` for a float). A type that is not `Deserialize` but implements
/// [`FromStr`](std::str::FromStr) (with an error that implements `Display`) is a template
/// variable too: `#[mcp::service]` reads it with `str::parse`. An `Option` of either is
/// accepted and always `Some`: a template matches only URIs that give each of its variables.
///
/// Never implement it: derive `serde::Deserialize` or implement `FromStr` instead.
#[diagnostic::on_unimplemented(
    message = "MCP_312: `{Self}` cannot be a template variable",
    label = "not readable from the text of a URI template variable",
    note = "a template variable is a `String`, an integer, a float, `bool`, `char`, a type implementing `std::str::FromStr`, a type implementing `serde::Deserialize` that reads from a string (a unit-variant enum), or an `Option` of one of them"
)]
pub trait TemplateVariable: Sized {
    /// Reads the value from the variable's text; `Err` says why it cannot be.
    fn from_text(text: String) -> Result<Self, String>;
}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned> TemplateVariable for T {
    fn from_text(text: String) -> Result<Self, String> {
        let value = Value::String(text);
        if let Ok(read) = T::deserialize(&value) {
            return Ok(read);
        }
        // Not a string: the text as JSON (`42`, `true`), or the string again, whose error
        // names the expected type.
        let value = match value {
            Value::String(text) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
            other => other,
        };
        decode(value).map_err(|e| e.to_string())
    }
}

/// Whether `value` holds a float with no fractional part that fits an `i64` or `u64`.
fn has_integral_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => integral(n).is_some(),
        Value::Array(items) => items.iter().any(has_integral_float),
        Value::Object(map) => map.values().any(has_integral_float),
        _ => false,
    }
}

fn integral(n: &serde_json::Number) -> Option<serde_json::Number> {
    let f = n.as_f64().filter(|_| n.is_f64())?;
    if f.fract() != 0.0 {
        return None;
    }
    if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
        Some((f as i64).into())
    } else if (0.0..1.844_674_407_370_955_2e19).contains(&f) {
        Some((f as u64).into())
    } else {
        None
    }
}

fn integral_floats_to_integers(value: &mut Value) {
    match value {
        Value::Number(n) => {
            if let Some(i) = integral(n) {
                *n = i;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_floats_to_integers),
        Value::Object(map) => map.values_mut().for_each(integral_floats_to_integers),
        _ => {}
    }
}

/// A type an `#[argument(header = "...")]` argument can have: non-optional `String`,
/// integers and `bool`, whose values mirror into `Mcp-Param-*` headers.
#[diagnostic::on_unimplemented(
    message = "MCP_215: `{Self}` cannot carry `#[argument(header = ...)]`",
    label = "header arguments must be a non-optional `String`, integer or `bool`",
    note = "use `#[http_header(\"Name\")]` for a value that comes only from an HTTP header"
)]
pub trait HeaderArgument {}

macro_rules! header_argument {
    ($($t:ty),*) => { $( impl HeaderArgument for $t {} )* };
}
header_argument!(
    String, bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize
);

/// A type a `#[http_header("X-Name")]` parameter can have.
#[diagnostic::on_unimplemented(
    message = "MCP_208: `{Self}` cannot be a `#[http_header]` parameter",
    label = "`#[http_header]` parameters must be `String`, `Option<String>` or `Vec<String>`"
)]
pub trait HeaderParam: Sized {
    /// Reads the parameter from the request headers; `Err` names what is missing.
    fn from_headers(headers: &http::HeaderMap, name: &str) -> Result<Self, String>;
}

impl HeaderParam for String {
    fn from_headers(headers: &http::HeaderMap, name: &str) -> Result<Self, String> {
        match headers.get(name).map(|v| v.to_str()) {
            Some(Ok(v)) => Ok(v.to_owned()),
            Some(Err(_)) => Err(format!("header `{name}` is not valid text")),
            None => Err(format!("missing required header `{name}`")),
        }
    }
}

impl HeaderParam for Option<String> {
    fn from_headers(headers: &http::HeaderMap, name: &str) -> Result<Self, String> {
        match headers.get(name).map(|v| v.to_str()) {
            Some(Ok(v)) => Ok(Some(v.to_owned())),
            Some(Err(_)) => Err(format!("header `{name}` is not valid text")),
            None => Ok(None),
        }
    }
}

impl HeaderParam for Vec<String> {
    fn from_headers(headers: &http::HeaderMap, name: &str) -> Result<Self, String> {
        headers
            .get_all(name)
            .iter()
            .map(|v| {
                v.to_str()
                    .map(str::to_owned)
                    .map_err(|_| format!("header `{name}` is not valid text"))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integral_floats_decode_as_integers_where_integers_are_expected() {
        assert_eq!(<u8 as ToolArgument>::decode(json!(2.0)).unwrap(), 2);
        assert_eq!(<i64 as ToolArgument>::decode(json!(-3.0)).unwrap(), -3);
        assert_eq!(
            <Vec<u32> as ToolArgument>::decode(json!([1.0, 2, 3.0])).unwrap(),
            vec![1, 2, 3]
        );
        // Floats stay floats where they fit, and a fraction is still refused.
        assert_eq!(<f64 as ToolArgument>::decode(json!(2.0)).unwrap(), 2.0);
        assert_eq!(
            <Value as ToolArgument>::decode(json!({"a": 2.0})).unwrap(),
            json!({"a": 2.0})
        );
        assert!(<u8 as ToolArgument>::decode(json!(2.5)).is_err());
        assert!(<u8 as ToolArgument>::decode(json!(256.0)).is_err());
        assert!(<i64 as ToolArgument>::decode(json!(1e300)).is_err());
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Format {
        Json,
        Text,
    }

    #[test]
    fn template_variables_read_their_text() {
        fn read<T: TemplateVariable>(text: &str) -> Result<T, String> {
            T::from_text(text.to_owned())
        }
        assert_eq!(read::<String>("42").unwrap(), "42");
        assert_eq!(read::<String>("null").unwrap(), "null");
        assert_eq!(read::<u32>("42").unwrap(), 42);
        assert_eq!(read::<u32>("2.0").unwrap(), 2);
        assert_eq!(read::<i64>("-7").unwrap(), -7);
        assert_eq!(read::<f64>("2.5").unwrap(), 2.5);
        assert!(read::<bool>("true").unwrap());
        assert_eq!(read::<char>("x").unwrap(), 'x');
        assert_eq!(read::<Format>("json").unwrap(), Format::Json);
        assert_eq!(read::<Option<u8>>("7").unwrap(), Some(7));
        assert_eq!(
            read::<Option<String>>("null").unwrap().as_deref(),
            Some("null")
        );
        let error = read::<u32>("abc").unwrap_err();
        assert!(error.contains("expected u32"), "{error}");
        let error = read::<Format>("xml").unwrap_err();
        assert!(error.contains("unknown variant `xml`"), "{error}");
        assert!(read::<u8>("256").is_err());
        assert!(read::<bool>("yes").is_err());
    }
}
