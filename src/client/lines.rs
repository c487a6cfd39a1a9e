//! The daemon's lines as the console client reads them: each with an optional deadline, at most
//! [`MAX_REPLY_LINE`] bytes, a partial line kept across a timeout, and a reply read up to its
//! end line.

use std::{
    io::{self, BufRead, BufReader},
    os::unix::net::UnixStream,
    time::Instant,
};

use tactus_core::console::wire::{self, WireLine};

/// Longest line read from the daemon; the rest of a longer one is dropped. Far beyond any reply
/// line, it only guards the client against a runaway peer.
pub(super) const MAX_REPLY_LINE: usize = 64 * 1024;

/// Lines from the daemon, read with an optional deadline, at most [`MAX_REPLY_LINE`] bytes
/// each. A partial line survives a timeout (it stays in `line`).
pub(super) struct Lines {
    reader: BufReader<UnixStream>,
    line: Vec<u8>,
    too_long: bool,
    /// Whether the last `None` was a timeout rather than the end of the stream.
    pub(super) timed_out: bool,
}

impl Lines {
    pub(super) fn new(stream: UnixStream) -> Lines {
        Lines {
            reader: BufReader::new(stream),
            line: Vec::new(),
            too_long: false,
            timed_out: false,
        }
    }

    /// The next line (without its end), `None` at the end of the stream or at the deadline
    /// (see `timed_out`).
    pub(super) fn next_line(&mut self, deadline: Option<Instant>) -> io::Result<Option<String>> {
        self.timed_out = false;
        loop {
            if let Some(deadline) = deadline {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    self.timed_out = true;
                    return Ok(None);
                }
                self.reader.get_ref().set_read_timeout(Some(left))?;
            }
            let available = match self.reader.fill_buf() {
                Ok(bytes) => bytes,
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    self.timed_out = true;
                    return Ok(None);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                // The end of the stream: a last line without its line end still counts.
                if self.line.is_empty() && !self.too_long {
                    return Ok(None);
                }
                return Ok(Some(self.take()));
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let chunk = &available[..newline.unwrap_or(available.len())];
            let room = MAX_REPLY_LINE.saturating_sub(self.line.len());
            if chunk.len() > room {
                self.too_long = true;
            }
            self.line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            let used = newline.map_or(available.len(), |i| i + 1);
            self.reader.consume(used);
            if newline.is_some() {
                return Ok(Some(self.take()));
            }
        }
    }

    fn take(&mut self) -> String {
        let mut text = String::from_utf8_lossy(&std::mem::take(&mut self.line)).into_owned();
        if std::mem::take(&mut self.too_long) {
            text.push_str(" ...");
        }
        if text.ends_with('\r') {
            text.pop();
        }
        text
    }

    /// Read up to the end line of a reply, handing each body line to `body`. `Some(Ok(summary))`
    /// or `Some(Err(reason))` for the end line, `None` at the end of the stream or the deadline.
    pub(super) fn reply_end(
        &mut self,
        deadline: Instant,
        body: &mut dyn FnMut(&str) -> io::Result<()>,
    ) -> io::Result<Option<Result<String, String>>> {
        while let Some(line) = self.next_line(Some(deadline))? {
            match wire::classify(&line) {
                WireLine::Body(text) => body(text)?,
                WireLine::Ok(summary) => return Ok(Some(Ok(summary.to_string()))),
                WireLine::Error(reason) => return Ok(Some(Err(reason.to_string()))),
                WireLine::Event(_) => {}
            }
        }
        Ok(None)
    }
}
