//! Parameters named as their arguments are on the wire (`resourceUri`): the user allows
//! `non_snake_case` on the method, and the generated bindings of the tool, the prompt and
//! the resource's template variable do not warn again (`#![deny(warnings)]`).
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use serde_json::json;
use support::*;

struct Wire;

#[mcp::service(name = "wire")]
impl Wire {
    /// Echoes a URI.
    #[allow(non_snake_case)]
    pub fn echo_uri(&self, resourceUri: String) -> String {
        resourceUri
    }

    /// Embeds a URI.
    #[prompt]
    #[allow(non_snake_case)]
    fn embed(&self, resourceUri: String) -> String {
        format!("embed {resourceUri}")
    }

    /// An item.
    #[resource(template = "wire://items/{itemId}")]
    #[allow(non_snake_case)]
    fn item(&self, itemId: String) -> String {
        format!("item {itemId}")
    }
}

fn main() {
    let tool = tool(&Wire, "echo_uri");
    assert_eq!(tool["inputSchema"]["required"], json!(["resourceUri"]));
    let r = result(&Wire, "echo_uri", json!({"resourceUri": "file:///a"}));
    assert_eq!(r.content[0], mcp::Content::text("file:///a"));
    assert_eq!(prompt_text(&Wire, "embed", &[("resourceUri", "file:///b")]).unwrap(), "embed file:///b");
    assert_eq!(read_text(&Wire, "wire://items/7").unwrap(), "item 7");
}
