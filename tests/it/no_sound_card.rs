//! Speech on a machine without a sound card, through the real binary: `tactus demo` with an ALSA
//! configuration whose default output is a card that does not exist (the situation of a small
//! box or a developer's laptop under test, made the same on every machine).
//!
//! What a user should see: one clear message at start, before the first move ("no audio output:
//! speech off, the transcript keeps every announcement"), none of ALSA's own lines (about eight
//! per announcement otherwise, into journald under systemd), and every announcement still in the
//! game's transcript, so the game loses nothing.

use std::{fs, path::Path, time::Duration};

use crate::support;

use support::{
    process::{show, spawn},
    record::game_folder,
    table::temp_dir,
};
use tactus::daemon::files;

/// The demo at `--speed 50` takes about 20 s.
const RUN_LIMIT: Duration = Duration::from_secs(90);
const NO_AUDIO: &str = "no audio output: speech off, the transcript keeps every announcement";

/// ALSA's usual configuration with its default output on card 99, which no machine has: opening
/// it fails the way it does without any sound card ("cannot find card", "Unknown PCM default").
fn alsa_without_a_card(dir: &Path) -> std::path::PathBuf {
    let system = Path::new("/usr/share/alsa/alsa.conf");
    assert!(
        system.is_file(),
        "{} is missing: ALSA (libasound2) is not installed; run scripts/setup",
        system.display()
    );
    let path = dir.join("alsa-no-card.conf");
    // The include line matters: ALSA_CONFIG_PATH replaces the whole top-level configuration.
    // The default is set again after it, so that a machine's own default (pulse, a USB card)
    // does not win.
    fs::write(
        &path,
        format!(
            "<{}>\ndefaults.pcm.!card 99\ndefaults.ctl.!card 99\npcm.!default cards.pcm.default\n",
            system.display()
        ),
    )
    .unwrap();
    path
}

/// `(audience, words)` of the lines that say something to a player: `HH:MM:SS.mmm  to blind
/// Bauer Eva vier` on the demo's standard output, `HH:MM:SS.mmm blind Bauer Eva vier` in the
/// transcript.
fn said(lines: &str, prefix: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = lines
        .lines()
        .filter_map(|l| {
            let (_, rest) = l.split_once(' ')?;
            let rest = rest.trim_start().strip_prefix(prefix)?;
            let (audience, words) = rest.trim_start().split_once(' ')?;
            matches!(audience, "blind" | "sighted")
                .then(|| (audience.to_string(), words.trim().to_string()))
        })
        .collect();
    // Two lines stamped alike may be written in either order; what matters is that none is lost.
    out.sort();
    out
}

#[test]
fn without_a_sound_card_speech_is_off_with_one_message_and_the_transcript_keeps_every_announcement()
{
    let dir = temp_dir("no-sound-card");
    let alsa = alsa_without_a_card(&dir);
    let out_dir = dir.join("out");
    let mut guard = spawn(
        &["demo", "--speed", "50", "--dir", out_dir.to_str().unwrap()],
        &dir,
        "demo",
        &[
            ("ALSA_CONFIG_PATH", alsa.as_os_str()),
            // The demo's own log level: only warnings reach standard error.
            ("RUST_LOG", "warn".as_ref()),
        ],
    );
    let status = guard.wait_limit(RUN_LIMIT);
    let context = show(&dir, "demo");
    assert!(status.success(), "demo failed: {status}\n{context}");

    let stderr = fs::read_to_string(dir.join("demo.err")).unwrap();
    let alsa_lines: Vec<&str> = stderr.lines().filter(|l| l.contains("ALSA lib")).collect();
    assert!(
        alsa_lines.is_empty(),
        "ALSA printed {} lines of its own, e.g. {:?}",
        alsa_lines.len(),
        alsa_lines.first()
    );
    let messages = stderr.lines().filter(|l| l.contains(NO_AUDIO)).count();
    assert_eq!(messages, 1, "said once, not per announcement:\n{stderr}");
    let speech_lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("tactus::speech"))
        .collect();
    assert_eq!(
        speech_lines.len(),
        1,
        "speech says nothing else on standard error: {speech_lines:#?}"
    );
    assert!(
        stderr.contains("no sound card"),
        "the message says why: {stderr}"
    );
    // In words, for the arbiter at the terminal: whose speech, not a Debug field (issue 37,
    // point 12: `audience=Both`).
    assert!(
        speech_lines[0].contains("speech for both players:")
            && !speech_lines[0].contains("audience="),
        "{speech_lines:?}"
    );

    // On the terminal too, once, and before the first move is announced: the output was probed
    // at start.
    let stdout = fs::read_to_string(dir.join("demo.out")).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    let notes: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains(NO_AUDIO))
        .collect();
    let first_said = lines
        .iter()
        .position(|l| l.contains("  to blind ") || l.contains("  to sighted "));
    assert_eq!(notes.len(), 1, "{stdout}");
    assert!(
        first_said.is_some_and(|f| notes[0] < f),
        "the message comes before the first announcement:\n{stdout}"
    );

    // Every announcement printed is in the transcript.
    let printed = said(&stdout, "to ");
    assert!(printed.len() > 40, "the demo announced its moves: {stdout}");
    let folder = game_folder(&out_dir);
    let transcript = fs::read_to_string(folder.join(files::TRANSCRIPT_FILE)).unwrap();
    assert_eq!(
        said(&transcript, ""),
        printed,
        "transcript:\n{transcript}\nstdout:\n{stdout}"
    );
    fs::remove_dir_all(&dir).unwrap();
}
