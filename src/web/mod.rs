//! The table seen and followed: the table's page (`/`), its live PGN (`/game.pgn`), updates as
//! Server-Sent Events (`/events`), a folder a broadcaster watches (`games.pgn`), the status file
//! `tactus hall` reads (`table.json` in the game folder), and the hall's pages ([`hall`]).
//!
//! Read-only by construction: every route answers from the latest [`TableView`] the hub
//! published (or, for the hall, from the files the tables write); nothing here can reach the
//! hub, and the hub never waits for a viewer (a watch channel keeps only the latest view). The
//! table's page is served from a thread of its own at a lower scheduling priority
//! ([`serve_table_apart`]): a hundred viewers take their time from what the table leaves, never
//! from the hub's workers.

pub mod hall;
pub mod http;
pub mod page;
pub mod view;

use std::{sync::Arc, time::Duration};

use tokio::{net::TcpListener, sync::watch};
use tokio_util::sync::CancellationToken;
use tracing::warn;

use self::{
    http::{Response, Update},
    view::TableView,
};
use crate::store::trusted::TrustedDir;

/// Updates to the page's viewers are at most this often (a burst of sensor events is one).
const EVENT_INTERVAL: Duration = Duration::from_millis(100);
/// The status file `tactus hall` reads in each game folder.
pub use tactus_core::folder::TABLE_FILE;
/// The broadcast folder's file.
pub const GAMES_FILE: &str = "games.pgn";
/// The status file is rewritten at most this often while only the clocks change.
const TABLE_FILE_INTERVAL: Duration = Duration::from_secs(1);

/// Serve the table's page on `listener` from the latest of `views` until `cancel`.
pub async fn serve_table(
    listener: TcpListener,
    views: watch::Receiver<Arc<TableView>>,
    access: http::Access,
    cancel: CancellationToken,
) {
    let (events_tx, events) = watch::channel(Arc::new(page::update(&views.borrow())));
    let relay = relay_events(views.clone(), events_tx, cancel.clone());
    let route = move |path: &str| -> Response {
        match path {
            "/" | "/index.html" => Response::ok(
                "text/html; charset=utf-8",
                page::page(&as_it_stands(&views)),
            ),
            "/game.pgn" => Response::ok(
                "application/x-chess-pgn; charset=utf-8",
                views.borrow().pgn.clone(),
            ),
            "/events" => Response::Events(events.clone()),
            "/table.json" => Response::ok(
                "application/json",
                serde_json::to_string(&as_it_stands(&views)).unwrap_or_default(),
            ),
            _ => Response::not_found(),
        }
    };
    tokio::join!(relay, http::serve(listener, route, access, cancel.clone()));
}

/// The latest view as it stands now (its running clock run on since the hub made it).
fn as_it_stands(views: &watch::Receiver<Arc<TableView>>) -> TableView {
    views.borrow().as_of(tokio::time::Instant::now())
}

/// [`serve_table`] on a thread of its own, with a current-thread runtime, at a lower scheduling
/// priority than the table's (nice 10): however many viewers, the hub's workers are not theirs.
/// The returned future ends when the thread has.
pub fn serve_table_apart(
    listener: std::net::TcpListener,
    views: watch::Receiver<Arc<TableView>>,
    access: http::Access,
    cancel: CancellationToken,
) -> std::io::Result<impl Future<Output = ()> + Send + 'static> {
    listener.set_nonblocking(true)?;
    let (done_tx, done) = tokio::sync::oneshot::channel::<()>();
    std::thread::Builder::new()
        .name("web".into())
        .spawn(move || {
            lower_priority();
            match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime.block_on(async move {
                    match TcpListener::from_std(listener) {
                        Ok(listener) => serve_table(listener, views, access, cancel).await,
                        Err(e) => warn!("web: cannot serve the table's page: {e}"),
                    }
                }),
                Err(e) => warn!("web: cannot start the page's runtime: {e}"),
            }
            let _ = done_tx.send(());
        })?;
    Ok(async move {
        let _ = done.await;
    })
}

