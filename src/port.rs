//! A board's serial port: opened with its profile's settings (speed, framing, no flow control),
//! with errors that name the path and the fix, and a path said in words. Shared by the daemon's
//! board links, the board simulators and `tactus board-test`.

use std::path::Path;

use anyhow::{Result, anyhow};
use tokio_serial::{SerialPortBuilderExt, SerialStream};

use tactus_core::board::profile::{Parity, Profile};

/// Open a board's port with the profile's serial settings. Errors name the path and, where one
/// is known, the fix.
pub fn open_port(path: &Path, profile: &Profile) -> Result<SerialStream> {
    let s = &profile.serial;
    let builder = tokio_serial::new(path.to_string_lossy(), s.baud)
        .data_bits(match s.data_bits {
            5 => tokio_serial::DataBits::Five,
            6 => tokio_serial::DataBits::Six,
            7 => tokio_serial::DataBits::Seven,
            _ => tokio_serial::DataBits::Eight,
        })
        .parity(match s.parity {
            Parity::None => tokio_serial::Parity::None,
            Parity::Even => tokio_serial::Parity::Even,
            Parity::Odd => tokio_serial::Parity::Odd,
        })
        .stop_bits(if s.stop_bits == 2 {
            tokio_serial::StopBits::Two
        } else {
            tokio_serial::StopBits::One
        })
        .flow_control(tokio_serial::FlowControl::None);
    builder.open_native_async().map_err(|err| {
        let fix = match err.kind() {
            tokio_serial::ErrorKind::Io(std::io::ErrorKind::NotFound) => {
                "no such device: is the board plugged in and switched on? Name it by its stable path \
                 under /dev/serial/by-id/ (ls -l /dev/serial/by-id/), which survives replugging"
            }
            tokio_serial::ErrorKind::Io(std::io::ErrorKind::PermissionDenied) => {
                "permission denied: add your user to the group that owns the port (usually dialout: \
                 sudo usermod -aG dialout $USER, then log in again)"
            }
            tokio_serial::ErrorKind::NoDevice => {
                "the port is busy: another program (or another tactus) has it open; close it first"
            }
            _ => "check that this is the board's serial port (e.g. /dev/ttyUSB0, /dev/ttyACM0, or a path under /dev/serial/by-id/)",
        };
        anyhow!("cannot open the board's port {}: {err}; {fix}", path.display())
    })
}

/// Why a configured port cannot be used now, found before a game folder is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PortTrouble {
    /// Nothing at the path; the serial ports this machine has, in words.
    Missing { here: String },
    /// Another process has it open: its pid and name.
    Busy { pid: u32, name: String },
}

impl std::fmt::Display for PortTrouble {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PortTrouble::Missing { here } => write!(f, "no such port; ports here: {here}"),
            PortTrouble::Busy { pid, name } => write!(
                f,
                "busy: used by process {pid} ({name}); close it (or stop that tactus) first"
            ),
        }
    }
}

/// Whether `path` can be opened as a board's port now: it exists, and no other program has it.
/// The processes' open files are looked at in /proc, so a terminal program that did not lock
/// the port is found too (processes of other users only as far as /proc shows them). A
/// pseudo-terminal is held by the bridge that made it (socat, ser2net: a process holding
/// `/dev/ptmx` too); only another program holding it makes it busy.
pub fn probe(path: &Path) -> Result<(), PortTrouble> {
    let Ok(real) = std::fs::canonicalize(path) else {
        return Err(PortTrouble::Missing { here: ports_here() });
    };
    match holder(&real, real.starts_with("/dev/pts")) {
        Some((pid, name)) => Err(PortTrouble::Busy { pid, name }),
        None => Ok(()),
    }
}

/// Another process that has `device` open (its pid and name); with `not_bridges`, a process
/// that also holds a pseudo-terminal's master (`/dev/ptmx`) does not count.
fn holder(device: &Path, not_bridges: bool) -> Option<(u32, String)> {
    let me = std::process::id();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let targets: Vec<std::path::PathBuf> = std::fs::read_dir(entry.path().join("fd"))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|fd| std::fs::read_link(fd.path()).ok())
            .collect();
        let holds = targets.iter().any(|t| t == device);
        let bridge = targets.iter().any(|t| t == Path::new("/dev/ptmx"));
        if holds && !(not_bridges && bridge) {
            let name = std::fs::read_to_string(entry.path().join("comm"))
                .map(|n| n.trim().to_owned())
                .unwrap_or_else(|_| "?".into());
            return Some((pid, name));
        }
    }
    None
}

/// The serial ports this machine has, in words: the stable names under /dev/serial/by-id/ and
/// the USB and ACM devices.
pub fn ports_here() -> String {
    let mut found: Vec<String> = Vec::new();
    for entry in std::fs::read_dir("/dev/serial/by-id")
        .into_iter()
        .flatten()
        .flatten()
    {
        found.push(describe_path(&entry.path()));
    }
    for entry in std::fs::read_dir("/dev").into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if ["ttyUSB", "ttyACM", "rfcomm"]
            .iter()
            .any(|p| name.starts_with(p))
        {
            let path = entry.path().display().to_string();
            if !found.iter().any(|f| f.contains(&path)) {
                found.push(path);
            }
        }
    }
    if found.is_empty() {
        "none (is the board plugged in?)".into()
    } else {
        found.sort();
        found.join(", ")
    }
}

/// A path as the user should see it in messages (the by-id hint lives in [`open_port`]).
pub fn describe_path(path: &Path) -> String {
    match std::fs::canonicalize(path) {
        Ok(real) if real != path => format!("{}, a link to {}", path.display(), real.display()),
        _ => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A port named by a link (as /dev/serial/by-id/ names them) is said with the device it
    /// leads to, in words (issue 15: no arrows in messages).
    #[test]
    fn a_linked_port_is_described_in_words() {
        let dir = crate::store::scratch("describe");
        let device = dir.join("ttyUSB9");
        std::fs::write(&device, "").unwrap();
        let link = dir.join("usb-board");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&device, &link).unwrap();
        let said = describe_path(&link);
        assert_eq!(
            said,
            format!(
                "{}, a link to {}",
                link.display(),
                std::fs::canonicalize(&device).unwrap().display()
            )
        );
        assert!(!said.contains("->"));
        assert_eq!(describe_path(&device), device.display().to_string());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
