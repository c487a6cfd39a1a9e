//! F.6: a move announced wrongly may be corrected until the opponent's clock has started. A
//! blind player's corrected move is announced again and counts once it stands on his board; a
//! move entered for the sighted player is replaced before his press.

use shakmaty::Position;

use super::{Arbiter, Effect, completion::PendingAnnouncement};
use crate::{
    announce::{Announcement, Audience, MoveWords},
    board::recognize::Mode,
    rules::{Millis, notation},
};

impl Arbiter {
    /// F.6: a move announced wrongly may be corrected until the opponent's clock has started.
    pub(super) fn correct(&mut self, text: &str, now: Millis, out: &mut Vec<Effect>) {
        if self.pending.is_none() && self.sighted_candidate.is_none() {
            out.push(Effect::Refused(
                "too late to correct: the opponent's clock has started (F.6)".into(),
            ));
            return;
        }
        let position = self.game.position().clone();
        let corrected = match notation::match_move(&position, text) {
            Ok(m) => m,
            Err(e) => {
                out.push(Effect::Refused(format!(
                    "'{text}' cannot be the corrected move: {e}"
                )));
                return;
            }
        };
        if let Some(pending) = self.pending {
            // A slip of the tongue names the piece he moved wrongly, not another piece: that
            // one he touched and must move (4.3).
            if moved_from(corrected) != moved_from(pending.mv) {
                out.push(Effect::Refused(format!(
                    "'{text}' is not a correction of {}: it moves another piece, and the piece \
                     he moved is the one he touched and must move (4.3); a correction (F.6) \
                     names another square for that piece",
                    notation::san(&position, pending.mv)
                )));
                return;
            }
            out.push(Effect::Note(format!(
                "announcement corrected: {} instead of {}",
                notation::san(&position, corrected),
                notation::san(&position, pending.mv)
            )));
            let mut after = position.clone();
            after.play_unchecked(corrected);
            let seat = pending.seat;
            let id = self.say(
                Audience::Player(!seat),
                Announcement::Move(MoveWords::new(&position, corrected)),
                out,
            );
            // F.3 b: the corrected move counts once it stands on his board too; until then his
            // board is guided to it.
            self.pending = Some(PendingAnnouncement {
                seat,
                id,
                mv: corrected,
                announced: false,
                on_board: false,
                counts_at: None,
            });
            if let Some(board) = self.recognizer(seat) {
                let r = board.set_expected(after, Mode::Hold, now);
                self.recognized(seat, r, now, out);
            }
            self.board_caught_up(seat, now, out);
        } else {
            out.push(Effect::Note(format!(
                "entered move corrected to {}",
                notation::san(&position, corrected)
            )));
            self.sighted_candidate = Some(corrected);
        }
    }
}

/// The square the moving piece left (the king's, for castling).
fn moved_from(mv: shakmaty::Move) -> Option<shakmaty::Square> {
    match mv {
        shakmaty::Move::Castle { king, .. } => Some(king),
        other => other.from(),
    }
}
