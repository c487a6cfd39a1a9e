//! Number words for times and move counts, per language, and the vocabulary keys that say them.
//!
//! This module owns two things that must never disagree: the proper written form of a number
//! (`einundzwanzig`, `veintiuna`, `twenty-one`) for the transcript and text-to-speech, and the
//! sequence of vocabulary keys (clip stems) a clip speaker plays for it. Pure: no I/O.
//!
//! Clips, the same ranges in every language:
//! - 0..=59 (`num_0` ... `num_59`): one clip each, so everything a clock says (hours, minutes,
//!   seconds) is one natural clip per number; plus `num_N_m` and `num_N_f` where a language
//!   inflects (German only 1: "ein Zug", "eine Stunde"; Spanish every number ending in 1 except
//!   11: "veintiún minutos", "veintiuna horas"; English never);
//! - 60..=99: the tens (`num_60` ... `num_90`) with the unit, as the language says them: German
//!   `num_und_3` "dreiund" + `num_60` "sechzig", Spanish `num_60` "sesenta" + `num_y` "y" +
//!   `num_3` "tres", English `num_60` "sixty" + `num_3` "three";
//! - 100..=999: the hundreds part (`hundreds_1` ... `hundreds_9`: "hundert", "zweihundert";
//!   "ciento", "doscientos", feminine `hundreds_N_f` "doscientas"; "one hundred") and the rest as
//!   above; Spanish 100 alone is "cien" (`num_100`);
//! - beyond 999 (no clock or game gets there, but a wrong input must never be silent): digit by
//!   digit, text and clips alike ("eins null null null").
//!
//! The text is always the one proper word ("hundertdreiundsechzig") whatever the clips. Why not a
//! clip for every number up to 199: the clips are committed, and 0..59 whole plus parts above
//! keeps each pack's numbers near 2 MB instead of 5; numbers above 59 are only move counts and
//! material late in a game, where a short gap inside the number costs nothing.

use std::fmt::Write as _;

/// The languages whose number words tactus knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NumberLanguage {
    De,
    Es,
    En,
}

/// The grammatical form a number takes before a noun.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Form {
    /// Counting, or before a noun where the language does not inflect: "eins", "uno", "one".
    Counting,
    /// Before a masculine noun: "ein Zug", "un minuto", "veintiún minutos".
    Masculine,
    /// Before a feminine noun: "eine Stunde", "una hora", "doscientas horas".
    Feminine,
}

/// The highest number said with its proper words; above it, digit by digit.
pub const SPELLED_MAX: u32 = 999;
/// Numbers up to this one have a clip of their own.
pub const SINGLE_CLIP_MAX: u32 = 59;

/// A number as said: the text, and the vocabulary keys of the clips that say it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spelled {
    pub text: String,
    pub keys: Vec<String>,
}

impl NumberLanguage {
    /// The number language of a pack language tag ("de", "de-AT", "es", "en-GB").
    pub fn from_tag(tag: &str) -> Option<NumberLanguage> {
        let primary = tag.split(['-', '_']).next().unwrap_or("");
        match primary.to_ascii_lowercase().as_str() {
            "de" => Some(NumberLanguage::De),
            "es" => Some(NumberLanguage::Es),
            "en" => Some(NumberLanguage::En),
            _ => None,
        }
    }

    /// Whether the word for `n` (0..=99) differs in `form` from the counting form.
    fn has_form(self, n: u32, form: Form) -> bool {
        match (self, form) {
            (_, Form::Counting) | (NumberLanguage::En, _) => false,
            (NumberLanguage::De, _) => n == 1,
            (NumberLanguage::Es, _) => n % 10 == 1 && n != 11,
        }
    }

    /// Whether the hundreds part for `h` has a feminine form of its own.
    fn has_feminine_hundreds(self, h: u32) -> bool {
        self == NumberLanguage::Es && h >= 2
    }

