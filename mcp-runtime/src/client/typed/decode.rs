//! Reading a tool's result as the type its method declares: `structuredContent` when the
//! server sent it, else the text (JSON, or the text itself for a string).

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::protocol::{CallToolResult, Content};

/// How a typed call reads its result. Generated code picks one by the output type (a
/// string, `()`, content blocks, the raw result, or any `Deserialize` type).
pub struct Decoder<T>(fn(CallToolResult) -> Result<T, String>);

impl<T> Clone for Decoder<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Decoder<T> {}

impl<T> std::fmt::Debug for Decoder<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Decoder")
    }
}

impl<T> Decoder<T> {
    /// Reads `result`.
    pub fn decode(self, result: CallToolResult) -> Result<T, String> {
        (self.0)(result)
    }
}

impl Decoder<()> {
    /// `()`: the result is not read.
    pub const UNIT: Self = Self(|_| Ok(()));
}

impl Decoder<String> {
    /// A string: the result's text blocks, joined.
    pub const TEXT: Self = Self(|r| {
        if let Some(Value::String(s)) = r.structured_content {
            return Ok(s);
        }
        Ok(r.joined_text())
    });
}

impl Decoder<CallToolResult> {
    /// The result as it came.
    pub const RAW: Self = Self(Ok);
}

impl Decoder<Vec<Content>> {
    /// The content blocks.
    pub const CONTENT: Self = Self(|r| Ok(r.content));
}

impl Decoder<Content> {
    /// The one content block.
    pub const ONE_CONTENT: Self = Self(|r| {
        let n = r.content.len();
        let mut blocks = r.content.into_iter();
        match (blocks.next(), n) {
            (Some(block), 1) => Ok(block),
            _ => Err(format!("expected one content block, got {n}")),
        }
    });
}

impl<T: DeserializeOwned> Decoder<T> {
    /// Any `Deserialize` type: `structuredContent`, else the text read as JSON, else the
    /// text as a JSON string (a server writes a string value's text unquoted).
    pub const JSON: Self = Self(json::<T>);
}

fn json<T: DeserializeOwned>(result: CallToolResult) -> Result<T, String> {
    if let Some(value) = result.structured_content {
        return T::deserialize(value).map_err(|e| format!("structuredContent: {e}"));
    }
    let text = result.joined_text();
    match serde_json::from_str::<T>(&text) {
        Ok(v) => Ok(v),
        Err(first) => T::deserialize(Value::String(text))
            .map_err(|_| format!("no structuredContent, and the text is not one: {first}")),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn text(t: &str) -> CallToolResult {
        CallToolResult::content(vec![Content::text(t)])
    }

    #[test]
    fn structured_content_first_then_text() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct W {
            t: f64,
        }
        let mut r = text(r#"{"t": 1.0}"#);
        assert_eq!(Decoder::<W>::JSON.decode(r.clone()), Ok(W { t: 1.0 }));
        r.structured_content = Some(json!({"t": 2.5}));
        assert_eq!(Decoder::<W>::JSON.decode(r), Ok(W { t: 2.5 }));
        assert!(Decoder::<W>::JSON.decode(text("sunny")).is_err());
    }

    #[test]
    fn strings_and_numbers_from_text() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        enum Sky {
            Clear,
        }
        assert_eq!(Decoder::<Sky>::JSON.decode(text("Clear")), Ok(Sky::Clear));
        assert_eq!(Decoder::<i64>::JSON.decode(text("42")), Ok(42));
        assert_eq!(Decoder::TEXT.decode(text("a")), Ok("a".to_owned()));
        assert!(
            Decoder::ONE_CONTENT
                .decode(CallToolResult::content(vec![]))
                .is_err()
        );
    }
}
