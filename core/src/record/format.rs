//! The four scoresheet formats behind one call, for the command line and the daemon's file
//! writer: BRF and Unicode Braille for the blind player, PGN for everyone, printable text for the
//! arbiter. Pure: a [`Score`] in, text out.

use std::{fmt, str::FromStr};

use super::{
    braille::{self, BrailleOptions, Cell, LayoutError},
    score::Score,
    text,
};

/// A scoresheet format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Braille Ready Format: North American Braille ASCII pages (`.brf`).
    Brf,
    /// Unicode Braille text with the BRF's layout (`.txt`, for displays and screen readers).
    Braille,
    /// PGN with clocks, draw offers and the termination (`.pgn`).
    Pgn,
    /// The printable two-column scoresheet (`.txt`).
    Text,
}

impl Format {
    pub const ALL: [Format; 4] = [Format::Brf, Format::Braille, Format::Pgn, Format::Text];

    pub fn name(self) -> &'static str {
        match self {
            Format::Brf => "brf",
            Format::Braille => "braille",
            Format::Pgn => "pgn",
            Format::Text => "text",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A format name that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a scoresheet format; the formats are brf, braille, pgn, text")]
pub struct UnknownFormat(pub String);

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Format, UnknownFormat> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| UnknownFormat(s.to_owned()))
    }
}

/// `score` in `format`; the Braille formats use `braille` and the built-in header text.
pub fn render(
    score: &Score,
    format: Format,
    braille: &BrailleOptions,
) -> Result<String, LayoutError> {
    let style = braille.profile.text;
    render_with(score, format, braille, &|t| {
        braille::literary::transcribe(t, style)
    })
}

/// The same, with the Braille header's free text transcribed by `transcribe` (liblouis, say).
pub fn render_with(
    score: &Score,
    format: Format,
    braille: &BrailleOptions,
    transcribe: &dyn Fn(&str) -> Vec<Cell>,
) -> Result<String, LayoutError> {
    Ok(match format {
        Format::Brf => braille::render_with(score, braille, transcribe)?.to_brf(),
        Format::Braille => braille::render_with(score, braille, transcribe)?.to_unicode(),
        Format::Pgn => score.to_pgn(),
        Format::Text => text::render(score),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::braille::Profile;
    use shakmaty::Chess;

    #[test]
    fn names_round_trip_and_every_format_renders_an_empty_game() {
        let opts = BrailleOptions::new(Profile::named("ukaaf").unwrap());
        let score = Score::new(Chess::default());
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>(), Ok(f));
            assert!(!render(&score, f, &opts).unwrap().is_empty(), "{f}");
        }
        assert_eq!(
            "rtf".parse::<Format>().unwrap_err().to_string(),
            "'rtf' is not a scoresheet format; the formats are brf, braille, pgn, text"
        );
    }
}
