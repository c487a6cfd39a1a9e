//! The table seen and followed (issue 27): the daemon in the test's process (`support::inproc`)
//! with `[web] listen` on a free local port and a broadcast folder. The live PGN (`/game.pgn`)
//! is read after every move with the crate's own PGN reader and must equal the game (moves and
//! `[%clk]`) within a second of the move counting; an adjourned game's sealed move must appear
//! nowhere (page, PGN, events, `games.pgn`, `table.json`) until the envelope is opened; and the
//! page is loaded in a real headless browser (Debian's `chromium`) after each move, which must
//! show the move and the clocks, with a screenshot kept in the test's folder.

use crate::support;

use std::{
    fs,
    io::{Read, Write},
    net::{TcpListener, TcpStream},
    path::{Path, PathBuf},
    process::Command,
    thread,
    time::{Duration, Instant},
};

use shakmaty::Color;
use support::{games::moves_of, inproc::Table, table::temp_dir};
use tactus::web::view::{TableView, clock_text};
use tactus_core::rules::pgn::{PgnGame, read_pgn};

/// Scholar's mate: White (the sighted player, moves typed) mates on move four.
const SCHOLARS: &str = "e4 e5 Bc4 Nc6 Qh5 Nf6 Qxf7#";
/// A move counts and the page shows it within this.
const SHOWN_WITHIN: Duration = Duration::from_secs(1);

/// A free local port (bound, read, released).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The inproc table's configuration with `[web]` on `port` and a broadcast folder.
fn write_config(dir: &Path, port: u16) {
    let path = support::inproc::write_config(dir, Color::Black);
    let mut text = fs::read_to_string(&path).unwrap();
    text.push_str(&format!(
        "[web]\nlisten = \"127.0.0.1:{port}\"\nbroadcast_dir = \"broadcast\"\n"
    ));
    fs::write(&path, text).unwrap();
}

/// `GET path` on the page's port: (status line, body).
fn get(port: u16, path: &str) -> (String, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (
        head.lines().next().unwrap_or("").to_string(),
        body.to_string(),
    )
}

fn read_one(text: &str) -> PgnGame {
    let mut games = read_pgn(text.as_bytes()).unwrap_or_else(|e| panic!("{e}:\n{text}"));
    assert_eq!(games.len(), 1, "{text}");
    games.remove(0)
}

/// `/game.pgn` once it has `ply` moves, and how long that took.
fn pgn_at(port: u16, ply: usize) -> (PgnGame, Duration) {
    let t = Instant::now();
    loop {
        let (status, body) = get(port, "/game.pgn");
        assert!(status.contains("200"), "{status}");
        let game = read_one(&body);
        if game.moves.len() >= ply {
            return (game, t.elapsed());
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "never {ply} plies:\n{body}"
        );
        thread::sleep(Duration::from_millis(20));
    }
}

/// The game folder's own `game.pgn` once it has `ply` moves.
fn record_at(table: &Table, ply: usize) -> PgnGame {
    let t = Instant::now();
    loop {
        let text = fs::read_to_string(table.folder().join("game.pgn")).unwrap_or_default();
        if let Ok(mut games) = read_pgn(text.as_bytes())
            && games.len() == 1
            && games[0].moves.len() >= ply
        {
            return games.remove(0);
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "game.pgn never at {ply}"
        );
        thread::sleep(Duration::from_millis(20));
    }
}

