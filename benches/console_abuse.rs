//! Console abuse benchmark: the game's own latency from the sighted player's clock press at the
//! console to the announcement of his move to the blind player, without and with abusive
//! console clients.
//!
//! The daemon runs in this process (`tactus::daemon::run` on a two-worker runtime, as the
//! daemon's own): the blind player Black on a simulated pegged board (the shipped `pegged-line`
//! profile, his hands twenty times faster than a human's), the sighted player White on a manual
//! board whose moves are typed on a clean console connection (`move X`, then `press`). A second
//! clean connection watches; the latency of a move is from just before `press` is written to the
//! instant the watcher has read the event line `# said to blind: <move>` (the hub broadcasts it
//! when it hands the announcement to speech). The `press` reply's round trip is shown too.
//!
//! The abusers, all at once, from the start to the end of the game: 200 connections opened at
//! once and never read; a client writing lines of 1 MiB (then `status`) every 50 ms; one
//! writing binary garbage (60 lines every 20 ms); one writing `status` byte by byte and half
//! lines cut off by the end of the stream; one connecting every 10 ms to send `help`,
//! `moves all` or `status` (every tenth time twenty times over) and closing without reading.
//!
//! `cargo bench --bench console_abuse -- [--games N] [--speaker none|clips]`
//! (default 2 games of 44 sighted moves per phase, speaker none: announcements count as said at
//! once). With `--speaker clips`, ALSA's default device is the null PCM (set up here, through
//! `ALSA_CONFIG_PATH`) and the table also shows, from the journal, the clock press to the end of
//! the announcement's speech (F.3 c), in whole milliseconds. Numbers live in BENCHMARKS.md.

mod support;

use std::{
    fs,
    io::{BufRead, BufReader, Read, Write},
    net::Shutdown,
    os::unix::net::UnixStream,
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicUsize, Ordering},
        mpsc,
    },
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};
use shakmaty::{Chess, Move, Position, san::San};
use tactus::{
    config::Config,
    daemon::{RunOptions, SimSettings, journal},
};
use tactus_core::{
    announce::{Announcement, MoveWords, voice::Style, voice::VoicePack},
    arbiter::Input,
    console::wire::{WireLine, classify},
    journal::Step,
    rules::notation::san,
    sim::Rng,
};
use tokio_util::sync::CancellationToken;

/// Kasparov - Topalov, Wijk aan Zee 1999 (87 plies; White, the sighted player, moves last).
const GAME: &str = "e4 d6 d4 Nf6 Nc3 g6 Be3 Bg7 Qd2 c6 f3 b5 Nge2 Nbd7 Bh6 Bxh6 Qxh6 Bb7 a3 e5 \
    O-O-O Qe7 Kb1 a6 Nc1 O-O-O Nb3 exd4 Rxd4 c5 Rd1 Nb6 g3 Kb8 Na5 Ba8 Bh3 d5 Qf4+ Ka7 Rhe1 d4 \
    Nd5 Nbxd5 exd5 Qd6 Rxd4 cxd4 Re7+ Kb6 Qxd4+ Kxa5 b4+ Ka4 Qc3 Qxd5 Ra7 Bb7 Rxb7 Qc4 Qxf6 \
    Kxa3 Qxa6+ Kxb4 c3+ Kxc3 Qa1+ Kd2 Qb2+ Kd1 Bf1 Rd2 Rd7 Rxd7 Bxc4 bxc4 Qxh8 Rd3 Qa8 c3 Qa4+ \
    Ke1 f4 f5 Kc1 Rd2 Qa7";
const SPEED: f64 = 20.0;
const IDLE: usize = 200;
const LIMIT: Duration = Duration::from_secs(60);

/// The daemon in this process.
struct Daemon {
    runtime: tokio::runtime::Runtime,
    cancel: CancellationToken,
    handle: tokio::task::JoinHandle<Result<tactus::daemon::RunReport>>,
    socket: PathBuf,
}

