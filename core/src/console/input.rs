//! A command as the arbiter's input ([`to_input`]): the game's actions of the assistant and the
//! arbiter, read in the game's position where they name a move, and a Braille scoresheet read
//! into moves in the Braille chess notation of the player whose sheet it is ([`SheetProfiles`]).

use shakmaty::{ByColor, Color};

use super::{Action, ClaimKind, Command, ConsoleError, Penalty, Side};
use crate::{
    arbiter::Input,
    record::braille::{BrailleFormat, Profile as BrailleProfile, read_score},
    rules::{
        game::{self, DrawClaim, Game},
        notation,
    },
};

/// A Unicode Braille pattern (U+2800 to U+28FF; tactus's cells are the six-dot ones).
pub fn is_braille(c: char) -> bool {
    ('\u{2800}'..='\u{28ff}').contains(&c)
}

/// The Braille chess notation each player's Braille scoresheet is read in (F.8): the one his
/// own score is written in (`[record] braille_profile`, else a blind player's voice pack's
/// language and a sighted player's the table's), so that the sheet a blind player keeps from
/// his `blind-score.txt` reads back. Which seats are blind only words a refusal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SheetProfiles {
    pub profiles: ByColor<BrailleProfile>,
    pub blind: ByColor<bool>,
}

impl SheetProfiles {
    /// One profile for both players' sheets.
    pub fn one(profile: BrailleProfile, blind: ByColor<bool>) -> SheetProfiles {
        SheetProfiles {
            profiles: ByColor::new_with(|_| profile.clone()),
            blind,
        }
    }
}

/// The moves of `side`'s Braille scoresheet, read in his notation (`profiles`) from the game's
/// start position; the SAN of each, as a written sheet's entries are compared.
fn braille_sheet(
    side: Color,
    format: BrailleFormat,
    text: &str,
    game: &Game,
    profiles: &SheetProfiles,
) -> Result<Vec<String>, ConsoleError> {
    let profile = &profiles.profiles[side];
    let score = read_score(
        text.as_bytes(),
        format,
        profile,
        game.start_position().clone(),
    )
    .map_err(|error| ConsoleError::BrailleSheet {
        side,
        format,
        profile: profile.name.clone(),
        blind: profiles.blind[side],
        error: Box::new(error),
    })?;
    if score.moves.is_empty() {
        return Err(ConsoleError::EmptyBrailleSheet { side, format });
    }
    Ok(score.sans())
}

/// The arbiter's input a command is, read in the game's position where it names a move.
///
/// `Ok(None)` for commands that are not inputs to the game: requests (answered by
/// [`answer()`](super::answer())), `help`, `status`, `quit` and role changes. `Err` when the
/// intended move of a claim is not one legal move, or a Braille scoresheet does not read in its
/// player's notation (`braille`).
pub fn to_input(
    command: &Command,
    game: &Game,
    me: Option<Color>,
    braille: &SheetProfiles,
) -> Result<Option<Input>, ConsoleError> {
    let Command::Game(action) = command else {
        return Ok(None);
    };
    let rules = |input: game::Input| Ok(Some(Input::Rules(input)));
    let c = |side: &Side| side.color(me);
    match action {
        Action::Start { .. } => Ok(Some(Input::Start)),
        Action::Press => Ok(Some(Input::ClockPress)),
        Action::Move(text) => Ok(Some(Input::EnterMove(text.clone()))),
        Action::Correct(text) => Ok(Some(Input::Correct(text.clone()))),
        Action::Promote(role) => Ok(Some(Input::Promote(*role))),
        Action::Offer(by) => rules(game::Input::OfferDraw { by: c(by)? }),
        Action::Accept(by) => rules(game::Input::AcceptDraw { by: c(by)? }),
        Action::Decline(by) => rules(game::Input::DeclineDraw { by: c(by)? }),
        Action::Resign(by) => rules(game::Input::Resign { by: c(by)? }),
        Action::Claim { by, kind, intended } => {
            let intended = match intended {
                None => None,
                Some(text) => Some(notation::match_move(game.position(), text).map_err(
                    |error| ConsoleError::Move {
                        command: "claim",
                        error,
                    },
                )?),
            };
            let claim = match kind {
                ClaimKind::Repetition => DrawClaim::Repetition { intended },
                ClaimKind::FiftyMoves => DrawClaim::FiftyMoves { intended },
            };
            rules(game::Input::Claim { by: c(by)?, claim })
        }
        Action::ClaimIllegal(by) => rules(game::Input::ClaimIllegalMove { by: c(by)? }),
        Action::Flag(by) => rules(game::Input::ClaimFlag { by: c(by)? }),
        Action::Quickplay(by) => rules(game::Input::ClaimQuickplayDraw { by: c(by)? }),
        Action::Touch { by, square } => rules(game::Input::Touch {
            by: c(by)?,
            square: *square,
        }),
        Action::Adjust { by, square } => Ok(Some(Input::Adjust {
            by: c(by)?,
            square: *square,
        })),
        // The player having the move seals it, in his own notation (the arbiter knows it).
        Action::Seal(text) => rules(game::Input::Seal {
            by: game.to_move(),
            text: text.clone(),
            notation: None,
        }),
        Action::Resumption(text) => rules(game::Input::SetResumption { text: text.clone() }),
        Action::Open { absent: false } => rules(game::Input::OpenEnvelope),
        Action::Open { absent: true } => rules(game::Input::StartReplierClock),
        Action::Pause => rules(game::Input::Pause(game::PauseReason::Arbiter)),
        Action::Resume => rules(game::Input::Resume(game::PauseReason::Arbiter)),
        Action::SetClock { side, remaining_ms } => rules(game::Input::SetClock {
            side: c(side)?,
            remaining_ms: *remaining_ms,
        }),
        Action::AddTime { side, delta_ms } => rules(game::Input::AdjustClock {
            side: c(side)?,
            delta_ms: *delta_ms,
        }),
        Action::SetMoves { side, moves } => rules(game::Input::SetMoveCounter {
            side: c(side)?,
            moves: *moves,
        }),
        Action::Rule(ruling) => rules(game::Input::QuickplayRuling(*ruling)),
        // Penalties are offered to the arbiter before they apply.
        Action::Illegal(by) => Ok(Some(Input::Penalty(game::Input::IllegalMove {
            by: c(by)?,
        }))),
        Action::Scoresheet { side, sans } => Ok(Some(Input::Scoresheet {
            side: c(side)?,
            sans: sans.clone(),
        })),
        Action::BrailleScoresheet { side, format, text } => {
            let side = c(side)?;
            Ok(Some(Input::Scoresheet {
                side,
                sans: braille_sheet(side, *format, text, game, braille)?,
            }))
        }
        Action::ConfirmClocks => Ok(Some(Input::ConfirmClocks)),
        Action::Confirm => Ok(Some(Input::Confirm)),
        Action::Cancel => Ok(Some(Input::Cancel)),
        Action::Undo => Ok(Some(Input::Undo)),
        Action::TakeBack { to_ply } => rules(game::Input::Retract { to_ply: *to_ply }),
        Action::Result(outcome) => rules(game::Input::ArbiterResult { outcome: *outcome }),
        Action::Penalty {
            offender,
            penalty,
            ms,
        } => {
            let offender = c(offender)?;
            Ok(Some(Input::Penalty(match penalty {
                Penalty::Bonus => game::Input::AdjustClock {
                    side: !offender,
                    delta_ms: *ms,
                },
                Penalty::Deduct => game::Input::AdjustClock {
                    side: offender,
                    delta_ms: -*ms,
                },
            })))
        }
    }
}
