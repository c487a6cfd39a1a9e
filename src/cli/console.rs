//! `tactus console`: the command around the console client (`crate::client`): its arguments, the
//! socket they name, the lines sent first (the arbiter's login, a role switch), the one-shot
//! command checked, and which session runs.
//!
//! Interactive, it sends each line typed and prints every line the daemon sends, as it comes
//! (line editing is the terminal's own; `rlwrap tactus console` adds history). One-shot
//! (`-c "time"`), it sends one command, prints its reply up to the end line, and exits 0 when the
//! daemon carried it out, 1 when it refused or did not answer in time. Before either, it may log
//! in as the arbiter (`--token-file`) or switch role (`--role`).

use std::{
    io::{self, BufReader},
    os::unix::net::UnixStream,
    path::{Path, PathBuf},
    process::ExitCode,
    time::Duration,
};

use anyhow::{Context, Result, bail};

use crate::client::{
    TokenFile, connect, current_token, interactive_following, one_shot, read_token,
};
/// Shim: `tests/console.rs` and `tests/console_security.rs` call these through
/// `cli::console`; the client is `crate::client` now.
use tactus_core::{
    announce::voice::KeypadWords,
    console::{MAX_LINE, Role},
};

/// The socket when neither `--socket` nor `--config` names one (`[console] socket`'s default).
pub const DEFAULT_SOCKET: &str = "tactus.sock";
/// How long the interactive client waits for the last replies after the input ends.
const LINGER: Duration = Duration::from_secs(2);

/// `tactus console`.
#[derive(clap::Args, Debug)]
pub struct ConsoleArgs {
    /// The daemon's console socket (default: `[console] socket` of --config, else tactus.sock).
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// The configuration file whose `[console] socket` to connect to.
    #[arg(long, value_name = "FILE", conflicts_with = "socket")]
    pub config: Option<PathBuf>,
    /// Send this one command, print its reply and exit: 0 when carried out, 1 when refused or
    /// not answered in time.
    #[arg(short = 'c', long = "command", value_name = "COMMAND")]
    pub command: Option<String>,
    /// Log in as the arbiter first, with the token in this file (the daemon writes it, mode
    /// 0600, into the game's folder).
    #[arg(long, value_name = "PATH")]
    pub token_file: Option<PathBuf>,
    /// Switch to this role first: player (the blind player's requests) or assistant.
    #[arg(long, value_name = "ROLE")]
    pub role: Option<Role>,
    /// At a table with two blind players: whose seat the role serves (a player's keypad stays
    /// locked to it; an assistant may change it later with `role assistant black`).
    #[arg(long, value_name = "COLOUR", requires = "role")]
    pub seat: Option<Seat>,
    /// How long -c waits for the reply, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    pub timeout: f64,
}

