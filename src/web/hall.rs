//! The hall: the tables of an event served from their game folders, read only. Each table's
//! daemon keeps `table.json` (its [`TableView`], written atomically) and `game.pgn` in its game
//! folder; the hall reads them as they are written and serves `/games.pgn` (a game per table,
//! with `Round` and `Board` tags, for a broadcast) and a page listing every table with its
//! state, its last move, its clocks and a warning where a table's boards differ from the game or
//! a claim waits for the arbiter. A table whose tactus is gone (stopped or crashed: nobody holds
//! its game folder's lock) is shown stopped, with a warning, whatever its last status said. It
//! never writes into a game folder, and takes no lock.

use std::{
    fs,
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use tactus_core::folder::{LOCK_FILE, PGN_FILE, TABLE_FILE};
use tokio::{net::TcpListener, sync::watch};
use tokio_util::sync::CancellationToken;

use super::{
    http::{self, Response, Update},
    page::escape,
    view::{TableView, clock_text},
};

/// How often the hall reads the folders again.
pub const READ_INTERVAL: Duration = Duration::from_millis(500);

/// One table as the hall last read it.
#[derive(Debug, Clone, PartialEq)]
pub struct HallTable {
    /// The board number: the table's place on the command line, from 1.
    pub board: usize,
    /// The game folder read (the newest game folder under the folder given).
    pub folder: PathBuf,
    /// The table's status file, if there is one yet.
    pub view: Option<TableView>,
    /// The game's PGN: the status file's, else `game.pgn`'s.
    pub pgn: String,
    /// Whether a tactus plays this game now (it holds the game folder's lock); `None` where the
    /// hall cannot tell (no lock file, or no `/proc/locks`).
    pub playing: Option<bool>,
}

/// Whether a process holds the lock of the game folder `folder` (`tactus run` holds it while it
/// plays the game, and the lock goes with the process, however it ends). Read from the
/// kernel's list of locks (`/proc/locks`, by the lock file's device and inode): the hall takes
/// no lock itself, so that it can never make a daemon starting at that instant think another
/// one plays the game.
/// `locks`: the text of `/proc/locks`, read once for all the tables.
pub fn lock_held(folder: &Path, locks: Option<&str>) -> Option<bool> {
    use std::os::unix::fs::MetadataExt;
    let locks = locks?;
    let meta = fs::metadata(folder.join(LOCK_FILE)).ok()?;
    let dev = meta.dev();
    let file = format!(
        "{:02x}:{:02x}:{}",
        nix::sys::stat::major(dev),
        nix::sys::stat::minor(dev),
        meta.ino()
    );
    // `1: FLOCK  ADVISORY  WRITE 1234 fe:00:10010962 0 EOF` (a waiting lock is `-> FLOCK ...`).
    Some(
        locks
            .lines()
            .any(|line| !line.contains("->") && line.split_whitespace().any(|field| field == file)),
    )
}

/// The game folder for `dir`: `dir` itself when it holds a game (`table.json` or `game.pgn`),
/// else its newest sub-folder that does (a table's record folder has one per game).
pub fn game_folder(dir: &Path) -> PathBuf {
    let holds_game = |d: &Path| d.join(TABLE_FILE).is_file() || d.join(PGN_FILE).is_file();
    if holds_game(dir) {
        return dir.to_path_buf();
    }
    fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && holds_game(p))
        // Game folders are named by their start time first: the greatest is the newest.
        .max()
        .unwrap_or_else(|| dir.to_path_buf())
}

/// Read every table's files now.
pub fn read_tables(dirs: &[PathBuf]) -> Vec<HallTable> {
    let locks = fs::read_to_string("/proc/locks").ok();
    dirs.iter()
        .enumerate()
        .map(|(i, dir)| {
            let folder = game_folder(dir);
            let view: Option<TableView> = fs::read(folder.join(TABLE_FILE))
                .ok()
                .and_then(|bytes| serde_json::from_slice(&bytes).ok());
            let pgn = match &view {
                Some(v) => v.pgn.clone(),
                None => fs::read_to_string(folder.join(PGN_FILE)).unwrap_or_default(),
            };
            HallTable {
                board: i + 1,
                playing: lock_held(&folder, locks.as_deref()),
                folder,
                view,
                pgn,
            }
        })
        .collect()
}

