//! The console socket's line protocol, usable by hand (`socat - UNIX-CONNECT:tactus.sock`) as
//! well as by `tactus console`.
//!
//! ```text
//! client -> daemon   one command per line: UTF-8, ended by LF (CR LF accepted), at most
//!                    4096 bytes (MAX_LINE); a longer line is refused as a whole.
//! daemon -> client   for each command, in order: its reply, which is
//!                      zero or more body lines, then exactly one end line:
//!                        ok            done
//!                        ok TEXT       done, with a short summary (`ok role arbiter`, `ok bye`)
//!                        error: TEXT   refused, nothing was done; TEXT says why and what to type
//!                    and, at any time between two replies, event lines:
//!                        # TEXT        what happens in the game (announcements, notes), for a
//!                                      console that watches; never part of a reply
//! ```
//!
//! Every line that is not an end line or an event is a body line. A body line whose text, leading
//! spaces aside, would read as one of those (`ok`, `error: ...`, `# ...`) is sent with one more
//! leading space, which [`classify`] takes off again; [`Reply::encode`] does it, so the daemon cannot get it wrong.
//! `quit` is answered `ok bye`, then the daemon closes the connection. On connecting, the daemon
//! may greet with event lines.
//!
//! Why end lines rather than counting lines or a lone `.`: a person typing at socat sees at once
//! whether a command worked, and a script waits for the one line that starts with `ok` or
//! `error:`. Pure: encoding and classifying only; the sockets are the daemon's and the
//! client's.

/// The end line of a command that was carried out.
pub const OK: &str = "ok";
/// The start of the end line of a command that was refused.
pub const ERROR: &str = "error:";
/// The start of an event line.
pub const EVENT: &str = "#";

/// What a line from the daemon is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireLine<'a> {
    /// Part of the reply in progress.
    Body(&'a str),
    /// The reply ends: done, with a summary (possibly empty).
    Ok(&'a str),
    /// The reply ends: refused, with the reason.
    Error(&'a str),
    /// Something that happened in the game, outside any reply.
    Event(&'a str),
}

impl WireLine<'_> {
    /// Whether this line ends a reply.
    pub fn ends_reply(&self) -> bool {
        matches!(self, WireLine::Ok(_) | WireLine::Error(_))
    }
}

/// What a line (without its line end) from the daemon is.
pub fn classify(line: &str) -> WireLine<'_> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if let Some(kind) = special(line) {
        return kind;
    }
    // An escaped body line: one space added before text that, without its leading spaces,
    // would read as special.
    if let Some(rest) = line.strip_prefix(' ')
        && looks_special(rest)
    {
        return WireLine::Body(rest);
    }
    WireLine::Body(line)
}

/// Whether a body line must be escaped: without its leading spaces it reads as special (the
/// spaces count too, or an escaped line could not be told from one that began with a space).
fn looks_special(line: &str) -> bool {
    special(line.trim_start_matches(' ')).is_some()
}

fn special(line: &str) -> Option<WireLine<'_>> {
    if line == OK {
        Some(WireLine::Ok(""))
    } else if let Some(summary) = line.strip_prefix("ok ") {
        Some(WireLine::Ok(summary.trim()))
    } else if let Some(reason) = line.strip_prefix(ERROR) {
        Some(WireLine::Error(reason.trim()))
    } else {
        line.strip_prefix(EVENT)
            .map(|text| WireLine::Event(text.trim_start()))
    }
}

/// How a reply ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// Done, with a summary (empty: a bare `ok`).
    Ok(String),
    /// Refused: nothing was done.
    Error(String),
}

/// A reply to one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub body: Vec<String>,
    pub end: End,
}

impl Reply {
    pub fn ok(body: Vec<String>) -> Reply {
        Reply {
            body,
            end: End::Ok(String::new()),
        }
    }

    pub fn error(message: impl Into<String>) -> Reply {
        Reply {
            body: Vec::new(),
            end: End::Error(message.into()),
        }
    }

    /// The bytes to send: every body line (escaped where needed, split at line breaks), then
    /// the end line, each ended by LF.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        for text in &self.body {
            for line in text.lines() {
                if looks_special(line) {
                    out.push(' ');
                }
                out.push_str(line);
                out.push('\n');
            }
        }
        match &self.end {
            End::Ok(summary) if one_line(summary).is_empty() => out.push_str(OK),
            End::Ok(summary) => {
                out.push_str("ok ");
                out.push_str(&one_line(summary));
            }
            End::Error(reason) => {
                out.push_str("error: ");
                out.push_str(&one_line(reason));
            }
        }
        out.push('\n');
        out
    }
}

/// An event line, LF included; line breaks in `text` become spaces.
pub fn encode_event(text: &str) -> String {
    format!("{EVENT} {}\n", one_line(text))
}

/// `text` on one line.
fn one_line(text: &str) -> String {
    text.split(['\n', '\r'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_classified_by_their_start() {
        assert_eq!(classify("ok"), WireLine::Ok(""));
        assert_eq!(classify("ok\r"), WireLine::Ok(""));
        assert_eq!(classify("ok role arbiter"), WireLine::Ok("role arbiter"));
        assert_eq!(
            classify("error: unknown command 'x'"),
            WireLine::Error("unknown command 'x'")
        );
        assert_eq!(classify("# Black: Nf6"), WireLine::Event("Black: Nf6"));
        assert_eq!(classify("okay then"), WireLine::Body("okay then"));
        assert_eq!(classify("White to move"), WireLine::Body("White to move"));
        assert_eq!(classify(""), WireLine::Body(""));
        assert!(classify("ok").ends_reply() && classify("error: x").ends_reply());
        assert!(!classify("# x").ends_reply() && !classify("x").ends_reply());
    }

    #[test]
    fn replies_escape_body_lines_that_look_special() {
        let reply = Reply::ok(vec![
            "White to move".into(),
            "ok".into(),
            "# not an event".into(),
            "error: not the end".into(),
            " ok".into(),
            "two\nlines".into(),
        ]);
        let text = reply.encode();
        let lines: Vec<WireLine> = text.lines().map(classify).collect();
        assert_eq!(
            lines,
            vec![
                WireLine::Body("White to move"),
                WireLine::Body("ok"),
                WireLine::Body("# not an event"),
                WireLine::Body("error: not the end"),
                WireLine::Body(" ok"),
                WireLine::Body("two"),
                WireLine::Body("lines"),
                WireLine::Ok(""),
            ]
        );
        assert!(text.ends_with("\nok\n"));
    }

    #[test]
    fn end_and_event_lines_stay_on_one_line() {
        let e = Reply::error("first\nsecond").encode();
        assert_eq!(e, "error: first second\n");
        let ok = Reply {
            body: vec![],
            end: End::Ok("role arbiter".into()),
        };
        assert_eq!(ok.encode(), "ok role arbiter\n");
        assert_eq!(encode_event("a\r\nb"), "# a b\n");
    }
}
