//! Braille chess profiles: the table that says which cells write the pieces and the marks of a
//! move (`ukaaf`: K Q R S L, `de`: K D T L S), loaded from `profiles.toml`.
//!
//! The cells whose form the reference leaves unconfirmed live in that data file, not in code, so
//! that they can be corrected without touching the writer or the reader. This module parses and
//! validates the table; it knows nothing about positions or layout. Pure: the table is embedded
//! with `include_str!`, and [`profiles_in`] takes any other table as text.

use std::collections::BTreeMap;

use serde::Deserialize;
use shakmaty::Role;

use super::cell::{Cell, LOWER_DIGITS, letter_of, parse_cells};
use crate::announce::voice::RecordWords;

/// The embedded profile table.
pub const PROFILES_TOML: &str = include_str!("profiles.toml");

/// The profile used when none is named: the code in use by English-speaking blind players.
pub const DEFAULT_PROFILE: &str = "ukaaf";

/// Why a profile could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    #[error("there is no Braille profile '{name}'; the profiles are {}", .known.join(", "))]
    Unknown { name: String, known: Vec<String> },
    #[error("the Braille profile table does not parse: {0}")]
    Table(String),
    #[error(
        "Braille profile '{profile}', key {key}: '{found}' is not a Braille cell; write cells in \
         BRF (ASCII 0x20-0x5F) or Unicode Braille (U+2800-U+283F)"
    )]
    NotACell {
        profile: String,
        key: &'static str,
        found: char,
    },
    #[error("Braille profile '{profile}', key {key}: {reason}")]
    Invalid {
        profile: String,
        key: &'static str,
        reason: String,
    },
}

/// Where the check mark goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckPlace {
    /// Between the origin (and capture mark) and the destination, as the reference has it.
    BeforeDestination,
    /// After the move (after a promotion and the e.p. mark), as print SAN writes `+`.
    AfterMove,
}

/// How the header's free text (event, names) is written when liblouis is not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TextStyle {
    /// Uncontracted Unified English Braille: capital and number signs, UEB punctuation.
    Ueb,
    /// German Basisschrift, approximately: no capital signs, German umlaut cells.
    De,
}

/// The header words, in print (they are transcribed like the names): the profile's own, or a
/// voice pack's in the blind player's language ([`BrailleOptions::headed_in`]).
///
/// [`BrailleOptions::headed_in`]: super::BrailleOptions::headed_in
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labels {
    pub event: String,
    pub site: String,
    pub date: String,
    pub round: String,
    pub white: String,
    pub black: String,
}

impl From<&RecordWords> for Labels {
    /// A voice pack's headings (`[record]`): the score headed in the blind player's language.
    fn from(words: &RecordWords) -> Labels {
        Labels {
            event: words.event.clone(),
            site: words.site.clone(),
            date: words.date.clone(),
            round: words.round.clone(),
            white: words.white.clone(),
            black: words.black.clone(),
        }
    }
}

/// One Braille chess profile. Build it with [`Profile::named`] or [`profiles_in`], which
/// validate it; the fields are public so that tests and tools can look at (and vary) them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    pub name: String,
    pub description: String,
    pub king: Cell,
    pub queen: Cell,
    pub rook: Cell,
    pub knight: Cell,
    pub bishop: Cell,
    /// Written only when nothing shorter reads back as the one move meant.
    pub pawn: Cell,
    pub capture: Vec<Cell>,
    pub check: Vec<Cell>,
    pub check_place: CheckPlace,
    pub mate: Vec<Cell>,
    pub castle_kingside: Vec<Cell>,
    pub castle_queenside: Vec<Cell>,
    /// Between the destination and the new piece's letter; may be empty.
    pub promotion: Vec<Cell>,
    pub en_passant: Vec<Cell>,
    pub draw_offer: Vec<Cell>,
    pub white_wins: Vec<Cell>,
    pub black_wins: Vec<Cell>,
    pub draw: Vec<Cell>,
    pub text: TextStyle,
    pub liblouis_table: String,
    pub labels: Labels,
}