/// This thread at nice 10 (Linux keeps a nice value per thread). Where that is refused, the
/// page is served at the table's priority; nothing else changes.
fn lower_priority() {
    // SAFETY: gettid and setpriority take and return plain integers; no memory is shared.
    let result = unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 10) };
    if result != 0 {
        warn!(
            "web: the page's thread keeps the table's priority: {}",
            std::io::Error::last_os_error()
        );
    }
}

/// Turn each view into the page's update, once for all viewers, at most every
/// [`EVENT_INTERVAL`].
async fn relay_events(
    mut views: watch::Receiver<Arc<TableView>>,
    events: watch::Sender<Arc<Update>>,
    cancel: CancellationToken,
) {
    loop {
        tokio::select! {
            _ = cancel.cancelled() => return,
            changed = views.changed() => if changed.is_err() { return },
        }
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tokio::time::sleep(EVENT_INTERVAL) => {}
        }
        // The clocks go with the instant they stood at; each viewer's are brought up to date
        // when sent.
        events.send_replace(Arc::new(page::update(&views.borrow_and_update())));
    }
}

/// Keep `games.pgn` in the broadcast folder (a broadcaster's, held open) and `table.json` in the
/// game folder (held open), each written atomically in the folder held, as the views change;
/// until `cancel`. `page`: where the table's page is, for the hall (in `table.json`).
pub async fn keep_files(
    mut views: watch::Receiver<Arc<TableView>>,
    folder: TrustedDir,
    broadcast: Option<TrustedDir>,
    page: Option<view::PageAddress>,
    cancel: CancellationToken,
) {
    let folder = Arc::new(folder);
    let broadcast = broadcast.map(Arc::new);
    let mut written_pgn = String::new();
    let mut written_view: Option<Arc<TableView>> = None;
    let mut last_status = tokio::time::Instant::now() - TABLE_FILE_INTERVAL;
    loop {
        let view = views.borrow_and_update().clone();
        // The hub has not published yet.
        if view.state.is_empty() {
            tokio::select! {
                _ = cancel.cancelled() => return,
                changed = views.changed() => if changed.is_err() { return },
            }
            continue;
        }
        if let Some(dir) = &broadcast
            && view.pgn != written_pgn
            && write(dir, GAMES_FILE, view.pgn.clone().into_bytes()).await
        {
            written_pgn = view.pgn.clone();
        }
        // The status file: at once when anything but the clocks changed, else once a second.
        let only_clocks = written_view.as_ref().is_some_and(|w| {
            TableView {
                clocks: view.clocks.clone(),
                ..(**w).clone()
            } == *view
        });
        let due = last_status.elapsed() >= TABLE_FILE_INTERVAL;
        if written_view.as_ref() != Some(&view) && (!only_clocks || due) {
            // As it stands when written: the hall reads the running clock from here.
            let status = TableView {
                page: page.clone(),
                ..view.as_of(tokio::time::Instant::now())
            };
            if let Ok(json) = serde_json::to_vec(&status) {
                write(&folder, TABLE_FILE, json).await;
            }
            written_view = Some(view.clone());
            last_status = tokio::time::Instant::now();
        }
        let pending_clock = written_view.as_ref() != Some(&view);
        tokio::select! {
            _ = cancel.cancelled() => return,
            changed = views.changed() => if changed.is_err() { return },
            _ = tokio::time::sleep(TABLE_FILE_INTERVAL), if pending_clock => {}
        }
    }
}

/// Write `name` in the folder held as `dir`, atomically, if its path still leads to it through
/// trusted folders (else the broadcaster, who reads by the path, would read what another user
/// put there: said in the log, as the record's outage is). Whether it was written.
async fn write(dir: &Arc<TrustedDir>, name: &'static str, bytes: Vec<u8>) -> bool {
    let dir = dir.clone();
    let result = tokio::task::spawn_blocking(move || {
        dir.verify()
            .map_err(|e| (dir.file_path(name), e.to_string()))?;
        dir.write_atomically(name, &bytes)
            .map_err(|e| (dir.file_path(name), e.to_string()))
    })
    .await;
    match result {
        Ok(Ok(())) => true,
        Ok(Err((path, e))) => {
            warn!("web: {} NOT WRITTEN: {e}", path.display());
            false
        }
        Err(_) => false,
    }
}
