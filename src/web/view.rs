//! What a viewer may see of a table: a [`TableView`], made by the hub after each change and
//! served by the web task from the latest one. It is built to leave out what must never be
//! shown: the sealed move before the envelope is opened (the game record has no sealed move
//! until `open` plays it), the arbiter's token, and the answers to the blind player's requests
//! (F.9 d: said only to him). Nothing here reads a clock or a file: a view says when it was
//! made ([`Made`]), and whoever serves it says when it is served ([`TableView::as_of`]), so that
//! a page opened long after the last move still shows the running clock as it stands.

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Position, Square};
use tokio::time::Instant;

use tactus_core::{
    announce::{Announcement, MoveWords},
    rules::Millis,
    table::Table,
};

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
    /// Where the table's own page is, as the table's daemon knows it: written in `table.json`
    /// for the hall's link (none in the hub's views, and where the table has no page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<PageAddress>,
    /// When the view was made, so that its running clock can be brought up to the moment it is
    /// served. Not part of what is seen: two views that show the same are equal.
    #[serde(skip)]
    pub made: Made,
}

/// Where a table's page listens (`[web] listen`), and the address a viewer elsewhere can open
/// it at, when the table knows one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageAddress {
    /// The address listened on, as `[web] listen` gave it (`0.0.0.0:8080`).
    pub listen: String,
    /// The page's address: `http://ADDRESS:PORT/` for an address of its own, or
    /// `http://NAME:PORT/` with this computer's name when it listens on every address; none
    /// when that name is not known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl PageAddress {
    /// The page of a table that listens on `addr`, on a computer named `host` (if known).
    pub fn of(addr: std::net::SocketAddr, host: Option<&str>) -> PageAddress {
        let url = if addr.ip().is_unspecified() {
            host.map(|h| format!("http://{h}:{}/", addr.port()))
        } else {
            Some(format!("http://{addr}/"))
        };
        PageAddress {
            listen: addr.to_string(),
            url,
        }
    }

    /// Whether the page answers on this computer only (it listens on loopback).
    pub fn loopback(&self) -> bool {
        self.listen
            .parse::<std::net::SocketAddr>()
            .is_ok_and(|a| a.ip().is_loopback())
    }
}

/// The instant a [`TableView`] was made (none for a view read from a file or built in a test).
/// It never makes two views differ: what a view shows is what it is.
#[derive(Debug, Clone, Copy, Default)]
pub struct Made(pub Option<Instant>);

impl Made {
    /// The time from when the view was made to `now`, ms (none for a view without its instant).
    pub fn elapsed_ms(&self, now: Instant) -> i64 {
        self.0.map_or(0, |made| {
            i64::try_from(now.saturating_duration_since(made).as_millis()).unwrap_or(i64::MAX)
        })
    }
}

impl PartialEq for Made {
    fn eq(&self, _: &Made) -> bool {
        true
    }
}

/// The official clocks when the view was made.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClocksView {
    pub white_ms: i64,
    pub black_ms: i64,
    /// The side whose clock runs (`white`, `black`), if one runs.
    pub running: Option<String>,
    /// In the 6.2 delay mode, the running side's delay not yet used in this move: his main
    /// time starts going down only when it is spent.
    #[serde(default)]
    pub delay_ms: i64,
}

impl ClocksView {
    /// The clocks `elapsed_ms` later, the running one having run meanwhile (its delay first).
    /// Never below zero: a fallen flag shows 0:00 until the hub says what happened.
    pub fn advanced(&self, elapsed_ms: i64) -> ClocksView {
        let mut next = self.clone();
        let elapsed = elapsed_ms.max(0);
        let main = (elapsed - self.delay_ms.max(0)).max(0);
        next.delay_ms = (self.delay_ms - elapsed).max(0);
        match self.running.as_deref() {
            Some("white") => next.white_ms = (self.white_ms - main).max(0),
            Some("black") => next.black_ms = (self.black_ms - main).max(0),
            _ => next.delay_ms = self.delay_ms,
        }
        next
    }
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
    /// The view as it stands at `now`: its running clock run on from when it was made. A view
    /// without its instant (read from a file) is as it was written.
    pub fn as_of(&self, now: Instant) -> TableView {
        let mut view = self.clone();
        if let (Some(made), Some(clocks)) = (self.made.0, &self.clocks) {
            view.clocks = Some(clocks.advanced(self.made.elapsed_ms(now)));
            view.made = Made(Some(now.max(made)));
        }
        view
    }