/// One profile as the TOML table writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Spec {
    description: String,
    king: String,
    queen: String,
    rook: String,
    knight: String,
    bishop: String,
    pawn: String,
    capture: String,
    check: String,
    check_place: CheckPlace,
    mate: String,
    castle_kingside: String,
    castle_queenside: String,
    promotion: String,
    en_passant: String,
    draw_offer: String,
    white_wins: String,
    black_wins: String,
    draw: String,
    text: TextStyle,
    liblouis_table: String,
    event_label: String,
    site_label: String,
    date_label: String,
    round_label: String,
    white_label: String,
    black_label: String,
}

impl Profile {
    /// The embedded profile called `name`.
    pub fn named(name: &str) -> Result<Profile, ProfileError> {
        let mut all = profiles_in(PROFILES_TOML)?;
        match all.iter().position(|p| p.name == name) {
            Some(i) => Ok(all.swap_remove(i)),
            None => Err(ProfileError::Unknown {
                name: name.to_owned(),
                known: all.into_iter().map(|p| p.name).collect(),
            }),
        }
    }

    /// The names of the embedded profiles.
    pub fn names() -> Result<Vec<String>, ProfileError> {
        Ok(profiles_in(PROFILES_TOML)?
            .into_iter()
            .map(|p| p.name)
            .collect())
    }

    /// The letter of a piece; `None` for the pawn, which SAN and chess Braille write without one.
    pub fn piece_letter(&self, role: Role) -> Option<Cell> {
        match role {
            Role::King => Some(self.king),
            Role::Queen => Some(self.queen),
            Role::Rook => Some(self.rook),
            Role::Knight => Some(self.knight),
            Role::Bishop => Some(self.bishop),
            Role::Pawn => None,
        }
    }

    /// The piece a letter names (never the pawn).
    pub fn piece_of(&self, cell: Cell) -> Option<Role> {
        [
            Role::King,
            Role::Queen,
            Role::Rook,
            Role::Knight,
            Role::Bishop,
        ]
        .into_iter()
        .find(|&role| self.piece_letter(role) == Some(cell))
    }

    /// The cells of a PGN result token (`1-0`, `0-1`, `1/2-1/2`); `None` for `*` and anything
    /// else: an unfinished game's score simply ends.
    pub fn result(&self, token: &str) -> Option<&[Cell]> {
        match token {
            "1-0" => Some(&self.white_wins),
            "0-1" => Some(&self.black_wins),
            "1/2-1/2" => Some(&self.draw),
            _ => None,
        }
    }