/// The live PGN at `ply` equals the game: its moves, a clock after each, the record's clocks,
/// the broadcast tags.
fn check_pgn(table: &Table, port: u16, ply: usize, sans: &[&str]) {
    let (live, waited) = pgn_at(port, ply);
    assert!(
        waited <= SHOWN_WITHIN,
        "the PGN showed ply {ply} {waited:?} after it counted"
    );
    let got: Vec<String> = live.sans.iter().map(|s| s.to_string()).collect();
    assert_eq!(got, sans[..ply].to_vec());
    assert!(live.clocks.iter().all(Option::is_some), "{live:?}");
    let record = record_at(table, ply);
    assert_eq!(live.moves, record.moves[..ply].to_vec());
    assert_eq!(live.clocks, record.clocks[..ply].to_vec());
    for (tag, value) in [
        ("Event", "Console Open"),
        ("Site", "Testhalle"),
        ("Round", "3"),
        ("White", "Weiss Sehend"),
        ("Black", "Schwarz Blind"),
    ] {
        assert_eq!(live.tag(tag), Some(value), "{tag}");
    }
    assert!(live.tag("Date").is_some_and(|d| d.len() == 10));
    assert!(live.tag("Result").is_some());
}

/// Nothing a viewer can read holds the sealed move (Qh5, said "Dame Hector fünf").
/// A viewer's event stream (`/events`), read event by event.
struct Events(std::io::BufReader<TcpStream>);

impl Events {
    fn open(port: u16) -> Events {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        write!(stream, "GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
        Events(std::io::BufReader::new(stream))
    }

    /// The next event's data (comments and the head skipped).
    fn next(&mut self) -> String {
        use std::io::BufRead;
        loop {
            let mut line = String::new();
            let n = self.0.read_line(&mut line).expect("an event within 10 s");
            assert!(n > 0, "the event stream ended");
            if let Some(data) = line.strip_prefix("data: ") {
                return data.trim_end().to_string();
            }
        }
    }
}

fn assert_sealed_unseen(table: &Table, port: u16) {
    let events = Events::open(port).next();
    let (_, page) = get(port, "/");
    let (_, pgn) = get(port, "/game.pgn");
    let (_, json) = get(port, "/table.json");
    let games = fs::read_to_string(table.dir.join("broadcast").join("games.pgn")).unwrap();
    let status = fs::read_to_string(table.folder().join("table.json")).unwrap();
    for (what, text) in [
        ("page", &page),
        ("events", &events),
        ("pgn", &pgn),
        ("table.json route", &json),
        ("games.pgn", &games),
        ("table.json", &status),
    ] {
        for leak in ["Qh5", "Hector fünf", "Qd1-h5", "d1h5"] {
            assert!(
                !text.contains(leak),
                "the sealed move is in the {what}:\n{text}"
            );
        }
    }
    assert!(page.contains("Adjourned"), "{page}");
}

#[test]
fn the_live_pgn_follows_every_move_and_never_shows_the_sealed_move_before_open() {
    let dir = temp_dir("web-pgn");
    let port = free_port();
    write_config(&dir, port);
    let game = moves_of(SCHOLARS);
    let sans: Vec<&str> = SCHOLARS.split(' ').collect();
    let table = Table::start(&dir, &game, 4.0, true);
    table.wait_started();
    let (_, body) = get(port, "/game.pgn");
    assert_eq!(read_one(&body).moves.len(), 0);
    let mut assistant = table.connect();
    for (i, san) in ["e4", "Bc4"].iter().enumerate() {
        assistant.ok(&format!("move {san}"));
        assistant.ok("press");
        table.wait_ply(2 * i + 1);
        check_pgn(&table, port, 2 * i + 1, &sans);
        table.wait_ply(2 * i + 2);
        check_pgn(&table, port, 2 * i + 2, &sans);
    }
    // White seals Qh5: it is in the envelope, nowhere else.
    let mut arbiter = table.arbiter();
    arbiter.ok("seal Qd1-h5");
    let t = Instant::now();
    while !get(port, "/").1.contains("Adjourned") {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "never shown adjourned"
        );
        thread::sleep(Duration::from_millis(20));
    }
    // The files a broadcaster or the hall reads have caught up too.
    thread::sleep(Duration::from_millis(1500));
    assert_sealed_unseen(&table, port);
    let report = table.stop();
    assert!(!report.over);

