//! Reading a [`CallToolResult`]: whether the tool failed, its structured content as a Rust
//! type, its text.

use serde::de::DeserializeOwned;

use super::CallToolResult;

/// Why [`CallToolResult::structured`] could not produce the requested type.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StructuredContentError {
    /// The result has no `structuredContent` (a tool without an output schema, a tool
    /// error, or a legacy server that sends text only).
    #[error("the tool result has no structuredContent")]
    Missing,
    /// The `structuredContent` does not have the shape of the requested type.
    #[error("the tool result's structuredContent does not match the requested type")]
    Mismatch(#[source] serde_json::Error),
}

impl CallToolResult {
    /// `true` when the tool failed (`isError: true`): the call reached the tool, which
    /// reported a failure as data.
    ///
    /// ```
    /// use mcp::CallToolResult;
    ///
    /// assert!(CallToolResult::error("no such city").is_error());
    /// assert!(!CallToolResult::text("sunny").is_error());
    /// ```
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }

    /// The `structuredContent`, deserialized into `T`.
    ///
    /// ```
    /// use mcp::CallToolResult;
    /// use serde::Deserialize;
    /// use serde_json::json;
    ///
    /// #[derive(Deserialize)]
    /// struct Sum {
    ///     sum: i64,
    /// }
    ///
    /// let result = CallToolResult::text("5").with_structured(json!({"sum": 5}));
    /// assert_eq!(result.structured::<Sum>()?.sum, 5);
    /// assert!(CallToolResult::text("5").structured::<Sum>().is_err());
    /// # Ok::<(), mcp::protocol::StructuredContentError>(())
    /// ```
    pub fn structured<T: DeserializeOwned>(&self) -> Result<T, StructuredContentError> {
        let value = self
            .structured_content
            .as_ref()
            .ok_or(StructuredContentError::Missing)?;
        T::deserialize(value).map_err(StructuredContentError::Mismatch)
    }

    /// The text of the result's text blocks, joined with newlines (other blocks are
    /// skipped; empty when there is none).
    ///
    /// ```
    /// use mcp::{CallToolResult, Content};
    ///
    /// let result = CallToolResult::content(vec![Content::text("a"), Content::text("b")]);
    /// assert_eq!(result.joined_text(), "a\nb");
    /// ```
    pub fn joined_text(&self) -> String {
        let texts: Vec<&str> = self.content.iter().filter_map(|c| c.as_text()).collect();
        texts.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::Content;

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Sum {
        sum: i64,
    }

    #[test]
    fn reads_structured_content_and_reports_why_not() {
        let ok = CallToolResult::text("5").with_structured(json!({"sum": 5}));
        assert_eq!(ok.structured::<Sum>().unwrap(), Sum { sum: 5 });
        assert!(matches!(
            CallToolResult::text("5").structured::<Sum>(),
            Err(StructuredContentError::Missing)
        ));
        let wrong = CallToolResult::text("5").with_structured(json!({"sum": "five"}));
        let err = wrong.structured::<Sum>().unwrap_err();
        assert!(matches!(err, StructuredContentError::Mismatch(_)));
        // The message does not repeat the source.
        assert!(!err.to_string().contains("five"));
        assert!(std::error::Error::source(&err).is_some());
    }

    #[test]
    fn is_error_and_joined_text() {
        let mut r = CallToolResult::content(vec![
            Content::text("a"),
            Content::image("AA==", "image/png"),
            Content::text("b"),
        ]);
        assert!(!r.is_error());
        assert_eq!(r.joined_text(), "a\nb");
        r.is_error = Some(false);
        assert!(!r.is_error());
        r.is_error = Some(true);
        assert!(r.is_error());
        assert_eq!(CallToolResult::default().joined_text(), "");
    }
}
