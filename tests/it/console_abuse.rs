//! The console socket under abuse while a game is played (against the daemon in the test's own
//! process, see `support::inproc`): 200 connections opened at once and never read, lines of
//! 1 MiB, binary garbage, half lines (byte by byte, and cut off by the end of the stream), clients
//! that close the socket before their reply has been written, hundreds of times. Meanwhile the
//! sighted player's moves are typed on a clean connection and the simulated blind player answers
//! on his tactile board. Nothing may be lost: every move is played, announced, journaled and in
//! the PGN, a watching console sees every announcement, every abuser that reads gets the right
//! reply for each of its lines, the daemon answers afterwards and stops cleanly, and the
//! connections of clients that went away are closed.
//!
//! Correctness only: how the abuse affects the game's latency is measured by
//! `cargo bench --bench console_abuse` (BENCHMARKS.md).

use crate::support;

use std::{
    fs,
    io::{BufRead, BufReader, Read, Write},
    net::Shutdown,
    os::unix::net::UnixStream,
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicUsize, Ordering},
        mpsc,
    },
    thread,
    time::{Duration, Instant},
};

use shakmaty::{Chess, Color, Move, Position, san::San};
use support::{
    console::ply_of,
    games::sans,
    inproc::{LIMIT, Reply, Table, write_config},
    record::{move_line, pack, transcript_bodies},
    table::temp_dir,
};
use tactus::daemon::journal;
use tactus_core::{
    console::{
        MAX_LINE,
        wire::{WireLine, classify},
    },
    rules::pgn::read_pgn,
};
use tactus_core::{journal::InputRecord, sim::Rng};

/// Kasparov - Topalov, Wijk aan Zee 1999: 87 plies, the last one White's (the game was
/// resigned, so it is not over when the list ends).
const GAME: &str = "e4 d6 d4 Nf6 Nc3 g6 Be3 Bg7 Qd2 c6 f3 b5 Nge2 Nbd7 Bh6 Bxh6 Qxh6 Bb7 a3 e5 \
    O-O-O Qe7 Kb1 a6 Nc1 O-O-O Nb3 exd4 Rxd4 c5 Rd1 Nb6 g3 Kb8 Na5 Ba8 Bh3 d5 Qf4+ Ka7 Rhe1 d4 \
    Nd5 Nbxd5 exd5 Qd6 Rxd4 cxd4 Re7+ Kb6 Qxd4+ Kxa5 b4+ Ka4 Qc3 Qxd5 Ra7 Bb7 Rxb7 Qc4 Qxf6 \
    Kxa3 Qxa6+ Kxb4 c3+ Kxc3 Qa1+ Kd2 Qb2+ Kd1 Bf1 Rd2 Rd7 Rxd7 Bxc4 bxc4 Qxh8 Rd3 Qa8 c3 Qa4+ \
    Ke1 f4 f5 Kc1 Rd2 Qa7";

/// Connections opened at once and never read.
const IDLE: usize = 200;
/// At least this many clients close their socket before their reply is written.
const MIN_DISCONNECTS: usize = 300;
/// The blind player's pace (20: he thinks 50 ms before his own moves).
const SPEED: f64 = 20.0;

/// SAN moves from the start, as moves.
fn moves(text: &str) -> Vec<Move> {
    let mut pos = Chess::default();
    text.split_whitespace()
        .map(|s| {
            let m = s
                .parse::<San>()
                .unwrap()
                .to_move(&pos)
                .unwrap_or_else(|e| panic!("{s}: {e}"));
            pos.play_unchecked(m);
            m
        })
        .collect()
}

/// A line of garbage (no line end) that cannot be UTF-8: random bytes (NUL and every other value
/// but the line end) with at least one 0xFF, sometimes a run of them.
fn binary_line(rng: &mut Rng) -> Vec<u8> {
    let len = 1 + rng.index(300);
    let mut line = vec![0u8; len];
    rng.fill(&mut line);
    line.iter_mut()
        .filter(|b| **b == b'\n')
        .for_each(|b| *b = 0);
    let at = rng.index(len);
    line[at] = 0xff;
    if rng.below(3) == 0 {
        let run = 1 + rng.index(2000);
        line.splice(at..at, std::iter::repeat_n(0xff, run));
    }
    line
}

