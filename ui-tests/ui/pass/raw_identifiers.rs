//! Raw identifiers: `r#type` is the tool `type`, `r#match` the argument `match`, and the
//! doc comment's `# Arguments` list names them without the prefix.
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use serde_json::json;
use support::*;

struct Lexer;

#[mcp::service(name = "lexer")]
impl Lexer {
    /// The type of a token.
    ///
    /// # Arguments
    ///
    /// * `match` - The text to classify
    pub fn r#type(&self, r#match: String) -> String {
        if r#match.chars().all(|c| c.is_ascii_digit()) { "number".into() } else { "word".into() }
    }

    /// A raw identifier that is not a keyword.
    pub fn r#echo(&self, r#text: String) -> String {
        r#text
    }
}

fn main() {
    let names: Vec<_> = tools(&Lexer).into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["type", "echo"]);
    let tool = tool(&Lexer, "type");
    assert_eq!(tool["inputSchema"]["required"], json!(["match"]));
    assert_eq!(tool["inputSchema"]["properties"]["match"]["description"], "The text to classify");
    assert_eq!(result(&Lexer, "type", json!({"match": "42"})).content[0], mcp::Content::text("number"));
    assert_eq!(result(&Lexer, "echo", json!({"text": "hi"})).content[0], mcp::Content::text("hi"));
}
