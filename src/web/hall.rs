//! The hall: the tables of an event served from their game folders, read only. Each table's
//! daemon keeps `table.json` (its [`TableView`], written atomically) and `game.pgn` in its game
//! folder; the hall reads them as they are written and serves `/games.pgn` (a game per table,
//! with `Round` and `Board` tags, for a broadcast) and a page listing every table with its
//! state, its last move, its clocks and a warning where a table's boards differ from the game or
//! a claim waits for the arbiter. A table whose tactus is gone (stopped or crashed: nobody holds
//! its game folder's lock) is shown stopped, with a warning, whatever its last status said. Each
//! table links to its own page when its status file says where the page is. It never writes
//! into a game folder, and takes no lock.
//!
//! It trusts no path and no size: each table's folder is held as the daemon holds a game folder
//! ([`TrustedDir`]: the same rules, the hall's user's, root's or a user it was told to trust),
//! and of it only regular files of such a user, of at most [`MAX_FILE`], are read, never through
//! a link, never a pipe or a device. What it does not read is named on its page and in its log.

use std::{
    fs,
    os::unix::fs::MetadataExt,
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
    view::{PageAddress, TableView, clock_text},
};
use crate::store::trusted::{TrustedDir, who};

/// How often the hall reads the folders again.
pub const READ_INTERVAL: Duration = Duration::from_millis(500);
/// The largest `table.json` or `game.pgn` the hall reads: a long game with a clock after every
/// move is some tens of kB; anything larger is not a table's file, and is skipped unread.
pub const MAX_FILE: u64 = 1024 * 1024;
/// A reading of all the tables that takes longer than this (a folder on a network file system
/// that hangs) is said in the log; the page keeps the tables as last read meanwhile.
pub const READ_DEADLINE: Duration = Duration::from_secs(5);

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
    /// What the hall would not read, and why: a folder or file another user could change, a
    /// link, a special file, a file too large. Shown on the page and said in the log.
    pub skipped: Vec<String>,
}

/// Whether a process holds the lock of the game folder held as `folder` (`tactus run` holds it
/// while it plays the game, and the lock goes with the process, however it ends). Read from the
/// kernel's list of locks (`/proc/locks`, by the lock file's device and inode): the hall takes
/// no lock itself, so that it can never make a daemon starting at that instant think another
/// one plays the game.
/// `locks`: the text of `/proc/locks`, read once for all the tables.
pub fn lock_held(folder: &TrustedDir, locks: Option<&str>) -> Option<bool> {
    let locks = locks?;
    // The lock file itself, never what a link there points to.
    let (dev, ino) = folder.at().id_of(LOCK_FILE).ok()?;
    let file = format!(
        "{:02x}:{:02x}:{}",
        nix::sys::stat::major(dev),
        nix::sys::stat::minor(dev),
        ino
    );
    // `1: FLOCK  ADVISORY  WRITE 1234 fe:00:10010962 0 EOF` (a waiting lock is `-> FLOCK ...`).
    Some(
        locks
            .lines()
            .any(|line| !line.contains("->") && line.split_whitespace().any(|field| field == file)),
    )
}

/// The game folder for `dir`, held open: `dir` itself when it holds a game (`table.json` or
/// `game.pgn`), else its newest sub-folder that does (a table's record folder has one per game).
/// Every folder must be trusted as the daemon trusts a game folder
/// ([`crate::store::trusted::check_folder`], [`Last`](crate::store::trusted::Last)`::Private`):
/// the hall's user's (or of one of `users`, the hall's and those it was told to trust) or
/// root's, closed to other users, reached through no link another user could point elsewhere.
/// Else why not.
pub fn game_folder(dir: &Path, users: &[u32]) -> Result<TrustedDir, String> {
    let held = TrustedDir::open_trusting(dir, users).map_err(|e| format!("{e:#}"))?;
    let holds_game = |d: &TrustedDir| d.at().is_file(TABLE_FILE) || d.at().is_file(PGN_FILE);
    if holds_game(&held) {
        return Ok(held);
    }
    let mut names: Vec<String> = held
        .at()
        .names()
        .map_err(|e| format!("{} cannot be read ({e})", dir.display()))?
        .into_iter()
        .filter_map(|n| n.into_string().ok())
        .filter(|n| !n.starts_with('.'))
        .collect();
    // Game folders are named by their start time first: the greatest is the newest.
    names.sort_unstable_by(|a, b| b.cmp(a));
    for name in names {
        // Plain files, links and the like are no game folder.
        let Ok(meta) = nix::sys::stat::fstatat(
            held.as_file(),
            name.as_str(),
            nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
        ) else {
            continue;
        };
        if meta.st_mode & nix::libc::S_IFMT != nix::libc::S_IFDIR {
            continue;
        }
        let sub = held.open_dir(&name).map_err(|e| e.to_string())?;
        if holds_game(&sub) {
            return Ok(sub);
        }
    }
    Ok(held)
}

