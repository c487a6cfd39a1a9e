//! Voice packs: a language's words and templates, read from `voice.toml` and checked.
//!
//! A pack is data (`voices/<name>/voice.toml`, format in `voices/README.md`): `[words]` maps a
//! vocabulary key to its text (the key is also the stem of its clip file), `[templates]` say how
//! each announcement is worded, as a sequence of word keys, `{slots}` the renderer fills, and
//! punctuation (a pause). [`VoicePack::parse`] checks everything an announcement can need up front,
//! so that rendering ([`super::voice`]) never meets a missing word: a pack that lacks one is
//! refused at start-up with the pack, the word and what needs it, never a silent gap at the board.
//!
//! Pure: parsing only. Reading packs and clips from disk is the shell's (`store::voices` in `tactus`).
//!
//! Where things live: this file holds the pack ([`VoicePack`]) and its settings, words and
//! errors; `catalogue` lists every template and word the renderer uses (what a pack must
//! provide); `read` is the file format and [`VoicePack::parse`] with its checks.

mod catalogue;
mod read;

use std::collections::{BTreeMap, BTreeSet};

use super::numbers::NumberLanguage;

pub(super) use catalogue::{PIECE_SLOTS, TEMPLATES, color_key, role_key};
#[cfg(test)]
pub(super) use {
    catalogue::ROLES,
    read::{PUNCTUATION, parse_template, valid_key},
};

use catalogue::optional_file_words;

/// The clip stem that stands for a short pause between words.
pub const PAUSE: &str = "_pause";

/// The pack used when none is configured.
pub const DEFAULT_VOICE: &str = "de-fide";

/// The packs compiled into the binary (their `voice.toml`; clips stay on disk).
pub const BUILTIN: &[&str] = &["de-fide", "es-fide", "en"];

/// Below this much time, a duration is said with its seconds ("vierzehn Minuten neunundvierzig
/// Sekunden"); from here on in hours and minutes only. Under a minute it is seconds alone. An
/// hour, because a player who asks how much he has left in the last hour plans his moves by it:
/// "vierzehn Minuten" with 14:49 left was not enough (issue 37, point 9; screen-reader chess
/// players ask for "5 minutes 10 seconds"), and a player who asks must not have to ask twice.
pub const SECONDS_SAID_BELOW_MS: i64 = 60 * 60_000;

/// How moves are worded.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Deserialize, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    /// "Springer Felix drei": what SAN writes, disambiguation included ("Springer Bella David zwei").
    #[default]
    San,
    /// "Springer Gustav eins Felix drei": from-square and to-square.
    Long,
}

impl std::str::FromStr for Style {
    type Err = String;
    fn from_str(s: &str) -> Result<Style, String> {
        match s {
            "san" => Ok(Style::San),
            "long" => Ok(Style::Long),
            other => Err(format!("unknown style '{other}': use san or long")),
        }
    }
}

/// Which names the files get: the FIDE names (Anna ... Hector, or the pack's own such as Ana,
/// Beatriz), plain letters, or the NATO alphabet. `file_*`, `letter_*` and `nato_*` words.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Deserialize, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum FileNames {
    #[default]
    Fide,
    Letters,
    Nato,
}

impl FileNames {
    pub const ALL: [FileNames; 3] = [FileNames::Fide, FileNames::Letters, FileNames::Nato];

    pub fn as_str(self) -> &'static str {
        match self {
            FileNames::Fide => "fide",
            FileNames::Letters => "letters",
            FileNames::Nato => "nato",
        }
    }

    /// The prefix of the eight word keys (`file_a`, `letter_a`, `nato_a`).
    pub(super) fn prefix(self) -> &'static str {
        match self {
            FileNames::Fide => "file_",
            FileNames::Letters => "letter_",
            FileNames::Nato => "nato_",
        }
    }
}

impl std::str::FromStr for FileNames {
    type Err = String;
    fn from_str(s: &str) -> Result<FileNames, String> {
        FileNames::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| format!("unknown file names '{s}': use fide, letters or nato"))
    }
}

/// Splits a voice setting `NAME` or `NAME:FILES` (`en:nato`, `de-fide:letters`) into the pack name
/// and the file names it asks for.
pub fn split_spec(spec: &str) -> Result<(&str, Option<FileNames>), String> {
    match spec.split_once(':') {
        None => Ok((spec, None)),
        Some((name, files)) => Ok((name, Some(files.parse()?))),
    }
}

/// A pack that cannot be used, with which pack, where it came from and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("voice pack '{pack}' ({origin}): {kind}")]
pub struct VoiceError {
    pub pack: String,
    /// The file or source the pack came from (`voices/de-fide/voice.toml`, `built-in de-fide`).
    pub origin: String,
    pub kind: VoiceErrorKind,
}