fn start(dir: &Path, moves: &[Move], speaker: &str) -> Result<Daemon> {
    let text = format!(
        "[game]\nwhite = \"Weiss\"\nblack = \"Schwarz\"\nblind = \"black\"\n\
         time_control = \"5400+30\"\n\
         [boards.blind]\nprofile = \"pegged-line\"\nport = \"sim\"\n\
         [boards.sighted]\nprofile = \"manual\"\n\
         [voice]\npack = \"de-fide\"\nstyle = \"san\"\nspeaker = \"{speaker}\"\n\
         [record]\ndir = \"played\"\n[console]\nsocket = \"console.sock\"\n"
    );
    let path = dir.join("config.toml");
    fs::write(&path, text)?;
    let config = Config::load(&path)?;
    let socket = config.socket_path();
    let opts = RunOptions {
        config,
        origin: path.display().to_string(),
        resume: None,
        new_game: true,
        sim: SimSettings {
            moves: moves.to_vec(),
            speed: SPEED,
            ..SimSettings::default()
        },
        echo: false,
        stop_when_played: false,
        log: None,
        voices_dir: Path::new(env!("CARGO_MANIFEST_DIR")).join("voices"),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let cancel = CancellationToken::new();
    let handle = runtime.spawn(tactus::daemon::run(opts, cancel.clone()));
    let t = Instant::now();
    while UnixStream::connect(&socket).is_err() {
        if handle.is_finished() || t.elapsed() > LIMIT {
            bail!("the daemon's console never came up");
        }
        thread::sleep(Duration::from_millis(10));
    }
    Ok(Daemon {
        runtime,
        cancel,
        handle,
        socket,
    })
}

impl Daemon {
    fn stop(self) -> Result<PathBuf> {
        self.cancel.cancel();
        let report = self.runtime.block_on(self.handle)??;
        self.runtime.shutdown_timeout(Duration::from_secs(5));
        Ok(report.folder)
    }
}

/// A console client that reads its replies (event lines skipped).
struct Client {
    stream: UnixStream,
    reader: BufReader<UnixStream>,
}

impl Client {
    fn open(socket: &Path) -> Result<Client> {
        let stream = UnixStream::connect(socket)?;
        stream.set_read_timeout(Some(LIMIT))?;
        let reader = BufReader::new(stream.try_clone()?);
        Ok(Client { stream, reader })
    }

    /// Send a command; its body, or the refusal as an error.
    fn send(&mut self, command: &str) -> Result<Vec<String>> {
        self.stream.write_all(format!("{command}\n").as_bytes())?;
        let mut body = Vec::new();
        loop {
            let mut line = String::new();
            if self.reader.read_line(&mut line)? == 0 {
                bail!("the daemon closed the connection");
            }
            match classify(line.trim_end_matches('\n')) {
                WireLine::Event(_) => {}
                WireLine::Body(text) => body.push(text.to_string()),
                WireLine::Ok(_) => return Ok(body),
                WireLine::Error(e) => bail!("{command}: {e}"),
            }
        }
    }

    fn ply(&mut self) -> Result<usize> {
        let status = self.send("status")?;
        status
            .iter()
            .find_map(|l| l.strip_prefix("ply "))
            .and_then(|rest| rest.split(',').next())
            .and_then(|n| n.parse().ok())
            .context("no ply in the status")
    }

    fn wait_ply(&mut self, ply: usize) -> Result<()> {
        let t = Instant::now();
        while self.ply()? != ply {
            if t.elapsed() > LIMIT {
                bail!("ply {ply} not reached in {} s", LIMIT.as_secs());
            }
            thread::sleep(Duration::from_millis(2));
        }
        Ok(())
    }
}

/// A connection whose everything is read and thrown away on a thread of its own (the abusers
/// that write a lot read, as socat would; the daemon drops a client that does not).
fn drained(socket: &Path) -> Result<UnixStream> {
    let stream = UnixStream::connect(socket)?;
    let mut reader = stream.try_clone()?;
    thread::spawn(move || {
        let mut sink = [0u8; 8192];
        while matches!(reader.read(&mut sink), Ok(n) if n > 0) {}
    });
    Ok(stream)
}

/// One abuser: the socket, the stop flag, a counter of what it sent.
type Abuser = Box<dyn Fn(&Path, &AtomicBool, &AtomicUsize) -> Result<()> + Send>;

/// Starts the abusers; they run until `stop`.
fn abuse(
    socket: &Path,
    stop: &Arc<AtomicBool>,
    sent: &Arc<AtomicUsize>,
) -> Vec<thread::JoinHandle<()>> {
    let mut threads = Vec::new();
    let mut spawn = |f: Abuser| {
        let (socket, stop, sent) = (socket.to_owned(), stop.clone(), sent.clone());
        threads.push(thread::spawn(move || {
            if let Err(e) = f(&socket, &stop, &sent) {
                eprintln!("an abuser stopped: {e:#}");
            }
        }));
    };
    spawn(Box::new(|socket, stop, sent| {
        // 200 connections at once, never read, held to the end.
        let idle: Vec<UnixStream> = (0..IDLE)
            .map(|_| UnixStream::connect(socket))
            .collect::<Result<_, _>>()?;
        while !stop.load(Ordering::Relaxed) {
            thread::sleep(Duration::from_millis(20));
        }
        sent.fetch_add(idle.len(), Ordering::Relaxed);
        Ok(())
    }));
    spawn(Box::new(|socket, stop, sent| {
        let mut s = drained(socket)?;
        let mut line = vec![b'x'; 1 << 20];
        line.push(b'\n');
        while !stop.load(Ordering::Relaxed) {
            for piece in line.chunks(64 * 1024) {
                s.write_all(piece)?;
            }
            s.write_all(b"status\n")?;
            sent.fetch_add(2, Ordering::Relaxed);
            thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }));
    spawn(Box::new(|socket, stop, sent| {
        let mut s = drained(socket)?;
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        while !stop.load(Ordering::Relaxed) {
            let mut burst = Vec::new();
            for _ in 0..60 {
                let mut piece = vec![0u8; 1 + rng.index(200)];
                rng.fill(&mut piece);
                burst.extend(piece.iter().map(|&b| if b == b'\n' { 0 } else { b }));
                burst.extend_from_slice(b"\xff\xff\xff\x00\n");
            }
            s.write_all(&burst)?;
            sent.fetch_add(60, Ordering::Relaxed);
            thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }));
    spawn(Box::new(|socket, stop, sent| {
        while !stop.load(Ordering::Relaxed) {
            let mut s = drained(socket)?;
            for &b in b"status\n" {
                s.write_all(&[b])?;
                thread::sleep(Duration::from_millis(15));
            }
            s.write_all(b"status")?;
            s.shutdown(Shutdown::Write)?;
            let mut cut = UnixStream::connect(socket)?;
            cut.write_all(b"moves al")?;
            drop(cut);
            sent.fetch_add(3, Ordering::Relaxed);
            thread::sleep(Duration::from_millis(30));
        }
        Ok(())
    }));
    spawn(Box::new(|socket, stop, sent| {
        const COMMANDS: &[&[u8]] = &[
            b"help\n",
            b"moves all\n",
            b"status\n",
            b"help\nmoves all\nstatus\nhelp\nmoves all\nstatus\n",
        ];
        let mut n = 0usize;
        while !stop.load(Ordering::Relaxed) {
            let mut s = UnixStream::connect(socket)?;
            let command = COMMANDS[n % COMMANDS.len()];
            let _ = s.write_all(&command.repeat(if n % 10 == 9 { 20 } else { 1 }));
            drop(s);
            n += 1;
            sent.fetch_add(1, Ordering::Relaxed);
            thread::sleep(Duration::from_millis(10));
        }
        Ok(())
    }));
    threads
}

/// What one game gave.
#[derive(Default)]
struct Samples {
    /// `press` written to the watcher reading `# said to blind: <move>`.
    event: Vec<Duration>,
    /// `press` written to its `ok` read.
    reply: Vec<Duration>,
    /// Clock press to the announcement's speech finished, from the journal (whole ms).
    spoken_ms: Vec<u64>,
    /// Events the watcher was told it missed.
    skipped: usize,
    /// Why a game did not get to its end.
    stalled: Vec<String>,
}

fn play(
    dir: &Path,
    game: &[Move],
    speaker: &str,
    abused: bool,
    out: &mut Samples,
) -> Result<usize> {
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir)?;
    let daemon = start(dir, game, speaker)?;
    let mut assistant = Client::open(&daemon.socket)?;
    let t = Instant::now();
    while !assistant.send("status")?.iter().any(|l| l == "in play") {
        if t.elapsed() > LIMIT {
            bail!("play never started");
        }
        thread::sleep(Duration::from_millis(10));
    }
    // The watcher: every line stamped when read.
    let watcher = UnixStream::connect(&daemon.socket)?;
    let (tx, events) = mpsc::channel::<(Instant, String)>();
    let reader = BufReader::new(watcher.try_clone()?);
    thread::spawn(move || {
        for line in reader.lines() {
            let Ok(line) = line else { return };
            let at = Instant::now();
            if let WireLine::Event(text) = classify(&line)
                && tx.send((at, text.to_string())).is_err()
            {
                return;
            }
        }
    });
    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicUsize::new(0));
    let abusers = if abused {
        abuse(&daemon.socket, &stop, &sent)
    } else {
        Vec::new()
    };

    // The announcement's words of each ply; a sighted move is timed only when its words were not
    // said before in the game (a `moves all` recital after the press repeats them, but only after
    // the real announcement: the broadcast keeps order).
    let pack = VoicePack::builtin("de-fide").context("the de-fide pack")?;
    let mut pos = Chess::default();
    let mut words = Vec::new();
    let mut sans = Vec::new();
    for &m in game {
        words.push(
            pack.render(&Announcement::Move(MoveWords::new(&pos, m)), Style::San)
                .text,
        );
        sans.push(san(&pos, m).trim_end_matches(['+', '#']).to_string());
        pos.play_unchecked(m);
    }
    let mut timed = 0;
    let mut moves = || -> Result<()> {
        for ply in (0..game.len()).step_by(2) {
            assistant.wait_ply(ply)?;
            assistant.send(&format!("move {}", sans[ply]))?;
            let unique = !words[..ply].contains(&words[ply]);
            let wanted = format!("said to blind: {}", words[ply]);
            let t0 = Instant::now();
            assistant.send("press")?;
            let replied = t0.elapsed();
            loop {
                let (at, text) = events
                    .recv_timeout(LIMIT)
                    .context("the announcement never came")?;
                if text.contains("events skipped") {
                    out.skipped += 1;
                }
                if at >= t0 && text == wanted {
                    if unique {
                        out.event.push(at - t0);
                        out.reply.push(replied);
                        timed += 1;
                    }
                    break;
                }
            }
        }
        assistant.wait_ply(game.len())?;
        // The last move counted at the press: let its announcement finish and the blind
        // player execute it before the daemon stops.
        thread::sleep(Duration::from_millis(500));
        Ok(())
    };
    if let Err(e) = moves() {
        out.stalled.push(format!("{e:#}"));
    }
    stop.store(true, Ordering::Relaxed);
    for a in abusers {
        let _ = a.join();
    }
    drop(assistant);
    let _ = watcher.shutdown(Shutdown::Both);
    let folder = daemon.stop()?;
    // The journal: each clock press, then the next announcement the arbiter heard finished.
    let read = journal::read(&folder.join("journal.jsonl"))?;
    let mut pressed = None;
    let mut last_t = 0;
    let wording =
        tactus::daemon::journal::wording(&read.header, &tactus::store::voices::default_dir())?;
    tactus_core::journal::replay_steps(&read, wording, |t, step| {
        if let Step::Applied(input) = step {
            last_t = t;
            match input {
                Input::ClockPress => pressed = Some(t),
                Input::SpeechFinished { .. } => {
                    if let Some(p) = pressed.take() {
                        out.spoken_ms.push(t - p);
                    }
                }
                _ => {}
            }
        }
    })?;
    if let Some(p) = pressed {
        out.stalled.push(format!(
            "the last press's announcement had not finished {} ms later, when the daemon \
             stopped",
            last_t - p
        ));
    }
    if abused {
        eprintln!(
            "  abusers: {} connections and lines sent",
            sent.load(Ordering::Relaxed)
        );
    }
    Ok(timed)
}

/// A line of `/proc/self/status` (the daemon runs in this process).
fn proc_status(key: &str) -> String {
    fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| Some(l.strip_prefix(key)?.strip_prefix(':')?.trim().to_string()))
        .unwrap_or_default()
}

