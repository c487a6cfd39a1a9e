//! Bytes written per game against game length (issue 25, point 6): how much the record writer
//! writes for the audio scoresheet (`blind-score.wav` and its cue list) over a whole game, against
//! the size of the files at the end. On a Raspberry Pi's SD card every byte written is wear.
//!
//! A game of pseudo-random legal moves (the same every run: `tactus_core::sim::long_game`) is
//! played to each length, the record written after every half-move through the record writer's own
//! functions (`write_record` and `write_audio_scores`), in the `de-fide` voice pack. Two counts of
//! the bytes written for the audio scoresheet, which must agree: the store's own
//! ([`tactus::store::audio::bytes_written`]), and the kernel's count of bytes handed to `write(2)`
//! by this process (`wchar` of `/proc/self/io`; the process has one thread), for the game written
//! twice, with and without the audio scoresheet, the difference being the audio's.
//!
//! `cargo bench --bench record_bytes -- [PLIES...]` (default 20 40 80 160 320). Numbers
//! live in BENCHMARKS.md.

mod support;

use std::path::Path;

use anyhow::{Context, Result};
use shakmaty::Move;
use tactus::{
    daemon::files::{
        BlindScore, RecordSettings, RecordSnapshot, ScoreFiles, write_audio_scores, write_record,
    },
    store::{audio::bytes_written, voices},
};
use tactus_core::{
    announce::voice::Style,
    record::{braille::DEFAULT_PROFILE, date::Calendar, wav::Spacing},
    rules::game::{Game, Input, RulesConfig},
    sim::long_game,
};

fn main() -> Result<()> {
    let Some(args) = support::bench_args() else {
        return Ok(());
    };
    let lengths: Vec<usize> = match args {
        args if args.is_empty() => vec![20, 40, 80, 160, 320],
        args => args
            .iter()
            .map(|a| a.parse().with_context(|| format!("'{a}' is not a length")))
            .collect::<Result<_>>()?,
    };
    let longest = lengths.iter().copied().max().unwrap_or(0);
    let moves = long_game(longest, 1);
    let (pack, clips) = voices::load(&voices::default_dir(), "de-fide")?;
    let audio = (pack, Style::San, Spacing::DEFAULT, clips);
    let scratch = std::env::temp_dir().join(format!("tactus-record-bytes-{}", std::process::id()));
    println!(
        "| plies | bytes written (audio) | the kernel's count | final size (wav + cues) | ratio |"
    );
    println!("|---|---|---|---|---|");
    for &plies in &lengths {
        let counted = bytes_written();
        let with = play(
            &scratch.join(format!("{plies}-audio")),
            &moves[..plies],
            Some(&audio),
        )?;
        let written = bytes_written() - counted;
        let without = play(
            &scratch.join(format!("{plies}-none")),
            &moves[..plies],
            None,
        )?;
        let by_kernel = with.saturating_sub(without);
        let folder = scratch.join(format!("{plies}-audio"));
        let files = ScoreFiles::of(None);
        let size = std::fs::metadata(folder.join(files.wav()))?.len()
            + std::fs::metadata(folder.join(files.cues()))?.len();
        println!(
            "| {plies} | {written} ({:.1} MB) | {by_kernel} | {size} ({:.1} MB) | {:.2} |",
            written as f64 / 1e6,
            size as f64 / 1e6,
            written as f64 / size as f64
        );
    }
    std::fs::remove_dir_all(&scratch)?;
    Ok(())
}

/// Every half-move of `moves` played and the record written after each; the bytes this process
/// handed to `write(2)` meanwhile.
fn play(
    folder: &Path,
    moves: &[Move],
    audio: Option<&tactus::daemon::files::AudioSettings>,
) -> Result<u64> {
    std::fs::create_dir_all(folder)?;
    let settings = RecordSettings {
        folder: tactus::store::trusted::TrustedDir::open(folder)?,
        braille: tactus::config::braille_options(DEFAULT_PROFILE, 40, 25)?,
        profiles: {
            let profile = tactus_core::record::braille::Profile::named(DEFAULT_PROFILE)?;
            shakmaty::ByColor::new_with(|_| profile.clone())
        },
        blind_scores: vec![BlindScore {
            braille: None,
            files: ScoreFiles::of(None),
            audio: audio.cloned(),
        }],
    };
    let mut game = Game::new(RulesConfig::default());
    let before = written_by_process()?;
    for &mv in moves {
        game.apply(Input::Move(mv), 0)?;
        let snapshot = RecordSnapshot {
            game: game.clone(),
            tags: vec![],
            now: 0,
            mark: None,
        };
        write_record(&settings, &snapshot, &Calendar::default())?;
        write_audio_scores(&settings, &snapshot)?;
    }
    Ok(written_by_process()? - before)
}

/// `wchar` of `/proc/self/io`: the bytes this process has handed to `write(2)` and its kin.
fn written_by_process() -> Result<u64> {
    let io = std::fs::read_to_string("/proc/self/io").context("cannot read /proc/self/io")?;
    io.lines()
        .find_map(|l| l.strip_prefix("wchar: "))
        .and_then(|n| n.trim().parse().ok())
        .context("no wchar in /proc/self/io")
}
