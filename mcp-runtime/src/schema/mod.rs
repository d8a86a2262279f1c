//! JSON Schema glue: `x-mcp-header` declarations and the `Mcp-Param-*` value codec, and the
//! output-schema rules of each era.

pub mod argument;
pub mod headers;

use serde_json::Value;

use crate::protocol::JsonObject;

/// `true` when a JSON Schema's root describes an object (`"type": "object"`).
pub fn is_object_schema(schema: &JsonObject) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "object",
        _ => false,
    }
}