/// Run `tactus console`.
pub fn main(args: ConsoleArgs) -> Result<ExitCode> {
    // Read once: it names the socket, and his keypad's words.
    let config = args
        .config
        .as_deref()
        .map(crate::config::Config::load)
        .transpose()?;
    let path = socket_path(&args, config.as_ref());
    let mut token = args.token_file.as_deref().map(read_token).transpose()?;
    let mut preamble = preamble(&args, token.as_ref().map(|t| t.token.as_str()))?;
    let timeout = Duration::try_from_secs_f64(args.timeout)
        .ok()
        .filter(|t| !t.is_zero())
        .with_context(|| format!("--timeout {} is not a number of seconds", args.timeout))?;
    if let Some(command) = &args.command {
        check_command(command)?;
    }
    let stream = connect(&path, token.as_ref().map(|t| t.owner))?;
    // Started with the token file of an older game beside the one the daemon plays now, the
    // arbiter's console logs in to the game played now, as it does when it connects again. The
    // one-shot `-c` too: the socket names the daemon, and so the game, its command goes to; the
    // token only lets the arbiter in, and an older one would refuse a script's `-c pause`.
    let (used, remark) = match (&args.token_file, token.as_mut()) {
        (Some(given), Some(first)) => {
            let (used, remark) = follow_at_start(given, first, &stream);
            // The login is the preamble's first line.
            if let Some(login) = preamble.first_mut() {
                *login = format!("login {}", first.token);
            }
            (Some(used), remark)
        }
        _ => (None, None),
    };
    let ok = match &args.command {
        Some(command) => {
            if let Some(remark) = &remark {
                eprintln!("{remark}");
            }
            one_shot(
                stream,
                &preamble,
                command,
                timeout,
                &mut io::stdout().lock(),
                &mut io::stderr().lock(),
            )?
        }
        None => {
            let keypad = keypad_words(&args, config.as_ref());
            if keypad.is_none() {
                eprintln!(
                    "Connected to {}. Type help for the commands, quit to leave.",
                    path.display()
                );
            }
            if let Some(remark) = &remark {
                eprintln!("{remark}");
            }
            let stdin = BufReader::new(io::stdin());
            // A restarted daemon is found again by itself (the same checks of who listens).
            let owner = token.as_ref().map(|t| t.owner);
            let again = path.clone();
            let reconnect: crate::client::Reconnect = Box::new(move || connect(&again, owner).ok());
            let relogin = match (&args.token_file, &token, used) {
                (Some(path), Some(first), Some(used)) => Some(relogin(
                    path.clone(),
                    (used, first.token.clone()),
                    first.owner,
                    preamble.clone(),
                )),
                _ => None,
            };
            interactive_following(
                stream,
                &preamble,
                stdin,
                io::stdout(),
                io::stderr(),
                LINGER,
                Some(reconnect),
                relogin,
                keypad,
            )?
        }
    };
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// How long a console connected again waits for a new game's token to be written: the daemon
/// listens before it has made the game's folder.
const NEW_TOKEN_WITHIN: Duration = Duration::from_secs(5);

/// The same wait for a console started afresh. Shorter: the daemon it finds has most often been
/// playing for a while, and a token file of a game folder beside none the daemon plays (another
/// output folder's) is sent, and refused, only once this has passed.
const TOKEN_AT_START_WITHIN: Duration = Duration::from_secs(1);

/// The token file the arbiter's console started with `--token-file given` logs in with, `first`
/// (read from `given`) replaced by the token of the game the daemon at the other end of `stream`
/// plays now when that is another (an older game's token file was given), with what to tell the
/// user. Nothing found, or nothing to be read, leaves `first` to be sent as given: a wrong token
/// is refused by the daemon as ever.
fn follow_at_start(
    given: &Path,
    first: &mut TokenFile,
    stream: &UnixStream,
) -> (PathBuf, Option<String>) {
    let mut used = (given.to_path_buf(), first.token.clone());
    let remark = match current_token(given, first.owner, stream, TOKEN_AT_START_WITHIN) {
        Ok(found) => followed(&mut used, found),
        // Only the process listening could not be told, or `given` (read a moment ago) no longer
        // be: what was read is sent, and the daemon answers it.
        Err(_) => None,
    };
    first.token.clone_from(&used.1);
    (used.0, remark)
}

/// `used` (the token file and token logged in with) moved to `found` (the token the daemon plays
/// now, by [`current_token`]) when its token is another, and what to say of it; None when it is
/// the same.
fn followed(used: &mut (PathBuf, String), found: (PathBuf, TokenFile)) -> Option<String> {
    let (path, file) = found;
    if file.token == used.1 {
        return None;
    }
    let folder = path.parent().unwrap_or(&path).display().to_string();
    let remark = if path != used.0 {
        format!(
            "the daemon plays another game now, in {folder}: logging in as the arbiter with its \
             token ({})",
            path.display()
        )
    } else {
        format!(
            "the arbiter's token in {} is a new one: logging in with it",
            path.display()
        )
    };
    *used = (path, file.token);
    Some(remark)
}

/// The arbiter's console connected again logs in with the token of the game the daemon plays now
/// (a new game in the same output folder has a new token in its own folder), and says so when it
/// is another than before; a token it cannot read is said, and the old one sent (and refused).
/// `given`: the token file first given; `used`: the token file and token logged in with at the
/// start (another game's than `given`'s when the console followed it then); `owner`: the token
/// file's owner (the daemon's user); `preamble`: the first preamble, its login first.
fn relogin(
    given: PathBuf,
    used: (PathBuf, String),
    owner: u32,
    preamble: Vec<String>,
) -> crate::client::Relogin {
    let mut used = used;
    Box::new(move |stream| {
        let remark = match current_token(&given, owner, stream, NEW_TOKEN_WITHIN) {
            Ok(found) => Some(
                followed(&mut used, found)
                    .unwrap_or_else(|| "logging in again as the arbiter".to_string()),
            ),
            Err(e) => Some(format!(
                "cannot read the arbiter's token again ({e:#}); logging in with the one read before"
            )),
        };
        let mut lines = preamble.clone();
        if let Some(login) = lines.first_mut() {
            *login = format!("login {}", used.1);
        }
        (lines, remark)
    })
}

/// A blind player's keypad (`--role player`) shows his words, not the staff's English: with
/// `--config`, his voice pack's `[keypad]` lines (the seat `--seat` names, else the table's one
/// blind player); without it, or when the pack cannot be read (said once), English. None: not a
/// player's console.
fn keypad_words(args: &ConsoleArgs, config: Option<&crate::config::Config>) -> Option<KeypadWords> {
    if args.role != Some(Role::Player) {
        return None;
    }
    let (Some(path), Some(config)) = (&args.config, config) else {
        return Some(KeypadWords::default());
    };
    let words = (|| -> Result<KeypadWords> {
        let blind = config.blind_seats();
        let seat = match (args.seat, blind.white, blind.black) {
            (Some(Seat::White), ..) => shakmaty::Color::White,
            (Some(Seat::Black), ..) => shakmaty::Color::Black,
            (None, true, false) => shakmaty::Color::White,
            (None, false, true) => shakmaty::Color::Black,
            (None, ..) => bail!("the table has no one blind player: --seat names his seat"),
        };
        let spec = config.voice.packs(blind)[seat].clone();
        let pack = crate::store::voices::load_words(&crate::store::voices::default_dir(), &spec)?;
        Ok(pack.keypad().clone())
    })();
    Some(words.unwrap_or_else(|e| {
        eprintln!(
            "{}: his keypad's words cannot be read ({e:#}); English",
            path.display()
        );
        KeypadWords::default()
    }))
}

/// The socket: `--socket`, else `--config`'s `[console] socket`, else [`DEFAULT_SOCKET`].
fn socket_path(args: &ConsoleArgs, config: Option<&crate::config::Config>) -> PathBuf {
    match (&args.socket, config) {
        (Some(path), _) => path.clone(),
        (None, Some(config)) => config.socket_path(),
        (None, None) => PathBuf::from(DEFAULT_SOCKET),
    }
}

/// A seat at the table, as `--seat` names it.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seat {
    White,
    Black,
}