    /// The PGN result token these cells write, if they are a result.
    pub fn result_of(&self, cells: &[Cell]) -> Option<&'static str> {
        [
            ("1-0", &self.white_wins),
            ("0-1", &self.black_wins),
            ("1/2-1/2", &self.draw),
        ]
        .into_iter()
        .find(|(_, c)| c.as_slice() == cells)
        .map(|(token, _)| token)
    }

    /// Checks what the writer and the reader rely on: one distinct letter per piece that is not a
    /// digit; non-empty marks without blanks (a blank would split a move in two); marks inside
    /// the move that cannot be read as part of a square; distinct castlings and results.
    pub fn validate(&self) -> Result<(), ProfileError> {
        let invalid = |key: &'static str, reason: &str| ProfileError::Invalid {
            profile: self.name.clone(),
            key,
            reason: reason.to_owned(),
        };
        let letters = [
            ("king", self.king),
            ("queen", self.queen),
            ("rook", self.rook),
            ("knight", self.knight),
            ("bishop", self.bishop),
            ("pawn", self.pawn),
        ];
        for (i, (key, cell)) in letters.iter().enumerate() {
            if cell.is_blank() || LOWER_DIGITS.contains(cell) {
                return Err(invalid(key, "a piece letter must not be blank or a digit"));
            }
            if letters[..i].iter().any(|(_, other)| other == cell) {
                return Err(invalid(key, "two pieces have the same letter"));
            }
        }
        let marks: [(&'static str, &Vec<Cell>); 11] = [
            ("capture", &self.capture),
            ("check", &self.check),
            ("mate", &self.mate),
            ("castle_kingside", &self.castle_kingside),
            ("castle_queenside", &self.castle_queenside),
            ("en_passant", &self.en_passant),
            ("draw_offer", &self.draw_offer),
            ("white_wins", &self.white_wins),
            ("black_wins", &self.black_wins),
            ("draw", &self.draw),
            ("promotion", &self.promotion),
        ];
        for (key, cells) in marks {
            if cells.is_empty() && key != "promotion" {
                return Err(invalid(key, "must be at least one cell"));
            }
            if cells.iter().any(|c| c.is_blank()) {
                return Err(invalid(
                    key,
                    "must not contain a blank (it would split the move)",
                ));
            }
        }
        // These sit between the origin and the destination (or the destination and the new
        // piece): a file letter, a digit or a piece letter there would read as part of the move.
        for (key, cells) in [
            ("capture", &self.capture),
            ("check", &self.check),
            ("promotion", &self.promotion),
        ] {
            let confusable = |c: &Cell| {
                LOWER_DIGITS.contains(c)
                    || letter_of(*c).is_some_and(|l| ('a'..='h').contains(&l))
                    || letters.iter().any(|(_, letter)| letter == c)
            };
            if cells.iter().any(confusable) {
                return Err(invalid(
                    key,
                    "must not contain a file letter, a digit or a piece letter",
                ));
            }
        }
        if self.castle_kingside == self.castle_queenside {
            return Err(invalid(
                "castle_queenside",
                "is the same as castle_kingside",
            ));
        }
        if self.white_wins == self.black_wins {
            return Err(invalid("black_wins", "the three results must differ"));
        }
        if self.draw == self.white_wins || self.draw == self.black_wins {
            return Err(invalid("draw", "the three results must differ"));
        }
        Ok(())
    }
}

/// Every profile of a table, validated, in name order.
pub fn profiles_in(toml_text: &str) -> Result<Vec<Profile>, ProfileError> {
    let specs: BTreeMap<String, Spec> =
        toml::from_str(toml_text).map_err(|e| ProfileError::Table(e.to_string()))?;
    specs
        .into_iter()
        .map(|(name, spec)| {
            let profile = compile(name, spec)?;
            profile.validate()?;
            Ok(profile)
        })
        .collect()
}

