//! Newline-delimited framing with a size cap: lines are split on `\n` (one trailing `\r`
//! stripped), a line longer than the cap is skipped without being kept in memory, and a
//! last line without a newline at end of input is still a frame.

use std::io;

use tokio::io::{AsyncRead, AsyncReadExt as _};
use tokio::sync::mpsc;

/// Bytes read per read call.
const CHUNK: usize = 64 * 1024;

/// Where the bytes come from.
pub(crate) enum Source {
    /// Any async reader (tests, pipes, sockets).
    Async(Box<dyn AsyncRead + Send + Unpin>),
    /// Chunks read by a dedicated thread (the process's stdin: a blocking read there can
    /// never hold up the runtime's shutdown).
    Thread(mpsc::Receiver<io::Result<Vec<u8>>>),
}

/// One frame read from the peer.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Frame {
    /// A line, without its `\n` (and `\r`).
    Line(Vec<u8>),
    /// A line longer than the cap (`len` bytes were read before it ended); its bytes were
    /// discarded.
    TooLong {
        /// How many bytes the line had.
        len: usize,
    },
}

/// Reads frames from a [`Source`].
pub(crate) struct FrameReader {
    source: Source,
    max: usize,
    buf: Vec<u8>,
    /// Start of unread data in `buf`.
    pos: usize,
    eof: bool,
}

impl FrameReader {
    /// A reader whose frames are at most `max` bytes (without the line ending).
    pub(crate) fn new(source: Source, max: usize) -> Self {
        Self {
            source,
            max,
            buf: Vec::with_capacity(CHUNK),
            pos: 0,
            eof: false,
        }
    }

    /// Reads more bytes into `buf`; `false` at end of input.
    async fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        let n = match &mut self.source {
            Source::Async(r) => {
                let start = self.buf.len();
                self.buf.resize(start + CHUNK, 0);
                let n = r.read(&mut self.buf[start..]).await;
                self.buf.truncate(start + *n.as_ref().unwrap_or(&0));
                n?
            }
            Source::Thread(rx) => match rx.recv().await {
                Some(chunk) => {
                    let chunk = chunk?;
                    self.buf.extend_from_slice(&chunk);
                    chunk.len()
                }
                None => 0,
            },
        };
        if n == 0 {
            self.eof = true;
        }
        Ok(n > 0)
    }

    /// The next frame; `None` at end of input. Blank lines are skipped.
    pub(crate) async fn next(&mut self) -> io::Result<Option<Frame>> {
        loop {
            let Some(frame) = self.next_raw().await? else {
                return Ok(None);
            };
            match &frame {
                Frame::Line(l) if l.iter().all(u8::is_ascii_whitespace) => {}
                _ => return Ok(Some(frame)),
            }
        }
    }

    async fn next_raw(&mut self) -> io::Result<Option<Frame>> {
        // Bytes of the current line already dropped because it is too long.
        let mut dropped = 0usize;
        loop {
            let unread = &self.buf[self.pos..];
            if let Some(i) = unread.iter().position(|b| *b == b'\n') {
                let len = dropped + i;
                let frame = if dropped > 0 || i > self.max {
                    Frame::TooLong { len }
                } else {
                    let mut line = unread[..i].to_vec();
                    if line.last() == Some(&b'\r') {
                        line.pop();
                    }
                    Frame::Line(line)
                };
                self.pos += i + 1;
                return Ok(Some(frame));
            }
            if unread.len() > self.max {
                // Too long already: forget what was read, keep counting until the newline.
                dropped += unread.len();
                self.pos = self.buf.len();
            }
            if !self.fill().await? {
                let rest = &self.buf[self.pos..];
                if rest.is_empty() && dropped == 0 {
                    return Ok(None);
                }
                let len = dropped + rest.len();
                let frame = if dropped > 0 || rest.len() > self.max {
                    Frame::TooLong { len }
                } else {
                    let mut line = rest.to_vec();
                    if line.last() == Some(&b'\r') {
                        line.pop();
                    }
                    Frame::Line(line)
                };
                self.pos = self.buf.len();
                return Ok(Some(frame));
            }
        }
    }
}

/// Reads the process's stdin on a dedicated thread, in chunks, into a bounded channel.
pub(crate) fn stdin_thread() -> io::Result<Source> {
    let (tx, rx) = mpsc::channel(4);
    std::thread::Builder::new()
        .name("mcp-stdin".into())
        .spawn(move || {
            use std::io::Read as _;
            let mut stdin = std::io::stdin().lock();
            let mut buf = vec![0u8; CHUNK];
            loop {
                match stdin.read(&mut buf) {
                    Ok(0) => return,
                    Ok(n) => {
                        if tx.blocking_send(Ok(buf[..n].to_vec())).is_err() {
                            return;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        let _ = tx.blocking_send(Err(e));
                        return;
                    }
                }
            }
        })?;
    Ok(Source::Thread(rx))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames(input: &[u8], max: usize) -> Vec<Frame> {
        let reader = Box::new(std::io::Cursor::new(input.to_vec()));
        let mut r = FrameReader::new(Source::Async(reader), max);
        let mut out = Vec::new();
        while let Some(f) = r.next().await.unwrap() {
            out.push(f);
        }
        out
    }

    fn line(s: &str) -> Frame {
        Frame::Line(s.as_bytes().to_vec())
    }

    #[tokio::test]
    async fn splits_lines_strips_cr_and_keeps_a_last_line_without_newline() {
        assert_eq!(
            frames(b"a\r\nbb\n\n  \r\nccc", 10).await,
            vec![line("a"), line("bb"), line("ccc")]
        );
        assert_eq!(frames(b"", 10).await, vec![]);
    }

    #[tokio::test]
    async fn skips_overlong_lines_and_reads_on() {
        let mut input = vec![b'x'; 200_000];
        input.extend_from_slice(b"\nok\n");
        input.extend(vec![b'y'; 11]);
        assert_eq!(
            frames(&input, 10).await,
            vec![
                Frame::TooLong { len: 200_000 },
                line("ok"),
                Frame::TooLong { len: 11 }
            ]
        );
        // Exactly at the cap is fine.
        assert_eq!(frames(b"0123456789\n", 10).await, vec![line("0123456789")]);
    }

    #[tokio::test]
    async fn reads_from_a_thread_source() {
        let (tx, rx) = mpsc::channel(4);
        tx.send(Ok(b"ab".to_vec())).await.unwrap();
        tx.send(Ok(b"c\nd".to_vec())).await.unwrap();
        drop(tx);
        let mut r = FrameReader::new(Source::Thread(rx), 100);
        assert_eq!(r.next().await.unwrap(), Some(line("abc")));
        assert_eq!(r.next().await.unwrap(), Some(line("d")));
        assert_eq!(r.next().await.unwrap(), None);
    }
}
