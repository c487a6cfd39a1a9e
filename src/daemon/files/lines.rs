//! The game folder's append-only text files: `touches.txt` (every lift on both boards) and the
//! notes the hub adds to `transcript.txt` (the speech task writes the spoken lines to the same
//! file), each line one `write`, flushed at once. A file that cannot be written is tried again
//! with its next line and is logged once per outage ([`LineLog::failing`] while it lasts); the
//! game never stops for it. A file is opened (again) only in a folder found trusted at that
//! moment; once open, its lines follow the file, wherever its folder is moved.

use std::{
    fs::File,
    io::Write,
    path::{Path, PathBuf},
};

use shakmaty::{Piece, Square};
use tracing::{error, info, warn};

use crate::{
    store::trusted::{Last, check_folder},
    wall::time_of_day,
};
use tactus_core::rules::Millis;

/// An append-only text file written line by line (touches, transcript notes): each line one
/// `write` and flushed, so a crash loses at most the line being written. Failures are logged
/// once per outage; the game goes on.
#[derive(Debug)]
pub struct LineLog {
    path: PathBuf,
    file: Option<File>,
    failing: bool,
}

impl LineLog {
    pub fn open(path: &Path) -> LineLog {
        let file = open_checked(path);
        let failing = file.is_err();
        if let Err(e) = &file {
            error!("cannot open {}: {e}", path.display());
        }
        LineLog {
            path: path.to_owned(),
            file: file.ok(),
            failing,
        }
    }

    pub fn append(&mut self, line: &str) {
        // A file that could not be opened (no descriptors left, a folder gone read-only) is
        // tried again with every line: the outage ends when the cause does.
        if self.file.is_none() {
            match open_checked(&self.path) {
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

/// Open `path` to append ([`open_append`](crate::store::private::open_append): 0600, no link
/// followed) once its folder has been found trusted again: this is opened again after an outage,
/// when a folder on the way may have been re-pointed by someone else meanwhile.
fn open_checked(path: &Path) -> std::io::Result<File> {
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        check_folder(folder, Last::Private)
            .map_err(|e| std::io::Error::other(format!("the folder cannot be trusted now: {e}")))?;
    }
    crate::store::private::open_append(path)
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
