//! [`ToolError`], the failure a tool reports to the model, and [`ToolResultExt`], which turns any
//! error into one so that `?` works inside a tool.

use std::sync::Arc;

use super::{BoxError, SharedError};
use crate::protocol::CallToolResult;

/// A tool-level failure: the call completes as a result with `isError: true` whose text is
/// the [`message`](Self::message), which the model reads. An optional
/// [`source`](std::error::Error::source) (the I/O or database error behind it) is logged with
/// `tracing` when the tool returns, and never sent to the client.
///
/// Return it as the error of a tool's `Result`; turn other errors into it with
/// [`ToolResultExt::tool_err`]:
///
/// ```
/// use mcp::ToolResultExt as _;
///
/// fn divide(a: f64, b: f64) -> Result<f64, mcp::ToolError> {
///     if b == 0.0 {
///         return Err(mcp::ToolError::new("cannot divide by zero"));
///     }
///     Ok(a / b)
/// }
///
/// fn read_notes(path: &str) -> Result<String, mcp::ToolError> {
///     // The model reads "could not read the notes"; the io::Error (with the path) is logged.
///     let text = std::fs::read_to_string(path).tool_err("could not read the notes")?;
///     Ok(text)
/// }
/// # assert!(divide(1.0, 0.0).is_err());
/// let e = read_notes("/nonexistent/notes.txt").unwrap_err();
/// assert_eq!(e.to_string(), "could not read the notes");
/// assert!(std::error::Error::source(&e).is_some());
/// ```
#[derive(Clone, Debug)]
pub struct ToolError {
    message: String,
    source: Option<SharedError>,
}

