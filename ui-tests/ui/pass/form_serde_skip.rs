//! Fields serde does not read (`#[serde(skip)]`, `#[serde(skip_deserializing)]`) are not
//! form fields: their types need not be form field types (MCP_219), and the form lacks
//! them. Skipped enum variants are not options.
#![deny(warnings)]

use std::collections::HashMap;

#[derive(serde::Deserialize, mcp::Form)]
#[allow(dead_code)]
struct Booking {
    /// Number of guests.
    guests: u32,
    #[serde(skip)]
    cache: HashMap<String, Vec<u8>>,
    #[serde(default, skip_deserializing)]
    audit: Vec<(String, u64)>,
    #[serde(skip_serializing)]
    note: Option<String>,
    seating: Seating,
    r#type: String,
}

#[derive(serde::Deserialize, mcp::Form)]
enum Seating {
    Indoor,
    #[serde(skip)]
    #[allow(dead_code)]
    Internal,
    r#Outdoor,
}

fn main() {
    use mcp::Form as _;
    let schema = Booking::form_schema().to_json();
    let mut properties: Vec<_> = schema["properties"].as_object().unwrap().keys().cloned().collect();
    properties.sort();
    assert_eq!(properties, ["guests", "note", "seating", "type"]);
    let options: Vec<_> = schema["properties"]["seating"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["const"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(options, ["Indoor", "Outdoor"]);
}
