//! Resources, templates, prompts and completers: a service without tools, async and sync
//! methods, runtime parameters, `Self` and aliases in signatures, every accepted return
//! shape, and private methods (they are not tools).

use std::collections::HashMap;

type Text = String;
type Maybe = Option<String>;

struct Library;

#[mcp::service(name = "library", version = "1.0.0")]
impl Library {
    /// The catalog.
    #[resource(uri = "library://catalog", mime_type = "application/json")]
    async fn catalog(&self, _cx: mcp::Context, _meta: Option<mcp::RequestMeta>) -> Text {
        "[]".into()
    }

    /// A cover image.
    #[resource(template = "library://covers/{isbn}", mime_type = "image/png")]
    fn cover(&self, isbn: u64) -> Result<Vec<u8>, std::io::Error> {
        Ok(isbn.to_be_bytes().to_vec())
    }

    /// Raw bytes.
    #[resource(uri = "library://raw")]
    pub fn raw(&self, _headers: http::HeaderMap) -> mcp::ResourceContents {
        mcp::ResourceContents::blob("library://raw", "AA==")
    }

    /// A chapter.
    #[resource(template = "library://books/{book}/{+chapter}")]
    fn chapter(&self, book: String, chapter: String) -> Result<mcp::ReadResourceResult, mcp::ServerError> {
        Ok(mcp::ReadResourceResult::new(vec![mcp::ResourceContents::text(
            format!("library://books/{book}/{chapter}"),
            "...",
        )]))
    }

    /// Summarize a book.
    ///
    /// # Arguments
    /// * `book` - The book.
    #[prompt(title = "Summary")]
    #[allow(deprecated)] // MCP_WARNING_204: the session is `None` for modern requests
    async fn summarize(&self, book: Text, style: Maybe, _session: Option<mcp::Session>) -> Vec<mcp::PromptMessage> {
        vec![mcp::PromptMessage::user(format!("{book} {}", style.unwrap_or_default()))]
    }

    /// Recommend.
    #[prompt(name = "recommend")]
    fn recommendation(&self) -> Result<String, mcp::ServerError> {
        Ok(Self::helper())
    }

    #[complete(prompt = "summarize", argument = "book")]
    async fn books(&self, prefix: String, _others: HashMap<String, String>) -> mcp::Completion {
        mcp::Completion::new(vec![prefix])
    }

    #[complete(template = "library://books/{book}/{+chapter}", argument = "chapter")]
    fn chapters(&self, prefix: String) -> Result<Vec<String>, std::fmt::Error> {
        Ok(vec![prefix])
    }

    fn helper() -> String {
        "read more".into()
    }
}

fn main() {
    let server = mcp::Server::builder(Library).build();
    assert!(server.is_ok());
}
