//! `[web]`: the table's page and its live PGN (`listen`), the names it answers to besides its
//! own (`names`), another site allowed to read it from a browser (`allow_origin`), and a folder a
//! broadcaster watches (`broadcast_dir`). Nothing is on by default: a table shows nothing on the
//! network unless the file says where, and no other site may read it unless the file says which.

use std::{net::SocketAddr, path::PathBuf, time::Duration};

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
    /// Host names the page answers to besides loopback, this computer's own name and its
    /// addresses (a name the hall's DNS gives it, say). A request for any other name is refused:
    /// a web page elsewhere cannot read the table through DNS rebinding.
    #[serde(default)]
    pub names: Vec<String>,
    /// The one other origin a browser may let read the page (`"https://broadcast.example"`, or
    /// `"*"` for every site): sent as `Access-Control-Allow-Origin`. None by default.
    #[serde(default)]
    pub allow_origin: Option<String>,
}

/// Whether `name` can be a host name the page answers to: letters, digits, `-` and `.`.
pub fn check_host_name(name: &str) -> std::result::Result<(), String> {
    if name.is_empty()
        || name.len() > 253
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
    {
        return Err(format!(
            "{name:?} is not a host name: letters, digits, '-' and '.' only, as \
             \"table1.hall.lan\" (no port, no scheme)"
        ));
    }
    Ok(())
}

/// Whether `origin` can be sent as `Access-Control-Allow-Origin`: `*`, or a scheme and a host
/// with an optional port (`https://broadcast.example:8443`), nothing else (no path, no space, no
/// line break).
pub fn check_origin(origin: &str) -> std::result::Result<(), String> {
    if origin == "*" {
        return Ok(());
    }
    let rest = origin
        .strip_prefix("https://")
        .or_else(|| origin.strip_prefix("http://"));
    let ok = rest.is_some_and(|rest| {
        let (host, port) = match rest.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (rest, None),
        };
        check_host_name(host).is_ok() && port.is_none_or(|p| p.parse::<u16>().is_ok())
    });
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{origin:?} is not an origin: write \"https://broadcast.example\" (a scheme and a \
             host, a port if need be, no path), or \"*\" for every site"
        ))
    }
}

impl WebSection {
    /// `[web]`'s keys, as far as the text tells: an address that parses, no empty folder.
    pub fn check(&self, origin: &str) -> Result<()> {
        self.listen_addr(origin)?;
        for name in &self.names {
            check_host_name(name).map_err(|e| anyhow::anyhow!("{origin}: web.names: {e}"))?;
        }
        if let Some(allowed) = &self.allow_origin {
            check_origin(allowed)
                .map_err(|e| anyhow::anyhow!("{origin}: web.allow_origin: {e}"))?;
        }
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

    /// Whom the page answers ([`Access`]).
    pub fn access(&self) -> Access {
        Access {
            names: self.names.clone(),
            allow_origin: self.allow_origin.clone(),
        }
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

// The page's and the hall's limits on viewers: fixed, said by `check-config` and `tactus hall`,
// kept by `crate::web::http`.

/// Connections served at once; more are told to come back (503).
pub const MAX_CONNECTIONS: usize = 512;
/// Connections from one address served at once (an IPv6 /64 is one address): a viewer's
/// browser needs two or three; more are closed at once.
pub const MAX_PER_ADDRESS: usize = 16;
/// A request's head must arrive within this.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(2);
/// A write to a viewer that waits longer than this ends his connection: he does not read.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// An event stream ends after this; the browser's `EventSource` opens a new one a second later
/// and is sent everything again, so a viewer loses nothing, and a place held by one who never
/// reads is freed.
pub const STREAM_LIFETIME: Duration = Duration::from_secs(10 * 60);
/// The limits on viewers in words (`check-config`, `tactus hall`).
pub fn limits_words() -> String {
    format!(
        "viewers: at most {MAX_CONNECTIONS} at once, {MAX_PER_ADDRESS} per address (an IPv6 /64 \
         is one); a request's head within {} s; a viewer who does not read for {} s is let go; \
         an event stream is renewed every {} minutes (the browser reconnects by itself)",
        HEAD_TIMEOUT.as_secs(),
        WRITE_TIMEOUT.as_secs(),
        STREAM_LIFETIME.as_secs() / 60
    )
}

/// Whom a page answers: the `Host` names it serves, and the other origins a browser may let read
/// it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Access {
    /// Names the page also answers to (`[web] names`, `tactus hall --name`), besides loopback,
    /// this computer's own name and the address the viewer connected to.
    pub names: Vec<String>,
    /// The `Access-Control-Allow-Origin` sent (`[web] allow_origin`), if any: none by default,
    /// so that a page of another site in a viewer's browser cannot read the table.
    pub allow_origin: Option<String>,
}

/// This computer's name, lower case (`gethostname`).
pub fn own_name() -> Option<String> {
    let name = nix::unistd::gethostname().ok()?.into_string().ok()?;
    (!name.is_empty()).then(|| name.to_ascii_lowercase())
}