/// A line of UTF-8 text that is no command: a NUL first (no command starts with one), then
/// control characters, letters and some non-ASCII.
fn text_garbage_line(rng: &mut Rng) -> Vec<u8> {
    const PARTS: &[&str] = &[
        "\0", "\x01", "\x07", "\x1b[2J", "\r", "\t", " ", "status", "press", "move", "ä", "€",
        "\u{fffd}", "#", "ok", "error:", "𝄞", "\x7f",
    ];
    let mut line = String::from("\0");
    for _ in 0..1 + rng.below(40) {
        line.push_str(PARTS[rng.index(PARTS.len())]);
    }
    line.into_bytes()
}

/// The daemon's warnings, as the log would show them (the test's process has no other log).
#[derive(Clone, Default)]
struct Warnings(Arc<Mutex<Vec<u8>>>);

impl Write for Warnings {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Warnings {
    fn capture() -> Warnings {
        let warnings = Warnings::default();
        let writer = warnings.clone();
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new("tactus=warn"))
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .init();
        warnings
    }

    fn lines(&self) -> Vec<String> {
        String::from_utf8_lossy(&self.0.lock().unwrap())
            .lines()
            .map(str::to_string)
            .collect()
    }
}

/// The id of a speech request the speech task could not take (`... id=N: speech cannot take
/// the announcement ...`).
fn refused_speech_id(warning: &str) -> Option<u64> {
    if !warning.contains("speech cannot take the announcement") {
        return None;
    }
    let at = warning.find("id=")? + 3;
    let digits: String = warning[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

fn open_files() -> usize {
    fs::read_dir("/proc/self/fd")
        .map(|d| d.count())
        .unwrap_or(0)
}

/// A line of `/proc/self/status` (`VmRSS`, `Threads`), for information.
fn proc_status(key: &str) -> String {
    fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            l.strip_prefix(&format!("{key}:"))
                .map(|v| v.trim().to_string())
        })
        .unwrap_or_default()
}

/// A client that reads all the time, as `tactus console` or socat do, so that a long write of
/// its own never leaves the daemon's events piling up unread (a client that does not read is
/// dropped after the daemon's write timeout, by design). Replies come through a channel.
struct Client {
    stream: UnixStream,
    replies: mpsc::Receiver<Reply>,
}

impl Client {
    fn open(socket: &Path) -> Client {
        let stream = UnixStream::connect(socket).unwrap();
        let reader = BufReader::new(stream.try_clone().unwrap());
        let (tx, replies) = mpsc::channel();
        thread::spawn(move || {
            let mut body = Vec::new();
            for line in reader.lines() {
                let Ok(line) = line else { return };
                let end = match classify(&line) {
                    WireLine::Event(_) => continue,
                    WireLine::Body(text) => {
                        body.push(text.to_string());
                        continue;
                    }
                    WireLine::Ok(summary) => Ok(summary.to_string()),
                    WireLine::Error(reason) => Err(reason.to_string()),
                };
                let reply = Reply {
                    body: std::mem::take(&mut body),
                    end,
                };
                if tx.send(reply).is_err() {
                    return;
                }
            }
        });
        Client { stream, replies }
    }

    fn write_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap();
    }

    fn reply(&mut self) -> Reply {
        self.replies
            .recv_timeout(LIMIT)
            .expect("no reply: the daemon closed the connection or did not answer")
    }
}

impl Drop for Client {
    /// Closes the connection for good: the reader thread's copy of the socket would keep it open.
    fn drop(&mut self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }
}

/// A reply that must be `ok` with a status body (a `ply` line).
fn assert_status(conn: &mut Client, what: &str) {
    let reply = conn.reply();
    assert!(
        reply.end.is_ok() && reply.body.iter().any(|l| l.starts_with("ply ")),
        "{what}: not the status reply: {reply:?}"
    );
}

/// A reply that must be refused with a reason containing `why`.
fn assert_refused(conn: &mut Client, why: &str, what: &str) {
    let reply = conn.reply();
    match &reply.end {
        Err(reason) if reason.contains(why) => {}
        _ => panic!("{what}: expected a refusal with {why:?}, got {reply:?}"),
    }
}