/// The file `name` of the game folder held as `folder`, when the hall may read it: a regular
/// file (not a link, a pipe or a device), of a user the folder is trusted for, at most [`MAX_FILE`]
/// bytes. `Ok(None)`: there is none (yet); `Err`: why it was not read.
pub fn read_file(folder: &TrustedDir, name: &str) -> Result<Option<Vec<u8>>, String> {
    use std::io::Read;
    if !folder.at().exists(name) {
        return Ok(None);
    }
    let path = folder.file_path(name);
    // Non-blocking: a pipe put there would otherwise hold the hall until someone writes to it
    // (`At::open` then refuses what is not a regular file).
    let file = folder
        .open_file(
            name,
            nix::fcntl::OFlag::O_RDONLY | nix::fcntl::OFlag::O_NONBLOCK,
            0,
        )
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                return String::new();
            }
            let text = e.to_string();
            if text.contains(&path.display().to_string()) {
                text
            } else {
                format!("{} cannot be read ({e})", path.display())
            }
        });
    let file = match file {
        Ok(file) => file,
        // Gone between the look and the opening: nothing to read.
        Err(why) if why.is_empty() => return Ok(None),
        Err(why) => return Err(why),
    };
    let meta = file
        .metadata()
        .map_err(|e| format!("{} cannot be looked at ({e})", path.display()))?;
    if !folder.trusts(meta.uid()) {
        return Err(format!(
            "{} belongs to {}, who can write in it whatever he likes",
            path.display(),
            who(meta.uid())
        ));
    }
    let too_large = || {
        format!(
            "{} is larger than the {} kB the hall reads of a table's file",
            path.display(),
            MAX_FILE / 1024
        )
    };
    if meta.len() > MAX_FILE {
        return Err(too_large());
    }
    // It may grow while read: never more than the bound.
    let mut bytes = Vec::new();
    file.take(MAX_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{} cannot be read ({e})", path.display()))?;
    if bytes.len() as u64 > MAX_FILE {
        return Err(too_large());
    }
    Ok(Some(bytes))
}

/// Read every table's files now, trusting the folders and files of `users` (and root).
pub fn read_tables(dirs: &[PathBuf], users: &[u32]) -> Vec<HallTable> {
    let locks = fs::read_to_string("/proc/locks").ok();
    dirs.iter()
        .enumerate()
        .map(|(i, dir)| read_table(i + 1, dir, users, locks.as_deref()))
        .collect()
}

