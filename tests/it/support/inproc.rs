//! The daemon in the test's own process: `tactus::daemon::run` on a tokio runtime the test owns,
//! with the tactile board simulated over a real pseudo-terminal (the daemon's `sim` port: the
//! blind player's hands play his moves from a list and execute the opponent's as they hear
//! them), the sighted board without sensors (his moves are entered at the console), speech off
//! (announcements go to the transcript and count as said at once), and clients of the real
//! console socket ([`Conn`]) speaking the wire protocol as `tactus console` or socat would.
//!
//! Used by the console tests; the end-to-end game tests run the binary instead
//! ([`super::process`]).

use std::{
    fs,
    io::{BufRead, BufReader, Write},
    os::unix::net::UnixStream,
    path::{Path, PathBuf},
    thread,
    time::{Duration, Instant},
};

use shakmaty::{ByColor, Color, Move};
use tactus::{
    config::Config,
    daemon::{RunOptions, RunReport, SimSettings},
};
use tactus_core::console::wire::{WireLine, classify};
use tokio_util::sync::CancellationToken;

use super::{
    console::ply_of,
    record::game_folder,
    table::{TIME_CONTROL, fast_profile},
};

/// How long a test waits for the daemon to come up, a reply, or the game to get somewhere.
pub const LIMIT: Duration = Duration::from_secs(60);

/// A running daemon.
pub struct Table {
    pub dir: PathBuf,
    pub socket: PathBuf,
    runtime: Option<tokio::runtime::Runtime>,
    cancel: CancellationToken,
    handle: Option<tokio::task::JoinHandle<anyhow::Result<RunReport>>>,
}

/// The table's configuration: the blind player's colour, his simulated pegged board (a faster
/// copy of the shipped profile), the sighted board manual, speech off.
pub fn write_config(dir: &Path, blind: Color) -> PathBuf {
    let pegged = fast_profile(
        dir,
        "pegged-line.toml",
        &[
            ("name = \"pegged-line\"", "name = \"fast-pegged-line\""),
            ("bounce_ms = 40", "bounce_ms = 20"),
        ],
    );
    let blind = match blind {
        Color::White => "white",
        Color::Black => "black",
    };
    let text = format!(
        "[game]\nwhite = \"Weiss Sehend\"\nblack = \"Schwarz Blind\"\nblind = \"{blind}\"\n\
         time_control = \"{TIME_CONTROL}\"\nguidance_repeat_ms = 3000\n\
         event = \"Console Open\"\nsite = \"Testhalle\"\nround = \"3\"\n\
         [boards.blind]\nprofile = \"{pegged}\"\nport = \"sim\"\n\
         [boards.sighted]\nprofile = \"manual\"\n\
         [voice]\npack = \"de-fide\"\nstyle = \"san\"\nspeaker = \"none\"\n\
         [record]\ndir = \"played\"\n[console]\nsocket = \"console.sock\"\n"
    );
    let path = dir.join("config.toml");
    fs::write(&path, text).unwrap();
    path
}

/// A table with two blind players (IBCA): each on his own simulated pegged board, each hearing
/// his own voice pack (`packs`: White's, Black's), speech off.
pub fn write_config_two_blind(dir: &Path, packs: [&str; 2]) -> PathBuf {
    let pegged = fast_profile(
        dir,
        "pegged-line.toml",
        &[
            ("name = \"pegged-line\"", "name = \"fast-pegged-line\""),
            ("bounce_ms = 40", "bounce_ms = 20"),
        ],
    );
    let [white, black] = packs;
    let text = format!(
        "[game]\nwhite = \"Weiss Blind\"\nblack = \"Black Blind\"\nblind = \"both\"\n\
         time_control = \"{TIME_CONTROL}\"\nguidance_repeat_ms = 3000\n\
         event = \"IBCA Open\"\nsite = \"Testhalle\"\nround = \"1\"\n\
         [boards.white]\nprofile = \"{pegged}\"\nport = \"sim\"\n\
         [boards.black]\nprofile = \"{pegged}\"\nport = \"sim\"\n\
         [voice]\npack = \"{white}\"\nstyle = \"san\"\nspeaker = \"none\"\n\
         [voice.white]\npack = \"{white}\"\n[voice.black]\npack = \"{black}\"\n\
         [record]\ndir = \"played\"\n[console]\nsocket = \"console.sock\"\n"
    );
    let path = dir.join("config.toml");
    fs::write(&path, text).unwrap();
    path
}

impl Table {
    /// Start the daemon in `dir` (whose `config.toml` is the table's); `moves` are the game the
    /// simulated blind player knows (his own moves are taken from it, in order), `speed` scales
    /// his pauses (1.0: a second's thought before each own move). `new_game`: false resumes the
    /// unfinished game in the folder.
    pub fn start(dir: &Path, moves: &[Move], speed: f64, new_game: bool) -> Table {
        let sim = SimSettings {
            moves: moves.to_vec(),
            speed,
            ..SimSettings::default()
        };
        Table::start_sim(dir, sim, new_game)
    }

