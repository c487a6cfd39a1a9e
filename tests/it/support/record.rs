//! What a game left in its folder, and what it should say: the game folder under the output
//! folder, its PGN, the transcript's lines (the words of the `de-fide` pack, to the right
//! audience, in order) and, from the journal, whether the blind player's clock was charged up to
//! the end of each of his moves' announcements (F.3 c, F.9 c); and [`Tail`], what a growing file
//! gained, to wait for a journal entry or a transcript line.

use std::{
    fs,
    io::{Read, Seek, SeekFrom},
    path::{Path, PathBuf},
};

use shakmaty::{Chess, Color, Move, Position};
use tactus::daemon::journal;
use tactus_core::journal::InputRecord;
use tactus_core::{
    announce::{Announcement, Audience, MoveWords, voice::Style, voice::VoicePack},
    rules::{
        game,
        pgn::{PgnGame, read_pgn},
    },
    table::TableEffect,
};

use super::table::{INCREMENT_MS, INITIAL_MS};

/// The only game folder under `dir`.
pub fn game_folder(dir: &Path) -> PathBuf {
    let folders: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(folders.len(), 1, "{folders:?}");
    folders[0].clone()
}

/// The game in a PGN file.
pub fn read_game_file(path: &Path) -> PgnGame {
    let bytes = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    read_pgn(&bytes).unwrap().into_iter().next().unwrap()
}

pub fn pack() -> VoicePack {
    VoicePack::builtin("de-fide").unwrap()
}

/// What a transcript line says after its time of day: `blind|sighted|both|note TEXT`.
pub fn transcript_bodies(transcript: &str) -> Vec<String> {
    transcript
        .lines()
        .filter_map(|l| l.split_once(' ').map(|(_, rest)| rest.to_string()))
        .collect()
}

/// The transcript line for a move announcement: to the sighted side for the blind player's
/// move, to the blind player for the sighted player's.
pub fn move_line(pack: &VoicePack, pos: &Chess, m: Move, blind: Color) -> String {
    let text = pack
        .render(&Announcement::Move(MoveWords::new(pos, m)), Style::San)
        .text;
    let audience = if pos.turn() == blind {
        "sighted"
    } else {
        "blind"
    };
    format!("{audience} {text}")
}

/// Every move of `moves` announced, in order, to the right audience. Returns the index among
/// `bodies` of the announcement of each move, or the first one missing.
pub fn find_move_announcements(
    bodies: &[String],
    moves: &[Move],
    blind: Color,
) -> Result<Vec<usize>, String> {
    let pack = pack();
    let mut pos = Chess::default();
    let mut at = 0usize;
    let mut found = Vec::new();
    for (ply, &m) in moves.iter().enumerate() {
        let wanted = move_line(&pack, &pos, m, blind);
        match bodies[at..].iter().position(|b| *b == wanted) {
            Some(i) => {
                found.push(at + i);
                at = at + i + 1;
            }
            None => {
                return Err(format!(
                    "ply {}: '{wanted}' missing (or out of order) in the transcript",
                    ply + 1
                ));
            }
        }
        pos.play_unchecked(m);
    }
    Ok(found)
}

/// The words of an announcement to everyone.
pub fn both_line(announcement: &Announcement) -> String {
    format!("both {}", pack().render(announcement, Style::San).text)
}

/// What the journal says about the blind player's moves.
#[derive(Debug, Default, Clone)]
pub struct ClockCharges {
    /// Blind moves checked.
    pub moves: usize,
    /// Of these, moves whose announcement took at least a millisecond to finish (so that
    /// charging up to the placement would have given a different clock).
    pub announced_later: usize,
    /// Milliseconds from the input that completed the move (the placement, or the promotion
    /// piece entered) to the end of its announcement, per move.
    pub speech_ms: Vec<u64>,
}

