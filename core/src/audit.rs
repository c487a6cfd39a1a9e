//! `tactus audit`: an arbiter's check of recorded games against the Laws.
//!
//! For each game of a PGN file this module replays the moves and reports whether they are all
//! legal, every ply at which the player having the move could have claimed a draw under 9.2 or
//! 9.3, where the game ended on the board (mate, stalemate, dead position), and what a flag fall of
//! either side would have meant in the final position (6.9). It is pure: bytes in, a report out;
//! the command line reads the file and prints.

use serde::Serialize;
use serde_json::json;
use shakmaty::{Chess, Color, KnownOutcome, Move, Position, san::SanPlus};

use crate::rules::{
    dead::{self, Mateability, Query},
    game::{DrawClaim, History, available_claims},
    pgn::{self, PgnError, PgnGame},
};

/// How hard to look for dead positions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AuditOptions {
    /// Run the complete helpmate search at every ply, not only the cheap test (slower, finds dead
    /// positions behind locked pawn walls that the cheap test cannot prove). The final position
    /// always gets the complete search.
    pub thorough: bool,
}

/// One claim the player having the move could have made correctly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClaimOpportunity {
    /// Half-moves played when the claim was available.
    pub ply: usize,
    pub article: &'static str,
    pub side: &'static str,
    /// The intended move of the "a" forms, in SAN.
    #[serde(rename = "move")]
    pub mv: Option<String>,
    /// The intended move as written on a scoresheet, with its number ("26...Rbb8").
    #[serde(skip)]
    pub written: Option<String>,
}

/// How the game ended on the board, by the Laws, whatever the recorded result says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EndKind {
    Checkmate,
    Stalemate,
    Dead,
    None,
}

/// The audit of one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameAudit {
    /// 1-based index of the game in the file.
    pub game: usize,
    pub white: String,
    pub black: String,
    /// The `Result` tag.
    pub result: Option<String>,
    /// Legal half-moves replayed.
    pub plies: usize,
    pub legal: bool,
    pub illegal_ply: Option<usize>,
    pub illegal_move: Option<String>,
    /// Why the game could not be read in full, for people.
    pub error: Option<String>,
    /// This stretch of the file is no game at all, only text that is not PGN (`error` says
    /// where); a file of nothing else holds no game.
    pub no_game: bool,
    pub claims: Vec<ClaimOpportunity>,
    pub end: EndKind,
    /// The ply at which the game ended on the board (None with [`EndKind::None`]).
    pub end_ply: Option<usize>,
    /// The result the Laws give if White's (resp. Black's) flag fell in the final position; None
    /// when the search could not decide.
    pub flag_white: Option<String>,
    pub flag_black: Option<String>,
}

/// Audit every game of a PGN file.
pub fn audit_pgn(bytes: &[u8], options: AuditOptions) -> Vec<GameAudit> {
    pgn::read_pgn_each(bytes)
        .into_iter()
        .enumerate()
        .map(|(i, game)| audit_game(i + 1, game, options))
        .collect()
}

/// Audit one game as read from a file (or the error that stopped its reading).
pub fn audit_game(
    index: usize,
    read: Result<PgnGame, PgnError>,
    options: AuditOptions,
) -> GameAudit {
    match read {
        Ok(game) => {
            let audit = Replay::new(game.start.clone(), &game.moves, options).run();
            GameAudit {
                game: game.index,
                white: game.white().to_string(),
                black: game.black().to_string(),
                result: game.tag("Result").map(str::to_string),
                plies: game.moves.len(),
                legal: true,
                illegal_ply: None,
                illegal_move: None,
                error: None,
                no_game: false,
                ..audit
            }
        }
        Err(err) => {
            let prefix = err.legal_prefix().to_vec();
            let start = err.start().cloned().unwrap_or_default();
            let audit = Replay::new(start, &prefix, options).run();
            GameAudit {
                game: if err.game == 0 { index } else { err.game },
                white: err.white.clone(),
                black: err.black.clone(),
                result: None,
                plies: prefix.len(),
                legal: false,
                illegal_ply: err.ply,
                illegal_move: err.san().map(str::to_string),
                // "game 1 (? - ?)" would name a game that is not there.
                error: Some(if err.is_not_a_game() {
                    err.kind.to_string()
                } else {
                    err.to_string()
                }),
                no_game: err.is_not_a_game(),
                ..audit
            }
        }
    }
}

struct Replay<'a> {
    start: Chess,
    moves: &'a [Move],
    options: AuditOptions,
}

impl<'a> Replay<'a> {
    fn new(start: Chess, moves: &'a [Move], options: AuditOptions) -> Self {
        Replay {
            start,
            moves,
            options,
        }
    }

