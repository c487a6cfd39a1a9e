//! The file format of a pack (`voice.toml`) and [`VoicePack::parse`]: every word and template
//! read and checked against the catalogue up front, so that a pack that lacks something is
//! refused at start-up with the pack, the word and what needs it.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use super::catalogue::{TEMPLATES, code_words, optional_file_words};
use super::{
    FileNames, KeypadWords, Options, RecordWords, Token, VoiceError, VoiceErrorKind, VoicePack,
    Word,
};
use crate::announce::numbers::{self, NumberLanguage};

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
    /// What the blind player types in this language (no clips: typed, never said).
    #[serde(default)]
    commands: BTreeMap<String, crate::commands::CommandEntry>,
    #[serde(default)]
    arguments: BTreeMap<String, Vec<String>>,
    /// Written words of the records (no clips: nothing here is said).
    #[serde(default)]
    record: Option<RecordFile>,
    /// What his keypad shows that is not said (no clips).
    #[serde(default)]
    keypad: Option<KeypadFile>,
}

/// `[keypad]`: his keypad's own lines in the pack's language.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeypadFile {
    ready: String,
    away: String,
    back: String,
    not_sent: String,
}

impl KeypadFile {
    /// Every text has words, and only the slots its line fills. `record`: the pack's headings,
    /// whose "White" and "Black" name his colour.
    fn check(self, record: Option<&RecordWords>) -> Result<KeypadWords, VoiceErrorKind> {
        let mut words = KeypadWords {
            ready: self.ready,
            away: self.away,
            back: self.back,
            not_sent: self.not_sent,
            ..KeypadWords::default()
        };
        if let Some(record) = record {
            words.sides = shakmaty::ByColor {
                white: record.white.clone(),
                black: record.black.clone(),
            };
        }
        for (key, text, slots) in words.all() {
            let problem = |problem: String| VoiceErrorKind::KeypadText { key, problem };
            if text.trim().is_empty() {
                return Err(problem("has no text".into()));
            }
            let mut rest = text;
            while let Some(open) = rest.find('{') {
                let after = &rest[open + 1..];
                let Some(close) = after.find('}') else {
                    return Err(problem("opens a slot '{' that no '}' closes".into()));
                };
                let slot = &after[..close];
                if !slots.contains(&slot) {
                    let allowed = match slots {
                        [] => "none".to_string(),
                        _ => slots
                            .iter()
                            .map(|s| format!("{{{s}}}"))
                            .collect::<Vec<_>>()
                            .join(", "),
                    };
                    return Err(problem(format!(
                        "has the slot {{{slot}}}; its slots: {allowed}"
                    )));
                }
                rest = &after[close + 1..];
            }
        }
        Ok(words)
    }
}

/// `[record]`: the headings of the blind player's Braille score, in the pack's language.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordFile {
    event: String,
    site: String,
    date: String,
    round: String,
    white: String,
    black: String,
}

impl RecordFile {
    /// Every heading has text.
    fn check(self) -> Result<RecordWords, VoiceErrorKind> {
        let words = RecordWords {
            event: self.event,
            site: self.site,
            date: self.date,
            round: self.round,
            white: self.white,
            black: self.black,
        };
        let empty = words
            .all()
            .into_iter()
            .find(|(_, text)| text.trim().is_empty())
            .map(|(key, _)| key);
        match empty {
            Some(key) => Err(VoiceErrorKind::EmptyHeading { key }),
            None => Ok(words),
        }
    }
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

/// What a `[words]` entry may be, for the error that names a malformed one.
const WORD_SHAPES: &str = concat!(
    "a text (\"Springer\"), a table ({ text = \"Springer\", lang = \"de\" }) ",
    "or a list of word keys ([\"knight\", \"white_m\"])"
);

/// A `[words]` entry: `"text"`, `{ text = "...", lang = "de" }` or `["key", "key"]`. Read by hand
/// from the TOML value so that a malformed entry gets an error naming the word.
fn read_word(key: &str, value: toml::Value) -> Result<Word, String> {
    use toml::Value;
    let shape = || format!("the word '{key}' must be {WORD_SHAPES}");
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

pub(in crate::announce) fn valid_key(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

pub(in crate::announce) const PUNCTUATION: &[char] = &[',', '.', ';', ':', '!', '?'];

/// Reads a template: whitespace-separated word keys and `{slots}`; punctuation (alone or at the
/// end of a token) is a pause.
pub(in crate::announce) fn parse_template(text: &str) -> Result<Vec<Token>, String> {
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
        let record = file
            .record
            .map(RecordFile::check)
            .transpose()
            .map_err(error)?;
        let keypad = match file.keypad {
            Some(keypad) => keypad.check(record.as_ref()).map_err(error)?,
            None => KeypadWords::default(),
        };
        let commands =
            crate::commands::Words::new(file.commands, file.arguments, file_names(&words))
                .map_err(|e| error(VoiceErrorKind::Commands(e)))?;
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
            record,
            commands,
            keypad,
        };
        pack.with_files(file.options.files).map_err(error)
    }
}

/// Every file name the pack can say (its FIDE names, letters, NATO words), with its file: he
/// may type them in squares and files (`Beatriz5`).
fn file_names(words: &BTreeMap<String, Word>) -> Vec<(String, shakmaty::File)> {
    let mut names = Vec::new();
    for files in FileNames::ALL {
        for (key, file) in optional_file_words(files).iter().zip(shakmaty::File::ALL) {
            if let Some(Word::Spoken { text, .. }) = words.get(key) {
                names.push((text.clone(), file));
            }
        }
    }
    names
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