    // Resumed: still unseen until the arbiter opens the envelope; then it is the game's move.
    let table = Table::start(&dir, &game, 4.0, false);
    let t = Instant::now();
    while get(port, "/game.pgn").1.is_empty() {
        assert!(t.elapsed() < Duration::from_secs(10));
        thread::sleep(Duration::from_millis(20));
    }
    thread::sleep(Duration::from_millis(1500));
    assert_sealed_unseen(&table, port);
    let mut arbiter = table.arbiter();
    arbiter.ok("open");
    table.wait_ply(5);
    check_pgn(&table, port, 5, &sans);
    let (_, page) = get(port, "/");
    assert!(page.contains("Qh5"), "{page}");
    let report = table.stop();
    drop(report);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn each_viewer_is_sent_what_changed_and_the_clock_as_it_stands() {
    let dir = temp_dir("web-events");
    let port = free_port();
    write_config(&dir, port);
    let game = moves_of(SCHOLARS);
    let table = Table::start(&dir, &game, 4.0, true);
    table.wait_started();
    // A viewer who comes while White thinks: everything at first, his clock as it stands.
    thread::sleep(Duration::from_millis(1500));
    let (_, before) = get(port, "/table.json");
    let before: TableView = serde_json::from_str(&before).unwrap();
    let mut events = Events::open(port);
    let first: serde_json::Value = serde_json::from_str(&events.next()).unwrap();
    let (_, after) = get(port, "/table.json");
    let after: TableView = serde_json::from_str(&after).unwrap();
    for part in [
        "heading", "turn", "board-0", "board-1", "last", "state", "moves", "clocks",
    ] {
        assert!(first.get(part).is_some(), "{part} missing in {first}");
    }
    let white = first["clocks"]["white_ms"].as_i64().unwrap();
    let (was, now) = (
        before.clocks.as_ref().unwrap().white_ms,
        after.clocks.as_ref().unwrap().white_ms,
    );
    assert!(
        (now..=was).contains(&white),
        "the first event's clock {white} is not between the table's {was} and {now}"
    );
    assert_eq!(first["clocks"]["running"], "white");
    // While he thinks, only the clocks come again: a few bytes, not the page.
    for _ in 0..3 {
        let next = events.next();
        let next: serde_json::Value = serde_json::from_str(&next).unwrap();
        let keys: Vec<&String> = next.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["clocks"], "{next}");
    }
    // His move: what it changed comes, both boards among it (the game moved on).
    let mut assistant = table.connect();
    assistant.ok("move e4");
    assistant.ok("press");
    table.wait_ply(1);
    let t = Instant::now();
    loop {
        let next: serde_json::Value = serde_json::from_str(&events.next()).unwrap();
        if next.get("last").is_some() {
            assert!(next["moves"].as_str().unwrap().contains("e4"), "{next}");
            assert!(next.get("turn").is_some(), "{next}");
            break;
        }
        assert!(
            t.elapsed() < SHOWN_WITHIN,
            "the move was not sent within a second"
        );
    }
    // The blind player executes e4 and answers on his board: a lift there sends that board
    // alone, not the other.
    let t = Instant::now();
    loop {
        let next: serde_json::Value = serde_json::from_str(&events.next()).unwrap();
        if next.get("board-0").is_some() && next.get("last").is_none() {
            assert!(next.get("board-1").is_none(), "{next}");
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "no lift on the tactile board sent alone"
        );
    }
    table.stop();
    let _ = fs::remove_dir_all(&dir);
}

/// Debian's chromium, if installed (scripts/setup installs it).
fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|p| p.join(name))
                    .find(|p| p.is_file())
            })
        })
}

