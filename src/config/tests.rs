//! The configuration file: parsing, checks and the table in words.

use shakmaty::Color;
use tactus_core::{
    arbiter::Completion,
    rules::{Edition, PlayMode},
};

use super::*;

#[test]
fn the_shipped_config_parses_and_runs_the_demo() {
    let config = Config::parse(include_str!("../../config.toml"), "config.toml").unwrap();
    let rules = config.rules_config().unwrap();
    assert_eq!(rules.edition, Edition::Fide2001);
    assert!(rules.time_control.is_some());
    assert_eq!(config.game.blind, BlindName::White);
    let seats = config.seat_boards();
    assert!(seats.white.section.is_sim() && seats.black.section.is_sim());
    assert_eq!(config.completion(), Completion::Settle);
    assert_eq!(config.voice.voice, "de-fide");
    assert!(matches!(
        config.boards_setup("c").unwrap().white,
        BoardSetup::Sensor {
            port: PortSetup::Sim,
            ..
        }
    ));
}

#[test]
fn the_blind_boards_buttons_ask_his_requests() {
    // Absent: the four requests a player makes most.
    let config = Config::parse("", "c.toml").unwrap();
    let buttons = config.buttons();
    assert_eq!(buttons.white.get(&1).map(String::as_str), Some("time"));
    assert_eq!(buttons.white.get(&4).map(String::as_str), Some("repeat"));
    // The sighted player has no buttons to ask with.
    assert!(buttons.black.is_empty());
    let config = Config::parse(
        "[boards.blind]\nprofile = \"pegged-line\"\nport = \"sim\"\n\
         buttons = { 1 = \"t\", 2 = \"moves 4\", 12 = \"pieces mine knight\" }\n",
        "c.toml",
    )
    .unwrap();
    assert_eq!(config.buttons().white.len(), 3);
    assert_eq!(config.buttons().white[&12], "pieces mine knight");
    let bad = |buttons: &str| {
        Config::parse(
            &format!(
                "[boards.blind]\nprofile = \"pegged-line\"\nport = \"sim\"\nbuttons = {buttons}\n"
            ),
            "my.toml",
        )
        .unwrap_err()
        .to_string()
    };
    let e = bad("{ 0 = \"time\" }");
    assert!(e.contains("my.toml") && e.contains("1 to 255"), "{e}");
    let e = bad("{ x = \"time\" }");
    assert!(e.contains("\"x\" is not a button number"), "{e}");
    // A button is his own keypad: no assistant's or arbiter's command, no typo.
    let e = bad("{ 1 = \"offer\" }");
    assert!(
        e.contains("boards.blind.buttons.1") && e.contains("for the assistant"),
        "{e}"
    );
    // His resignation is typed twice at his keypad, never a button's one press.
    let e = bad("{ 1 = \"resign\" }");
    assert!(
        e.contains("boards.blind.buttons.1")
            && e.contains("a button asks one of the blind player's requests"),
        "{e}"
    );
    let e = bad("{ 1 = \"help\" }");
    assert!(
        e.contains("a button asks one of the blind player's requests"),
        "{e}"
    );
    let e = bad("{ 1 = \"tme\" }");
    assert!(e.contains("did you mean 'time'"), "{e}");
    let e = Config::parse(
        "[boards.sighted]\nprofile = \"dgt\"\nport = \"sim\"\nbuttons = { 1 = \"time\" }\n",
        "my.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("only a blind player's board"), "{e}");
}

#[test]
fn an_empty_file_is_the_demo_table() {
    let config = Config::parse("", "c.toml").unwrap();
    let seats = config.seat_boards();
    assert!(seats.white.section.is_sim() && seats.black.section.is_sim());
    assert_eq!(seats.white.section.profile, "pegged-line");
    assert_eq!(seats.black.section.profile, "dgt");
    assert_eq!(
        (seats.white.key, seats.black.key),
        ("boards.blind", "boards.sighted")
    );
    assert_eq!(config.record.dir, PathBuf::from("played"));
}

#[test]
fn unknown_keys_are_named_with_what_is_allowed() {
    let err = Config::parse("[game]\nedtion = \"2001\"\n", "my.toml")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("my.toml") && err.contains("edtion") && err.contains("edition"),
        "{err}"
    );
    let err = Config::parse(
        "[boards.blind]\nprofile = \"dgt\"\nprot = \"x\"\n",
        "my.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("prot") && err.contains("port"), "{err}");
    let err = Config::parse("[rules]\nedition = \"2001\"\n", "my.toml")
        .unwrap_err()
        .to_string();
    assert!(err.contains("rules") && err.contains("game"), "{err}");
}

#[test]
fn a_bad_edition_lists_the_allowed_ones() {
    let err = Config::parse("[game]\nedition = \"2003\"\n", "c.toml")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("2003") && err.contains("2001") && err.contains("2009"),
        "{err}"
    );
}