/// Every table's game in one PGN, each with a `Board` tag (its number) after its tags.
pub fn games_pgn(tables: &[HallTable]) -> String {
    let mut out = String::new();
    for table in tables.iter().filter(|t| !t.pgn.trim().is_empty()) {
        out.push_str(&with_board_tag(&table.pgn, table.board));
        if !out.ends_with("\n\n") {
            out.push('\n');
        }
    }
    out
}

/// `pgn` with `[Board "n"]` as the last tag (replacing one it has).
fn with_board_tag(pgn: &str, board: usize) -> String {
    let mut out = String::new();
    let mut added = false;
    for line in pgn.lines() {
        if line.starts_with("[Board ") {
            continue;
        }
        if !added && !line.starts_with('[') {
            out.push_str(&format!("[Board \"{board}\"]\n"));
            added = true;
        }
        out.push_str(line);
        out.push('\n');
    }
    if !added {
        out.push_str(&format!("[Board \"{board}\"]\n"));
    }
    out
}

/// The warnings of a table: its boards differ from the game, a claim or the result waits for
/// the arbiter.
pub fn warnings(view: &TableView) -> Vec<String> {
    let mut out: Vec<String> = view
        .boards
        .iter()
        .filter(|b| !b.differs.is_empty())
        .map(|b| {
            format!(
                "the {} differs from the game on {}",
                b.name,
                b.differs.join(", ")
            )
        })
        .collect();
    out.extend(
        view.pending
            .iter()
            .filter(|p| p.contains("arbiter"))
            .cloned(),
    );
    if view.state == "awaiting the arbiter" && out.is_empty() {
        out.push("awaiting the arbiter".into());
    }
    out
}

/// The list of tables, an HTML fragment.
pub fn tables_html(tables: &[HallTable]) -> String {
    let mut out = String::from(
        "<table><thead><tr><th scope=\"col\">Board</th><th scope=\"col\">White</th><th scope=\"col\">Black</th><th scope=\"col\">State</th><th scope=\"col\">Last move</th><th scope=\"col\">Clocks</th><th scope=\"col\">Warnings</th></tr></thead><tbody>",
    );
    for t in tables {
        let Some(v) = &t.view else {
            out.push_str(&format!(
                "<tr><td>{}</td><td colspan=\"6\">no status yet in {}</td></tr>",
                t.board,
                escape(&t.folder.display().to_string())
            ));
            continue;
        };
        // A game not over whose tactus is gone (stopped, or crashed) is stopped, whatever its
        // last status said: its clocks do not run, and the arbiter must know.
        let stopped = t.playing == Some(false) && v.result == "*";
        let state = if stopped {
            format!("stopped: tactus is not running (last: {})", v.state)
        } else {
            v.state.clone()
        };
        let last = v.last.last().map_or("none", |m| m.san.as_str());
        let clocks = v.clocks.as_ref().map_or_else(
            || "none".to_string(),
            |c| {
                let mark = |side: &str| {
                    if !stopped && c.running.as_deref() == Some(side) {
                        " (running)"
                    } else {
                        ""
                    }
                };
                format!(
                    "White {}{}, Black {}{}",
                    clock_text(c.white_ms),
                    mark("white"),
                    clock_text(c.black_ms),
                    mark("black")
                )
            },
        );
        let mut warnings = warnings(v);
        if stopped {
            warnings.insert(
                0,
                "tactus stopped at this table: start it again (`tactus run` resumes the game)"
                    .into(),
            );
        }
        out.push_str(&format!(
            "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            if warnings.is_empty() {
                ""
            } else {
                " class=\"warn\""
            },
            t.board,
            escape(v.tag("White")),
            escape(v.tag("Black")),
            escape(&state),
            escape(last),
            escape(&clocks),
            if warnings.is_empty() {
                "none".to_string()
            } else {
                format!("<strong>Warning:</strong> {}", escape(&warnings.join("; ")))
            }
        ));
    }
    out.push_str("</tbody></table>");
    out
}

