//! The audio scoresheet file of a game (I/O): every move announcement in one WAV, with its cue
//! list beside it, grown by appending: a game of N moves costs about its own size in writes, not
//! N times it (issue 25, point 6: a Raspberry Pi's SD card wears with every byte).
//!
//! An append writes the new samples behind the recording, syncs them, writes the WAV header
//! over the old one with the new sizes ([`wav::header`]), syncs it, and only then appends the
//! cue lines. So after every append both files are valid, and at any instant, even after a crash
//! or a power cut, the WAV is a whole recording (samples the header does not count yet are bytes
//! after its data that no player plays) and every cue line names samples the WAV holds. A write
//! that fails (a full disk) is cut back to the last good length at once; what a crash left
//! behind is cut back the next time ([`AudioScoresheet::update`]).
//!
//! The record writer calls [`AudioScoresheet::update`] after every move: it reads the cue list,
//! compares it with the game's scoresheet ([`wav::update`]) and appends what is new, or, when
//! the game changed otherwise (a takeback, a correction, a resumed game recorded in another
//! voice, a damaged file), writes the whole recording into a temporary file and renames it over
//! the old one. A resumed game thus goes on in the recording it left.
//!
//! The samples and the cue lines come from the pure [`tactus_core::record::wav`]. Files are
//! never opened through a symbolic link, and always relative to their folder held open (an
//! [`At`]: the game folder the daemon holds, or a tool's output folder opened once): the
//! recording, its cue list and their temporary files are made, renamed and removed in it, so a
//! folder on the way re-pointed meanwhile redirects nothing.

use std::{
    cell::Cell,
    fs::File,
    io::{self, Read},
    os::unix::fs::FileExt,
    path::{Path, PathBuf},
};

use nix::fcntl::OFlag;

use tactus_core::record::wav::{
    self, BYTES_PER_SAMPLE, CueEntry, HEADER_LEN, ScoresheetEntry, Spacing, Update, ms_to_samples,
};
use tactus_core::rules::Millis;

use super::at::{At, OpenFolder};

/// A scoresheet that could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ScoresheetError {
    #[error("cannot write the audio scoresheet {}: {source}", path.display())]
    Wav {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot write the cue list {}: {source}", path.display())]
    Cues {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot replace {} with {}: {source}", path.display(), temp.display())]
    Replace {
        path: PathBuf,
        temp: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "the audio scoresheet {} is full: a WAV holds at most {} hours",
        path.display(),
        wav::MAX_SAMPLES / u64::from(wav::SAMPLE_RATE) / 3600
    )]
    TooLong { path: PathBuf },
    #[error("cannot say move {label} in the audio scoresheet: {message}")]
    Clip { label: String, message: String },
}

thread_local! {
    /// Bytes this thread has written to audio scoresheets and their cue lists.
    static WRITTEN: Cell<u64> = const { Cell::new(0) };
}

/// The bytes this thread has written to audio scoresheets (WAV, cue lists and their temporary
/// files) since it started: every `write` counted as the kernel took it. For measuring what a
/// game costs the disk (the tests and `benches/record_bytes.rs`); a thread's own, so that
/// other threads writing meanwhile do not count.
pub fn bytes_written() -> u64 {
    WRITTEN.with(Cell::get)
}