    /// [`Table::start`] with every setting of the simulated blind player.
    pub fn start_sim(dir: &Path, sim: SimSettings, new_game: bool) -> Table {
        let config_path = dir.join("config.toml");
        let config = Config::load(&config_path).unwrap();
        let socket = config.socket_path();
        let opts = RunOptions {
            config,
            origin: config_path.display().to_string(),
            resume: None,
            new_game,
            sim,
            echo: false,
            stop_when_played: false,
            log: None,
            voices_dir: Path::new(env!("CARGO_MANIFEST_DIR")).join("voices"),
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let cancel = CancellationToken::new();
        let handle = runtime.spawn(tactus::daemon::run(opts, cancel.clone()));
        let table = Table {
            dir: dir.to_owned(),
            socket,
            runtime: Some(runtime),
            cancel,
            handle: Some(handle),
        };
        // Up when the socket answers.
        let t = Instant::now();
        while UnixStream::connect(&table.socket).is_err() {
            if table.handle.as_ref().is_some_and(|h| h.is_finished()) {
                let mut table = table;
                let end = table.finish();
                panic!("the daemon ended before its console was up: {end:?}");
            }
            assert!(t.elapsed() < LIMIT, "the console never came up");
            thread::sleep(Duration::from_millis(10));
        }
        table
    }

    fn finish(&mut self) -> anyhow::Result<RunReport> {
        self.cancel.cancel();
        let runtime = self.runtime.take().expect("stopped once");
        let handle = self.handle.take().expect("stopped once");
        let report = runtime
            .block_on(handle)
            .expect("the daemon's task panicked");
        runtime.shutdown_timeout(Duration::from_secs(5));
        report
    }

    /// Stop the daemon as SIGTERM would, and wait until its files are written.
    pub fn stop(mut self) -> RunReport {
        self.finish().expect("the daemon failed")
    }

    /// The game's folder.
    pub fn folder(&self) -> PathBuf {
        game_folder(&self.dir.join("played"))
    }

    /// The arbiter's token, from the file the daemon made in the game folder.
    pub fn token(&self) -> String {
        let path = self.folder().join("arbiter.token");
        fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .trim()
            .to_string()
    }

    pub fn transcript(&self) -> String {
        fs::read_to_string(self.folder().join("transcript.txt")).unwrap_or_default()
    }

    pub fn journal(&self) -> String {
        fs::read_to_string(self.folder().join("journal.jsonl")).unwrap()
    }

    /// A new connection (the assistant's role, as every connection starts).
    pub fn connect(&self) -> Conn {
        Conn::open(&self.socket)
    }

    /// A connection switched to the blind player's role: the reply says, in his words, whose
    /// keypad it is now (at a table with two, a keypad that names no seat is nobody's yet).
    pub fn player(&self) -> Conn {
        let mut c = self.connect();
        let config = Config::load(&self.dir.join("config.toml")).unwrap();
        let expected = match config.blind_seats() {
            ByColor {
                white: true,
                black: true,
            } => "role player".to_string(),
            ByColor { white: true, .. } => self.keypad_ready(Color::White),
            _ => self.keypad_ready(Color::Black),
        };
        assert_eq!(c.ok_summary("role player"), expected);
        c
    }

    /// A connection switched to the keypad of the blind player of `seat` (a table with two).
    pub fn player_at(&self, seat: Color) -> Conn {
        let mut c = self.connect();
        let role = format!("role player {seat}");
        assert_eq!(c.ok_summary(&role), self.keypad_ready(seat));
        c
    }

    /// What the keypad of `seat`'s player says on taking his seat, in his pack's words.
    pub fn keypad_ready(&self, seat: Color) -> String {
        let config = Config::load(&self.dir.join("config.toml")).unwrap();
        let pack = config.voice.packs(config.blind_seats())[seat].clone();
        let pack = tactus_core::announce::voice::VoicePack::builtin(&pack).unwrap();
        pack.keypad().ready(seat)
    }

    /// A connection logged in as the arbiter.
    pub fn arbiter(&self) -> Conn {
        let mut c = self.connect();
        let token = self.token();
        assert_eq!(c.ok_summary(&format!("login {token}")), "role arbiter");
        c
    }

    /// `status` until `check` holds; the last status.
    pub fn wait_status(&self, what: &str, check: impl Fn(&[String]) -> bool) -> Vec<String> {
        let mut c = self.connect();
        let t = Instant::now();
        loop {
            let status = c.ok("status");
            if check(&status) {
                return status;
            }
            assert!(
                t.elapsed() < LIMIT,
                "waited in vain for {what}: {status:?}\n{}",
                self.transcript()
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Wait until play has started (the tactile board has been read).
    pub fn wait_started(&self) -> Vec<String> {
        self.wait_status("the start", |s| {
            s.iter()
                .any(|l| l == "in play" || l.starts_with("adjourned"))
        })
    }

    /// Wait until the game has `ply` half-moves.
    pub fn wait_ply(&self, ply: usize) -> Vec<String> {
        self.wait_status(&format!("ply {ply}"), |s| ply_of(s) == ply)
    }

    /// What `audience` (`blind`, `sighted`, `both`, or `note`) has been told so far: the
    /// transcript's lines for it, without the time.
    pub fn said_to(&self, audience: &str) -> Vec<String> {
        let prefix = format!("{audience} ");
        self.transcript()
            .lines()
            .filter_map(|l| l.split_once(' '))
            .filter_map(|(_, rest)| rest.strip_prefix(prefix.as_str()))
            .map(str::to_string)
            .collect()
    }

    /// Wait until `audience` has been told at least `count` things after the first `before`,
    /// and return everything after those (speech writes the transcript in its own task, so a
    /// line may land just after the reply).
    pub fn said_after(&self, audience: &str, before: usize, count: usize) -> Vec<String> {
        let t = Instant::now();
        loop {
            let said = self.said_to(audience);
            if said.len() >= before + count {
                return said[before..].to_vec();
            }
            assert!(
                t.elapsed() < LIMIT,
                "{audience} was never told {count} more things:\n{}",
                self.transcript()
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Wait until the transcript holds `text`.
    pub fn wait_transcript(&self, text: &str) -> String {
        let t = Instant::now();
        loop {
            let transcript = self.transcript();
            if transcript.contains(text) {
                return transcript;
            }
            assert!(
                t.elapsed() < LIMIT,
                "the transcript never said {text:?}:\n{transcript}"
            );
            thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        if self.runtime.is_some() {
            let _ = self.finish();
        }
    }
}

/// One reply: its body lines, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub body: Vec<String>,
    /// `Ok(summary)` or `Err(reason)`.
    pub end: Result<String, String>,
}

/// A console client over the real socket.
pub struct Conn {
    stream: UnixStream,
    reader: BufReader<UnixStream>,
    /// Event lines (`# ...`) seen so far, without the `# `.
    pub events: Vec<String>,
}

impl Conn {
    pub fn open(socket: &Path) -> Conn {
        let stream = UnixStream::connect(socket).unwrap();
        stream.set_read_timeout(Some(LIMIT)).unwrap();
        let reader = BufReader::new(stream.try_clone().unwrap());
        Conn {
            stream,
            reader,
            events: Vec::new(),
        }
    }

    /// Send raw bytes (no line end added).
    pub fn write_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap();
    }

    /// The next reply (event lines before and inside it are collected).
    pub fn reply(&mut self) -> Reply {
        let mut body = Vec::new();
        loop {
            let mut line = String::new();
            let n = self.reader.read_line(&mut line).unwrap();
            assert!(n > 0, "the daemon closed the connection after {body:?}");
            let line = line.trim_end_matches(['\n', '\r']);
            match classify(line) {
                WireLine::Event(text) => self.events.push(text.to_string()),
                WireLine::Body(text) => body.push(text.to_string()),
                WireLine::Ok(summary) => {
                    return Reply {
                        body,
                        end: Ok(summary.to_string()),
                    };
                }
                WireLine::Error(reason) => {
                    return Reply {
                        body,
                        end: Err(reason.to_string()),
                    };
                }
            }
        }
    }

    /// Send one command and read its reply.
    pub fn send(&mut self, line: &str) -> Reply {
        self.write_raw(format!("{line}\n").as_bytes());
        self.reply()
    }

    /// A command that must be carried out: its body.
    pub fn ok(&mut self, line: &str) -> Vec<String> {
        let reply = self.send(line);
        match reply.end {
            Ok(_) => reply.body,
            Err(e) => panic!("{line}: refused: {e} (body {:?})", reply.body),
        }
    }

    /// A command that must be carried out: its summary.
    pub fn ok_summary(&mut self, line: &str) -> String {
        let reply = self.send(line);
        reply
            .end
            .unwrap_or_else(|e| panic!("{line}: refused: {e} (body {:?})", reply.body))
    }

    /// A command that must be refused: the reason.
    pub fn refused(&mut self, line: &str) -> String {
        let reply = self.send(line);
        match reply.end {
            Err(e) => e,
            Ok(_) => panic!(
                "{line}: carried out, but should be refused: {:?}",
                reply.body
            ),
        }
    }
}
