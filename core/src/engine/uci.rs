//! The Universal Chess Interface as text: the lines an engine writes, read into values, and the
//! commands tactus sends, written as lines. Bytes in, values out; nothing here waits or spawns.
//!
//! Only what a training game needs is read closely (`id`, `option`, `uciok`, `readyok`, `info`
//! with its depth, score and principal variation, `bestmove` with or without `ponder`); any other
//! line is kept as [`Message::Other`] so that nothing an engine says is lost from the log. The
//! protocol is whitespace-separated tokens; engines differ in spacing and line ends (`\r\n` on
//! Windows builds), so both are tolerated.

/// A line longer than this is cut: an engine printing without end must not grow tactus's memory.
pub const MAX_LINE: usize = 64 * 1024;

/// A score as the engine gives it: from the point of view of the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// Centipawns (100 is about a pawn).
    Cp(i32),
    /// Mate in this many moves (the engine's moves, not half-moves); negative: the side to move
    /// is mated. `Mate(0)`: the side to move is mated now.
    Mate(i32),
}

/// `lowerbound` or `upperbound` after a score: the score is only a bound, not the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    Lower,
    Upper,
}

/// An `info` line: what is worth keeping of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Info {
    pub depth: Option<u32>,
    pub multipv: Option<u32>,
    pub score: Option<Score>,
    pub bound: Option<Bound>,
    pub nodes: Option<u64>,
    /// The principal variation, as UCI move strings.
    pub pv: Vec<String>,
    /// `info string ...`: free text (Stockfish says which network it loaded).
    pub string: Option<String>,
}

/// One `option name ... type ...` line of the handshake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineOption {
    pub name: String,
    /// `check`, `spin`, `combo`, `button`, `string`.
    pub kind: String,
    pub default: Option<String>,
    pub min: Option<i64>,
    pub max: Option<i64>,
}

/// A line an engine wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// `id name ...` / `id author ...`.
    Id {
        key: String,
        value: String,
    },
    Option(EngineOption),
    UciOk,
    ReadyOk,
    Info(Info),
    /// `bestmove e2e4 [ponder e7e5]`; `best` is `None` for `bestmove (none)` or `0000` (no
    /// legal move: the side to move is mated or stalemated).
    BestMove {
        best: Option<String>,
        ponder: Option<String>,
    },
    /// Anything else (a banner, a line of a protocol extension), kept for the log.
    Other(String),
}

/// Read one line (without its line end).
pub fn parse_line(line: &str) -> Message {
    let mut tokens = line.split_whitespace();
    match tokens.next() {
        Some("uciok") => Message::UciOk,
        Some("readyok") => Message::ReadyOk,
        Some("id") => match tokens.next() {
            Some(key) => Message::Id {
                key: key.to_string(),
                value: tokens.collect::<Vec<_>>().join(" "),
            },
            None => Message::Other(line.to_string()),
        },
        Some("bestmove") => {
            let best = tokens.next().filter(|m| !matches!(*m, "(none)" | "0000"));
            let ponder = match tokens.next() {
                Some("ponder") => tokens.next().filter(|m| !matches!(*m, "(none)" | "0000")),
                _ => None,
            };
            Message::BestMove {
                best: best.map(str::to_string),
                ponder: ponder.map(str::to_string),
            }
        }
        Some("info") => Message::Info(parse_info(tokens)),
        Some("option") => match parse_option(tokens) {
            Some(option) => Message::Option(option),
            None => Message::Other(line.to_string()),
        },
        _ => Message::Other(line.to_string()),
    }
}