/// Writes all of `bytes` at `offset` of `file` (the file at `path`), counting what is written.
/// A failure may have written part of them.
fn write_at(file: &File, path: &Path, offset: u64, mut bytes: &[u8]) -> io::Result<()> {
    let mut offset = offset;
    while !bytes.is_empty() {
        // In the unit tests a disk that fills up stands in for the kernel's ([`full_disk`]).
        #[cfg(test)]
        let wrote = full_disk::write_at(file, path, offset, bytes);
        #[cfg(not(test))]
        let wrote = {
            let _ = path;
            file.write_at(bytes, offset)
        };
        match wrote {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => {
                WRITTEN.with(|w| w.set(w.get() + n as u64));
                bytes = &bytes[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Cuts `file` (the file at `path`) to `len` bytes.
fn cut(file: &File, path: &Path, len: u64) -> io::Result<()> {
    #[cfg(test)]
    full_disk::freed(file, path, len);
    #[cfg(not(test))]
    let _ = path;
    file.set_len(len)
}

/// The byte where sample `n` of the recording lies.
fn sample_offset(n: u64) -> u64 {
    HEADER_LEN + n * BYTES_PER_SAMPLE
}

/// A new, empty file `name` in the folder `at`, replacing whatever is there without following
/// it: a symbolic link planted in its place is removed (not its target truncated, as
/// `File::create` would), and `O_EXCL` creates the file only if nothing came back in between.
fn fresh_file(at: At<'_>, name: &str) -> io::Result<File> {
    remove_if_there(at, name)?;
    at.open(name, OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_EXCL, 0o666)
}

/// Removes the file `name` of the folder `at`, if there is one.
fn remove_if_there(at: At<'_>, name: &str) -> io::Result<()> {
    match at.remove(name) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The folder of the file at `path`, held open, and the file's name in it; what cannot be
/// opened is an error about the recording at `path`.
fn folder_of(path: &Path) -> Result<(OpenFolder, String), ScoresheetError> {
    let wav_error = |source| ScoresheetError::Wav {
        path: path.to_owned(),
        source,
    };
    let (folder, name) = OpenFolder::of_file(path).map_err(wav_error)?;
    let name = name
        .into_string()
        .map_err(|_| wav_error(io::Error::other("the file name is not UTF-8")))?;
    Ok((folder, name))
}

/// A recording on the disk as found, before anything is cut or appended.
struct Found {
    wav: File,
    cues: File,
    /// What the WAV's header says it holds.
    samples: u64,
    wav_len: u64,
    /// The cue list's whole lines (a torn last line is not one) and their bytes.
    lines: Vec<String>,
    lines_len: u64,
    cues_len: u64,
}

impl Found {
    /// The recording `name` in the folder `at` with its cue list, if both are there, are
    /// regular files (not links), and the WAV is one of ours that holds every sample its header
    /// counts. Anything else is not a recording to append to.
    fn at(at: At<'_>, name: &str) -> Option<Found> {
        let wav = at.open(name, OFlag::O_RDWR, 0).ok()?;
        let mut header = [0u8; HEADER_LEN as usize];
        wav.read_exact_at(&mut header, 0).ok()?;
        let samples = wav::read_header(&header)?;
        let wav_len = wav.metadata().ok()?.len();
        if wav_len < sample_offset(samples) {
            return None;
        }
        let mut cues = at
            .open(AudioScoresheet::cue_name(name), OFlag::O_RDWR, 0)
            .ok()?;
        let mut bytes = Vec::new();
        cues.read_to_end(&mut bytes).ok()?;
        let lines_len = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let lines = bytes[..lines_len]
            .split_inclusive(|&b| b == b'\n')
            .map(|line| String::from_utf8_lossy(&line[..line.len() - 1]).into_owned())
            .collect();
        Some(Found {
            wav,
            cues,
            samples,
            wav_len,
            lines,
            lines_len: lines_len as u64,
            cues_len: bytes.len() as u64,
        })
    }
}

/// The audio scoresheet of one game, written as the game goes (I/O: files).
pub struct AudioScoresheet {
    path: PathBuf,
    cue_path: PathBuf,
    wav: File,
    cues: File,
    between: usize,
    /// Samples in the recording: what its header says.
    written: u64,
    /// Announcements in it: the cue list's lines.
    entries: usize,
    /// Bytes of the cue list.
    cues_len: u64,
    /// Announcements whose samples are written but not yet counted by the header nor in the cue
    /// list ([`AudioScoresheet::commit`]), and where they end.
    pending: Vec<CueEntry>,
    pending_end: u64,
}

impl AudioScoresheet {
    /// The cue file that goes with `wav_path` (`game.wav` -> `game.cues.txt`).
    pub fn cue_path_for(wav_path: &Path) -> PathBuf {
        wav_path.with_extension("cues.txt")
    }

    /// The name of the cue file that goes with the recording `name`.
    fn cue_name(name: &str) -> String {
        Self::cue_path_for(Path::new(name))
            .to_string_lossy()
            .into_owned()
    }

    /// Starts a scoresheet at `path` (replacing any file there) with `between_ms` of silence
    /// between announcements, and its cue file beside it. A recording without announcements is
    /// a valid, empty WAV from the start. The folder is opened by its path once, the files made
    /// in it.
    pub fn create(path: &Path, between_ms: Millis) -> Result<AudioScoresheet, ScoresheetError> {
        let (folder, name) = folder_of(path)?;
        Self::create_at(folder.at(), &name, between_ms)
    }

    /// [`AudioScoresheet::create`]: the recording `name` in the folder `at`.
    fn create_at(
        at: At<'_>,
        name: &str,
        between_ms: Millis,
    ) -> Result<AudioScoresheet, ScoresheetError> {
        let path = at.file_path(name);
        let wav_error = |source| ScoresheetError::Wav {
            path: path.clone(),
            source,
        };
        let cue_path = at.file_path(Self::cue_name(name));
        let wav = fresh_file(at, name).map_err(wav_error)?;
        write_at(&wav, &path, 0, &header_of(&path, 0)?).map_err(wav_error)?;
        let cues =
            fresh_file(at, &Self::cue_name(name)).map_err(|source| ScoresheetError::Cues {
                path: cue_path.clone(),
                source,
            })?;
        Ok(AudioScoresheet {
            path,
            cue_path,
            wav,
            cues,
            between: ms_to_samples(between_ms),
            written: 0,
            entries: 0,
            cues_len: 0,
            pending: Vec::new(),
            pending_end: 0,
        })
    }

    /// Appends one announcement (its samples, from [`assemble`](wav::assemble)) with the silence
    /// before it, then makes both files valid and complete on the disk ([`commit`]). Returns
    /// where it went.
    ///
    /// [`commit`]: AudioScoresheet::commit
    pub fn append(
        &mut self,
        label: &str,
        text: &str,
        samples: &[i16],
    ) -> Result<CueEntry, ScoresheetError> {
        let entry = self.push(label, text, samples)?;
        self.commit()?;
        Ok(entry)
    }

    /// Writes one announcement's samples (and the silence before it) behind the recording, not
    /// yet part of it: the header still counts the samples before, and the cue list lacks its
    /// line, until [`commit`](AudioScoresheet::commit). A failed write is cut back to the last
    /// commit.
    pub fn push(
        &mut self,
        label: &str,
        text: &str,
        samples: &[i16],
    ) -> Result<CueEntry, ScoresheetError> {
        let index = self.entries + self.pending.len();
        let entry = CueEntry::appended(
            label,
            text,
            index,
            self.pending_end,
            samples.len(),
            self.between,
        );
        if entry.end_sample > wav::MAX_SAMPLES {
            return Err(ScoresheetError::TooLong {
                path: self.path.clone(),
            });
        }
        let silence = (entry.start_sample - self.pending_end) as usize;
        let mut bytes = vec![0u8; silence * BYTES_PER_SAMPLE as usize];
        bytes.extend(samples.iter().flat_map(|s| s.to_le_bytes()));
        if let Err(source) = write_at(
            &self.wav,
            &self.path,
            sample_offset(self.pending_end),
            &bytes,
        ) {
            self.roll_back();
            return Err(ScoresheetError::Wav {
                path: self.path.clone(),
                source,
            });
        }
        self.pending_end = entry.end_sample;
        self.pending.push(entry.clone());
        Ok(entry)
    }

    /// Makes the announcements pushed since the last commit part of the recording, in the order
    /// that keeps it whole at every instant: their samples synced, the header that counts them
    /// written and synced, then their cue lines appended and synced. On a failure both files are
    /// cut back to the last commit (what cannot be cut back now is the next update's to repair).
    pub fn commit(&mut self) -> Result<(), ScoresheetError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let lines: String = self
            .pending
            .iter()
            .map(|e| format!("{}\n", e.to_line()))
            .collect();
        let wav_error = |source| ScoresheetError::Wav {
            path: self.path.clone(),
            source,
        };
        let cue_error = |source| ScoresheetError::Cues {
            path: self.cue_path.clone(),
            source,
        };
        let header = header_of(&self.path, self.pending_end)?;
        let done = self
            .wav
            .sync_data()
            .and_then(|()| write_at(&self.wav, &self.path, 0, &header))
            .and_then(|()| self.wav.sync_data())
            .map_err(wav_error)
            .and_then(|()| {
                write_at(&self.cues, &self.cue_path, self.cues_len, lines.as_bytes())
                    .and_then(|()| self.cues.sync_data())
                    .map_err(cue_error)
            });
        if let Err(e) = done {
            self.roll_back();
            return Err(e);
        }
        self.written = self.pending_end;
        self.entries += self.pending.len();
        self.cues_len += lines.len() as u64;
        self.pending.clear();
        Ok(())
    }

    /// Back to the last commit after a failed write: the header that counts only the committed
    /// samples, the WAV and the cue list cut to their committed lengths. Best effort: the
    /// header's sizes are what a reader trusts, and they are written first; what is left behind
    /// the next update cuts off.
    fn roll_back(&mut self) {
        self.pending.clear();
        self.pending_end = self.written;
        if let Some(header) = wav::header(self.written) {
            let _ = write_at(&self.wav, &self.path, 0, &header);
        }
        let _ = cut(&self.wav, &self.path, sample_offset(self.written));
        let _ = cut(&self.cues, &self.cue_path, self.cues_len);
        let _ = self.wav.sync_data();
        let _ = self.cues.sync_data();
    }

    /// The whole audio scoresheet of `entries` (from [`wav::scoresheet`]) at `path`, with its
    /// cue list beside it: each entry assembled from the clips `load` gives, with `spacing`
    /// inside it and `between_ms` of silence between two. The first clip that cannot be loaded
    /// is the error, naming the move.
    pub fn record<S, E>(
        path: &Path,
        entries: &[ScoresheetEntry],
        spacing: Spacing,
        between_ms: Millis,
        load: impl FnMut(&str) -> Result<S, E>,
    ) -> Result<(), ScoresheetError>
    where
        S: AsRef<[i16]>,
        E: std::fmt::Display,
    {
        let (folder, name) = folder_of(path)?;
        Self::record_at(folder.at(), &name, entries, spacing, between_ms, load)
    }

    /// [`AudioScoresheet::record`]: the recording `name` in the folder `at`.
    fn record_at<S, E>(
        at: At<'_>,
        name: &str,
        entries: &[ScoresheetEntry],
        spacing: Spacing,
        between_ms: Millis,
        mut load: impl FnMut(&str) -> Result<S, E>,
    ) -> Result<(), ScoresheetError>
    where
        S: AsRef<[i16]>,
        E: std::fmt::Display,
    {
        let mut sheet = AudioScoresheet::create_at(at, name, between_ms)?;
        sheet.push_entries(entries, spacing, &mut load)?;
        sheet.finish()
    }

    /// Pushes each of `entries`, assembled from the clips `load` gives.
    fn push_entries<S, E>(
        &mut self,
        entries: &[ScoresheetEntry],
        spacing: Spacing,
        mut load: impl FnMut(&str) -> Result<S, E>,
    ) -> Result<(), ScoresheetError>
    where
        S: AsRef<[i16]>,
        E: std::fmt::Display,
    {
        for entry in entries {
            let samples: Vec<i16> =
                wav::assemble(&entry.utterance, spacing, &mut load).map_err(|e| {
                    ScoresheetError::Clip {
                        label: entry.label.clone(),
                        message: e.to_string(),
                    }
                })?;
            self.push(&entry.label, &entry.utterance.text, &samples)?;
        }
        Ok(())
    }

    /// Brings the recording `name` of the folder `at` (with its cue list) up to the scoresheet
    /// `entries`, writing as little as it can (see the module docs): nothing when it is current;
    /// the new entries appended when the game grew, after cutting off what an interrupted append
    /// left behind; otherwise the whole recording made in `temp` (a name in the same folder) and
    /// renamed over it. Returns which it was. On an error the files are whole recordings of an
    /// earlier point of the game.
    pub fn update<S, E>(
        at: At<'_>,
        name: &str,
        temp: &str,
        entries: &[ScoresheetEntry],
        spacing: Spacing,
        between_ms: Millis,
        mut load: impl FnMut(&str) -> Result<S, E>,
    ) -> Result<Update, ScoresheetError>
    where
        S: AsRef<[i16]>,
        E: std::fmt::Display,
    {
        let between = ms_to_samples(between_ms);
        let lens = entries
            .iter()
            .map(|entry| {
                wav::assembled_len(&entry.utterance, spacing, |stem| {
                    load(stem).map(|s| s.as_ref().len())
                })
                .map_err(|e| ScoresheetError::Clip {
                    label: entry.label.clone(),
                    message: e.to_string(),
                })
            })
            .collect::<Result<Vec<usize>, _>>()?;
        let wanted = wav::layout(entries, lens, between);
        let found = Found::at(at, name);
        let plan = match &found {
            Some(found) => wav::update(&wanted, &found.lines, Some(found.samples)),
            None => Update::Rewrite,
        };
        match (plan, found) {
            (Update::Current, _) => {}
            (Update::Append { keep, samples }, Some(found)) => {
                let mut sheet =
                    AudioScoresheet::resume(&at.file_path(name), between, found, keep, samples)?;
                sheet.push_entries(&entries[keep..], spacing, &mut load)?;
                sheet.finish()?;
            }
            _ => Self::rewrite(at, name, temp, entries, spacing, between_ms, load)?,
        }
        Ok(plan)
    }

    /// The recording `found` at `path`, cut back to its first `keep` announcements (`samples`
    /// samples) to be appended to: the header first (from then on a reader plays only those),
    /// then the bytes behind them, then a torn last cue line.
    fn resume(
        path: &Path,
        between: usize,
        found: Found,
        keep: usize,
        samples: u64,
    ) -> Result<AudioScoresheet, ScoresheetError> {
        let cue_path = Self::cue_path_for(path);
        let wav_error = |source| ScoresheetError::Wav {
            path: path.to_owned(),
            source,
        };
        if found.samples != samples {
            write_at(&found.wav, path, 0, &header_of(path, samples)?)
                .and_then(|()| found.wav.sync_data())
                .map_err(wav_error)?;
        }
        if found.wav_len != sample_offset(samples) {
            cut(&found.wav, path, sample_offset(samples))
                .and_then(|()| found.wav.sync_data())
                .map_err(wav_error)?;
        }
        if found.cues_len != found.lines_len {
            cut(&found.cues, &cue_path, found.lines_len)
                .and_then(|()| found.cues.sync_data())
                .map_err(|source| ScoresheetError::Cues {
                    path: cue_path.clone(),
                    source,
                })?;
        }
        Ok(AudioScoresheet {
            path: path.to_owned(),
            cue_path,
            wav: found.wav,
            cues: found.cues,
            between,
            written: samples,
            entries: keep,
            cues_len: found.lines_len,
            pending: Vec::new(),
            pending_end: samples,
        })
    }

    /// The whole recording of `entries` made in `temp` (with its cue list) and renamed over the
    /// one named `name`, all in the folder `at`. The old cue list is removed first, so that no
    /// moment (nor a crash) pairs a cue list with a recording it was not written for; without
    /// one, the next update appends the whole game again. On an error the temporary files are
    /// removed.
    fn rewrite<S, E>(
        at: At<'_>,
        name: &str,
        temp: &str,
        entries: &[ScoresheetEntry],
        spacing: Spacing,
        between_ms: Millis,
        load: impl FnMut(&str) -> Result<S, E>,
    ) -> Result<(), ScoresheetError>
    where
        S: AsRef<[i16]>,
        E: std::fmt::Display,
    {
        let cues = Self::cue_name(name);
        let temp_cues = Self::cue_name(temp);
        let replaced =
            Self::record_at(at, temp, entries, spacing, between_ms, load).and_then(|()| {
                remove_if_there(at, &cues).map_err(|source| ScoresheetError::Cues {
                    path: at.file_path(&cues),
                    source,
                })?;
                at.sync();
                for (from, to) in [(temp, name), (temp_cues.as_str(), cues.as_str())] {
                    at.rename(from, to)
                        .map_err(|source| ScoresheetError::Replace {
                            path: at.file_path(to),
                            temp: at.file_path(from),
                            source,
                        })?;
                }
                at.sync();
                Ok(())
            });
        if replaced.is_err() {
            // A full disk leaves a half-written recording: it must not fill the disk further.
            let _ = at.remove(temp);
            let _ = at.remove(&temp_cues);
        }
        replaced
    }

    /// The announcements the recording `name` of the folder `at` holds on the disk (its cue
    /// list's whole lines), None when there is no recording of ours there. For saying where the
    /// files stand.
    pub fn held(at: At<'_>, name: &str) -> Option<usize> {
        Found::at(at, name).map(|found| found.lines.len())
    }

    /// Samples written so far.
    pub fn len_samples(&self) -> u64 {
        self.pending_end
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn cue_path(&self) -> &Path {
        &self.cue_path
    }

    /// Finishes the recording: what was pushed is committed, and both files are synced to the
    /// disk (a drop would lose what was pushed since the last commit, and swallow the error).
    pub fn finish(mut self) -> Result<(), ScoresheetError> {
        self.commit()?;
        self.wav.sync_all().map_err(|source| ScoresheetError::Wav {
            path: self.path.clone(),
            source,
        })?;
        self.cues
            .sync_all()
            .map_err(|source| ScoresheetError::Cues {
                path: self.cue_path.clone(),
                source,
            })
    }
}

/// The header of a recording of `samples` samples at `path`.
fn header_of(path: &Path, samples: u64) -> Result<[u8; HEADER_LEN as usize], ScoresheetError> {
    wav::header(samples).ok_or_else(|| ScoresheetError::TooLong {
        path: path.to_owned(),
    })
}

/// A disk that fills up, for the tests: the folders given a room take that many bytes more
/// (the bytes that make a file longer; cutting a file frees them), then a write puts in what
/// fits and fails with ENOSPC, as `write(2)` does on a full disk. Shared between threads, so
/// that the record writer's thread sees it too; other folders are not touched.
#[cfg(test)]
pub(crate) mod full_disk {
    use std::{
        fs::File,
        io,
        os::unix::fs::FileExt,
        path::{Path, PathBuf},
        sync::Mutex,
    };

    static ROOM: Mutex<Vec<(PathBuf, u64)>> = Mutex::new(Vec::new());

    /// From now on `folder` takes `room` bytes more (None: as many as it likes).
    pub(crate) fn set(folder: &Path, room: Option<u64>) {
        let mut rooms = ROOM.lock().unwrap_or_else(|e| e.into_inner());
        rooms.retain(|(f, _)| f != folder);
        if let Some(room) = room {
            rooms.push((folder.to_owned(), room));
        }
    }

    fn with_room<T>(path: &Path, f: impl FnOnce(Option<&mut u64>) -> T) -> T {
        let mut rooms = ROOM.lock().unwrap_or_else(|e| e.into_inner());
        let folder = path.parent().unwrap_or(Path::new(""));
        f(rooms
            .iter_mut()
            .find(|(f, _)| f == folder)
            .map(|(_, room)| room))
    }

    pub(super) fn write_at(
        file: &File,
        path: &Path,
        offset: u64,
        bytes: &[u8],
    ) -> io::Result<usize> {
        let len = file.metadata()?.len();
        let fits = with_room(path, |room| {
            let Some(room) = room else {
                return bytes.len();
            };
            let fits = (len + *room).saturating_sub(offset).min(bytes.len() as u64);
            *room -= (offset + fits).saturating_sub(len).min(*room);
            fits as usize
        });
        if fits == 0 && !bytes.is_empty() {
            return Err(io::Error::from_raw_os_error(28)); // ENOSPC
        }
        file.write_at(&bytes[..fits], offset)
    }

    pub(super) fn freed(file: &File, path: &Path, len: u64) {
        let before = file.metadata().map_or(0, |m| m.len());
        with_room(path, |room| {
            if let Some(room) = room {
                *room += before.saturating_sub(len);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tactus_core::{
        announce::voice::{PAUSE, Utterance},
        record::wav::{Spacing, assemble},
    };

    fn utterance(clips: &[&str]) -> Utterance {
        Utterance {
            text: clips.join(" "),
            clips: clips.iter().map(|c| (*c).to_owned()).collect(),
        }
    }

    fn clip(stem: &str) -> Result<Vec<i16>, String> {
        match stem {
            "a" => Ok(vec![1; 100]),
            "b" => Ok(vec![2; 50]),
            other => Err(format!("no clip {other}")),
        }
    }

    #[test]
    fn assembly_puts_gaps_between_clips_and_pauses_where_asked() {
        let spacing = Spacing {
            gap_ms: 10,
            pause_ms: 100,
        };
        let (gap, pause) = (ms_to_samples(10), ms_to_samples(100));
        assert_eq!((gap, pause), (220, 2205));
        let samples = assemble(&utterance(&["a", "b", PAUSE, "a"]), spacing, clip).unwrap();
        assert_eq!(samples.len(), 100 + gap + 50 + pause + 100);
        assert!(samples[..100].iter().all(|s| *s == 1));
        assert!(samples[100..100 + gap].iter().all(|s| *s == 0));
        assert!(samples[100 + gap..150 + gap].iter().all(|s| *s == 2));
        assert!(
            samples[150 + gap..150 + gap + pause]
                .iter()
                .all(|s| *s == 0)
        );
        assert_eq!(samples.last(), Some(&1));
        assert!(assemble(&utterance(&[]), spacing, clip).unwrap().is_empty());
        assert_eq!(
            assemble(&utterance(&["a", "zz"]), spacing, clip).unwrap_err(),
            "no clip zz"
        );
        // Borrowed clips work as well as owned ones (a speaker's cache).
        let cache = [1i16; 3];
        let borrowed = assemble(&utterance(&["x", "x"]), spacing, |_| {
            Ok::<_, ()>(&cache[..])
        });
        assert_eq!(borrowed.unwrap().len(), 6 + gap);
    }

    #[test]
    fn cue_lines_round_trip() {
        let entry = CueEntry {
            label: "12...".into(),
            text: "Springer\tFelix drei".into(),
            start_sample: 22_050 * 61 + 11,
            end_sample: 22_050 * 62,
        };
        assert_eq!(entry.to_line(), "61.001\t62.000\t12... Springer Felix drei");
        assert_eq!(
            CueEntry::parse_line(&entry.to_line()),
            Some((61_001, 62_000, "12... Springer Felix drei".into()))
        );
        assert_eq!(CueEntry::parse_line("1.5\t2.000\tx"), None);
        assert_eq!(
            AudioScoresheet::cue_path_for(Path::new("games/g1.wav")),
            Path::new("games/g1.cues.txt")
        );
    }

    #[test]
    fn the_scoresheet_is_a_valid_wav_after_every_append() {
        let dir = crate::store::scratch("wav");
        let path = dir.join("game.wav");
        let mut sheet = AudioScoresheet::create(&path, 100).unwrap();
        assert_eq!(hound::WavReader::open(&path).unwrap().len(), 0);
        let between = ms_to_samples(100) as u64;
        let mut expected: Vec<i16> = Vec::new();
        for (i, len) in [300usize, 1, 5_000].into_iter().enumerate() {
            let samples: Vec<i16> = (0..len).map(|n| (n % 200) as i16 + 1).collect();
            let entry = sheet
                .append(&format!("{}.", i + 1), "text", &samples)
                .unwrap();
            if i > 0 {
                expected.resize(expected.len() + between as usize, 0);
            }
            assert_eq!(entry.start_sample, expected.len() as u64);
            expected.extend(&samples);
            assert_eq!(entry.end_sample, expected.len() as u64);
            // Read back while the writer is still open: the header is already right.
            let mut reader = hound::WavReader::open(&path).unwrap();
            assert_eq!(reader.spec(), wav::spec());
            let read: Vec<i16> = reader.samples::<i16>().map(Result::unwrap).collect();
            assert_eq!(read, expected);
            let cues = std::fs::read_to_string(sheet.cue_path()).unwrap();
            assert_eq!(cues.lines().count(), i + 1);
        }
        sheet.finish().unwrap();
        assert_eq!(
            hound::WavReader::open(&path).unwrap().len() as usize,
            expected.len()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The review of issue 25: the recording was updated through its folder's path after the
    /// trust check, so a folder on the way re-pointed in between took it elsewhere. It is made,
    /// appended to and replaced in the folder held open, wherever its path leads now.
    #[test]
    fn a_recording_stays_in_the_folder_held_when_its_path_is_re_pointed() {
        let dir = crate::store::scratch("wav-held");
        let game = dir.join("games").join("g1");
        std::fs::create_dir_all(&game).unwrap();
        let (folder, _) = OpenFolder::of_file(&game.join("game.wav")).unwrap();
        std::fs::rename(dir.join("games"), dir.join("moved")).unwrap();
        let elsewhere = dir.join("elsewhere");
        std::fs::create_dir_all(elsewhere.join("g1")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, dir.join("games")).unwrap();
        let spacing = Spacing {
            gap_ms: 10,
            pause_ms: 100,
        };
        let entry = |label: &str, clips: &[&str]| ScoresheetEntry {
            label: label.into(),
            utterance: utterance(clips),
        };
        let mut entries = vec![entry("1.", &["a"])];
        let update = |entries: &[ScoresheetEntry]| {
            AudioScoresheet::update(
                folder.at(),
                "game.wav",
                ".game.tmp.wav",
                entries,
                spacing,
                100,
                clip,
            )
            .unwrap()
        };
        assert_eq!(update(&entries), Update::Rewrite);
        entries.push(entry("1...", &["b"]));
        assert!(matches!(update(&entries), Update::Append { keep: 1, .. }));
        // A correction: written anew, renamed over it, in the same folder.
        entries[1] = entry("1...", &["a", "b"]);
        assert_eq!(update(&entries), Update::Rewrite);
        let moved = dir.join("moved").join("g1");
        assert_eq!(AudioScoresheet::held(folder.at(), "game.wav"), Some(2));
        assert_eq!(
            std::fs::read_to_string(moved.join("game.cues.txt"))
                .unwrap()
                .lines()
                .count(),
            2
        );
        let mut names: Vec<_> = std::fs::read_dir(&moved)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["game.cues.txt", "game.wav"]);
        assert_eq!(std::fs::read_dir(elsewhere.join("g1")).unwrap().count(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 14, point 9: a symbolic link planted where the recording goes was followed, and
    /// its target (any file the daemon's user may write) truncated and overwritten. The link
    /// itself is replaced; the target is untouched.
    #[test]
    fn a_planted_link_is_replaced_not_followed() {
        let dir = crate::store::scratch("wav-link");
        let victim = dir.join("victim.txt");
        let cue_victim = dir.join("cue-victim.txt");
        std::fs::write(&victim, b"keep").unwrap();
        std::fs::write(&cue_victim, b"keep too").unwrap();
        let path = dir.join(".blind-score.tmp.wav");
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        std::os::unix::fs::symlink(&cue_victim, AudioScoresheet::cue_path_for(&path)).unwrap();
        let sheet = AudioScoresheet::create(&path, 100).unwrap();
        sheet.finish().unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert_eq!(std::fs::read(&cue_victim).unwrap(), b"keep too");
        assert!(
            !std::fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(hound::WavReader::open(&path).unwrap().len(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
