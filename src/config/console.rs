//! `[console]`: the console socket, the group that may use it, the arbiter's token file; what
//! the text alone tells of them and, once resolved, of their paths.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use serde::Deserialize;

/// `[console]`: the assistant's and arbiter's socket.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsoleSection {
    /// The Unix socket path (created with mode 0600), in a folder other users cannot write to
    /// (or a sticky one, like /tmp); nothing but a stale socket of the daemon's user is ever
    /// removed there.
    #[serde(default = "default_socket")]
    pub socket: PathBuf,
    /// A group (name or number) that may use the socket too (mode 0660): the assistant's
    /// account, say. None: only the daemon's user.
    #[serde(default)]
    pub group: Option<String>,
    /// The arbiter's token file: read if it exists (the arbiter's own token for the whole
    /// event: a file of the daemon's user, mode 0600, not a link, 128 bits of randomness), else
    /// written there at start (mode 0600). None: `arbiter.token` in the game folder.
    #[serde(default)]
    pub token_file: Option<PathBuf>,
}

fn default_socket() -> PathBuf {
    PathBuf::from("tactus.sock")
}

impl Default for ConsoleSection {
    fn default() -> Self {
        ConsoleSection {
            socket: default_socket(),
            group: None,
            token_file: None,
        }
    }
}

impl ConsoleSection {
    /// `[console]`'s keys, as far as the text tells: no empty path or group.
    pub fn check(&self, origin: &str) -> Result<()> {
        if self.socket.as_os_str().is_empty() {
            bail!(
                "{origin}: console.socket = \"\": name the console socket's path (like \
                 \"/run/user/1000/tactus.sock\"), or leave the key out for tactus.sock"
            );
        }
        if self
            .token_file
            .as_ref()
            .is_some_and(|p| p.as_os_str().is_empty())
        {
            bail!(
                "{origin}: console.token_file = \"\": name the arbiter's token file, or leave the \
                 key out to have one made in each game's folder"
            );
        }
        if self.group.as_ref().is_some_and(|g| g.trim().is_empty()) {
            bail!(
                "{origin}: console.group = \"\": name a group (or its number), or leave the key \
                 out to keep the console to the daemon's user"
            );
        }
        Ok(())
    }

    /// `[console]`'s paths, once they are resolved: the socket's path must not be anything but a
    /// socket (the daemon removes only a stale socket of its own there, see
    /// `daemon::console::ConsoleSocket::bind`); say so at `check-config`, not at the table.
    pub fn check_socket_path(socket: &Path, origin: &str) -> Result<()> {
        use std::os::unix::fs::FileTypeExt;
        if let Ok(meta) = std::fs::symlink_metadata(socket)
            && !meta.file_type().is_socket()
        {
            bail!(
                "{origin}: console.socket = {} names an existing file or folder, not a socket; \
                 give the console socket a path of its own",
                socket.display()
            );
        }
        Ok(())
    }
}
