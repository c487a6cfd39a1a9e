//! The console flooded, through the real binary (issue 39, points 5 and 10): a keypad that asks
//! thousands of times a second is refused beyond its pace (told once), so the journal and the
//! transcript do not grow by megabytes a second; and the places kept for the arbiter are there
//! at once, whatever the other connections claim to be.

use std::{
    fs,
    io::{BufReader, Write},
    os::unix::net::UnixStream,
    time::Duration,
};

use shakmaty::{Chess, Square};

use crate::support::{
    console::read_reply, line_table::LineTable, pegged::PeggedBoard, process::wait_until,
    pty::socat_or_skip, record::game_folder, table::temp_dir,
};
use tactus::daemon::files::TRANSCRIPT_FILE;
use tactus_core::journal::JOURNAL_FILE;

/// A table whose blind player (White) has played 1. e4, and its game folder.
fn table(tag: &str) -> (PeggedBoard, LineTable) {
    let dir = temp_dir(&format!("flood-{tag}"));
    let board = PeggedBoard::new(&dir, &Chess::default());
    let mut run = LineTable::start(dir, board.port(), "en");
    board.shift(Square::E2, Square::E4);
    assert!(run.reaches_ply(1), "{}", run.transcript());
    (board, run)
}

/// Issue 39, point 5: a keypad that floods (`time` 2,000 times, `moves all` 200 times, in one
/// write) had every request journaled and written to the transcript: 2 MB a second, 7 GB an
/// hour. Beyond a burst and a steady pace its requests are refused before the hub hears of them:
/// the journal and the transcript grow by the few requests taken; once it slows down, it is
/// answered again. The flood's first refusal is said to him, once, in his words (a stuck key on a
/// keypad without a display went unheard: it was only printed, in English), and every refusal is
/// printed in his words; the staff's transcript keeps the pace's reason, once.
#[test]
fn a_flooding_keypad_is_refused_beyond_its_pace_and_told_once() {
    if !socat_or_skip() {
        return;
    }
    let (_board, mut run) = table("keypad");
    let folder = game_folder(&run.dir.join("played"));
    let journal_lines = || {
        fs::read_to_string(folder.join(JOURNAL_FILE))
            .unwrap()
            .lines()
            .count()
    };
    let transcript_len = || fs::metadata(folder.join(TRANSCRIPT_FILE)).unwrap().len();
    let socket = run.console_up();
    let mut stream = UnixStream::connect(&socket).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    stream.write_all(b"role player\n").unwrap();
    assert_eq!(
        read_reply(&mut reader).unwrap().last().unwrap(),
        "ok keypad of White: type help for the commands"
    );
    let (journal_before, transcript_before) = (journal_lines(), transcript_len());

    let flood = format!("{}{}", "time\n".repeat(2000), "moves all\n".repeat(200));
    stream.write_all(flood.as_bytes()).unwrap();
    let (mut taken, mut words) = (0, 0);
    for _ in 0..2200 {
        let reply = read_reply(&mut reader).unwrap();
        let end = reply.last().unwrap();
        if end.starts_with("ok") {
            taken += 1;
        } else {
            assert_eq!(end, "error: Too many commands at once", "{reply:?}");
            words += 1;
        }
    }
    eprintln!(
        "flood: {taken} taken, {words} refused in his words; journal +{} lines, transcript +{} \
         bytes",
        journal_lines() - journal_before,
        transcript_len() - transcript_before
    );
    // Said to him once, and the reason noted once for the staff.
    let transcript = run.transcript();
    assert_eq!(
        transcript
            .matches("blind Too many commands at once")
            .count(),
        1,
        "{transcript}"
    );
    assert_eq!(
        transcript
            .matches("(told him aloud): this console asks faster than the game takes it")
            .count(),
        1,
        "{transcript}"
    );
    assert!(taken < 200, "{taken} of 2,200 requests taken");
    assert!(
        journal_lines() - journal_before < 200,
        "the journal grew by {} lines",
        journal_lines() - journal_before
    );
    // Slowed down, it is answered again.
    let answered = wait_until(Duration::from_secs(10), || {
        stream.write_all(b"time\n").unwrap();
        let reply = read_reply(&mut reader).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        reply.last().unwrap().starts_with("ok")
    });
    assert!(answered, "a request at a person's pace is answered");
}

/// A connection to the console: its greeting, and a reader.
fn connect(socket: &std::path::Path) -> (UnixStream, BufReader<UnixStream>, String) {
    use std::io::BufRead;
    let stream = UnixStream::connect(socket).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut greeting = String::new();
    let _ = reader.read_line(&mut greeting);
    (stream, reader, greeting)
}

