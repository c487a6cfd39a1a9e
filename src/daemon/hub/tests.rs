//! The hub's own duties, beyond the arbiter's rulings (which `arbiter::tests` covers): every
//! input journaled on the game's time line before it is applied (a refused one too), the effects
//! carried out (speech, the board links, the consoles, `touches.txt`, the transcript), speech
//! events counted only for announcements in flight, announcements that count as said when there
//! is no speech, ticks at the arbiter's deadlines and the heartbeat of a running clock on tokio's
//! paused clock, the tactile board's buttons, a board lost and found, the record on shutdown,
//! and a game taken up again from the journal the hub wrote.
//!
//! Each test builds a hub in a fresh game folder under the system's temporary folder, with
//! channels it holds: no serial port (board events are sent as a link would send them), no speech
//! task (the test reads the speech requests, or there is no speech at all), no console socket
//! (commands go in as a connection would send them). The blind player is Black on a tactile
//! occupancy board; the sighted player's board has no sensors (his moves are typed).

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
    sync::atomic::Ordering,
    time::Duration,
};

use shakmaty::{Chess, Color, Position, Square};

use super::*;
use crate::{
    daemon::{clock::MonotonicClock, files::RecordSettings, journal},
    speech::{Outcome as Spoken, SpeechId, What, Wording},
};
use tactus_core::board::dgt::ClockMessage;
use tactus_core::board::dgt_clock::{ClockFace, ClockSide};
use tactus_core::{
    announce::{
        Announcement, Audience, Guidance, MoveWords, WhichBoard,
        voice::{Style, VoicePack},
    },
    arbiter::{ArbiterConfig, Completion, one_blind},
    board::{Sensed, Sensing, SensorEvent, recognize::RecognizerConfig, session::LinkEvent},
    console::{self, Switchable, wire::End},
    journal::{
        AskedBy, BoardRecord, ColorRecord, Entry, FORMAT_VERSION, Header, InputRecord,
        JOURNAL_FILE, RequestRecord, RulesRecord, SetupRecord, Step, replay, replay_steps,
    },
    rules::{game::RulesConfig, time_control::TimeControl},
    table::{ClockSeat, OWN_SPEECH_BASE as HUB_SPEECH_BASE, TableEffect, TableParts},
};

/// The blind player's tactile board: every change at once; a board that still differs from
/// what it should show after 1.5 s is described to him.
const TACTILE: RecognizerConfig = RecognizerConfig {
    sensing: Sensing::Occupancy,
    settle_ms: 0,
    scan_ms: 0,
    bounce_ms: 0,
    differs_after_ms: 1_500,
    confirm_with_snapshot: false,
};
const GUIDANCE_REPEAT_MS: Millis = 3_000;
/// The console connection every test command comes from.
const CONN: u64 = 7;

/// A game folder under the system's temporary folder ([`crate::store::scratch`]): removed when
/// the test passes, kept for a look when it fails.
type Folder = crate::store::Scratch;

/// The table: the blind player is Black; `time_control` in PGN notation, or no clock;
/// `speech`: a speech channel the test reads, or none.
#[derive(Debug, Clone, Copy)]
struct Setup {
    time_control: Option<&'static str>,
    speech: bool,
    /// A DGT clock on the sighted board's link, White on its left, its lever completing the
    /// sighted player's move.
    table_clock: bool,
    /// Play starts by itself once the tactile board shows the position (else at `start`).
    start_by_boards: bool,
    /// A training game: an engine's channel (White's side) the test plays through
    /// `HubMsg::Engine`.
    engine: bool,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            time_control: Some("300"),
            speech: true,
            table_clock: false,
            start_by_boards: false,
            engine: false,
        }
    }
}

fn tags() -> Vec<(String, String)> {
    vec![
        ("White".into(), "Weiss Sehend".into()),
        ("Black".into(), "Schwarz Blind".into()),
    ]
}

fn pack() -> VoicePack {
    VoicePack::builtin("de-fide").unwrap()
}

/// What a hub starts from: a new game, or one taken up from its journal.
struct Begin {
    table: Table,
    journal: Journal,
    offset: Millis,
    /// Taken up from its journal: the table is told so as the hub starts.
    resumed: bool,
}

/// Each seat's words: the German pack.
fn wording() -> ByColor<Wording> {
    ByColor::new_with(|_| Wording::new(pack(), Style::San))
}

/// The table's settings for `setup`: the tactile board (Black's) with its buttons, the sighted
/// board's link only for a DGT clock on it (White on its left, its lever completing his move).
fn table_settings(setup: Setup) -> TableSettings {
    TableSettings {
        links: ByColor {
            black: true,
            white: setup.table_clock,
        },
        sensors: ByColor {
            black: true,
            white: false,
        },
        clock: setup.table_clock.then_some(ClockSeat {
            seat: Color::White,
            left: Color::White,
            lever_completes_move: true,
        }),
        start_by_boards: setup.start_by_boards,
        intake_speed: ByColor::new_with(|_| 1.0),
        buttons: ByColor {
            black: BTreeMap::from([
                (1, "time".to_string()),
                (3, "material".to_string()),
                (4, "repeat".to_string()),
            ]),
            white: BTreeMap::new(),
        },
        training: setup.engine,
    }
}

/// A new game in `dir`, its journal begun with its header.
fn new_game(dir: &Path, setup: Setup) -> Begin {
    let cfg = ArbiterConfig {
        rules: RulesConfig {
            time_control: setup
                .time_control
                .map(|t| t.parse::<TimeControl>().unwrap()),
            ..RulesConfig::default()
        },
        seats: one_blind(Color::Black, TACTILE, None, Completion::ClockPress),
        guidance_repeat_ms: GUIDANCE_REPEAT_MS,
        say_own_move: true,
        correction_window_ms: 0,
    };
    let header = Header {
        version: FORMAT_VERSION,
        game: String::new(),
        created_unix_ms: 0,
        tags: tags(),
        setup: SetupRecord::new(&cfg, &Chess::default(), "de-fide", Style::San).with_table(
            &table_settings(setup),
            tactus_core::record::braille::DEFAULT_PROFILE,
        ),
    };
    let parts: TableParts = header.setup.table_parts(&tags(), wording()).unwrap();
    Begin {
        journal: Journal::create(&dir.join(JOURNAL_FILE), &header).unwrap(),
        table: Table::new(parts),
        offset: 0,
        resumed: false,
    }
}

/// A journal replayed: every input applied to the arbiter and every effect, in order.
enum Replayed {
    Applied(Millis, InputRecord),
    Effect(TableEffect),
}

/// `read` replayed, step by step.
fn replayed_steps(read: &tactus_core::journal::JournalFile) -> Vec<Replayed> {
    let mut steps = Vec::new();
    replay_steps(read, wording(), |t, step| match step {
        Step::Applied(input) => steps.push(Replayed::Applied(t, input.into())),
        Step::Effect(effect) => steps.push(Replayed::Effect(effect.clone())),
        Step::Request(_) | Step::Line(_) => {}
    })
    .unwrap();
    steps
}

/// What the journal replays to as the hub of format 2 journaled it: the inputs applied to the
/// arbiter, and the requests answered (F.9 d), in order.
fn replayed_inputs(read: &tactus_core::journal::JournalFile) -> Vec<(Millis, InputRecord)> {
    let mut inputs = Vec::new();
    let mut at = 0;
    for step in replayed_steps(read) {
        match step {
            Replayed::Applied(t, input) => {
                at = t;
                inputs.push((t, input));
            }
            Replayed::Effect(TableEffect::Asked(asked)) => inputs.push((
                at,
                InputRecord::Request(RequestRecord {
                    by: asked.by,
                    asked: asked.asked,
                    answer: asked.answer,
                    said: asked.said,
                    seat: asked.seat.map(ColorRecord::from),
                }),
            )),
            Replayed::Effect(_) => {}
        }
    }
    inputs
}

/// The rules' inputs a journal replays to, as their Debug text (`PauseFor { reason:
/// Recording }`).
fn journaled_rules(read: &tactus_core::journal::JournalFile) -> Vec<String> {
    replayed_inputs(read)
        .into_iter()
        .filter_map(|(_, input)| match input {
            InputRecord::Rules { rules } => Some(format!("{rules:?}")),
            _ => None,
        })
        .collect()
}

/// A journal replayed, and all it said on the way.
fn replay_saying(
    read: &tactus_core::journal::JournalFile,
) -> (Vec<Announcement>, tactus_core::journal::Replayed) {
    let mut words = Vec::new();
    let replayed = replay(read, wording(), |_, effect| {
        if let TableEffect::Say { announcement, .. } = effect {
            words.push(announcement.clone());
        }
    })
    .unwrap();
    (words, replayed)
}

/// The unfinished game of `dir`, its journal replayed as `setup` takes a game up again.
fn resumed_game(dir: &Path) -> Begin {
    let read = journal::read(&dir.join(JOURNAL_FILE)).unwrap();
    let replayed = replay(&read, wording(), |_, _| {}).unwrap();
    Begin {
        journal: Journal::append_to(&read).unwrap(),
        offset: replayed.last_time,
        table: replayed.table,
        resumed: true,
    }
}

/// A running hub and the other ends of its channels.
struct Rig {
    dir: PathBuf,
    link: MonotonicClock,
    offset: Millis,
    inbox: mpsc::Sender<HubMsg>,
    speech: Option<mpsc::Receiver<SpeechRequest>>,
    /// What the hub asks of the tactile board's link.
    commands: mpsc::Receiver<LinkCommand>,
    /// What the hub asks of the sighted board's link (with a table clock).
    sighted_commands: Option<mpsc::Receiver<LinkCommand>>,
    consoles: broadcast::Receiver<Broadcast>,
    progress: watch::Receiver<Progress>,
    /// What the hub asks of a training game's engine.
    engine: Option<mpsc::Receiver<crate::daemon::engine::EngineRequest>>,
    cancel: CancellationToken,
    hub: Option<tokio::task::JoinHandle<HubEnd>>,
}

impl Rig {
    fn new(folder: &Folder, setup: Setup) -> Rig {
        Rig::start_with(folder, new_game(folder, setup), setup)
    }

    fn start(folder: &Folder, begin: Begin, speech: bool) -> Rig {
        let setup = Setup {
            speech,
            ..Setup::default()
        };
        Rig::start_with(folder, begin, setup)
    }

    fn start_with(folder: &Folder, begin: Begin, setup: Setup) -> Rig {
        let speech = setup.speech;
        let dir = folder.to_path_buf();
        let link = MonotonicClock::new();
        let (inbox, rx) = mpsc::channel(HUB_QUEUE);
        let (speech_tx, speech_rx) = match speech {
            true => {
                let (tx, rx) = mpsc::channel(256);
                (Some(tx), Some(rx))
            }
            false => (None, None),
        };
        let (commands_tx, commands) = mpsc::channel(16);
        let (sighted_tx, sighted_commands) = match setup.table_clock {
            true => {
                let (tx, rx) = mpsc::channel(16);
                (Some(tx), Some(rx))
            }
            false => (None, None),
        };
        let (broadcast_tx, consoles) = broadcast::channel(1024);
        let (progress_tx, progress) = watch::channel(begin.table.progress());
        let (engine_tx, engine) = match setup.engine {
            true => {
                let (tx, rx) = mpsc::channel(16);
                (Some(tx), Some(rx))
            }
            false => (None, None),
        };
        let record = RecordWriter::spawn(RecordSettings {
            folder: crate::store::trusted::TrustedDir::open(&dir).unwrap(),
            braille: crate::config::braille_options(
                tactus_core::record::braille::DEFAULT_PROFILE,
                40,
                25,
            )
            .unwrap(),
            profiles: shakmaty::ByColor::new_with(|_| {
                tactus_core::record::braille::Profile::named(
                    tactus_core::record::braille::DEFAULT_PROFILE,
                )
                .unwrap()
            }),
            blind_scores: vec![files::BlindScore {
                braille: None,
                files: files::ScoreFiles::of(None),
                audio: None,
            }],
        });
        let hub = Hub::new(HubParts {
            table: begin.table,
            resumed: begin.resumed.then(|| table_settings(setup)),
            clock: GameClock {
                link,
                offset: begin.offset,
            },
            journal: Some(begin.journal),
            folder: crate::store::trusted::TrustedDir::open(&dir).unwrap(),
            speech: speech_tx,
            links: ByColor {
                black: Some(commands_tx),
                white: sighted_tx,
            },
            engine: engine_tx,
            record,
            broadcast: broadcast_tx,
            progress: progress_tx,
            messages: inbox.clone(),
            echo: false,
        });
        let cancel = CancellationToken::new();
        let hub = tokio::spawn(hub.run(rx, cancel.clone()));
        Rig {
            dir,
            link,
            offset: begin.offset,
            inbox,
            speech: speech_rx,
            commands,
            sighted_commands,
            consoles,
            progress,
            engine,
            cancel,
            hub: Some(hub),
        }
    }