    /// The value of tag `name`, or `?`.
    pub fn tag(&self, name: &str) -> &str {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map_or("?", |(_, v)| v.as_str())
    }
}

impl TableView {
    /// The table as a viewer may see it at `now` (the game's time), made at `made`. Only the
    /// game record, the clocks, the boards and the words of the moves as announced go in: never
    /// the sealed move before `open` (the record has none until the envelope is opened and its
    /// move played), the arbiter's token, nor the answers to the blind player's requests (F.9 d).
    pub fn of(table: &Table, now: Millis, made: Instant) -> TableView {
        let game = table.game();
        let position = game.position();
        let names = table.arbiter().config().names();
        let clocks = game.clock().map(|clock| ClocksView {
            white_ms: clock.remaining(Color::White, now),
            black_ms: clock.remaining(Color::Black, now),
            running: if clock.is_paused() {
                None
            } else {
                clock.running().map(|side| side.to_string())
            },
            delay_ms: match clock.running() {
                Some(side) if !clock.is_paused() => clock.delay_left(side, now),
                _ => 0,
            },
        });
        let boards = table
            .seat_order()
            .into_iter()
            .map(|seat| {
                let shown = table
                    .arbiter()
                    .board(seat)
                    .filter(|_| table.settings().sensors[seat])
                    .map(|r| r.pieces().clone());
                let board = shown.as_ref().unwrap_or(position.board());
                let differs = Square::ALL
                    .into_iter()
                    .filter(|&sq| board.piece_at(sq) != position.board().piece_at(sq))
                    .map(|sq| sq.to_string())
                    .collect();
                BoardView {
                    seat: seat.to_string(),
                    name: format!("{} board", names.board(seat)),
                    squares: squares(board),
                    sensed: shown.is_some(),
                    differs,
                }
            })
            .collect();
        TableView {
            tags: table.tags().to_vec(),
            pgn: game.to_pgn(table.tags()),
            moves: game.moves().iter().map(|m| m.san.to_string()).collect(),
            to_move: position.turn().to_string(),
            clocks,
            boards,
            last: last_moves(table),
            pending: pending_words(table),
            state: state_words(table),
            result: game
                .end()
                .map_or_else(|| "*".to_string(), |e| e.outcome.to_string()),
            page: None,
            made: Made(Some(made)),
        }
    }
}

/// Each side's last move, in SAN and in the words his opponent heard.
fn last_moves(table: &Table) -> Vec<LastMove> {
    let game = table.game();
    let moves = game.moves();
    let mut last = Vec::new();
    for side in Color::ALL {
        let Some(index) = moves.iter().rposition(|m| m.side == side) else {
            continue;
        };
        // The position before the move: replayed from the start (the record keeps moves).
        let mut before: Chess = game.start_position().clone();
        let mut legal = true;
        for m in &moves[..index] {
            match before.clone().play(m.mv) {
                Ok(next) => before = next,
                Err(_) => {
                    // A position set up by the arbiter: the moves no longer follow.
                    legal = false;
                    break;
                }
            }
        }
        let record = &moves[index];
        let number = before.fullmoves();
        let san = match side {
            Color::White => format!("{number}. {}", record.san),
            Color::Black => format!("{number}... {}", record.san),
        };
        let words = if legal && before.is_legal(record.mv) {
            let words = MoveWords::new(&before, record.mv);
            table.wording(!side).words(&Announcement::Move(words)).text
        } else {
            String::new()
        };
        last.push(LastMove {
            side: side.to_string(),
            san,
            words,
        });
    }
    last
}

