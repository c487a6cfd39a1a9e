//! `tactus replay`: a game's transcript and final PGN from its journal, without any hardware.

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
};

use anyhow::{Context, Result};

use crate::daemon::journal;
use shakmaty::{ByColor, Color};
use tactus_core::{
    announce::Audience,
    arbiter::SeatNames,
    folder::JOURNAL_FILE,
    journal::{Step, replay_steps},
    table::TableEffect,
};

/// `tactus replay`.
#[derive(clap::Args)]
pub struct ReplayArgs {
    /// The journal (a game folder's journal.jsonl, or the folder).
    journal: PathBuf,
    /// The voices folder (default: $TACTUS_VOICES, ./voices, or the source tree's voices/).
    #[arg(long, value_name = "DIR")]
    voices_dir: Option<PathBuf>,
}

pub fn run(args: ReplayArgs) -> Result<ExitCode> {
    let ReplayArgs {
        journal,
        voices_dir,
    } = args;
    let path = if journal.is_dir() {
        journal.join(JOURNAL_FILE)
    } else {
        journal
    };
    let dir = voices_dir.unwrap_or_else(crate::store::voices::default_dir);
    let mut text = String::new();
    for line in replay_lines(&path, &dir)? {
        text.push_str(&line);
        text.push('\n');
    }
    super::print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// A game time as `h:mm:ss.mmm` (the transcript of a replay has no time of day).
fn format_game_time(t: u64) -> String {
    format!(
        "{}:{:02}:{:02}.{:03}",
        t / 3_600_000,
        t / 60_000 % 60,
        t / 1000 % 60,
        t % 1000
    )
}

/// `tactus replay`: the transcript (every announcement and note, on the game's time line) and
/// the final PGN of a journal, replayed through the same pure code, without any hardware.
fn replay_lines(path: &Path, voices_dir: &Path) -> Result<Vec<String>> {
    let read = journal::read(path)?;
    let setup = &read.header.setup;
    let names = SeatNames::new(&setup.arbiter_config()?.seats);
    // Each seat's player hears his own pack; the transcript has an announcement once in each
    // language it was said in, as the daemon's speech task writes it.
    let packs = ByColor::new_with(|seat| setup.pack_of(seat).to_string());
    let words = journal::wording(&read.header, voices_dir)
        .with_context(|| format!("the voice packs of {}", path.display()))?;
    let mut lines = Vec::new();
    let replayed = replay_steps(&read, words.clone(), |t, step| match step {
        Step::Effect(TableEffect::Say {
            audience,
            announcement,
            ..
        }) => {
            let heard: Vec<(Audience, Color)> = match *audience {
                Audience::Player(seat) => vec![(*audience, seat)],
                Audience::Both if packs.white == packs.black => vec![(*audience, Color::White)],
                Audience::Both => Color::ALL
                    .into_iter()
                    .map(|seat| (Audience::Player(seat), seat))
                    .collect(),
            };
            for (who, seat) in heard {
                lines.push(format!(
                    "{} {} {}",
                    format_game_time(t),
                    names.audience(who),
                    words[seat].text(announcement)
                ));
            }
        }
        Step::Effect(TableEffect::Note { text, .. }) => {
            lines.push(format!("{} note {text}", format_game_time(t)))
        }
        Step::Effect(TableEffect::Transcript(text)) => {
            lines.push(format!("{} note {text}", format_game_time(t)))
        }
        // As the daemon's transcript has it: the note; the words said to him follow as what
        // the table said.
        Step::Effect(TableEffect::Asked(asked)) => {
            lines.push(format!("{} note {}", format_game_time(t), asked.note()))
        }
        Step::Effect(_) | Step::Applied(_) | Step::Line(_) => {}
        // A journal of format 2: the note, then the words said to him (recorded as they were
        // said, so a replay with another voice pack still quotes them exactly).
        Step::Request(request) => {
            lines.push(format!("{} note {}", format_game_time(t), request.note()));
            let asker = request
                .seat
                .map(Color::from)
                .or_else(|| names.blind_seats().next())
                .expect("a table has a blind player");
            for said in &request.said {
                lines.push(format!(
                    "{} {} {said}",
                    format_game_time(t),
                    names.player(asker)
                ));
            }
        }
    })?;
    for skipped in &replayed.skipped {
        lines.push(format!("(skipped an unreadable input {skipped})"));
    }
    if read.torn {
        lines.push("(the journal's last line was cut off and is left out)".into());
    }
    lines.push(String::new());
    lines.push(replayed.table.game().to_pgn(&read.header.tags));
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tactus_core::arbiter::Input;
    use tactus_core::journal::{AskedBy, Entry, Header, InputRecord, RequestRecord};

    fn voices() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("voices")
    }

    fn header() -> Header {
        tactus_core::journal::test_header(Color::Black, None)
    }

    /// F.9 d: `tactus replay` writes every journaled request where the daemon's transcript has
    /// it: the note saying who asked what and what was answered, then the words said to the
    /// blind player, if any (an answer given on a console only is said to nobody).
    #[test]
    fn replay_writes_the_requests_f9_d_as_the_transcript_has_them() {
        let dir = crate::store::scratch("replay-req");
        let path = dir.join("journal.jsonl");
        let asked = RequestRecord {
            by: AskedBy::Arbiter,
            asked: "time".into(),
            answer: vec!["no clock in this game".into()],
            said: Vec::new(),
            seat: None,
        };
        let told = RequestRecord {
            by: AskedBy::Assistant,
            asked: "last".into(),
            answer: vec!["1. e2-e4".into()],
            said: vec!["Weiß: Eva vier".into()],
            seat: None,
        };
        let input = |t, i: &Input| Entry::Input {
            t,
            wall: 0,
            input: i.into(),
        };
        let entries = [
            Entry::Header(Box::new(header())),
            input(0, &Input::Start),
            Entry::Input {
                t: 500,
                wall: 0,
                input: InputRecord::Request(asked.clone()),
            },
            input(1000, &Input::EnterMove("e4".into())),
            input(1500, &Input::ClockPress),
            Entry::Input {
                t: 61_000,
                wall: 0,
                input: InputRecord::Request(told.clone()),
            },
        ];
        std::fs::write(
            &path,
            tactus_core::journal::check::encode_journal(&entries).unwrap(),
        )
        .unwrap();
        let lines = replay_lines(&path, &voices()).unwrap();
        let at = |needle: &str| {
            lines
                .iter()
                .position(|l| l == needle)
                .unwrap_or_else(|| panic!("no line {needle:?} in {lines:#?}"))
        };
        let first = at(&format!("0:00:00.500 note {}", asked.note()));
        let note = at(&format!("0:01:01.000 note {}", told.note()));
        assert_eq!(lines[note + 1], "0:01:01.000 blind Weiß: Eva vier");
        assert!(first < note);
        assert_eq!(
            told.note(),
            "request 'last' by the assistant, said to the blind player: 1. e2-e4"
        );
        assert_eq!(
            asked.note(),
            "request 'time' by the arbiter, answered on the console only: no clock in this game"
        );
        // Nothing was said to him at the arbiter's request.
        assert!(!lines[first + 1].contains(" blind "), "{lines:#?}");
        assert!(lines.iter().all(|l| !l.contains("skipped")), "{lines:#?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
