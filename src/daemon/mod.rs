//! The daemon: the tokio shell around the pure core (`docs/architecture.md`).
//!
//! ```text
//!  serial port ── link task ─┐                               ┌─> speech task (clips/tts, transcript)
//!  serial port ── link task ─┼─ HubMsg ─> hub: Table::handle ┼─> link commands (board dumps, clock)
//!  console socket ── conn ───┤        (journal every input)  ├─> record writer (PGN, BRF, WAV, text)
//!  speech, verdicts, engine ─┘                               └─> console lines, touches, the page
//! ```
//!
//! This module owns a run ([`run`]): the configuration resolved once into the [`Settings`] the
//! game runs on, the table from [`setup`] (a new game folder with its journal
//! header, or the unfinished game found in the output folder, replayed from its journal), the
//! game's voice (`voice`), starting the tasks (`tasks`: the board links of [`link`] or the
//! simulated boards of [`simboard`], speech, the [`console`] socket, the training [`engine`]; the
//! record writer of [`files`]) around the [`hub`], and shutting them down in order: one
//! [`CancellationToken`], every file flushed, the socket removed. What a run is asked and what it
//! reports are in `options`, the process around it (the runtime, the signals) in `runtime`, the
//! demo's end (`played`) beside them. `tactus demo` (`crate::demo`) is this daemon on a
//! built-in table.
//!
//! It must not make rulings (the arbiter does) and must not end a game because something
//! outside failed: a port that cannot be opened is retried, a speaker that fails degrades to the
//! transcript, a console socket that cannot be made leaves the game without a console (and says
//! so).

pub mod clock;
pub mod console;
pub mod engine;
pub mod files;
pub mod hub;
pub mod journal;
pub mod link;
mod options;
mod played;
mod runtime;
pub mod setup;
pub mod simboard;
mod tasks;
pub mod uid;
mod voice;

use std::sync::{
    Arc,
    atomic::{AtomicBool, Ordering},
};

use anyhow::{Context, Result, anyhow};
use tokio::sync::{broadcast, mpsc, watch};
use tokio_util::sync::CancellationToken;

use self::{
    console::ConsoleSocket,
    files::{RecordSettings, RecordWriter},
    hub::{GameClock, Hub, HubEnd, HubMsg, HubParts, Progress},
    link::MonotonicClock,
    played::watch_until_played,
    tasks::Tasks,
    voice::Voices,
};
pub use self::{
    options::{RunOptions, RunReport, SimSettings},
    runtime::{cancel_on_signals, runtime, runtime_logging},
};
use crate::config::{self, Settings};
use tactus_core::board::dgt_clock::ClockSide;

