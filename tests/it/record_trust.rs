//! Another user cannot redirect the daemon's record writes (issue 25, point 1): an output folder
//! reached through a symbolic link of another user, or through a folder others may write to
//! (not sticky), is refused by `check-config` and `run`, naming the folder and its owner; and a
//! game folder re-pointed mid-game (its parent renamed, a link to elsewhere in its place) gets no
//! write through the new path, not of the record, nor of the journal, the transcript or the
//! lock, which are in the folder held open: the record's outage is reported until the path leads
//! back, and the game goes on.
//!
//! The points about another user run as `nobody` (uid 65534, through `setpriv`) when the tests
//! run as root, and say SKIPPED otherwise.

use crate::support;

use std::{
    fs,
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    thread,
    time::{Duration, Instant},
};

use shakmaty::{Chess, Color, Move, Position, san::San};
use support::{
    inproc::{LIMIT, Table, write_config},
    nobody::{NOBODY, as_nobody, root, skipped},
    process::TACTUS,
    table::temp_dir,
};
use tactus_core::rules::pgn::read_pgn;

/// A configuration in `dir` (as the in-process tables use) whose `record.dir` is `record`.
fn config_with_record_dir(dir: &Path, record: &Path) -> PathBuf {
    let config = write_config(dir, Color::Black);
    let text = fs::read_to_string(&config).unwrap().replace(
        "dir = \"played\"",
        &format!("dir = \"{}\"", record.display()),
    );
    fs::write(&config, text).unwrap();
    config
}

/// `tactus check-config` and `tactus run` with `config` both refuse; their error output. A `run`
/// that starts a game anyway is stopped after a while and fails the test.
pub(crate) fn both_refuse(config: &Path) -> [String; 2] {
    let out = Command::new(TACTUS)
        .arg("check-config")
        .arg(config)
        .output()
        .unwrap();
    let check = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "check-config accepted it: {check}");
    let mut run = Command::new(TACTUS)
        .args(["run", "--new", "--config"])
        .arg(config)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while run.try_wait().unwrap().is_none() {
        if t.elapsed() > LIMIT {
            let _ = run.kill();
            let _ = run.wait();
            panic!("tactus run started a game");
        }
        thread::sleep(Duration::from_millis(50));
    }
    let out = run.wait_with_output().unwrap();
    let run_err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "run: {run_err}");
    [check, run_err]
}

fn is_empty(dir: &Path) -> bool {
    fs::read_dir(dir).map_or(true, |mut d| d.next().is_none())
}

