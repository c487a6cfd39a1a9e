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