/// Run the daemon until `cancel` (or, with `stop_when_played`, until the simulated game is
/// played out).
pub async fn run(opts: RunOptions, cancel: CancellationToken) -> Result<RunReport> {
    // The file resolved once, before anything is created: a wrong profile is the user's to fix
    // now, and everything below reads these settings rather than the file.
    let settings = Settings::resolve(&opts.config, &opts.origin)?;
    // The console before the game: a game nobody can command (a recovered game stays paused until
    // the arbiter's `resume`) must not start, and nothing is made for it.
    let socket = bind_console(&settings)?;
    // The page's address too: a busy port is said now, not after the game has begun.
    let web_listener = bind_web(&settings)?;
    // The broadcast folder, trusted as the game folder is, held open from now on.
    let broadcast = settings
        .broadcast_dir
        .as_deref()
        .map(files::open_broadcast_dir)
        .transpose()
        .with_context(|| settings.origin.clone())?;
    // The table's devices and habits of the day (a resumed game's table is told them as it
    // starts; a new game's header keeps them).
    let table_settings = setup::table_settings(&settings, opts.sim.speed);
    let opened = setup::open(
        &settings,
        &opts.voices_dir,
        opts.resume.as_deref(),
        opts.new_game,
        &table_settings,
    )?;
    let resumed = opened.resumed();
    // Held open since it was made or found trusted (the lock and the journal are in it): a
    // folder re-pointed under the game redirects no write of the record, the transcript, the
    // touches or the audio scoresheets either.
    let record_folder = opened
        .held
        .try_clone()
        .with_context(|| format!("cannot hold the game folder {}", opened.folder.display()))?;
    crate::output::say_line(&format!(
        "tactus: game folder {}{}",
        opened.folder.display(),
        if resumed { " (resumed)" } else { "" }
    ));
    let voices = Voices::load(&settings, &opts.voices_dir, &opened.header.setup)?;
    let table = opened.table(voices.wordings())?;
    if resumed {
        print_resumed(&settings, &opened, &table, &voices);
    }
    // The table as the game has it (a resumed game keeps its seats).
    let names = table.arbiter().config().names();

    let link_clock = MonotonicClock::new();
    let (messages, inbox) = mpsc::channel::<HubMsg>(hub::HUB_QUEUE);
    // Room for bursts (a retrace guides square by square); a console that still falls behind is
    // told how many events it missed, and the game never waits for it.
    let (broadcast_tx, _) = broadcast::channel(1024);
    let (progress_tx, progress_rx) = watch::channel::<Progress>(table.progress());
    let mut tasks = Tasks::new(cancel.child_token(), messages.clone());

    let speech = tasks.speech(
        &settings.voice,
        &opts.voices_dir,
        &voices,
        names,
        &opened.held,
    )?;
    // A resumed game's simulated board shows the game where it was, as a real one would.
    let mut sim = opts.sim.clone();
    if resumed {
        sim.blind_initial = None;
    }
    // A DGT clock on the sighted board: his hands press its lever on his side of it.
    let sighted = table.arbiter().config().the_sighted();
    sim.sighted_lever = sighted.map(|seat| {
        if seat == settings.clock_left {
            ClockSide::Left
        } else {
            ClockSide::Right
        }
    });
    // A board expected to show anything but the start position (a resumed game, a game set up
    // from a position) cannot have its orientation detected from it; its link says so rightly.
    let under_way = *shakmaty::Position::board(table.game().position()) != shakmaty::Board::new();
    let started = tasks.boards(
        &sim,
        &settings.boards,
        names,
        under_way,
        link_clock,
        &progress_rx,
    )?;
    if started.simulated && settings.start_by == config::StartBy::Arbiter {
        tasks.sim_arbiter(&progress_rx, sim.speed);
    }
    // The blind players type in their packs' languages, and their keypads show their words.
    let keypads = tactus_core::console::Keypads {
        words: voices
            .seats
            .as_ref()
            .map(|v| v.wording.pack().commands().clone()),
        shown: voices
            .seats
            .as_ref()
            .map(|v| v.wording.pack().keypad().clone()),
        seatless: table.arbiter().config().the_blind(),
    };
    tasks.console(socket, &settings, &opened.held, &broadcast_tx, keypads)?;
    let engine = settings.opponent.as_ref().map(|o| tasks.engine(o));
    // The table seen: a view after every change, when a page or a broadcast folder wants one.
    let views = (settings.web_listen.is_some() || settings.broadcast_dir.is_some())
        .then(|| watch::channel(std::sync::Arc::new(crate::web::view::TableView::default())));
    if let Some((_, views)) = &views {
        let folder = opened
            .held
            .try_clone()
            .with_context(|| format!("cannot hold the game folder {}", opened.folder.display()))?;
        tasks.web(
            web_listener,
            settings.web_access.clone(),
            folder,
            broadcast,
            views,
        )?;
    }
    let blind = shakmaty::ByColor::new_with(|c| names.is_blind(c));
    let record = RecordWriter::dated(
        RecordSettings {
            folder: record_folder,
            braille: settings.braille.clone(),
            profiles: settings.braille_profiles.clone(),
            blind_scores: files::ScoreFiles::at_table(blind)
                .into_iter()
                .map(|(seat, files)| files::BlindScore {
                    braille: Some(settings.braille_profiles[seat].clone()),
                    // His Braille score headed in the language he hears.
                    files: files
                        .headed_in(voices.seats[seat].wording.pack().record_words().cloned()),
                    audio: voices.seats[seat].audio.clone(),
                })
                .collect(),
        },
        // An adjournment sealed before a restart is dated as it was sealed.
        opened.calendar,
    );
    let played_out = watch_played(
        &opts,
        settings.training(),
        &mut tasks,
        &progress_rx,
        &cancel,
    );

    let mut hub = Hub::new(HubParts {
        table,
        resumed: resumed.then_some(table_settings),
        clock: GameClock {
            link: link_clock,
            offset: opened.offset,
        },
        journal: Some(opened.journal),
        folder: opened.held,
        speech: Some(speech),
        links: started.links,
        engine,
        record,
        broadcast: broadcast_tx,
        progress: progress_tx,
        messages,
        echo: opts.echo,
    });
    if let Some((views, _)) = views {
        hub = hub.with_view(views);
    }
    let HubEnd {
        pgn,
        over,
        ply,
        to_move,
    } = hub.run(inbox, cancel.clone()).await;

    // Everything else stops; files are already flushed by the hub's shutdown, the transcript by
    // the speech task, the socket is removed when its server ends.
    tasks.stop().await;
    if let Some(dir) = started.sim_link_dir {
        let _ = std::fs::remove_dir_all(dir);
    }
    Ok(RunReport {
        folder: opened.folder,
        pgn,
        over,
        resumed,
        played_out: played_out.load(Ordering::SeqCst),
        ply,
        to_move,
        training: settings.training(),
    })
}