fn read_table(board: usize, dir: &Path, users: &[u32], locks: Option<&str>) -> HallTable {
    let mut table = HallTable {
        board,
        folder: dir.to_path_buf(),
        view: None,
        pgn: String::new(),
        playing: None,
        skipped: Vec::new(),
    };
    let folder = match game_folder(dir, users) {
        Ok(folder) => folder,
        Err(why) => {
            table.skipped.push(why);
            return table;
        }
    };
    table.folder = folder.path().to_path_buf();
    table.playing = lock_held(&folder, locks);
    match read_file(&folder, TABLE_FILE) {
        Ok(bytes) => table.view = bytes.and_then(|b| serde_json::from_slice(&b).ok()),
        Err(why) => table.skipped.push(why),
    }
    table.pgn = match &table.view {
        Some(v) => v.pgn.clone(),
        None => match read_file(&folder, PGN_FILE) {
            Ok(bytes) => bytes
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default(),
            Err(why) => {
                table.skipped.push(why);
                String::new()
            }
        },
    };
    table
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
        "<table><thead><tr><th scope=\"col\">Board</th><th scope=\"col\">White</th><th scope=\"col\">Black</th><th scope=\"col\">State</th><th scope=\"col\">Last move</th><th scope=\"col\">Clocks</th><th scope=\"col\">Warnings</th><th scope=\"col\">Page</th></tr></thead><tbody>",
    );
    for t in tables {
        let skipped = (!t.skipped.is_empty()).then(|| {
            format!(
                "<strong>Warning:</strong> not read: {}",
                escape(&t.skipped.join("; "))
            )
        });
        let Some(v) = &t.view else {
            out.push_str(&format!(
                "<tr{}><td>{}</td><td colspan=\"7\">{}</td></tr>",
                if skipped.is_some() {
                    " class=\"warn\""
                } else {
                    ""
                },
                t.board,
                skipped.unwrap_or_else(|| format!(
                    "no status yet in {}",
                    escape(&t.folder.display().to_string())
                ))
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
        warnings.extend(t.skipped.iter().map(|why| format!("not read: {why}")));
        if stopped {
            warnings.insert(
                0,
                "tactus stopped at this table: start it again (`tactus run` resumes the game)"
                    .into(),
            );
        }
        out.push_str(&format!(
            "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
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
            },
            page_link(v.page.as_ref())
        ));
    }
    out.push_str("</tbody></table>");
    out
}

/// The table's own page as the hall shows it: a link when its status file says where the page
/// is, else what is known of it (never an address the table did not give).
fn page_link(page: Option<&PageAddress>) -> String {
    let Some(page) = page else {
        return "none known".into();
    };
    match page.url.as_deref().filter(|u| u.starts_with("http://")) {
        Some(url) => format!(
            "<a href=\"{url}\">{text}</a>{only}",
            url = escape(url),
            text = escape(url),
            only = if page.loopback() {
                " (on the table's computer only)"
            } else {
                ""
            }
        ),
        None => format!(
            "listens on {}; its address is not known to the hall",
            escape(&page.listen)
        ),
    }
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

/// The tables as last read, and their games in one PGN (made once per reading, not per request).
#[derive(Debug, Default)]
struct Hall {
    tables: Vec<HallTable>,
    games: String,
}

/// Serve the hall of `dirs` on `listener` until `cancel`, reading the folders every
/// [`READ_INTERVAL`] (in the blocking pool: a reading that hangs holds neither the page nor the
/// end on `cancel`). The page is served once the folders were first read.
/// `users`: the users (besides root) whose folders and files the hall trusts: its own, and the
/// tables' users it was told to trust.
pub async fn serve_hall(
    listener: TcpListener,
    dirs: Vec<PathBuf>,
    users: Vec<u32>,
    access: http::Access,
    cancel: CancellationToken,
) {
    let mut said: Vec<Vec<String>> = Vec::new();
    let Some(first) = read_round(&dirs, &users, &mut said, &cancel).await else {
        return;
    };
    let (events_tx, events) = watch::channel(Arc::new(event(&first)));
    let (hall_tx, hall) = watch::channel(Arc::new(Hall {
        games: games_pgn(&first),
        tables: first,
    }));
    let reader = {
        let cancel = cancel.clone();
        async move {
            loop {
                tokio::select! {
                    _ = cancel.cancelled() => return,
                    _ = tokio::time::sleep(READ_INTERVAL) => {}
                }
                let Some(read) = read_round(&dirs, &users, &mut said, &cancel).await else {
                    return;
                };
                if hall_tx.borrow().tables != read {
                    events_tx.send_replace(Arc::new(event(&read)));
                    hall_tx.send_replace(Arc::new(Hall {
                        games: games_pgn(&read),
                        tables: read,
                    }));
                }
            }
        }
    };
    let route = move |path: &str| -> Response {
        match path {
            "/" | "/index.html" => {
                Response::ok("text/html; charset=utf-8", hall_page(&hall.borrow().tables))
            }
            "/games.pgn" => Response::ok(
                "application/x-chess-pgn; charset=utf-8",
                hall.borrow().games.clone(),
            ),
            "/events" => Response::Events(events.clone()),
            _ => Response::not_found(),
        }
    };
    tokio::join!(reader, http::serve(listener, route, access, cancel.clone()));
}

/// One reading of every table in the blocking pool: `None` on `cancel`, the reading or why it
/// failed. One past [`READ_DEADLINE`] is said.
async fn read_once(
    dirs: &[PathBuf],
    users: &[u32],
    cancel: &CancellationToken,
) -> Option<Result<Vec<HallTable>, tokio::task::JoinError>> {
    let (owned, users) = (dirs.to_vec(), users.to_vec());
    let mut reading = tokio::task::spawn_blocking(move || read_tables(&owned, &users));
    let read = tokio::select! {
        _ = cancel.cancelled() => return None,
        read = &mut reading => read,
        _ = tokio::time::sleep(READ_DEADLINE) => {
            let line = format!(
                "tactus hall: reading the tables' folders has taken more than {} s (a folder on \
                 a network file system that hangs?); the page shows them as last read",
                READ_DEADLINE.as_secs()
            );
            crate::output::say_error_line(&line);
            tokio::select! {
                _ = cancel.cancelled() => return None,
                read = &mut reading => read,
            }
        }
    };
    Some(read)
}

/// Read every table once, in the blocking pool; `None` on `cancel`. A reading past
/// [`READ_DEADLINE`] is said; each table skipped is said once, and again when the reason changes
/// (`said`: the reasons last said, by table).
async fn read_round(
    dirs: &[PathBuf],
    users: &[u32],
    said: &mut Vec<Vec<String>>,
    cancel: &CancellationToken,
) -> Option<Vec<HallTable>> {
    let read = loop {
        match read_once(dirs, users, cancel).await? {
            Ok(read) => break read,
            // A reading that panicked: said, and tried again a moment later (the page keeps
            // the tables as last read).
            Err(e) => {
                crate::output::say_error_line(&format!(
                    "tactus hall: reading the tables' folders failed ({e}); trying again"
                ));
                tokio::select! {
                    _ = cancel.cancelled() => return None,
                    _ = tokio::time::sleep(READ_INTERVAL) => {}
                }
            }
        }
    };
    for t in &read {
        if !t.skipped.is_empty() && said.get(t.board - 1) != Some(&t.skipped) {
            let line = format!(
                "tactus hall: board {} not read: {}",
                t.board,
                t.skipped.join("; ")
            );
            crate::output::say_error_line(&line);
        }
    }
    *said = read.iter().map(|t| t.skipped.clone()).collect();
    Some(read)
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
