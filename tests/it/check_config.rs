//! `tactus check-config` says "ok" only to what `tactus run` starts with: a console group that
//! does not exist (issue 14) or a voice pack that does not exist (issue 15) is refused by name,
//! with the key; and `tactus run` refuses the same before it makes any game folder.

use crate::support;

use std::{fs, path::Path, process::Command};

use shakmaty::Color;
use support::{
    nobody,
    process::TACTUS,
    pty::PtyPair,
    table::{temp_dir, write_config},
};
use tactus::port::{PortTrouble, probe};

#[test]
fn a_console_group_that_does_not_exist_is_refused_naming_the_key() {
    let dir = temp_dir("check-config-group");
    let bad = dir.join("bad.toml");
    fs::write(&bad, "[console]\ngroup = \"no-such-group-tactus\"\n").unwrap();
    let out = Command::new(TACTUS)
        .args(["check-config"])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.toml")
            && err.contains("no-such-group-tactus")
            && err.contains("console.group"),
        "{err}"
    );
    // The daemon's user's own group is accepted, by name or number.
    let id = |flag: &str| {
        let out = Command::new("id").arg(flag).output().unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    for group in [id("-gn"), id("-g")] {
        let good = dir.join("good.toml");
        fs::write(&good, format!("[console]\ngroup = \"{group}\"\n")).unwrap();
        let group = group.as_str();
        let out = Command::new(TACTUS)
            .args(["check-config"])
            .arg(&good)
            .output()
            .unwrap();
        assert!(out.status.success(), "{group}: {out:?}");
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_voice_pack_that_does_not_exist_is_refused_before_any_game_is_made() {
    let dir = temp_dir("check-config-pack");
    let config = write_config(&dir, Color::White, "none");
    let text = fs::read_to_string(&config)
        .unwrap()
        .replace("pack = \"de-fide\"", "pack = \"de\"");
    fs::write(&config, text).unwrap();
    let out = Command::new(TACTUS)
        .arg("check-config")
        .arg(&config)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("voice.pack") && err.contains("config.toml"),
        "{err}"
    );
    // `run` refuses it too, and leaves no game folder behind to be "resumed" later.
    let out = Command::new(TACTUS)
        .current_dir(&dir)
        .args(["run", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("voice.pack"), "{err}");
    let played = dir.join("played");
    let folders = fs::read_dir(&played).map_or(0, |d| d.count());
    assert_eq!(folders, 0, "a game folder was made in {}", played.display());
    fs::remove_dir_all(&dir).unwrap();
}

/// `tactus check-config FILE` with the text `config` written to a fresh folder: the exit, the
/// output and the error output.
fn check(tag: &str, config: &str) -> (bool, String, String) {
    let dir = temp_dir(tag);
    let file = dir.join("config.toml");
    fs::write(&file, config).unwrap();
    let out = Command::new(TACTUS)
        .arg("check-config")
        .arg(&file)
        .output()
        .unwrap();
    fs::remove_dir_all(&dir).unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn what_cannot_work_is_refused_naming_the_key() {
    for (tag, text, needles) in [
        (
            "port",
            "[boards.blind]\nprofile = \"pegged-line\"\nport = \"\"\n",
            &["boards.blind.port = \"\"", "serial port"][..],
        ),
        (
            "dir",
            "[record]\ndir = \"/proc/nope\"\n",
            &["record.dir", "/proc/nope", "no game folder can be made"][..],
        ),
        // Appendix C 1 (2001): a blitz game has all its moves in less than 15 minutes.
        (
            "blitz",
            "[game]\nplay = \"blitz\"\ntime_control = \"5400\"\n",
            &[
                "game.play = \"blitz\"",
                "90 minutes",
                "under 15 minutes",
                "C 1",
            ][..],
        ),
        // Appendix B 1: rapid from 15 to 60 minutes; 3 minutes is blitz.
        (
            "rapid",
            "[game]\nplay = \"rapid\"\ntime_control = \"180+2\"\n",
            &[
                "game.play = \"rapid\"",
                "a blitz game",
                "from 15 to 60 minutes",
            ][..],
        ),
        (
            "noclock",
            "[game]\nplay = \"blitz\"\n",
            &["game.play = \"blitz\" needs a clock", "game.time_control"][..],
        ),
    ] {
        let (ok, out, err) = check(&format!("check-config-{tag}"), text);
        assert!(!ok, "{tag}: accepted\n{out}");
        for needle in needles {
            assert!(
                err.contains(needle),
                "{tag}: {needle:?} missing from: {err}"
            );
        }
    }
    // The record folder's probe leaves nothing behind where the folder can be made.
    let dir = temp_dir("check-config-probe");
    let file = dir.join("config.toml");
    fs::write(&file, "[record]\ndir = \"games/2026\"\n").unwrap();
    let out = Command::new(TACTUS)
        .arg("check-config")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let left: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("config.toml")]);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_table_is_said_in_words_and_seconds_that_look_like_minutes_are_warned_about() {
    let (ok, out, err) = check(
        "check-config-words",
        "[game]\nwhite = \"Anna Blind\"\nblack = \"Bert Sighted\"\nevent = \"Open\"\n\
         round = \"3\"\ntime_control = \"90+30\"\nplay = \"blitz\"\n",
    );
    assert!(ok, "{out}{err}");
    for needle in [
        "White: Anna Blind (the blind player",
        "Black: Bert Sighted (the sighted player)",
        "event: Open, round 3",
        "2001 text; the blitz laws (Appendix C)",
        "time control: 90 seconds for the whole game plus 30 seconds per move from move 1 (90+30)",
        "moves said short",
        "recorded words",
    ] {
        assert!(out.contains(needle), "{needle:?} missing from:\n{out}");
    }
    // No Debug names.
    for debug in ["Fide2001", "Standard", "Blitz", "San", "Clips", "Some("] {
        assert!(!out.contains(debug), "{debug:?} in:\n{out}");
    }
    // The notation counts seconds: "90+30" is a minute and a half, said so, with the fix.
    assert!(
        err.contains("warning")
            && err.contains("game.time_control")
            && err.contains("counts seconds")
            && err.contains("'5400+30'"),
        "{err}"
    );
    // 90 minutes as the notation writes it: no warning.
    let (ok, out, err) = check(
        "check-config-seconds",
        "[game]\ntime_control = \"5400+30\"\n",
    );
    assert!(ok && !err.contains("warning"), "{out}{err}");
    assert!(
        out.contains("90 minutes for the whole game plus 30 seconds per move from move 1"),
        "{out}"
    );
}

/// Issue 23: a table of two blind players (IBCA) is said seat by seat: each player, his board,
/// his voice and his buttons; the one-blind sections at such a table, and two packs that would
/// sound from one place, are refused naming the keys.
#[test]
fn a_table_of_two_blind_players_is_said_seat_by_seat() {
    let (ok, out, err) = check(
        "check-config-ibca",
        "[game]\nblind = \"both\"\nwhite = \"Anna\"\nblack = \"Bert\"\n\
         [boards.white]\nprofile = \"pegged-line\"\nport = \"sim\"\n\
         [boards.black]\nprofile = \"pegged-line\"\nport = \"sim\"\n\
         buttons = { 1 = \"time\", 2 = \"last\" }\n\
         [voice.white]\npack = \"de-fide\"\ndevice = \"hw:1\"\n\
         [voice.black]\npack = \"en\"\ndevice = \"hw:2\"\n",
    );
    assert!(ok, "{out}{err}");
    for needle in [
        "White: Anna (a blind player, on his own tactile board)",
        "Black: Bert (a blind player, on his own tactile board)",
        "white's tactile board (boards.white): pegged-line on a simulated board",
        "black's tactile board (boards.black): pegged-line on a simulated board",
        "white hears: voice pack de-fide",
        "on the device hw:1",
        "black hears: voice pack en",
        "each blind player hears his own move said back",
        "black's tactile board's buttons: 1 asks time, 2 asks last\n",
    ] {
        assert!(out.contains(needle), "{needle:?} missing from:\n{out}");
    }
    assert!(!out.contains("sighted"), "{out}");
    for (tag, text, needles) in [
        (
            "ibca-sections",
            "[game]\nblind = \"both\"\n[boards.blind]\nprofile = \"pegged-line\"\nport = \"sim\"\n",
            &["[boards.blind]", "game.blind = \"both\"", "[boards.white]"][..],
        ),
        (
            "ibca-one-ear",
            "[game]\nblind = \"both\"\n[voice.white]\npack = \"de-fide\"\n\
             [voice.black]\npack = \"en\"\n",
            &["voice.white.pack", "voice.black.pack", "same device"][..],
        ),
        (
            "ibca-pack",
            "[game]\nblind = \"both\"\n[voice.black]\npack = \"xx-nowhere\"\n",
            &["voice.black.pack"][..],
        ),
    ] {
        let (ok, out, err) = check(&format!("check-config-{tag}"), text);
        assert!(!ok, "{tag}: accepted\n{out}");
        for needle in needles {
            assert!(
                err.contains(needle),
                "{tag}: {needle:?} missing from: {err}"
            );
        }
    }
}

/// The console socket as `run` will bind it, checked by check-config: a folder that does not
/// exist is refused naming the key (run never makes it), and a console group the daemon's user
/// is not in is refused with how to join it (the socket could not be given to it).
#[test]
fn the_console_socket_is_checked_as_run_binds_it() {
    let dir = temp_dir("check-config-socket");
    let config = dir.join("c.toml");
    fs::write(
        &config,
        format!(
            "[console]\nsocket = \"{}\"\n",
            dir.join("missing").join("s.sock").display()
        ),
    )
    .unwrap();
    let out = Command::new(TACTUS)
        .arg("check-config")
        .arg(&config)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("missing for the console socket does not exist (key console.socket)"),
        "{err}"
    );
    // Membership needs another user than root (root may give a file to any group): nobody,
    // where the test runs as root.
    if let Some(mut check_as_nobody) = nobody::as_nobody(TACTUS, &["check-config"]) {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        fs::write(
            &config,
            format!(
                "[console]\nsocket = \"{}\"\ngroup = \"root\"\n[record]\ndir = \"{}\"\n",
                dir.join("s.sock").display(),
                dir.join("out").display()
            ),
        )
        .unwrap();
        fs::set_permissions(&config, fs::Permissions::from_mode(0o644)).unwrap();
        let out = check_as_nobody.arg(&config).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{err}");
        assert!(
            err.contains("key console.group = \"root\": the daemon's user is not a member of it"),
            "{err}"
        );
    } else {
        nobody::skipped("a console group the daemon's user is not in");
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// Issue 25, point 12: a token file `run` will refuse (another user's, or one others may read)
/// was found only after the game folder was made: `run` stopped, and left a folder with a
/// journal header that the next run "resumed" with the old names. It is checked before, by
/// `run` and by check-config alike.
#[test]
fn a_token_file_run_would_refuse_is_refused_before_any_game_folder() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("check-config-token");
    let config = write_config(&dir, Color::White, "none");
    let token = dir.join("arbiter.token");
    fs::write(&token, "3fa107c29e5510d86b2ce4817a0fb346\n").unwrap();
    // Readable by others: refused whoever runs the test; another user's: when root can make it.
    let mut cases = vec![("mode 0644", 0o644, None)];
    if nobody::root() {
        cases.push(("belongs to user 65534", 0o600, Some(nobody::NOBODY)));
    }
    for (needle, mode, owner) in cases {
        fs::set_permissions(&token, fs::Permissions::from_mode(mode)).unwrap();
        if let Some(uid) = owner {
            std::os::unix::fs::chown(&token, Some(uid), Some(uid)).unwrap();
        }
        for command in [&["check-config"][..], &["run", "--new", "--config"][..]] {
            let out = Command::new(TACTUS)
                .current_dir(&dir)
                .args(command)
                .arg(&config)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{command:?}: {err}");
            assert!(
                err.contains("console.token_file") && err.contains(needle),
                "{command:?}: {err}"
            );
        }
        let played = dir.join("played");
        let folders = fs::read_dir(&played).map_or(0, |d| d.count());
        assert_eq!(folders, 0, "a game folder was made in {}", played.display());
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// Issue 26, point 6: the table guide's step for a sighted board without sensors is one change
/// to the shipped configuration, `profile = "manual"`; the move then counts at the console's
/// `press`. An explicit `completion = "settle"` on such a board is still refused by its key.
#[test]
fn the_shipped_configuration_takes_a_manual_sighted_board_with_one_change() {
    let shipped =
        fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("config.toml"))
            .unwrap();
    let (ok, out, err) = check("check-config-shipped", &shipped);
    assert!(ok, "the shipped file:\n{out}{err}");
    assert!(out.contains("sighted board: dgt"), "{out}");
    // The one change the guide asks for, in [boards.sighted].
    let sighted = shipped.find("[boards.sighted]").unwrap();
    let (head, tail) = shipped.split_at(sighted);
    let manual = format!(
        "{head}{}",
        tail.replacen("profile = \"dgt\"", "profile = \"manual\"", 1)
    );
    assert_ne!(manual, shipped);
    let (ok, out, err) = check("check-config-manual", &manual);
    assert!(ok, "profile = \"manual\" alone:\n{out}{err}");
    assert!(
        out.contains("sighted board: ") && out.contains("press"),
        "{out}"
    );
    assert!(!out.contains("rests on the position"), "{out}");
    // Asked for in so many words, settling still needs sensors.
    let settle = manual.replacen(
        "[boards.sighted]\n",
        "[boards.sighted]\ncompletion = \"settle\"\n",
        1,
    );
    let (ok, out, err) = check("check-config-manual-settle", &settle);
    assert!(!ok, "settle on a manual board accepted:\n{out}");
    assert!(
        err.contains("boards.sighted.completion = \"settle\"") && err.contains("press"),
        "{err}"
    );
}

/// The table guide has the assistant test each player's audio device with `speak-test` and then
/// read check-config's every line: the devices are among them.
#[test]
fn the_players_audio_devices_are_said() {
    let (ok, out, err) = check(
        "check-config-devices",
        "[voice]\ndevice_blind = \"plughw:CARD=Headphones\"\ndevice_sighted = \"default\"\n",
    );
    assert!(ok, "{out}{err}");
    for needle in [
        "speech for the blind player: on the device plughw:CARD=Headphones",
        "speech for the sighted player: on the device default",
    ] {
        assert!(out.contains(needle), "{needle:?} missing from:\n{out}");
    }
    let (ok, out, err) = check(
        "check-config-shared",
        "[voice]\nshared_device_channels = true\nblind_channel = \"right\"\n",
    );
    assert!(ok, "{out}{err}");
    assert!(
        out.contains("one device for both: the blind player on the right channel"),
        "{out}"
    );
}

/// Issue 26, point 5: a wrong or busy port passed check-config. The probe check-config and `run`
/// use says which: no such port (with the ports there are), or busy with the process that holds
/// it.
#[test]
fn a_missing_or_busy_port_is_named_with_its_cause() {
    let missing = probe(Path::new("/dev/ttyUSB-no-such-board"));
    assert!(
        matches!(&missing, Err(PortTrouble::Missing { .. })),
        "{missing:?}"
    );
    assert!(missing.unwrap_err().to_string().contains("ports here: "));
    // A pseudo-terminal made by a bridge (socat, holding its master): free; held by another
    // program too (a `sleep` with it as its stdin), busy.
    let dir = temp_dir("probe");
    let port = dir.join("port");
    let pair = PtyPair::new(&port, &dir.join("other"));
    assert_eq!(probe(&port), Ok(()), "a bridge's pty is free");
    let mut sleeper = Command::new("sleep")
        .arg("30")
        .stdin(fs::File::open(&port).unwrap())
        .spawn()
        .unwrap();
    let busy = probe(&port);
    let _ = sleeper.kill();
    let _ = sleeper.wait();
    drop(pair);
    let _ = fs::remove_dir_all(&dir);
    match busy {
        Err(PortTrouble::Busy { pid, name }) => {
            assert_eq!(pid, sleeper.id());
            assert_eq!(name, "sleep");
        }
        other => panic!("{other:?}"),
    }
}

/// Issue 26, point 5: a busy or wrong port gave "ok", then `run` made a game folder and told
/// both players "Tastbrett getrennt", the reason only in a log line; `--voices-dir
/// /nonexistent` was listed as the voice pack and `run` played on silently. Now check-config
/// tries every port (no such port, with the ports there are; busy, with the process holding
/// it) and the voices folder; `run` refuses a busy port and a voices folder without the pack
/// before any game folder is made, and says a missing port on the terminal while it waits.
#[test]
fn ports_and_the_voices_folder_are_tried_at_the_first_command() {
    let dir = temp_dir("check-config-ports");
    let config = write_config(&dir, Color::White, "none");
    let text = fs::read_to_string(&config).unwrap();
    let sighted_sim = text
        .find("port = \"sim\"")
        .expect("the test table's boards are simulated");
    let with_port = |port: &str| {
        // The blind player's board (the first `port`) on `port`.
        let mut t = text.clone();
        t.replace_range(
            sighted_sim..sighted_sim + "port = \"sim\"".len(),
            &format!("port = \"{port}\""),
        );
        fs::write(&config, t).unwrap();
    };
    let check_config = |extra: &[&str]| {
        let out = Command::new(TACTUS)
            .arg("check-config")
            .arg(&config)
            .args(extra)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let folders = || fs::read_dir(dir.join("played")).map_or(0, |d| d.count());

    // No such port.
    with_port("/dev/ttyUSB-tactus-none");
    let (ok, err) = check_config(&[]);
    assert!(!ok, "{err}");
    assert!(
        err.contains("boards.blind.port") && err.contains("no such port; ports here:"),
        "{err}"
    );

    // `run` waits for a board that is not plugged in, and says so on the terminal.
    let mut run =
        support::process::spawn(&["run", "--config", "config.toml"], &dir, "missing", &[]);
    assert!(
        support::process::wait_until(std::time::Duration::from_secs(20), || folders() == 1),
        "{}",
        support::process::show(&dir, "missing")
    );
    run.signal("-INT");
    run.wait_limit(std::time::Duration::from_secs(15));
    let err = fs::read_to_string(dir.join("missing.err")).unwrap();
    assert!(
        err.contains("boards.blind.port") && err.contains("tactus waits for the board"),
        "{err}"
    );
    fs::remove_dir_all(dir.join("played")).unwrap();

    // A busy port: a pseudo-terminal (made by socat, as a bridge makes one) another program
    // holds.
    let pty = dir.join("board-port");
    let pair = PtyPair::new(&pty, &dir.join("other-end"));
    let pty = pty.display().to_string();
    let mut holder = Command::new("sleep")
        .arg("60")
        .stdin(fs::File::open(&pty).unwrap())
        .spawn()
        .unwrap();
    with_port(&pty);
    let (ok, err) = check_config(&[]);
    assert!(!ok, "{err}");
    assert!(
        err.contains(&format!("busy: used by process {} (sleep)", holder.id())),
        "{err}"
    );
    let out = Command::new(TACTUS)
        .current_dir(&dir)
        .args(["run", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("busy: used by process"),
        "{err}"
    );
    assert_eq!(folders(), 0, "refused before any game folder: {err}");
    let _ = holder.kill();
    let _ = holder.wait();
    drop(pair);

    // The ports as given, but a voices folder without the pack.
    fs::write(&config, &text).unwrap();
    let (ok, err) = check_config(&["--voices-dir", "/nonexistent-tactus-voices"]);
    assert!(!ok, "{err}");
    assert!(
        err.contains("voice.pack") && err.contains("/nonexistent-tactus-voices"),
        "{err}"
    );
    let out = Command::new(TACTUS)
        .current_dir(&dir)
        .args([
            "run",
            "--voices-dir",
            "/nonexistent-tactus-voices",
            "--config",
        ])
        .arg(&config)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("voice.pack"), "{err}");
    assert_eq!(folders(), 0, "refused before any game folder: {err}");
    fs::remove_dir_all(&dir).unwrap();
}

/// Issue 37, point 10: check-config says which Braille chess notation each blind player's score
/// is written in: his own language's, for each of two blind players of two languages (the
/// German voice gets the German notation, the English voice the default).
#[test]
fn check_config_names_each_blind_players_braille_notation() {
    let dir = temp_dir("check-config-braille");
    let config = support::inproc::write_config_two_blind(&dir, ["de-fide", "en"]);
    let out = Command::new(TACTUS)
        .arg("check-config")
        .arg(&config)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains(
            "Braille scores: white's profile de, black's ukaaf (each the blind player's language"
        ),
        "{said}"
    );
    assert!(
        said.contains(
            "each player's also reads his scoresheet entered at the console and writes the \
             envelope he seals"
        ),
        "{said}"
    );
    fs::remove_dir_all(&dir).unwrap();
}
