//! Shared helpers for the daemon's end-to-end tests (`daemon_games`, `daemon_recovery`): the
//! `tactus` binary as a child the test owns (killed by its own handle, never by name), a table
//! of fast simulated boards, the console socket, games from `../shared/chess-data/`, where a game
//! ends under the Laws, and what the journal says about the clocks.
//!
//! Speech: where ALSA is installed, each daemon gets a private `ALSA_CONFIG_PATH` whose default
//! device is the null PCM, so the clip speaker really plays and an announcement takes real time
//! to finish (tens of milliseconds); elsewhere speech is off and announcements finish at once.
#![allow(dead_code)]

pub mod inproc;

use std::{
    ffi::OsStr,
    fs,
    io::{BufRead, BufReader, Write},
    os::unix::net::UnixStream,
    path::{Path, PathBuf},
    process::{Child, Command, ExitStatus, Stdio},
    thread,
    time::{Duration, Instant},
};

use shakmaty::{Chess, Color, Move, Position};
use tactus::{
    announce::{Announcement, Audience, MoveWords, voice::Style, voice::VoicePack},
    arbiter::Effect,
    daemon::journal::{self, Entry, InputRecord},
    rules::{
        game::{self, Game, GameEnd, RulesConfig},
        notation::san,
        pgn::{PgnGame, read_pgn},
    },
};

pub const TACTUS: &str = env!("CARGO_BIN_EXE_tactus");
/// The time control of every test table (and its increment).
pub const TIME_CONTROL: &str = "5400+30";
pub const INCREMENT_MS: i64 = 30_000;
pub const INITIAL_MS: i64 = 5_400_000;

/// A fresh folder under the system's temporary folder, removed by the caller on success.
pub fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tactus-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// A child killed (by its own handle) when the guard goes, passing or not.
pub struct Guard(pub Option<Child>);

impl Guard {
    pub fn child(&mut self) -> &mut Child {
        self.0.as_mut().expect("the child is still there")
    }
    pub fn pid(&mut self) -> u32 {
        self.child().id()
    }
    /// Wait for the child to end, polling; fails the test past `limit`.
    pub fn wait_limit(&mut self, limit: Duration) -> ExitStatus {
        let t = Instant::now();
        loop {
            if let Some(status) = self.child().try_wait().unwrap() {
                return status;
            }
            assert!(t.elapsed() < limit, "tactus did not end within {limit:?}");
            thread::sleep(Duration::from_millis(20));
        }
    }
    /// SIGKILL (through the child's own handle) and reap it.
    pub fn sigkill(&mut self) {
        let child = self.child();
        child.kill().unwrap();
        child.wait().unwrap();
    }
    /// Send a signal to this child by its pid.
    pub fn signal(&mut self, sig: &str) {
        let pid = self.pid().to_string();
        let ok = Command::new("kill")
            .args([sig, &pid])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill {sig} {pid}");
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// `tactus ARGS` in `dir`, standard output and error into `dir/LOG.out` and `dir/LOG.err`.
pub fn spawn(args: &[&str], dir: &Path, log: &str, env: &[(&str, &OsStr)]) -> Guard {
    let out = fs::File::create(dir.join(format!("{log}.out"))).unwrap();
    let err = fs::File::create(dir.join(format!("{log}.err"))).unwrap();
    let mut command = Command::new(TACTUS);
    command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    for (key, value) in env {
        command.env(key, value);
    }
    Guard(Some(command.spawn().expect("tactus starts")))
}

/// The end of a run's output, for failure messages.
pub fn show(dir: &Path, log: &str) -> String {
    let out = fs::read_to_string(dir.join(format!("{log}.out"))).unwrap_or_default();
    let err = fs::read_to_string(dir.join(format!("{log}.err"))).unwrap_or_default();
    let err: Vec<&str> = err.lines().filter(|l| !l.starts_with("ALSA lib")).collect();
    let tail = err[err.len().saturating_sub(40)..].join("\n");
    format!("--- {log}.out\n{out}\n--- {log}.err (last 40 lines)\n{tail}")
}

/// The only game folder under `dir`.
pub fn game_folder(dir: &Path) -> PathBuf {
    let folders: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(folders.len(), 1, "{folders:?}");
    folders[0].clone()
}

/// A faster copy of a built-in profile (the recognition rules are the same; the board answers
/// and settles sooner), written into `dir`.
pub fn fast_profile(dir: &Path, file: &str, edits: &[(&str, &str)]) -> String {
    let mut text = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("boards")
            .join(file),
    )
    .unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "{file} has no {from}");
        text = text.replace(from, to);
    }
    let name = format!("fast-{file}");
    fs::write(dir.join(&name), text).unwrap();
    name
}