/// What is wrong with a pack.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VoiceErrorKind {
    #[error("{0}")]
    Syntax(String),
    #[error("the word '{word}' is missing from [words]; it is needed by {needed_by}")]
    MissingWord { word: String, needed_by: String },
    #[error(
        "the template '{template}' is missing from [templates] (it may use the slots: {slots})"
    )]
    MissingTemplate { template: String, slots: String },
    #[error("there is no template called '{template}'; the templates are: {known}")]
    UnknownTemplate { template: String, known: String },
    #[error(
        "template '{template}' uses the slot {{{slot}}}, which it cannot fill; its slots are: {allowed}"
    )]
    UnknownSlot {
        template: String,
        slot: String,
        allowed: String,
    },
    #[error(
        "the word key '{word}' is not allowed: keys name clip files, so use lower-case ASCII letters, \
         digits and '_' (not first)"
    )]
    BadKey { word: String },
    #[error("the word '{word}' has no text")]
    EmptyWord { word: String },
    #[error("the word '{word}' is used by no template and by no announcement; remove it or use it")]
    UnusedWord { word: String },
    #[error("the word '{word}' is made of '{part}', which is not a plain word of the pack")]
    BadCompound { word: String, part: String },
    #[error(
        "tactus has no number words for the language '{language}' (it knows de, es and en); \
         numbers for times and move counts cannot be said"
    )]
    NoNumberWords { language: String },
    /// A `[commands]` or `[arguments]` entry that is not a command or argument of the blind
    /// player's, or a word that already means something else.
    #[error("{0}")]
    Commands(String),
    #[error("the file names '{files}' are not in this pack (words {prefix}a ... {prefix}h)")]
    NoSuchFileNames { files: String, prefix: String },
    #[error("the heading '{key}' in [record] has no text")]
    EmptyHeading { key: &'static str },
    /// A `[keypad]` text that is empty or names a slot its line does not have.
    #[error("the text '{key}' in [keypad] {problem}")]
    KeypadText { key: &'static str, problem: String },
}

/// `[keypad]`: the lines his keypad's display shows that are not announcements, in the pack's
/// language (written, never said: no clips). Without the section, English.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeypadWords {
    /// The reply when his keypad takes his seat; `{side}` is his colour.
    pub ready: String,
    /// The console lost the daemon and tries again by itself.
    pub away: String,
    /// The console has the daemon again.
    pub back: String,
    /// A line typed while the daemon was away, not sent; `{line}` is the line.
    pub not_sent: String,
    /// His colour in `ready`: the `[record]` headings when the pack has them.
    pub sides: shakmaty::ByColor<String>,
}

impl Default for KeypadWords {
    fn default() -> KeypadWords {
        KeypadWords {
            ready: "keypad of {side}: type help for the commands".into(),
            away: "tactus is not reachable: trying again every second".into(),
            back: "connected again".into(),
            not_sent: "not sent, tactus is not reachable: {line}".into(),
            sides: shakmaty::ByColor {
                white: "white".into(),
                black: "black".into(),
            },
        }
    }
}

impl KeypadWords {
    /// Each text with its key and the slots it may hold.
    pub(super) fn all(&self) -> [(&'static str, &str, &'static [&'static str]); 4] {
        [
            ("ready", &self.ready, &["side"]),
            ("away", &self.away, &[]),
            ("back", &self.back, &[]),
            ("not_sent", &self.not_sent, &["line"]),
        ]
    }

    /// The reply when the keypad of `side`'s player takes his seat.
    pub fn ready(&self, side: shakmaty::Color) -> String {
        self.ready.replace("{side}", &self.sides[side])
    }

    /// A typed line not sent while the daemon was away.
    pub fn not_sent(&self, line: &str) -> String {
        self.not_sent.replace("{line}", line)
    }
}

/// `[record]`: words the records write in the pack's language and nobody says (no clips): the
/// headings of the blind player's Braille score ("Turnier", "Weiß"), so that a German player's
/// score is headed in German whatever the Braille profile's letters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordWords {
    pub event: String,
    pub site: String,
    pub date: String,
    pub round: String,
    pub white: String,
    pub black: String,
}

impl RecordWords {
    /// Each heading with its key.
    pub fn all(&self) -> [(&'static str, &str); 6] {
        [
            ("event", &self.event),
            ("site", &self.site),
            ("date", &self.date),
            ("round", &self.round),
            ("white", &self.white),
            ("black", &self.black),
        ]
    }
}

/// A vocabulary entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Word {
    /// One clip: its text, and the language to record it in when it differs from the pack's
    /// (es-fide says the German ranks and pieces with a German voice).
    Spoken { text: String, lang: Option<String> },
    /// Said as a sequence of plain words (their clips in order), e.g. es-fide's "Springer blanco"
    /// is the German piece name and the Spanish adjective.
    Compound(Vec<String>),
}

/// One clip a pack needs: `voices/<pack>/clips/<stem>.wav` says `text` in `language`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClipText {
    pub stem: String,
    pub text: String,
    pub language: String,
}

