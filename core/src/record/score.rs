//! The game record every scoresheet renderer reads: tags, start position, moves with the mover's
//! clock and draw offers, the result and why.
//!
//! One model so that the Braille, text and PGN scoresheets of a game cannot disagree: it is built
//! from a PGN game ([`Score::from_pgn`]), from a game in play ([`Score::from_game`]) or from a
//! Braille score read back, and written as PGN by the rules module's writer. Pure; no I/O.

use shakmaty::{Chess, Color, Move, Position, san::SanPlus};

use crate::rules::{
    game::Game,
    pgn::{self, PgnGame},
};

/// One move of the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScoreMove {
    /// Legal in the position before it.
    pub mv: Move,
    /// The mover's remaining time right after the move, in milliseconds.
    pub clock_ms: Option<i64>,
    /// The mover offered a draw with this move (FIDE 9.1 b: `(=)` next to it).
    pub draw_offer: bool,
}

/// A game's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Score {
    /// PGN tags in order (Event, Site, Date, Round, White, Black, TimeControl, ...).
    pub tags: Vec<(String, String)>,
    pub start: Chess,
    pub moves: Vec<ScoreMove>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// The PGN `Termination` value to write (`normal`, `time forfeit`, ...), when known from the
    /// game itself; a `Termination` among `tags` is kept otherwise.
    pub termination: Option<String>,
    /// Why the game ended, for people ("draw by agreement", "checkmate"), when known.
    pub reason: Option<String>,
    /// Clock changes (the arbiter's, or a rule's), each after the number of half-moves played
    /// when it happened: PGN comments and lines of the printed scoresheet.
    pub notes: Vec<(usize, String)>,
}

/// A move of the record with its place in the game.
#[derive(Debug, Clone)]
pub struct Ply<'a> {
    /// 1 = the first move of the record.
    pub ply: usize,
    /// The PGN move number (`12` for both `12.` and `12...`).
    pub number: u32,
    pub side: Color,
    /// The position the move was played in.
    pub before: Chess,
    pub entry: &'a ScoreMove,
}

impl Score {
    /// An empty record from `start`, unfinished.
    pub fn new(start: Chess) -> Score {
        Score {
            tags: Vec::new(),
            start,
            moves: Vec::new(),
            result: "*".to_owned(),
            termination: None,
            reason: None,
            notes: Vec::new(),
        }
    }

    /// A game read from PGN: its tags, start, moves, clocks, draw offers and result. The reason is
    /// taken from the final position (checkmate, stalemate) or a `Termination` tag other than
    /// `normal`.
    pub fn from_pgn(game: &PgnGame) -> Score {
        let moves = (0..game.moves.len())
            .map(|i| ScoreMove {
                mv: game.moves[i],
                clock_ms: game.clocks.get(i).copied().flatten(),
                draw_offer: game.draw_offers.get(i).copied().unwrap_or(false),
            })
            .collect();
        let mut score = Score {
            tags: game.tags.clone(),
            start: game.start.clone(),
            moves,
            result: game
                .result
                .as_deref()
                .or(game.tag("Result"))
                .unwrap_or("*")
                .to_owned(),
            termination: None,
            reason: None,
            notes: Vec::new(),
        };
        let end = score.end_position();
        score.reason = if end.is_checkmate() {
            Some("checkmate".to_owned())
        } else if end.is_stalemate() {
            Some("stalemate".to_owned())
        } else {
            game.tag("Termination")
                .filter(|t| !t.eq_ignore_ascii_case("normal"))
                .map(str::to_owned)
        };
        score
    }

    /// The record of a game in play (or over), with `tags` (the event's and the players'), as
    /// [`Game::to_pgn`] writes it: the same moves, clocks, offers, result, `Termination` and
    /// `TimeControl` tag, plus the reason in words.
    pub fn from_game(game: &Game, tags: &[(String, String)]) -> Score {
        // After a position set up by the arbiter the moves no longer follow from the start;
        // `Game::to_pgn` knows where that is and writes the moves up to there. Reading its
        // output back gives exactly that count, without a second copy of the rule.
        let exported = pgn::read_pgn(game.to_pgn(&[]).as_bytes())
            .ok()
            .and_then(|games| games.first().map(|g| g.moves.len()))
            .unwrap_or(0);
        let moves = game.moves()[..exported.min(game.moves().len())]
            .iter()
            .enumerate()
            .map(|(i, r)| ScoreMove {
                mv: r.mv,
                clock_ms: r.clocks_after.as_ref().map(|c| *c.get(r.side)),
                draw_offer: game.offers().iter().any(|o| o.on_ply == i + 1),
            })
            .collect();
        let mut tags = tags.to_vec();
        if let Some(tc) = &game.config().time_control
            && !tags.iter().any(|(name, _)| name == "TimeControl")
        {
            tags.push(("TimeControl".to_owned(), tc.to_string()));
        }
        let end = game.end();
        Score {
            tags,
            start: game.start_position().clone(),
            moves,
            result: end.map_or_else(|| "*".to_owned(), |e| e.outcome.to_string()),
            termination: end.map(|e| e.reason.termination().to_owned()),
            reason: end.map(|e| e.reason.describe()),
            notes: game.clock_notes().to_vec(),
        }
    }