/// The lines sent before the user's: the login, then the role switch (with its seat); without
/// either, `role assistant`, so that the daemon keeps the console open while it is quiet.
fn preamble(args: &ConsoleArgs, token: Option<&str>) -> Result<Vec<String>> {
    let mut lines = Vec::new();
    if let Some(token) = token {
        lines.push(format!("login {token}"));
    }
    let seat = match args.seat {
        Some(Seat::White) => " white",
        Some(Seat::Black) => " black",
        None => "",
    };
    match args.role {
        Some(Role::Arbiter) if args.seat.is_some() => {
            bail!("the arbiter serves both seats: --seat goes with --role player or assistant")
        }
        Some(Role::Arbiter) if args.token_file.is_none() => {
            bail!("the arbiter's role needs the arbiter's token: give --token-file PATH")
        }
        // The login already made this console the arbiter's.
        Some(Role::Arbiter) => {}
        // Say who this console is, though every connection starts as the assistant's: the
        // daemon closes a quiet console that has not (an assistant's idles for most of a game).
        None if token.is_none() => lines.push(format!("role {}", Role::Assistant)),
        None => {}
        Some(role) => lines.push(format!("role {role}{seat}")),
    }
    Ok(lines)
}

/// A one-shot command must be one line the daemon accepts.
fn check_command(command: &str) -> Result<()> {
    let command = command.trim_end_matches(['\n', '\r']);
    if command.contains(['\n', '\r']) {
        bail!("-c takes one command; run tactus console once per command");
    }
    if command.trim().is_empty() {
        bail!("-c needs a command, like -c time; -c help lists them");
    }
    if command.len() > MAX_LINE {
        bail!(
            "the command is {} bytes long; a command has at most {MAX_LINE}",
            command.len()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        console: ConsoleArgs,
    }

    fn preamble_of(args: &[&str]) -> Result<Vec<String>> {
        let cli = Cli::try_parse_from(std::iter::once("console").chain(args.iter().copied()))?;
        preamble(&cli.console, None)
    }

    /// Issue 23: a blind player's keypad at a table with two of them names its seat.
    #[test]
    fn the_seat_goes_with_the_role_switch() {
        assert_eq!(
            preamble_of(&["--role", "player", "--seat", "white"]).unwrap(),
            ["role player white"]
        );
        assert_eq!(
            preamble_of(&["--role", "assistant", "--seat", "black"]).unwrap(),
            ["role assistant black"]
        );
        assert_eq!(preamble_of(&["--role", "player"]).unwrap(), ["role player"]);
        // Issue 25, point 8: a console says who it is, or the daemon closes it once quiet.
        assert_eq!(preamble_of(&[]).unwrap(), ["role assistant"]);
        // A seat needs a role to serve it; the arbiter serves both.
        assert!(preamble_of(&["--seat", "white"]).is_err());
        let err = preamble_of(&["--role", "arbiter", "--seat", "white"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("both seats"), "{err}");
        assert!(preamble_of(&["--role", "player", "--seat", "green"]).is_err());
    }
}
