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
    note = "tool arguments need `serde::Deserialize` and `schemars::JsonSchema` (derive both); runtime parameters are `mcp::HttpSession`, `Option<mcp::HttpSession>`, `Option<mcp::RequestMeta>`, `http::HeaderMap`, `http::request::Parts`, `mcp::Context`, `mcp::AuthContext` and `#[http_header(\"Name\")]` parameters"
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
        if !has_integral_float(&value) {
            return serde_json::from_value(value);
        }
        // JSON Schema's `integer` includes `2.0`, and a JavaScript server cannot tell it
        // from `2`: a client may send either. Decode as sent first (an `f64` or a `Value`
        // parameter keeps its float), then with integral floats read as integers.
        T::deserialize(&value).or_else(|first| {
            let mut value = value;
            integral_floats_to_integers(&mut value);
            serde_json::from_value(value).map_err(|_| first)
        })
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
}
