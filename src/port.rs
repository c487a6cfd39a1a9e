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
        let dir = std::env::temp_dir().join(format!("tactus-describe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
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