    /// The word for `n` in 0..=99.
    fn below_hundred(self, n: u32, form: Form) -> String {
        debug_assert!(n <= 99);
        match self {
            NumberLanguage::De => de_below_hundred(n, form),
            NumberLanguage::Es => es_below_hundred(n, form),
            NumberLanguage::En => en_below_hundred(n),
        }
    }

    /// The keys of the clips that say `n` in 0..=99 (see the module docs).
    fn below_hundred_keys(self, n: u32, form: Form) -> Vec<String> {
        debug_assert!(n <= 99);
        let (tens, unit) = (n / 10 * 10, n % 10);
        if n <= SINGLE_CLIP_MAX || unit == 0 {
            return vec![below_hundred_key(self, n, form)];
        }
        match self {
            NumberLanguage::De => vec![format!("num_und_{unit}"), format!("num_{tens}")],
            NumberLanguage::Es => vec![
                format!("num_{tens}"),
                "num_y".to_owned(),
                below_hundred_key(self, unit, form),
            ],
            NumberLanguage::En => vec![format!("num_{tens}"), format!("num_{unit}")],
        }
    }

    /// The hundreds part for `h` in 1..=9, as used before the rest of the number.
    fn hundreds(self, h: u32, form: Form) -> String {
        debug_assert!((1..=9).contains(&h));
        match self {
            NumberLanguage::De if h == 1 => "hundert".to_owned(),
            NumberLanguage::De => format!("{}hundert", DE_UNITS[h as usize]),
            NumberLanguage::Es => {
                let masculine = ES_HUNDREDS[h as usize];
                if form == Form::Feminine && h >= 2 {
                    format!("{}as", masculine.trim_end_matches("os"))
                } else {
                    masculine.to_owned()
                }
            }
            NumberLanguage::En => format!("{} hundred", EN_UNITS[h as usize]),
        }
    }

    /// How the hundreds part and the rest join in the text ("hundert" + "eins" is one word).
    fn hundreds_joiner(self) -> &'static str {
        match self {
            NumberLanguage::De => "",
            NumberLanguage::Es | NumberLanguage::En => " ",
        }
    }
}

/// The key of the single-clip word for `n` (0..=99) in `form`.
fn below_hundred_key(lang: NumberLanguage, n: u32, form: Form) -> String {
    match form {
        _ if !lang.has_form(n, form) => format!("num_{n}"),
        Form::Masculine => format!("num_{n}_m"),
        Form::Feminine => format!("num_{n}_f"),
        Form::Counting => unreachable!("the counting form has no variant"),
    }
}

fn hundreds_key(lang: NumberLanguage, h: u32, form: Form) -> String {
    if form == Form::Feminine && lang.has_feminine_hundreds(h) {
        format!("hundreds_{h}_f")
    } else {
        format!("hundreds_{h}")
    }
}

/// `n` as said in `lang` before a noun of `form` (or counting). See the module docs for the keys.
pub fn spell(lang: NumberLanguage, n: u32, form: Form) -> Spelled {
    if n <= 99 {
        return Spelled {
            text: lang.below_hundred(n, form),
            keys: lang.below_hundred_keys(n, form),
        };
    }
    if n <= SPELLED_MAX {
        let (h, rest) = (n / 100, n % 100);
        if rest == 0 && lang == NumberLanguage::Es && h == 1 {
            return Spelled {
                text: "cien".to_owned(),
                keys: vec!["num_100".to_owned()],
            };
        }
        let mut text = lang.hundreds(h, form);
        let mut keys = vec![hundreds_key(lang, h, form)];
        if rest > 0 {
            // German inflects only a lone "eins" ("eine Stunde", but "hunderteins Stunden").
            let rest_form = if lang == NumberLanguage::De {
                Form::Counting
            } else {
                form
            };
            text.push_str(lang.hundreds_joiner());
            text.push_str(&lang.below_hundred(rest, rest_form));
            keys.extend(lang.below_hundred_keys(rest, rest_form));
        }
        return Spelled { text, keys };
    }
    // Digit by digit: never a silent gap, whatever number comes in.
    let mut text = String::new();
    let mut keys = Vec::new();
    for digit in n.to_string().bytes().map(|b| u32::from(b - b'0')) {
        if !text.is_empty() {
            text.push(' ');
        }
        let _ = write!(text, "{}", lang.below_hundred(digit, Form::Counting));
        keys.push(below_hundred_key(lang, digit, Form::Counting));
    }
    Spelled { text, keys }
}

