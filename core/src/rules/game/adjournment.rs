//! Adjournment and resumption: the sealed move in its envelope, the replier's clock when he is
//! absent, the envelope opened (the sealed move made, or lost when it is not one legal move), and
//! the date, time and venue of resumption.

use shakmaty::{Color, Position};

use super::{EndReason, Event, Game, RulesError};
use crate::rules::{Millis, notation};

/// An adjourned game: the sealed move waits in its envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adjournment {
    /// Who sealed: the player who had the move.
    pub by: Color,
    /// The sealed move as he wrote it; read only when the envelope is opened.
    pub sealed: String,
    /// The notation he wrote it in, read in first when the envelope is opened.
    pub notation: Option<String>,
    /// Half-moves played before the sealed move.
    pub ply: usize,
    /// The number of the sealed move (the envelope's fifth item).
    pub move_number: u32,
    /// When the move was sealed: the seal's time on the game's time line (the journal keeps it
    /// as the input's time). The record dates the envelope from it.
    pub at: Millis,
    /// Resumption with the replier absent: his clock already runs, the envelope is still closed.
    pub replier_clock_started: bool,
    /// Date, time and venue of resumption, once the arbiter has fixed them.
    pub resumption: Option<String>,
}

impl Game {
    pub(super) fn seal(
        &mut self,
        by: Color,
        text: String,
        notation: Option<String>,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        self.check_to_move(by)?;
        // "Only then stop his clock without starting the opponent's clock."
        self.stop_clock(now);
        let move_number = self.position.fullmoves().get();
        self.adjournment = Some(Adjournment {
            by,
            sealed: text.trim().to_string(),
            notation,
            ply: self.ply(),
            move_number,
            at: now,
            replier_clock_started: false,
            resumption: None,
        });
        events.push(Event::Adjourned { by, move_number });
        Ok(())
    }

    /// The replier to a sealed move is not there: his clock is started (adjourned games).
    pub(super) fn start_replier_clock(
        &mut self,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        let clock = self.clock.as_mut().ok_or(RulesError::NoClock)?;
        let adjournment = self.adjournment.as_mut().ok_or(RulesError::NotAdjourned)?;
        if adjournment.replier_clock_started {
            return Err(RulesError::ReplierClockRunning);
        }
        adjournment.replier_clock_started = true;
        let side = adjournment.by.other();
        clock.start(side, now);
        events.push(Event::ClockStarted { side });
        Ok(())
    }

    /// The date, time and venue of resumption, as the arbiter fixed them.
    pub(super) fn set_resumption(
        &mut self,
        text: String,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        let adjournment = self.adjournment.as_mut().ok_or(RulesError::NotAdjourned)?;
        adjournment.resumption = Some(text.trim().to_string());
        events.push(Event::ResumptionSet);
        Ok(())
    }

    /// The envelope is opened: the sealed move is made, or loses if it is not one legal move.
    pub(super) fn open_envelope(&mut self, now: Millis, events: &mut Vec<Event>) {
        let Some(adjournment) = self.adjournment.take() else {
            return;
        };
        let by = adjournment.by;
        // Read as he wrote it: in his own notation first (an English `Rf1` is the rook's move,
        // whatever a Frenchman would read), then in any notation the Laws allow (Appendix E),
        // `Sf3` as well as `Nf3`; only a text that is not exactly one legal move loses.
        let own = adjournment
            .notation
            .as_deref()
            .and_then(notation::letters_of);
        let invalid = match notation::read_sealed(&self.position, &adjournment.sealed, own.as_ref())
            .map_err(|u| u.reason)
        {
            Ok(m) => {
                let mut opened = vec![Event::EnvelopeOpened { by }];
                // `play` starts the sealer's clock (stopping the replier's, when it ran while he
                // was absent) and presses it: the replier's clock starts.
                match self.play(m, now, &mut opened) {
                    Ok(()) => {
                        events.extend(opened);
                        return;
                    }
                    // A move the Laws forbid here (9.5 b's required move): not playable.
                    Err(e) => e.to_string(),
                }
            }
            Err(e) => e,
        };
        events.push(Event::SealedMoveInvalid {
            by,
            text: adjournment.sealed.clone(),
            reason: invalid,
        });
        self.lose_unless_opponent_cannot_mate(
            by,
            EndReason::InvalidSealedMove { offender: by },
            now,
            events,
        );
    }
}
