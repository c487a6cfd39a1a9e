//! A real `tactus run` at a table whose blind player (White) plays on a pegged board speaking the
//! line protocol on a port the test provides (its own pegged board over a pty pair, or the
//! simulated microcontroller's UART), the sighted player (Black) on a plain board whose moves
//! are typed, speech off (announcements go to the transcript). The test owns the board; this
//! owns the daemon, its folder and its console.

use std::{
    fs,
    path::{Path, PathBuf},
    time::Duration,
};

use tactus::daemon::files::TRANSCRIPT_FILE;

use super::{
    console::{ask, ply_of},
    process::{Guard, ask_when_up, show, spawn, wait_until},
    record::game_folder,
    table::{TIME_CONTROL, fast_profile},
};

/// How long a table is waited for (a start, a move, a line of the transcript).
pub const LIMIT: Duration = Duration::from_secs(30);

/// The daemon of a line-protocol table, in `dir` (removed when dropped, unless the test failed
/// or `TACTUS_KEEP_TABLE` is set).
pub struct LineTable {
    pub dir: PathBuf,
    daemon: Option<Guard>,
    /// The name of the current run's logs (`run`, then `run2`, ... after a restart).
    run: String,
}

impl LineTable {
    /// `tactus run` in `dir` with the blind player's board on `port` and his voice pack `pack`;
    /// returns once the arbiter's `start` has been taken (the board has been read).
    pub fn start(dir: PathBuf, port: &Path, pack: &str) -> LineTable {
        let pegged = fast_profile(
            &dir,
            "pegged-line.toml",
            &[
                ("name = \"pegged-line\"", "name = \"fast-pegged-line\""),
                ("bounce_ms = 40", "bounce_ms = 20"),
            ],
        );
        let config = format!(
            "[game]\nwhite = \"White\"\nblack = \"Black\"\nblind = \"white\"\n\
             time_control = \"{TIME_CONTROL}\"\nguidance_repeat_ms = 60000\n\
             [boards.blind]\nprofile = \"{pegged}\"\nport = \"{}\"\n\
             [boards.sighted]\nprofile = \"manual\"\n\
             [voice]\npack = \"{pack}\"\nstyle = \"san\"\nspeaker = \"none\"\n\
             [record]\ndir = \"played\"\n\
             [console]\nsocket = \"console.sock\"\ntoken_file = \"arbiter.token\"\n",
            port.display()
        );
        fs::write(dir.join("config.toml"), config).unwrap();
        let daemon = spawn(
            &["run", "--config", "config.toml", "--new"],
            &dir,
            "run",
            &[],
        );
        let mut table = LineTable {
            dir,
            daemon: Some(daemon),
            run: "run".into(),
        };
        // Play starts at `start`, once the board has been read.
        let started = wait_until(LIMIT, || {
            table
                .console("start")
                .last()
                .is_some_and(|l| l.starts_with("ok"))
        });
        assert!(started, "start refused\n{}", table.transcript());
        table
    }

    pub fn socket(&self) -> PathBuf {
        self.dir.join("console.sock")
    }

    /// Waits until the daemon's console answers (failing with its log if it died).
    pub fn console_up(&mut self) -> PathBuf {
        let (socket, dir) = (self.socket(), self.dir.clone());
        ask_when_up(
            &socket,
            "status",
            self.daemon.as_mut().unwrap(),
            &dir,
            &self.run,
            LIMIT,
        );
        socket
    }

    /// A command at the assistant's console, and its reply.
    pub fn console(&mut self, command: &str) -> Vec<String> {
        let socket = self.console_up();
        ask(&socket, command).unwrap_or_else(|e| panic!("{command}: {e}"))
    }

    pub fn ply(&mut self) -> usize {
        ply_of(&self.console("status"))
    }

    /// Whether the game reaches `ply` half-moves within [`LIMIT`].
    pub fn reaches_ply(&mut self, ply: usize) -> bool {
        wait_until(LIMIT, || self.ply() == ply)
    }

    pub fn transcript(&self) -> String {
        fs::read_to_string(game_folder(&self.dir.join("played")).join(TRANSCRIPT_FILE))
            .unwrap_or_default()
    }

    /// The transcript once it holds `text` (`Err` with the last one read, if it never does).
    pub fn transcript_with(&self, text: &str) -> Result<String, String> {
        let mut last = String::new();
        let found = wait_until(LIMIT, || {
            last = self.transcript();
            last.contains(text)
        });
        if found { Ok(last) } else { Err(last) }
    }

    /// The daemon's log, for a failure's message.
    pub fn log(&self) -> String {
        show(&self.dir, &self.run)
    }

    /// SIGKILL: a crash, nothing written at the end.
    pub fn kill(&mut self) {
        self.daemon.take().unwrap().sigkill();
    }

    /// `tactus run --resume` on the game folder, after a [`LineTable::kill`]; returns once its
    /// console answers (the clocks stand until `resume`).
    pub fn resume(&mut self) {
        assert!(self.daemon.is_none(), "the daemon still runs");
        let folder = game_folder(&self.dir.join("played"));
        let n = self
            .run
            .trim_start_matches("run")
            .parse::<u32>()
            .unwrap_or(1)
            + 1;
        self.run = format!("run{n}");
        self.daemon = Some(spawn(
            &[
                "run",
                "--config",
                "config.toml",
                "--resume",
                folder.to_str().unwrap(),
            ],
            &self.dir,
            &self.run,
            &[],
        ));
        self.console_up();
    }

    /// SIGTERM, as systemd stops it; the game folder it leaves.
    pub fn stop(&mut self) -> PathBuf {
        let mut daemon = self.daemon.take().unwrap();
        daemon.signal("-TERM");
        assert!(daemon.wait_limit(LIMIT).success(), "{}", self.log());
        game_folder(&self.dir.join("played"))
    }
}

impl Drop for LineTable {
    fn drop(&mut self) {
        if !std::thread::panicking() && std::env::var_os("TACTUS_KEEP_TABLE").is_none() {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}