/// Issue 39, point 10: with every place for consoles taken, the arbiter was locked out: with 256
/// idle connections his login was refused at once (and came through some 70 s later); with 254
/// consoles in the assistant's role and 8 connections cycling through the places kept for him,
/// 1 login in 30 tries in a minute. The places kept for him are there at once, whatever the
/// other connections claim to be: a newer connection takes the place of the oldest still waiting
/// for his login, so his login, which comes at once, gets in: 30 tries of 30, both ways.
#[test]
fn the_arbiter_gets_in_at_once_whatever_holds_the_other_places() {
    use std::sync::{
        Arc,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    };
    if !socat_or_skip() {
        return;
    }
    let (_board, mut run) = table("arbiter-places");
    let socket = run.console_up();
    let token = fs::read_to_string(run.dir.join("arbiter.token")).unwrap();
    let token = token.trim().to_string();
    for idle in [true, false] {
        // Every open place: idle connections, or consoles that said who they are.
        let mut held = Vec::new();
        while held.len() < 254 {
            let (mut stream, mut reader, greeting) = connect(&socket);
            if greeting.contains("kept for the arbiter") {
                // The last round's connections are still being closed.
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
            assert!(greeting.starts_with("# tactus console, role"), "{greeting}");
            if !idle {
                stream.write_all(b"role assistant\n").unwrap();
                let reply = read_reply(&mut reader).unwrap();
                assert_eq!(reply.last().unwrap(), "ok role assistant");
            }
            held.push((stream, reader));
        }
        // Eight connections cycling through the places kept for the arbiter: each takes one,
        // waits there until it is closed, and comes back.
        let stop = Arc::new(AtomicBool::new(false));
        let kept = Arc::new(AtomicUsize::new(0));
        let cyclers: Vec<_> = (0..8)
            .map(|_| {
                let (socket, stop, kept) = (socket.clone(), stop.clone(), kept.clone());
                std::thread::spawn(move || {
                    use std::io::Read;
                    while !stop.load(Ordering::Relaxed) {
                        let Ok(stream) = UnixStream::connect(&socket) else {
                            continue;
                        };
                        let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
                        let mut all = String::new();
                        let mut buf = [0u8; 512];
                        let mut stream = stream;
                        loop {
                            match stream.read(&mut buf) {
                                Ok(0) => break,
                                Ok(n) => {
                                    all.push_str(&String::from_utf8_lossy(&buf[..n]));
                                    if all.contains("kept for the arbiter") {
                                        kept.fetch_add(1, Ordering::Relaxed);
                                        all.clear();
                                    }
                                }
                                Err(_) if stop.load(Ordering::Relaxed) => break,
                                Err(_) => {}
                            }
                        }
                    }
                })
            })
            .collect();
        let cycling = wait_until(Duration::from_secs(30), || {
            kept.load(Ordering::Relaxed) >= 8
        });
        assert!(
            cycling,
            "the cycling connections took the places kept for the arbiter"
        );
        let mut logged_in = 0;
        let mut refusals = Vec::new();
        for _ in 0..30 {
            let (mut stream, mut reader, greeting) = connect(&socket);
            if stream
                .write_all(format!("login {token}\n").as_bytes())
                .is_err()
            {
                refusals.push(greeting);
                continue;
            }
            match read_reply(&mut reader) {
                Ok(reply) if reply.last().is_some_and(|l| l == "ok role arbiter") => logged_in += 1,
                Ok(reply) => refusals.push(format!("{greeting}{reply:?}")),
                Err(e) => refusals.push(format!("{greeting}{e}")),
            }
            // He leaves as his console does (`quit`, then the daemon closes), before he logs in
            // again: his two places are held by his logins, and a console merely dropped is
            // still his until the daemon has read its end (under load, after the next try:
            // then his two earlier logins, not the other connections, filled them).
            if stream.write_all(b"quit\n").is_ok() {
                let _ = read_reply(&mut reader);
                let mut rest = String::new();
                let _ = std::io::Read::read_to_string(&mut reader, &mut rest);
            }
        }
        stop.store(true, Ordering::Relaxed);
        for cycler in cyclers {
            cycler.join().unwrap();
        }
        drop(held);
        eprintln!(
            "{}: the arbiter logged in {logged_in} times of 30",
            if idle { "idle" } else { "assistants" }
        );
        assert_eq!(
            logged_in,
            30,
            "idle {idle}: the arbiter got in {logged_in} times of 30: {:?}",
            refusals.first()
        );
    }
}