#[test]
fn edition_2005_is_refused_naming_the_key_the_file_and_why() {
    // The later text is the 2009 Laws (its 6.6 a: default time zero); the old name must not
    // quietly select it.
    let err = format!(
        "{:#}",
        Config::parse("[game]\nedition = \"2005\"\n", "my.toml").unwrap_err()
    );
    for needle in ["my.toml", "game.edition", "2005", "2009", "6.6 a", "zero"] {
        assert!(err.contains(needle), "{needle:?} missing from: {err}");
    }
}

#[test]
fn a_bad_time_control_names_the_key() {
    let err = format!(
        "{:#}",
        Config::parse("[game]\ntime_control = \"40/abc\"\n", "c.toml").unwrap_err()
    );
    assert!(
        err.contains("game.time_control") && err.contains("abc"),
        "{err}"
    );
}

#[test]
fn play_modes_and_the_blind_colour_parse() {
    let config = Config::parse(
        "[game]\nplay = \"blitz\"\nedition = \"2009\"\nblind = \"black\"\n\
         time_control = \"180+2\"\n",
        "c.toml",
    )
    .unwrap();
    assert_eq!(config.game.play, PlayMode::Blitz);
    assert_eq!(config.game.edition, Edition::Fide2009);
    assert_eq!(config.game.blind.color(), Some(Color::Black));
    // Issue 23: two blind players (IBCA).
    let both = Config::parse("[game]\nblind = \"both\"\n", "c.toml").unwrap();
    assert_eq!(both.game.blind, BlindName::Both);
    assert_eq!(both.game.blind.color(), None);
    let err = Config::parse("[game]\nblind = \"nobody\"\n", "c.toml")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("white") && err.contains("black") && err.contains("both"),
        "{err}"
    );
}

#[test]
fn voice_keys_are_checked_under_their_section_name() {
    let config =
        Config::parse("[voice]\npack = \"en:nato\"\nstyle = \"long\"\n", "c.toml").unwrap();
    assert_eq!(config.voice.voice, "en:nato");
    let err = Config::parse("[voice]\ntts_rate = 300\n", "c.toml")
        .unwrap_err()
        .to_string();
    assert!(err.contains("voice.tts_rate"), "{err}");
    let err = Config::parse("[voice]\nvoice = \"de-fide\"\n", "c.toml")
        .unwrap_err()
        .to_string();
    assert!(err.contains("pack"), "{err}");
}

#[test]
fn boards_are_checked() {
    let manual = Config::parse("[boards.sighted]\nprofile = \"manual\"\n", "c.toml").unwrap();
    assert!(matches!(
        manual.boards_setup("c").unwrap().black,
        BoardSetup::Manual
    ));
    assert_eq!(manual.completion(), Completion::ClockPress);
    for (text, needle) in [
        ("[boards.blind]\nprofile = \"manual\"\n", "needs sensors"),
        ("[boards.blind]\nprofile = \"dgt\"\n", "boards.blind.port"),
        (
            "[boards.sighted]\nprofile = \"manual\"\ncompletion = \"settle\"\n",
            "settle",
        ),
        (
            "[boards.sighted]\nprofile = \"dgt\"\nport = \"sim\"\ncompletion = \"later\"\n",
            "press",
        ),
    ] {
        let err = format!("{:#}", Config::parse(text, "c.toml").unwrap_err());
        assert!(err.contains(needle), "{text}: {err}");
    }
    let config = Config::parse(
        "[boards.sighted]\nprofile = \"chessnut\"\nport = \"/dev/ttyUSB0\"\n",
        "c.toml",
    )
    .unwrap();
    let err = format!("{:#}", config.boards_setup("c.toml").unwrap_err());
    assert!(
        err.contains("boards.sighted.profile") && err.contains("chessnut"),
        "{err}"
    );
}