/// Check from the journal that every blind move counted when its announcement finished and that
/// his clock was charged up to then (F.3 c, F.9 c): after his move it shows what it showed after
/// his previous one, plus the increment, minus the time from the start of his turn to the end of
/// the announcement. Only for games without pauses, retraces or corrections.
pub fn check_blind_clock(journal_path: &Path, blind: Color) -> Result<ClockCharges, String> {
    let read = journal::read(journal_path).map_err(|e| format!("{e:#}"))?;
    let mut says: Vec<(u64, u64)> = Vec::new();
    for (t, effect) in super::journal::effects(&read) {
        if let TableEffect::Say {
            id,
            audience: Audience::Player(heard_by),
            announcement: Announcement::Move(_),
            ..
        } = effect
            && heard_by != blind
        {
            says.push((id, t));
        }
    }
    let replayed = super::journal::replayed(&read);
    let mut finished = std::collections::BTreeMap::new();
    let mut start = None;
    for applied in super::journal::applied(&read) {
        match applied.input {
            InputRecord::SpeechFinished { id } => {
                finished.entry(id).or_insert(applied.t);
            }
            InputRecord::Start => start = start.or(Some(applied.t)),
            _ => {}
        }
    }
    let game = replayed.arbiter().game();
    let moves = game.moves();
    let end_ply = game.end().map(|e| e.ply);
    // A move that ends the game stops the clock without an increment (6.7 a); a resignation or
    // an agreement after it does not take the increment back.
    let ended_by_move = game.end().is_some_and(|e| {
        matches!(
            e.reason,
            game::EndReason::Checkmate | game::EndReason::Stalemate | game::EndReason::DeadPosition
        )
    });
    let mut out = ClockCharges::default();
    let mut says = says.into_iter();
    for (k, record) in moves.iter().enumerate() {
        if record.side != blind {
            continue;
        }
        let (id, said_at) = says
            .next()
            .ok_or_else(|| format!("ply {}: no announcement to the sighted side", k + 1))?;
        let done = *finished
            .get(&id)
            .ok_or_else(|| format!("ply {}: its announcement never finished", k + 1))?;
        if record.at != done {
            return Err(format!(
                "ply {} ({}): counted at {} ms, its announcement finished at {done} ms",
                k + 1,
                record.san,
                record.at
            ));
        }
        if done < said_at {
            return Err(format!("ply {}: finished before it was said", k + 1));
        }
        let turn_start = match k {
            0 => start.ok_or("no start in the journal")?,
            _ => moves[k - 1].at,
        };
        let before = match k {
            0 | 1 => INITIAL_MS,
            _ => *moves[k - 2]
                .clocks_after
                .ok_or("no clocks recorded")?
                .get(blind),
        };
        let after = *record.clocks_after.ok_or("no clocks recorded")?.get(blind);
        let increment = if end_ply == Some(k + 1) && ended_by_move {
            0
        } else {
            INCREMENT_MS
        };
        let charged = before + increment - after;
        let thinking = (done - turn_start) as i64;
        if charged != thinking {
            return Err(format!(
                "ply {} ({}): clock charged {charged} ms, but from the start of his turn to the \
                 end of the announcement {thinking} ms passed (placement at {said_at} ms)",
                k + 1,
                record.san
            ));
        }
        out.moves += 1;
        out.speech_ms.push(done - said_at);
        if done > said_at {
            out.announced_later += 1;
        }
    }
    Ok(out)
}

/// Reads what a growing file (the journal, the transcript) gained since the last look: the
/// trigger a test waits for instead of sleeping a fixed time.
pub struct Tail {
    path: PathBuf,
    offset: u64,
}

impl Tail {
    pub fn at_end(path: PathBuf) -> Tail {
        let offset = fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        Tail { path, offset }
    }
    pub fn new_text(&mut self) -> String {
        let Ok(mut file) = fs::File::open(&self.path) else {
            return String::new();
        };
        if file.seek(SeekFrom::Start(self.offset)).is_err() {
            return String::new();
        }
        let mut bytes = Vec::new();
        let _ = file.read_to_end(&mut bytes);
        // Only whole lines count; the rest is read again next time.
        let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        self.offset += whole as u64;
        String::from_utf8_lossy(&bytes[..whole]).into_owned()
    }
}
