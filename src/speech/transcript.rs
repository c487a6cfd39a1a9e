//! The game's `transcript.txt`: one line per announcement, `HH:MM:SS.mmm <audience> <text>`, the
//! audience named as the table names its players ([`SeatNames::audience`]: `blind`, `sighted`,
//! `both`; with two blind players `white`, `black`, `both`).
//!
//! Owns the line format (pure, [`format_line`]), the escaping of control characters in every
//! text the daemon writes for people to read ([`escape_controls`]: the transcript here, the
//! console socket's lines in `daemon::console`), and the append-only file. It never reads the
//! clock (the speech task passes the time of day in) and never decides what is said. Every line
//! is written with one `write` call and flushed at once, so a crash loses at most the line being
//! written; a failing disk is logged and never stops speech. The daemon's transcript is opened
//! in the game folder it holds open ([`TranscriptAt::Held`]), never through the folder's path.

use std::{
    fs::File,
    io::Write,
    path::{Path, PathBuf},
    time::Duration,
};

use anyhow::{Context, Result};

use crate::store::at::{At, OpenFolder};

#[cfg(doc)]
use tactus_core::arbiter::SeatNames;
use tactus_core::record::date::format_time_of_day;

/// `text` with every control character but the line feed written as `\xNN` (`\u{NN}` beyond
/// ASCII), and `\r\n` read as `\n`. Text from a board, a file or a client can hold terminal
/// escapes (`ESC ] 0 ; title BEL`, `ESC [ 2 J`): raw, they would retitle, clear or reprogram the
/// terminal of whoever reads the console or `cat`s the transcript, and confuse a screen reader.
/// Line feeds stay: each writer decides what a line break becomes.
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() && c != '\n') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => out.push('\n'),
            c if c.is_control() && c.is_ascii() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// One transcript line, with its newline. Line breaks inside the text become spaces so that every
/// announcement stays one line; other control characters are escaped ([`escape_controls`]).
pub fn format_line(since_midnight: Duration, audience: &str, text: &str) -> String {
    let text: String = escape_controls(text)
        .chars()
        .map(|c| if c == '\n' { ' ' } else { c })
        .collect();
    format!(
        "{} {} {}\n",
        format_time_of_day(since_midnight),
        audience,
        text.trim()
    )
}

/// Where the transcript is written.
#[derive(Debug)]
pub enum TranscriptAt {
    /// The file at this path (a tool's `--transcript`); its folder is made if it is missing.
    Path(PathBuf),
    /// The file `name` in a folder held open (the daemon's game folder).
    Held { folder: OpenFolder, name: String },
}

/// The open transcript file.
#[derive(Debug)]
pub struct Transcript {
    path: PathBuf,
    file: File,
}

