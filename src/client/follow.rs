//! Which arbiter's token a console that connects again, or starts, logs in with. Unless
//! `[console] token_file` names one file for every game, each game folder holds its own
//! `arbiter.token`: a daemon started again in the same output folder after a game ended (or with
//! `--new`) plays a new game whose token is new, and the token first given would be refused,
//! dropping the arbiter to the assistant's role; so would the token file of an older game given
//! to a console started afresh. The game the daemon now listening plays is the folder beside the
//! given one's whose lock (`tactus.lock`) holds that daemon's process id; its token is the
//! current one.

use std::{
    os::unix::net::UnixStream,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use anyhow::{Context, Result};

use super::{TokenFile, read_token};
use tactus_core::folder::{JOURNAL_FILE, LOCK_FILE, TOKEN_FILE};

/// The token file for the daemon at the other end of `stream`, first given as `given`: when
/// `given` is the `arbiter.token` of a game folder, that of the game folder beside it which this
/// daemon plays, waited for up to `within` (the daemon listens before it has made the new game's
/// folder and token); else, or when none is found, `given` read again (a file the daemon may
/// have made anew). A token file found is taken only if it belongs to `owner`, the daemon's user
/// (who owned the file first given): no other user's file is sent as a login.
pub fn current_token(
    given: &Path,
    owner: u32,
    stream: &UnixStream,
    within: Duration,
) -> Result<(PathBuf, TokenFile)> {
    if let Some(output) = output_folder(given) {
        let (_, pid) = crate::daemon::console::peer_cred(stream)
            .context("cannot tell which process listens on the console socket")?;
        if let Some(pid) = pid {
            let deadline = Instant::now() + within;
            loop {
                if let Some(path) = played_by(&output, pid).map(|f| f.join(TOKEN_FILE))
                    // Not yet written (made, then filled) is tried again.
                    && let Ok(token) = read_token(&path)
                    && token.owner == owner
                {
                    return Ok((path, token));
                }
                if Instant::now() >= deadline {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
    Ok((given.to_path_buf(), read_token(given)?))
}

/// The output folder of a game folder's token file `given` (`.../GAME/arbiter.token`, the game
/// folder holding its journal); None for a token file of its own (`[console] token_file`).
fn output_folder(given: &Path) -> Option<PathBuf> {
    if given.file_name()? != TOKEN_FILE {
        return None;
    }
    let game = given.parent().filter(|p| !p.as_os_str().is_empty())?;
    if !game.join(JOURNAL_FILE).is_file() {
        return None;
    }
    // `games/x/arbiter.token` given relative to the current folder: its parent may be empty.
    Some(
        game.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf(),
    )
}

/// The game folder in `output` whose lock holds the process id `pid` (the daemon playing it);
/// folders only, links not followed.
fn played_by(output: &Path, pid: i32) -> Option<PathBuf> {
    let pid = pid.to_string();
    std::fs::read_dir(output)
        .ok()?
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .find(|folder| {
            std::fs::read_to_string(folder.join(LOCK_FILE)).is_ok_and(|held| held.trim() == pid)
        })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    const OLD: &str = "00112233445566778899aabbccddeeff";
    const NEW: &str = "ffeeddccbbaa99887766554433221100";

    fn game(output: &Path, name: &str, token: &str, lock: Option<u32>) -> PathBuf {
        let folder = output.join(name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join(JOURNAL_FILE), "").unwrap();
        let path = folder.join(TOKEN_FILE);
        std::fs::write(&path, format!("{token}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        if let Some(pid) = lock {
            std::fs::write(folder.join(LOCK_FILE), format!("{pid}\n")).unwrap();
        }
        path
    }

    /// A new game beside the first, played by the process listening (here: this one, the peer
    /// of a socket pair), is the one whose token is sent; another user's file is not.
    #[test]
    fn the_token_of_the_game_the_daemon_plays_is_found_beside_the_first() {
        let output = std::env::temp_dir().join(format!("tactus-follow-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&output);
        let old = game(&output, "2026-01-01_1000_A-B", OLD, None);
        let new = game(
            &output,
            "2026-01-01_1200_A-B",
            NEW,
            Some(std::process::id()),
        );
        let (mine, _theirs) = UnixStream::pair().unwrap();
        let me = crate::daemon::console::own_uid().unwrap();
        let (path, token) = current_token(&old, me, &mine, Duration::ZERO).unwrap();
        assert_eq!((path, token.token.as_str()), (new.clone(), NEW));
        // A token file of another user than the daemon's is never sent: the first is read again.
        let (path, token) = current_token(&old, me + 1, &mine, Duration::ZERO).unwrap();
        assert_eq!((path, token.token.as_str()), (old.clone(), OLD));
        // A token file of its own (`[console] token_file`, no game folder): read again.
        let own = output.join(TOKEN_FILE);
        std::fs::write(&own, format!("{NEW}\n")).unwrap();
        assert_eq!(output_folder(&own), None);
        let (path, token) = current_token(&own, me, &mine, Duration::ZERO).unwrap();
        assert_eq!((path, token.token.as_str()), (own, NEW));
        std::fs::remove_dir_all(&output).unwrap();
    }
}