#[test]
fn an_output_folder_through_another_users_link_is_refused() {
    let dir = temp_dir("trust-link");
    // A sticky folder everybody may write to, as /tmp: nobody puts his link there.
    let shared = dir.join("shared");
    fs::create_dir(&shared).unwrap();
    fs::set_permissions(&shared, fs::Permissions::from_mode(0o1777)).unwrap();
    let target = dir.join("target");
    fs::create_dir(&target).unwrap();
    let link = shared.join("games");
    let Some(mut ln) = as_nobody(
        "/bin/ln",
        &["-s", target.to_str().unwrap(), link.to_str().unwrap()],
    ) else {
        return skipped("an_output_folder_through_another_users_link_is_refused");
    };
    assert!(ln.status().unwrap().success());
    let config = config_with_record_dir(&dir, &link);
    for err in both_refuse(&config) {
        assert!(err.contains("record.dir"), "{err}");
        assert!(err.contains(link.to_str().unwrap()), "{err}");
        assert!(
            err.contains("is a symbolic link of user 65534 (nobody)"),
            "{err}"
        );
    }
    assert!(is_empty(&target), "something was made through the link");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_output_folder_in_a_folder_others_may_write_to_is_refused() {
    let dir = temp_dir("trust-parent");
    let open = dir.join("open");
    fs::create_dir(&open).unwrap();
    fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
    let config = config_with_record_dir(&dir, &open.join("games"));
    for err in both_refuse(&config) {
        assert!(err.contains("record.dir"), "{err}");
        assert!(
            err.contains(&format!(
                "{} can be written by other users (every user (mode 0777)) and is not sticky",
                open.display()
            )),
            "{err}"
        );
    }
    assert!(is_empty(&open), "a folder was made in it");
    // A folder on the way that belongs to another user.
    if root() {
        fs::set_permissions(&open, fs::Permissions::from_mode(0o755)).unwrap();
        std::os::unix::fs::chown(&open, Some(NOBODY), Some(NOBODY)).unwrap();
        for err in both_refuse(&config) {
            assert!(
                err.contains(&format!(
                    "{} belongs to user 65534 (nobody)",
                    open.display()
                )),
                "{err}"
            );
        }
        assert!(is_empty(&open), "a folder was made in it");
    } else {
        skipped("an output folder under a folder of another user");
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// The game `text` (SAN) as moves.
fn moves(text: &str) -> Vec<Move> {
    let mut pos = Chess::default();
    text.split_whitespace()
        .map(|s| {
            let m = s.parse::<San>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
            m
        })
        .collect()
}

/// Wait until `done`, at most [`LIMIT`].
fn wait(what: &str, mut done: impl FnMut() -> bool) {
    let t = Instant::now();
    while !done() {
        assert!(t.elapsed() < LIMIT, "waited in vain for {what}");
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_game_folder_re_pointed_mid_game_gets_no_write_and_the_outage_is_reported() {
    let dir = temp_dir("trust-repoint");
    write_config(&dir, Color::Black);
    let table = Table::start(&dir, &moves("e4 e5 Nf3 Nc6 Bb5 a6"), 20.0, true);
    table.wait_started();
    let folder = table.folder();
    let name = folder.file_name().unwrap().to_owned();
    let mut arbiter = table.arbiter();
    let mut assistant = table.connect();
    let pgn = |folder: &Path| pgn_plies(&folder.join("game.pgn"));
    assistant.ok("move e4");
    assistant.ok("press");
    table.wait_ply(2);
    wait("1. e4 e5 in game.pgn", || pgn(&folder) == 2);

    // The game folder's parent renamed, and a link to a folder of the same shape put in its
    // place: a write by path would land in `elsewhere`.
    let played = dir.join("played");
    let moved = dir.join("moved");
    let elsewhere = dir.join("elsewhere");
    fs::rename(&played, &moved).unwrap();
    fs::create_dir_all(elsewhere.join(&name)).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &played).unwrap();
    assistant.ok("move Nf3");
    assistant.ok("press");
    let redirected = elsewhere.join(&name).join("game.pgn");
    let status = || assistant_status(&table);
    // (A write of the record under way at the rename may fail first for another reason; the
    // next try names the cause.)
    let repointed = |lines: &[String]| {
        lines.iter().any(|l| {
            l.contains("NOT WRITTEN") && l.contains("not the folder this game was started in")
        })
    };
    wait("the record's outage, or a write through the link", || {
        redirected.exists() || repointed(&status())
    });
    assert!(!redirected.exists(), "a write went through the link");
    // The arbiter is told, once.
    wait("the arbiter's news of the outage", || {
        arbiter.ok("time");
        arbiter
            .events
            .iter()
            .any(|e| e.contains("stand at half-move 2"))
    });
    // The game goes on: the journal is in the folder held, where it stays (it was written back
    // through the path here once, into `elsewhere`: this link is root's, whom the daemon trusts).
    table.wait_ply(4);
    assert_eq!(
        pgn(&moved.join(&name)),
        2,
        "written while the path led elsewhere"
    );
    assert!(
        is_empty(&elsewhere.join(&name)),
        "something was written through the link: {:?}",
        fs::read_dir(elsewhere.join(&name))
            .unwrap()
            .collect::<Vec<_>>()
    );
    let _ = fs::remove_file(&played);
    fs::rename(&moved, &played).unwrap();
    wait("the record written again", || pgn(&folder) == 4);

    // Another user re-points it (a folder on the way became writable by everyone): nothing at
    // all is written through his link, not the record, not the journal with its sealed move.
    // The game goes on, and the arbiter hears with the next move that the record is written
    // again.
    let (next, plies) = ("Bb5", 6);
    if let Some(mut can) = as_nobody("/bin/true", &[]) {
        assert!(can.status().unwrap().success());
        let his = dir.join("his");
        fs::create_dir_all(his.join(&name)).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).unwrap();
        let mut mv = as_nobody(
            "/bin/mv",
            &[played.to_str().unwrap(), moved.to_str().unwrap()],
        )
        .unwrap();
        assert!(mv.status().unwrap().success());
        let mut ln = as_nobody(
            "/bin/ln",
            &["-s", his.to_str().unwrap(), played.to_str().unwrap()],
        )
        .unwrap();
        assert!(ln.status().unwrap().success());
        // The journal (held open with its folder) takes the move; the record refuses the path
        // through the folder others may write to, and the staff are told why.
        assistant.ok(&format!("move {next}"));
        assistant.ok("press");
        table.wait_ply(plies);
        let untrusted = format!("{} can be written by other users", dir.display());
        wait("the refusal, naming the folder others may write to", || {
            status()
                .iter()
                .any(|l| l.contains("NOT WRITTEN") && l.contains(&untrusted))
        });
        thread::sleep(Duration::from_secs(2));
        assert!(
            is_empty(&his.join(&name)),
            "something was written through nobody's link: {:?}",
            fs::read_dir(his.join(&name)).unwrap().collect::<Vec<_>>()
        );
        assert_eq!(pgn(&moved.join(&name)), 4, "written while untrusted");
        fs::remove_file(&played).unwrap();
        fs::rename(&moved, &played).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    } else {
        skipped("a game folder re-pointed by another user");
        assistant.ok(&format!("move {next}"));
        assistant.ok("press");
        table.wait_ply(plies);
    }
    wait("the whole game in game.pgn", || pgn(&folder) == plies);
    wait("the arbiter's news of the end of the outage", || {
        arbiter.ok("time");
        arbiter.events.iter().any(|e| e.contains("written again"))
    });
    let report = table.stop();
    assert!(report.pgn.contains(next), "{}", report.pgn);
    assert!(!redirected.exists());
    fs::remove_dir_all(&dir).unwrap();
}

/// The half-moves in the PGN file `path` (0 when it cannot be read).
fn pgn_plies(path: &Path) -> usize {
    fs::read(path)
        .ok()
        .and_then(|bytes| read_pgn(&bytes).ok())
        .and_then(|games| games.into_iter().next())
        .map_or(0, |game| game.moves.len())
}

/// `status` on a fresh console (the assistant's).
fn assistant_status(table: &Table) -> Vec<String> {
    table.connect().ok("status")
}
