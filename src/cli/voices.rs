//! `tactus voices`: the voice packs, their languages and file names, and what each lacks.

use std::{path::PathBuf, process::ExitCode};

use anyhow::Result;

/// `tactus voices`.
#[derive(clap::Args)]
pub struct VoicesArgs {
    /// The voices folder (default: $TACTUS_VOICES, ./voices, or the source tree's voices/).
    #[arg(long, value_name = "DIR")]
    voices_dir: Option<PathBuf>,
    /// Print every clip PACK needs, one `stem<TAB>language<TAB>text` line each, from the pack's
    /// voice.toml in the voices folder (what voices/make-clips.sh records).
    #[arg(long, value_name = "PACK", hide = true)]
    clip_list: Option<String>,
}

pub fn run(args: VoicesArgs) -> Result<ExitCode> {
    let dir = args
        .voices_dir
        .unwrap_or_else(crate::store::voices::default_dir);
    if let Some(name) = args.clip_list {
        // From the folder, not the built-in copy: the script records what the file says now.
        let pack = crate::store::voices::read_pack(&dir.join(&name))?;
        for clip in pack.clip_texts() {
            println!("{}\t{}\t{}", clip.stem, clip.language, clip.text);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let statuses = crate::store::voices::survey(&dir);
    println!("Voice packs in {}:", dir.display());
    for status in &statuses {
        match &status.pack {
            Some(pack) => {
                let files: Vec<&str> = pack.available_files().iter().map(|f| f.as_str()).collect();
                println!(
                    "\n{}  ({}) {}\n    file names: {}; {} words, {} clips",
                    status.name,
                    pack.language(),
                    pack.description(),
                    files.join(", "),
                    pack.words().len(),
                    pack.clip_stems().len()
                );
            }
            None => println!("\n{}", status.name),
        }
        if status.problems.is_empty() {
            println!("    complete");
        }
        for problem in &status.problems {
            println!("    lacks: {problem}");
        }
    }
    Ok(if statuses.iter().all(|s| s.problems.is_empty()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