/// What each abuser did, for the test's output.
#[derive(Default)]
struct Counts {
    long_lines: AtomicUsize,
    garbage_lines: AtomicUsize,
    half_lines: AtomicUsize,
    disconnects: AtomicUsize,
}

/// (b) Lines of 1 MiB (one with a valid command before the padding, which must not be carried
/// out), then a valid `status` on the same connection; the longest line allowed, and one byte
/// more.
fn long_lines(socket: &Path, stop: &AtomicBool, counts: &Counts) {
    let mut conn = Client::open(socket);
    let too_long = format!("longer than the {MAX_LINE} bytes");
    let mut round = 0usize;
    while round < 3 || !stop.load(Ordering::Relaxed) {
        let mut line = vec![b'x'; 1 << 20];
        if round % 2 == 1 {
            // `press` padded with spaces: carried out, it would stop the sighted player's clock.
            line.fill(b' ');
            line[..5].copy_from_slice(b"press");
        }
        line.push(b'\n');
        // In pieces, as a client would write it.
        for piece in line.chunks(64 * 1024) {
            conn.write_raw(piece);
        }
        assert_refused(&mut conn, &too_long, "a line of 1 MiB");
        conn.write_raw(b"status\n");
        assert_status(&mut conn, "status after a line of 1 MiB");
        // The longest line a command may have is read; one byte more is not.
        let mut longest = b"status".to_vec();
        longest.resize(MAX_LINE, b' ');
        longest.push(b'\n');
        conn.write_raw(&longest);
        assert_status(&mut conn, "status padded to MAX_LINE");
        let mut over = b"status".to_vec();
        over.resize(MAX_LINE + 1, b' ');
        over.push(b'\n');
        conn.write_raw(&over);
        assert_refused(&mut conn, &too_long, "status padded to MAX_LINE + 1");
        counts.long_lines.fetch_add(4, Ordering::Relaxed);
        round += 1;
        thread::sleep(Duration::from_millis(50));
    }
}

/// (c) Binary garbage and text that is no command, line by line and many lines in one write:
/// one refusal per line, then the connection still answers `status`.
fn garbage(socket: &Path, stop: &AtomicBool, counts: &Counts) {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut conn = Client::open(socket);
    let mut round = 0usize;
    while round < 5 || !stop.load(Ordering::Relaxed) {
        // One line at a time.
        for _ in 0..10 {
            let mut line = binary_line(&mut rng);
            line.push(b'\n');
            conn.write_raw(&line);
            assert_refused(&mut conn, "not UTF-8", "a line of binary garbage");
            let mut line = text_garbage_line(&mut rng);
            line.push(b'\n');
            conn.write_raw(&line);
            let reply = conn.reply();
            assert!(reply.end.is_err(), "text garbage carried out: {reply:?}");
        }
        // Fifty lines in one write: fifty refusals, in order.
        let mut burst = Vec::new();
        for _ in 0..50 {
            burst.extend(binary_line(&mut rng));
            burst.push(b'\n');
        }
        conn.write_raw(&burst);
        for _ in 0..50 {
            assert_refused(&mut conn, "not UTF-8", "a burst of binary garbage");
        }
        conn.write_raw(b"status\n");
        assert_status(&mut conn, "status after garbage");
        counts.garbage_lines.fetch_add(70, Ordering::Relaxed);
        round += 1;
        thread::sleep(Duration::from_millis(20));
    }
}

