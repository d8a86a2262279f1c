//! Aliases of allowed types are judged by the type they name: the same kinds, schemas and
//! results as the types written out.
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use serde_json::json;
use support::*;

type Text = String;
type Numbers = Vec<i64>;
type Meta = Option<mcp::RequestMeta>;
type Headers = http::HeaderMap;
type Ctx = mcp::Context;
type Session = mcp::Session;
type Outcome<T> = Result<T, mcp::ToolError>;
type Raw = mcp::CallToolResult;

struct Aliased;

#[mcp::service(name = "aliased")]
impl Aliased {
    pub fn sum(&self, label: Text, values: Numbers, meta: Meta, headers: Headers, context: Ctx) -> Outcome<Text> {
        let _ = (meta, headers, context);
        Ok(format!("{label}={}", values.iter().sum::<i64>()))
    }

    pub fn raw(&self, #[argument(header = "Region")] region: Text) -> Raw {
        mcp::CallToolResult::text(region)
    }
}

/// A service whose tools take and return `Self`: checks generated outside the impl name the
/// type instead.
#[derive(Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Counter {
    value: i64,
}

#[mcp::service(name = "counter")]
impl Counter {
    pub fn add(&self, other: Self) -> Self {
        Counter { value: self.value + other.value }
    }

    #[tool(structured_output = true)]
    pub fn twice(&self) -> Result<Self, mcp::ToolError> {
        Ok(Counter { value: self.value * 2 })
    }
}

struct LegacyCart;

#[mcp::service(name = "cart", protocol_mode = "legacy")]
impl LegacyCart {
    pub fn add_item(&self, session: Session, item: Text) -> Text {
        let _ = session;
        item
    }
}

fn main() {
    let sum = tool(&Aliased, "sum");
    assert_eq!(
        sum["inputSchema"]["properties"],
        json!({
            "label": {"type": "string"},
            "values": {"type": "array", "items": {"type": "integer"}}
        })
    );
    assert_eq!(sum["outputSchema"]["type"], "string");
    let r = result(&Aliased, "sum", json!({"label": "total", "values": [1, 2, 3]}));
    assert_eq!(r.joined_text(), "total=6");

    let raw = tool(&Aliased, "raw");
    assert_eq!(raw["inputSchema"]["properties"]["region"]["x-mcp-header"], "Region");
    assert!(raw.get("outputSchema").is_none());

    assert_eq!(
        tool(&LegacyCart, "add_item")["inputSchema"]["properties"],
        json!({"item": {"type": "string"}})
    );
    let counter = Counter { value: 2 };
    assert_eq!(tool(&counter, "add")["inputSchema"]["properties"]["other"]["$ref"], "#/$defs/Counter");
    let r = result(&counter, "add", json!({"other": {"value": 3}}));
    assert_eq!(r.structured_content, Some(json!({"value": 5})));
    assert_eq!(result(&counter, "twice", json!({})).structured_content, Some(json!({"value": 4})));

    let _ = (server(Aliased), server(LegacyCart), server(counter));
}