    /// The claims, end and flag results of a legal sequence of moves (the other fields are filled
    /// in by the caller).
    fn run(self) -> GameAudit {
        let mut pos = self.start.clone();
        let mut history = History::new(&pos);
        let mut claims = Vec::new();
        let mut end = (EndKind::None, None);
        for ply in 0..=self.moves.len() {
            if let Some(kind) = self.ended(&pos) {
                end = (kind, Some(ply));
                break;
            }
            for claim in available_claims(&pos, &history) {
                claims.push(opportunity(&pos, ply, claim));
            }
            let Some(&m) = self.moves.get(ply) else { break };
            pos.play_unchecked(m);
            history.push(&pos);
        }
        // The final position: the complete search may still prove it dead.
        if end.0 == EndKind::None && dead::is_dead(&pos) == Some(true) {
            end = (EndKind::Dead, Some(self.moves.len()));
        }
        let flag = |side: Color| -> Option<String> {
            let outcome = match end.0 {
                EndKind::Checkmate => KnownOutcome::Decisive {
                    winner: pos.turn().other(),
                },
                EndKind::Stalemate | EndKind::Dead => KnownOutcome::Draw,
                EndKind::None => match dead::solve(&Query {
                    position: pos.clone(),
                    side: side.other(),
                }) {
                    Mateability::CanMate => KnownOutcome::Decisive {
                        winner: side.other(),
                    },
                    Mateability::CannotMate => KnownOutcome::Draw,
                    Mateability::Undecided => return None,
                },
            };
            Some(outcome.to_string())
        };
        GameAudit {
            game: 0,
            white: String::new(),
            black: String::new(),
            result: None,
            plies: self.moves.len(),
            legal: true,
            illegal_ply: None,
            illegal_move: None,
            error: None,
            no_game: false,
            claims,
            end: end.0,
            end_ply: end.1,
            flag_white: flag(Color::White),
            flag_black: flag(Color::Black),
        }
    }

    fn ended(&self, pos: &Chess) -> Option<EndKind> {
        if pos.is_checkmate() {
            Some(EndKind::Checkmate)
        } else if pos.is_stalemate() {
            Some(EndKind::Stalemate)
        } else if dead::is_dead_quick(pos)
            || (self.options.thorough && dead::is_dead(pos) == Some(true))
        {
            Some(EndKind::Dead)
        } else {
            None
        }
    }
}

fn side_name(side: Color) -> &'static str {
    match side {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn opportunity(pos: &Chess, ply: usize, claim: DrawClaim) -> ClaimOpportunity {
    let mv = match claim {
        DrawClaim::Repetition { intended } | DrawClaim::FiftyMoves { intended } => {
            intended.map(|m| SanPlus::from_move(pos.clone(), m).to_string())
        }
    };
    let number = pos.fullmoves();
    let written = mv.as_ref().map(|san| match pos.turn() {
        Color::White => format!("{number}.{san}"),
        Color::Black => format!("{number}...{san}"),
    });
    ClaimOpportunity {
        ply,
        article: claim.article().as_str(),
        side: side_name(pos.turn()),
        mv,
        written,
    }
}

impl GameAudit {
    /// One JSON object (the `--json` line). Field meanings are documented in the README.
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "game": self.game,
            "white": self.white,
            "black": self.black,
            "result": self.result,
            "plies": self.plies,
            "legal": self.legal,
            "illegal_ply": self.illegal_ply,
            "illegal_move": self.illegal_move,
            "error": self.error,
            "claims": self.claims,
            "end": { "kind": self.end, "ply": self.end_ply },
            "flag": { "white": self.flag_white, "black": self.flag_black },
        })
    }

    /// A few lines for people.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "Game {}: {} - {} ({}), {} plies\n",
            self.game,
            self.white,
            self.black,
            self.result.as_deref().unwrap_or("no result"),
            self.plies
        );
        match (&self.error, self.legal) {
            (_, true) => out.push_str("  moves: all legal\n"),
            (Some(e), false) => out.push_str(&format!("  moves: NOT all legal: {e}\n")),
            (None, false) => out.push_str("  moves: NOT all legal\n"),
        }
        if self.claims.is_empty() {
            out.push_str("  draw claims (9.2, 9.3): none available\n");
        } else {
            out.push_str("  draw claims available to the player having the move:\n");
            for c in &self.claims {
                let how = match &c.written {
                    Some(m) => format!("by writing {m}"),
                    None => "on the position on the board".to_string(),
                };
                out.push_str(&format!(
                    "    after ply {}: {} may claim under {} {}\n",
                    c.ply, c.side, c.article, how
                ));
            }
        }
        match (self.end, self.end_ply) {
            (EndKind::None, _) | (_, None) => {
                out.push_str("  ended on the board: no (no mate, stalemate or dead position)\n")
            }
            (kind, Some(ply)) => {
                let what = match kind {
                    EndKind::Checkmate => "checkmate",
                    EndKind::Stalemate => "stalemate",
                    _ => "dead position (neither side can mate)",
                };
                out.push_str(&format!("  ended on the board: {what} after ply {ply}\n"));
            }
        }
        let show = |r: &Option<String>| {
            r.clone()
                .unwrap_or_else(|| "undecided (arbiter rules)".into())
        };
        out.push_str(&format!(
            "  if White's flag falls in the final position: {}\n",
            show(&self.flag_white)
        ));
        out.push_str(&format!(
            "  if Black's flag falls in the final position: {}\n",
            show(&self.flag_black)
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_fall_results_are_said_in_words_one_side_a_line() {
        let audits = audit_pgn(b"1. e4 e5 *\n", AuditOptions::default());
        let text = audits[0].to_text();
        assert!(
            text.contains(
                "  if White's flag falls in the final position: 0-1\n  \
                 if Black's flag falls in the final position: 1-0\n"
            ),
            "{text}"
        );
        assert!(!text.contains("->"), "{text}");
    }
}