/// Every number key of `lang` with its text: what a pack's vocabulary holds for numbers (and what
/// `voices/make-clips.sh` records). Every key [`spell`] can return is here.
pub fn vocabulary(lang: NumberLanguage) -> Vec<(String, String)> {
    let mut words = Vec::new();
    for n in (0..=SINGLE_CLIP_MAX).chain((60..=90).step_by(10)) {
        words.push((format!("num_{n}"), lang.below_hundred(n, Form::Counting)));
        for form in [Form::Masculine, Form::Feminine] {
            if lang.has_form(n, form) {
                words.push((
                    below_hundred_key(lang, n, form),
                    lang.below_hundred(n, form),
                ));
            }
        }
    }
    match lang {
        NumberLanguage::De => {
            for (unit, word) in DE_UNITS.iter().enumerate().skip(1) {
                // "einundsechzig": the unit loses its -s inside the compound.
                let prefix = if unit == 1 { "ein" } else { word };
                words.push((format!("num_und_{unit}"), format!("{prefix}und")));
            }
        }
        NumberLanguage::Es => words.push(("num_y".to_owned(), "y".to_owned())),
        NumberLanguage::En => {}
    }
    for h in 1..=9 {
        words.push((format!("hundreds_{h}"), lang.hundreds(h, Form::Counting)));
        if lang.has_feminine_hundreds(h) {
            words.push((
                hundreds_key(lang, h, Form::Feminine),
                lang.hundreds(h, Form::Feminine),
            ));
        }
    }
    if lang == NumberLanguage::Es {
        words.push(("num_100".to_owned(), "cien".to_owned()));
    }
    words
}

const DE_UNITS: [&str; 10] = [
    "null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun",
];
const DE_TEENS: [&str; 10] = [
    "zehn",
    "elf",
    "zwölf",
    "dreizehn",
    "vierzehn",
    "fünfzehn",
    "sechzehn",
    "siebzehn",
    "achtzehn",
    "neunzehn",
];
const DE_TENS: [&str; 10] = [
    "", "", "zwanzig", "dreißig", "vierzig", "fünfzig", "sechzig", "siebzig", "achtzig", "neunzig",
];

fn de_below_hundred(n: u32, form: Form) -> String {
    let (tens, unit) = ((n / 10) as usize, (n % 10) as usize);
    match (tens, unit) {
        (0, 1) => match form {
            Form::Counting => "eins",
            Form::Masculine => "ein",
            Form::Feminine => "eine",
        }
        .to_owned(),
        (0, _) => DE_UNITS[unit].to_owned(),
        (1, _) => DE_TEENS[unit].to_owned(),
        (_, 0) => DE_TENS[tens].to_owned(),
        // "einundzwanzig": the unit loses its -s inside the compound.
        (_, 1) => format!("einund{}", DE_TENS[tens]),
        _ => format!("{}und{}", DE_UNITS[unit], DE_TENS[tens]),
    }
}

const ES_BELOW_THIRTY: [&str; 30] = [
    "cero",
    "uno",
    "dos",
    "tres",
    "cuatro",
    "cinco",
    "seis",
    "siete",
    "ocho",
    "nueve",
    "diez",
    "once",
    "doce",
    "trece",
    "catorce",
    "quince",
    "dieciséis",
    "diecisiete",
    "dieciocho",
    "diecinueve",
    "veinte",
    "veintiuno",
    "veintidós",
    "veintitrés",
    "veinticuatro",
    "veinticinco",
    "veintiséis",
    "veintisiete",
    "veintiocho",
    "veintinueve",
];
const ES_TENS: [&str; 10] = [
    "",
    "",
    "",
    "treinta",
    "cuarenta",
    "cincuenta",
    "sesenta",
    "setenta",
    "ochenta",
    "noventa",
];
const ES_HUNDREDS: [&str; 10] = [
    "",
    "ciento",
    "doscientos",
    "trescientos",
    "cuatrocientos",
    "quinientos",
    "seiscientos",
    "setecientos",
    "ochocientos",
    "novecientos",
];

