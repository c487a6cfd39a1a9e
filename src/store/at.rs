//! Files opened, renamed and removed relative to a folder held open (`openat`, `renameat`,
//! `unlinkat`), never through a symbolic link: once the folder is open, renaming a folder on the
//! way to it or putting a link in its place redirects nothing. The game folder is held so
//! ([`TrustedDir::at`](super::trusted::TrustedDir::at)); a tool's output folder (`tactus say`)
//! too, opened by its path once ([`OpenFolder`]). The folder's path is kept for messages only.

use std::{
    ffi::{OsStr, OsString},
    fs::File,
    io,
    os::unix::{ffi::OsStrExt, fs::MetadataExt},
    path::{Path, PathBuf},
};

use nix::{
    dir::Dir,
    errno::Errno,
    fcntl::{AtFlags, OFlag, openat, renameat},
    sys::stat::{Mode, fstatat},
    unistd::{UnlinkatFlags, unlinkat},
};

use super::private::PRIVATE_FILE_MODE;

/// A folder held open and its path (for messages).
#[derive(Debug, Clone, Copy)]
pub struct At<'a> {
    dir: &'a File,
    path: &'a Path,
}

impl<'a> At<'a> {
    /// The open folder `dir`, whose path (for messages) is `path`.
    pub fn new(dir: &'a File, path: &'a Path) -> At<'a> {
        At { dir, path }
    }

    /// The folder's path, for messages.
    pub fn path(&self) -> &'a Path {
        self.path
    }

    /// The open folder.
    pub fn dir(&self) -> &'a File {
        self.dir
    }

    /// The path of the file `name` in the folder, for messages.
    pub fn file_path(&self, name: impl AsRef<OsStr>) -> PathBuf {
        self.path.join(name.as_ref())
    }

    /// Open the file `name` of the folder with `flags` (`O_CREAT` makes it with `mode`, less the
    /// umask), never through a symbolic link (`O_NOFOLLOW`; with `O_EXCL` a link there counts
    /// as taken). What is opened must be a regular file.
    pub fn open(&self, name: impl AsRef<OsStr>, flags: OFlag, mode: u32) -> io::Result<File> {
        let name = self.plain(name.as_ref())?;
        let fd = openat(
            self.dir,
            name,
            flags | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
            Mode::from_bits_truncate(mode),
        )
        .map_err(|e| match e {
            Errno::ELOOP => io::Error::other(format!(
                "{} is a symbolic link; tactus does not follow links in a game folder",
                self.file_path(name).display()
            )),
            e => e.into(),
        })?;
        let file = File::from(fd);
        if !file.metadata()?.is_file() {
            return Err(io::Error::other(format!(
                "{} is not a regular file",
                self.file_path(name).display()
            )));
        }
        Ok(file)
    }

    /// Open the file `name` to append: a new file is made with mode 0600, an existing one must
    /// be a regular file, not a link.
    pub fn append(&self, name: impl AsRef<OsStr>) -> io::Result<File> {
        self.open(
            name,
            OFlag::O_WRONLY | OFlag::O_APPEND | OFlag::O_CREAT,
            PRIVATE_FILE_MODE,
        )
    }

    /// Remove the file `name` (a link there is removed, not what it points to).
    pub fn remove(&self, name: impl AsRef<OsStr>) -> io::Result<()> {
        let name = self.plain(name.as_ref())?;
        unlinkat(self.dir, name, UnlinkatFlags::NoRemoveDir).map_err(io::Error::from)
    }

    /// Rename the file `from` to `to`, both in the folder.
    pub fn rename(&self, from: impl AsRef<OsStr>, to: impl AsRef<OsStr>) -> io::Result<()> {
        let (from, to) = (self.plain(from.as_ref())?, self.plain(to.as_ref())?);
        renameat(self.dir, from, self.dir, to).map_err(io::Error::from)
    }

    /// The device and inode of what is named `name` in the folder (a link itself, not what it
    /// points to).
    pub fn id_of(&self, name: impl AsRef<OsStr>) -> io::Result<(u64, u64)> {
        let name = self.plain(name.as_ref())?;
        let stat = fstatat(self.dir, name, AtFlags::AT_SYMLINK_NOFOLLOW)?;
        Ok((stat.st_dev as u64, stat.st_ino as u64))
    }

    /// The names in the folder (not `.` and `..`), read from the folder held.
    pub fn names(&self) -> io::Result<Vec<OsString>> {
        let mut dir = Dir::openat(
            self.dir,
            ".",
            OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
            Mode::empty(),
        )?;
        let mut names = Vec::new();
        for entry in dir.iter() {
            let name = OsStr::from_bytes(entry?.file_name().to_bytes()).to_owned();
            if name != "." && name != ".." {
                names.push(name);
            }
        }
        Ok(names)
    }

    /// Whether `name` in the folder is a regular file (not a link, whatever it points to).
    pub fn is_file(&self, name: impl AsRef<OsStr>) -> bool {
        let Ok(name) = self.plain(name.as_ref()) else {
            return false;
        };
        fstatat(self.dir, name, AtFlags::AT_SYMLINK_NOFOLLOW)
            .is_ok_and(|stat| stat.st_mode & nix::libc::S_IFMT == nix::libc::S_IFREG)
    }

    /// Whether something (a file, a link, a folder) is named `name` in the folder.
    pub fn exists(&self, name: impl AsRef<OsStr>) -> bool {
        self.id_of(name).is_ok()
    }

    /// Sync the folder, so that a file made, renamed or removed in it survives a power cut. Best
    /// effort: not every file system can sync a folder, and the files themselves are whole under
    /// their names either way.
    pub fn sync(&self) {
        let _ = self.dir.sync_all();
    }

    /// `name` must be a plain name in the folder: no `/`, not `.` or `..`.
    fn plain<'n>(&self, name: &'n OsStr) -> io::Result<&'n OsStr> {
        if name.is_empty() || name == "." || name == ".." || name.as_bytes().contains(&b'/') {
            return Err(io::Error::other(format!(
                "{name:?} is no file name in {}",
                self.path.display()
            )));
        }
        Ok(name)
    }
}