impl ToolError {
    /// A tool error whose `message` the model reads.
    #[must_use]
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            source: None,
        }
    }

    /// A tool error whose `message` the model reads, caused by `source` (logged, never
    /// sent).
    #[must_use]
    pub fn from_source(message: impl Into<String>, source: impl Into<BoxError>) -> Self {
        Self::new(message).with_source(source)
    }

    /// Sets the underlying error (logged, never sent), replacing any earlier one.
    #[must_use]
    pub fn with_source(mut self, source: impl Into<BoxError>) -> Self {
        self.source = Some(Arc::from(source.into()));
        self
    }

    /// The message the model reads.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The result this error ends a call with; logs the source, if any.
    pub(crate) fn into_call_result(self) -> CallToolResult {
        if let Some(source) = &self.source {
            tracing::warn!(
                sent = %self.message,
                error = &**source as &(dyn std::error::Error + 'static),
                "a tool failed"
            );
        }
        CallToolResult::error(self.message)
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        Self::new(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

mod sealed {
    pub trait Sealed {}
    impl<T, E> Sealed for Result<T, E> {}
    impl<T> Sealed for Option<T> {}
}

/// Turns a failure into a [`ToolError`] with a message for the model, keeping the original
/// error as its source (logged, never sent), so that `?` works inside a tool:
///
/// ```
/// use mcp::ToolResultExt as _;
///
/// fn port(config: &str) -> Result<u16, mcp::ToolError> {
///     let line = config.lines().find(|l| l.starts_with("port="))
///         .tool_err("the configuration names no port")?;
///     line["port=".len()..].parse().tool_err_with(|| format!("`{line}` is not a port"))
/// }
/// assert_eq!(port("port=8080").unwrap(), 8080);
/// assert_eq!(port("").unwrap_err().message(), "the configuration names no port");
/// assert_eq!(port("port=x").unwrap_err().message(), "`port=x` is not a port");
/// ```
///
/// Implemented for `Result<T, E>` with any `E: std::error::Error + Send + Sync + 'static`
/// (and boxed errors, `String` and `&str`), and for `Option<T>` (no source). Sealed.
pub trait ToolResultExt<T>: sealed::Sealed {
    /// The value, or a [`ToolError`] with `message` (and the error as its source).
    fn tool_err(self, message: impl Into<String>) -> Result<T, ToolError>;

    /// Like [`tool_err`](Self::tool_err), with the message built only on failure.
    fn tool_err_with<M: Into<String>>(self, message: impl FnOnce() -> M) -> Result<T, ToolError>;
}

impl<T, E: Into<BoxError>> ToolResultExt<T> for Result<T, E> {
    fn tool_err(self, message: impl Into<String>) -> Result<T, ToolError> {
        self.map_err(|e| ToolError::from_source(message, e))
    }

    fn tool_err_with<M: Into<String>>(self, message: impl FnOnce() -> M) -> Result<T, ToolError> {
        self.map_err(|e| ToolError::from_source(message(), e))
    }
}

impl<T> ToolResultExt<T> for Option<T> {
    fn tool_err(self, message: impl Into<String>) -> Result<T, ToolError> {
        self.ok_or_else(|| ToolError::new(message))
    }

    fn tool_err_with<M: Into<String>>(self, message: impl FnOnce() -> M) -> Result<T, ToolError> {
        self.ok_or_else(|| ToolError::new(message()))
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;
    use std::io;
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::error::ServerError;

    /// A `tracing` writer that keeps what was logged.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Runs `f` with a subscriber that records into the returned text.
    fn logged(f: impl FnOnce()) -> String {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        tracing::subscriber::with_default(subscriber, f);
        String::from_utf8(captured.0.lock().unwrap().clone()).unwrap()
    }

    fn not_found() -> io::Error {
        io::Error::new(
            io::ErrorKind::NotFound,
            "/home/build/secrets/vault.key: no such file",
        )
    }

    #[test]
    fn the_source_is_logged_and_never_part_of_the_result() {
        let error: Result<(), io::Error> = Err(not_found());
        let error = error.tool_err("could not read the key").unwrap_err();
        assert_eq!(error.to_string(), "could not read the key");
        assert_eq!(
            error.source().map(ToString::to_string).as_deref(),
            Some("/home/build/secrets/vault.key: no such file")
        );
        let mut result = None;
        let log = logged(|| result = Some(error.into_call_result()));
        let wire = serde_json::to_string(&result.unwrap()).unwrap();
        assert_eq!(
            wire,
            r#"{"content":[{"type":"text","text":"could not read the key"}],"isError":true}"#
        );
        assert!(log.contains("could not read the key"), "{log}");
        assert!(log.contains("/home/build/secrets/vault.key"), "{log}");
    }

    #[test]
    fn an_error_without_a_source_logs_nothing() {
        let log = logged(|| {
            let _ = ToolError::new("plain").into_call_result();
        });
        assert!(log.is_empty(), "{log}");
    }

    #[test]
    fn every_error_type_and_option_convert() {
        let boxed: Result<(), BoxError> = Err("boxed".into());
        assert_eq!(
            boxed
                .tool_err("m")
                .unwrap_err()
                .source()
                .unwrap()
                .to_string(),
            "boxed"
        );
        let text: Result<(), String> = Err("text".into());
        assert_eq!(
            text.tool_err_with(|| "lazy")
                .unwrap_err()
                .source()
                .unwrap()
                .to_string(),
            "text"
        );
        let parse = "x".parse::<u8>().tool_err("not a number").unwrap_err();
        assert_eq!(parse.message(), "not a number");
        assert!(parse.source().is_some());
        let none = None::<u8>.tool_err("missing").unwrap_err();
        assert_eq!(none.message(), "missing");
        assert!(none.source().is_none());
        assert_eq!(Some(3).tool_err("missing").unwrap(), 3);
        let with = ToolError::new("m").with_source(not_found());
        assert_eq!(with.message(), "m");
        assert!(with.source().unwrap().to_string().contains("vault.key"));
    }

    #[test]
    fn an_internal_server_error_sends_a_generic_message_and_logs_its_source() {
        let e = ServerError::internal(not_found());
        let object = e.to_error_object();
        assert_eq!(
            serde_json::to_string(&object).unwrap(),
            r#"{"code":-32603,"message":"Internal error"}"#
        );
        assert!(e.source().unwrap().to_string().contains("vault.key"));
        let log = logged(|| e.log_source());
        assert!(log.contains("/home/build/secrets/vault.key"), "{log}");
        // A message written for the client is sent as is, with nothing to log.
        let e = ServerError::client_message("the backend is down");
        assert_eq!(e.to_error_object().message, "the backend is down");
        assert!(e.source().is_none());
        assert!(logged(|| e.log_source()).is_empty());
    }
}