fn es_below_hundred(n: u32, form: Form) -> String {
    let word = if n < 30 {
        ES_BELOW_THIRTY[n as usize].to_owned()
    } else if n.is_multiple_of(10) {
        ES_TENS[(n / 10) as usize].to_owned()
    } else {
        format!(
            "{} y {}",
            ES_TENS[(n / 10) as usize],
            ES_BELOW_THIRTY[(n % 10) as usize]
        )
    };
    if n % 10 != 1 || n == 11 {
        return word;
    }
    // "uno" apocopates before a masculine noun ("veintiún minutos") and becomes "una" before a
    // feminine one ("veintiuna horas").
    let stem = word.strip_suffix("uno").unwrap_or(&word);
    match form {
        Form::Counting => word.clone(),
        Form::Masculine if n == 21 => "veintiún".to_owned(),
        Form::Masculine => format!("{stem}un"),
        Form::Feminine => format!("{stem}una"),
    }
}

const EN_UNITS: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const EN_TENS: [&str; 10] = [
    "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

fn en_below_hundred(n: u32) -> String {
    match n {
        0..=19 => EN_UNITS[n as usize].to_owned(),
        _ if n.is_multiple_of(10) => EN_TENS[(n / 10) as usize].to_owned(),
        _ => format!(
            "{}-{}",
            EN_TENS[(n / 10) as usize],
            EN_UNITS[(n % 10) as usize]
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::{Form::*, NumberLanguage::*, *};

    fn text(lang: NumberLanguage, n: u32, form: Form) -> String {
        spell(lang, n, form).text
    }

    #[test]
    fn german_numbers() {
        let cases = [
            (0, Counting, "null"),
            (1, Counting, "eins"),
            (1, Masculine, "ein"),
            (1, Feminine, "eine"),
            (2, Feminine, "zwei"),
            (12, Counting, "zwölf"),
            (16, Counting, "sechzehn"),
            (17, Counting, "siebzehn"),
            (21, Counting, "einundzwanzig"),
            (21, Feminine, "einundzwanzig"),
            (23, Counting, "dreiundzwanzig"),
            (30, Counting, "dreißig"),
            (58, Counting, "achtundfünfzig"),
            (99, Counting, "neunundneunzig"),
            (100, Counting, "hundert"),
            (101, Counting, "hunderteins"),
            (101, Masculine, "hunderteins"),
            (123, Counting, "hundertdreiundzwanzig"),
            (200, Counting, "zweihundert"),
            (999, Counting, "neunhundertneunundneunzig"),
            (1000, Counting, "eins null null null"),
        ];
        for (n, form, want) in cases {
            assert_eq!(text(De, n, form), want, "{n} {form:?}");
        }
    }

    #[test]
    fn spanish_numbers() {
        let cases = [
            (0, Counting, "cero"),
            (1, Counting, "uno"),
            (1, Masculine, "un"),
            (1, Feminine, "una"),
            (11, Masculine, "once"),
            (16, Counting, "dieciséis"),
            (21, Counting, "veintiuno"),
            (21, Masculine, "veintiún"),
            (21, Feminine, "veintiuna"),
            (22, Counting, "veintidós"),
            (31, Masculine, "treinta y un"),
            (31, Feminine, "treinta y una"),
            (58, Counting, "cincuenta y ocho"),
            (100, Counting, "cien"),
            (100, Feminine, "cien"),
            (101, Counting, "ciento uno"),
            (121, Feminine, "ciento veintiuna"),
            (200, Feminine, "doscientas"),
            (221, Masculine, "doscientos veintiún"),
            (516, Counting, "quinientos dieciséis"),
            (1200, Counting, "uno dos cero cero"),
        ];
        for (n, form, want) in cases {
            assert_eq!(text(Es, n, form), want, "{n} {form:?}");
        }
    }

    #[test]
    fn english_numbers() {
        let cases = [
            (0, "zero"),
            (1, "one"),
            (13, "thirteen"),
            (21, "twenty-one"),
            (40, "forty"),
            (100, "one hundred"),
            (115, "one hundred fifteen"),
            (999, "nine hundred ninety-nine"),
        ];
        for (n, want) in cases {
            for form in [Counting, Masculine, Feminine] {
                assert_eq!(text(En, n, form), want, "{n} {form:?}");
            }
        }
    }

    #[test]
    fn keys_say_what_the_text_says() {
        assert_eq!(spell(De, 1, Feminine).keys, ["num_1_f"]);
        assert_eq!(spell(De, 21, Feminine).keys, ["num_21"]);
        assert_eq!(spell(De, 123, Counting).keys, ["hundreds_1", "num_23"]);
        assert_eq!(spell(De, 300, Counting).keys, ["hundreds_3"]);
        assert_eq!(spell(Es, 221, Feminine).keys, ["hundreds_2_f", "num_21_f"]);
        assert_eq!(spell(Es, 100, Counting).keys, ["num_100"]);
        assert_eq!(
            spell(En, 1005, Counting).keys,
            ["num_1", "num_0", "num_0", "num_5"]
        );
        assert_eq!(spell(De, 63, Counting).keys, ["num_und_3", "num_60"]);
        assert_eq!(
            spell(De, 171, Counting).keys,
            ["hundreds_1", "num_und_1", "num_70"]
        );
        assert_eq!(spell(Es, 61, Feminine).keys, ["num_60", "num_y", "num_1_f"]);
        assert_eq!(spell(En, 99, Counting).keys, ["num_90", "num_9"]);
        for lang in [De, Es, En] {
            let vocabulary: std::collections::BTreeMap<_, _> =
                vocabulary(lang).into_iter().collect();
            // Where a number is one clip, the clip says exactly the text.
            for n in (0..=SINGLE_CLIP_MAX).chain([60, 70, 80, 90]) {
                for form in [Counting, Masculine, Feminine] {
                    let s = spell(lang, n, form);
                    assert_eq!(s.keys.len(), 1, "{lang:?} {n}");
                    assert_eq!(vocabulary[&s.keys[0]], s.text, "{lang:?} {n} {form:?}");
                }
            }
            // Composed numbers say the same words: the clip texts joined are the text, give or
            // take the spaces and hyphens a language writes between them.
            for n in 60..=999 {
                for form in [Counting, Masculine, Feminine] {
                    let s = spell(lang, n, form);
                    let said: String = s.keys.iter().map(|k| vocabulary[k].as_str()).collect();
                    let squash = |t: &str| t.replace([' ', '-'], "");
                    assert_eq!(squash(&said), squash(&s.text), "{lang:?} {n} {form:?}");
                }
            }
        }
    }

    #[test]
    fn every_key_spell_returns_is_in_the_vocabulary() {
        for lang in [De, Es, En] {
            let vocabulary: std::collections::BTreeSet<_> =
                vocabulary(lang).into_iter().map(|(k, _)| k).collect();
            for n in (0..=1_200).chain([u32::MAX]) {
                for form in [Counting, Masculine, Feminine] {
                    let s = spell(lang, n, form);
                    assert!(!s.text.is_empty() && !s.keys.is_empty());
                    for key in &s.keys {
                        assert!(vocabulary.contains(key), "{lang:?} {n} {form:?}: {key}");
                    }
                }
            }
        }
    }

    #[test]
    fn language_tags() {
        assert_eq!(NumberLanguage::from_tag("de-AT"), Some(De));
        assert_eq!(NumberLanguage::from_tag("ES"), Some(Es));
        assert_eq!(NumberLanguage::from_tag("en_GB"), Some(En));
        assert_eq!(NumberLanguage::from_tag("fr"), None);
    }
}