/// Whether the open `file` is still the file named `name` in the folder `at`: not deleted (no
/// link left) nor another put in its place.
pub fn still_named(file: &File, at: At<'_>, name: impl AsRef<OsStr>) -> io::Result<bool> {
    let ours = file.metadata()?;
    if ours.nlink() == 0 {
        return Ok(false);
    }
    match at.id_of(name) {
        Ok(there) => Ok(there == (ours.dev(), ours.ino())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// A folder opened by its path once (a tool's output folder, not checked for trust): its files
/// are then reached relative to it ([`OpenFolder::at`]).
#[derive(Debug)]
pub struct OpenFolder {
    dir: File,
    path: PathBuf,
}

impl OpenFolder {
    /// The open folder `dir`, whose path (for messages) is `path`.
    pub fn new(dir: File, path: PathBuf) -> OpenFolder {
        OpenFolder { dir, path }
    }

    /// The folder of the file at `path` (the current folder for a bare name), held open, and the
    /// file's name in it.
    pub fn of_file(path: &Path) -> io::Result<(OpenFolder, OsString)> {
        let name = path
            .file_name()
            .ok_or_else(|| io::Error::other(format!("{} has no file name", path.display())))?;
        let dir_path = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let dir = File::open(dir_path)?;
        Ok((
            OpenFolder {
                dir,
                path: dir_path.to_owned(),
            },
            name.to_owned(),
        ))
    }

    pub fn at(&self) -> At<'_> {
        At::new(&self.dir, &self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> crate::store::Scratch {
        crate::store::scratch(&format!("at-{tag}"))
    }

    #[test]
    fn files_are_reached_in_the_folder_held_never_through_a_link() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("held");
        let (folder, name) = OpenFolder::of_file(&dir.join("notes.txt")).unwrap();
        assert_eq!(name, "notes.txt");
        let at = folder.at();
        std::io::Write::write_all(&mut at.append(&name).unwrap(), b"one\n").unwrap();
        std::io::Write::write_all(&mut at.append(&name).unwrap(), b"two\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join(&name)).unwrap(),
            "one\ntwo\n"
        );
        let mode = std::fs::metadata(dir.join(&name))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        // A link is neither opened nor created through, and named so.
        std::fs::write(dir.join("victim"), b"keep").unwrap();
        std::os::unix::fs::symlink(dir.join("victim"), dir.join("planted")).unwrap();
        let err = at.append("planted").unwrap_err();
        assert!(
            err.to_string().contains("planted is a symbolic link"),
            "{err}"
        );
        let err = at
            .open(
                "planted",
                OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_EXCL,
                0o600,
            )
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(dir.join("victim")).unwrap(), b"keep");
        // A folder is no file; a path is no name.
        std::fs::create_dir(dir.join("sub")).unwrap();
        let err = at.open("sub", OFlag::O_RDONLY, 0).unwrap_err();
        assert!(err.to_string().contains("is not a regular file"), "{err}");
        assert!(at.open("sub/x", OFlag::O_RDONLY, 0).is_err());
        assert!(at.remove("..").is_err());
        // Renamed and removed in the folder; a file deleted or replaced is no longer named so.
        let file = at.open(&name, OFlag::O_RDONLY, 0).unwrap();
        assert!(still_named(&file, at, &name).unwrap());
        at.rename(&name, "moved.txt").unwrap();
        assert!(!still_named(&file, at, &name).unwrap());
        assert!(at.exists("moved.txt") && !at.exists(&name));
        assert!(at.is_file("moved.txt") && !at.is_file("planted") && !at.is_file("sub"));
        let mut names = at.names().unwrap();
        names.sort();
        assert_eq!(names, ["moved.txt", "planted", "sub", "victim"]);
        at.remove("moved.txt").unwrap();
        assert!(!at.exists("moved.txt"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