fn compile(name: String, s: Spec) -> Result<Profile, ProfileError> {
    let cells = |key: &'static str, text: &str| {
        parse_cells(text).map_err(|found| ProfileError::NotACell {
            profile: name.clone(),
            key,
            found,
        })
    };
    let one = |key: &'static str, text: &str| -> Result<Cell, ProfileError> {
        match cells(key, text)?.as_slice() {
            [cell] => Ok(*cell),
            _ => Err(ProfileError::Invalid {
                profile: name.clone(),
                key,
                reason: format!("a piece letter is one cell, not '{text}'"),
            }),
        }
    };
    Ok(Profile {
        description: s.description,
        king: one("king", &s.king)?,
        queen: one("queen", &s.queen)?,
        rook: one("rook", &s.rook)?,
        knight: one("knight", &s.knight)?,
        bishop: one("bishop", &s.bishop)?,
        pawn: one("pawn", &s.pawn)?,
        capture: cells("capture", &s.capture)?,
        check: cells("check", &s.check)?,
        check_place: s.check_place,
        mate: cells("mate", &s.mate)?,
        castle_kingside: cells("castle_kingside", &s.castle_kingside)?,
        castle_queenside: cells("castle_queenside", &s.castle_queenside)?,
        promotion: cells("promotion", &s.promotion)?,
        en_passant: cells("en_passant", &s.en_passant)?,
        draw_offer: cells("draw_offer", &s.draw_offer)?,
        white_wins: cells("white_wins", &s.white_wins)?,
        black_wins: cells("black_wins", &s.black_wins)?,
        draw: cells("draw", &s.draw)?,
        text: s.text,
        liblouis_table: s.liblouis_table,
        labels: Labels {
            event: s.event_label,
            site: s.site_label,
            date: s.date_label,
            round: s.round_label,
            white: s.white_label,
            black: s.black_label,
        },
        name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::braille::cell::to_brf;

    #[test]
    fn the_embedded_profiles_load_and_validate() {
        assert_eq!(Profile::names().unwrap(), ["de", "ukaaf"]);
        let uk = Profile::named(DEFAULT_PROFILE).unwrap();
        let letters: String = [uk.king, uk.queen, uk.rook, uk.knight, uk.bishop]
            .iter()
            .map(|c| char::from(c.to_brf()))
            .collect();
        assert_eq!(letters, "KQRSL");
        assert_eq!(uk.knight.to_unicode(), '⠎');
        assert_eq!(uk.bishop.to_unicode(), '⠇');
        let de = Profile::named("de").unwrap();
        let letters: String = [de.king, de.queen, de.rook, de.knight, de.bishop]
            .iter()
            .map(|c| char::from(c.to_brf()))
            .collect();
        assert_eq!(letters, "KDTSL");
        assert_eq!(
            de.piece_of(Cell::from_brf(b'D').unwrap()),
            Some(Role::Queen)
        );
        assert_eq!(de.piece_of(Cell::from_brf(b'Q').unwrap()), None);
        assert_eq!(de.labels.white, "Weiss");
        assert_eq!(to_brf(&uk.castle_queenside), "0-0-0");
        assert_eq!(uk.result_of(&uk.draw), Some("1/2-1/2"));
        assert_eq!(uk.result("*"), None);
    }

    #[test]
    fn an_unknown_profile_lists_the_known_ones() {
        let err = Profile::named("fr").unwrap_err().to_string();
        assert_eq!(
            err,
            "there is no Braille profile 'fr'; the profiles are de, ukaaf"
        );
    }

    /// The embedded table with one value replaced.
    fn table_with(key: &str, value: &str) -> String {
        PROFILES_TOML
            .lines()
            .map(|line| {
                if line.starts_with(&format!("{key} ")) {
                    format!("{key} = '{value}'")
                } else {
                    line.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn bad_tables_are_refused_with_the_profile_and_key() {
        let err = profiles_in(&table_with("capture", "x é")).unwrap_err();
        assert!(
            matches!(
                &err,
                ProfileError::NotACell {
                    key: "capture",
                    found: 'é',
                    ..
                }
            ),
            "{err}"
        );
        for (key, value, reason) in [
            ("rook", "K", "same letter"),
            ("knight", "SS", "one cell"),
            ("bishop", "4", "digit"),
            ("mate", "", "at least one cell"),
            ("draw_offer", "( )", "blank"),
            ("capture", "X4", "digit"),
            ("check", "E", "file letter"),
            ("castle_queenside", "0-0", "same as castle_kingside"),
            ("black_wins", "1-0", "results must differ"),
        ] {
            let err = profiles_in(&table_with(key, value))
                .unwrap_err()
                .to_string();
            assert!(err.contains(key) && err.contains(reason), "{key}: {err}");
        }
        let err = profiles_in("[x]\nking = 1\n").unwrap_err();
        assert!(matches!(err, ProfileError::Table(_)), "{err}");
        let err = profiles_in(&PROFILES_TOML.replace(
            "check_place = \"before-destination\"",
            "check_place = \"left\"",
        ))
        .unwrap_err();
        assert!(err.to_string().contains("before-destination"), "{err}");
    }

    #[test]
    fn unicode_cells_are_accepted_in_the_table() {
        let table = table_with("capture", "⠰");
        let profiles = profiles_in(&table).unwrap();
        assert_eq!(
            profiles[1].capture,
            Profile::named("ukaaf").unwrap().capture
        );
    }
}
