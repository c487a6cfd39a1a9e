//! Paths in `config.toml` are relative to the file's folder, so that a unit file or a script can
//! start tactus from anywhere.

use std::path::{Path, PathBuf};

/// `path` from the file, resolved against `base`, the file's folder (empty: the current folder).
pub fn resolve(base: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() || base.as_os_str().is_empty() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}
