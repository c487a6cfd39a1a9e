//! `tactus voices`: the voice packs, their languages and file names, and what each lacks; and
//! (hidden) the list of clips `voices/make-clips.sh` records, with what the speech engine is given
//! for each.
//!
//! Owns the listing and the pronunciation table (`voices/pronounce.toml`) as the clip list applies
//! it. It must not change what a pack says: the table only changes how a clip is recorded.

use std::{
    collections::BTreeMap,
    io::ErrorKind,
    path::{Path, PathBuf},
    process::ExitCode,
};

use anyhow::{Context, Result};

/// The pronunciation table in the voices folder.
pub const PRONOUNCE_FILE: &str = "pronounce.toml";

/// `tactus voices`.
#[derive(clap::Args)]
pub struct VoicesArgs {
    /// The voices folder (default: $TACTUS_VOICES, ./voices, or the source tree's voices/).
    #[arg(long, value_name = "DIR")]
    voices_dir: Option<PathBuf>,
    /// Print every clip PACK needs, one `stem<TAB>language<TAB>text<TAB>spoken` line each, from
    /// the pack's voice.toml in the voices folder: what voices/make-clips.sh records. `spoken` is
    /// what the speech engine is given: the text with the voices folder's pronounce.toml applied.
    #[arg(long, value_name = "PACK", hide = true)]
    clip_list: Option<String>,
}

/// Words the speech engine says wrongly, per language: word as written -> what to give the
/// engine instead (a spelling, or phonemes in `[[...]]`).
pub type Pronunciations = BTreeMap<String, BTreeMap<String, String>>;

/// Reads `pronounce.toml` from the voices folder; a folder without one has no replacements.
pub fn read_pronunciations(voices_dir: &Path) -> Result<Pronunciations> {
    let path = voices_dir.join(PRONOUNCE_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Pronunciations::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    toml::from_str(&text).with_context(|| {
        format!(
            "{}: expected tables of words, one per language ([de] Cesar = \"Zäsar\")",
            path.display()
        )
    })
}

/// What the speech engine is given for `text` in `language`: each word the table names is
/// replaced, the others stay.
pub fn spoken(text: &str, language: &str, table: &Pronunciations) -> String {
    let Some(words) = table.get(language) else {
        return text.to_string();
    };
    text.split_whitespace()
        .map(|word| words.get(word).map_or(word, String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn run(args: VoicesArgs) -> Result<ExitCode> {
    let dir = args
        .voices_dir
        .unwrap_or_else(crate::store::voices::default_dir);
    let (text, code) = match args.clip_list {
        Some(name) => (clip_list(&dir, &name)?, ExitCode::SUCCESS),
        None => listing(&dir),
    };
    // Written at once and a closed pipe accepted: `tactus voices | head -1` is a reader that
    // has seen enough, not an error.
    super::print(&text)?;
    Ok(code)
}

fn clip_list(dir: &Path, name: &str) -> Result<String> {
    // From the folder, not the built-in copy: the script records what the file says now.
    let pack = crate::store::voices::read_pack(&dir.join(name))?;
    let table = read_pronunciations(dir)?;
    let mut out = String::new();
    for clip in pack.clip_texts() {
        let said = spoken(&clip.text, &clip.language, &table);
        out.push_str(&format!(
            "{}\t{}\t{}\t{said}\n",
            clip.stem, clip.language, clip.text
        ));
    }
    Ok(out)
}

fn listing(dir: &Path) -> (String, ExitCode) {
    let statuses = crate::store::voices::survey(dir);
    let mut out = format!("Voice packs in {}:\n", dir.display());
    for status in &statuses {
        match &status.pack {
            Some(pack) => {
                let files: Vec<&str> = pack.available_files().iter().map(|f| f.as_str()).collect();
                out.push_str(&format!(
                    "\n{}  ({}) {}\n    file names: {}; {} words, {} clips\n",
                    status.name,
                    pack.language(),
                    pack.description(),
                    files.join(", "),
                    pack.words().len(),
                    pack.clip_stems().len()
                ));
            }
            None => out.push_str(&format!("\n{}\n", status.name)),
        }
        if status.problems.is_empty() {
            out.push_str("    complete\n");
        }
        for problem in &status.problems {
            out.push_str(&format!("    lacks: {problem}\n"));
        }
    }
    let code = if statuses.iter().all(|s| s.problems.is_empty()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    (out, code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_named_words_of_the_clips_language_are_replaced() {
        let table: Pronunciations = toml::from_str(
            "[de]\nCesar = \"Zäsar\"\nRemis = \"[[r@m'i:]]\"\n[es]\nCesar = \"César\"\n",
        )
        .unwrap();
        assert_eq!(spoken("Cesar", "de", &table), "Zäsar");
        assert_eq!(spoken("Cesar", "es", &table), "César");
        assert_eq!(spoken("Cesar", "en", &table), "Cesar");
        assert_eq!(
            spoken("Remis angeboten", "de", &table),
            "[[r@m'i:]] angeboten"
        );
        // Whole words only.
        assert_eq!(spoken("Cesars", "de", &table), "Cesars");
    }
}