fn parse_info<'a>(mut tokens: impl Iterator<Item = &'a str>) -> Info {
    let mut info = Info::default();
    while let Some(token) = tokens.next() {
        match token {
            "depth" => info.depth = tokens.next().and_then(|t| t.parse().ok()),
            "multipv" => info.multipv = tokens.next().and_then(|t| t.parse().ok()),
            "nodes" => info.nodes = tokens.next().and_then(|t| t.parse().ok()),
            "score" => {
                info.score = match (tokens.next(), tokens.next().and_then(|t| t.parse().ok())) {
                    (Some("cp"), Some(v)) => Some(Score::Cp(v)),
                    (Some("mate"), Some(v)) => Some(Score::Mate(v)),
                    _ => None,
                }
            }
            "lowerbound" => info.bound = Some(Bound::Lower),
            "upperbound" => info.bound = Some(Bound::Upper),
            // The rest of the line is the variation (or the text): nothing follows it.
            "pv" => {
                info.pv = tokens.by_ref().map(str::to_string).collect();
            }
            "string" => {
                info.string = Some(tokens.by_ref().collect::<Vec<_>>().join(" "));
            }
            _ => {}
        }
    }
    info
}

fn parse_option<'a>(tokens: impl Iterator<Item = &'a str>) -> Option<EngineOption> {
    // Names and defaults may hold spaces ("Skill Level"): gather words up to the next keyword.
    const KEYWORDS: &[&str] = &["name", "type", "default", "min", "max", "var"];
    let mut fields: Vec<(&str, Vec<&str>)> = Vec::new();
    for token in tokens {
        if KEYWORDS.contains(&token) {
            fields.push((token, Vec::new()));
        } else if let Some((_, words)) = fields.last_mut() {
            words.push(token);
        }
    }
    let field = |key: &str| {
        fields
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, words)| words.join(" "))
    };
    Some(EngineOption {
        name: field("name").filter(|n| !n.is_empty())?,
        kind: field("type").unwrap_or_default(),
        default: field("default"),
        min: field("min").and_then(|v| v.parse().ok()),
        max: field("max").and_then(|v| v.parse().ok()),
    })
}

/// Cuts a byte stream into lines. An engine writes in chunks that end anywhere; a line is
/// complete at `\n` (a `\r` before it is dropped). Bytes that are not UTF-8 are replaced, not
/// refused: one stray byte must not cost the game its opponent.
#[derive(Debug, Default)]
pub struct LineDecoder {
    partial: Vec<u8>,
    /// The current line was longer than [`MAX_LINE`]: its rest is skipped.
    overlong: bool,
}

impl LineDecoder {
    pub fn new() -> LineDecoder {
        LineDecoder::default()
    }

    /// The lines completed by `bytes`.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<String> {
        let mut lines = Vec::new();
        for &b in bytes {
            if b == b'\n' {
                let mut line = std::mem::take(&mut self.partial);
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                self.overlong = false;
                lines.push(String::from_utf8_lossy(&line).into_owned());
            } else if self.partial.len() < MAX_LINE {
                self.partial.push(b);
            } else if !self.overlong {
                // Kept up to the cap; the line still ends at its newline.
                self.overlong = true;
            }
        }
        lines
    }
}

/// How long the engine may search for one move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// `go movetime N`: about N milliseconds.
    MoveTime(u64),
    /// `go nodes N`: this many positions searched.
    Nodes(u64),
    /// `go depth N`.
    Depth(u32),
}

/// A command to the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Uci,
    SetOption {
        name: String,
        value: String,
    },
    IsReady,
    NewGame,
    /// `position fen <fen> moves ...` (`startpos` when `fen` is `None`).
    Position {
        fen: Option<String>,
        moves: Vec<String>,
    },
    Go(Limit),
    Stop,
    Quit,
}