/// Speech on the null PCM (see the module docs), or `None` where ALSA is not installed.
pub fn alsa_null(dir: &Path) -> Option<PathBuf> {
    let system = Path::new("/usr/share/alsa/alsa.conf");
    if !system.is_file() {
        return None;
    }
    let path = dir.join("alsa.conf");
    // The include line matters: ALSA_CONFIG_PATH replaces the whole top-level configuration.
    fs::write(
        &path,
        format!(
            "<{}>\npcm.!default {{\n    type null\n}}\n",
            system.display()
        ),
    )
    .unwrap();
    Some(path)
}

/// A table in `dir`: the blind player (of colour `blind`) on a pegged board in the line
/// protocol, the sighted player on a DGT board whose moves count when it settles, both
/// simulated, with faster profiles than the shipped ones; 90 minutes plus 30 seconds;
/// `speaker` "clips" or "none". Returns the configuration file.
pub fn write_config(dir: &Path, blind: Color, speaker: &str) -> PathBuf {
    let (pegged, dgt) = fast_profiles(dir);
    config_with(dir, blind, speaker, &pegged, &dgt, "settle")
}

/// [`write_config`] with the sighted player's move completed by `completion` (`settle` or
/// `press`).
pub fn write_config_completion(
    dir: &Path,
    blind: Color,
    speaker: &str,
    completion: &str,
) -> PathBuf {
    let (pegged, dgt) = fast_profiles(dir);
    config_with(dir, blind, speaker, &pegged, &dgt, completion)
}

/// The same table with the boards' profiles as shipped (`pegged-line`, `dgt`).
pub fn write_shipped_config(dir: &Path, blind: Color, speaker: &str) -> PathBuf {
    config_with(dir, blind, speaker, "pegged-line", "dgt", "settle")
}

fn fast_profiles(dir: &Path) -> (String, String) {
    let dgt = fast_profile(
        dir,
        "dgt.toml",
        &[
            ("name = \"dgt\"", "name = \"fast-dgt\""),
            ("baud = 9600", "baud = 38400"),
            // The simulator reports every change at once: no sweep to wait for.
            ("scan_ms = 320", "scan_ms = 50"),
            ("keepalive_ms = 2000", "keepalive_ms = 1000"),
        ],
    );
    let pegged = fast_profile(
        dir,
        "pegged-line.toml",
        &[
            ("name = \"pegged-line\"", "name = \"fast-pegged-line\""),
            ("bounce_ms = 40", "bounce_ms = 20"),
        ],
    );
    (pegged, dgt)
}

fn config_with(
    dir: &Path,
    blind: Color,
    speaker: &str,
    pegged: &str,
    dgt: &str,
    completion: &str,
) -> PathBuf {
    let blind = match blind {
        Color::White => "white",
        Color::Black => "black",
    };
    let config = format!(
        "[game]\nwhite = \"White\"\nblack = \"Black\"\nblind = \"{blind}\"\n\
         time_control = \"{TIME_CONTROL}\"\nguidance_repeat_ms = 3000\n\
         [boards.blind]\nprofile = \"{pegged}\"\nport = \"sim\"\n\
         [boards.sighted]\nprofile = \"{dgt}\"\nport = \"sim\"\ncompletion = \"{completion}\"\n\
         [voice]\npack = \"de-fide\"\nstyle = \"san\"\nspeaker = \"{speaker}\"\n\
         [record]\ndir = \"played\"\n\
         [console]\nsocket = \"console.sock\"\ntoken_file = \"arbiter.token\"\n"
    );
    let path = dir.join("config.toml");
    fs::write(&path, config).unwrap();
    path
}