fn hall_page(tables: &[HallTable]) -> String {
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>The hall: {n} tables</title>
<style>
body {{ background: #000; color: #fff; font: 1.4rem/1.4 system-ui, sans-serif; margin: 1rem; }}
table {{ border-collapse: collapse; }}
th, td {{ border: 2px solid #888; padding: .3rem .6rem; text-align: left; }}
tr.warn td {{ border-color: #ff0; }}
a {{ color: #9cf; }}
</style>
</head>
<body>
<h1>The hall: {n} tables</h1>
<main>
<div id="tables" aria-live="polite">{tables}</div>
<p><a href="/games.pgn">All games as PGN</a></p>
</main>
<script>
"use strict";
let shown = null;
if (window.EventSource) {{
  new EventSource("/events").onmessage = (e) => {{
    const html = JSON.parse(e.data).tables;
    if (html !== undefined && html !== shown) {{
      document.getElementById("tables").innerHTML = html; shown = html;
    }}
  }};
}}
</script>
</body>
</html>
"#,
        n = tables.len(),
        tables = tables_html(tables),
    )
}

/// Serve the hall of `dirs` on `listener` until `cancel`, reading the folders every
/// [`READ_INTERVAL`].
pub async fn serve_hall(listener: TcpListener, dirs: Vec<PathBuf>, cancel: CancellationToken) {
    let (tables_tx, tables) = watch::channel(Arc::new(read_tables(&dirs)));
    let (events_tx, events) = watch::channel(Arc::new(event(&tables.borrow())));
    let reader = {
        let cancel = cancel.clone();
        async move {
            loop {
                tokio::select! {
                    _ = cancel.cancelled() => return,
                    _ = tokio::time::sleep(READ_INTERVAL) => {}
                }
                let dirs = dirs.clone();
                let Ok(read) = tokio::task::spawn_blocking(move || read_tables(&dirs)).await else {
                    continue;
                };
                if **tables_tx.borrow() != read {
                    events_tx.send_replace(Arc::new(event(&read)));
                    tables_tx.send_replace(Arc::new(read));
                }
            }
        }
    };
    let route = move |path: &str| -> Response {
        match path {
            "/" | "/index.html" => {
                Response::ok("text/html; charset=utf-8", hall_page(&tables.borrow()))
            }
            "/games.pgn" => Response::ok(
                "application/x-chess-pgn; charset=utf-8",
                games_pgn(&tables.borrow()),
            ),
            "/events" => Response::Events(events.clone()),
            _ => Response::not_found(),
        }
    };
    tokio::join!(reader, http::serve(listener, route, cancel.clone()));
}

/// The hall's update: the list of tables (sent to a viewer when it changed).
fn event(tables: &[HallTable]) -> Update {
    let html = serde_json::to_string(&tables_html(tables)).unwrap_or_else(|_| "\"\"".into());
    Update {
        parts: vec![("tables", html.into())],
        clocks: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_warns_of_a_differing_board_and_a_claim_for_the_arbiter() {
        let view = TableView {
            boards: vec![crate::web::view::BoardView {
                name: "tactile board".into(),
                differs: vec!["e4".into(), "e2".into()],
                ..Default::default()
            }],
            pending: vec![
                "white offers a draw".into(),
                "black claims a draw under 10.2; the arbiter rules".into(),
            ],
            state: "awaiting the arbiter".into(),
            ..TableView::default()
        };
        assert_eq!(
            warnings(&view),
            [
                "the tactile board differs from the game on e4, e2",
                "black claims a draw under 10.2; the arbiter rules"
            ]
        );
    }

    #[test]
    fn the_board_tag_follows_the_tags_and_replaces_an_old_one() {
        let pgn = "[Event \"E\"]\n[Round \"3\"]\n[Board \"9\"]\n\n1. e4 *\n";
        assert_eq!(
            with_board_tag(pgn, 2),
            "[Event \"E\"]\n[Round \"3\"]\n[Board \"2\"]\n\n1. e4 *\n"
        );
    }
}