    /// The faces handed to the DGT clock's link since the last look.
    fn clock_faces(&mut self) -> Vec<ClockFace> {
        let rx = self.sighted_commands.as_mut().expect("a table clock");
        std::iter::from_fn(|| rx.try_recv().ok())
            .filter_map(|c| match c {
                LinkCommand::Clock(face) => Some(face),
                _ => None,
            })
            .collect()
    }

    /// The texts handed to the DGT clock's display since the last look (faces are dropped).
    fn clock_texts(&mut self) -> Vec<String> {
        let rx = self.sighted_commands.as_mut().expect("a table clock");
        std::iter::from_fn(|| rx.try_recv().ok())
            .filter_map(|c| match c {
                LinkCommand::ClockText { text, .. } => Some(text),
                _ => None,
            })
            .collect()
    }

    /// The DGT clock's lever as the sighted board's link reads it.
    async fn lever(&self, lever_right_high: bool) {
        self.send(HubMsg::Link {
            seat: Color::White,
            event: Timed {
                at: self.link.now(),
                event: LinkEvent::Clock(ClockMessage::Times {
                    right_ms: 0,
                    left_ms: 0,
                    running: true,
                    lever_right_high,
                    battery_low: false,
                    no_clock: false,
                }),
            },
        })
        .await;
        self.settle().await;
    }

    /// The game's time now.
    fn now(&self) -> Millis {
        self.link.now() + self.offset
    }

    async fn send(&self, msg: HubMsg) {
        self.inbox.send(msg).await.expect("the hub runs");
    }

    /// A console command from a connection in `role`, and the hub's reply. The blind player's
    /// keypad reads his pack's words too, and a line its session refuses goes to the hub as the
    /// connection sends it (to be told to him).
    async fn console(&self, role: Role, line: &str) -> Reply {
        if role == Role::Player {
            let keypads = std::sync::Arc::new(console::Keypads {
                words: ByColor::new_with(|_| pack().commands().clone()),
                seatless: Some(Color::Black),
                ..Default::default()
            });
            let mut keypad = console::Session::new(role, None).with_keypads(keypads);
            return match keypad.parse(line) {
                Ok(command) => self.command(role, command).await,
                Err(error) => {
                    let (reply, answer) = oneshot::channel();
                    self.send(HubMsg::Refused {
                        seat: None,
                        error,
                        reply,
                    })
                    .await;
                    answer.await.expect("the hub replies")
                }
            };
        }
        let command = console::parse(line, role).unwrap_or_else(|e| panic!("{line}: {e}"));
        self.command(role, command).await
    }

    /// A line of the player's keypad that is refused: what his console prints.
    async fn refused(&self, role: Role, line: &str) -> String {
        match self.console(role, line).await.end {
            End::Error(e) => e,
            End::Ok(_) => panic!("{line}: carried out"),
        }
    }

    /// A command read by a connection in `role`, and the hub's reply.
    async fn command(&self, role: Role, command: console::Command) -> Reply {
        let (reply, answer) = oneshot::channel();
        self.send(HubMsg::Console {
            conn: CONN,
            role,
            seat: None,
            command,
            reply,
        })
        .await;
        answer.await.expect("the hub replies")
    }

    /// A command that must be carried out: its reply's body.
    async fn ok(&self, role: Role, line: &str) -> Vec<String> {
        let reply = self.console(role, line).await;
        match reply.end {
            End::Ok(_) => reply.body,
            End::Error(e) => panic!("{line}: refused: {e}"),
        }
    }

    /// Until the hub has handled everything sent before (it handles its inbox in order).
    async fn settle(&self) {
        self.console(Role::Assistant, "status").await;
    }

