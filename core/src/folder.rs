//! The game folder's file names: every file tactus keeps in a game's folder, named once, for the
//! core (the journal, the record's mark, the arbiter's token) and the shell (the record, the
//! transcript, the lock, the page's view) alike.
//!
//! Names only: the folder itself and every read and write in it are the shell's
//! (`daemon::files`, the journal, the record writer); a name is never a path. The modules that
//! once declared these names re-export them from here, so the old paths still work.

/// The game's journal: every input, checksummed, synced before it is applied (`journal`).
pub const JOURNAL_FILE: &str = "journal.jsonl";
/// The record's mark: from how much of the journal the record files were written
/// (`journal::mark`).
pub const MARK_FILE: &str = "record.json";
/// The arbiter's token, when the configuration names no token file (`console::token`).
pub const TOKEN_FILE: &str = "arbiter.token";
/// The lock of the daemon playing the game: it holds the process id.
pub const LOCK_FILE: &str = "tactus.lock";
/// The game in PGN: the record every tool reads.
pub const PGN_FILE: &str = "game.pgn";
/// The scoresheet as text.
pub const TEXT_FILE: &str = "scoresheet.txt";
/// The blind player's own scoresheets (F.5), before their extensions: `blind-score.brf`, `.txt`,
/// `.wav` and `.cues.txt` at a table with one blind player, `blind-score-white.*` and
/// `blind-score-black.*` with two.
pub const BLIND_SCORE_STEM: &str = "blind-score";
/// The one blind player's Braille score for an embosser.
pub const BRF_FILE: &str = "blind-score.brf";
/// The one blind player's Braille score for a display, in Unicode Braille.
pub const BRAILLE_FILE: &str = "blind-score.txt";
/// The one blind player's audio scoresheet.
pub const WAV_FILE: &str = "blind-score.wav";
/// Everything said at the table, and the hub's notes, line by line.
pub const TRANSCRIPT_FILE: &str = "transcript.txt";
/// Every lift on both boards, line by line.
pub const TOUCHES_FILE: &str = "touches.txt";
/// The adjournment envelope's record, as text and as Braille, one pair per adjournment:
/// `envelope-<move number>-<colour of the sealer>.txt` / `.brf`.
pub const ENVELOPE_PREFIX: &str = "envelope-";
/// The table's view for the hall (`tactus hall`), rewritten as the game goes on.
pub const TABLE_FILE: &str = "table.json";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blind_players_scores_are_named_by_their_stem() {
        for (file, extension) in [(BRF_FILE, "brf"), (BRAILLE_FILE, "txt"), (WAV_FILE, "wav")] {
            assert_eq!(file, format!("{BLIND_SCORE_STEM}.{extension}"));
        }
    }
}
