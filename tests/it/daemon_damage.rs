//! Nothing lost, nobody in (issue 14): a damaged journal is never replaced by a fresh game in
//! silence, a torn tail is cut only after the original is kept, a line lost from the middle is
//! seen, the game's files trust only their owner and are private, and the exit message says
//! when the files are not the game.
//!
//! Journals are made with the library (`Journal`, the header the daemon would write for the
//! test's `config.toml`), damaged by hand, and then given to the real binary (`tactus run`) or
//! to `journal::read`. A run that starts a game instead of refusing is killed and the test fails.

use std::{
    fs,
    os::unix::fs::{MetadataExt, PermissionsExt},
    path::{Path, PathBuf},
    process::{Command, Stdio},
    thread,
    time::{Duration, Instant},
};

use shakmaty::Chess;
use tactus::{
    config::{Config, Settings},
    daemon::{
        files,
        journal::{self, Journal},
        setup,
    },
    store::trusted::TrustedDir,
};
use tactus_core::{
    announce::voice::Style,
    arbiter::Input,
    journal::{Damage, FORMAT_VERSION, Header, JOURNAL_FILE, SetupRecord},
};

/// A run that refuses does so at once; one that starts a game is killed after this.
const REFUSAL_LIMIT: Duration = Duration::from_secs(20);

/// A fresh directory for one test (removed when the test passes).
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = crate::support::table::temp_dir(&format!("damage-{name}"));
        // The output folder's parent must not be writable by others either (the temp dir is).
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !thread::panicking() {
            let _ = fs::remove_dir_all(&self.0);
        }
    }
}

/// The table: the blind player's pegged board simulated, the sighted board manual, no speech,
/// games under `played/`.
fn write_config(dir: &Path) -> PathBuf {
    let boards = Path::new(env!("CARGO_MANIFEST_DIR")).join("boards");
    let text = format!(
        "[game]\nwhite = \"Weiss\"\nblack = \"Schwarz\"\nblind = \"white\"\n\
         time_control = \"300+2\"\n\
         [boards.blind]\nprofile = \"{}\"\nport = \"sim\"\n\
         [boards.sighted]\nprofile = \"manual\"\n\
         [voice]\npack = \"de-fide\"\nstyle = \"san\"\nspeaker = \"none\"\n\
         [record]\ndir = \"played\"\n[console]\nsocket = \"console.sock\"\n",
        boards.join("pegged-line.toml").display()
    );
    let path = dir.join("config.toml");
    fs::write(&path, text).unwrap();
    path
}

/// The header the daemon writes for this table.
fn header(config_path: &Path) -> Header {
    let config = Config::load(config_path).unwrap();
    let origin = config_path.display().to_string();
    let cfg = Settings::resolve(&config, &origin).unwrap().arbiter;
    Header {
        version: FORMAT_VERSION,
        game: String::new(),
        created_unix_ms: 1,
        tags: config.tags(),
        setup: SetupRecord::new(&cfg, &Chess::default(), "de-fide", Style::San),
    }
}

/// A game folder under `played/` with a journal of `inputs` (Start, then ticks): returns the
/// folder and the journal's lines (each with its newline).
fn game_folder(dir: &Path, inputs: usize) -> (PathBuf, Vec<String>) {
    let config = dir.join("config.toml");
    let folder = dir.join("played").join("2026-12-01_100000_Weiss-Schwarz");
    fs::create_dir_all(&folder).unwrap();
    fs::set_permissions(dir.join("played"), fs::Permissions::from_mode(0o700)).unwrap();
    let path = folder.join(JOURNAL_FILE);
    let mut j = Journal::create(&path, &header(&config)).unwrap();
    j.input(0, &Input::Start).unwrap();
    for i in 1..inputs {
        j.input(i as u64 * 1000, &Input::Tick).unwrap();
    }
    drop(j);
    let text = fs::read_to_string(&path).unwrap();
    (
        folder,
        text.split_inclusive('\n').map(str::to_owned).collect(),
    )
}

