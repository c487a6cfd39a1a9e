//! The record of the game: every move as both scoresheets record it, the clock changes made by
//! the arbiter or by a rule, and the two written forms, the PGN and a player's scoresheet (Art. 8,
//! Appendix E). Read-only views, except for noting clock changes after each input.

use shakmaty::{ByColor, Chess, Color, Move, san::SanPlus};

use super::{Event, Game};
use crate::rules::{ClockMillis, Millis, pgn};

/// One completed move as both scoresheets record it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveRecord {
    pub side: Color,
    pub mv: Move,
    pub san: SanPlus,
    /// When the move was completed.
    pub at: Millis,
    /// Both clocks right after the move (None without a clock).
    pub clocks_after: Option<ByColor<i64>>,
}

/// One player's scoresheet (Art. 8): his record of both players' moves, the draw offers and the
/// clock times. Sheets as players write them are compared move by move in [`crate::rules::sheet`] (F.8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scoresheet {
    pub owner: Color,
    pub entries: Vec<ScoresheetEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoresheetEntry {
    pub ply: usize,
    pub san: String,
    pub clocks_after: Option<ByColor<i64>>,
    pub draw_offer: Option<Color>,
}

impl Game {
    /// Keep every clock change among `events` for the record (see [`Game::clock_notes`]).
    pub(super) fn note_clock_changes(&mut self, events: &[Event]) {
        let ply = self.moves.len();
        let secs = |ms: ClockMillis| format!("{} s", ms / 1000);
        for event in events {
            let text = match event {
                Event::ClockSet { side, remaining_ms } => {
                    format!("{side}'s clock set to {}", pgn::format_clk(*remaining_ms))
                }
                Event::IllegalMovePenalty {
                    offender, bonus_ms, ..
                } => format!(
                    "illegal move by {offender}: {} added to {} (7.4 b)",
                    secs(*bonus_ms),
                    !*offender
                ),
                Event::ClaimRejected {
                    by,
                    article,
                    opponent_bonus_ms,
                    claimant_remaining_ms,
                    ..
                } => {
                    let mut text = format!("incorrect claim by {by} under {article} (9.5 b)");
                    if *opponent_bonus_ms > 0 {
                        text.push_str(&format!(": {} added to {}", secs(*opponent_bonus_ms), !*by));
                    }
                    if let Some(left) = claimant_remaining_ms {
                        text.push_str(&format!("; {by}'s clock set to {}", pgn::format_clk(*left)));
                    }
                    text
                }
                Event::QuickplayPostponed { bonus_ms } if *bonus_ms > 0 => format!(
                    "10.2 claim postponed: {} added to the opponent",
                    secs(*bonus_ms)
                ),
                Event::QuickplayRejected { bonus_ms } if *bonus_ms > 0 => format!(
                    "10.2 claim rejected: {} added to the opponent",
                    secs(*bonus_ms)
                ),
                _ => continue,
            };
            self.clock_notes.push((ply, text));
        }
    }

    /// How much each clock changed between `before` and this game at `now`, kept with the ply
    /// when `events` hold a clock change (not the arbiter's setting of the clocks after a
    /// retrace: that is the retraced position's time).
    pub(super) fn note_clock_amounts(&mut self, before: &Game, events: &[Event], now: Millis) {
        let changed = events.iter().any(|e| {
            matches!(
                e,
                Event::ClockSet { .. }
                    | Event::IllegalMovePenalty { .. }
                    | Event::ClaimRejected { .. }
                    | Event::QuickplayPostponed { .. }
                    | Event::QuickplayRejected { .. }
            )
        });
        if !changed || before.clocks_to_confirm {
            return;
        }
        let (Some(was), Some(is)) = (before.clock.as_ref(), self.clock.as_ref()) else {
            return;
        };
        let delta = ByColor::new_with(|side| is.remaining(side, now) - was.remaining(side, now));
        if delta.white != 0 || delta.black != 0 {
            self.clock_changes.push((self.moves.len(), delta));
        }
    }

    /// The clock changes of the game, each after the number of half-moves played when it
    /// happened (0: before the first move), in order.
    /// Forget the clock changes noted from the `len`th on: clocks set back as they stood after a
    /// half-move (a training game's takeback), which nobody changed and the record does not
    /// show.
    pub(crate) fn forget_clock_notes_from(&mut self, len: usize) {
        self.clock_notes.truncate(len);
    }

    pub fn clock_notes(&self) -> &[(usize, String)] {
        &self.clock_notes
    }

    /// PGN of the game so far (Seven Tag Roster from `tags`, `[%clk]` comments, `(=)` for offers,
    /// the result and a `Termination` tag once the game is over).
    pub fn to_pgn(&self, tags: &[(String, String)]) -> String {
        // After a position set up by the arbiter the moves no longer follow from the start
        // position; the PGN holds the game up to there (the scoresheets keep everything).
        let exported = self.setups.first().copied().unwrap_or(self.moves.len());
        let moves: Vec<pgn::ExportMove> = self.moves[..exported]
            .iter()
            .enumerate()
            .map(|(i, r)| pgn::ExportMove {
                san: r.san,
                clock_ms: r.clocks_after.as_ref().map(|c| *c.get(r.side)),
                draw_offer: self.offers.iter().any(|o| o.on_ply == i + 1),
            })
            .collect();
        let result = match self.end.map(|e| e.outcome) {
            Some(outcome) => outcome.to_string(),
            None => "*".to_string(),
        };
        let start = (self.start != Chess::default()).then_some(&self.start);
        // The time control belongs on the record (it decides what the [%clk] values mean).
        let mut tags = tags.to_vec();
        if let Some(tc) = &self.config.time_control
            && !tags.iter().any(|(name, _)| name == "TimeControl")
        {
            tags.push(("TimeControl".to_string(), tc.to_string()));
        }
        pgn::write_pgn(&pgn::Export {
            tags: &tags,
            start,
            moves: &moves,
            result: &result,
            termination: self.end.map(|e| e.reason.termination()),
            notes: &self.clock_notes,
        })
    }

    /// The scoresheet of `owner`: the same moves and offers as the game, with his own and his
    /// opponent's clock after each move.
    pub fn scoresheet(&self, owner: Color) -> Scoresheet {
        Scoresheet {
            owner,
            entries: self
                .moves
                .iter()
                .enumerate()
                .map(|(i, r)| ScoresheetEntry {
                    ply: i + 1,
                    san: r.san.to_string(),
                    clocks_after: r.clocks_after,
                    draw_offer: self.offers.iter().find(|o| o.on_ply == i + 1).map(|o| o.by),
                })
                .collect(),
        }
    }
}
