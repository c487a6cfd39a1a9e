//! The header's free text (event, site, date, player names) in literary Braille, built in:
//! uncontracted Unified English Braille, or an approximation of German Basisschrift.
//!
//! This is deliberately small: letters, capital and number signs, the common punctuation and the
//! accented letters of players' names. It is what the score uses when liblouis is not installed
//! (see `store::louis` in the shell for the optional, better transcription); the chess score itself
//! never goes through here. Pure; no I/O.

use super::{
    cell::{Cell, letter},
    profile::TextStyle,
};

/// Written for a character we cannot transcribe: the full cell, which transcribers use for an
/// unknown symbol.
const UNKNOWN: Cell = Cell::dots("123456");
/// UEB capital sign (dot 6); twice for a word in capitals.
const CAPITAL: Cell = Cell::dots("6");
/// Number sign (dots 3456), in UEB and German Braille alike.
const NUMBER: Cell = Cell::dots("3456");
/// UEB grade 1 indicator: a letter a-j right after a number would read as a digit without it.
const UEB_GRADE_1: Cell = Cell::dots("56");
/// German: the letter sign (dot 6) does the same job after a number.
const DE_LETTER_SIGN: Cell = Cell::dots("6");

/// `text` as cells in the given style. Runs of whitespace become one blank cell; leading and
/// trailing whitespace is dropped.
pub fn transcribe(text: &str, style: TextStyle) -> Vec<Cell> {
    let chars: Vec<char> = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .collect();
    let mut out = Vec::with_capacity(chars.len() * 2);
    let mut i = 0;
    // Whether the previous cells were a number (a letter a-j after it needs an indicator).
    let mut in_number = false;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() {
            if !in_number {
                out.push(NUMBER);
            }
            out.push(digit_letter(c));
            in_number = true;
            i += 1;
            // A point or comma between digits stays inside the number.
            if let (Some(&sep @ ('.' | ',')), Some(next)) = (chars.get(i), chars.get(i + 1))
                && next.is_ascii_digit()
            {
                out.extend(punctuation(sep, style));
                i += 1;
            }
            continue;
        }
        if is_letter(c) {
            let start = i;
            while i < chars.len() && is_letter(chars[i]) {
                i += 1;
            }
            letters(&chars[start..i], style, in_number, &mut out);
            in_number = false;
            continue;
        }
        in_number = false;
        if c == ' ' {
            out.push(Cell::BLANK);
        } else {
            out.extend(punctuation(c, style));
        }
        i += 1;
    }
    out
}

fn is_letter(c: char) -> bool {
    c.is_ascii_alphabetic() || accented(c.to_lowercase().next().unwrap_or(c)).is_some()
}

/// Digits as UEB and German write them after the number sign: 1-9 = a-i, 0 = j.
fn digit_letter(c: char) -> Cell {
    let letter_for = if c == '0' {
        'j'
    } else {
        char::from(b'a' + (c as u8 - b'1'))
    };
    letter(letter_for).unwrap_or(UNKNOWN)
}

/// A run of letters, with capital signs (UEB) and accents.
fn letters(run: &[char], style: TextStyle, after_number: bool, out: &mut Vec<Cell>) {
    let caps_word =
        style == TextStyle::Ueb && run.len() >= 2 && run.iter().all(|c| !c.is_lowercase());
    if caps_word {
        out.extend([CAPITAL, CAPITAL]);
    }
    for (k, &c) in run.iter().enumerate() {
        let lower = c.to_lowercase().next().unwrap_or(c);
        if k == 0 && after_number && ('a'..='j').contains(&lower) {
            out.push(match style {
                TextStyle::Ueb => UEB_GRADE_1,
                TextStyle::De => DE_LETTER_SIGN,
            });
        }
        if style == TextStyle::Ueb && !caps_word && c.is_uppercase() {
            out.push(CAPITAL);
        }
        match style {
            TextStyle::Ueb => match accented(lower) {
                Some((base, accent)) => {
                    out.extend(accent.iter().map(|d| Cell::dots(d)));
                    out.extend(base.chars().filter_map(letter));
                }
                None => out.extend(letter(lower)),
            },
            TextStyle::De => match lower {
                'ä' => out.push(Cell::dots("345")),
                'ö' => out.push(Cell::dots("246")),
                'ü' => out.push(Cell::dots("1256")),
                'ß' => out.push(Cell::dots("2346")),
                _ => match accented(lower) {
                    Some((base, _)) => out.extend(base.chars().filter_map(letter)),
                    None => out.extend(letter(lower)),
                },
            },
        }
    }
}