/// Offers and claims pending, in words.
fn pending_words(table: &Table) -> Vec<String> {
    let game = table.game();
    let mut pending = Vec::new();
    if let Some(by) = game.draw_offer() {
        pending.push(format!("{by} offers a draw"));
    }
    if let Some(by) = game.quickplay_claim() {
        pending.push(format!("{by} claims a draw under 10.2; the arbiter rules"));
    }
    if game.result_awaits_arbiter() {
        pending.push("the result awaits the arbiter".to_string());
    }
    if game.clocks_to_confirm() {
        pending.push("the clocks await the arbiter after a retrace".to_string());
    }
    pending
}

/// The game's state in words.
fn state_words(table: &Table) -> String {
    let game = table.game();
    if let Some(end) = game.end() {
        return format!("over: {} ({})", end.outcome, end.reason.describe());
    }
    if game.adjournment().is_some() {
        return "adjourned".to_string();
    }
    if game.is_over() || game.quickplay_claim().is_some() || game.clocks_to_confirm() {
        return "awaiting the arbiter".to_string();
    }
    if !table.arbiter().started() {
        return "not started".to_string();
    }
    if game.clock().is_some_and(|c| c.is_paused()) {
        return "paused".to_string();
    }
    "in play".to_string()
}

/// The board's 64 squares, a8 to h1 rank by rank.
fn squares(board: &shakmaty::Board) -> String {
    let mut out = String::with_capacity(64);
    for rank in (0..8u32).rev() {
        for file in 0..8u32 {
            let sq = Square::new(rank * 8 + file);
            out.push(board.piece_at(sq).map_or('.', |p| p.char()));
        }
    }
    out
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
    fn the_running_clock_runs_on_from_when_the_view_was_made_its_delay_first() {
        let clocks = ClocksView {
            white_ms: 60_000,
            black_ms: 50_000,
            running: Some("black".into()),
            delay_ms: 2_000,
        };
        let later = clocks.advanced(5_000);
        assert_eq!(
            (later.white_ms, later.black_ms, later.delay_ms),
            (60_000, 47_000, 0)
        );
        let soon = clocks.advanced(1_500);
        assert_eq!((soon.black_ms, soon.delay_ms), (50_000, 500));
        assert_eq!(clocks.advanced(3_600_000).black_ms, 0, "never below zero");
        let stopped = ClocksView {
            running: None,
            ..clocks.clone()
        };
        assert_eq!(stopped.advanced(5_000), stopped);

        let made = Instant::now();
        let view = TableView {
            clocks: Some(ClocksView {
                delay_ms: 0,
                ..clocks
            }),
            made: Made(Some(made)),
            ..TableView::default()
        };
        let served = view.as_of(made + std::time::Duration::from_millis(2_500));
        assert_eq!(served.clocks.as_ref().unwrap().black_ms, 47_500);
        let other_instant = TableView {
            made: Made(Some(made + std::time::Duration::from_secs(1))),
            ..view.clone()
        };
        assert_eq!(other_instant, view, "the instant is not what a view shows");
        let unmade = TableView {
            made: Made(None),
            ..view.clone()
        };
        assert_eq!(
            unmade
                .as_of(made + std::time::Duration::from_secs(9))
                .clocks,
            unmade.clocks
        );
    }

    #[test]
    fn clocks_show_hours_only_from_an_hour() {
        assert_eq!(clock_text(3_599_999), "59:59");
        assert_eq!(clock_text(3_600_000), "1:00:00");
        assert_eq!(clock_text(61_500), "1:01");
        assert_eq!(clock_text(-5), "0:00");
    }

    #[test]
    fn a_page_listening_everywhere_is_named_by_the_computer_or_not_at_all() {
        let everywhere: std::net::SocketAddr = "0.0.0.0:8080".parse().unwrap();
        assert_eq!(
            PageAddress::of(everywhere, Some("table1")).url.as_deref(),
            Some("http://table1:8080/")
        );
        assert_eq!(PageAddress::of(everywhere, None).url, None);
        let own = PageAddress::of("192.168.1.5:8080".parse().unwrap(), Some("table1"));
        assert_eq!(own.url.as_deref(), Some("http://192.168.1.5:8080/"));
        assert!(!own.loopback());
        let here = PageAddress::of("[::1]:8080".parse().unwrap(), None);
        assert_eq!(here.url.as_deref(), Some("http://[::1]:8080/"));
        assert!(here.loopback());
    }
}