/// Nearest rank; zero for no samples.
fn percentile<T: Copy + Default>(sorted: &[T], p: f64) -> T {
    if sorted.is_empty() {
        return T::default();
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn summary(d: &mut [Duration]) -> (Duration, Duration, Duration) {
    d.sort();
    (
        percentile(d, 50.0),
        percentile(d, 90.0),
        *d.last().unwrap_or(&Duration::ZERO),
    )
}

fn main() -> Result<()> {
    let Some(args) = support::bench_args() else {
        return Ok(());
    };
    let mut args = args.into_iter();
    let mut games = 2usize;
    let mut speaker = "none".to_string();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--games" => games = args.next().context("--games N")?.parse()?,
            "--speaker" => speaker = args.next().context("--speaker none|clips")?,
            other => bail!("unknown argument {other:?}; use --games N, --speaker none|clips"),
        }
    }
    let base =
        std::env::temp_dir().join(format!("tactus-console-abuse-bench-{}", std::process::id()));
    fs::create_dir_all(&base)?;
    if speaker == "clips" {
        let conf = base.join("alsa.conf");
        fs::write(
            &conf,
            "</usr/share/alsa/alsa.conf>\npcm.!default {\n    type null\n}\n",
        )?;
        // SAFETY: no other thread runs yet.
        unsafe { std::env::set_var("ALSA_CONFIG_PATH", &conf) };
    }
    let game: Vec<Move> = {
        let mut pos = Chess::default();
        GAME.split_whitespace()
            .map(|s| {
                let m = s.parse::<San>()?.to_move(&pos)?;
                pos.play_unchecked(m);
                Ok(m)
            })
            .collect::<Result<_>>()?
    };
    assert_eq!(game.len() % 2, 1, "White moves last");
    println!(
        "| phase | moves timed | press → `# said to blind` median | p90 | max | press → `ok` median | p90 | max |{}",
        if speaker == "clips" {
            " press → spoken (journal) median | p90 | max |"
        } else {
            ""
        }
    );
    println!(
        "|---|---|---|---|---|---|---|---|{}",
        if speaker == "clips" {
            "---|---|---|"
        } else {
            ""
        }
    );
    let mut medians = Vec::new();
    for (phase, abused) in [("clean", false), ("abused", true)] {
        let mut s = Samples::default();
        let mut timed = 0;
        for g in 0..games {
            let dir = base.join(format!("{phase}-{g}"));
            let t = Instant::now();
            timed += play(&dir, &game, &speaker, abused, &mut s)
                .with_context(|| format!("{phase} game {g}"))?;
            eprintln!(
                "{phase} game {g}: {:.1} s; this process's VmRSS {}, VmHWM {}",
                t.elapsed().as_secs_f64(),
                proc_status("VmRSS"),
                proc_status("VmHWM")
            );
        }
        let (e50, e90, emax) = summary(&mut s.event);
        let (r50, r90, rmax) = summary(&mut s.reply);
        medians.push(e50);
        let mut spoken = String::new();
        if speaker == "clips" {
            s.spoken_ms.sort();
            spoken = format!(
                " {} ms | {} ms | {} ms |",
                percentile(&s.spoken_ms, 50.0),
                percentile(&s.spoken_ms, 90.0),
                s.spoken_ms.last().copied().unwrap_or(0)
            );
        }
        println!(
            "| {phase} | {timed} | {} | {} | {} | {} | {} | {} |{spoken}",
            ms(e50),
            ms(e90),
            ms(emax),
            ms(r50),
            ms(r90),
            ms(rmax)
        );
        for why in &s.stalled {
            println!("({phase}: stalled: {why})");
        }
        if s.skipped > 0 {
            println!(
                "({phase}: the watcher was told {} times that it missed events)",
                s.skipped
            );
        }
    }
    println!(
        "median ratio abused / clean: {:.2}",
        medians[1].as_secs_f64() / medians[0].as_secs_f64()
    );
    let _ = fs::remove_dir_all(&base);
    Ok(())
}