/// Run headless chromium with `args` on `url`; its standard output.
fn browse(browser: &Path, profile: &Path, args: &[&str], url: &str) -> String {
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-dev-shm-usage",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .output()
        .expect("chromium runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The text of the element with `id` in a dumped DOM (its first text, tags dropped).
fn element_text(dom: &str, id: &str) -> Option<String> {
    let start = dom.find(&format!("id=\"{id}\""))?;
    let rest = &dom[start..];
    let open = rest.find('>')?;
    let close = rest.find("</")?;
    Some(rest[open + 1..close].trim().to_string())
}

/// A clock as the page writes it (`h:mm:ss` or `m:ss`), in ms.
fn clock_ms(text: &str) -> Option<i64> {
    text.split(':')
        .try_fold(0i64, |total, part| {
            Some(total * 60 + part.parse::<i64>().ok()?)
        })
        .map(|seconds| seconds * 1000)
}

#[test]
fn a_browser_shows_each_move_and_the_clocks() {
    let Some(browser) = chromium() else {
        panic!("chromium is not installed: run scripts/setup (apt-get install chromium)");
    };
    let dir = temp_dir("web-browser");
    let port = free_port();
    write_config(&dir, port);
    let game = moves_of(SCHOLARS);
    let sans: Vec<&str> = SCHOLARS.split(' ').collect();
    let table = Table::start(&dir, &game, 4.0, true);
    table.wait_started();
    let url = format!("http://127.0.0.1:{port}/");
    let profile = dir.join("chromium-profile");
    let mut assistant = table.connect();
    let mut ply = 0;
    for san in ["e4", "Bc4", "Qh5", "Qxf7#"] {
        assistant.ok(&format!("move {san}"));
        assistant.ok("press");
        for _ in 0..2 {
            if ply == sans.len() {
                break;
            }
            ply += 1;
            table.wait_ply(ply);
            // The page (as served) shows the move within a second of its counting.
            let t = Instant::now();
            while !get(port, "/")
                .1
                .contains(&format!(" {}</strong>", sans[ply - 1]))
            {
                assert!(
                    t.elapsed() <= SHOWN_WITHIN,
                    "ply {ply} not shown within a second"
                );
                thread::sleep(Duration::from_millis(20));
            }
            // And the browser shows it, with the clocks as the table has them. The table is
            // read just before and just after the browser read the page: the simulated game
            // goes on meanwhile (the blind player may answer, and his increment be added).
            let t0 = Instant::now();
            let (_, before) = get(port, "/table.json");
            let before: TableView = serde_json::from_str(&before).unwrap();
            let dom = browse(&browser, &profile, &["--dump-dom"], &url);
            let (_, after) = get(port, "/table.json");
            let after: TableView = serde_json::from_str(&after).unwrap();
            let elapsed = i64::try_from(t0.elapsed().as_millis()).unwrap();
            assert!(
                element_text(&dom, "last").is_some() && dom.contains(sans[ply - 1]),
                "ply {ply}: {dom}"
            );
            let (was, now) = (
                before.clocks.clone().expect("a clock"),
                after.clocks.clone().expect("a clock"),
            );
            for (side, was, now) in [
                ("white", was.white_ms, now.white_ms),
                ("black", was.black_ms, now.black_ms),
            ] {
                let shown = element_text(&dom, &format!("clock-{side}")).unwrap_or_default();
                // Between the readings a clock only ran down (by at most the time between
                // them) or gained an increment (then it reads at most the later value); the
                // page shows whole seconds, rounded down.
                let (low, high) = (was.min(now) - elapsed - 1000, was.max(now));
                let shown_ms = clock_ms(&shown);
                assert!(
                    shown_ms.is_some_and(|ms| (low..=high).contains(&ms)),
                    "ply {ply}: {side}'s clock shows {shown:?}; the table had {} then {} \
                     ({elapsed} ms apart)",
                    clock_text(was),
                    clock_text(now)
                );
            }
        }
        if ply == sans.len() {
            break;
        }
    }
    let shot = dir.join("table-page.png");
    browse(
        &browser,
        &profile,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1280,1400",
        ],
        &url,
    );
    assert!(
        fs::metadata(&shot).is_ok_and(|m| m.len() > 1000),
        "no screenshot"
    );
    println!("screenshot of the table's page: {}", shot.display());
    let dom = browse(&browser, &profile, &["--dump-dom"], &url);
    assert!(dom.contains("Over: 1-0"), "{dom}");
    table.stop();
}

/// `GET path` until it answers (the server may still be starting).
fn get_when_up(port: u16, path: &str) -> String {
    let t = Instant::now();
    loop {
        if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) {
            let _ = write!(stream, "GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n");
            let mut response = String::new();
            if stream.read_to_string(&mut response).is_ok()
                && let Some((_, body)) = response.split_once("\r\n\r\n")
            {
                return body.to_string();
            }
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "{path} never answered"
        );
        thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_hall_serves_each_table_with_its_board_number() {
    let dir = temp_dir("web-hall");
    write_config(&dir, free_port());
    let game = moves_of(SCHOLARS);
    let table = Table::start(&dir, &game, 4.0, true);
    table.wait_started();
    let mut assistant = table.connect();
    assistant.ok("move e4");
    assistant.ok("press");
    table.wait_ply(2);
    // Two boards of the hall read this table's record folder (the newest game in it).
    let hall_port = free_port();
    let listen = format!("127.0.0.1:{hall_port}");
    let played = dir.join("played");
    let played = played.to_str().unwrap();
    let mut hall = support::process::spawn(
        &["hall", "--listen", &listen, played, played],
        &dir,
        "hall",
        &[],
    );
    let t = Instant::now();
    let games = loop {
        let text = get_when_up(hall_port, "/games.pgn");
        let games = read_pgn(text.as_bytes()).unwrap_or_else(|e| panic!("{e}:\n{text}"));
        if games.len() == 2 && games.iter().all(|g| g.moves.len() == 2) {
            break games;
        }
        assert!(t.elapsed() < Duration::from_secs(30), "{text}");
        thread::sleep(Duration::from_millis(100));
    };
    for (i, g) in games.iter().enumerate() {
        assert_eq!(g.tag("Board"), Some((i + 1).to_string().as_str()));
        assert_eq!(g.tag("Round"), Some("3"));
        assert!(g.clocks.iter().all(Option::is_some));
    }
    let page = get_when_up(hall_port, "/");
    assert!(
        page.contains("Weiss Sehend") && page.contains("in play"),
        "{page}"
    );
    assert!(page.contains("1:30:"), "{page}");
    assert!(page.contains("1... e5"), "each table's last move: {page}");
    assert!(!page.contains("stopped"), "{page}");
    // The table's tactus stops (Ctrl-C): the hall shows the table stopped, its clocks not
    // running, and warns the arbiter; its last status still said "in play".
    table.stop();
    let t = Instant::now();
    let page = loop {
        let page = get_when_up(hall_port, "/");
        if page.contains("stopped: tactus is not running") {
            break page;
        }
        assert!(t.elapsed() < Duration::from_secs(30), "{page}");
        thread::sleep(Duration::from_millis(100));
    };
    assert!(!page.contains("(running)"), "{page}");
    assert!(page.contains("tactus stopped at this table"), "{page}");
    assert!(page.contains("1... e5"), "{page}");
    // The hall ends on SIGTERM (systemd's stop), as on Ctrl-C.
    hall.signal("-TERM");
    let status = hall.wait_limit(Duration::from_secs(10));
    assert!(status.success(), "{status:?}");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn check_config_says_where_the_page_is_and_refuses_an_address_taken() {
    let dir = temp_dir("web-check");
    let port = free_port();
    write_config(&dir, port);
    let config = dir.join("config.toml");
    let check = || {
        Command::new(support::process::TACTUS)
            .arg("check-config")
            .arg(&config)
            .current_dir(&dir)
            .output()
            .unwrap()
    };
    let out = check();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(
        said.contains(&format!("page of the table: http://127.0.0.1:{port}/"))
            && said.contains("this computer only")
            && said.contains("games.pgn kept in"),
        "{said}"
    );
    // Another program on the port: refused as `run` would, naming the key.
    let _taken = TcpListener::bind(("127.0.0.1", port)).unwrap();
    let out = check();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{out:?}");
    assert!(
        err.contains("web.listen") && err.contains(&port.to_string()),
        "{err}"
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn the_hall_links_each_table_to_its_own_page_or_says_it_knows_none() {
    let dir = temp_dir("web-hall-link");
    let port = free_port();
    write_config(&dir, port);
    let game = moves_of(SCHOLARS);
    let table = Table::start(&dir, &game, 4.0, true);
    table.wait_started();
    // The table's daemon says in table.json where its page is.
    let t = Instant::now();
    let status = loop {
        let text = fs::read_to_string(table.folder().join("table.json")).unwrap_or_default();
        if text.contains("\"page\"") {
            break text;
        }
        assert!(t.elapsed() < Duration::from_secs(30), "no page in {text}");
        thread::sleep(Duration::from_millis(50));
    };
    // A second table whose status file says nothing of a page (a tactus of before, say).
    let other = dir.join("other");
    fs::create_dir(&other).unwrap();
    let mut view: serde_json::Value = serde_json::from_str(&status).unwrap();
    view.as_object_mut().unwrap().remove("page");
    fs::write(other.join("table.json"), view.to_string()).unwrap();
    let hall_port = free_port();
    let listen = format!("127.0.0.1:{hall_port}");
    let played = dir.join("played");
    let _hall = support::process::spawn(
        &[
            "hall",
            "--listen",
            &listen,
            played.to_str().unwrap(),
            other.to_str().unwrap(),
        ],
        &dir,
        "hall",
        &[],
    );
    let page = get_when_up(hall_port, "/");
    let rows: Vec<&str> = page
        .split("<tr")
        .skip(2)
        .map(|row| row.split("</tr>").next().unwrap_or(""))
        .collect();
    assert_eq!(rows.len(), 2, "{page}");
    let url = format!("http://127.0.0.1:{port}/");
    assert!(
        rows[0].contains(&format!(
            "<a href=\"{url}\">{url}</a> (on the table's computer only)"
        )),
        "{}",
        rows[0]
    );
    assert!(rows[1].contains("none known"), "{}", rows[1]);
    assert!(!rows[1].contains("<a href"), "{}", rows[1]);
    // And the link leads to the table's page.
    assert!(get(port, "/").1.contains("Weiss Sehend"));
    table.stop();
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_broadcast_folder_re_pointed_mid_game_gets_no_write_through_the_new_path() {
    let dir = temp_dir("web-broadcast-repoint");
    let port = free_port();
    write_config(&dir, port);
    let game = moves_of(SCHOLARS);
    let table = Table::start(&dir, &game, 4.0, true);
    table.wait_started();
    let mut assistant = table.connect();
    assistant.ok("move e4");
    assistant.ok("press");
    table.wait_ply(2);
    let broadcast = dir.join("broadcast");
    let games = |folder: &Path| {
        read_pgn(
            fs::read_to_string(folder.join("games.pgn"))
                .unwrap_or_default()
                .as_bytes(),
        )
        .ok()
        .and_then(|g| g.first().map(|g| g.moves.len()))
    };
    let t = Instant::now();
    while games(&broadcast) != Some(2) {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "games.pgn never at 2"
        );
        thread::sleep(Duration::from_millis(20));
    }
    // The folder renamed and a link to elsewhere put in its place: a write by path would land
    // there, where the broadcaster now reads.
    let moved = dir.join("moved");
    let elsewhere = dir.join("elsewhere");
    fs::rename(&broadcast, &moved).unwrap();
    fs::create_dir(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &broadcast).unwrap();
    assistant.ok("move Bc4");
    assistant.ok("press");
    table.wait_ply(4);
    pgn_at(port, 4);
    thread::sleep(Duration::from_millis(1500));
    assert!(
        !elsewhere.join("games.pgn").exists(),
        "games.pgn was written through the new path"
    );
    assert_eq!(
        games(&moved),
        Some(2),
        "the folder held keeps the last game trusted"
    );
    table.stop();
    let _ = fs::remove_dir_all(&dir);
}
