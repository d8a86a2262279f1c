//! An incremental, bounded `text/event-stream` parser that yields the data of message
//! events (events named `message` or unnamed; empty data, comments and other event names
//! are skipped).

use super::StreamError;

/// Parses SSE bytes as they arrive.
#[derive(Debug)]
pub(crate) struct SseParser {
    line: Vec<u8>,
    data: String,
    has_data: bool,
    event: Option<String>,
    skip_lf: bool,
    max_event: usize,
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
        }
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
            _ => {} // `id`, `retry` and unknown fields
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
