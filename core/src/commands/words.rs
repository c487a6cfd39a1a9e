//! The words the blind player types in his language for the commands of [`COMMANDS`]: a voice
//! pack's `[commands]` and `[arguments]` (and its file names), checked against the list when the
//! pack is read, and read back as its English words.

use super::{ARGUMENT_WORDS, COMMANDS, Spec, edit_distance, is_his, lookup, squares};

/// A pack's `[commands]` entry, as written: the words he types for one command, its arguments
/// and what it does, as his `help` shows them.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandEntry {
    /// The words, the first as `help` shows it; none: the English name alone.
    #[serde(default)]
    pub words: Vec<String>,
    /// The arguments as `help` shows them (`FELD`, `[N|alle]`); none: the [`Spec`]'s.
    pub args: Option<String>,
    /// What it does, one line; none: the [`Spec`]'s.
    pub what: Option<String>,
}

/// One command in a language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalSpec {
    pub spec: &'static Spec,
    /// The words typed for it, in lower case, the first as `help` shows it.
    pub words: Vec<String>,
    pub args: Option<String>,
    pub what: Option<String>,
}

/// The words the blind player types in his language (his voice pack's `[commands]` and
/// `[arguments]`, and its file names): each hangs off a command of [`COMMANDS`] or an English
/// argument word, so that the one list and the one parser serve every language, and the
/// English words are always understood too. Typed, never spoken: they need no clips.
/// `Words::default()` is English alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Words {
    commands: Vec<LocalSpec>,
    /// A typed word and the English argument word it stands for.
    arguments: Vec<(String, &'static str)>,
    /// The pack's file names in lower case (`beatriz`), each with its file.
    files: Vec<(String, shakmaty::File)>,
}

impl Words {
    /// The words of a pack, checked against the list: each command one of his
    /// ([`is_his`]), each word one word that no other command (English or his) and no other
    /// argument has, each argument word one of [`ARGUMENT_WORDS`] and no square, file or rank.
    /// `files`: the pack's file names (single letters are left out: they are the files).
    pub fn new(
        commands: std::collections::BTreeMap<String, CommandEntry>,
        arguments: std::collections::BTreeMap<String, Vec<String>>,
        files: Vec<(String, shakmaty::File)>,
    ) -> Result<Words, String> {
        let his_names = || {
            COMMANDS
                .iter()
                .filter(|s| is_his(s))
                .map(|s| s.name)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut out = Words::default();
        for (name, entry) in commands {
            let Some(spec) = COMMANDS.iter().find(|s| s.name == name && is_his(s)) else {
                return Err(format!(
                    "[commands] '{name}' is not a command of the blind player's: {}",
                    his_names()
                ));
            };
            let mut words = Vec::new();
            for word in &entry.words {
                let word = one_word("commands", &name, word)?;
                if let Some(other) = lookup(&word).filter(|s| s.name != spec.name) {
                    return Err(format!(
                        "[commands] '{word}' of '{name}' is already the command '{}'",
                        other.name
                    ));
                }
                if let Some(other) = out.command(&word).filter(|s| s.name != spec.name) {
                    return Err(format!(
                        "[commands] '{word}' is given to both '{}' and '{name}'",
                        other.name
                    ));
                }
                words.push(word);
            }
            // Empty arguments are his command without the staff's (`takeback`, not `takeback
            // PLY`); what it does is never empty.
            let lines = [("args", &entry.args, true), ("what", &entry.what, false)];
            for (field, text, may_be_empty) in lines {
                if text
                    .as_deref()
                    .is_some_and(|t| (!may_be_empty && t.trim().is_empty()) || t.contains('\n'))
                {
                    return Err(format!(
                        "[commands] the {field} of '{name}' is empty or more than one line"
                    ));
                }
            }
            out.commands.push(LocalSpec {
                spec,
                words,
                args: entry.args,
                what: entry.what,
            });
        }
        // In the list's order, as `help` lists them.
        out.commands
            .sort_by_key(|l| COMMANDS.iter().position(|s| s.name == l.spec.name));
        for (english, words) in arguments {
            let Some(&english) = ARGUMENT_WORDS.iter().find(|w| **w == english) else {
                return Err(format!(
                    "[arguments] '{english}' is not an argument word; they are: {}",
                    ARGUMENT_WORDS.join(", ")
                ));
            };
            for word in &words {
                let word = one_word("arguments", english, word)?;
                let reads = squares::square_word(&word).is_some()
                    || squares::file_word(&word).is_some()
                    || squares::rank_word(&word).is_some()
                    || word.chars().all(|c| c.is_ascii_digit());
                if reads || ARGUMENT_WORDS.contains(&word.as_str()) {
                    return Err(format!(
                        "[arguments] '{word}' of '{english}' already reads as something else (a \
                         square, file, rank, number or English word)"
                    ));
                }
                if let Some(other) = out.argument(&word).filter(|o| *o != english) {
                    return Err(format!(
                        "[arguments] '{word}' is given to both '{other}' and '{english}'"
                    ));
                }
                out.arguments.push((word, english));
            }
        }
        out.files = files
            .into_iter()
            .map(|(name, file)| (name.to_lowercase(), file))
            .filter(|(name, _)| name.chars().count() > 1)
            .collect();
        Ok(out)
    }

    /// Whether there are no words beyond the English ones.
    pub fn is_empty(&self) -> bool {
        self.commands.iter().all(|l| l.words.is_empty())
            && self.arguments.is_empty()
            && self.files.is_empty()
    }

    /// The command one of his words names (in any case).
    pub fn command(&self, word: &str) -> Option<&'static Spec> {
        let word = word.to_lowercase();
        self.commands
            .iter()
            .find(|l| l.words.contains(&word))
            .map(|l| l.spec)
    }