impl Command {
    /// The line to write, with its `\n`.
    pub fn line(&self) -> String {
        let mut s = match self {
            Command::Uci => "uci".to_string(),
            Command::SetOption { name, value } => format!("setoption name {name} value {value}"),
            Command::IsReady => "isready".to_string(),
            Command::NewGame => "ucinewgame".to_string(),
            Command::Position { fen, moves } => {
                let mut s = match fen {
                    Some(fen) => format!("position fen {fen}"),
                    None => "position startpos".to_string(),
                };
                if !moves.is_empty() {
                    s.push_str(" moves ");
                    s.push_str(&moves.join(" "));
                }
                s
            }
            Command::Go(Limit::MoveTime(ms)) => format!("go movetime {ms}"),
            Command::Go(Limit::Nodes(n)) => format!("go nodes {n}"),
            Command::Go(Limit::Depth(d)) => format!("go depth {d}"),
            Command::Stop => "stop".to_string(),
            Command::Quit => "quit".to_string(),
        };
        s.push('\n');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bestmove_with_and_without_ponder() {
        assert_eq!(
            parse_line("bestmove a2a3 ponder b8c6"),
            Message::BestMove {
                best: Some("a2a3".into()),
                ponder: Some("b8c6".into())
            }
        );
        assert_eq!(
            parse_line("bestmove a1a8"),
            Message::BestMove {
                best: Some("a1a8".into()),
                ponder: None
            }
        );
        assert_eq!(
            parse_line("bestmove (none)"),
            Message::BestMove {
                best: None,
                ponder: None
            }
        );
        assert_eq!(
            parse_line("bestmove 0000"),
            Message::BestMove {
                best: None,
                ponder: None
            }
        );
    }

    #[test]
    fn info_scores_bounds_and_variation() {
        let Message::Info(info) = parse_line(
            "info depth 12 seldepth 16 multipv 1 score cp -37 upperbound nodes 147645 nps \
             488890 pv g1f3 b8c6",
        ) else {
            panic!("not an info line");
        };
        assert_eq!(info.depth, Some(12));
        assert_eq!(info.score, Some(Score::Cp(-37)));
        assert_eq!(info.bound, Some(Bound::Upper));
        assert_eq!(info.nodes, Some(147645));
        assert_eq!(info.pv, vec!["g1f3", "b8c6"]);
        let Message::Info(mate) = parse_line("info depth 0 score mate 0") else {
            panic!("not an info line");
        };
        assert_eq!(mate.score, Some(Score::Mate(0)));
    }

    #[test]
    fn option_names_with_spaces() {
        assert_eq!(
            parse_line("option name Skill Level type spin default 20 min 0 max 20"),
            Message::Option(EngineOption {
                name: "Skill Level".into(),
                kind: "spin".into(),
                default: Some("20".into()),
                min: Some(0),
                max: Some(20),
            })
        );
    }

    #[test]
    fn lines_cut_anywhere_and_crlf() {
        let mut d = LineDecoder::new();
        assert!(d.feed(b"uci").is_empty());
        assert_eq!(d.feed(b"ok\r\nreadyok\nbest"), vec!["uciok", "readyok"]);
        assert_eq!(d.feed(b"move e2e4\n"), vec!["bestmove e2e4"]);
        // A stray byte that is not UTF-8 does not lose the line.
        assert_eq!(d.feed(b"id name X\xff\n"), vec!["id name X\u{fffd}"]);
    }

    #[test]
    fn an_endless_line_is_capped() {
        let mut d = LineDecoder::new();
        let long = vec![b'x'; MAX_LINE * 3];
        assert!(d.feed(&long).is_empty());
        let lines = d.feed(b"\nreadyok\n");
        assert_eq!(lines[0].len(), MAX_LINE);
        assert_eq!(lines[1], "readyok");
    }

    #[test]
    fn commands_as_lines() {
        assert_eq!(
            Command::Position {
                fen: None,
                moves: vec!["e2e4".into(), "e7e5".into()]
            }
            .line(),
            "position startpos moves e2e4 e7e5\n"
        );
        assert_eq!(
            Command::SetOption {
                name: "Skill Level".into(),
                value: "3".into()
            }
            .line(),
            "setoption name Skill Level value 3\n"
        );
        assert_eq!(Command::Go(Limit::Nodes(500)).line(), "go nodes 500\n");
    }
}