fn folders(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir.join("played"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `tactus run` in `dir`: must stop by itself with an error. Returns its standard error.
fn refused_run(dir: &Path, extra: &[&str]) -> String {
    let before = folders(dir);
    let mut child = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .arg("run")
        .arg("--config")
        .arg(dir.join("config.toml"))
        .args(extra)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > REFUSAL_LIMIT || folders(dir) != before {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "tactus run started a game instead of refusing (folders {:?}); stderr: {}",
                folders(dir),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    eprintln!("tactus run {extra:?}: {stderr}");
    assert!(!out.status.success(), "{stderr}");
    assert_eq!(folders(dir), before, "no new game folder: {stderr}");
    stderr
}

/// Damages a journal's lines in place.
type Damager = Box<dyn Fn(&mut Vec<String>)>;

/// Issue 14, point 1: one unreadable journal line (garbage or NULs in the middle, a missing or
/// second header, an end line in mid-file) made `tactus run` skip the folder and start a fresh
/// game. It refuses instead, naming the folder, the line and the choices, and leaves the
/// journal as it was.
#[test]
fn a_damaged_journal_is_refused_with_the_folder_the_line_and_the_choices() {
    let cases: Vec<(&str, Damager, usize)> = vec![
        (
            "garbage",
            Box::new(|l: &mut Vec<String>| l[2] = "garbage}{\n".into()),
            3,
        ),
        (
            "nul",
            Box::new(|l: &mut Vec<String>| l[2] = format!("{}\n", "\0".repeat(40))),
            3,
        ),
        (
            "no-header",
            Box::new(|l: &mut Vec<String>| {
                l.remove(0);
            }),
            1,
        ),
        (
            "two-headers",
            Box::new(|l: &mut Vec<String>| {
                let h = l[0].clone();
                l.insert(1, h);
            }),
            2,
        ),
        (
            "end-mid-file",
            Box::new(|l: &mut Vec<String>| {
                l.insert(
                    2,
                    "{\"kind\":\"end\",\"t\":1500,\"result\":\"1-0\",\"reason\":\"x\"}\n".into(),
                )
            }),
            // The end line put in has no checksum: it is the damage, before the lines after it.
            3,
        ),
    ];
    for (name, damage, line) in cases {
        let scratch = Scratch::new(name);
        let dir = &scratch.0;
        write_config(dir);
        let (folder, mut lines) = game_folder(dir, 5);
        damage(&mut lines);
        let damaged = lines.concat();
        fs::write(folder.join(JOURNAL_FILE), &damaged).unwrap();

        // Found in the output folder, and given with --resume: both refuse.
        for extra in [&[][..], &["--resume", folder.to_str().unwrap()][..]] {
            let stderr = refused_run(dir, extra);
            assert!(
                stderr.contains(&folder.display().to_string()),
                "{name}: names the folder: {stderr}"
            );
            assert!(
                stderr.contains(&format!("line {line}")),
                "{name}: names line {line}: {stderr}"
            );
            assert!(
                stderr.contains("--resume") && stderr.contains("--new"),
                "{name}: gives the choices: {stderr}"
            );
            // The old advice was false: the lines after a removed line are replayed too.
            assert!(
                !stderr.contains("resume from the lines before it"),
                "{name}: {stderr}"
            );
            assert_eq!(
                fs::read_to_string(folder.join(JOURNAL_FILE)).unwrap(),
                damaged,
                "{name}: the journal is left as it was"
            );
        }
    }
}

/// Issue 14, point 2: a complete last line that does not parse was written whole and damaged
/// later; it was dropped (and cut off at the next start) as if a crash had torn it, and its
/// input was lost. It is damage: refused, the file untouched.
#[test]
fn a_damaged_complete_last_line_is_damage_not_a_tear() {
    let scratch = Scratch::new("last-line");
    let dir = &scratch.0;
    write_config(dir);
    let (folder, mut lines) = game_folder(dir, 4);
    let last = lines.len() - 1;
    lines[last] = lines[last].replace("\"t\"", "\"t\u{0}");
    let damaged = lines.concat();
    let path = folder.join(JOURNAL_FILE);
    fs::write(&path, &damaged).unwrap();
    let err = journal::read(&path).unwrap_err();
    let damage = err
        .downcast_ref::<Damage>()
        .unwrap_or_else(|| panic!("damage, not {err:#}"));
    assert_eq!(damage.line, lines.len());
    let stderr = refused_run(dir, &["--resume", folder.to_str().unwrap()]);
    assert!(
        stderr.contains(&format!("line {}", lines.len())),
        "{stderr}"
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), damaged);
}

/// Issue 14, point 2: only a last line without its newline is torn; before it is cut off the
/// whole original is kept as `journal.jsonl.damaged-<time>`, and a second cut keeps a second
/// copy (the evidence is never overwritten).
#[test]
fn a_torn_tail_is_kept_before_it_is_cut() {
    let scratch = Scratch::new("torn");
    let dir = &scratch.0;
    write_config(dir);
    let (folder, lines) = game_folder(dir, 3);
    let path = folder.join(JOURNAL_FILE);
    let whole = lines.concat();
    let mut copies = Vec::new();
    for tail in ["{\"n\":3,\"kind\":\"inp", "{\"n\":3,\"ki"] {
        let original = format!("{whole}{tail}");
        fs::write(&path, &original).unwrap();
        let read = journal::read(&path).unwrap();
        assert!(read.torn);
        assert_eq!(read.entries.len(), lines.len() - 1);
        drop(Journal::append_to(&read).unwrap());
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            whole,
            "cut to the whole lines"
        );
        let kept: Vec<PathBuf> = fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("journal.jsonl.damaged-")
            })
            .filter(|p| !copies.contains(p))
            .collect();
        assert_eq!(kept.len(), 1, "one new copy: {kept:?}");
        assert_eq!(fs::read_to_string(&kept[0]).unwrap(), original);
        assert_eq!(
            fs::metadata(&kept[0]).unwrap().permissions().mode() & 0o777,
            0o600
        );
        copies.extend(kept);
    }
}

