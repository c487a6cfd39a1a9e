//! The game folder's append-only text files: `touches.txt` (every lift on both boards) and the
//! notes the hub adds to `transcript.txt` (the speech task writes the spoken lines to the same
//! file), each line one `write`, flushed at once. A file that cannot be written is tried again
//! with its next line and is logged once per outage ([`LineLog::failing`] while it lasts); the
//! game never stops for it. A file is opened (again) in the game folder held open
//! ([`TrustedDir`]), never through the folder's path: a folder on the way re-pointed meanwhile
//! takes no line elsewhere; once open, its lines follow the file, wherever its folder is moved.

use std::{
    fs::File,
    io::Write,
    path::{Path, PathBuf},
    sync::Arc,
};

use shakmaty::{Piece, Square};
use tracing::{error, info, warn};

use crate::{store::trusted::TrustedDir, wall::time_of_day};
use tactus_core::rules::Millis;

/// An append-only text file written line by line (touches, transcript notes): each line one
/// `write` and flushed, so a crash loses at most the line being written. Failures are logged
/// once per outage; the game goes on.
#[derive(Debug)]
pub struct LineLog {
    /// The game folder held open: the file is opened (again) relative to it.
    folder: Arc<TrustedDir>,
    name: &'static str,
    /// The file's path, for messages.
    path: PathBuf,
    file: Option<File>,
    failing: bool,
}

impl LineLog {
    /// The file `name` of the game folder held, `folder`, opened to append (made 0600 if new)
    /// relative to it, never through a symbolic link (see [`At::append`](crate::store::at::At)).
    pub fn open_in(folder: Arc<TrustedDir>, name: &'static str) -> LineLog {
        let path = folder.file_path(name);
        let file = folder.at().append(name);
        let failing = file.is_err();
        if let Err(e) = &file {
            error!("cannot open {}: {e}", path.display());
        }
        LineLog {
            folder,
            name,
            path,
            file: file.ok(),
            failing,
        }
    }

    pub fn append(&mut self, line: &str) {
        // A file that could not be opened (no descriptors left, a folder gone read-only) is
        // tried again with every line: the outage ends when the cause does.
        if self.file.is_none() {
            match self.folder.at().append(self.name) {
                Ok(file) => self.file = Some(file),
                Err(e) => {
                    if !self.failing {
                        error!("cannot open {}: {e}", self.path.display());
                    }
                    self.failing = true;
                    return;
                }
            }
        }
        let Some(file) = &mut self.file else {
            return;
        };
        let mut text = line.replace(['\n', '\r'], " ");
        text.push('\n');
        match file.write_all(text.as_bytes()) {
            Ok(()) => {
                if self.failing {
                    info!("{} is written again", self.path.display());
                }
                self.failing = false;
            }
            Err(e) => {
                if !self.failing {
                    error!("cannot write to {}: {e}", self.path.display());
                }
                self.failing = true;
            }
        }
    }

    /// The file's path (for `status`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the last line could not be written (for `status`).
    pub fn failing(&self) -> bool {
        self.failing
    }

    /// Flush to the disk (shutdown).
    pub fn sync(&mut self) {
        if let Some(file) = &mut self.file
            && let Err(e) = file.sync_data()
        {
            warn!("cannot flush {}: {e}", self.path.display());
        }
    }
}

/// A transcript line for a note (the speech task writes `<time> blind|sighted|both <words>`).
pub fn note_line(text: &str) -> String {
    let text = crate::speech::transcript::escape_controls(text).replace('\n', " ");
    format!("{} note {}", time_of_day(), text.trim())
}

/// A `touches.txt` line: time of day, game time in seconds, board, square, piece.
pub fn touch_line(t: Millis, board: &str, square: Square, piece: Option<Piece>) -> String {
    let piece = match piece {
        Some(p) => format!("{} {}", p.color, role_name(p.role)),
        None => "piece".to_string(),
    };
    format!(
        "{} {:>10.3} {board:<7} {square} {piece}",
        time_of_day(),
        t as f64 / 1000.0
    )
}

fn role_name(role: shakmaty::Role) -> &'static str {
    match role {
        shakmaty::Role::Pawn => "pawn",
        shakmaty::Role::Knight => "knight",
        shakmaty::Role::Bishop => "bishop",
        shakmaty::Role::Rook => "rook",
        shakmaty::Role::Queen => "queen",
        shakmaty::Role::King => "king",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The review of issue 25: `touches.txt` and the hub's notes were opened (and opened again
    /// after an outage) through the game folder's path after a trust check, so a folder on the
    /// way re-pointed meanwhile (by root or the daemon's own user: a link the check trusts) took
    /// their lines elsewhere. Opened in the game folder held, they stay there, wherever the path
    /// leads now.
    #[test]
    fn a_line_log_stays_in_the_folder_held_when_its_path_is_re_pointed() {
        let dir = crate::store::scratch("lines-held");
        let game = dir.join("games").join("g1");
        std::fs::create_dir_all(&game).unwrap();
        let held = Arc::new(TrustedDir::open(&game).unwrap());
        // A folder where `touches.txt` should be: it cannot be opened until that is put right.
        std::fs::create_dir(game.join("touches.txt")).unwrap();
        // The parent renamed, and a link to a folder of the same shape put in its place.
        std::fs::rename(dir.join("games"), dir.join("moved")).unwrap();
        let elsewhere = dir.join("elsewhere");
        std::fs::create_dir_all(elsewhere.join("g1")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, dir.join("games")).unwrap();
        let moved = dir.join("moved").join("g1");

        let mut notes = LineLog::open_in(held.clone(), "transcript.txt");
        let mut touches = LineLog::open_in(held, "touches.txt");
        assert!(!notes.failing() && touches.failing());
        // Messages name the file by the folder's path.
        assert_eq!(touches.path(), game.join("touches.txt"));
        notes.append("one");
        touches.append("lost");
        assert!(touches.failing());
        // Put right in the folder held: opened again there, not through the path.
        std::fs::remove_dir(moved.join("touches.txt")).unwrap();
        touches.append("two");
        assert!(!touches.failing());
        notes.append("three");
        assert_eq!(
            std::fs::read_to_string(moved.join("transcript.txt")).unwrap(),
            "one\nthree\n"
        );
        assert_eq!(
            std::fs::read_to_string(moved.join("touches.txt")).unwrap(),
            "two\n"
        );
        assert_eq!(
            std::fs::read_dir(elsewhere.join("g1")).unwrap().count(),
            0,
            "nothing was written through the link"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