    /// Until every mateability search the arbiter asked for has answered. The searches run on
    /// blocking threads, in real time (the paused clock stands still meanwhile), and their
    /// verdicts are inputs: the journal, replayed, then leaves none pending.
    async fn verdicts(&self) {
        let limit = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            self.settle().await;
            let read = journal::read(&self.dir.join(JOURNAL_FILE)).unwrap();
            let replayed = replay(&read, wording(), |_, _| {}).unwrap();
            let pending = replayed.table.pending_analyses().clone();
            if pending.is_empty() {
                return;
            }
            assert!(
                std::time::Instant::now() < limit,
                "no verdict for {pending:?}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// An event of the tactile board's link, stamped `at` on the link's clock.
    async fn link_at(&self, at: Millis, event: LinkEvent) {
        self.send(HubMsg::Link {
            seat: Color::Black,
            event: Timed { at, event },
        })
        .await;
        self.settle().await;
    }

    /// An event of the tactile board's link, stamped now.
    async fn link(&self, event: LinkEvent) {
        self.link_at(self.link.now(), event).await;
    }

    async fn sensor(&self, event: SensorEvent) {
        self.link(LinkEvent::Sensor(event)).await;
    }

    /// The tactile board connects and its first reading shows the starting position.
    async fn board_ready(&self) {
        self.link(LinkEvent::Connected {
            info: "test board".into(),
        })
        .await;
        self.sensor(SensorEvent::Snapshot(Sensed::Occupancy(
            Chess::default().board().occupied(),
        )))
        .await;
    }

    /// The tactile board ready, and the arbiter starts play; the start is said to both players
    /// (and, with speech, reported said).
    async fn start_play(&mut self) {
        self.board_ready().await;
        self.ok(Role::Arbiter, "start").await;
        if self.speech.is_some() {
            let said = self.said();
            let started: Vec<u64> = said
                .iter()
                .filter(|(_, audience, a)| {
                    *audience == Audience::Both && matches!(a, Announcement::GameStarted { .. })
                })
                .map(|(id, ..)| *id)
                .collect();
            assert_eq!(started.len(), 1, "the start is said to both: {said:?}");
            self.finished(started[0]).await;
        }
    }

    async fn speech_event(&self, event: SpeechEvent) {
        self.send(HubMsg::Speech(event)).await;
        self.settle().await;
    }

    /// The speech task reports announcement `id` said.
    async fn finished(&self, id: u64) {
        self.speech_event(SpeechEvent::Finished {
            id: SpeechId(id),
            audience: Audience::Player(Color::Black),
            outcome: Spoken::Spoken,
        })
        .await;
    }

    /// The announcements handed to speech since the last look: (id, audience, announcement).
    fn said(&mut self) -> Vec<(u64, Audience, Announcement)> {
        let rx = self.speech.as_mut().expect("a speech channel");
        std::iter::from_fn(|| rx.try_recv().ok())
            .map(said)
            .collect()
    }

    /// The next announcement handed to speech, waiting for it (on the paused clock, time runs on
    /// to the hub's next deadline), with the game time it was handed over at.
    async fn next_said(&mut self) -> (Millis, u64, Audience, Announcement) {
        let rx = self.speech.as_mut().expect("a speech channel");
        let request = tokio::time::timeout(Duration::from_secs(120), rx.recv())
            .await
            .expect("an announcement within two minutes")
            .expect("the hub runs");
        let (id, audience, announcement) = said(request);
        (self.now(), id, audience, announcement)
    }

    /// What every console was told since the last look.
    fn told(&mut self) -> Vec<Broadcast> {
        std::iter::from_fn(|| self.consoles.try_recv().ok()).collect()
    }

    /// The inputs journaled so far, with their times: what the journal replays to as the hub
    /// of format 2 journaled it (the inputs applied to the arbiter, the requests answered).
    fn inputs(&self) -> Vec<(Millis, InputRecord)> {
        replayed_inputs(&journal::read(&self.dir.join(JOURNAL_FILE)).unwrap())
    }

    /// The arbiter's switches of a request (12.3 a) the journal replays to.
    fn switches(&self) -> Vec<String> {
        let read = journal::read(&self.dir.join(JOURNAL_FILE)).unwrap();
        replayed_steps(&read)
            .into_iter()
            .filter_map(|step| match step {
                Replayed::Effect(TableEffect::Note { text, .. })
                    if text.starts_with("the arbiter switched the players'") =>
                {
                    Some(text)
                }
                _ => None,
            })
            .collect()
    }

    fn entries(&self) -> Vec<Entry> {
        journal::read(&self.dir.join(JOURNAL_FILE)).unwrap().entries
    }

    /// The times of the journaled ticks.
    fn ticks(&self) -> Vec<Millis> {
        self.inputs()
            .into_iter()
            .filter(|(_, i)| *i == InputRecord::Tick)
            .map(|(t, _)| t)
            .collect()
    }

    /// The lines of a file of the game folder without their time of day.
    fn lines(&self, file: &str) -> Vec<String> {
        std::fs::read_to_string(self.dir.join(file))
            .unwrap_or_default()
            .lines()
            .map(|l| without_time_of_day(l).to_string())
            .collect()
    }

    fn transcript(&self) -> Vec<String> {
        self.lines(files::TRANSCRIPT_FILE)
    }

    /// Stop the hub as the daemon's shutdown does; how it ended.
    async fn stop(mut self) -> HubEnd {
        self.cancel.cancel();
        self.hub.take().unwrap().await.expect("the hub ends")
    }
}

impl Drop for Rig {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

fn said(request: SpeechRequest) -> (u64, Audience, Announcement) {
    match request {
        SpeechRequest::Say {
            id,
            audience,
            what: What::Announcement(announcement),
            ..
        } => (id.0, audience, announcement),
        other => panic!("the hub asked speech for {other:?}"),
    }
}

fn without_time_of_day(line: &str) -> &str {
    line.split_once(' ').map_or(line, |(_, rest)| rest)
}

async fn sleep_ms(ms: u64) {
    tokio::time::sleep(Duration::from_millis(ms)).await;
}

/// 1. e4, as announced to the blind player.
fn e4() -> Announcement {
    let start = Chess::default();
    let m = tactus_core::rules::notation::match_move(&start, "e4").unwrap();
    Announcement::Move(MoveWords::new(&start, m))
}

fn rendered(announcement: &Announcement) -> String {
    pack().render(announcement, Style::San).text
}

/// Start the game and have the sighted player (White) play 1. e4; returns the id of its
/// announcement to the blind player.
async fn start_and_play_e4(rig: &mut Rig) -> u64 {
    rig.start_play().await;
    rig.ok(Role::Assistant, "move e4").await;
    rig.ok(Role::Assistant, "press").await;
    rig.verdicts().await;
    let said = rig.said();
    let moves: Vec<_> = said
        .iter()
        .filter(|(_, _, a)| matches!(a, Announcement::Move(_)))
        .collect();
    assert_eq!(moves.len(), 1, "{said:?}");
    assert_eq!(
        (moves[0].1, &moves[0].2),
        (Audience::Player(Color::Black), &e4())
    );
    moves[0].0
}

#[tokio::test(start_paused = true)]
async fn every_input_is_journaled_at_its_time_on_the_game_time_line_even_a_refused_one() {
    let folder = crate::store::scratch("journal");
    let setup = Setup {
        start_by_boards: true,
        ..Setup::default()
    };
    let mut rig = Rig::new(&folder, setup);
    sleep_ms(2_000).await;
    // The tactile board's first reading, stamped by its link at 1.5 s and read by the hub at
    // 2 s: the game starts at the link's time (the board counts, not the queue).
    rig.link_at(
        1_500,
        LinkEvent::Connected {
            info: "test board".into(),
        },
    )
    .await;
    let start = Chess::default().board().occupied();
    rig.link_at(
        1_500,
        LinkEvent::Sensor(SensorEvent::Snapshot(Sensed::Occupancy(start))),
    )
    .await;
    let reading = (
        1_500,
        InputRecord::Board {
            board: BoardRecord::Black,
            event: (&SensorEvent::Snapshot(Sensed::Occupancy(start))).into(),
        },
    );
    assert_eq!(
        rig.inputs(),
        vec![reading.clone(), (1_500, InputRecord::Start)]
    );
    // The assistant starts it again: the arbiter refuses, but the input is in the journal.
    let reply = rig.console(Role::Assistant, "start").await;
    assert_eq!(reply.end, End::Error("the game has already started".into()));
    // An event stamped before the last input is journaled at the last input's time: the time
    // line never goes back.
    rig.link_at(
        1_000,
        LinkEvent::Disconnected {
            reason: "cable".into(),
        },
    )
    .await;
    // A verdict nobody asked for is no input.
    rig.send(HubMsg::Verdict {
        ticket: 42,
        mateability: Mateability::Undecided,
    })
    .await;
    rig.settle().await;
    assert_eq!(
        rig.inputs(),
        vec![
            reading,
            (1_500, InputRecord::Start),
            (2_000, InputRecord::Start),
            (
                2_000,
                InputRecord::BoardDisconnected {
                    board: BoardRecord::Black
                }
            ),
        ]
    );
    // The refusal is in the transcript, and only the console that sent it hears of it.
    assert!(
        rig.transcript()
            .contains(&"note refused: the game has already started".to_string()),
        "{:?}",
        rig.transcript()
    );
    assert!(
        !rig.told()
            .iter()
            .any(|b| b.text.contains("already started")),
        "other consoles are not told of a refusal"
    );
    rig.stop().await;
}

#[tokio::test(start_paused = true)]
async fn effects_go_to_speech_the_consoles_the_transcript_and_the_touches_file() {
    let folder = crate::store::scratch("effects");
    let mut rig = Rig::new(&folder, Setup::default());
    rig.start_play().await;
    // The start asks the tactile board for a full reading.
    assert_eq!(rig.commands.try_recv(), Ok(LinkCommand::RequestSnapshot));
    sleep_ms(1_250).await;
    // F.9 e: the sighted player touched his knight on g1.
    let body = rig.ok(Role::Assistant, "touch g1").await;
    let note = "sighted player touched white knight on g1".to_string();
    assert!(body.contains(&note), "{body:?}");
    assert_eq!(
        rig.lines(files::TOUCHES_FILE),
        vec![
            without_time_of_day(&files::touch_line(
                1_250,
                "sighted",
                Square::G1,
                Some(Color::White.knight())
            ))
            .to_string()
        ]
    );
    assert!(rig.transcript().contains(&format!("note {note}")));
    // Every console is told, with the connection that caused it (which has it in its reply).
    let told = rig.told();
    assert!(
        told.iter()
            .any(|b| b.text == note && b.origin == Some(CONN)),
        "{told:?}"
    );
    rig.ok(Role::Assistant, "move e4").await;
    rig.ok(Role::Assistant, "press").await;
    // The move is handed to speech for the blind player and shown to every console as said.
    let said = rig.said();
    let (id, audience, announcement) = said
        .iter()
        .find(|(_, _, a)| matches!(a, Announcement::Move(_)))
        .cloned()
        .unwrap_or_else(|| panic!("{said:?}"));
    assert_eq!(
        (audience, &announcement),
        (Audience::Player(Color::Black), &e4())
    );
    assert!(id < HUB_SPEECH_BASE, "the arbiter's id");
    let told = rig.told();
    assert!(
        told.iter()
            .any(|b| b.text == format!("said to blind: {}", rendered(&e4())) && b.origin.is_none()),
        "{told:?}"
    );
    let progress = rig.progress.borrow().clone();
    assert_eq!((progress.ply, progress.started), (1, true));
    assert_eq!(progress.speaking, 1, "the move is being said");
    rig.stop().await;
}

#[tokio::test(start_paused = true)]
async fn speech_events_count_only_for_announcements_in_flight() {
    let folder = crate::store::scratch("speech");
    // No clock: no heartbeat to journal meanwhile.
    let mut rig = Rig::new(
        &folder,
        Setup {
            time_control: None,
            ..Setup::default()
        },
    );
    let id = start_and_play_e4(&mut rig).await;
    let before = rig.inputs().len();
    // Speech reports another request, and the start of this one: nothing for the arbiter.
    rig.finished(id + 1_000).await;
    rig.speech_event(SpeechEvent::Started {
        id: SpeechId(id),
        audience: Audience::Player(Color::Black),
        at: std::time::Instant::now(),
    })
    .await;
    assert_eq!(rig.inputs().len(), before);
    // Its end counts, once.
    sleep_ms(700).await;
    rig.finished(id).await;
    rig.finished(id).await;
    let inputs = rig.inputs();
    assert_eq!(inputs.len(), before + 1, "{inputs:?}");
    assert_eq!(
        inputs.last(),
        Some(&(700, InputRecord::SpeechFinished { id }))
    );
    assert_eq!(rig.progress.borrow().speaking, 0);
    // A speaker that fails is a note for the transcript and the consoles.
    rig.speech_event(SpeechEvent::Degraded {
        audience: Audience::Player(Color::Black),
        message: "no device".into(),
    })
    .await;
    let note = "speech for blind degraded: no device";
    assert!(rig.transcript().contains(&format!("note {note}")));
    assert!(rig.told().iter().any(|b| b.text == note));
    rig.stop().await;
}

#[tokio::test(start_paused = true)]
async fn without_speech_an_announcement_counts_as_said_at_once() {
    let folder = crate::store::scratch("nospeech");
    let mut rig = Rig::new(
        &folder,
        Setup {
            speech: false,
            ..Setup::default()
        },
    );
    rig.start_play().await;
    sleep_ms(400).await;
    rig.ok(Role::Assistant, "move e4").await;
    rig.ok(Role::Assistant, "press").await;
    rig.verdicts().await;
    // F.3 c: no clock waits for an announcement nobody can say; its end is journaled right
    // after the press, and the transcript says it was not spoken.
    let inputs = rig.inputs();
    let press = inputs
        .iter()
        .position(|i| *i == (400, InputRecord::ClockPress))
        .unwrap_or_else(|| panic!("{inputs:?}"));
    assert!(
        matches!(inputs[press + 1], (400, InputRecord::SpeechFinished { .. })),
        "{inputs:?}"
    );
    assert!(
        rig.transcript().contains(&format!(
            "blind {} (not spoken: no speech task)",
            rendered(&e4())
        )),
        "{:?}",
        rig.transcript()
    );
    assert_eq!(rig.progress.borrow().speaking, 0);
    rig.stop().await;
}

#[tokio::test(start_paused = true)]
async fn guidance_is_repeated_every_guidance_repeat_ms_until_the_board_is_right() {
    let folder = crate::store::scratch("guidance");
    // No clock: no heartbeat, every tick is one of the arbiter's deadlines.
    let mut rig = Rig::new(
        &folder,
        Setup {
            time_control: None,
            ..Setup::default()
        },
    );
    let id = start_and_play_e4(&mut rig).await;
    rig.finished(id).await;
    // The blind player executes 1. e4 wrongly: the pawn to e3.
    sleep_ms(1_000).await;
    rig.sensor(SensorEvent::Lift { square: Square::E2 }).await;
    sleep_ms(200).await;
    rig.sensor(SensorEvent::Place {
        square: Square::E3,
        piece: None,
    })
    .await;
    let placed = rig.now();
    let guidance = Announcement::Guidance(Guidance::Misplaced {
        piece: Color::White.pawn(),
        found: Square::E3,
        belongs: Square::E4,
    });
    let mut times = Vec::new();
    for _ in 0..3 {
        let (t, id, audience, announcement) = rig.next_said().await;
        assert_eq!(
            (audience, &announcement),
            (Audience::Player(Color::Black), &guidance)
        );
        times.push(t);
        rig.finished(id).await;
    }
    // Told once the board has differed for the recogniser's time, then again every
    // guidance_repeat_ms, on the dot.
    assert_eq!(
        times,
        vec![
            placed + TACTILE.differs_after_ms,
            placed + TACTILE.differs_after_ms + GUIDANCE_REPEAT_MS,
            placed + TACTILE.differs_after_ms + 2 * GUIDANCE_REPEAT_MS,
        ]
    );
    for t in &times {
        assert!(rig.ticks().contains(t), "a tick at {t}: {:?}", rig.ticks());
    }
    assert_eq!(rig.progress.borrow().guidance.black, 3);
    // He puts it right: nothing more is said, however long he then thinks.
    rig.sensor(SensorEvent::Lift { square: Square::E3 }).await;
    rig.sensor(SensorEvent::Place {
        square: Square::E4,
        piece: None,
    })
    .await;
    sleep_ms(4 * GUIDANCE_REPEAT_MS).await;
    rig.settle().await;
    assert_eq!(rig.said(), vec![]);
    assert_eq!(rig.progress.borrow().guidance.black, 3);
    rig.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_running_clock_is_journaled_every_heartbeat_and_a_stopped_one_is_not() {
    let folder = crate::store::scratch("heartbeat");
    let mut rig = Rig::new(&folder, Setup::default());
    // Before the start no clock runs and nothing is due: no tick.
    sleep_ms(5_000).await;
    rig.settle().await;
    assert_eq!(rig.inputs(), vec![]);
    rig.start_play().await;
    sleep_ms(2_500).await;
    rig.settle().await;
    assert_eq!(rig.ticks(), vec![5_800, 6_600, 7_400]);
    // 6.12: the arbiter stops the clocks; nothing to journal while they stand.
    rig.ok(Role::Arbiter, "pause").await;
    sleep_ms(5_000).await;
    rig.settle().await;
    assert_eq!(rig.ticks(), vec![5_800, 6_600, 7_400]);
    rig.ok(Role::Arbiter, "resume").await;
    sleep_ms(1_000).await;
    rig.settle().await;
    assert_eq!(rig.ticks(), vec![5_800, 6_600, 7_400, 13_300]);
    rig.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_flag_falls_at_the_arbiters_deadline_between_heartbeats() {
    let folder = crate::store::scratch("flag");
    // 61 s: the flag (61 000) falls between two heartbeats (60 800, 61 600).
    let mut rig = Rig::new(
        &folder,
        Setup {
            time_control: Some("61"),
            ..Setup::default()
        },
    );
    rig.start_play().await;
    let flag = loop {
        let (t, _, audience, announcement) = rig.next_said().await;
        if let Announcement::FlagFell { side } = announcement {
            assert_eq!((audience, side), (Audience::Both, Color::White));
            break t;
        }
    };
    assert_eq!(flag, 61_000);
    let ticks = rig.ticks();
    assert_eq!(ticks.len(), 77, "{ticks:?}");
    assert_eq!(ticks[75..], [60_800, 61_000]);
    assert!(ticks.iter().zip(1..).take(76).all(|(&t, k)| t == 800 * k));
    // The end is journaled; no tick after it.
    sleep_ms(10_000).await;
    rig.settle().await;
    let entries = rig.entries();
    assert!(
        matches!(entries.last(), Some(Entry::End { t: 61_000, result, .. }) if result == "0-1"),
        "{:?}",
        entries.last()
    );
    assert!(
        rig.told()
            .iter()
            .any(|b| b.text.starts_with("game over: 0-1")),
        "the consoles hear the result"
    );
    let end = rig.stop().await;
    assert!(end.over);
}

#[tokio::test(start_paused = true)]
async fn a_lost_board_is_announced_once_and_its_return_asks_for_a_reading() {
    let folder = crate::store::scratch("links");
    let setup = Setup {
        start_by_boards: true,
        ..Setup::default()
    };
    let mut rig = Rig::new(&folder, setup);
    let disconnected = InputRecord::BoardDisconnected {
        board: BoardRecord::Black,
    };
    // The tactile board is not there at all: the players hear it once.
    for _ in 0..2 {
        rig.link(LinkEvent::Unavailable {
            reason: "no such device".into(),
        })
        .await;
    }
    assert_eq!(rig.inputs(), vec![(0, disconnected.clone())]);
    let said: Vec<_> = rig.said().into_iter().map(|(_, a, w)| (a, w)).collect();
    assert_eq!(
        said,
        vec![(
            Audience::Both,
            Announcement::BoardDisconnected {
                board: WhichBoard::Tactile
            }
        )]
    );
    let notes = rig
        .transcript()
        .iter()
        .filter(|l| *l == "note tactile board not available: no such device")
        .count();
    assert_eq!(notes, 2);
    // It comes: announced as back and read again; once its reading shows the position the game
    // starts by itself (the sighted board has no sensors to wait for).
    sleep_ms(300).await;
    rig.link(LinkEvent::Connected {
        info: "pegged test".into(),
    })
    .await;
    assert_eq!(
        rig.inputs()[1..],
        [(
            300,
            InputRecord::BoardConnected {
                board: BoardRecord::Black
            }
        )],
        "not before the board is read"
    );
    let start = SensorEvent::Snapshot(Sensed::Occupancy(Chess::default().board().occupied()));
    rig.sensor(start.clone()).await;
    assert_eq!(
        rig.inputs()[2..],
        [
            (
                300,
                InputRecord::Board {
                    board: BoardRecord::Black,
                    event: (&start).into(),
                }
            ),
            (300, InputRecord::Start),
        ]
    );
    assert!(rig.said().iter().any(|(_, a, w)| *a == Audience::Both
        && *w
            == Announcement::BoardReconnected {
                board: WhichBoard::Tactile
            }));
    assert_eq!(rig.commands.try_recv(), Ok(LinkCommand::RequestSnapshot));
    assert!(
        rig.told()
            .iter()
            .any(|b| b.text == "tactile board connected: pegged test")
    );
    let progress = rig.progress.borrow().clone();
    assert!(progress.connected.black && progress.started);
    // Lost while playing.
    rig.link(LinkEvent::Disconnected {
        reason: "cable pulled".into(),
    })
    .await;
    assert_eq!(rig.inputs().last(), Some(&(300, disconnected)));
    assert!(
        rig.transcript()
            .contains(&"note tactile board disconnected: cable pulled".to_string())
    );
    assert!(!rig.progress.borrow().connected.black);
    rig.stop().await;
}

#[tokio::test(start_paused = true)]
async fn the_tactile_boards_buttons_ask_his_requests_journaled_as_requests_only() {
    let folder = crate::store::scratch("buttons");
    let mut rig = Rig::new(&folder, Setup::default());
    start_and_play_e4(&mut rig).await;
    let inputs = rig.inputs();
    rig.told();
    // Button 4 is `repeat`: the last announcement to him, said again by the hub itself.
    rig.sensor(SensorEvent::Button(4)).await;
    let said = rig.said();
    assert_eq!(said.len(), 1, "{said:?}");
    let (own, audience, announcement) = said[0].clone();
    assert_eq!(
        (audience, announcement),
        (Audience::Player(Color::Black), e4())
    );
    assert!(own >= HUB_SPEECH_BASE, "the hub's own id: {own}");
    assert!(rig.told().iter().any(|b| b.text
        == format!(
            "button 4 (repeat): {}",
            pack().render(&e4(), Style::San).text
        )),);
    // Button 1 is `time`.
    rig.sensor(SensorEvent::Button(1)).await;
    let said = rig.said();
    assert!(
        matches!(said[..], [(id, Audience::Player(Color::Black), Announcement::Times { .. })] if id == own + 1),
        "{said:?}"
    );
    // Button 9 asks nothing, and he hears so: every press gets an answer (issue 26).
    rig.sensor(SensorEvent::Button(9)).await;
    let said = rig.said();
    assert!(
        matches!(
            said[..],
            [(
                _,
                Audience::Player(Color::Black),
                Announcement::ButtonUnassigned { number: 9 }
            )]
        ),
        "{said:?}"
    );
    assert_eq!(
        rendered(&Announcement::ButtonUnassigned { number: 9 }),
        "Taste neun nicht belegt"
    );
    assert!(
        rig.told()
            .iter()
            .any(|b| b.text == "button 9: Taste neun nicht belegt"),
        "his console shows it"
    );
    assert!(
        rig.transcript().contains(
            &"note tactile board: button 9 pressed; no request is set for it (key \
          boards.blind.buttons)"
                .to_string()
        )
    );
    // The hub's own announcements are no input when they end; the game did not change: what
    // the journal gained is the record of the two requests (F.9 d), by button.
    rig.finished(own).await;
    let after = rig.inputs();
    assert_eq!(after[..inputs.len()], inputs[..]);
    let asked: Vec<(AskedBy, String)> = after[inputs.len()..]
        .iter()
        .map(|(_, input)| match input {
            InputRecord::Request(r) => (r.by, r.asked.clone()),
            other => panic!("not a request: {other:?}"),
        })
        .collect();
    assert_eq!(
        asked,
        [
            (AskedBy::Button { number: 4 }, "repeat".to_string()),
            (AskedBy::Button { number: 1 }, "time".to_string())
        ]
    );
    rig.stop().await;
}

/// The announcements of what was handed to speech.
fn announcements(said: &[(u64, Audience, Announcement)]) -> Vec<(Audience, Announcement)> {
    said.iter().map(|(_, a, b)| (*a, b.clone())).collect()
}

/// His keypad speaks his language both ways (issue 26): his German words give the answers the
/// English ones give; every refusal is said to him, short, in his voice, and printed in his
/// words; his help lists only what he may do here, in German; none of it reaches the game.
#[tokio::test(start_paused = true)]
async fn his_keypad_speaks_his_language_and_no_refusal_is_silent() {
    use tactus_core::announce::Refusal;
    let folder = crate::store::scratch("keypad");
    let mut rig = Rig::new(&folder, Setup::default());
    start_and_play_e4(&mut rig).await;
    for (german, english) in [
        ("zug", "last"),
        ("letzter", "last"),
        ("anzahl", "count"),
        ("Züge alle", "moves all"),
        ("amzug", "turn"),
        ("feld e4", "square e4"),
        ("feld Eva2", "square e2"),
        ("reihe zwei", "rank 2"),
        ("linie Eva", "file e"),
        ("diagonale a1 h8", "diagonal a1 h8"),
        ("figuren meine springer", "pieces mine knight"),
        ("figuren Weiß Bauern", "pieces white pawn"),
        ("material", "material"),
        ("wiederholen", "repeat"),
        ("stopp", "stop"),
    ] {
        let theirs = rig.ok(Role::Player, english).await;
        let heard = announcements(&rig.said());
        let his = rig.ok(Role::Player, german).await;
        assert_eq!(his, theirs, "{german}");
        assert_eq!(announcements(&rig.said()), heard, "{german}");
    }
    rig.ok(Role::Player, "zeit").await;
    let said = rig.said();
    assert!(
        matches!(
            said[..],
            [(
                _,
                Audience::Player(Color::Black),
                Announcement::Times { .. }
            )]
        ),
        "{said:?}"
    );

    let inputs = rig.inputs();
    let refusals = [
        ("asdf", "Befehl unbekannt: asdf (hilfe)", Refusal::Unknown),
        ("Zet", "Befehl unbekannt: zet (zeit?)", Refusal::Unknown),
        ("press", "Befehl nicht erlaubt: press", Refusal::NotAllowed),
        ("pr", "Befehl nicht erlaubt: press", Refusal::NotAllowed),
        (
            "role assistant",
            "Befehl nicht erlaubt: role",
            Refusal::NotAllowed,
        ),
        (
            "hilfe press",
            "Befehl nicht erlaubt: press",
            Refusal::NotAllowed,
        ),
        ("feld x9", "Eingabe ungültig: feld FELD", Refusal::BadEntry),
        ("zeit bitte", "Eingabe ungültig: zeit", Refusal::BadEntry),
    ];
    for (line, printed, refusal) in refusals {
        assert_eq!(rig.refused(Role::Player, line).await, printed, "{line}");
        let said = rig.said();
        assert_eq!(
            announcements(&said),
            [(
                Audience::Player(Color::Black),
                Announcement::Refused(refusal)
            )],
            "{line}"
        );
        assert!(said[0].0 >= HUB_SPEECH_BASE, "the hub's own: {said:?}");
    }
    // A refusal of the hub's that said nothing to him is said too.
    let reply = rig.command(Role::Player, Command::Quit).await;
    assert_eq!(
        reply.end,
        End::Error("Jetzt nicht möglich: not a game command; nothing was done".into())
    );
    assert_eq!(
        announcements(&rig.said()),
        [(
            Audience::Player(Color::Black),
            Announcement::Refused(Refusal::NotNow)
        )]
    );
    // One that says why itself is not said twice: a training request in a game against a
    // person.
    rig.refused(Role::Player, "tipp").await;
    assert_eq!(
        announcements(&rig.said()),
        [(Audience::Player(Color::Black), Announcement::TrainingOnly)]
    );
    // Refusals change nothing in the game, and the transcript keeps why.
    assert_eq!(rig.inputs(), inputs);
    let transcript = rig.transcript();
    assert!(
        transcript.contains(
            &"note refused to the blind player (told him aloud): unknown command 'asdf'; type help for \
              the commands"
                .to_string()
        ),
        "{transcript:#?}"
    );

    // His help: what he may do in a game against a person, in German, whichever word he asks it
    // with; nothing of it is said.
    let help = rig.ok(Role::Player, "hilfe").await;
    assert_eq!(
        help,
        console::player_help(pack().commands(), false, None),
        "{help:#?}"
    );
    assert!(help.contains(&"zeit: verbrauchte und verbleibende Zeit beider Spieler".to_string()));
    for not_his in [
        "role", "login", "tipp", "hint", "zurück", "takeback", "status", "press",
    ] {
        assert!(
            !help.iter().any(|l| l.starts_with(not_his)),
            "{not_his}: {help:#?}"
        );
    }
    assert_eq!(rig.ok(Role::Player, "help").await, help);
    assert_eq!(rig.ok(Role::Player, "h").await, help);
    assert_eq!(
        rig.ok(Role::Player, "hilfe zug").await,
        ["zug (letzter): der letzte Zug"]
    );
    assert_eq!(rig.said(), vec![]);
    rig.stop().await;
}

/// Start, 1. e4 at 1 s (its announcement to the blind player never finishes), the tactile board
/// lost at 1.5 s; then the hub stops. Returns how it ended and the move's announcement id.
async fn play_until_cut_off(folder: &Folder) -> (HubEnd, u64) {
    let mut rig = Rig::new(folder, Setup::default());
    rig.start_play().await;
    sleep_ms(1_000).await;
    rig.ok(Role::Assistant, "move e4").await;
    rig.ok(Role::Assistant, "press").await;
    rig.verdicts().await;
    let id = rig
        .said()
        .into_iter()
        .find(|(_, _, a)| *a == e4())
        .expect("1. e4 said")
        .0;
    sleep_ms(500).await;
    rig.link(LinkEvent::Disconnected {
        reason: "power cut".into(),
    })
    .await;
    (rig.stop().await, id)
}

#[tokio::test(start_paused = true)]
async fn shutdown_leaves_the_record_on_disk() {
    let folder = crate::store::scratch("shutdown");
    let (end, _) = play_until_cut_off(&folder).await;
    assert!(!end.over);
    // White's clock ran from the start to the press at 1 s.
    assert!(
        end.pgn.trim_end().ends_with("\n1. e4 { [%clk 0:04:59] } *"),
        "{}",
        end.pgn
    );
    // The writer has finished: the files hold the game as the hub ended it.
    let pgn = std::fs::read_to_string(folder.join(files::PGN_FILE)).unwrap();
    assert_eq!(pgn, end.pgn);
    let text = std::fs::read_to_string(folder.join(files::TEXT_FILE)).unwrap();
    assert!(text.contains("e4"), "{text}");
}

#[tokio::test(start_paused = true)]
async fn a_resumed_game_pauses_the_clocks_and_says_again_only_what_happened() {
    let folder = crate::store::scratch("recovery");
    let (_, id) = play_until_cut_off(&folder).await;
    let inputs = journal::read(&folder.join(JOURNAL_FILE))
        .unwrap()
        .entries
        .iter()
        .filter(|e| matches!(e, Entry::Input { .. } | Entry::Table { .. }))
        .count();
    let mut rig = Rig::start(&folder, resumed_game(&folder), true);
    rig.settle().await;
    // The time line goes on from the journal's last input; the clocks stop (6.12).
    assert_eq!(rig.offset, 1_500);
    assert_eq!(
        rig.inputs().last(),
        Some(&(
            1_500,
            InputRecord::Rules {
                rules: RulesRecord::Pause
            }
        ))
    );
    assert!(
        rig.transcript().contains(&format!(
            "note game recovered from its journal ({inputs} inputs, 1 half-move played); \
             clocks paused (6.12): `resume` when both players are ready"
        )),
        "{:?}",
        rig.transcript()
    );
    // Both players hear that the game was recovered, whose move it is and that the clocks
    // stand, in that order (issue 15). The move cut off waits for the clocks; the lost board's
    // notice is stale and is not said again.
    let said = rig.said();
    let to_both: Vec<&Announcement> = said
        .iter()
        .filter(|(_, a, _)| *a == Audience::Both)
        .map(|(_, _, w)| w)
        .collect();
    assert_eq!(
        to_both,
        [
            &Announcement::GameRecovered,
            &Announcement::ToMove { side: Color::Black },
            &Announcement::ClocksPaused
        ]
    );
    assert!(
        said.iter().any(|(own, a, w)| *own >= HUB_SPEECH_BASE
            && (*a, w) == (Audience::Both, &Announcement::GameRecovered)),
        "{said:?}"
    );
    assert!(
        !said
            .iter()
            .any(|(_, _, w)| *w == e4() || matches!(w, Announcement::BoardDisconnected { .. })),
        "{said:?}"
    );
    let progress = rig.progress.borrow().clone();
    assert!(progress.paused && progress.started);
    // What is being said: the arbiter's notice that the clocks stand, and 1. e4 waiting.
    let paused = said
        .iter()
        .find(|(_, _, w)| *w == Announcement::ClocksPaused)
        .unwrap_or_else(|| panic!("{said:?}"))
        .0;
    assert_eq!(progress.speaking, 2);
    rig.finished(paused).await;
    assert_eq!(rig.progress.borrow().speaking, 1, "1. e4 waits to be said");
    // The arbiter resumes: 1. e4 is said again, with its own id, and its end counts.
    sleep_ms(2_000).await;
    rig.ok(Role::Arbiter, "resume").await;
    let said = rig.said();
    assert!(
        said.contains(&(id, Audience::Player(Color::Black), e4())),
        "{said:?}"
    );
    assert!(
        !said
            .iter()
            .any(|(_, _, w)| matches!(w, Announcement::BoardDisconnected { .. })),
        "{said:?}"
    );
    rig.finished(id).await;
    assert_eq!(
        rig.inputs().last(),
        Some(&(3_500, InputRecord::SpeechFinished { id }))
    );
    rig.stop().await;
}

/// Issue 26 point 2: `repeat` is the last thing said to him about the game that still holds.
/// A guidance for his board holds while the board is wrong: once he has put it right and moved,
/// `repeat` says his opponent's move again, not "Bauer steht auf David vier".
#[tokio::test(start_paused = true)]
async fn repeat_after_a_guidance_put_right_and_a_move_is_the_games_news() {
    let folder = crate::store::scratch("repeat");
    let mut rig = Rig::new(
        &folder,
        Setup {
            time_control: None,
            ..Setup::default()
        },
    );
    let id = start_and_play_e4(&mut rig).await;
    rig.finished(id).await;
    // What `repeat` says, part after part (the next once the last has been heard).
    let repeat = async |rig: &mut Rig| {
        rig.ok(Role::Player, "repeat").await;
        let mut heard = Vec::new();
        loop {
            let said = rig.said();
            if said.is_empty() {
                return heard;
            }
            for (id, audience, announcement) in said {
                assert_eq!(audience, Audience::Player(Color::Black));
                heard.push(announcement);
                rig.finished(id).await;
            }
        }
    };
    // He executes 1. e4 on his board.
    let lift_place = async |rig: &mut Rig, from: Square, to: Square| {
        rig.sensor(SensorEvent::Lift { square: from }).await;
        sleep_ms(100).await;
        rig.sensor(SensorEvent::Place {
            square: to,
            piece: None,
        })
        .await;
    };
    lift_place(&mut rig, Square::E2, Square::E4).await;
    assert_eq!(rig.said(), vec![]);
    assert_eq!(repeat(&mut rig).await, [e4()]);
    // His move: the d-pawn to d4, which it cannot reach. He is told the move is not possible,
    // and how to put his board right.
    lift_place(&mut rig, Square::D7, Square::D4).await;
    let guidance = Announcement::Guidance(Guidance::Misplaced {
        piece: Color::Black.pawn(),
        found: Square::D4,
        belongs: Square::D7,
    });
    let mut told = Vec::new();
    while told.len() < 2 {
        let (_, id, audience, announcement) = rig.next_said().await;
        assert_eq!(audience, Audience::Player(Color::Black));
        told.push(announcement);
        rig.finished(id).await;
    }
    assert_eq!(told, [Announcement::IllegalMove, guidance.clone()]);
    // While his board is wrong, that is what he hears again.
    assert_eq!(
        repeat(&mut rig).await,
        [Announcement::IllegalMove, guidance]
    );
    // He puts the pawn back: the guidance no longer holds.
    lift_place(&mut rig, Square::D4, Square::D7).await;
    assert_eq!(repeat(&mut rig).await, [e4()]);
    // And plays 1... d5: his own move said back is no news to him; White's move still is.
    lift_place(&mut rig, Square::D7, Square::D5).await;
    let said = rig.said();
    assert!(
        said.iter()
            .any(|(_, a, w)| *a == Audience::Player(Color::Black)
                && matches!(w, Announcement::OwnMove(_))),
        "{said:?}"
    );
    assert_eq!(repeat(&mut rig).await, [e4()]);
    rig.stop().await;
}

/// Issue 26 point 2: after a restart he hears the last move with the recovery words, and
/// `repeat` says them again.
#[tokio::test(start_paused = true)]
async fn a_resumed_game_tells_the_last_move_with_the_recovery_words() {
    let folder = crate::store::scratch("recovery-last");
    let mut rig = Rig::new(&folder, Setup::default());
    let id = start_and_play_e4(&mut rig).await;
    rig.finished(id).await;
    rig.stop().await;
    let mut rig = Rig::start(&folder, resumed_game(&folder), true);
    rig.settle().await;
    let words = vec![
        Announcement::GameRecovered,
        e4(),
        Announcement::ToMove { side: Color::Black },
        Announcement::ClocksPaused,
    ];
    let said = rig.said();
    assert_eq!(
        said.iter()
            .map(|(_, a, w)| (*a, w.clone()))
            .collect::<Vec<_>>(),
        words
            .iter()
            .map(|w| (Audience::Both, w.clone()))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        rig.ok(Role::Player, "repeat").await,
        words.iter().map(rendered).collect::<Vec<_>>()
    );
    rig.stop().await;
    // `tactus run` prints the same words.
    let again = resumed_game(&folder);
    assert_eq!(
        recovery_words(again.table.arbiter(), &BTreeMap::new()),
        words
    );
}

/// Issue 15, point 8: a long reply (moves read back, a list of pieces) is said one announcement
/// after the other, the next once the last has been heard, so that `stop` or any new request
/// cuts it between parts; `stop` silences the part being said when nothing of the game is.
#[tokio::test(start_paused = true)]
async fn a_long_reply_is_said_part_by_part_and_a_stop_or_a_new_request_cuts_it() {
    let folder = crate::store::scratch("reply-parts");
    let mut rig = Rig::new(&folder, Setup::default());
    let e4_id = start_and_play_e4(&mut rig).await;
    rig.finished(e4_id).await;
    rig.said();
    let kinds = |said: &[(u64, Audience, Announcement)]| -> Vec<shakmaty::Role> {
        said.iter()
            .map(|(_, audience, a)| match a {
                Announcement::PiecesOfKind { piece, .. }
                    if *audience == Audience::Player(Color::Black) =>
                {
                    piece.role
                }
                other => panic!("not a part of the reply: {other:?}"),
            })
            .collect()
    };
    // His army, kind by kind: the king first, alone.
    let body = rig.ok(Role::Player, "pieces black").await;
    assert_eq!(body.len(), 6, "printed whole: {body:?}");
    let said = rig.said();
    assert_eq!(kinds(&said), [shakmaty::Role::King]);
    // Heard: the queen next.
    rig.finished(said[0].0).await;
    let said = rig.said();
    assert_eq!(kinds(&said), [shakmaty::Role::Queen]);
    // `stop`: speech is told to be silent, and the rest never comes.
    rig.ok(Role::Player, "stop").await;
    let rx = rig.speech.as_mut().unwrap();
    assert!(
        matches!(
            rx.try_recv(),
            Ok(SpeechRequest::Stop {
                audience: Audience::Player(Color::Black)
            })
        ),
        "speech is stopped"
    );
    rig.speech_event(SpeechEvent::Finished {
        id: SpeechId(said[0].0),
        audience: Audience::Player(Color::Black),
        outcome: Spoken::Interrupted,
    })
    .await;
    assert!(rig.said().is_empty());
    // A new request cuts it as well: the answer to it is said, the rest of the list is not.
    rig.ok(Role::Player, "pieces black").await;
    let said = rig.said();
    assert_eq!(kinds(&said), [shakmaty::Role::King]);
    rig.ok(Role::Player, "turn").await;
    let turn = rig.said();
    assert!(
        matches!(
            turn[..],
            [(
                _,
                Audience::Player(Color::Black),
                Announcement::ToMove { .. }
            )]
        ),
        "{turn:?}"
    );
    rig.speech_event(SpeechEvent::Finished {
        id: SpeechId(said[0].0),
        audience: Audience::Player(Color::Black),
        outcome: Spoken::Replaced,
    })
    .await;
    rig.finished(turn[0].0).await;
    assert!(rig.said().is_empty());
    // Any key of his board cuts it too, one with no request set for it as well.
    rig.ok(Role::Player, "pieces black").await;
    let said = rig.said();
    assert_eq!(kinds(&said), [shakmaty::Role::King]);
    rig.sensor(SensorEvent::Button(7)).await;
    let rx = rig.speech.as_mut().unwrap();
    assert!(
        matches!(
            rx.try_recv(),
            Ok(SpeechRequest::Stop {
                audience: Audience::Player(Color::Black)
            })
        ),
        "speech is stopped"
    );
    // ... and says that it asks nothing (issue 26: every press gets an answer).
    let unassigned = rig.said();
    assert_eq!(
        announcements(&unassigned),
        [(
            Audience::Player(Color::Black),
            Announcement::ButtonUnassigned { number: 7 }
        )]
    );
    rig.finished(said[0].0).await;
    rig.finished(unassigned[0].0).await;
    assert!(rig.said().is_empty());
    // `repeat` is still the move he was told, not a reply.
    rig.ok(Role::Player, "repeat").await;
    let said = rig.said();
    assert!(
        matches!(&said[..], [(_, Audience::Player(Color::Black), a)] if *a == e4()),
        "{said:?}"
    );
    rig.stop().await;
}

/// Issue 22: the DGT clock shows the official clock from the start, and its lever is the press
/// of the player on the side it went down on: White's (left, the sighted player) completes his
/// move and starts Black's time; Black's (the blind player, his move counted when announced) is
/// harmless, refused to nobody.
#[tokio::test(start_paused = true)]
async fn the_table_clock_shows_the_official_clock_and_its_lever_is_the_press_of_its_side() {
    let folder = crate::store::scratch("table-clock");
    let mut rig = Rig::new(
        &folder,
        Setup {
            table_clock: true,
            ..Setup::default()
        },
    );
    rig.settle().await;
    let before = rig.clock_faces();
    assert_eq!(
        before.last().map(|f| (f.left_ms, f.right_ms, f.running)),
        Some((300_000, 300_000, None)),
        "{before:?}"
    );
    // The lever as the arbiter left it: down on Black's side (the right), high on the left.
    rig.lever(false).await;
    rig.start_play().await;
    let started = rig.clock_faces();
    assert_eq!(
        started.last().map(|f| f.running),
        Some(Some(ClockSide::Left)),
        "White's time runs on the left: {started:?}"
    );
    sleep_ms(4_000).await;
    rig.ok(Role::Assistant, "move e4").await;
    rig.told();
    // White presses his side (the left goes down): the lever goes high on the right. His move
    // counts.
    rig.lever(true).await;
    rig.verdicts().await;
    assert_eq!(rig.progress.borrow().ply, 1, "the lever completed e4");
    let pressed = rig.clock_faces();
    let last = pressed.last().copied().expect("a face after the press");
    assert_eq!(last.running, Some(ClockSide::Right), "{pressed:?}");
    assert_eq!(last.left_ms, 296_000, "White's 4 s off his time");
    assert_eq!(last.right_ms, 300_000);
    // The blind player (right) presses too: nothing counts, nobody is told off.
    rig.lever(false).await;
    let told = rig.told();
    assert!(
        told.iter()
            .all(|b| !b.text.contains("kein") && !b.text.starts_with("refused")),
        "{told:?}"
    );
    assert_eq!(rig.progress.borrow().ply, 1);
    assert!(
        rig.clock_faces()
            .iter()
            .all(|f| f.running == Some(ClockSide::Right)),
        "Black's time still runs"
    );
    // The blind player executes e4 and answers e5: the display shows his move.
    let said = rig.said();
    for (id, _, _) in &said {
        rig.finished(*id).await;
    }
    for (lift, place) in [(Square::E2, Square::E4), (Square::E7, Square::E5)] {
        rig.sensor(SensorEvent::Lift { square: lift }).await;
        rig.sensor(SensorEvent::Place {
            square: place,
            piece: None,
        })
        .await;
    }
    // Shown as it is said to the sighted player; it counts once said (F.3 c).
    assert_eq!(rig.clock_texts(), vec!["e5".to_string()]);
    for (id, _, _) in rig.said() {
        rig.finished(id).await;
    }
    rig.verdicts().await;
    assert_eq!(rig.progress.borrow().ply, 2, "e5 counted");
    rig.stop().await;
}

#[tokio::test(start_paused = true)]
async fn play_starts_only_at_the_arbiters_start_once_the_board_shows_the_position() {
    let folder = crate::store::scratch("start");
    let mut rig = Rig::new(&folder, Setup::default());
    rig.board_ready().await;
    // Ready, but nobody has started it: no clock runs, and no start is journaled.
    sleep_ms(10_000).await;
    rig.settle().await;
    assert!(
        !rig.inputs().iter().any(|(_, i)| *i == InputRecord::Start),
        "{:?}",
        rig.inputs()
    );
    assert!(!rig.progress.borrow().started);
    assert!(rig.progress.borrow().ready);
    let told = rig.told();
    assert!(
        told.iter().any(|b| b.text
            == "every board shows the starting position: `start` starts play and the clocks"),
        "{told:?}"
    );
    let status = rig.ok(Role::Arbiter, "status").await;
    assert!(
        status
            .iter()
            .any(|l| l.contains("clocks white 0:05:00 black 0:05:00 (stopped)")),
        "{status:?}"
    );
    assert!(
        status
            .iter()
            .any(|l| l == "in play (not started: the boards show the position; `start` starts it)"),
        "{status:?}"
    );
    assert!(rig.said().is_empty(), "nothing is said before the start");
    // The arbiter starts it: both players hear it, and White's clock runs from then.
    rig.ok(Role::Arbiter, "start").await;
    let said = rig.said();
    assert_eq!(
        said.iter()
            .map(|(_, a, w)| (*a, w.clone()))
            .collect::<Vec<_>>(),
        vec![(
            Audience::Both,
            Announcement::GameStarted { side: Color::White }
        )]
    );
    assert_eq!(rig.inputs().last(), Some(&(10_000, InputRecord::Start)));
    sleep_ms(4_000).await;
    let status = rig.ok(Role::Arbiter, "status").await;
    assert!(
        status
            .iter()
            .any(|l| l.contains("clocks white 0:04:56 black 0:05:00 (white running)")),
        "{status:?}"
    );
    rig.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_board_set_up_wrong_is_guided_and_start_waits_for_it_unless_anyway() {
    let folder = crate::store::scratch("setup-wrong");
    let mut rig = Rig::new(&folder, Setup::default());
    rig.link(LinkEvent::Connected {
        info: "test board".into(),
    })
    .await;
    // The white rook of a1 is missing from the tactile board.
    let mut occupied = Chess::default().board().occupied();
    occupied.discard(Square::A1);
    rig.sensor(SensorEvent::Snapshot(Sensed::Occupancy(occupied)))
        .await;
    // He is guided to the square (no "move not possible": nobody is to move yet), and no clock
    // runs.
    sleep_ms(2_000).await;
    rig.settle().await;
    let said: Vec<_> = rig.said().into_iter().map(|(_, a, w)| (a, w)).collect();
    let rook = shakmaty::Piece {
        color: Color::White,
        role: shakmaty::Role::Rook,
    };
    assert_eq!(
        said,
        vec![(
            Audience::Player(Color::Black),
            Announcement::Guidance(Guidance::Missing {
                square: Square::A1,
                piece: rook
            })
        )]
    );
    let reply = rig.console(Role::Arbiter, "start").await;
    assert_eq!(
        reply.end,
        End::Error(
            "play does not start yet: the tactile board differs from the position on 1 square: \
             a1; the board is guided to the position (or the arbiter's `start anyway` starts it \
             as it stands)"
                .into()
        )
    );
    assert!(!rig.progress.borrow().started);
    assert!(!rig.inputs().iter().any(|(_, i)| *i == InputRecord::Start));
    let status = rig.ok(Role::Arbiter, "status").await;
    assert!(
        status.iter().any(|l| l
            == "in play (not started: the tactile board differs from the position on 1 square: a1)"),
        "{status:?}"
    );
    // He puts the rook in: the table is ready and the arbiter is told so; `start` starts it.
    rig.told();
    rig.sensor(SensorEvent::Place {
        square: Square::A1,
        piece: None,
    })
    .await;
    assert!(rig.told().iter().any(|b| {
        b.text
            .starts_with("every board shows the starting position")
    }),);
    rig.ok(Role::Arbiter, "start").await;
    assert!(rig.progress.borrow().started);
    rig.stop().await;

    // A sensor that cannot be mended before the round: `start anyway`, noted for the record.
    let folder = crate::store::scratch("setup-anyway");
    let mut rig = Rig::new(&folder, Setup::default());
    rig.link(LinkEvent::Connected {
        info: "test board".into(),
    })
    .await;
    rig.sensor(SensorEvent::Snapshot(Sensed::Occupancy(occupied)))
        .await;
    rig.told();
    rig.ok(Role::Arbiter, "start anyway").await;
    assert!(rig.progress.borrow().started);
    let note = "arbiter starts play although the tactile board differs from the position on 1 \
                square: a1";
    assert!(
        rig.transcript().contains(&format!("note {note}")),
        "{:?}",
        rig.transcript()
    );
    rig.stop().await;
}

/// Plays quiet moves (no capture): for each pair, White's SAN typed and pressed, then on the
/// blind player's board White's move executed and Black's made (each as lift and place); every
/// announcement is reported said.
async fn play_pairs(rig: &mut Rig, pairs: &[(&str, [Square; 2], [Square; 2])]) {
    for (white, executed, own) in pairs {
        let ply = rig.progress.borrow().ply;
        rig.ok(Role::Assistant, &format!("move {white}")).await;
        rig.ok(Role::Assistant, "press").await;
        for (id, _, _) in rig.said() {
            rig.finished(id).await;
        }
        for [lift, place] in [executed, own] {
            rig.sensor(SensorEvent::Lift { square: *lift }).await;
            rig.sensor(SensorEvent::Place {
                square: *place,
                piece: None,
            })
            .await;
        }
        for (id, _, _) in rig.said() {
            rig.finished(id).await;
        }
        rig.verdicts().await;
        assert_eq!(rig.progress.borrow().ply, ply + 2, "{white} and the reply");
    }
}

/// The blind player's Braille score of `sans` from the start, as the record writer writes
/// `blind-score.txt` (Unicode Braille: a header, the separation line, the moves, the page's
/// form feed), with the table's profile.
fn braille_score(sans: &str) -> String {
    use tactus_core::record::{
        format::{Format, render},
        score::{Score, ScoreMove},
    };
    let mut score = Score::new(Chess::default());
    score.tags = tags();
    let mut pos = Chess::default();
    for san in sans.split_whitespace() {
        let mv = tactus_core::rules::notation::match_move(&pos, san).unwrap();
        score.moves.push(ScoreMove {
            mv,
            clock_ms: None,
            draw_offer: false,
        });
        pos.play_unchecked(mv);
    }
    let opts =
        crate::config::braille_options(tactus_core::record::braille::DEFAULT_PROFILE, 40, 25)
            .unwrap();
    render(&score, Format::Braille, &opts).unwrap()
}

/// The scoresheets the arbiter entered so far, as journaled: (side, moves).
fn sheets_journaled(rig: &Rig) -> Vec<(tactus_core::journal::ColorRecord, Vec<String>)> {
    rig.inputs()
        .into_iter()
        .filter_map(|(_, input)| match input {
            InputRecord::Scoresheet { side, sans } => Some((side, sans)),
            _ => None,
        })
        .collect()
}

/// F.8: the blind player's scoresheet in Braille, cells copied from his `blind-score.txt`, is
/// read at the arbiter's console with the table's Braille profile from the game's start, shown
/// to the arbiter in SAN, and compared with the record move by move as a written sheet is: one
/// line typed after `scoresheet black`, or the whole file pasted after `scoresheet black
/// braille` and closed with `end`. A sheet that does not read says where and why, and nothing
/// is compared or journaled.
#[tokio::test(start_paused = true)]
async fn f8_a_braille_scoresheet_is_read_at_the_console() {
    use Square::*;
    let folder = crate::store::scratch("braille-sheet");
    let mut rig = Rig::new(&folder, Setup::default());
    rig.start_play().await;
    play_pairs(
        &mut rig,
        &[("e4", [E2, E4], [E7, E5]), ("Nf3", [G1, F3], [B8, C6])],
    )
    .await;

    // His own score agrees: one line of cells, as the file has it after the header.
    let file = braille_score("e4 e5 Nf3 Nc6");
    let lines: Vec<&str> = file.lines().collect();
    let separator = lines
        .iter()
        .position(|l| !l.is_empty() && l.chars().all(|c| c == '⠒'))
        .expect("a separation line under the header");
    let cells = lines[separator + 1];
    assert!(
        cells.chars().all(|c| c == ' ' || console::is_braille(c)),
        "{cells}"
    );
    let body = rig
        .ok(Role::Arbiter, &format!("scoresheet black {cells}"))
        .await;
    assert_eq!(
        body[0],
        "black's scoresheet in Unicode Braille reads (4 half-moves): 1. e4 e5 2. Nf3 Nc6"
    );
    assert!(
        body.iter()
            .any(|l| l == "black's scoresheet agrees with the record (4 half-moves)"),
        "{body:?}"
    );

    // Another score, the whole file pasted (header and page end included): it parts from the
    // record at 2... Nf6, which the comparison names.
    let file = braille_score("e4 e5 Nf3 Nf6");
    let mut session = console::Session::new(Role::Arbiter, None);
    let mut body = Vec::new();
    for line in std::iter::once("scoresheet black braille")
        .chain(file.split('\n'))
        .chain(["end"])
    {
        match session.parse(line) {
            Ok(console::Command::Paste(_)) => {}
            Ok(command) => {
                let reply = rig.command(Role::Arbiter, command).await;
                assert_eq!(reply.end, End::Ok(String::new()), "{reply:?}");
                body = reply.body;
            }
            Err(e) => panic!("{line:?}: {e}"),
        }
    }
    assert_eq!(
        body[0],
        "black's scoresheet in Unicode Braille reads (4 half-moves): 1. e4 e5 2. Nf3 Nf6"
    );
    assert!(
        body.iter()
            .any(|l| l.contains("differs from the record at 2... 'Nf6'")
                && l.contains("the record has 2... Nc6")),
        "{body:?}"
    );
    use tactus_core::journal::ColorRecord::Black;
    let words = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
    assert_eq!(
        sheets_journaled(&rig),
        [
            (Black, words("e4 e5 Nf3 Nc6")),
            (Black, words("e4 e5 Nf3 Nf6"))
        ]
    );

    // A sheet that does not read: which move, the cells as written, why; nothing compared.
    let reply = rig
        .console(Role::Arbiter, "scoresheet black brf 1 E4 E5 2 SF9")
        .await;
    let End::Error(e) = &reply.end else {
        panic!("read: {reply:?}")
    };
    assert!(
        e.contains("'SF9': move 2.: not a move in the 'ukaaf' Braille chess notation")
            && e.ends_with("nothing was compared"),
        "{e}"
    );
    assert!(reply.body.is_empty(), "{reply:?}");
    assert_eq!(sheets_journaled(&rig).len(), 2, "nothing journaled");
    assert_eq!(rig.progress.borrow().ply, 4, "the game as it was");
    rig.stop().await;
}

/// 12.3 a leaves it to the arbiter whether the players may ask where the pieces stand and how
/// the material stands. `requests material off`: the blind player's `material`, from his keypad,
/// his board's button or his assistant's `tell`, is answered aloud and on the console that the
/// arbiter switched it off (never silence); the assistant's own question is refused too, the
/// arbiter's is answered; `pieces` stays on. `status` shows the switches, the transcript and
/// the journal note them, and a resumed game keeps them.
#[tokio::test(start_paused = true)]
async fn art_12_3_a_the_arbiter_switches_off_material_requests() {
    let folder = crate::store::scratch("requests-off");
    let mut rig = Rig::new(&folder, Setup::default());
    start_and_play_e4(&mut rig).await;
    // While every request is on, `status` does not mention them; `requests` says so.
    let status = rig.ok(Role::Assistant, "status").await;
    assert!(
        !status.iter().any(|l| l.starts_with("requests")),
        "{status:?}"
    );
    assert_eq!(
        rig.ok(Role::Arbiter, "requests").await,
        ["requests material on, pieces on (12.3 a: the arbiter's to switch)"]
    );
    // His keypad asks and is answered, before the switch.
    let reply = rig.console(Role::Player, "material").await;
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    rig.said();

    let body = rig.ok(Role::Arbiter, "requests material off").await;
    assert_eq!(
        body,
        [
            "the arbiter switched the players' 'material' request off (12.3 a)",
            "requests material off, pieces on (12.3 a: the arbiter's to switch)",
        ]
    );
    for role in [Role::Assistant, Role::Arbiter] {
        let status = rig.ok(role, "status").await;
        assert!(
            status.contains(
                &"requests material off, pieces on (12.3 a: the arbiter's to switch)".to_string()
            ),
            "{status:?}"
        );
    }
    let heard = rendered(&Announcement::RequestSwitchedOff);
    assert_eq!(heard, "Anfrage vom Schiedsrichter abgeschaltet");

    // His keypad: refused, in the words he hears.
    let reply = rig.console(Role::Player, "material").await;
    assert_eq!(
        reply.end,
        End::Error(format!("{heard} (material, 12.3 a)")),
        "{reply:?}"
    );
    let said: Vec<_> = rig.said().into_iter().map(|(_, a, s)| (a, s)).collect();
    assert_eq!(
        said,
        [(
            Audience::Player(Color::Black),
            Announcement::RequestSwitchedOff
        )]
    );
    // His board's button 3 (`material`).
    rig.told();
    rig.sensor(SensorEvent::Button(3)).await;
    let said: Vec<_> = rig.said().into_iter().map(|(_, a, s)| (a, s)).collect();
    assert_eq!(
        said,
        [(
            Audience::Player(Color::Black),
            Announcement::RequestSwitchedOff
        )]
    );
    assert!(
        rig.told()
            .iter()
            .any(|b| b.text.starts_with("button 3 (material)") && b.text.contains(&heard)),
        "the consoles see the button's refusal"
    );
    // His assistant passes the question on: refused, said to him.
    let reply = rig.console(Role::Assistant, "tell material").await;
    let End::Error(e) = &reply.end else {
        panic!("answered: {reply:?}")
    };
    assert!(
        e.contains("'material' is switched off by the arbiter (12.3 a)") && e.contains(&heard),
        "{e}"
    );
    assert_eq!(rig.said().len(), 1);
    // The assistant's own question: refused on his console only.
    let reply = rig.console(Role::Assistant, "material").await;
    let End::Error(e) = &reply.end else {
        panic!("answered: {reply:?}")
    };
    assert!(e.contains("`requests material on`"), "{e}");
    assert!(rig.said().is_empty());
    // The arbiter's own question is answered; `pieces` is still on.
    let reply = rig.console(Role::Arbiter, "material").await;
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    let reply = rig.console(Role::Player, "pieces mine knight").await;
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    rig.said();
    // Switching it off again changes nothing.
    let body = rig.ok(Role::Arbiter, "requests material off").await;
    assert!(body[0].starts_with("'material' is already off"), "{body:?}");

    // The transcript and the journal: the switch, and each refusal as a request answered.
    assert!(
        rig.transcript().contains(
            &"note the arbiter switched the players' 'material' request off (12.3 a)".to_string()
        ),
        "{:?}",
        rig.transcript()
    );
    let switches = rig.switches();
    assert_eq!(switches.len(), 1, "{switches:?}");

    // A restart: the game comes back from its journal with material still off.
    rig.stop().await;
    let begin = resumed_game(&folder);
    assert_eq!(
        begin.table.requests_off(),
        &BTreeSet::from([Switchable::Material])
    );
    let mut rig = Rig::start(&folder, begin, true);
    rig.settle().await;
    rig.said();
    let reply = rig.console(Role::Player, "material").await;
    assert!(matches!(reply.end, End::Error(_)), "{reply:?}");
    let status = rig.ok(Role::Arbiter, "status").await;
    assert!(
        status
            .iter()
            .any(|l| l.starts_with("requests material off")),
        "{status:?}"
    );
    let body = rig.ok(Role::Arbiter, "requests material on").await;
    assert_eq!(
        body[1],
        "requests material on, pieces on (12.3 a: the arbiter's to switch)"
    );
    rig.said();
    let reply = rig.console(Role::Player, "material").await;
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    rig.stop().await;
}

/// Issue 25 point 9: a board's fault line with a terminal escape (`E <ESC>]0;owned<BEL>`) reaches
/// the transcript, the log and the consoles escaped, never raw.
#[tokio::test(start_paused = true)]
async fn a_boards_fault_text_reaches_the_transcript_escaped() {
    let folder = crate::store::scratch("fault-escape");
    let rig = Rig::new(&folder, Setup::default());
    rig.board_ready().await;
    rig.link(LinkEvent::BoardFault {
        text: "sensor \u{1b}]0;owned\u{7}stuck".into(),
    })
    .await;
    sleep_ms(10).await;
    let transcript = std::fs::read_to_string(rig.dir.join(files::TRANSCRIPT_FILE)).unwrap();
    assert!(
        !transcript.contains('\u{1b}') && !transcript.contains('\u{7}'),
        "{transcript:?}"
    );
    assert!(
        transcript.contains("reports: sensor \\x1b]0;owned\\x07stuck"),
        "{transcript}"
    );
}

/// Training: the engine gone stops the clocks by the arbiter's pause for the engine, whose words
/// say it ("Gegner antwortet nicht, Uhren angehalten"): once, not followed by his ordinary
/// "Uhren angehalten" (the hub said the engine's absence beside the ordinary pause, so the
/// trainee heard the clocks stop twice). Its return is said by the resumption, before "Uhren
/// laufen wieder"; the journal has the pause for the engine, and replays to the same words.
#[tokio::test(start_paused = true)]
async fn a_training_engine_gone_is_said_once_with_the_clocks_stopping_and_its_return() {
    use crate::daemon::engine::{EngineEvent, EngineRequest};
    let folder = crate::store::scratch("engine-gone");
    let setup = Setup {
        engine: true,
        ..Setup::default()
    };
    let mut rig = Rig::new(&folder, setup);
    rig.start_play().await;
    rig.send(HubMsg::Engine(EngineEvent::Up {
        name: "fake".into(),
    }))
    .await;
    rig.settle().await;
    assert_eq!(rig.said(), [], "an engine up at the start is no news");
    // Its move is asked of it (with the hub's next step: the clocks' heartbeat here).
    sleep_ms(2_000).await;
    let asked = rig.engine.as_mut().unwrap().try_recv();
    assert!(
        matches!(asked, Ok(EngineRequest::Search(_))),
        "its move is asked of it: {asked:?}"
    );
    rig.send(HubMsg::Engine(EngineEvent::Down {
        reason: "the engine exited".into(),
        restart_in: Some(Duration::from_secs(1)),
    }))
    .await;
    rig.settle().await;
    let said: Vec<_> = rig.said().into_iter().map(|(_, a, s)| (a, s)).collect();
    assert_eq!(said, [(Audience::Both, Announcement::OpponentAway)]);
    assert_eq!(
        rendered(&Announcement::OpponentAway),
        "Gegner antwortet nicht, Uhren angehalten"
    );
    sleep_ms(5_000).await;
    rig.send(HubMsg::Engine(EngineEvent::Up {
        name: "fake".into(),
    }))
    .await;
    rig.settle().await;
    let said: Vec<_> = rig.said().into_iter().map(|(_, a, s)| (a, s)).collect();
    assert_eq!(
        said,
        [
            (Audience::Both, Announcement::OpponentBack),
            (Audience::Both, Announcement::ClocksResumed)
        ]
    );
    rig.stop().await;

    let read = journal::read(&folder.join(JOURNAL_FILE)).unwrap();
    let rules = journaled_rules(&read);
    assert!(
        rules.iter().any(|r| r == "PauseFor { reason: Opponent }")
            && rules.iter().any(|r| r == "ResumeFor { reason: Opponent }"),
        "{rules:?}"
    );
    let (words, replayed) = replay_saying(&read);
    let away = words
        .iter()
        .position(|w| *w == Announcement::OpponentAway)
        .unwrap_or_else(|| panic!("{words:?}"));
    assert_eq!(
        words[away + 1..away + 3],
        [Announcement::OpponentBack, Announcement::ClocksResumed],
        "{words:?}"
    );
    assert!(!words.contains(&Announcement::ClocksPaused), "{words:?}");
    let white = replayed
        .table
        .game()
        .clock()
        .unwrap()
        .remaining(Color::White, replayed.last_time);
    assert!(
        white > 300_000 - 2_000 - 1_000,
        "White's clock ran while the engine was away: {white}"
    );
}

/// Issue 25, point 3: after the disk went read-only, six half-moves were counted in memory
/// only, the players were told nothing, and a restart resumed the game six moves short. Now an
/// input the journal cannot take is not applied: the clocks stop, both players hear why, a
/// console's command is refused with the reason, `status` shows the halt; when the disk takes
/// the journal again, both hear so, the clocks run again, and the journal holds the pause and
/// the resumption where the table had them (no one's time ran meanwhile).
#[tokio::test(start_paused = true)]
async fn no_move_counts_that_is_not_on_disk_play_halts_and_goes_on_when_it_is_written() {
    use std::sync::{Arc, atomic::AtomicUsize};
    let folder = crate::store::scratch("halt");
    let mut begin = new_game(&folder, Setup::default());
    let path = folder.join(JOURNAL_FILE);
    // The disk takes every line, then none (full) until it takes every line again.
    let room = Arc::new(AtomicUsize::new(usize::MAX));
    begin.journal = Journal::append_with(
        &journal::read(&path).unwrap(),
        Box::new(RationedDisk {
            file: std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap(),
            left: room.clone(),
        }),
    );
    let mut rig = Rig::start_with(&folder, begin, Setup::default());
    rig.start_play().await;
    rig.said();
    rig.told();

    room.store(0, Ordering::SeqCst);
    let reply = rig.console(Role::Assistant, "move e4").await;
    let End::Error(e) = &reply.end else {
        panic!("the move was taken without its journal: {reply:?}")
    };
    assert!(e.contains("play is halted") && e.contains("journal"), "{e}");
    let said: Vec<_> = rig.said().into_iter().map(|(_, a, s)| (a, s)).collect();
    assert_eq!(said, [(Audience::Both, Announcement::RecordingHalted)]);
    assert_eq!(
        rendered(&Announcement::RecordingHalted),
        "Aufzeichnung gestört, Uhren angehalten"
    );
    assert!(
        rig.told().iter().any(|b| b.text.contains("Play is halted")),
        "the staff are told"
    );
    sleep_ms(3_000).await;
    let status = rig.ok(Role::Arbiter, "status").await;
    assert!(
        status.iter().any(|l| l.starts_with("PLAY HALTED")),
        "{status:?}"
    );
    assert_eq!(rig.progress.borrow().ply, 0, "nothing counted");
    let reply = rig.console(Role::Assistant, "press").await;
    assert!(matches!(reply.end, End::Error(_)), "{reply:?}");

    // The disk takes the journal again: play goes on by itself, and both hear so.
    room.store(usize::MAX, Ordering::SeqCst);
    sleep_ms(1_100).await;
    let said: Vec<_> = rig.said().into_iter().map(|(_, a, s)| (a, s)).collect();
    assert!(
        said.contains(&(Audience::Both, Announcement::RecordingRestored))
            && said.contains(&(Audience::Both, Announcement::ClocksResumed)),
        "{said:?}"
    );
    let status = rig.ok(Role::Arbiter, "status").await;
    assert!(
        !status.iter().any(|l| l.starts_with("PLAY HALTED")),
        "{status:?}"
    );
    rig.ok(Role::Assistant, "move e4").await;
    rig.ok(Role::Assistant, "press").await;
    assert_eq!(rig.progress.borrow().ply, 1);
    rig.stop().await;

    // The journal has the pause and the resumption, for the recording; replayed, it is the game
    // as played, it says what the table said, and White's clock did not run while play was
    // halted.
    let read = journal::read(&path).unwrap();
    let rules = journaled_rules(&read);
    assert!(
        rules.iter().any(|r| r == "PauseFor { reason: Recording }")
            && rules.iter().any(|r| r == "ResumeFor { reason: Recording }"),
        "{rules:?}"
    );
    let (words, replayed) = replay_saying(&read);
    let halted = words
        .iter()
        .position(|w| *w == Announcement::RecordingHalted)
        .unwrap_or_else(|| panic!("{words:?}"));
    assert_eq!(
        words[halted + 1..halted + 3],
        [Announcement::RecordingRestored, Announcement::ClocksResumed],
        "{words:?}"
    );
    assert!(!words.contains(&Announcement::ClocksPaused), "{words:?}");
    let game = replayed.table.game();
    assert_eq!(game.ply(), 1);
    let white = game
        .clock()
        .unwrap()
        .remaining(Color::White, replayed.last_time);
    assert!(white > 299_000, "White's clock ran while halted: {white}");
}

/// A journal's disk that takes `left` more lines, then fails (full again) until `left` is
/// raised; `usize::MAX`: every line.
#[derive(Debug)]
struct RationedDisk {
    file: std::fs::File,
    left: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl journal::Sink for RationedDisk {
    fn append(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let taken = self
            .left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| match n {
                0 => None,
                usize::MAX => Some(n),
                n => Some(n - 1),
            });
        if taken.is_err() {
            return Err(std::io::Error::from_raw_os_error(28)); // ENOSPC
        }
        std::io::Write::write_all(&mut self.file, bytes)
    }

    fn sync(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn cut(&mut self, len: u64) -> std::io::Result<()> {
        self.file.set_len(len)
    }
}

/// The disk takes the halt's held pause and is full again at once, refusing the resumption
/// that ends the halt: play halts again with the clocks still stopped by the first halt, and
/// when the disk takes lines again the players hear once that the recording works and the
/// clocks run (the refused resumption does not wait in the queue to say it a second time).
#[tokio::test(start_paused = true)]
async fn a_halt_whose_resumption_the_journal_refuses_ends_once() {
    use std::sync::{Arc, atomic::AtomicUsize};
    let folder = crate::store::scratch("halt-twice");
    let mut begin = new_game(&folder, Setup::default());
    let path = folder.join(JOURNAL_FILE);
    let left = Arc::new(AtomicUsize::new(usize::MAX));
    begin.journal = Journal::append_with(
        &journal::read(&path).unwrap(),
        Box::new(RationedDisk {
            file: std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap(),
            left: left.clone(),
        }),
    );
    let mut rig = Rig::start_with(&folder, begin, Setup::default());
    rig.start_play().await;
    rig.said();

    // Full: the move halts play. Then room for one line: the held pause, not the resumption.
    left.store(0, Ordering::SeqCst);
    let reply = rig.console(Role::Assistant, "move e4").await;
    assert!(matches!(reply.end, End::Error(_)), "{reply:?}");
    left.store(1, Ordering::SeqCst);
    sleep_ms(1_100).await;
    let said: Vec<_> = rig.said().into_iter().map(|(_, _, s)| s).collect();
    assert_eq!(
        said,
        [Announcement::RecordingHalted, Announcement::RecordingHalted],
        "the halt, and the halt again"
    );
    assert!(rig.progress.borrow().paused, "the clocks stay stopped");

    left.store(usize::MAX, Ordering::SeqCst);
    sleep_ms(1_100).await;
    let said: Vec<_> = rig.said().into_iter().map(|(_, _, s)| s).collect();
    assert_eq!(
        said,
        [Announcement::RecordingRestored, Announcement::ClocksResumed]
    );
    assert!(!rig.progress.borrow().paused, "the clocks run again");
    rig.ok(Role::Assistant, "move e4").await;
    rig.stop().await;

    let read = journal::read(&path).unwrap();
    let rules = journaled_rules(&read);
    assert_eq!(
        rules,
        [
            "PauseFor { reason: Recording }",
            "ResumeFor { reason: Recording }"
        ]
    );
}

/// A journal's disk that stalls (a busy SD card, a frozen file system) while its gate is shut:
/// its `fsync` waits until the gate opens.
#[derive(Debug)]
struct StallingDisk {
    file: std::fs::File,
    gate: std::sync::Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>,
}

impl journal::Sink for StallingDisk {
    fn append(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        std::io::Write::write_all(&mut self.file, bytes)
    }

    fn sync(&mut self) -> std::io::Result<()> {
        let (shut, opened) = &*self.gate;
        let mut shut = shut.lock().unwrap();
        while *shut {
            shut = opened.wait(shut).unwrap();
        }
        Ok(())
    }

    fn cut(&mut self, len: u64) -> std::io::Result<()> {
        self.file.set_len(len)
    }
}

/// Issue 25, point 5: during a 12 s freeze of the file system no console reply and no
/// announcement came: the hub waited in `fsync`. The journal's disk is behind a thread now: the
/// hub waits for it a moment ([`journal::STALL`]; shorter here), then applies the input the
/// disk holds, stops the clocks, tells both players, and answers the consoles while the disk
/// sleeps; when it wakes, play goes on and the journal has the game in the table's order.
#[tokio::test(start_paused = true)]
async fn a_stalled_disk_does_not_freeze_the_table() {
    use std::sync::{Arc, Condvar, Mutex};
    let folder = crate::store::scratch("stall");
    let mut begin = new_game(&folder, Setup::default());
    let path = folder.join(JOURNAL_FILE);
    let gate = Arc::new((Mutex::new(false), Condvar::new()));
    begin.journal = Journal::append_with(
        &journal::read(&path).unwrap(),
        Box::new(journal::Behind::spawn(
            Box::new(StallingDisk {
                file: std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap(),
                gate: gate.clone(),
            }),
            None,
            Duration::from_millis(300),
        )),
    );
    let mut rig = Rig::start_with(&folder, begin, Setup::default());
    rig.start_play().await;
    rig.said();
    rig.told();

    // The disk freezes for 3 s of real time.
    *gate.0.lock().unwrap() = true;
    let wake = {
        let gate = gate.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(3));
            *gate.0.lock().unwrap() = false;
            gate.1.notify_all();
        })
    };
    rig.ok(Role::Assistant, "move e4").await;
    let said: Vec<_> = rig.said().into_iter().map(|(_, a, s)| (a, s)).collect();
    assert_eq!(said, [(Audience::Both, Announcement::RecordingHalted)]);
    let status = rig.ok(Role::Arbiter, "status").await;
    assert!(
        *gate.0.lock().unwrap(),
        "answered only after the disk woke: the table froze"
    );
    assert!(
        status.iter().any(|l| l.starts_with("PLAY HALTED")),
        "{status:?}"
    );
    let reply = rig.console(Role::Assistant, "press").await;
    assert!(matches!(reply.end, End::Error(_)), "{reply:?}");

    wake.join().unwrap();
    // The writer thread finishes its sync in real time while the hub's time is paused: the
    // hub's retries (once a second of its time) go on until the disk has it, within 10 s real.
    let woke = std::time::Instant::now();
    let mut said = Vec::new();
    while !said.contains(&(Audience::Both, Announcement::RecordingRestored))
        && woke.elapsed() < Duration::from_secs(10)
    {
        sleep_ms(100).await;
        std::thread::sleep(Duration::from_millis(10));
        said.extend(rig.said().into_iter().map(|(_, a, s)| (a, s)));
    }
    assert!(
        said.contains(&(Audience::Both, Announcement::RecordingRestored)),
        "{said:?}"
    );
    rig.ok(Role::Assistant, "press").await;
    assert_eq!(rig.progress.borrow().ply, 1);
    rig.stop().await;

    let read = journal::read(&path).unwrap();
    let kinds: Vec<String> = replayed_inputs(&read)
        .into_iter()
        .filter_map(|(_, input)| match input {
            InputRecord::Rules { rules } => Some(format!("{rules:?}")),
            InputRecord::EnterMove { .. } => Some("EnterMove".into()),
            InputRecord::ClockPress => Some("ClockPress".into()),
            _ => None,
        })
        .collect();
    let at = |k: &str| kinds.iter().position(|x| x == k).unwrap_or(usize::MAX);
    let (pause, resume) = (
        "PauseFor { reason: Recording }",
        "ResumeFor { reason: Recording }",
    );
    assert!(
        at("EnterMove") < at(pause) && at(pause) < at(resume) && at(resume) < at("ClockPress"),
        "the journal's order is the table's: {kinds:?}"
    );
    let replayed = replay(&read, wording(), |_, _| {}).unwrap();
    assert_eq!(replayed.table.game().ply(), 1);
}

/// Issue 25, point 7: a chattering board grew the journal and the transcript without bound
/// (5,000 presses of a stuck button: 2.2 MB each). Its presses are cut down to a player's rate
/// before anything of them is journaled, said or written: four at once, then four a second;
/// what is dropped is noted once a second with its count. Piece events likewise, and the board
/// is then read whole again.
#[tokio::test(start_paused = true)]
async fn a_chattering_board_is_cut_down_before_the_journal() {
    let folder = crate::store::scratch("chatter");
    let mut rig = Rig::new(&folder, Setup::default());
    rig.start_play().await;
    let journaled = || {
        journal::read(&folder.join(JOURNAL_FILE))
            .unwrap()
            .entries
            .len()
    };
    let before = journaled();
    for _ in 0..5_000 {
        rig.sensor(SensorEvent::Button(1)).await;
    }
    rig.settle().await;
    let requests = journaled() - before;
    assert!(
        requests <= 4,
        "{requests} presses journaled of 5,000 at once"
    );
    let transcript = rig.transcript();
    let ignored: Vec<_> = transcript
        .iter()
        .filter(|l| l.contains("button presses ignored"))
        .collect();
    assert_eq!(ignored.len(), 1, "noted once: {ignored:?}");
    assert!(
        transcript.len() < 40,
        "{} transcript lines",
        transcript.len()
    );
    // A second later the count of the rest is noted with the next dropped one.
    sleep_ms(1_000).await;
    for _ in 0..10 {
        rig.sensor(SensorEvent::Button(1)).await;
    }
    rig.settle().await;
    assert!(
        rig.transcript()
            .iter()
            .any(|l| l.contains("4995 more like it")),
        "{:?}",
        rig.transcript()
    );
    // A toggling sensor: the piece events are cut down too, and the board is read again.
    while rig.commands.try_recv().is_ok() {}
    let before = journaled();
    for _ in 0..1_000 {
        rig.sensor(SensorEvent::Lift { square: Square::A7 }).await;
        rig.sensor(SensorEvent::Place {
            square: Square::A7,
            piece: None,
        })
        .await;
    }
    sleep_ms(200).await;
    rig.sensor(SensorEvent::Lift { square: Square::A7 }).await;
    rig.settle().await;
    let events = journaled() - before;
    assert!(events <= 70, "{events} piece events journaled of 2,001");
    assert!(
        std::iter::from_fn(|| rig.commands.try_recv().ok())
            .any(|c| c == LinkCommand::RequestSnapshot),
        "the board is read whole again"
    );
    rig.stop().await;
}
