//! Which inputs the game takes in the states that stop most of them: adjourned, clocks paused by
//! the arbiter (6.12), a 10.2 claim awaiting his ruling. One table, one row per input, so that a
//! new input must say where it stands. It decides only whether an input is taken, never what it
//! does.

use super::{Game, Input, RulesError};
use crate::rules::clock::Clock;

/// Whether an input is taken while the game is adjourned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WhileAdjourned {
    /// Refused: the position before the sealed move stands until the envelope is opened.
    Refused,
    /// Taken, adjourned or not.
    Taken,
    /// Taken only then (the envelope, the replier's clock, the resumption).
    Only,
}

/// Where an input may come in, in the states of the game that stop most inputs: adjourned,
/// clocks paused by the arbiter (6.12), a 10.2 claim awaiting his ruling.
#[derive(Debug, Clone, Copy)]
struct Admission {
    adjourned: WhileAdjourned,
    paused: bool,
    awaiting_ruling: bool,
}

impl Input {
    /// One row per input and no wildcard, so that a new input must say where it stands.
    #[rustfmt::skip]
    fn admission(&self) -> Admission {
        use WhileAdjourned::{Only, Refused as No, Taken as Yes};
        let row = |adjourned, paused, awaiting_ruling| Admission { adjourned, paused, awaiting_ruling };
        match self {
            //                                  adjourned  paused  awaiting 10.2 ruling
            Input::Start                     => row(No,    false,  true),
            Input::Move(_)                   => row(No,    false,  false),
            // 6.12: the clocks stand so that the arbiter can rule; rulings and claims are taken
            // then, and none of them restarts a clock (only `Resume` does).
            Input::IllegalMove { .. }        => row(No,    true,   false),
            Input::ClaimIllegalMove { .. }   => row(No,    true,   true),
            // A draw offer made after the seal stays valid until answered (adjourned games, 9.1).
            Input::OfferDraw { .. }          => row(Yes,   true,   true),
            Input::AcceptDraw { .. }         => row(Yes,   true,   true),
            Input::DeclineDraw { .. }        => row(Yes,   true,   true),
            // A touch is a fact whenever it happens (9.1 a, 9.4 of 2009).
            Input::Touch { .. }              => row(No,    true,   true),
            Input::Resign { .. }             => row(Yes,   true,   true),
            Input::Claim { .. }              => row(No,    true,   false),
            Input::ClaimFlag { .. }          => row(No,    false,  true),
            Input::ClaimQuickplayDraw { .. } => row(No,    true,   false),
            Input::QuickplayRuling(_)        => row(No,    true,   true),
            Input::Tick                      => row(Yes,   false,  true),
            Input::Pause(_)                  => row(No,    false,  true),
            // A 10.2 claim stops the clocks until the ruling, which restarts them itself.
            Input::Resume(_)                 => row(No,    true,   false),
            // The arbiter sets clocks and the position while they stand (6.12, 6.13).
            Input::SetClock { .. }           => row(Yes,   true,   true),
            Input::AdjustClock { .. }        => row(Yes,   true,   true),
            Input::SetMoveCounter { .. }     => row(Yes,   true,   true),
            Input::SetPosition { .. }        => row(No,    true,   true),
            // A move held while the clocks stand may be taken back.
            Input::Retract { .. }            => row(No,    true,   true),
            Input::Seal { .. }               => row(No,    true,   false),
            Input::StartReplierClock         => row(Only,  false,  true),
            Input::OpenEnvelope              => row(Only,  false,  true),
            Input::SetResumption { .. }      => row(Only,  false,  true),
            // Taken in every state, before the others are looked at.
            Input::Verdict { .. }            => row(Yes,   true,   true),
            Input::ArbiterResult { .. }      => row(Yes,   true,   true),
        }
    }
}

impl Game {
    /// Refuse an input the state of the game does not take (see [`Input::admission`]): adjourned,
    /// or clocks paused. The 10.2 claim is looked at after the clocks' tick, as a flag that fell
    /// before the input decides first.
    pub(super) fn admit(&self, input: &Input) -> Result<(), RulesError> {
        let admission = input.admission();
        match (self.adjournment.is_some(), admission.adjourned) {
            (true, WhileAdjourned::Refused) => return Err(RulesError::Adjourned),
            (false, WhileAdjourned::Only) => return Err(RulesError::NotAdjourned),
            _ => {}
        }
        if self.clock.as_ref().is_some_and(Clock::is_paused) && !admission.paused {
            return Err(RulesError::Paused);
        }
        Ok(())
    }

    /// A 10.2 claim awaiting the arbiter's ruling stops what its row says. Looked at after the
    /// clocks' tick, as a flag that fell before the input decides first.
    pub(super) fn admit_awaiting_ruling(&self, input: &Input) -> Result<(), RulesError> {
        if self.quickplay_claim.is_some() && !input.admission().awaiting_ruling {
            return Err(RulesError::AwaitingQuickplayRuling);
        }
        Ok(())
    }
}