/// The table's page's listener, when `[web] listen` names an address (also `check-config`'s
/// test that the address can be listened on).
pub fn bind_web(settings: &Settings) -> Result<Option<std::net::TcpListener>> {
    let Some(addr) = settings.web_listen else {
        return Ok(None);
    };
    let listener = std::net::TcpListener::bind(addr).with_context(|| {
        format!(
            "{}: web.listen = \"{addr}\": cannot listen there (another program holds the port, \
             or the address is not this computer's); choose another port or leave [web] out",
            settings.origin
        )
    })?;
    listener
        .set_nonblocking(true)
        .context("cannot make the table page's listener non-blocking")?;
    Ok(Some(listener))
}

/// The console socket, before the game: a game nobody can command (a recovered game stays paused
/// until the arbiter's `resume`) must not start, and nothing is made for it.
fn bind_console(settings: &Settings) -> Result<ConsoleSocket> {
    ConsoleSocket::bind(&settings.socket, settings.group.as_deref()).map_err(|e| {
        anyhow!(
            "no console, so no game: {e:#} (the assistant's commands and the arbiter's resume \
             need it; see key console.socket in {})",
            settings.origin
        )
    })
}

/// What a resumed game's run prints: the settings the journal keeps, and (unless it is over) what
/// both players hear, in the same words and order (the pack's language).
fn print_resumed(
    settings: &Settings,
    opened: &setup::OpenedGame,
    table: &tactus_core::table::Table,
    voices: &Voices,
) {
    for line in setup::saved_settings(settings, &opened.header) {
        crate::output::say_line(&format!("tactus: {line}"));
    }
    if !table.game().is_over() {
        // In the words the (first) blind player hears.
        let seat = table
            .arbiter()
            .config()
            .names()
            .blind_seats()
            .next()
            .unwrap_or(shakmaty::Color::White);
        let unfinished = table.recovery().unfinished;
        let words: Vec<String> = hub::recovery_words(table.arbiter(), &unfinished)
            .iter()
            .map(|a| voices.seats[seat].wording.text(a))
            .collect();
        crate::output::say_line(&format!("tactus: {}", words.join(", ")));
    }
}

/// With `stop_when_played` (the demo), a task that ends the run once every move is played and
/// executed on both boards and all is said; returns whether that happened, once the run is over.
fn watch_played(
    opts: &RunOptions,
    training: bool,
    tasks: &mut Tasks,
    progress: &watch::Receiver<Progress>,
    cancel: &CancellationToken,
) -> Arc<AtomicBool> {
    let played_out = Arc::new(AtomicBool::new(false));
    if opts.stop_when_played {
        // A training game's moves are not known in advance, and a game its players agree to
        // draw ends after its last move: each is played out when it is over.
        let plies = if training || opts.sim.draw_accept_ply.is_some() {
            usize::MAX
        } else {
            opts.sim.moves.len()
        };
        tasks.spawn(watch_until_played(
            progress.clone(),
            plies,
            opts.sim.speed,
            cancel.clone(),
            played_out.clone(),
        ));
    }
    played_out
}