/// (d) Half lines: a command byte by byte, a command in two halves, a last line without its
/// line end (the write side shut: the daemon answers it, then closes), and one cut off by a
/// client that goes away.
fn half_lines(socket: &Path, stop: &AtomicBool, counts: &Counts) {
    let mut round = 0usize;
    while round < 3 || !stop.load(Ordering::Relaxed) {
        let mut conn = Client::open(socket);
        for &b in b"status\n" {
            conn.write_raw(&[b]);
            thread::sleep(Duration::from_millis(15));
        }
        assert_status(&mut conn, "status written byte by byte");
        conn.write_raw(b"sta");
        thread::sleep(Duration::from_millis(100));
        conn.write_raw(b"tus\n");
        assert_status(&mut conn, "status in two halves");
        drop(conn);

        // A final half line is a line: answered, then the daemon closes.
        let mut stream = UnixStream::connect(socket).unwrap();
        stream.set_read_timeout(Some(LIMIT)).unwrap();
        stream.write_all(b"status").unwrap();
        stream.shutdown(Shutdown::Write).unwrap();
        let mut lines = Vec::new();
        for line in BufReader::new(&stream).lines() {
            lines.push(line.expect("the daemon's answer to a final half line"));
        }
        let replies: Vec<&String> = lines
            .iter()
            .filter(|l| !matches!(classify(l), WireLine::Event(_)))
            .collect();
        assert!(
            replies.iter().any(|l| l.starts_with("ply "))
                && replies
                    .last()
                    .is_some_and(|l| classify(l) == WireLine::Ok("")),
            "a final half line 'status' was not answered before the end: {lines:?}"
        );

        // Half a line, then gone.
        let mut stream = UnixStream::connect(socket).unwrap();
        stream.write_all(b"moves al").unwrap();
        drop(stream);
        counts.half_lines.fetch_add(4, Ordering::Relaxed);
        round += 1;
        thread::sleep(Duration::from_millis(30));
    }
}

/// (e) Clients that send a command (or many) and close at once, without reading the reply.
fn disconnects(socket: &Path, stop: &AtomicBool, counts: &Counts) {
    const COMMANDS: &[&[u8]] = &[
        b"help\n",
        b"moves all\n",
        b"status\n",
        b"help\nmoves all\nstatus\nhelp\nmoves all\nstatus\n",
    ];
    let mut n = 0usize;
    while n < MIN_DISCONNECTS || !stop.load(Ordering::Relaxed) {
        let mut stream = UnixStream::connect(socket).unwrap();
        stream.set_read_timeout(Some(LIMIT)).unwrap();
        let command = COMMANDS[n % COMMANDS.len()];
        if n % 10 == 9 {
            // The same commands twenty times over, in one write.
            stream.write_all(&command.repeat(20)).unwrap();
        } else {
            stream.write_all(command).unwrap();
        }
        if n.is_multiple_of(3) {
            // Some read a few bytes of the greeting first.
            let mut some = [0u8; 7];
            let _ = stream.read(&mut some);
        }
        drop(stream);
        n += 1;
        counts.disconnects.fetch_add(1, Ordering::Relaxed);
        thread::sleep(Duration::from_millis(10));
    }
}

/// A console that reads everything: its event lines, until the daemon closes. It says who it is
/// first, as a watching console must (else the daemon closes it after a quiet minute: a game
/// under this abuse may take longer).
fn watch(socket: &Path) -> (thread::JoinHandle<Vec<String>>, UnixStream) {
    let mut stream = UnixStream::connect(socket).unwrap();
    stream.write_all(b"role assistant\n").unwrap();
    let reader = stream.try_clone().unwrap();
    let handle = thread::spawn(move || {
        let mut events = Vec::new();
        for line in BufReader::new(reader).lines() {
            let Ok(line) = line else { break };
            if let WireLine::Event(text) = classify(&line) {
                events.push(text.to_string());
            }
        }
        events
    });
    (handle, stream)
}

fn spawn_abuser(
    name: &str,
    socket: &Path,
    stop: &Arc<AtomicBool>,
    counts: &Arc<Counts>,
    f: fn(&Path, &AtomicBool, &Counts),
) -> thread::JoinHandle<()> {
    let socket: PathBuf = socket.to_owned();
    let stop = stop.clone();
    let counts = counts.clone();
    thread::Builder::new()
        .name(name.to_string())
        .spawn(move || f(&socket, &stop, &counts))
        .unwrap()
}