/// Send one command; the reply lines up to `ok` or `error: ...` (event lines `# ...` skipped).
/// A command only the arbiter may use is preceded by `login` with the token of the
/// `arbiter.token` file beside the socket (the test configurations put it there).
pub fn ask(socket: &Path, command: &str) -> std::io::Result<Vec<String>> {
    let mut stream = UnixStream::connect(socket)?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let arbiter_only = command
        .split_whitespace()
        .next()
        .and_then(tactus::console::table::lookup)
        .is_some_and(|spec| spec.role == tactus::console::Role::Arbiter);
    let mut reader = BufReader::new(stream.try_clone()?);
    if arbiter_only {
        let token = fs::read_to_string(socket.with_file_name("arbiter.token"))?;
        stream.write_all(format!("login {}\n", token.trim()).as_bytes())?;
        let login = read_reply(&mut reader)?;
        if login.last().is_none_or(|l| l != "ok role arbiter") {
            return Err(std::io::Error::other(format!("login refused: {login:?}")));
        }
    }
    stream.write_all(format!("{command}\n").as_bytes())?;
    read_reply(&mut reader)
}

/// The lines of one reply, up to its end line (`ok ...` or `error: ...`); event lines skipped.
pub fn read_reply(reader: &mut impl BufRead) -> std::io::Result<Vec<String>> {
    use tactus::console::wire::{WireLine, classify};
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Err(std::io::Error::other(format!(
                "connection closed after {lines:?}"
            )));
        }
        let line = line.trim_end_matches(['\n', '\r']).to_string();
        let kind = classify(&line);
        if matches!(kind, WireLine::Event(_)) {
            continue;
        }
        let end = kind.ends_reply();
        lines.push(line);
        if end {
            return Ok(lines);
        }
    }
}

/// Ask until the daemon answers (it may still be starting); fails if the child ends first.
pub fn ask_when_up(
    socket: &Path,
    command: &str,
    guard: &mut Guard,
    dir: &Path,
    log: &str,
    limit: Duration,
) -> Vec<String> {
    let t = Instant::now();
    loop {
        if let Ok(lines) = ask(socket, command) {
            return lines;
        }
        if let Some(status) = guard.child().try_wait().unwrap() {
            panic!(
                "tactus ended ({status}) before answering\n{}",
                show(dir, log)
            );
        }
        assert!(t.elapsed() < limit, "no console answer\n{}", show(dir, log));
        thread::sleep(Duration::from_millis(20));
    }
}

