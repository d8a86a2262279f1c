//! Ordinary Rust attributes on tools: `#[deprecated]` (serving a deprecated method is not a
//! use of it), `#[inline]`, `#[must_use]`, and `&Path` parameters (read as `PathBuf`).
#![deny(warnings)]

#[path = "support/mod.rs"]
mod support;

use std::path::Path;

use serde_json::json;
use support::*;

struct Files;

#[mcp::service(name = "files")]
impl Files {
    /// The old name of `extension`.
    #[deprecated(note = "use `extension`")]
    pub fn ext(&self, path: &Path) -> String {
        self.extension(path)
    }

    #[inline]
    #[must_use]
    pub fn extension(&self, path: &Path) -> String {
        path.extension().map(|e| e.to_string_lossy().into_owned()).unwrap_or_default()
    }
}

fn main() {
    assert_eq!(result(&Files, "ext", json!({"path": "a/b.txt"})).content[0], mcp::Content::text("txt"));
    assert_eq!(result(&Files, "extension", json!({"path": "c.rs"})).content[0], mcp::Content::text("rs"));
    assert_eq!(tool(&Files, "extension")["inputSchema"]["properties"]["path"]["type"], "string");
}
