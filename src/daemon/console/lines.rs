//! Reading a console's lines: at most [`MAX_LINE`] bytes each, UTF-8; a longer line or binary
//! garbage is consumed to its end and refused without harm, a half line at the end of the stream
//! is a line.

use tokio::io::{AsyncBufReadExt, BufReader};

use tactus_core::console::MAX_LINE;

/// A line that is refused before it is read as a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BadLine {
    TooLong,
    NotText,
}

/// Reads lines of at most [`MAX_LINE`] bytes. Cancel-safe: the partial line lives here, not in
/// the future, so a broadcast written between two reads loses nothing of a line still arriving.
pub(super) struct LineReader {
    reader: BufReader<tokio::net::unix::OwnedReadHalf>,
    buf: Vec<u8>,
    too_long: bool,
}

impl LineReader {
    pub(super) fn new(read: tokio::net::unix::OwnedReadHalf) -> LineReader {
        LineReader {
            reader: BufReader::new(read),
            buf: Vec::new(),
            too_long: false,
        }
    }

    /// The next line. `Ok(None)` at the end of the stream; an over-long line is consumed to its
    /// end and reported as `Err(BadLine::TooLong)`, one that is not UTF-8 as
    /// `Err(BadLine::NotText)`. A half line at the end of the stream is a line.
    pub(super) async fn next(&mut self) -> std::io::Result<Option<Result<String, BadLine>>> {
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                if self.buf.is_empty() && !self.too_long {
                    return Ok(None);
                }
                return Ok(Some(self.take()));
            }
            let (chunk, found) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], Some(i + 1)),
                None => (available, None),
            };
            if !self.too_long {
                if self.buf.len() + chunk.len() > MAX_LINE {
                    self.too_long = true;
                    self.buf.clear();
                } else {
                    self.buf.extend_from_slice(chunk);
                }
            }
            let used = found.unwrap_or(available.len());
            self.reader.consume(used);
            if found.is_some() {
                return Ok(Some(self.take()));
            }
        }
    }

    fn take(&mut self) -> Result<String, BadLine> {
        let line = std::mem::take(&mut self.buf);
        if std::mem::replace(&mut self.too_long, false) {
            return Err(BadLine::TooLong);
        }
        String::from_utf8(line).map_err(|_| BadLine::NotText)
    }
}
