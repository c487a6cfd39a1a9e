//! The FIDE Laws of Chess (2001 text, with the 2009 differences selectable) as pure code on top of
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
/// place, so that an arbiter can see at a glance what changes (`docs/editions.md` lists them
/// article by article, each with its test).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Edition {
    /// FIDE Laws of Chess, in force from 1 July 2001 (`../shared/laws/001_*`, authentic text).
    #[default]
    #[serde(rename = "2001")]
    Fide2001,
    /// The later text (`../shared/laws/003_*`): the 2009 Laws. Its 6.6 a sets the default time to
    /// zero, which came with 2009. Journals written when tactus called it "2005" still read.
    #[serde(rename = "2009", alias = "2005")]
    Fide2009,
}

/// Why "2005" is no longer a name for the later text: said wherever a person writes an edition.
pub const EDITION_2005_REFUSED: &str = "the later text (../shared/laws/003_*) is the 2009 Laws, \
     not 2005: its 6.6 a sets the default time to zero, which came with 2009; write \
     edition = \"2009\"";

impl std::str::FromStr for Edition {
    type Err = String;
    /// The names a person may write (a configuration file, a command line). Journals read the
    /// old name through serde's alias instead: what was played under it must still replay.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "2001" => Ok(Edition::Fide2001),
            "2009" => Ok(Edition::Fide2009),
            "2005" => Err(format!("'2005' is refused: {EDITION_2005_REFUSED}")),
            other => Err(format!(
                "unknown rules edition '{other}'; allowed: 2001, 2009"
            )),
        }
    }
}

/// The differences between the editions we support, as data. One field per article that
/// changes what tactus does; `docs/editions.md` is the same table in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EditionRules {
    /// 6.6: how late after the start of the session a player may arrive before he loses (2001,
    /// 6.6 b: "more than one hour"; 2009, 6.6 a: zero, unless the rules of the competition say
    /// otherwise). tactus does not see arrivals: the arbiter applies it with an `ArbiterResult`.
    pub default_time_ms: ClockMillis,
    /// 9.4: what ends the right to claim under 9.2 / 9.3 at the current move. 2001: making a
    /// move (which any rules engine gets for free); 2009: touching a piece as in 4.3.
    pub touch_loses_right_to_claim: bool,
    /// 9.5 b: an incorrect claim reduces the claimant's time (half up to 3 min, or to 1 min).
    pub incorrect_claim_costs_claimant_time: bool,
    /// 7.4 b: the third illegal move loses "unless the opponent cannot mate, then drawn".
    pub third_illegal_move_drawn_if_opponent_cannot_mate: bool,
    /// 10.2 b after a postponement: 2001 "the arbiter shall declare the final result after a
    /// flag has fallen" (so no draw ruling before); 2009 "later during the game or as soon as
    /// possible after a flag has fallen".
    pub postponed_quickplay_ruled_only_after_a_flag: bool,
    /// Appendices A3/A4 and B2/B3 of 2009: the rapid and blitz laws apply only where supervision
    /// is inadequate; with adequate supervision (rapid: one arbiter for at most three games,
    /// blitz: one per game) the Competition Rules do. 2001 (Appendices B and C): always.
    pub appendices_only_without_adequate_supervision: bool,
    /// Blitz, the opponent's claim of an illegal move: 2001 (Appendix B, inherited by C) loses
    /// it once he touches a piece as in 4.3; 2009 (B3 c) only once he has made his own move.
    pub touch_loses_illegal_move_claim: bool,
}

impl Edition {
    /// The one table of edition differences.
    pub const fn rules(self) -> EditionRules {
        match self {
            Edition::Fide2001 => EditionRules {
                default_time_ms: 60 * 60 * 1000,
                touch_loses_right_to_claim: false,
                incorrect_claim_costs_claimant_time: true,
                third_illegal_move_drawn_if_opponent_cannot_mate: false,
                postponed_quickplay_ruled_only_after_a_flag: true,
                appendices_only_without_adequate_supervision: false,
                touch_loses_illegal_move_claim: true,
            },
            Edition::Fide2009 => EditionRules {
                default_time_ms: 0,
                touch_loses_right_to_claim: true,
                incorrect_claim_costs_claimant_time: false,
                third_illegal_move_drawn_if_opponent_cannot_mate: true,
                postponed_quickplay_ruled_only_after_a_flag: false,
                appendices_only_without_adequate_supervision: true,
                touch_loses_illegal_move_claim: false,
            },
        }
    }
}

impl EditionRules {
    /// 6.6 a: whether a player who arrives `late_ms` after the start of the session loses. The
    /// 2001 text's "more than one hour"; the 2009 text's "after the start" (default time zero).
    pub const fn arrival_loses(&self, late_ms: ClockMillis) -> bool {
        late_ms > self.default_time_ms
    }
}

/// Standard play or one of the appendices for faster games. The appendices' names are those of
/// 2001 (B rapidplay, C blitz); the 2009 text calls them A and B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlayMode {
    /// The Laws as written (articles 1-13).
    #[default]
    Standard,
    /// Appendix B: a flag has fallen only when validly claimed; both flags fallen is a draw.
    /// In 2009 these are the rapid laws of A4, for a game without adequate supervision.
    Rapid,
    /// Appendix C: as rapid, plus illegal moves are completed once the opponent's clock starts and
    /// the opponent may claim a win before making his own move; 10.2 does not apply. In 2009
    /// these are the blitz laws of B3, for a game without adequate supervision.
    Blitz,
    /// A rapid game with adequate supervision (2009 A3: one arbiter for at most three games):
    /// the Competition Rules apply. The 2001 text knows no such condition: Appendix B applies.
    #[serde(rename = "rapid-supervised")]
    RapidSupervised,
    /// A blitz game with adequate supervision (2009 B2: one arbiter per game): the Competition
    /// Rules apply. The 2001 text knows no such condition: Appendix C applies.
    #[serde(rename = "blitz-supervised")]
    BlitzSupervised,
}

impl PlayMode {
    /// The laws that govern play under `edition`: [`PlayMode::Standard`], [`PlayMode::Rapid`] or
    /// [`PlayMode::Blitz`]. A supervised game is played under the appendix in 2001 and under
    /// the Competition Rules in 2009 ([`EditionRules::appendices_only_without_adequate_supervision`]).
    pub const fn laws(self, edition: Edition) -> PlayMode {
        let supervision_counts = edition.rules().appendices_only_without_adequate_supervision;
        match self {
            PlayMode::Standard => PlayMode::Standard,
            PlayMode::Rapid => PlayMode::Rapid,
            PlayMode::Blitz => PlayMode::Blitz,
            PlayMode::RapidSupervised if supervision_counts => PlayMode::Standard,
            PlayMode::RapidSupervised => PlayMode::Rapid,
            PlayMode::BlitzSupervised if supervision_counts => PlayMode::Standard,
            PlayMode::BlitzSupervised => PlayMode::Blitz,
        }
    }
}

impl std::str::FromStr for PlayMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "standard" => Ok(PlayMode::Standard),
            "rapid" => Ok(PlayMode::Rapid),
            "blitz" => Ok(PlayMode::Blitz),
            "rapid-supervised" => Ok(PlayMode::RapidSupervised),
            "blitz-supervised" => Ok(PlayMode::BlitzSupervised),
            other => Err(format!(
                "unknown play mode '{other}'; allowed: standard, rapid, blitz, rapid-supervised, \
                 blitz-supervised"
            )),
        }
    }
}
