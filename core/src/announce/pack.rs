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

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use shakmaty::{Color, Role};

use super::numbers::{self, NumberLanguage};

/// The clip stem that stands for a short pause between words.
pub const PAUSE: &str = "_pause";

/// The pack used when none is configured.
pub const DEFAULT_VOICE: &str = "de-fide";

/// The packs compiled into the binary (their `voice.toml`; clips stay on disk).
pub const BUILTIN: &[&str] = &["de-fide", "es-fide", "en"];

/// Below this much time, a duration is said with its seconds ("zwei Minuten fünfzehn Sekunden");
/// from here on in hours and minutes only. Under a minute it is seconds alone. Ten minutes because
/// that is where a player starts to count seconds, and a player who asks then must not have to
/// ask twice.
pub const SECONDS_SAID_BELOW_MS: i64 = 10 * 60_000;

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
    #[error("the file names '{files}' are not in this pack (words {prefix}a ... {prefix}h)")]
    NoSuchFileNames { files: String, prefix: String },
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

// ---------------------------------------------------------------------------------------------
// The catalogue: every template and every word the renderer itself uses. The parser checks a pack
// against it, which is what makes rendering total.

pub(super) const PIECE_SLOTS: [&str; 3] = ["piece", "colored", "a_piece"];
const COUNT_SLOTS: &[&str] = &["n", "n_m", "n_f"];

pub(super) struct TemplateSpec {
    pub(super) name: &'static str,
    pub(super) slots: &'static [&'static str],
    pub(super) required: bool,
}

const fn t(name: &'static str, slots: &'static [&'static str]) -> TemplateSpec {
    TemplateSpec {
        name,
        slots,
        required: true,
    }
}

pub(super) const TEMPLATES: &[TemplateSpec] = &[
    t("move", &["piece", "origin", "to"]),
    t("capture", &["piece", "origin", "to"]),
    t("capture_named", &["piece", "origin", "to", "captured"]),
    t("en_passant", &["piece", "origin", "to"]),
    t("castle_short", &[]),
    t("castle_long", &[]),
    t("promotion", &["move", "promoted"]),
    t("check", &["move"]),
    t("mate", &["move"]),
    t("stalemate", &[]),
    t("dead_position", &[]),
    t("draw_offered", &["side"]),
    t("draw_accepted", &[]),
    t("draw_declined", &["side"]),
    t("claim_made", &["side", "reason"]),
    t("claim_upheld", &["reason"]),
    t("claim_rejected", &["reason"]),
    t("flag_fell", &["side"]),
    t("result_white", &[]),
    t("result_black", &[]),
    t("result_draw", &[]),
    t("touched", &["piece", "colored", "a_piece", "square"]),
    t("illegal_move", &[]),
    t(
        "guidance_misplaced",
        &["piece", "colored", "a_piece", "square", "target"],
    ),
    t(
        "guidance_missing",
        &["piece", "colored", "a_piece", "square"],
    ),
    t("guidance_extra", &["piece", "colored", "a_piece", "square"]),
    t("guidance_extra_unknown", &["square"]),
    t(
        "guidance_wrong",
        &[
            "square",
            "found",
            "found_colored",
            "a_found",
            "belongs",
            "belongs_colored",
            "a_belongs",
        ],
    ),
    t("moves_one", COUNT_SLOTS),
    t("moves", COUNT_SLOTS),
    t("hours_one", COUNT_SLOTS),
    t("hours", COUNT_SLOTS),
    t("minutes_one", COUNT_SLOTS),
    t("minutes", COUNT_SLOTS),
    t("seconds_one", COUNT_SLOTS),
    t("seconds", COUNT_SLOTS),
    TemplateSpec {
        name: "duration_join",
        slots: &[],
        required: false,
    },
    t("moves_completed", &["white", "black"]),
    t(
        "times",
        &["white_used", "white_left", "black_used", "black_left"],
    ),
    t(
        "square_contents",
        &["square", "piece", "colored", "a_piece"],
    ),
    t("square_empty", &["square"]),
    t("line_item", &["square", "piece", "colored", "a_piece"]),
    t("line_empty", &[]),
    t(
        "pieces_of_kind",
        &["piece", "colored", "side", "squares", "count"],
    ),
    t("pieces_of_kind_none", &["piece", "colored", "side"]),
    t("material", &["white", "black"]),
    t("to_move", &["side"]),
    t("board_disconnected", &["board"]),
    t("board_reconnected", &["board"]),
    t("game_recovered", &[]),
    t("clocks_paused", &[]),
    t("clocks_resumed", &[]),
    t("adjourned", &["side"]),
    t("retraced", &["side"]),
    t("no_move_yet", &[]),
    t("no_clock", &[]),
    t("envelope_opened", &[]),
    t("sealed_move_invalid", &[]),
    t("speech_fallback", &[]),
    t("move_held", &[]),
    t("move_required", &["move"]),
    t("no_move_to_count", &[]),
    t("own_move", &["move"]),
    t("clock_changed", &["side"]),
    t("hint", &["move"]),
    t("standing_equal", &[]),
    t("standing_slightly", &["side"]),
    t("standing_clearly", &["side"]),
    t("standing_winning", &["side"]),
    t("standing_mate", &["side", "n"]),
    t("opponent_away", &[]),
    t("opponent_back", &[]),
    t("training_only", &[]),
    t("review_lost_material", &["n", "played", "better"]),
    t("review_missed_mate", &["n", "played", "better"]),
    t("review_end", &[]),
];

pub(super) const ROLES: [Role; 6] = [
    Role::King,
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
    Role::Pawn,
];
const FILE_LETTERS: [char; 8] = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

pub(super) fn role_key(role: Role) -> &'static str {
    match role {
        Role::King => "king",
        Role::Queen => "queen",
        Role::Rook => "rook",
        Role::Bishop => "bishop",
        Role::Knight => "knight",
        Role::Pawn => "pawn",
    }
}