impl Transcript {
    /// Opens `path` for appending (a restarted daemon continues the same transcript).
    pub fn open(path: &Path) -> Result<Transcript> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create the folder {}", dir.display()))?;
        }
        let (folder, name) = OpenFolder::of_file(path)
            .with_context(|| format!("cannot open the transcript {}", path.display()))?;
        Transcript::open_in(folder.at(), &name)
    }

    /// Opens the transcript `name` of the folder `at` for appending, relative to the folder.
    pub fn open_in(at: At<'_>, name: impl AsRef<std::ffi::OsStr>) -> Result<Transcript> {
        let path = at.file_path(&name);
        // Private (it has the arbiter's notes) and never through a link planted in the folder.
        let file = at
            .append(&name)
            .with_context(|| format!("cannot open the transcript {}", path.display()))?;
        Ok(Transcript { path, file })
    }

    /// Opens the transcript where `place` says.
    pub fn open_at(place: &TranscriptAt) -> Result<Transcript> {
        match place {
            TranscriptAt::Path(path) => Transcript::open(path),
            TranscriptAt::Held { folder, name } => Transcript::open_in(folder.at(), name),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one line and flushes it.
    pub fn append(&mut self, since_midnight: Duration, audience: &str, text: &str) -> Result<()> {
        let line = format_line(since_midnight, audience, text);
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.flush())
            .with_context(|| format!("cannot write to the transcript {}", self.path.display()))
    }

    /// Flushes to the disk (on shutdown).
    pub fn sync(&mut self) -> Result<()> {
        self.file
            .flush()
            .and_then(|()| self.file.sync_data())
            .with_context(|| format!("cannot flush the transcript {}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hms(h: u64, m: u64, s: u64, ms: u64) -> Duration {
        Duration::from_millis(((h * 60 + m) * 60 + s) * 1000 + ms)
    }

    #[test]
    fn lines_name_the_audience_and_stay_one_line() {
        assert_eq!(
            format_line(hms(14, 3, 7, 250), "sighted", "Springer Felix drei"),
            "14:03:07.250 sighted Springer Felix drei\n"
        );
        assert_eq!(
            format_line(hms(0, 0, 0, 1), "blind", "Dame Hector fünf\nSchach\n"),
            "00:00:00.001 blind Dame Hector fünf Schach\n"
        );
        assert_eq!(
            format_line(Duration::ZERO, "both", "Remis"),
            "00:00:00.000 both Remis\n"
        );
    }

    #[test]
    fn terminal_escapes_never_reach_the_transcript_raw() {
        // A pegged board's error line as an adversarial probe sent it: retitle, then clear.
        let line = format_line(
            Duration::ZERO,
            "both",
            "Fehler \u{1b}]0;owned\u{7}\u{1b}[2J\u{9b}31m\r\nweiter\rzurück",
        );
        assert_eq!(
            line,
            "00:00:00.000 both Fehler \\x1b]0;owned\\x07\\x1b[2J\\u{9b}31m weiter\\x0dzurück\n"
        );
        assert!(!line.trim_end_matches('\n').chars().any(char::is_control));
        assert!(matches!(
            escape_controls("Dame e4\nSchach"),
            std::borrow::Cow::Borrowed("Dame e4\nSchach")
        ));
    }

    #[test]
    fn the_file_is_appended_and_flushed_per_line() {
        let dir = crate::store::scratch("transcript");
        let path = dir.join("game").join("transcript.txt");
        let mut t = Transcript::open(&path).unwrap();
        t.append(hms(10, 0, 0, 0), "blind", "eins").unwrap();
        // Readable before any close or sync: the line is already in the file.
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "10:00:00.000 blind eins\n"
        );
        drop(t);
        let mut t = Transcript::open(&path).unwrap();
        t.append(hms(10, 0, 1, 0), "sighted", "zwei").unwrap();
        t.sync().unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "10:00:00.000 blind eins\n10:00:01.000 sighted zwei\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The review of issue 25: the daemon's transcript was opened through the game folder's
    /// path after the trust check. Held, it goes to the folder held, wherever the path leads now.
    #[test]
    fn a_held_transcript_goes_to_the_folder_held_not_through_its_path() {
        let dir = crate::store::scratch("transcript-held");
        std::fs::create_dir_all(dir.join("games").join("g1")).unwrap();
        let (folder, _) = OpenFolder::of_file(&dir.join("games").join("g1").join("x")).unwrap();
        std::fs::rename(dir.join("games"), dir.join("moved")).unwrap();
        std::fs::create_dir_all(dir.join("elsewhere").join("g1")).unwrap();
        std::os::unix::fs::symlink(dir.join("elsewhere"), dir.join("games")).unwrap();
        let place = TranscriptAt::Held {
            folder,
            name: "transcript.txt".into(),
        };
        let mut transcript = Transcript::open_at(&place).unwrap();
        transcript.append(Duration::ZERO, "both", "Remis").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("moved/g1/transcript.txt")).unwrap(),
            "00:00:00.000 both Remis\n"
        );
        assert!(!dir.join("elsewhere/g1/transcript.txt").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 14, point 9: a `transcript.txt` planted as a link (to a file of root's, say) is not
    /// appended to, and a new transcript is the daemon's user's alone (it has the arbiter's notes).
    #[test]
    fn the_transcript_is_private_and_never_written_through_a_link() {
        use std::os::unix::fs::PermissionsExt;
        let dir = crate::store::scratch("transcript");
        let path = dir.join("transcript.txt");
        Transcript::open(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let target = dir.join("victim");
        std::fs::write(&target, "untouched").unwrap();
        let planted = dir.join("planted.txt");
        std::os::unix::fs::symlink(&target, &planted).unwrap();
        let err = Transcript::open(&planted).expect_err("a link is refused");
        assert!(format!("{err:#}").contains("symbolic link"), "{err:#}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "untouched");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
