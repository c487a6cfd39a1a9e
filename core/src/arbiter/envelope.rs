//! Adjourned games at the table: a move is sealed only while no move waits to count on a board,
//! and only once it reads as one legal move in its writer's notation (the one sealing is told
//! the readings of one that does not, and chooses); when the envelope is opened the sealed move
//! is said to both players and made on both boards. A sealed move that is not valid loses the
//! game for its writer only at the arbiter's `confirm`: he rules on the envelope's own sheet.

use shakmaty::Color;

use super::{Arbiter, Effect, Proposal};
use crate::{
    announce::{Announcement, Audience, MoveWords},
    board::recognize::Mode,
    rules::{Millis, game, notation},
};

impl Arbiter {
    /// The arbiter has a move sealed (adjourned games).
    pub(super) fn seal(
        &mut self,
        by: Color,
        text: String,
        notation: Option<String>,
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        if self.pending.is_some() || self.sighted_candidate.is_some() || self.held.is_some() {
            // A move already made on a board is the sealed move (adjourned games); let it count
            // or correct it first.
            out.push(Effect::Refused(
                "not sealed: a move stands on a board and waits to count; let it count (press \
                 the clock, finish the announcement) or correct it first"
                    .into(),
            ));
            return;
        }
        // Read now, as he wrote it (his own notation first), so that nothing is decided against
        // him when the envelope is opened: a text that reads as more than one move, or as none,
        // is not sealed, and the one sealing (at his console only) is told the readings, each
        // as the line to type.
        let own = notation
            .as_deref()
            .and_then(notation::letters_of)
            .or(self.cfg.seats[by].notation);
        let position = self.game.position();
        // A move written clearly that is not legal is his to answer for (it loses when the
        // envelope is opened, as the Laws say); only what cannot be read as one move is asked.
        if let Err(unclear) = notation::read_sealed(position, &text, own.as_ref())
            && (!unclear.candidates.is_empty() || !notation::readable(&text))
        {
            let choices: Vec<String> = unclear
                .candidates
                .iter()
                .map(|&m| {
                    format!(
                        "`seal {}` ({})",
                        notation::unambiguous(position, m, own.as_ref()),
                        notation::san(position, m)
                    )
                })
                .collect();
            let what = match choices.as_slice() {
                [] => "seal it as written on his scoresheet, in algebraic notation (e.g. `seal \
                       Nf3`, `seal Sg1-f3`, `seal 0-0`)"
                    .into(),
                many => format!("seal what he meant: {}", many.join(" or ")),
            };
            out.push(Effect::Refused(format!(
                "not sealed: {}; {what} (adjournment: the sealed move must be unambiguous)",
                unclear.reason
            )));
            return;
        }
        let notation = own.map(|l| l.language.to_owned());
        self.rules(game::Input::Seal { by, text, notation }, now, out);
    }

    /// Resumption: the envelope is opened. The sealed move is said to both players and made on
    /// both boards (the position before it was set up on them); an invalid one loses.
    pub(super) fn open_envelope(&mut self, now: Millis, out: &mut Vec<Effect>) {
        // A sealed move that is not valid loses the game for the one who sealed it. That is
        // the arbiter's ruling, on the envelope's sheet, not on its transcription: offered to
        // him first, opened at his `confirm`.
        let mut trial = self.game.clone();
        if trial.apply(game::Input::OpenEnvelope, now).is_ok()
            && trial.is_over()
            && trial.ply() == self.game.ply()
        {
            let ends = match (trial.end(), trial.ending_pending()) {
                (Some(end), _) => Some(format!(
                    "the game ends {} ({})",
                    end.outcome,
                    end.reason.describe()
                )),
                (None, Some((loser, reason))) => Some(super::penalty::ending_words(loser, reason)),
                (None, None) => None,
            };
            self.drop_proposal(now, out);
            self.proposal = Some(Proposal::Penalty {
                input: game::Input::OpenEnvelope,
                ply: self.game.ply(),
                clocks_stopped: false,
            });
            let sealed = self
                .game
                .adjournment()
                .map(|a| format!(", '{}',", a.sealed))
                .unwrap_or_default();
            out.push(Effect::Note(format!(
                "the sealed move as transcribed{sealed} is not one legal move here: {}; compare the \
                 envelope's own scoresheet with the transcription before ruling: `confirm` opens \
                 the envelope and the game ends so; `cancel` leaves it closed, for his own \
                 ruling (`result`)",
                ends.unwrap_or_else(|| "the game ends".into())
            )));
            return;
        }
        self.open_confirmed(now, out);
    }

    /// The envelope opened (at once, or at the arbiter's `confirm` of a sealed move that is not
    /// valid).
    pub(super) fn open_confirmed(&mut self, now: Millis, out: &mut Vec<Effect>) {
        let before = self.game.position().clone();
        let ply = self.game.ply();
        let mut consequences = Vec::new();
        if !self.rules(game::Input::OpenEnvelope, now, &mut consequences) {
            out.extend(consequences);
            return;
        }
        self.say(Audience::Both, Announcement::EnvelopeOpened, out);
        let played = (self.game.ply() > ply).then(|| self.game.moves()[ply].mv);
        let Some(mv) = played else {
            // Invalid: the announcement and the result are in the consequences.
            out.extend(consequences);
            self.set_modes(now, out);
            return;
        };
        self.say(
            Audience::Both,
            Announcement::Move(MoveWords::new(&before, mv)),
            out,
        );
        out.extend(consequences);
        // Neither board shows the sealed move yet: each player's board waits for it (a blind
        // player makes it himself, whoever sealed it).
        for seat in self.seats() {
            if let Some(board) = self.recognizer(seat) {
                let r = board.set_expected(before.clone(), Mode::Execute(mv), now);
                self.recognized(seat, r, now, out);
            }
        }
    }
}