/// Issue 14, point 2: a line missing from the middle made the game rewind in silence. The
/// entries are numbered: a gap or a repeated line is damage naming the line.
#[test]
fn a_line_missing_or_repeated_in_the_middle_is_damage() {
    let scratch = Scratch::new("gap");
    let dir = &scratch.0;
    write_config(dir);
    let (folder, lines) = game_folder(dir, 6);
    let path = folder.join(JOURNAL_FILE);
    let mut missing = lines.clone();
    missing.remove(3);
    fs::write(&path, missing.concat()).unwrap();
    let err = journal::read(&path).unwrap_err();
    let damage = err.downcast_ref::<Damage>().expect("damage");
    assert_eq!(damage.line, 4, "{err:#}");
    assert!(damage.what.contains("missing"), "{err:#}");

    let mut repeated = lines.clone();
    repeated.insert(3, lines[2].clone());
    fs::write(&path, repeated.concat()).unwrap();
    let err = journal::read(&path).unwrap_err();
    assert_eq!(err.downcast_ref::<Damage>().expect("damage").line, 4);

    // Journals written before the numbers and the checksums (format 1) still read (their lines
    // are not checked).
    let old: String = lines
        .iter()
        .map(|l| {
            let mut line: serde_json::Value = serde_json::from_str(l).unwrap();
            let fields = line.as_object_mut().unwrap();
            fields.remove("n");
            fields.remove("c");
            fields.remove("game");
            if fields.contains_key("version") {
                fields.insert("version".into(), 1.into());
            }
            format!("{line}\n")
        })
        .collect();
    assert!(!old.contains("\"n\":"));
    fs::write(&path, &old).unwrap();
    let read = journal::read(&path).unwrap();
    assert_eq!(read.entries.len(), lines.len() - 1);
    // ... and go on numbered from where they stand.
    let mut j = Journal::append_to(&read).unwrap();
    j.input(9000, &Input::Tick).unwrap();
    drop(j);
    let text = fs::read_to_string(&path).unwrap();
    assert!(
        text.ends_with(&format!("{{\"n\":{},", lines.len()))
            || text
                .lines()
                .last()
                .unwrap()
                .starts_with(&format!("{{\"n\":{},", lines.len())),
        "{text}"
    );
    assert_eq!(journal::read(&path).unwrap().entries.len(), lines.len());
}