pub(super) fn color_key(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The words the renderer uses by name (beyond those in templates and the numbers), with what
/// needs each: the "needed by" of a missing-word error.
fn code_words() -> Vec<(String, &'static str)> {
    let mut words = Vec::new();
    for letter in FILE_LETTERS {
        words.push((format!("file_{letter}"), "every square (the file names)"));
    }
    for rank in 1..=8 {
        words.push((format!("rank_{rank}"), "every square (the rank names)"));
    }
    for role in ROLES {
        words.push((
            role_key(role).to_owned(),
            "moves and pieces (the piece names)",
        ));
        for color in [Color::White, Color::Black] {
            let (c, r) = (color_key(color), role_key(role));
            words.push((
                format!("{c}_{r}"),
                "the {colored} slot (a piece with its colour)",
            ));
            words.push((
                format!("a_{c}_{r}"),
                "the {a_piece} slot (\"a white pawn\")",
            ));
        }
    }
    words.push(("side_white".to_owned(), "the {side} slot"));
    words.push(("side_black".to_owned(), "the {side} slot"));
    words.push(("board_tactile".to_owned(), "the {board} slot"));
    words.push(("board_sighted".to_owned(), "the {board} slot"));
    words.push((
        "reason_repetition".to_owned(),
        "claims under 9.2 ({reason})",
    ));
    words.push((
        "reason_fifty_moves".to_owned(),
        "claims under 9.3 ({reason})",
    ));
    words
}

/// The optional file-name sets: all eight words or none.
fn optional_file_words(files: FileNames) -> Vec<String> {
    FILE_LETTERS
        .iter()
        .map(|l| format!("{}{l}", files.prefix()))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The file format.

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PackFile {
    language: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    options: OptionsFile,
    words: BTreeMap<String, toml::Value>,
    templates: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OptionsFile {
    /// Say the pawn's name in pawn moves ("Bauer Eva vier" rather than "Eva vier").
    #[serde(default = "yes")]
    pawn_name: bool,
    /// Name the captured piece ("Springer schlägt Turm auf Felix drei").
    #[serde(default)]
    name_captured: bool,
    #[serde(default)]
    files: FileNames,
}

fn yes() -> bool {
    true
}

impl Default for OptionsFile {
    fn default() -> Self {
        OptionsFile {
            pawn_name: true,
            name_captured: false,
            files: FileNames::Fide,
        }
    }
}

/// A `[words]` entry: `"text"`, `{ text = "...", lang = "de" }` or `["key", "key"]`. Read by hand
/// from the TOML value so that a malformed entry gets an error naming the word.
fn read_word(key: &str, value: toml::Value) -> Result<Word, String> {
    use toml::Value;
    let shape = || {
        format!(
            "the word '{key}' must be a text (\"Springer\"), a table ({{ text = \"Springer\", \
             lang = \"de\" }}) or a list of word keys ([\"knight\", \"white_m\"])"
        )
    };
    match value {
        Value::String(text) => Ok(Word::Spoken { text, lang: None }),
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::String(part) => Ok(part),
                _ => Err(shape()),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Word::Compound),
        Value::Table(mut table) => {
            let text = match table.remove("text") {
                Some(Value::String(text)) => text,
                _ => return Err(shape()),
            };
            let lang = match table.remove("lang") {
                None => None,
                Some(Value::String(lang)) => Some(lang),
                Some(_) => return Err(shape()),
            };
            match table.keys().next() {
                Some(other) => Err(format!(
                    "the word '{key}' has an unknown field '{other}' (fields: text, lang)"
                )),
                None => Ok(Word::Spoken { text, lang }),
            }
        }
        _ => Err(shape()),
    }
}

pub(super) fn valid_key(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

pub(super) const PUNCTUATION: &[char] = &[',', '.', ';', ':', '!', '?'];

/// Reads a template: whitespace-separated word keys and `{slots}`; punctuation (alone or at the
/// end of a token) is a pause.
pub(super) fn parse_template(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    for raw in text.split_whitespace() {
        let core = raw.trim_end_matches(PUNCTUATION);
        if !core.is_empty() {
            if let Some(slot) = core.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                if !valid_key(slot) {
                    return Err(format!("'{raw}' is not a slot: write {{name}}"));
                }
                tokens.push(Token::Slot(slot.to_owned()));
            } else if valid_key(core) {
                tokens.push(Token::Word(core.to_owned()));
            } else {
                return Err(format!(
                    "'{raw}' is neither a word key (lower-case ASCII, digits, '_') nor a {{slot}}; \
                     text belongs in [words]"
                ));
            }
        }
        tokens.extend(raw[core.len()..].chars().map(Token::Pause));
    }
    Ok(tokens)
}

/// The pack's vocabulary: the number words of its language first, so that a pack may override
/// any of them, then its `[words]`, each checked, and every compound made of spoken words.
/// Returns the words and the keys the numbers brought.
fn read_words(
    numbers: NumberLanguage,
    entries: BTreeMap<String, toml::Value>,
) -> Result<(BTreeMap<String, Word>, BTreeSet<String>), VoiceErrorKind> {
    let mut words: BTreeMap<String, Word> = numbers::vocabulary(numbers)
        .into_iter()
        .map(|(key, text)| (key, Word::Spoken { text, lang: None }))
        .collect();
    let number_keys: BTreeSet<String> = words.keys().cloned().collect();
    for (key, entry) in entries {
        if !valid_key(&key) {
            return Err(VoiceErrorKind::BadKey { word: key });
        }
        let word = read_word(&key, entry).map_err(VoiceErrorKind::Syntax)?;
        let empty = match &word {
            Word::Spoken { text, .. } => text.trim().is_empty() || text.contains(['\t', '\n']),
            Word::Compound(parts) => parts.is_empty(),
        };
        if empty {
            return Err(VoiceErrorKind::EmptyWord { word: key });
        }
        words.insert(key, word);
    }
    for (key, word) in &words {
        if let Word::Compound(parts) = word {
            for part in parts {
                if !matches!(words.get(part), Some(Word::Spoken { .. })) {
                    return Err(VoiceErrorKind::BadCompound {
                        word: key.clone(),
                        part: part.clone(),
                    });
                }
            }
        }
    }
    Ok((words, number_keys))
}

/// The pack's `[templates]`: each one the catalogue knows, with only its own slots and words the
/// pack has; and every required template there.
fn read_templates(
    texts: &BTreeMap<String, String>,
    words: &BTreeMap<String, Word>,
) -> Result<BTreeMap<String, Vec<Token>>, VoiceErrorKind> {
    let mut templates = BTreeMap::new();
    for (template, text) in texts {
        let Some(spec) = TEMPLATES.iter().find(|s| s.name == template) else {
            return Err(VoiceErrorKind::UnknownTemplate {
                template: template.clone(),
                known: TEMPLATES
                    .iter()
                    .map(|s| s.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        let tokens = parse_template(text)
            .map_err(|e| VoiceErrorKind::Syntax(format!("template '{template}': {e}")))?;
        for token in &tokens {
            match token {
                Token::Slot(slot) if !spec.slots.contains(&slot.as_str()) => {
                    return Err(VoiceErrorKind::UnknownSlot {
                        template: template.clone(),
                        slot: slot.clone(),
                        allowed: slot_list(spec.slots),
                    });
                }
                Token::Word(word) if !words.contains_key(word) => {
                    return Err(VoiceErrorKind::MissingWord {
                        word: word.clone(),
                        needed_by: format!("the template '{template}'"),
                    });
                }
                _ => {}
            }
        }
        templates.insert(template.clone(), tokens);
    }
    if let Some(spec) = TEMPLATES
        .iter()
        .find(|s| s.required && !templates.contains_key(s.name))
    {
        return Err(VoiceErrorKind::MissingTemplate {
            template: spec.name.to_owned(),
            slots: slot_list(spec.slots),
        });
    }
    Ok(templates)
}

/// Every word the renderer itself uses (`code`) is there, and an optional set of file names is
/// all there or not at all.
fn check_needed_words(
    words: &BTreeMap<String, Word>,
    code: &[(String, &'static str)],
) -> Result<(), VoiceErrorKind> {
    for (word, needed_by) in code {
        if !words.contains_key(word) {
            return Err(VoiceErrorKind::MissingWord {
                word: word.clone(),
                needed_by: (*needed_by).to_owned(),
            });
        }
    }
    for files in [FileNames::Letters, FileNames::Nato] {
        let set = optional_file_words(files);
        let present = set.iter().filter(|w| words.contains_key(*w)).count();
        if present > 0
            && let Some(word) = set.iter().find(|w| !words.contains_key(*w))
        {
            return Err(VoiceErrorKind::MissingWord {
                word: word.clone(),
                needed_by: format!("the file names '{}'", files.as_str()),
            });
        }
    }
    Ok(())
}

/// Every word is used by something: a stray word is most likely a typo of a needed one.
fn check_all_used(
    words: &BTreeMap<String, Word>,
    templates: &BTreeMap<String, Vec<Token>>,
    code: &[(String, &'static str)],
    number_keys: &BTreeSet<String>,
) -> Result<(), VoiceErrorKind> {
    let mut used: BTreeSet<&str> = code.iter().map(|(w, _)| w.as_str()).collect();
    used.extend(number_keys.iter().map(String::as_str));
    for files in [FileNames::Letters, FileNames::Nato] {
        for word in optional_file_words(files) {
            if let Some((key, _)) = words.get_key_value(&word) {
                used.insert(key);
            }
        }
    }
    for tokens in templates.values() {
        for token in tokens {
            if let Token::Word(w) = token {
                used.insert(w);
            }
        }
    }
    for word in words.values() {
        if let Word::Compound(parts) = word {
            used.extend(parts.iter().map(String::as_str));
        }
    }
    match words.keys().find(|w| !used.contains(w.as_str())) {
        Some(word) => Err(VoiceErrorKind::UnusedWord { word: word.clone() }),
        None => Ok(()),
    }
}

impl VoicePack {
    /// Reads and checks a pack. `name` is the pack's name (its folder), `origin` names the source
    /// in errors (`voices/de-fide/voice.toml`).
    pub fn parse(name: &str, toml_text: &str, origin: &str) -> Result<VoicePack, VoiceError> {
        let error = |kind| VoiceError {
            pack: name.to_owned(),
            origin: origin.to_owned(),
            kind,
        };
        let file: PackFile =
            toml::from_str(toml_text).map_err(|e| error(VoiceErrorKind::Syntax(e.to_string())))?;
        let numbers = NumberLanguage::from_tag(&file.language).ok_or_else(|| {
            error(VoiceErrorKind::NoNumberWords {
                language: file.language.clone(),
            })
        })?;
        let (words, number_keys) = read_words(numbers, file.words).map_err(error)?;
        let templates = read_templates(&file.templates, &words).map_err(error)?;
        let code = code_words();
        check_needed_words(&words, &code).map_err(error)?;
        check_all_used(&words, &templates, &code, &number_keys).map_err(error)?;
        let pack = VoicePack {
            name: name.to_owned(),
            language: file.language,
            description: file.description,
            numbers,
            options: Options {
                pawn_name: file.options.pawn_name,
                name_captured: file.options.name_captured,
                files: FileNames::Fide,
            },
            words,
            templates,
        };
        pack.with_files(file.options.files).map_err(error)
    }

    /// A pack compiled into the binary ([`BUILTIN`]): its words and templates, not its clips.
    pub fn builtin(name: &str) -> Option<VoicePack> {
        let text = match name {
            "de-fide" => include_str!("../../../voices/de-fide/voice.toml"),
            "es-fide" => include_str!("../../../voices/es-fide/voice.toml"),
            "en" => include_str!("../../../voices/en/voice.toml"),
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

fn slot_list(slots: &[&str]) -> String {
    if slots.is_empty() {
        "none".to_owned()
    } else {
        slots
            .iter()
            .map(|s| format!("{{{s}}}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}