#[test]
fn console_keys_are_checked() {
    for (text, needle) in [
        ("[console]\nsocket = \"\"\n", "console.socket = \"\""),
        (
            "[console]\ntoken_file = \"\"\n",
            "console.token_file = \"\"",
        ),
        ("[console]\ngroup = \" \"\n", "console.group = \"\""),
    ] {
        let err = format!("{:#}", Config::parse(text, "c.toml").unwrap_err());
        assert!(err.contains(needle), "{text}: {err}");
    }
    // A socket path naming an existing file (here the configuration itself) is refused.
    let dir = crate::store::scratch("config-sock");
    let path = dir.join("c.toml");
    std::fs::write(&path, "[console]\nsocket = \"c.toml\"\n").unwrap();
    let err = format!("{:#}", Config::load(&path).unwrap_err());
    assert!(
        err.contains("console.socket") && err.contains("not a socket"),
        "{err}"
    );
    std::fs::write(&path, "[console]\nsocket = \"t.sock\"\n").unwrap();
    assert!(Config::load(&path).is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn relative_paths_follow_the_file() {
    let dir = crate::store::scratch("config");
    let path = dir.join("c.toml");
    std::fs::write(
        &path,
        "[record]\ndir = \"out\"\n[console]\nsocket = \"/run/t.sock\"\n",
    )
    .unwrap();
    let config = Config::load(&path).unwrap();
    assert_eq!(config.record_dir(), dir.join("out"));
    assert_eq!(config.socket_path(), PathBuf::from("/run/t.sock"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn settings_are_the_file_resolved_once() {
    let dir = crate::store::scratch("settings");
    let path = dir.join("c.toml");
    std::fs::write(
        &path,
        "[game]\nwhite = \"Anna\"\nblind = \"black\"\ntime_control = \"5400+30\"\n\
         guidance_repeat_ms = 9000\n\
         [record]\ndir = \"out\"\npage_cells = 32\npage_lines = 20\n\
         [console]\nsocket = \"t.sock\"\ntoken_file = \"token\"\n",
    )
    .unwrap();
    let config = Config::load(&path).unwrap();
    let settings = Settings::resolve(&config, "c.toml").unwrap();
    assert_eq!(settings.origin, "c.toml");
    assert_eq!(settings.record_dir, dir.join("out"));
    assert_eq!(settings.socket, dir.join("t.sock"));
    assert_eq!(settings.token_file, Some(dir.join("token")));
    assert_eq!(
        (settings.white.as_str(), settings.black.as_str()),
        ("Anna", "")
    );
    assert_eq!(settings.tags, config.tags());
    assert_eq!(settings.arbiter.the_blind(), Some(Color::Black));
    assert_eq!(settings.arbiter.guidance_repeat_ms, 9000);
    assert!(settings.arbiter.rules.time_control.is_some());
    assert_eq!(settings.arbiter.seats.white.completion, config.completion());
    assert_eq!(
        (settings.braille.page.cells, settings.braille.page.lines),
        (32, 20)
    );
    assert!(!settings.training());
    assert_eq!(
        settings.start_position().unwrap(),
        shakmaty::Chess::default()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn settings_refuse_a_blind_board_without_sensors() {
    let mut config = Config::default();
    config.boards.blind = Some(BoardSection {
        profile: MANUAL_PROFILE.into(),
        ..BoardSection::default_blind()
    });
    let err = format!("{:#}", Settings::resolve(&config, "c.toml").unwrap_err());
    assert!(err.contains("c.toml"), "{err}");
}

/// Issue 22: who sits on the DGT clock's left is a table setting, White by default, said by
/// check-config when the sighted board has a clock; a colour that is not one is refused.
#[test]
fn the_clocks_sides_are_a_table_setting_said_in_words() {
    let dir = crate::store::scratch("clock-left");
    let profile = include_str!("../../boards/dgt.toml")
        .replace("name = \"dgt\"", "name = \"dgt-clock\"")
        .replace("attached = false", "attached = true");
    assert!(profile.contains("attached = true"));
    std::fs::write(dir.join("dgt-clock.toml"), profile).unwrap();
    let write = |extra: &str| {
        let path = dir.join("c.toml");
        std::fs::write(
            &path,
            format!(
                "[boards]\n{extra}\n[boards.sighted]\nprofile = \"dgt-clock.toml\"\nport = \"sim\"\n"
            ),
        )
        .unwrap();
        path
    };
    let default = Config::load(&write("")).unwrap();
    assert_eq!(default.boards.clock_left, SideName::White);
    let said = default.describe("c.toml", None).unwrap().join("\n");
    assert!(
        said.contains("White on its left, Black on its right"),
        "{said}"
    );
    let black = Config::load(&write("clock_left = \"black\"")).unwrap();
    assert_eq!(
        Settings::resolve(&black, "c.toml").unwrap().clock_left,
        Color::Black
    );
    let said = black.describe("c.toml", None).unwrap().join("\n");
    assert!(
        said.contains("Black on its left, White on its right"),
        "{said}"
    );
    let err = format!(
        "{:#}",
        Config::load(&write("clock_left = \"left\"")).unwrap_err()
    );
    assert!(err.contains("clock_left") || err.contains("white"), "{err}");
    // Without a clock nothing is said of its sides.
    let plain = Config::parse("", "c.toml").unwrap();
    let said = plain.describe("c.toml", None).unwrap().join("\n");
    assert!(!said.contains("on its left"), "{said}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn game_start_is_the_arbiters_by_default_the_boards_when_set_and_in_training() {
    let default = Config::parse("", "c.toml").unwrap();
    assert_eq!(
        Settings::resolve(&default, "c.toml").unwrap().start_by,
        StartBy::Arbiter
    );
    let said = default.describe("c.toml", None).unwrap().join("\n");
    assert!(
        said.contains("start: play and the clocks start at the arbiter's `start` at the console"),
        "{said}"
    );
    let boards = Config::parse("[game]\nstart = \"boards\"\n", "c.toml").unwrap();
    assert_eq!(boards.start_by(), StartBy::Boards);
    let said = boards.describe("c.toml", None).unwrap().join("\n");
    assert!(
        said.contains("once every board with sensors shows the position"),
        "{said}"
    );
    // At home nobody else is at his table: the boards start a training game.
    let training = Config::parse("[opponent]\n", "c.toml").unwrap();
    assert_eq!(training.start_by(), StartBy::Boards);
    let err = format!(
        "{:#}",
        Config::parse("[game]\nstart = \"now\"\n", "c.toml").unwrap_err()
    );
    assert!(
        err.contains("start") && err.contains("arbiter") && err.contains("boards"),
        "{err}"
    );
}

#[test]
fn each_players_notation_comes_from_his_pack_or_is_set_and_a_wrong_one_is_named() {
    // The blind player's from his voice pack (de-fide: German); the sighted player's unset.
    let config = Config::parse("", "c.toml").unwrap();
    let n = config.notations().unwrap();
    assert_eq!(n.white.map(|l| l.language), Some("German"));
    assert_eq!(n.black, None);
    let config = Config::parse(
        "[game]\nwhite_notation = \"en\"\nblack_notation = \"French\"\n",
        "c.toml",
    )
    .unwrap();
    let n = config.notations().unwrap();
    assert_eq!(n.white.map(|l| l.language), Some("English"));
    assert_eq!(n.black.map(|l| l.language), Some("French"));
    let err = Config::parse("[game]\nblack_notation = \"klingon\"\n", "my.toml")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("my.toml") && err.contains("game.black_notation") && err.contains("klingon"),
        "{err}"
    );
}

/// 12.3 a: `game.requests_off` names the requests switched off from the start: a list, or one
/// name; anything else is refused naming the file, the key and what is allowed.
#[test]
fn art_12_3_a_requests_off_is_a_list_of_material_and_pieces() {
    use tactus_core::console::Switchable;
    let config = Config::parse(
        "[game]\nrequests_off = [\"material\", \"pieces\"]\n",
        "c.toml",
    )
    .unwrap();
    assert_eq!(
        config.game.requests_off,
        [Switchable::Material, Switchable::Pieces]
    );
    let one = Config::parse("[game]\nrequests_off = \"pieces\"\n", "c.toml").unwrap();
    assert_eq!(one.game.requests_off, [Switchable::Pieces]);
    assert!(
        Config::parse("", "c.toml")
            .unwrap()
            .game
            .requests_off
            .is_empty()
    );
    let described = config.describe("c.toml", None).unwrap();
    assert!(
        described
            .iter()
            .any(|l| l
                .starts_with("requests switched off by the arbiter (12.3 a): material, pieces")),
        "{described:?}"
    );
    for (value, quoted) in [
        ("[\"material\", \"time\"]", "\"time\""),
        ("[\"Material \"]", "\"Material \""),
        ("[1]", "1"),
        ("true", "true"),
    ] {
        let err = format!(
            "{:#}",
            Config::parse(&format!("[game]\nrequests_off = {value}\n"), "my.toml").unwrap_err()
        );
        for needle in [
            "my.toml",
            "game.requests_off",
            quoted,
            "\"material\", \"pieces\"",
            "12.3 a",
        ] {
            assert!(err.contains(needle), "{needle:?} missing from: {err}");
        }
    }
}

/// Issue 37, point 10: the Braille score follows the blind player's voice: a German voice gets
/// the German Braille chess notation (it got the English one), a profile set in `[record]`
/// stays, a language without a profile of its own gets the default; check-config says which.
#[test]
fn the_braille_profile_follows_the_blind_players_voice() {
    let profile = |text: &str| Config::parse(text, "c.toml").unwrap().braille_profile();
    assert_eq!(profile(""), "de", "the default voice is German");
    assert_eq!(profile("[voice]\npack = \"en\"\n"), "ukaaf");
    assert_eq!(profile("[voice]\npack = \"es-fide\"\n"), "ukaaf");
    assert_eq!(
        profile("[record]\nbraille_profile = \"ukaaf\"\n"),
        "ukaaf",
        "a profile set stays"
    );
    let config = Config::parse("", "c.toml").unwrap();
    let settings = Settings::resolve(&config, "c.toml").unwrap();
    assert_eq!(settings.braille.profile.name, "de");
    let lines = config.describe("c.toml", None).unwrap();
    assert!(
        lines.iter().any(|l| l
            == "Braille score: profile de (the blind player's language; record.braille_profile \
                sets another)"),
        "{lines:#?}"
    );
}