/// Issue 14, points 6 and 9: the game folder is 0700 (0750 with the console's group), the
/// journal 0600; the files the hub appends to are created 0600 and never through a symbolic
/// link; a symbolic link in place of a journal is not read.
#[test]
fn game_files_are_private_and_links_are_not_followed() {
    let scratch = Scratch::new("private");
    let dir = &scratch.0;
    let played = dir.join("played");
    let held = std::sync::Arc::new(files::new_game_folder(&played, "A", "B", 0, None).unwrap());
    let folder = held.path().to_owned();
    assert_eq!(
        fs::metadata(&folder).unwrap().permissions().mode() & 0o777,
        0o700
    );
    let gid = fs::metadata(dir).unwrap().gid();
    let grouped_held =
        std::sync::Arc::new(files::new_game_folder(&played, "A", "B", 0, Some(gid)).unwrap());
    let grouped = grouped_held.path().to_owned();
    assert_eq!(
        fs::metadata(&grouped).unwrap().permissions().mode() & 0o777,
        0o750
    );
    write_config(dir);
    let path = folder.join(JOURNAL_FILE);
    drop(Journal::create(&path, &header(&dir.join("config.toml"))).unwrap());
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );

    // The transcript: new, 0600; a symbolic link to someone's file: refused, the file intact.
    let transcript = folder.join(files::TRANSCRIPT_FILE);
    let mut log = files::LineLog::open_in(held, files::TRANSCRIPT_FILE);
    log.append("one");
    assert_eq!(fs::read_to_string(&transcript).unwrap(), "one\n");
    assert_eq!(
        fs::metadata(&transcript).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let victim = dir.join("victim.txt");
    fs::write(&victim, "keep\n").unwrap();
    let linked = grouped.join(files::TRANSCRIPT_FILE);
    std::os::unix::fs::symlink(&victim, &linked).unwrap();
    let mut log = files::LineLog::open_in(grouped_held, files::TRANSCRIPT_FILE);
    log.append("planted");
    assert_eq!(fs::read_to_string(&victim).unwrap(), "keep\n");

    // A journal that is a link: not read.
    let other = grouped.join(JOURNAL_FILE);
    std::os::unix::fs::symlink(&path, &other).unwrap();
    let err = journal::read(&other).unwrap_err();
    assert!(format!("{err:#}").contains("symbolic link"), "{err:#}");
}

/// Issue 14, point 9: an output folder every user can write to is refused (another user could
/// plant a game there for the daemon to resume), naming the key.
#[test]
fn a_record_dir_writable_by_others_is_refused() {
    let scratch = Scratch::new("shared");
    let dir = &scratch.0;
    write_config(dir);
    let (_, _) = game_folder(dir, 2);
    fs::set_permissions(dir.join("played"), fs::Permissions::from_mode(0o777)).unwrap();
    let stderr = refused_run(dir, &[]);
    assert!(stderr.contains("record.dir"), "{stderr}");
    assert!(stderr.contains("writable by every user"), "{stderr}");
    let err = files::find_unfinished(&dir.join("played")).unwrap_err();
    assert!(format!("{err:#}").contains("record.dir"), "{err:#}");
}

/// Issue 14, point 9: only folders the daemon's user owns are resumed. Needs root (to give a
/// folder to `nobody`); SKIPPED otherwise.
#[test]
fn a_folder_of_another_user_is_not_resumed() {
    let scratch = Scratch::new("foreign");
    let dir = &scratch.0;
    if files::daemon_uid() != 0 {
        eprintln!("SKIPPED: a folder of another user needs root to make");
        return;
    }
    write_config(dir);
    let (folder, _) = game_folder(dir, 3);
    const NOBODY: u32 = 65534;
    std::os::unix::fs::chown(&folder, Some(NOBODY), None).unwrap();
    std::os::unix::fs::chown(folder.join(JOURNAL_FILE), Some(NOBODY), None).unwrap();
    assert_eq!(files::find_unfinished(&dir.join("played")).unwrap(), None);
    let config = Config::load(&dir.join("config.toml")).unwrap();
    let voices = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("voices");
    let settings = Settings::resolve(&config, "config.toml").unwrap();
    let table = setup::table_settings(&settings, 1.0);
    let err = setup::open(&settings, &voices, Some(&folder), false, &table)
        .err()
        .expect("refused");
    assert!(format!("{err:#}").contains("another user"), "{err:#}");
}