/// An accented lower-case letter: its base letters and the UEB modifier cells before them.
fn accented(c: char) -> Option<(&'static str, &'static [&'static str])> {
    const ACUTE: &[&str] = &["45", "34"];
    const GRAVE: &[&str] = &["45", "16"];
    const CIRCUMFLEX: &[&str] = &["45", "146"];
    const DIAERESIS: &[&str] = &["45", "25"];
    const TILDE: &[&str] = &["45", "12456"];
    const CEDILLA: &[&str] = &["45", "12346"];
    const RING: &[&str] = &["45", "1246"];
    const CARON: &[&str] = &["45", "346"];
    const STROKE: &[&str] = &["4", "156"];
    Some(match c {
        'á' => ("a", ACUTE),
        'é' => ("e", ACUTE),
        'í' => ("i", ACUTE),
        'ó' => ("o", ACUTE),
        'ú' => ("u", ACUTE),
        'ý' => ("y", ACUTE),
        'ć' => ("c", ACUTE),
        'ń' => ("n", ACUTE),
        'ś' => ("s", ACUTE),
        'ź' => ("z", ACUTE),
        'à' => ("a", GRAVE),
        'è' => ("e", GRAVE),
        'ì' => ("i", GRAVE),
        'ò' => ("o", GRAVE),
        'ù' => ("u", GRAVE),
        'â' => ("a", CIRCUMFLEX),
        'ê' => ("e", CIRCUMFLEX),
        'î' => ("i", CIRCUMFLEX),
        'ô' => ("o", CIRCUMFLEX),
        'û' => ("u", CIRCUMFLEX),
        'ä' => ("a", DIAERESIS),
        'ë' => ("e", DIAERESIS),
        'ï' => ("i", DIAERESIS),
        'ö' => ("o", DIAERESIS),
        'ü' => ("u", DIAERESIS),
        'ÿ' => ("y", DIAERESIS),
        'ã' => ("a", TILDE),
        'ñ' => ("n", TILDE),
        'õ' => ("o", TILDE),
        'ç' => ("c", CEDILLA),
        'å' => ("a", RING),
        'č' => ("c", CARON),
        'ě' => ("e", CARON),
        'ň' => ("n", CARON),
        'ř' => ("r", CARON),
        'š' => ("s", CARON),
        'ž' => ("z", CARON),
        'ø' => ("o", STROKE),
        'ł' => ("l", STROKE),
        'đ' => ("d", STROKE),
        // UEB has no modifier for these; print transcribers spell them out.
        'ß' => ("ss", &[]),
        'æ' => ("ae", &[]),
        'œ' => ("oe", &[]),
        _ => return None,
    })
}

fn punctuation(c: char, style: TextStyle) -> Vec<Cell> {
    let dots: &[&str] = match (style, c) {
        (TextStyle::Ueb, '.') => &["256"],
        (TextStyle::Ueb, ',') => &["2"],
        (TextStyle::Ueb, ';') => &["23"],
        (TextStyle::Ueb, ':') => &["25"],
        (TextStyle::Ueb, '?') => &["236"],
        (TextStyle::Ueb, '!') => &["235"],
        (TextStyle::Ueb, '-') => &["36"],
        (TextStyle::Ueb, '\'') => &["3"],
        (TextStyle::Ueb, '"') => &["6", "2356"],
        (TextStyle::Ueb, '(') => &["5", "126"],
        (TextStyle::Ueb, ')') => &["5", "345"],
        (TextStyle::Ueb, '[') => &["46", "126"],
        (TextStyle::Ueb, ']') => &["46", "345"],
        (TextStyle::Ueb, '/') => &["456", "34"],
        (TextStyle::Ueb, '&') => &["4", "12346"],
        (TextStyle::Ueb, '+') => &["5", "235"],
        (TextStyle::Ueb, '=') => &["5", "2356"],
        (TextStyle::Ueb, '*') => &["5", "35"],
        (TextStyle::Ueb, '#') => &["456", "1456"],
        (TextStyle::Ueb, '@') => &["4", "1"],
        (TextStyle::Ueb, '%') => &["46", "356"],
        (TextStyle::De, '.') => &["3"],
        (TextStyle::De, ',') => &["2"],
        (TextStyle::De, ';') => &["23"],
        (TextStyle::De, ':') => &["25"],
        (TextStyle::De, '?') => &["26"],
        (TextStyle::De, '!') => &["235"],
        (TextStyle::De, '-') => &["36"],
        (TextStyle::De, '\'') => &["6"],
        (TextStyle::De, '"') => &["236"],
        (TextStyle::De, '(' | ')') => &["2356"],
        (TextStyle::De, '/') => &["34"],
        (TextStyle::De, '+') => &["235"],
        (TextStyle::De, '&') => &["12346"],
        _ => &["123456"],
    };
    dots.iter().map(|d| Cell::dots(d)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::braille::cell::to_brf;

    fn ueb(text: &str) -> String {
        to_brf(&transcribe(text, TextStyle::Ueb))
    }

    fn de(text: &str) -> String {
        to_brf(&transcribe(text, TextStyle::De))
    }

    #[test]
    fn uncontracted_ueb() {
        assert_eq!(ueb("Weiss, Anna"), ",WEISS1 ,ANNA");
        assert_eq!(ueb("Round 3"), ",ROUND #C");
        assert_eq!(ueb("2024.05.01"), "#BJBD4JE4JA");
        assert_eq!(ueb("FIDE Open"), ",,FIDE ,OPEN");
        assert_eq!(ueb("  a   b "), "A B");
        assert_eq!(ueb("3a 3x"), "#C;A #CX");
        assert_eq!(ueb("(=)"), "\"<\"7\">");
        assert_eq!(ueb("Müller"), ",M^3ULLER");
        assert_eq!(ueb("Ä"), ",^3A");
        assert_eq!(ueb("Straße"), ",STRASSE");
        assert_eq!(ueb("日"), "=");
    }

    #[test]
    fn german_basisschrift() {
        assert_eq!(de("Müller, Jörg"), "M\\LLER1 J[RG");
        assert_eq!(de("Runde 3"), "RUNDE #C");
        assert_eq!(de("3a"), "#C,A");
        assert_eq!(de("Weiß."), "WEI!'");
    }
}
