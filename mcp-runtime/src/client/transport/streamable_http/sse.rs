//! An incremental, bounded `text/event-stream` parser that yields the data of message
//! events (events named `message` or unnamed; empty data, comments and other event names
//! are skipped).

use std::time::Duration;

use crate::client::StreamError;

/// Parses SSE bytes as they arrive.
#[derive(Debug)]
pub(crate) struct SseParser {
    line: Vec<u8>,
    data: String,
    has_data: bool,
    event: Option<String>,
    skip_lf: bool,
    max_event: usize,
    last_event_id: Option<String>,
    retry: Option<Duration>,
}

impl SseParser {
    /// A parser whose events (and lines) may hold at most `max_event` bytes.
    pub(crate) fn new(max_event: usize) -> Self {
        Self {
            line: Vec::new(),
            data: String::new(),
            has_data: false,
            event: None,
            skip_lf: false,
            max_event,
            last_event_id: None,
            retry: None,
        }
    }

    /// A parser for the stream that resumes this one: a clean state, with the last event id
    /// and the reconnection delay carried over.
    pub(crate) fn resumed(&self) -> Self {
        Self {
            last_event_id: self.last_event_id.clone(),
            retry: self.retry,
            ..Self::new(self.max_event)
        }
    }

    /// The last event id the server sent (`id:`), to resume after with `Last-Event-ID`.
    pub(crate) fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// The reconnection delay the server asked for (`retry:`), if any.
    pub(crate) fn retry(&self) -> Option<Duration> {
        self.retry
    }

    /// Feeds a chunk, pushing the data of each completed message event to `out`.
    pub(crate) fn feed(&mut self, chunk: &[u8], out: &mut Vec<String>) -> Result<(), StreamError> {
        let mut rest = chunk;
        while !rest.is_empty() {
            if self.skip_lf {
                self.skip_lf = false;
                if rest[0] == b'\n' {
                    rest = &rest[1..];
                    continue;
                }
            }
            match rest.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(i) => {
                    self.push_bytes(&rest[..i])?;
                    if rest[i] == b'\r' {
                        self.skip_lf = true;
                    }
                    rest = &rest[i + 1..];
                    let line = std::mem::take(&mut self.line);
                    self.line_done(&line, out)?;
                }
                None => {
                    self.push_bytes(rest)?;
                    rest = &[];
                }
            }
        }
        Ok(())
    }

    fn push_bytes(&mut self, bytes: &[u8]) -> Result<(), StreamError> {
        if self.line.len() + bytes.len() + self.data.len() > self.max_event {
            return Err(StreamError::EventTooLarge {
                limit: self.max_event,
            });
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<String>) -> Result<(), StreamError> {
        if line.is_empty() {
            let data = std::mem::take(&mut self.data);
            let event = self.event.take();
            let has_data = std::mem::replace(&mut self.has_data, false);
            if has_data && !data.is_empty() && event.as_deref().is_none_or(|e| e == "message") {
                out.push(data);
            }
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        let line = std::str::from_utf8(line).map_err(|_| StreamError::InvalidMessage {
            reason: "an event line is not UTF-8".into(),
        })?;
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_owned()),
            // An id with NUL is ignored, as the SSE specification says.
            "id" if !value.contains('\0') => self.last_event_id = Some(value.to_owned()),
            "retry" => {
                if let Ok(ms) = value.parse::<u64>() {
                    self.retry = Some(Duration::from_millis(ms));
                }
            }
            _ => {} // unknown fields
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(chunks: &[&[u8]]) -> Vec<String> {
        let mut p = SseParser::new(1 << 20);
        let mut out = Vec::new();
        for c in chunks {
            p.feed(c, &mut out).unwrap();
        }
        out
    }

    #[test]
    fn reads_ts_framing_and_priming_events() {
        let body = b"id: s::1\nretry: 1000\ndata: \n\nevent: message\nid: s::2\ndata: {\"a\":1}\n\n: keepalive\n\ndata: {\"b\":2}\n\nevent: other\ndata: x\n\n";
        assert_eq!(parse(&[body]), ["{\"a\":1}", "{\"b\":2}"]);
    }

    #[test]
    fn handles_split_chunks_and_line_endings() {
        assert_eq!(
            parse(&[b"data: {\"a\"", b":1}\r", b"\n\r\n", b"data:x\rdata:y\r\r"]),
            ["{\"a\":1}", "x\ny"]
        );
        // An event left incomplete at the end of the stream is not dispatched.
        assert!(parse(&[b"data: {}\n"]).is_empty());
    }

    #[test]
    fn remembers_the_last_event_id_and_the_retry_delay() {
        let mut p = SseParser::new(1 << 20);
        let mut out = Vec::new();
        p.feed(
            b"id: e-1\nretry: 500\ndata: \n\nid: e-2\nretry: soon\ndata: {}\n\nid: a\0b\n",
            &mut out,
        )
        .unwrap();
        assert_eq!(p.last_event_id(), Some("e-2"));
        assert_eq!(p.retry(), Some(Duration::from_millis(500)));
        let next = p.resumed();
        assert_eq!(next.last_event_id(), Some("e-2"));
        assert_eq!(next.retry(), Some(Duration::from_millis(500)));
    }

    #[test]
    fn bounds_events() {
        let mut p = SseParser::new(8);
        let mut out = Vec::new();
        assert!(matches!(
            p.feed(b"data: 0123456789\n\n", &mut out),
            Err(StreamError::EventTooLarge { limit: 8 })
        ));
        let mut p = SseParser::new(12);
        assert!(p.feed(b"data: 1234\n", &mut out).is_ok());
        assert!(p.feed(b"data: 5678\n", &mut out).is_err());
    }
}
