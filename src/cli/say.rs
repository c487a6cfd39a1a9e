//! `tactus say`: the words a voice pack says for each move, and the audio scoresheet they make.

use std::{path::PathBuf, process::ExitCode};

use anyhow::{Context, Result};

/// `tactus say`.
#[derive(clap::Args)]
pub struct SayArgs {
    /// The voice pack, optionally with its file names: de-fide (default), es-fide, en,
    /// en:letters, en:nato.
    #[arg(long, value_name = "NAME", default_value = tactus_core::announce::voice::DEFAULT_VOICE)]
    voice: String,
    /// san ("Springer Felix drei") or long ("Springer Gustav eins Felix drei").
    #[arg(long, default_value = "san")]
    style: tactus_core::announce::voice::Style,
    /// The position before the first move (default: the initial position).
    #[arg(long, value_name = "FEN")]
    fen: Option<String>,
    /// Also render the announcements to this WAV file (an audio scoresheet) and its cue list
    /// (OUT.cues.txt: start and end in seconds, move number and words, one line per move).
    #[arg(long, value_name = "OUT.wav")]
    wav: Option<PathBuf>,
    /// The voices folder (default: $TACTUS_VOICES, ./voices, or the source tree's voices/).
    #[arg(long, value_name = "DIR")]
    voices_dir: Option<PathBuf>,
    /// The moves: SAN or any form tactus reads (e4, Nf3, 0-0, e7e8q, Ng1-f3). Move numbers
    /// ("1.", "1...") and a result ("1-0") are skipped; one argument may hold several moves.
    #[arg(required = true, value_name = "MOVES")]
    moves: Vec<String>,
}

/// Whether a word of `tactus say` is a move number or a result rather than a move.
fn is_move_number_or_result(token: &str) -> bool {
    let digits = token.trim_end_matches('.');
    (!digits.is_empty() && digits.len() < token.len() && digits.bytes().all(|b| b.is_ascii_digit()))
        || matches!(token, "1-0" | "0-1" | "1/2-1/2" | "*")
}

pub fn run(args: SayArgs) -> Result<ExitCode> {
    use crate::store::audio::AudioScoresheet;
    use shakmaty::{CastlingMode, Chess, EnPassantMode, Position, fen::Fen};
    use tactus_core::announce::{Announcement, MoveWords, voice::Utterance};
    use tactus_core::record::wav::{self, Spacing};

    let dir = args
        .voices_dir
        .clone()
        .unwrap_or_else(crate::store::voices::default_dir);
    // Clips are only needed (and only checked) when there is audio to render.
    let (pack, clips) = match &args.wav {
        Some(_) => {
            let (pack, clips) = crate::store::voices::load(&dir, &args.voice)?;
            (pack, Some(clips))
        }
        None => (crate::store::voices::load_words(&dir, &args.voice)?, None),
    };
    let mut pos = match &args.fen {
        None => Chess::default(),
        Some(fen) => fen
            .parse::<Fen>()
            .with_context(|| format!("cannot read the FEN '{fen}'"))?
            .into_position(CastlingMode::Standard)
            .map_err(|e| anyhow::anyhow!("the FEN '{fen}' is not a legal position: {e}"))?,
    };

    // Every move is read before anything is printed or written: a bad move leaves no half file.
    let mut said: Vec<(String, String, Utterance)> = Vec::new();
    for token in args.moves.iter().flat_map(|m| m.split_whitespace()) {
        if is_move_number_or_result(token) {
            continue;
        }
        let label = format!(
            "{}{}",
            pos.fullmoves(),
            if pos.turn().is_white() { "." } else { "..." }
        );
        let m = tactus_core::rules::notation::match_move(&pos, token).map_err(|e| {
            let fen = Fen::from_position(&pos, EnPassantMode::Legal);
            anyhow::anyhow!("move {label} '{token}' in the position {fen}: {e}")
        })?;
        let san = tactus_core::rules::notation::san(&pos, m);
        let words = MoveWords::new(&pos, m);
        pos.play_unchecked(m);
        let utterance = pack.render(&Announcement::Move(words), args.style);
        said.push((label.clone(), san, utterance));
        if pos.is_stalemate() {
            let stalemate = pack.render(&Announcement::Stalemate, args.style);
            said.push((label, String::new(), stalemate));
        }
    }
    let mut text = String::new();
    for (label, san, utterance) in &said {
        text.push_str(&format!("{label:<6} {san:<8} {}\n", utterance.text));
    }
    super::print(&text)?;

    if let (Some(out), Some(clips)) = (&args.wav, &clips) {
        let mut sheet = AudioScoresheet::create(out, wav::BETWEEN_ANNOUNCEMENTS_MS)?;
        for (label, _, utterance) in &said {
            let samples = wav::assemble(utterance, Spacing::DEFAULT, clips.loader())
                .map_err(|e| anyhow::anyhow!("voice pack '{}': {e}", pack.name()))?;
            // Made durable once, at the end: a command's output, not a game's record.
            sheet.push(label, &utterance.text, &samples)?;
        }
        let samples = sheet.len_samples();
        let cue_path = sheet.cue_path().to_owned();
        sheet.finish()?;
        eprintln!(
            "wrote {} ({} announcements, {:.1} s) and {}",
            out.display(),
            said.len(),
            wav::samples_to_ms(samples) as f64 / 1000.0,
            cue_path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
