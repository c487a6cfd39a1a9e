//! `tactus board-test`: its arguments (the board, the starting FEN, when to stop), the profile and
//! position they name, and the call into the tool (`crate::board_test`).

use std::{path::Path, process::ExitCode};

use anyhow::{Context, Result, bail};
use shakmaty::{CastlingMode, Chess, fen::Fen};

use crate::board_test::{BoardTest, Finish, Options, stdin_lines};
use crate::daemon::link::MonotonicClock;
use tactus_core::{
    announce::count,
    board::profile::{Profile, ProfileSet},
};

/// The board profile named on the command line, or read from a file.
pub fn load_profile(name: Option<&str>, file: Option<&Path>) -> Result<Profile> {
    match (name, file) {
        (_, Some(path)) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the board profile {}", path.display()))?;
            Ok(Profile::parse(&text, &path.display().to_string())?)
        }
        (Some(name), None) => Ok(ProfileSet::builtin().get(name)?.clone()),
        (None, None) => {
            let names: Vec<String> = ProfileSet::builtin().names().map(str::to_owned).collect();
            bail!(
                "name a board profile with --profile ({}) or --profile-file PATH",
                names.join(", ")
            )
        }
    }
}

/// The starting position from a FEN, with a message that says what is wrong.
pub fn parse_fen(fen: &str) -> Result<Chess> {
    let parsed: Fen = fen
        .trim()
        .parse()
        .with_context(|| format!("--fen {fen:?} is not a FEN"))?;
    parsed
        .into_position(CastlingMode::Standard)
        .map_err(|e| anyhow::anyhow!("--fen {fen:?} is not a legal position: {e}"))
}

/// `tactus board-test`.
#[derive(clap::Args)]
pub struct BoardTestArgs {
    #[command(flatten)]
    board: super::BoardArgs,
    /// One JSON object per line instead of plain text.
    #[arg(long)]
    json: bool,
    /// The position the board should show at the start (default: the initial position).
    #[arg(long, value_name = "FEN")]
    fen: Option<String>,
    /// Exit after this many recognised moves.
    #[arg(long, value_name = "N")]
    moves: Option<usize>,
    /// Exit when the game ends on the board (checkmate, stalemate, dead position).
    #[arg(long)]
    until_end: bool,
}

/// `tactus board-test`: connect, print, until the moves or the game are done or Ctrl-C.
pub fn run(args: BoardTestArgs) -> Result<ExitCode> {
    let BoardTestArgs {
        board,
        json,
        fen,
        moves,
        until_end,
    } = args;
    let profile = load_profile(board.profile.as_deref(), board.profile_file.as_deref())?;
    let start = match &fen {
        Some(fen) => parse_fen(fen)?,
        None => shakmaty::Chess::default(),
    };
    let opts = Options {
        profile,
        port: board.port,
        json,
        start,
        moves,
        until_end,
    };
    let summary = match super::runtime()?.block_on(async {
        let cancel = super::cancel_on_ctrl_c();
        let input = stdin_lines();
        BoardTest::new(opts, std::io::stdout().lock(), MonotonicClock::new())
            .run(input, cancel)
            .await
    }) {
        // The reader has seen enough (`board-test --json | head -1`): the test ends there, as
        // a one-shot command's output into a closed pipe does (see `super::print`).
        Err(e) if super::is_closed_pipe(&e) => return Ok(ExitCode::SUCCESS),
        other => other?,
    };
    if !json && summary.finish == Finish::Interrupted {
        super::print(&format!(
            "Stopped after {}.\n",
            count(summary.moves.len(), "move", "moves")
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board_test::{game_end, parse_promotion};
    use shakmaty::Role;

    #[test]
    fn promotion_input_and_game_ends() {
        assert_eq!(parse_promotion(" N\n"), Some(Role::Knight));
        assert_eq!(parse_promotion("queen"), Some(Role::Queen));
        assert_eq!(parse_promotion("k"), None);
        assert_eq!(parse_promotion(""), None);
        let mate =
            parse_fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3").unwrap();
        assert_eq!(game_end(&mate), Some(("checkmate".into(), "0-1".into())));
        let stalemate = parse_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap();
        assert_eq!(
            game_end(&stalemate),
            Some(("stalemate".into(), "1/2-1/2".into()))
        );
        let dead = parse_fen("8/8/4k3/8/8/3BK3/8/8 w - - 0 1").unwrap();
        assert_eq!(
            game_end(&dead),
            Some(("dead position".into(), "1/2-1/2".into()))
        );
        assert_eq!(game_end(&Chess::default()), None);
        assert!(
            parse_fen("not a fen")
                .unwrap_err()
                .to_string()
                .contains("not a FEN")
        );
    }

    #[test]
    fn profiles_are_found_or_listed() {
        assert_eq!(load_profile(Some("dgt"), None).unwrap().name, "dgt");
        let err = load_profile(Some("dgt2"), None).unwrap_err().to_string();
        assert!(
            err.contains("dgt2") && err.contains("dgt, pegged-line"),
            "{err}"
        );
        let err = load_profile(None, None).unwrap_err().to_string();
        assert!(
            err.contains("--profile") && err.contains("pegged-line"),
            "{err}"
        );
        let err = load_profile(None, Some(Path::new("/nonexistent/board.toml"))).unwrap_err();
        assert!(
            format!("{err:#}").contains("/nonexistent/board.toml"),
            "{err:#}"
        );
    }
}