pub fn ply_of(status: &[String]) -> usize {
    status
        .iter()
        .find_map(|l| l.strip_prefix("ply "))
        .and_then(|rest| rest.split(',').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no ply in {status:?}"))
}

/// The `result ...` line of a status reply, if the game is over.
pub fn result_of(status: &[String]) -> Option<String> {
    status
        .iter()
        .find_map(|l| l.strip_prefix("result "))
        .map(str::to_string)
}

/// Both clocks in seconds from a status reply.
pub fn clocks_of(status: &[String]) -> (i64, i64) {
    let line = status
        .iter()
        .find(|l| l.starts_with("clocks white"))
        .unwrap_or_else(|| panic!("no clocks in {status:?}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    (secs(words[2]), secs(words[4]))
}

/// `h:mm:ss` in seconds.
pub fn secs(t: &str) -> i64 {
    let parts: Vec<i64> = t
        .trim_end_matches(',')
        .split(':')
        .map(|p| p.parse().unwrap())
        .collect();
    parts[0] * 3600 + parts[1] * 60 + parts[2]
}

/// The `n`-th game (1-based) of a chess-data PGN file.
pub fn corpus_game(data: &Path, file: &str, n: usize) -> PgnGame {
    let bytes = fs::read(data.join("pgn").join(file)).unwrap();
    let games = read_pgn(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
    games
        .into_iter()
        .nth(n - 1)
        .unwrap_or_else(|| panic!("{file} has no game {n}"))
}

/// The SAN of `moves` from `start`.
pub fn sans(start: &Chess, moves: &[Move]) -> Vec<String> {
    let mut pos = start.clone();
    moves
        .iter()
        .map(|&m| {
            let s = san(&pos, m);
            pos.play_unchecked(m);
            s
        })
        .collect()
}

/// SAN moves from the initial position, as moves (panics on a move that is not legal).
pub fn moves_of(sans: &str) -> Vec<Move> {
    let mut pos = Chess::default();
    sans.split_whitespace()
        .map(|s| {
            let san: shakmaty::san::San = s.parse().unwrap_or_else(|e| panic!("{s}: {e}"));
            let m = san.to_move(&pos).unwrap_or_else(|e| panic!("{s}: {e}"));
            pos.play_unchecked(m);
            m
        })
        .collect()
}

/// A PGN file of `moves` for `--sim-pgn`.
pub fn write_sim_pgn(path: &Path, moves: &[Move]) {
    let mut text = String::from("[Event \"sim\"]\n[Result \"*\"]\n\n");
    for (i, s) in sans(&Chess::default(), moves).iter().enumerate() {
        if i % 2 == 0 {
            text.push_str(&format!("{}. ", i / 2 + 1));
        }
        text.push_str(s);
        text.push(if i % 16 == 15 { '\n' } else { ' ' });
    }
    text.push_str("*\n");
    fs::write(path, text).unwrap();
}

/// The moves the Laws let be played (a mate, a stalemate or a dead position ends the game at
/// once, 5.1 a, 5.2 a, 5.2 b), with every mateability question answered at once, and how the
/// game ended, if it did.
pub fn lawful_moves(moves: &[Move]) -> (Vec<Move>, Option<GameEnd>) {
    let mut game = Game::from_position(RulesConfig::default(), Chess::default());
    let mut played = Vec::new();
    for (i, &m) in moves.iter().enumerate() {
        game.apply(game::Input::Move(m), i as u64)
            .unwrap_or_else(|e| panic!("ply {}: {e}", i + 1));
        game.resolve_analyses(i as u64);
        played.push(m);
        if game.is_over() {
            break;
        }
    }
    (played, game.end().cloned())
}

/// The game in a PGN file.
pub fn read_game_file(path: &Path) -> PgnGame {
    let bytes = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    read_pgn(&bytes).unwrap().into_iter().next().unwrap()
}

pub fn pack() -> VoicePack {
    VoicePack::builtin("de-fide").unwrap()
}

/// What a transcript line says after its time of day: `blind|sighted|both|note TEXT`.
pub fn transcript_bodies(transcript: &str) -> Vec<String> {
    transcript
        .lines()
        .filter_map(|l| l.split_once(' ').map(|(_, rest)| rest.to_string()))
        .collect()
}

/// The transcript line for a move announcement: to the sighted side for the blind player's
/// move, to the blind player for the sighted player's.
pub fn move_line(pack: &VoicePack, pos: &Chess, m: Move, blind: Color) -> String {
    let text = pack
        .render(&Announcement::Move(MoveWords::new(pos, m)), Style::San)
        .text;
    let audience = if pos.turn() == blind {
        "sighted"
    } else {
        "blind"
    };
    format!("{audience} {text}")
}

/// Every move of `moves` announced, in order, to the right audience. Returns the index among
/// `bodies` of the announcement of each move, or the first one missing.
pub fn find_move_announcements(
    bodies: &[String],
    moves: &[Move],
    blind: Color,
) -> Result<Vec<usize>, String> {
    let pack = pack();
    let mut pos = Chess::default();
    let mut at = 0usize;
    let mut found = Vec::new();
    for (ply, &m) in moves.iter().enumerate() {
        let wanted = move_line(&pack, &pos, m, blind);
        match bodies[at..].iter().position(|b| *b == wanted) {
            Some(i) => {
                found.push(at + i);
                at = at + i + 1;
            }
            None => {
                return Err(format!(
                    "ply {}: '{wanted}' missing (or out of order) in the transcript",
                    ply + 1
                ));
            }
        }
        pos.play_unchecked(m);
    }
    Ok(found)
}

/// The words of an announcement to everyone.
pub fn both_line(announcement: &Announcement) -> String {
    format!("both {}", pack().render(announcement, Style::San).text)
}

/// Poll `check` every 20 ms until it holds or `limit` passes.
pub fn wait_until(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let t = Instant::now();
    loop {
        if check() {
            return true;
        }
        if t.elapsed() > limit {
            return false;
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// What the journal says about the blind player's moves.
#[derive(Debug, Default, Clone)]
pub struct ClockCharges {
    /// Blind moves checked.
    pub moves: usize,
    /// Of these, moves whose announcement took at least a millisecond to finish (so that
    /// charging up to the placement would have given a different clock).
    pub announced_later: usize,
    /// Milliseconds from the input that completed the move (the placement, or the promotion
    /// piece entered) to the end of its announcement, per move.
    pub speech_ms: Vec<u64>,
}

/// Check from the journal that every blind move counted when its announcement finished and that
/// his clock was charged up to then (F.3 c, F.9 c): after his move it shows what it showed after
/// his previous one, plus the increment, minus the time from the start of his turn to the end of
/// the announcement. Only for games without pauses, retraces or corrections.
pub fn check_blind_clock(journal_path: &Path, blind: Color) -> Result<ClockCharges, String> {
    let read = journal::read(journal_path).map_err(|e| format!("{e:#}"))?;
    let mut says: Vec<(u64, u64)> = Vec::new();
    let replayed = journal::replay(&read, |t, effect| {
        if let Effect::Say {
            id,
            audience: Audience::Sighted,
            announcement: Announcement::Move(_),
        } = effect
        {
            says.push((*id, t));
        }
    })
    .map_err(|e| format!("{e:#}"))?;
    let mut finished = std::collections::BTreeMap::new();
    let mut start = None;
    for entry in &read.entries {
        if let Entry::Input { t, input, .. } = entry {
            match input {
                InputRecord::SpeechFinished { id } => {
                    finished.entry(*id).or_insert(*t);
                }
                InputRecord::Start => start = start.or(Some(*t)),
                _ => {}
            }
        }
    }
    let game = replayed.arbiter.game();
    let moves = game.moves();
    let end_ply = game.end().map(|e| e.ply);
    // A move that ends the game stops the clock without an increment (6.7 a); a resignation or
    // an agreement after it does not take the increment back.
    let ended_by_move = game.end().is_some_and(|e| {
        matches!(
            e.reason,
            game::EndReason::Checkmate | game::EndReason::Stalemate | game::EndReason::DeadPosition
        )
    });
    let mut out = ClockCharges::default();
    let mut says = says.into_iter();
    for (k, record) in moves.iter().enumerate() {
        if record.side != blind {
            continue;
        }
        let (id, said_at) = says
            .next()
            .ok_or_else(|| format!("ply {}: no announcement to the sighted side", k + 1))?;
        let done = *finished
            .get(&id)
            .ok_or_else(|| format!("ply {}: its announcement never finished", k + 1))?;
        if record.at != done {
            return Err(format!(
                "ply {} ({}): counted at {} ms, its announcement finished at {done} ms",
                k + 1,
                record.san,
                record.at
            ));
        }
        if done < said_at {
            return Err(format!("ply {}: finished before it was said", k + 1));
        }
        let turn_start = match k {
            0 => start.ok_or("no start in the journal")?,
            _ => moves[k - 1].at,
        };
        let before = match k {
            0 | 1 => INITIAL_MS,
            _ => *moves[k - 2]
                .clocks_after
                .ok_or("no clocks recorded")?
                .get(blind),
        };
        let after = *record.clocks_after.ok_or("no clocks recorded")?.get(blind);
        let increment = if end_ply == Some(k + 1) && ended_by_move {
            0
        } else {
            INCREMENT_MS
        };
        let charged = before + increment - after;
        let thinking = (done - turn_start) as i64;
        if charged != thinking {
            return Err(format!(
                "ply {} ({}): clock charged {charged} ms, but from the start of his turn to the \
                 end of the announcement {thinking} ms passed (placement at {said_at} ms)",
                k + 1,
                record.san
            ));
        }
        out.moves += 1;
        out.speech_ms.push(done - said_at);
        if done > said_at {
            out.announced_later += 1;
        }
    }
    Ok(out)
}