#[test]
fn a_game_is_played_to_the_end_while_the_console_is_abused() {
    let started = Instant::now();
    let warnings = Warnings::capture();
    let dir = temp_dir("console-abuse");
    write_config(&dir, Color::Black);
    let game = moves(GAME);
    assert_eq!(game.len(), 87);
    let white_sans: Vec<String> = sans(&Chess::default(), &game)
        .into_iter()
        .step_by(2)
        .collect();
    let table = Table::start(&dir, &game, SPEED, true);
    table.wait_started();
    let files_before = open_files();
    let rss_before = proc_status("VmRSS");

    // (a) 200 connections at once, never read.
    let idle: Vec<UnixStream> = (0..IDLE)
        .map(|_| UnixStream::connect(&table.socket).unwrap())
        .collect();
    // A console that watches the game.
    let (watcher, watcher_stream) = watch(&table.socket);
    // (b) to (e).
    let stop = Arc::new(AtomicBool::new(false));
    let counts = Arc::new(Counts::default());
    let abusers = vec![
        spawn_abuser("long-lines", &table.socket, &stop, &counts, long_lines),
        spawn_abuser("garbage", &table.socket, &stop, &counts, garbage),
        spawn_abuser("half-lines", &table.socket, &stop, &counts, half_lines),
        spawn_abuser("disconnects", &table.socket, &stop, &counts, disconnects),
    ];

    // The game: the sighted player's moves typed on a clean connection, the blind player's
    // answered on his board.
    let mut assistant = table.connect();
    for (k, san) in white_sans.iter().enumerate() {
        table.wait_ply(2 * k);
        let san = san.trim_end_matches(['+', '#']);
        assistant.ok(&format!("move {san}"));
        assistant.ok("press");
    }
    let status = table.wait_ply(game.len());
    assert!(
        !status.iter().any(|l| l.starts_with("result ")),
        "{status:?}"
    );
    let played_in = started.elapsed();

    // Let every abuser finish its round; an abuser's failed check fails the test here.
    stop.store(true, Ordering::Relaxed);
    for abuser in abusers {
        let name = abuser.thread().name().unwrap_or("?").to_string();
        if let Err(panic) = abuser.join() {
            std::panic::resume_unwind(panic);
        }
        eprintln!("abuser {name} done");
    }
    let rss_after = proc_status("VmRSS");
    let threads_during = proc_status("Threads");
    let files_during = open_files();

    // The daemon still answers a new client, and the clean one.
    let mut fresh = table.connect();
    assert_eq!(ply_of(&fresh.ok("status")), game.len());
    assert_eq!(ply_of(&assistant.ok("status")), game.len());
    // The idle connections: the daemon either still holds them or dropped those whose socket
    // filled up (a client that does not read); either way each got the greeting first.
    let mut dropped_by_daemon = 0;
    for mut stream in idle {
        stream.set_nonblocking(true).unwrap();
        let mut head = [0u8; 16];
        let mut got = 0;
        let t = Instant::now();
        while got < head.len() {
            match stream.read(&mut head[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock && t.elapsed() < LIMIT => {
                    thread::sleep(Duration::from_millis(1));
                }
                Err(e) => panic!("an idle connection: {e}"),
            }
        }
        assert!(head.starts_with(b"# tactus console"), "{head:?}");
        // Ends (the daemon closed it) or would block (still open).
        let mut rest = Vec::new();
        if stream.read_to_end(&mut rest).is_ok() {
            dropped_by_daemon += 1;
        }
    }
    // Every client has gone but three (the watcher, the assistant, the fresh one): the daemon
    // closes their connections (a reply it cannot write ends its task).
    drop(fresh);
    let t = Instant::now();
    let mut files_after = open_files();
    while files_after > files_before + 8 && t.elapsed() < LIMIT {
        thread::sleep(Duration::from_millis(50));
        files_after = open_files();
    }
    assert!(
        files_after <= files_before + 8,
        "the daemon holds connections of clients that went away: {files_before} files open \
         before the abuse, {files_during} during it, {files_after} now"
    );

    let transcript = table.transcript();
    let report = table.stop();
    drop(assistant);
    let events = watcher.join().unwrap();
    drop(watcher_stream);

    // Every move in the PGN, in order.
    let pgn = read_pgn(report.pgn.as_bytes()).unwrap();
    assert_eq!(pgn.len(), 1);
    assert_eq!(pgn[0].moves, game, "{}", report.pgn);
    assert!(!report.over);

    // The watching console read all the time: it must not have been told that it missed events
    // (the daemon's broadcast channel drops the oldest events for a console that falls behind).
    let skipped: Vec<&String> = events
        .iter()
        .filter(|e| e.contains("events skipped"))
        .collect();
    let recited = events
        .iter()
        .filter(|e| e.starts_with("said to blind: "))
        .count();
    assert!(
        skipped.is_empty(),
        "the watching console, which read all the time, missed events: {skipped:?}; it got {} \
         events, {recited} of them 'said to blind: ...', of which only {} announce the sighted \
         player's moves: the others answer other clients' 'moves all' (each reply says every \
         move of the game to the blind player, and each is broadcast to every console)",
        events.len(),
        game.len() / 2 + 1
    );

    // Every move announced to the right player, in order, in the transcript and to the watching
    // console.
    let pack = pack();
    let mut pos = Chess::default();
    let bodies = transcript_bodies(&transcript);
    let mut in_transcript = bodies.iter();
    let mut in_events = events.iter();
    for (ply, &m) in game.iter().enumerate() {
        let line = move_line(&pack, &pos, m, Color::Black);
        assert!(
            in_transcript.any(|b| *b == line),
            "ply {}: {line:?} missing (or out of order) in the transcript:\n{transcript}",
            ply + 1
        );
        let (audience, text) = line.split_once(' ').unwrap();
        let event = format!("said to {audience}: {text}");
        assert!(
            in_events.any(|e| *e == event),
            "ply {}: {event:?} missing (or out of order) in the watcher's events: {events:#?}",
            ply + 1
        );
        pos.play_unchecked(m);
    }

    // The journal holds every move typed at the console, and nothing an abuser sent.
    let folder = dir.join("played").join(report.folder.file_name().unwrap());
    let read = journal::read(&folder.join("journal.jsonl")).unwrap();
    let mut entered = Vec::new();
    let mut presses = 0;
    for applied in support::journal::applied(&read) {
        match applied.input {
            InputRecord::EnterMove { text } => entered.push(text.clone()),
            InputRecord::ClockPress => presses += 1,
            input @ (InputRecord::Promote { .. }
            | InputRecord::Correct { .. }
            | InputRecord::Scoresheet { .. }
            | InputRecord::ConfirmClocks
            | InputRecord::Adjust { .. }) => panic!("journaled, but nobody sent it: {input:?}"),
            _ => {}
        }
    }
    let typed: Vec<String> = white_sans
        .iter()
        .map(|s| s.trim_end_matches(['+', '#']).to_string())
        .collect();
    assert_eq!(entered, typed);
    assert_eq!(presses, typed.len());

    // Every announcement of the game was handed to speech: none was "counted as said" because
    // the speech task's queue was full of replies to requests (those are the hub's own, numbered
    // from 2^48; the arbiter's are below).
    let warnings = warnings.lines();
    let refused: Vec<u64> = warnings
        .iter()
        .filter_map(|w| refused_speech_id(w))
        .collect();
    let refused_game: Vec<&String> = warnings
        .iter()
        .filter(|w| refused_speech_id(w).is_some_and(|id| id < 1 << 48))
        .collect();
    assert!(
        refused_game.is_empty(),
        "announcements of the game not handed to speech (counted as said unspoken): \
         {refused_game:#?}"
    );

    eprintln!(
        "console abuse: {} plies played in {:.1} s beside {IDLE} idle connections ({} dropped \
         by the daemon for not reading), {} over-long lines, {} garbage lines, {} half lines, {} \
         disconnects mid-reply; whole test {:.1} s; VmRSS {rss_before} before, {rss_after} \
         after; open files {files_before} before, {files_during} during, {files_after} after; \
         threads {threads_during}; the watcher got {} events; {} announcements answering \
         requests refused by speech (of {} warnings)",
        game.len(),
        played_in.as_secs_f64(),
        dropped_by_daemon,
        counts.long_lines.load(Ordering::Relaxed),
        counts.garbage_lines.load(Ordering::Relaxed),
        counts.half_lines.load(Ordering::Relaxed),
        counts.disconnects.load(Ordering::Relaxed),
        started.elapsed().as_secs_f64(),
        events.len(),
        refused.len(),
        warnings.len(),
    );
    fs::remove_dir_all(&dir).unwrap();
}
