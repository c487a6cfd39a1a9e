//! `[web]`: the table's page and its live PGN (`listen`), and a folder a broadcaster watches
//! (`broadcast_dir`). Neither is on by default: a table shows nothing on the network unless the
//! file says where.

use std::{net::SocketAddr, path::PathBuf};

use anyhow::{Result, bail};
use serde::Deserialize;

/// `[web]`: where the table's page listens, and where `games.pgn` is kept for a broadcaster.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebSection {
    /// The address the page listens on: `"127.0.0.1:8080"` for this computer only,
    /// `"0.0.0.0:8080"` for the hall's network. None: no listener.
    #[serde(default)]
    pub listen: Option<String>,
    /// A folder where `games.pgn` (this table's game so far) is written after each change, for
    /// a broadcaster that watches a folder.
    #[serde(default)]
    pub broadcast_dir: Option<PathBuf>,
}

impl WebSection {
    /// `[web]`'s keys, as far as the text tells: an address that parses, no empty folder.
    pub fn check(&self, origin: &str) -> Result<()> {
        self.listen_addr(origin)?;
        if self
            .broadcast_dir
            .as_ref()
            .is_some_and(|p| p.as_os_str().is_empty())
        {
            bail!(
                "{origin}: web.broadcast_dir = \"\": name the folder games.pgn is written to, or \
                 leave the key out"
            );
        }
        Ok(())
    }

    /// The address to listen on, if any.
    pub fn listen_addr(&self, origin: &str) -> Result<Option<SocketAddr>> {
        match &self.listen {
            None => Ok(None),
            Some(text) => match text.parse::<SocketAddr>() {
                Ok(addr) => Ok(Some(addr)),
                Err(_) => bail!(
                    "{origin}: web.listen = {text:?} is not an address and port: write \
                     \"127.0.0.1:8080\" (this computer only) or \"0.0.0.0:8080\" (the hall's \
                     network)"
                ),
            },
        }
    }
}