    /// The value of tag `name`, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The value of tag `name` unless absent or unknown (`?`, empty, or a date that is all `?`).
    pub fn known_tag(&self, name: &str) -> Option<&str> {
        self.tag(name)
            .map(str::trim)
            .filter(|v| !v.is_empty() && v.chars().any(|c| !matches!(c, '?' | '.')))
    }

    /// The moves with their numbers and the positions they were played in.
    pub fn plies(&self) -> impl Iterator<Item = Ply<'_>> + '_ {
        let mut pos = self.start.clone();
        self.moves.iter().enumerate().map(move |(i, entry)| {
            let before = pos.clone();
            pos.play_unchecked(entry.mv);
            Ply {
                ply: i + 1,
                number: before.fullmoves().get(),
                side: before.turn(),
                before,
                entry,
            }
        })
    }

    /// The move number and the mover of half-move `ply` (1 = the first move of the record).
    pub fn ply_name(&self, ply: usize) -> (u32, Color) {
        let half = ply.saturating_sub(1) + usize::from(self.start.turn() == Color::Black);
        let number = self.start.fullmoves().get() + u32::try_from(half / 2).unwrap_or(u32::MAX);
        let side = if half.is_multiple_of(2) {
            Color::White
        } else {
            Color::Black
        };
        (number, side)
    }

    /// The position after the last move.
    pub fn end_position(&self) -> Chess {
        let mut pos = self.start.clone();
        for m in &self.moves {
            pos.play_unchecked(m.mv);
        }
        pos
    }

    /// The SAN of every move (with `+` and `#`).
    pub fn sans(&self) -> Vec<String> {
        self.plies()
            .map(|p| SanPlus::from_move(p.before, p.entry.mv).to_string())
            .collect()
    }

    /// The record as PGN, by the rules module's writer: the Seven Tag Roster, `[%clk]` comments,
    /// `(=)` for draw offers, the `Termination` and the result.
    pub fn to_pgn(&self) -> String {
        let moves: Vec<pgn::ExportMove> = self
            .plies()
            .map(|p| pgn::ExportMove {
                san: SanPlus::from_move(p.before, p.entry.mv),
                clock_ms: p.entry.clock_ms,
                draw_offer: p.entry.draw_offer,
            })
            .collect();
        pgn::write_pgn(&pgn::Export {
            tags: &self.tags,
            start: Some(&self.start),
            moves: &moves,
            result: &self.result,
            termination: self.termination.as_deref(),
            notes: &self.notes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{
        Edition, PlayMode,
        game::{Input, RulesConfig},
        time_control::TimeControl,
    };
    use shakmaty::san::San;

    fn play(game: &mut Game, san: &str, at: u64) {
        let m = san
            .parse::<San>()
            .unwrap()
            .to_move(game.position())
            .unwrap();
        game.apply(Input::Move(m), at).unwrap();
    }

    #[test]
    fn from_game_matches_the_games_own_pgn() {
        let mut g = Game::new(RulesConfig {
            edition: Edition::Fide2001,
            play: PlayMode::Standard,
            time_control: Some("300+2".parse::<TimeControl>().unwrap()),
        });
        g.apply(Input::Start, 0).unwrap();
        play(&mut g, "e4", 3_000);
        g.apply(Input::OfferDraw { by: Color::White }, 3_500)
            .unwrap();
        play(&mut g, "e5", 9_000);
        g.apply(Input::Resign { by: Color::White }, 10_000).unwrap();
        let tags = vec![("White".to_owned(), "A".to_owned())];
        let score = Score::from_game(&g, &tags);
        assert_eq!(score.to_pgn(), g.to_pgn(&tags));
        assert_eq!(score.moves[0].clock_ms, Some(299_000));
        assert!(score.moves[0].draw_offer && !score.moves[1].draw_offer);
        assert_eq!(score.result, "0-1");
        assert_eq!(score.reason.as_deref(), Some("resignation"));
        assert_eq!(score.tag("TimeControl"), Some("300+2"));
    }

    #[test]
    fn from_pgn_keeps_offers_and_finds_the_reason() {
        let text = "[White \"W\"]\n[Date \"1979.??.??\"]\n[Round \"?\"]\n\n1. e4 { [%clk 0:05:00] (=) } f6 2. d4 g5 3. Qh5# 1-0\n";
        let game = pgn::read_pgn(text.as_bytes()).unwrap().remove(0);
        let score = Score::from_pgn(&game);
        assert_eq!(score.sans(), ["e4", "f6", "d4", "g5", "Qh5#"]);
        assert!(score.moves[0].draw_offer);
        assert_eq!(score.moves[0].clock_ms, Some(300_000));
        assert_eq!(score.reason.as_deref(), Some("checkmate"));
        assert_eq!(score.known_tag("Date"), Some("1979.??.??"));
        assert_eq!(score.known_tag("Round"), None);
        assert_eq!(score.known_tag("Event"), None);
        let numbers: Vec<(u32, Color)> = score.plies().map(|p| (p.number, p.side)).collect();
        assert_eq!(numbers[3], (2, Color::Black));
        let again = pgn::read_pgn(score.to_pgn().as_bytes()).unwrap().remove(0);
        assert_eq!(again.draw_offers, game.draw_offers);
        assert_eq!(again.moves, game.moves);
    }
}