    /// The command in this language, if the pack words it.
    pub fn local(&self, spec: &Spec) -> Option<&LocalSpec> {
        self.commands.iter().find(|l| l.spec.name == spec.name)
    }

    /// The command's name as he types it: his first word for it, or the English name.
    pub fn name<'a>(&'a self, spec: &'a Spec) -> &'a str {
        self.local(spec)
            .and_then(|l| l.words.first())
            .map_or(spec.name, String::as_str)
    }

    /// The command's usage line in his words (`feld FELD`).
    pub fn usage(&self, spec: &Spec) -> String {
        let args = self
            .local(spec)
            .and_then(|l| l.args.as_deref())
            .unwrap_or(spec.args);
        if args.is_empty() {
            self.name(spec).to_string()
        } else {
            format!("{} {args}", self.name(spec))
        }
    }

    /// What the command does, in his words (or the English ones).
    pub fn what<'a>(&'a self, spec: &'a Spec) -> &'a str {
        self.local(spec)
            .and_then(|l| l.what.as_deref())
            .unwrap_or(spec.what)
    }

    /// The English argument word one of his words stands for.
    pub fn argument(&self, word: &str) -> Option<&'static str> {
        let word = word.to_lowercase();
        self.arguments
            .iter()
            .find(|(w, _)| *w == word)
            .map(|(_, english)| *english)
    }

    /// A file name of his pack as a file letter, with a rank glued to it as a square
    /// (`beatriz5` is `b5`).
    fn file_or_square(&self, word: &str) -> Option<String> {
        let word = word.to_lowercase();
        let (name, rank) = match word.char_indices().last() {
            Some((at, c)) if c.is_ascii_digit() => (&word[..at], &word[at..]),
            _ => (word.as_str(), ""),
        };
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, file)| format!("{}{rank}", file.char()))
    }

    /// A line of his in the English words of the list: his command word for the command's name,
    /// his argument words and file names for the English ones; `None` when the line's command is
    /// not one of his (it is read as typed).
    pub fn translate(&self, line: &str) -> Option<String> {
        let mut words = line.split_whitespace();
        let first = words.next()?;
        let spec = lookup(first).or_else(|| self.command(first))?;
        if !is_his(spec) {
            return None;
        }
        let mut out = vec![spec.name.to_string()];
        for word in words {
            let english = if spec.name == "help" {
                self.command(word).map(|s| s.name.to_string())
            } else {
                self.argument(word)
                    .map(str::to_string)
                    .or_else(|| self.file_or_square(word))
            };
            out.push(english.unwrap_or_else(|| word.to_string()));
        }
        Some(out.join(" "))
    }

    /// The closest of his command words, or English names of his commands, to an unknown
    /// word (for "did you mean"), among those `mine` allows; as he types it.
    pub fn suggestion(&self, word: &str, mine: impl Fn(&Spec) -> bool) -> Option<String> {
        let word = word.to_lowercase();
        let limit = if word.chars().count() <= 4 { 1 } else { 2 };
        COMMANDS
            .iter()
            .filter(|s| mine(s))
            .flat_map(|s| {
                let local = self.local(s).map(|l| l.words.clone()).unwrap_or_default();
                local
                    .into_iter()
                    .chain([s.name.to_string()])
                    .map(move |w| (s, w))
            })
            .map(|(s, w)| (edit_distance(&word, &w), s, w))
            .filter(|(d, ..)| *d <= limit)
            .min_by_key(|(d, ..)| *d)
            .map(|(_, s, _)| self.name(s).to_string())
    }
}

/// A typed word of a pack: one word, in lower case.
fn one_word(section: &str, of: &str, word: &str) -> Result<String, String> {
    if word.is_empty() || word.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "[{section}] '{word}' of '{of}' is not one word (he types it as one)"
        ));
    }
    Ok(word.to_lowercase())
}