/// Issue 14, point 4: the exit message said "the game's files are in ..." while `game.pgn`
/// stood moves behind. It is checked against the game now: a stale `game.pgn` or journal is
/// named, with what to do.
#[test]
fn the_exit_message_names_files_that_are_not_the_game() {
    let scratch = Scratch::new("exit");
    let dir = &scratch.0;
    write_config(dir);
    let (folder, _) = game_folder(dir, 2);
    let empty = "[Event \"?\"]\n\n*\n";
    fs::write(folder.join(files::PGN_FILE), empty).unwrap();
    assert_eq!(
        tactus::cli::run::stale_files(&folder, empty),
        Vec::<String>::new()
    );
    // The game went on to 1. e4 e5, but neither file has it.
    let played = "[Event \"?\"]\n\n1. e4 e5 *\n";
    let stale = tactus::cli::run::stale_files(&folder, played);
    assert_eq!(stale.len(), 2, "{stale:?}");
    assert!(stale[0].contains("journal") && stale[0].contains("0 of the game's 2"));
    assert!(stale[1].contains("game.pgn") && stale[1].contains("tactus replay"));
}

/// Issue 14, point 3, on a real file system: `tactus run` with both boards simulated, under a
/// file size limit (`ulimit -f`, with SIGXFSZ ignored so that a write past it fails with EFBIG
/// as on a full disk; no root needed). A write cut in half used to leave half a line with the
/// next entry appended to it: the journal was damaged in the middle. Now the journal ends with a
/// whole line and resumes, the failed audio scoresheet leaves no temporary file, and (issue 25,
/// point 3) play halts at the limit instead of outrunning the journal: the journal holds every
/// move the game counted, and the exit message is the plain one (exit code 0).
#[test]
fn a_full_disk_leaves_a_whole_journal_and_a_true_exit_message() {
    const LIMIT_KB: u64 = 16;
    let scratch = Scratch::new("full-disk");
    let dir = &scratch.0;
    let boards = Path::new(env!("CARGO_MANIFEST_DIR")).join("boards");
    let profile = boards.join("pegged-line.toml");
    let text = format!(
        "[game]\nwhite = \"W\"\nblack = \"B\"\nblind = \"white\"\ntime_control = \"300+2\"\n\
         [boards.blind]\nprofile = \"{p}\"\nport = \"sim\"\n\
         [boards.sighted]\nprofile = \"{p}\"\nport = \"sim\"\n\
         [voice]\npack = \"de-fide\"\nstyle = \"san\"\nspeaker = \"none\"\n\
         [record]\ndir = \"played\"\n[console]\nsocket = \"console.sock\"\n",
        p = profile.display()
    );
    fs::write(dir.join("config.toml"), text).unwrap();
    let script = format!(
        "trap '' XFSZ; ulimit -f {LIMIT_KB}; exec '{}' run --config config.toml --sim-speed 20",
        env!("CARGO_BIN_EXE_tactus")
    );
    let child = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Play until the journal has met the limit (play halts there), then stop.
    let start = Instant::now();
    let journal_path = || {
        fs::read_dir(dir.join("played"))
            .ok()?
            .flatten()
            .map(|e| e.path().join(JOURNAL_FILE))
            .next()
    };
    loop {
        let size = journal_path()
            .and_then(|p| fs::metadata(p).ok())
            .map_or(0, |m| m.len());
        if size > (LIMIT_KB - 2) * 1024 {
            thread::sleep(Duration::from_secs(2));
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the journal never reached the limit ({size} bytes)"
        );
        thread::sleep(Duration::from_millis(100));
    }
    let status = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("play halts until the journal can be written"),
        "play halted at the limit: {stderr}"
    );
    assert!(
        !stderr.contains("journal.jsonl holds"),
        "the game never outran its journal: {stderr}"
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let path = journal_path().unwrap();
    let folder = path.parent().unwrap();
    // Whole lines only, nothing torn: the game resumes from the last entry written.
    let read = journal::read(&path).unwrap_or_else(|e| panic!("{e:#}"));
    assert!(!read.torn, "cut back to its last whole line");
    assert!(fs::metadata(&path).unwrap().len() <= LIMIT_KB * 1024);
    let replayed = crate::support::journal::replayed(&read);
    assert!(replayed.inputs > 10);
    let leftovers: Vec<String> = fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// Issue 15, point 4: two daemons for one game. The second is refused, naming the process that
/// holds the game, and the first keeps it; once the first lets go, the game resumes.
#[test]
fn a_game_being_played_is_not_taken_by_a_second_tactus() {
    let scratch = Scratch::new("second-daemon");
    let folder = scratch.0.join("game");
    fs::create_dir_all(&folder).unwrap();
    let held = TrustedDir::open(&folder).unwrap();
    let first = setup::lock_folder(&held).unwrap();
    let err = setup::lock_folder(&held).expect_err("refused");
    let text = format!("{err:#}");
    assert!(
        text.contains("being played by another tactus")
            && text.contains(&format!("process {}", std::process::id())),
        "{text}"
    );
    drop(first);
    setup::lock_folder(&held).unwrap();
}

/// Issue 25, points 2 and 4: a journal cut cleanly at a line boundary, emptied, deleted or
/// taken from another game read cleanly, and a run resumed the shorter game (overwriting the
/// longer `game.pgn`) or started a new game beside the record with only a log line. The
/// record's mark (`record.json`) says what the record was written from: each is refused, naming
/// the folder, and the record is left as it was.
#[test]
fn a_journal_shorter_than_its_record_is_refused_and_the_record_kept() {
    use tactus_core::journal::{MARK_FILE, RecordMark, check};
    let cases: Vec<(&str, Damager, &str)> = vec![
        (
            "cut",
            Box::new(|l: &mut Vec<String>| l.truncate(l.len() - 2)),
            "2 fewer than the record",
        ),
        (
            "emptied",
            Box::new(|l: &mut Vec<String>| l.clear()),
            "the journal is empty",
        ),
        (
            "deleted",
            Box::new(|_: &mut Vec<String>| {}),
            "the journal is missing",
        ),
    ];
    for (name, damage, says) in cases {
        let scratch = Scratch::new(&format!("short-{name}"));
        let dir = &scratch.0;
        write_config(dir);
        let (folder, mut lines) = game_folder(dir, 8);
        let path = folder.join(JOURNAL_FILE);
        let read = journal::read(&path).unwrap();
        let mark = RecordMark {
            game: read.header.game.clone(),
            entries: read.entries.len() as u64,
            check: check::hex(*read.checks.last().unwrap()),
            half_moves: 0,
            finished: false,
            t: None,
        };
        fs::write(folder.join(MARK_FILE), mark.to_bytes()).unwrap();
        let pgn = "[Event \"the record\"]\n\n*\n";
        fs::write(folder.join(files::PGN_FILE), pgn).unwrap();
        damage(&mut lines);
        if name == "deleted" {
            fs::remove_file(&path).unwrap();
        } else {
            fs::write(&path, lines.concat()).unwrap();
        }
        for extra in [&[][..], &["--resume", folder.to_str().unwrap()][..]] {
            let stderr = refused_run(dir, extra);
            assert!(
                stderr.contains(&folder.display().to_string()) && stderr.contains(says),
                "{name} {extra:?}: names the folder and says '{says}': {stderr}"
            );
            assert!(
                stderr.contains("--new") && stderr.contains("record"),
                "{name}: {stderr}"
            );
            assert_eq!(
                fs::read_to_string(folder.join(files::PGN_FILE)).unwrap(),
                pgn,
                "{name}: the record is kept"
            );
        }
    }
}

/// Issue 39, point 11: a symbolic link as a game folder, or as a game's journal, in the output
/// folder was passed over with a WARN while a new game began beside it; the game it leads to
/// may be the one to resume. Refused, naming the link, the reason and the choices: no new game,
/// and the game behind the link left as it was.
#[test]
fn a_symbolic_link_as_a_game_folder_or_journal_is_refused_with_the_choices() {
    for case in ["folder", "journal"] {
        let scratch = Scratch::new(&format!("link-{case}"));
        let dir = &scratch.0;
        write_config(dir);
        let (folder, lines) = game_folder(dir, 3);
        // The game (or its journal) moved elsewhere, a link left in its place.
        let elsewhere = dir.join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        let (link, journal) = if case == "folder" {
            let moved = elsewhere.join("game");
            fs::rename(&folder, &moved).unwrap();
            std::os::unix::fs::symlink(&moved, &folder).unwrap();
            (folder.clone(), moved.join(JOURNAL_FILE))
        } else {
            let moved = elsewhere.join(JOURNAL_FILE);
            fs::rename(folder.join(JOURNAL_FILE), &moved).unwrap();
            std::os::unix::fs::symlink(&moved, folder.join(JOURNAL_FILE)).unwrap();
            (folder.join(JOURNAL_FILE), moved)
        };
        let stderr = refused_run(dir, &[]);
        assert!(
            stderr.contains(&link.display().to_string()) && stderr.contains("symbolic link"),
            "{case}: names the link and why: {stderr}"
        );
        assert!(
            stderr.contains("--resume") && stderr.contains("--new"),
            "{case}: gives the choices: {stderr}"
        );
        assert_eq!(
            fs::read_to_string(&journal).unwrap(),
            lines.concat(),
            "{case}: the game behind the link is left as it was"
        );
    }
}

/// Issue 39, point 4: another game's journal put in a game folder, with its own `record.json`
/// or none, was resumed in place and overwrote the folder's `game.pgn` (there 16 moves) with
/// its own fewer moves. A game folder holds one game: the journal is held against the record
/// itself, and one of another game is refused with the choices, as damage is; the record is
/// kept.
#[test]
fn another_games_journal_in_a_game_folder_is_refused_and_the_record_kept() {
    use tactus_core::journal::{MARK_FILE, RecordMark, check};
    for with_mark in [true, false] {
        let scratch = Scratch::new(if with_mark {
            "other-marked"
        } else {
            "other-unmarked"
        });
        let dir = &scratch.0;
        write_config(dir);
        // The other game: begun, no move yet; the folder's record: six half-moves.
        let (folder, _) = game_folder(dir, 6);
        let pgn = "[Event \"?\"]\n[White \"Weiss\"]\n[Black \"Schwarz\"]\n\n\
                   1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n";
        fs::write(folder.join(files::PGN_FILE), pgn).unwrap();
        if with_mark {
            // Its own mark, brought with it: it matches its journal.
            let read = journal::read(&folder.join(JOURNAL_FILE)).unwrap();
            let mark = format!(
                "{{\"game\":{:?},\"entries\":{},\"check\":\"{}\",\"half_moves\":0,\
                 \"finished\":false}}\n",
                read.header.game,
                read.entries.len(),
                check::hex(*read.checks.last().unwrap())
            );
            RecordMark::from_bytes(mark.as_bytes()).unwrap();
            fs::write(folder.join(MARK_FILE), mark).unwrap();
        }
        for extra in [&[][..], &["--resume", folder.to_str().unwrap()][..]] {
            let stderr = refused_run(dir, extra);
            assert!(
                stderr.contains("is not of the game the record")
                    && stderr.contains("game.pgn holds 6 half-moves")
                    && stderr.contains(&folder.display().to_string()),
                "mark {with_mark} {extra:?}: names the folder and what differs: {stderr}"
            );
            assert!(
                stderr.contains("--resume") && stderr.contains("--new"),
                "gives the choices: {stderr}"
            );
            assert_eq!(
                fs::read_to_string(folder.join(files::PGN_FILE)).unwrap(),
                pgn,
                "the record is kept"
            );
        }
    }
}

/// Issue 39, point 4: the clock's ticks journaled after the record's mark (the record was
/// written at the last move) could be cut off the journal's end at a line boundary, and the
/// game resumed in silence with the clock that much fuller. A stop writes the record's mark
/// over the whole journal, so a journal cut short of it is refused, saying what was lost: how
/// many inputs and how much of the game's time.
#[test]
fn ticks_cut_off_the_journal_after_a_stop_are_refused_saying_what_was_lost() {
    use crate::support::{line_table::LineTable, pegged::PeggedBoard, pty::socat_or_skip};
    use shakmaty::Square;
    if !socat_or_skip() {
        return;
    }
    let dir = crate::support::table::temp_dir("damage-ticks-cut");
    let board = PeggedBoard::new(&dir, &Chess::default());
    let mut run = LineTable::start(dir.clone(), board.port(), "en");
    board.shift(Square::E2, Square::E4);
    assert!(run.reaches_ply(1), "{}", run.transcript());
    run.console("move e5");
    run.console("press");
    assert!(run.reaches_ply(2), "{}", run.transcript());
    board.shift(Square::E7, Square::E5);
    // White thinks: his clock runs, and its ticks are journaled.
    let journal_path = crate::support::record::game_folder(&dir.join("played")).join(JOURNAL_FILE);
    let lines = || fs::read_to_string(&journal_path).unwrap_or_default();
    let at_move = lines().lines().count();
    let ticking = crate::support::process::wait_until(Duration::from_secs(60), || {
        lines().lines().count() >= at_move + 8
    });
    assert!(ticking, "no ticks journaled:\n{}", lines());
    let folder = run.stop();
    let text = lines();
    let mut kept: Vec<&str> = text.split_inclusive('\n').collect();
    // The ticks at the end (each a line with the tick input), cut at a line boundary.
    let ticks = kept
        .iter()
        .rev()
        .take_while(|l| l.contains("\"tick\""))
        .count();
    assert!(ticks >= 5, "ticks at the journal's end:\n{text}");
    kept.truncate(kept.len() - 5);
    fs::write(&journal_path, kept.concat()).unwrap();
    let pgn = fs::read_to_string(folder.join(files::PGN_FILE)).unwrap();

    for extra in [&[][..], &["--resume", folder.to_str().unwrap()][..]] {
        let stderr = refused_run(&dir, extra);
        assert!(
            stderr.contains("5 fewer than the record")
                && stderr.contains("the last 5 inputs of the game are lost")
                && stderr.contains("of play after"),
            "{extra:?}: says what was lost: {stderr}"
        );
        assert!(stderr.contains("--new"), "{stderr}");
        assert_eq!(
            fs::read_to_string(folder.join(files::PGN_FILE)).unwrap(),
            pgn,
            "the record is kept"
        );
    }
    drop(board);
}

/// Issue 39, point 4, after a crash: the record's mark was written at the last move only, so a
/// crash, then the clock's ticks since that move cut off the journal at a line boundary, resumed
/// the game in silence with the thinking player's clock that much fuller (however long he had
/// thought). While the journal grows, the mark is brought up to it every 10 s of the game: a
/// cut short of it is refused, saying what was lost.
#[test]
fn ticks_cut_off_the_journal_after_a_crash_are_refused_saying_what_was_lost() {
    use crate::support::{line_table::LineTable, pegged::PeggedBoard, pty::socat_or_skip};
    use shakmaty::Square;
    use tactus_core::journal::{MARK_FILE, RecordMark};
    if !socat_or_skip() {
        return;
    }
    let dir = crate::support::table::temp_dir("damage-ticks-crash");
    let board = PeggedBoard::new(&dir, &Chess::default());
    let mut run = LineTable::start(dir.clone(), board.port(), "en");
    board.shift(Square::E2, Square::E4);
    assert!(run.reaches_ply(1), "{}", run.transcript());
    run.console("move e5");
    run.console("press");
    assert!(run.reaches_ply(2), "{}", run.transcript());
    let folder = crate::support::record::game_folder(&dir.join("played"));
    let mark =
        || RecordMark::from_bytes(&fs::read(folder.join(MARK_FILE)).unwrap_or_default()).ok();
    // The record of the last move, and its mark.
    let mut at_move = None;
    let written = crate::support::process::wait_until(Duration::from_secs(30), || {
        at_move = mark().filter(|m| m.half_moves == 2);
        at_move.is_some()
    });
    assert!(written, "the record of 1. e4 e5");
    let at_move = at_move.unwrap();
    board.shift(Square::E7, Square::E5);
    // White thinks: his clock's ticks are journaled for well over 10 s of the game.
    let journal_path = folder.join(JOURNAL_FILE);
    let lines = || fs::read_to_string(&journal_path).unwrap_or_default();
    let ticking = crate::support::process::wait_until(Duration::from_secs(60), || {
        lines().lines().count() as u64 > at_move.entries + 30
    });
    assert!(ticking, "no ticks journaled:\n{}", lines());
    // A crash (the record's mark is whatever was last written), then the journal cut at a line
    // boundary one entry after the move's record: no move lost, the ticks since gone.
    run.kill();
    let text = lines();
    let kept: Vec<&str> = text
        .split_inclusive('\n')
        .take(at_move.entries as usize + 2)
        .collect();
    fs::write(&journal_path, kept.concat()).unwrap();
    let pgn = fs::read_to_string(folder.join(files::PGN_FILE)).unwrap();

    let stderr = refused_run(&dir, &[]);
    assert!(
        stderr.contains("fewer than the record") && stderr.contains("of play after"),
        "says what was lost: {stderr}"
    );
    assert_eq!(
        fs::read_to_string(folder.join(files::PGN_FILE)).unwrap(),
        pgn,
        "the record is kept"
    );
    drop(board);
}
