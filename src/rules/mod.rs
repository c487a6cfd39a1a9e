//! The FIDE Laws of Chess (2001 text, with the 2005 differences selectable) as pure code on top of
//! shakmaty.
//!
//! This module owns the game record, the clock and time controls, draw offers, claims, penalties,
//! dead positions and the notation front ends (strict PGN, lenient human input). It never reads the
//! clock, never touches a file, a port or a thread: time comes in as an argument (milliseconds on
//! a monotonic time line chosen by the caller) and results come back as values. The expensive
//! "can this side still mate?" search is a separate pure function ([`dead::solve`]) that the caller
//! may run wherever and with whatever deadline it likes; the game only consumes its verdicts.

pub mod clock;
pub mod dead;
pub mod game;
#[cfg(test)]
mod game_tests;
pub mod notation;
pub mod pgn;
pub mod sheet;
pub mod time_control;

use serde::{Deserialize, Serialize};

/// Milliseconds on the caller's monotonic time line: an instant, or an unsigned span added to one
/// (a settle time, a timeout). The core never asks what time it is; every input carries one.
pub type Millis = u64;

/// Milliseconds on a chess clock: remaining time, time used, increments, bonuses, adjustments.
/// Signed: a remaining time is negative once a flag has fallen.
pub type ClockMillis = i64;

/// Which text of the Laws applies. The differences between them live in [`EditionRules`], in one
/// place, so that an arbiter can see at a glance what changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Edition {
    /// FIDE Laws of Chess, in force from 1 July 2001 (`../shared/laws/000_*`, authentic text).
    #[default]
    #[serde(rename = "2001")]
    Fide2001,
    /// The later edition (`../shared/laws/003_*`): 7.4 draws when the opponent cannot mate, and an
    /// incorrect claim no longer costs the claimant time (9.5 b).
    #[serde(rename = "2005")]
    Fide2005,
}

impl std::str::FromStr for Edition {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "2001" => Ok(Edition::Fide2001),
            "2005" => Ok(Edition::Fide2005),
            other => Err(format!(
                "unknown rules edition '{other}'; allowed: 2001, 2005"
            )),
        }
    }
}

/// The differences between the editions we support, as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EditionRules {
    /// 9.5 b: an incorrect claim reduces the claimant's time (half up to 3 min, or to 1 min).
    pub incorrect_claim_costs_claimant_time: bool,
    /// 7.4 b: the third illegal move loses "unless the opponent cannot mate, then drawn".
    pub third_illegal_move_drawn_if_opponent_cannot_mate: bool,
}

impl Edition {
    /// The one table of edition differences.
    pub const fn rules(self) -> EditionRules {
        match self {
            Edition::Fide2001 => EditionRules {
                incorrect_claim_costs_claimant_time: true,
                third_illegal_move_drawn_if_opponent_cannot_mate: false,
            },
            Edition::Fide2005 => EditionRules {
                incorrect_claim_costs_claimant_time: false,
                third_illegal_move_drawn_if_opponent_cannot_mate: true,
            },
        }
    }
}

/// Standard play or one of the appendices for faster games.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlayMode {
    /// The Laws as written (articles 1-13).
    #[default]
    Standard,
    /// Appendix B: a flag has fallen only when validly claimed; both flags fallen is a draw.
    Rapid,
    /// Appendix C: as rapid, plus illegal moves are completed once the opponent's clock starts and
    /// the opponent may claim a win before making his own move; 10.2 does not apply.
    Blitz,
}

impl std::str::FromStr for PlayMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "standard" => Ok(PlayMode::Standard),
            "rapid" => Ok(PlayMode::Rapid),
            "blitz" => Ok(PlayMode::Blitz),
            other => Err(format!(
                "unknown play mode '{other}'; allowed: standard, rapid, blitz"
            )),
        }
    }
}
