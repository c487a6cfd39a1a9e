//! What a viewer may see of a table: a [`TableView`], made by the hub after each change and
//! served by the web task from the latest one. It is built to leave out what must never be
//! shown: the sealed move before the envelope is opened (the game record has no sealed move
//! until `open` plays it), the arbiter's token, and the answers to the blind player's requests
//! (F.9 d: said only to him). Nothing here reads a clock or a file.

use serde::{Deserialize, Serialize};

/// The table as a viewer sees it at one moment.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TableView {
    /// The PGN tags (Event, Site, Date, Round, White, Black).
    pub tags: Vec<(String, String)>,
    /// The game so far as PGN, clocks included (never the sealed move).
    pub pgn: String,
    /// The moves in SAN, in order.
    pub moves: Vec<String>,
    /// `white` or `black`: whose move it is.
    pub to_move: String,
    pub clocks: Option<ClocksView>,
    /// Each board as it stands, in seat order (the blind player's first).
    pub boards: Vec<BoardView>,
    /// The last move of each side that has moved, White's first.
    pub last: Vec<LastMove>,
    /// Offers and claims pending, in words.
    pub pending: Vec<String>,
    /// The game's state in words: "not started", "in play", "paused", "adjourned", "awaiting the
    /// arbiter", or the result.
    pub state: String,
    /// The result as PGN writes it (`*` while the game goes on).
    pub result: String,
}

/// The official clocks when the view was made.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClocksView {
    pub white_ms: i64,
    pub black_ms: i64,
    /// The side whose clock runs (`white`, `black`), if one runs.
    pub running: Option<String>,
}

/// One board as its sensors report it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardView {
    /// The seat the board belongs to (`white`, `black`): it is drawn from that side.
    pub seat: String,
    /// The board's name at the table ("the tactile board").
    pub name: String,
    /// The pieces, a8 to h1 rank by rank: a FEN letter, or `.` for an empty square.
    pub squares: String,
    /// Whether the board has sensors (otherwise its moves are entered and it shows the game).
    pub sensed: bool,
    /// The squares (like `e4`) where the board differs from the game's position.
    pub differs: Vec<String>,
}

/// A side's last move.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastMove {
    pub side: String,
    /// The move's number and SAN, like `12... Nf6`.
    pub san: String,
    /// The words it was announced in.
    pub words: String,
}

impl TableView {
    /// The value of tag `name`, or `?`.
    pub fn tag(&self, name: &str) -> &str {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map_or("?", |(_, v)| v.as_str())
    }
}

/// A clock as the page shows it: `h:mm:ss`, or `m:ss` under an hour.
pub fn clock_text(ms: i64) -> String {
    let seconds = ms.max(0) / 1000;
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_show_hours_only_from_an_hour() {
        assert_eq!(clock_text(3_599_999), "59:59");
        assert_eq!(clock_text(3_600_000), "1:00:00");
        assert_eq!(clock_text(61_500), "1:01");
        assert_eq!(clock_text(-5), "0:00");
    }
}