/// A loaded, checked voice pack.
#[derive(Debug, Clone)]
pub struct VoicePack {
    name: String,
    language: String,
    description: String,
    pub(super) numbers: NumberLanguage,
    pub(super) options: Options,
    pub(super) words: BTreeMap<String, Word>,
    pub(super) templates: BTreeMap<String, Vec<Token>>,
    /// `[record]`, if the pack has it.
    record: Option<RecordWords>,
    /// What the blind player types in this language (`[commands]`, `[arguments]`).
    pub(super) commands: crate::commands::Words,
    /// What his keypad shows that is not said (`[keypad]`).
    keypad: KeypadWords,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Options {
    pub(super) pawn_name: bool,
    pub(super) name_captured: bool,
    pub(super) files: FileNames,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Token {
    Word(String),
    Slot(String),
    Pause(char),
}

impl VoicePack {
    /// A pack compiled into the binary ([`BUILTIN`]): its words and templates, not its clips.
    pub fn builtin(name: &str) -> Option<VoicePack> {
        let text = match name {
            "de-fide" => include_str!("../../../../voices/de-fide/voice.toml"),
            "es-fide" => include_str!("../../../../voices/es-fide/voice.toml"),
            "en" => include_str!("../../../../voices/en/voice.toml"),
            _ => return None,
        };
        // The shipped packs are checked by the tests, so this parse cannot fail in a release.
        Some(
            VoicePack::parse(name, text, &format!("built-in {name}"))
                .expect("the built-in voice packs are checked by the tests"),
        )
    }

    /// This pack with other file names. Fails when the pack has no such words.
    pub fn with_files(mut self, files: FileNames) -> Result<VoicePack, VoiceErrorKind> {
        if !self.available_files().contains(&files) {
            return Err(VoiceErrorKind::NoSuchFileNames {
                files: files.as_str().to_owned(),
                prefix: files.prefix().to_owned(),
            });
        }
        self.options.files = files;
        Ok(self)
    }

    /// This pack saying (or not) the pawn's name in pawn moves ("Bauer Eva vier" / "Eva vier").
    pub fn with_pawn_name(mut self, say: bool) -> VoicePack {
        self.options.pawn_name = say;
        self
    }

    /// This pack naming (or not) the captured piece ("Springer schlägt Turm auf Felix drei").
    pub fn with_name_captured(mut self, say: bool) -> VoicePack {
        self.options.name_captured = say;
        self
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The pack's language tag ("de", "es", "en"), e.g. to pick a text-to-speech voice.
    pub fn language(&self) -> &str {
        &self.language
    }

    pub fn description(&self) -> &str {
        &self.description
    }

    /// The file names in use.
    pub fn files(&self) -> FileNames {
        self.options.files
    }

    /// The file names this pack can say.
    pub fn available_files(&self) -> Vec<FileNames> {
        FileNames::ALL
            .into_iter()
            .filter(|f| {
                optional_file_words(*f)
                    .iter()
                    .all(|w| self.words.contains_key(w))
            })
            .collect()
    }

    /// The words the records write in this pack's language (`[record]`), if it has them.
    pub fn record_words(&self) -> Option<&RecordWords> {
        self.record.as_ref()
    }

    /// What the blind player types in this language: his commands' and their arguments' words
    /// (the English ones are understood too).
    pub fn commands(&self) -> &crate::commands::Words {
        &self.commands
    }

    /// What his keypad's display shows in this language that is not an announcement: the
    /// reply when it takes his seat, the console's own remarks when the daemon is away.
    pub fn keypad(&self) -> &KeypadWords {
        &self.keypad
    }

    /// The vocabulary.
    pub fn words(&self) -> &BTreeMap<String, Word> {
        &self.words
    }

    /// Every clip any announcement can need: one per plain word (compound words are said with
    /// the clips of their parts). [`PAUSE`] is not a file and is not listed.
    pub fn clip_stems(&self) -> BTreeSet<String> {
        self.clip_texts().into_iter().map(|c| c.stem).collect()
    }

    /// Every clip with the text it says and the language to say it in: what
    /// `voices/make-clips.sh` records (through `tactus voices --clip-list`).
    pub fn clip_texts(&self) -> Vec<ClipText> {
        self.words
            .iter()
            .filter_map(|(stem, word)| match word {
                Word::Spoken { text, lang } => Some(ClipText {
                    stem: stem.clone(),
                    text: text.clone(),
                    language: lang.clone().unwrap_or_else(|| self.language.clone()),
                }),
                Word::Compound(_) => None,
            })
            .collect()
    }
}
