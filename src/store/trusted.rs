//! Which folders the daemon trusts with the game's files, the folder it holds open to write them,
//! and how a user is named in a message.
//!
//! A folder is trusted when nobody but the daemon's user (or root) can change where its path
//! leads: every folder on the way belongs to the daemon's user or root and cannot be written by
//! other users unless it is sticky (`/tmp`: there others cannot rename or remove what is ours),
//! every symbolic link on the way belongs to the daemon's user or root, and a folder of the
//! daemon's own files cannot be written by others at all ([`Last::Private`]: sticky or not, they
//! could put a game in it to resume). [`check_folder`] walks a path so, link by link. The output
//! folder, the game folders, the broadcast folder, and the folders of the console socket and the
//! token file are checked with it by `check-config`, at the start, and the game folder again
//! before every record is written (`tactus hall` holds the tables' folders so too, before it
//! reads them): another user who could re-point a folder on the way could make a daemon
//! running as root write `game.pgn` and the scoresheets wherever he likes.
//!
//! [`TrustedDir`] is a game folder held open from the moment it is made or found trusted: its lock,
//! its journal, the transcript, `touches.txt`, the arbiter's token, the record's files and the
//! audio scoresheets are created, appended to, replaced and read relative to it (`openat`,
//! `renameat`, `unlinkat`: see [`TrustedDir::at`] and the store's `at`), so a folder renamed or
//! replaced by a link under the daemon's feet redirects no write; [`TrustedDir::verify`] says
//! whether its path still leads to it through trusted folders, so that such a change is reported as
//! an outage of the record rather than written through. Its path is kept for messages.
//!
//! gpsd, chrony and SQLite are the models: lose nothing, trust no one.

use std::{
    collections::VecDeque,
    ffi::{OsStr, OsString},
    fs::{File, Metadata},
    io,
    os::unix::fs::MetadataExt,
    path::{Component, Path, PathBuf},
};

use anyhow::{Context, Result, anyhow, bail};
use nix::{
    fcntl::{OFlag, open, openat},
    sys::stat::{Mode, mkdirat},
};

use super::{
    at::{At, OpenFolder},
    atomic::{AtomicWriteError, write_atomically_in},
};

/// Symbolic links followed on one path at most (as the kernel's `ELOOP` limit).
const MAX_LINKS: usize = 40;

/// What the last folder of a walked path may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Last {
    /// A folder of the daemon's own files (the output folder, a game folder): no other user may
    /// write to it, sticky or not, or he could put a game in it for the daemon to resume, or a
    /// file for it to read.
    Private,
    /// The folder of the console socket or of a file made with `O_EXCL` (the token file): it may
    /// be shared if it is sticky, as `/tmp` is: others cannot rename or remove what the daemon
    /// makes there, and a name they took first is refused by its owner.
    Shared,
}

/// A folder or link on the way that another user could change, or that cannot be looked at:
/// the path of that folder and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} {why}", .path.display())]
pub struct Untrusted {
    pub path: PathBuf,
    pub why: String,
}

fn untrusted(path: &Path, why: impl Into<String>) -> Untrusted {
    Untrusted {
        path: path.to_owned(),
        why: why.into(),
    }
}

/// Where a walked path leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walked {
    /// The path with every link resolved (the part that does not exist yet appended as given).
    pub real: PathBuf,
    /// The folder's device and inode, when it exists.
    pub id: Option<(u64, u64)>,
}

/// The daemon's (effective) user id.
fn me() -> u32 {
    nix::unistd::geteuid().as_raw()
}

/// Walk `path` (relative: from the current folder) folder by folder and link by link: every
/// folder and link on the way must belong to the daemon's user or root, no folder on the way may
/// be written by other users unless it is sticky, and the last one is held to `last`. A part
/// that does not exist yet ends the walk (the daemon makes it, in a folder that was checked).
pub fn check_folder(path: &Path, last: Last) -> Result<Walked, Untrusted> {
    check_folder_of(path, last, me())
}

/// [`check_folder`] as user `user` would trust it (`user` and root may own the folders and links
/// on the way): the console client trusts a socket's folder owned by the daemon's user so.
pub fn check_folder_of(path: &Path, last: Last, user: u32) -> Result<Walked, Untrusted> {
    check_folder_of_users(path, last, &[user])
}

/// [`check_folder`] trusting the folders and links of any of `users` (and root): `tactus hall`
/// running as one user trusts the tables' user too when it is told so.
pub fn check_folder_of_users(path: &Path, last: Last, users: &[u32]) -> Result<Walked, Untrusted> {
    let me = users;
    let absolute = std::path::absolute(path)
        .map_err(|e| untrusted(path, format!("cannot be made absolute ({e})")))?;
    let mut todo = parts(&absolute);
    let mut real = PathBuf::from("/");
    let root = lstat(&real)?;
    check_dir(&real, &root, me, todo.is_empty().then_some(last))?;
    let mut id = Some((root.dev(), root.ino()));
    let mut links = 0;
    while let Some(name) = todo.pop_front() {
        if name == ".." {
            // `real` has every link resolved: its parent is the physical one.
            real.pop();
            let meta = lstat(&real)?;
            check_dir(&real, &meta, me, todo.is_empty().then_some(last))?;
            id = Some((meta.dev(), meta.ino()));
            continue;
        }
        let next = real.join(&name);
        let meta = match std::fs::symlink_metadata(&next) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let mut rest = next;
                for part in todo {
                    if part == ".." {
                        rest.pop();
                    } else {
                        rest.push(part);
                    }
                }
                return Ok(Walked {
                    real: rest,
                    id: None,
                });
            }
            Err(e) => return Err(untrusted(&next, format!("cannot be looked at ({e})"))),
        };
        if meta.file_type().is_symlink() {
            if !trusted_owner(meta.uid(), me) {
                return Err(untrusted(
                    &next,
                    format!(
                        "is a symbolic link of {}, who can point it anywhere",
                        who(meta.uid())
                    ),
                ));
            }
            links += 1;
            if links > MAX_LINKS {
                return Err(untrusted(
                    path,
                    format!("leads through more than {MAX_LINKS} symbolic links"),
                ));
            }
            let target = std::fs::read_link(&next)
                .map_err(|e| untrusted(&next, format!("cannot be read ({e})")))?;
            if target.is_absolute() {
                real = PathBuf::from("/");
            }
            for part in parts(&target).into_iter().rev() {
                todo.push_front(part);
            }
            continue;
        }
        if !meta.is_dir() {
            return Err(untrusted(&next, "is not a folder"));
        }
        check_dir(&next, &meta, me, todo.is_empty().then_some(last))?;
        real = next;
        id = Some((meta.dev(), meta.ino()));
    }
    Ok(Walked { real, id })
}

fn lstat(path: &Path) -> Result<Metadata, Untrusted> {
    std::fs::symlink_metadata(path)
        .map_err(|e| untrusted(path, format!("cannot be looked at ({e})")))
}

/// The names of `path` in order (`..` kept, `.` and the root dropped).
fn parts(path: &Path) -> VecDeque<OsString> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_owned()),
            Component::ParentDir => Some(OsString::from("..")),
            _ => None,
        })
        .collect()
}

fn trusted_owner(uid: u32, me: &[u32]) -> bool {
    uid == 0 || me.contains(&uid)
}

/// One folder of a walk: its owner and who may write to it. `last`: the rule for the last
/// folder of the path (`None`: a folder on the way).
fn check_dir(
    path: &Path,
    meta: &Metadata,
    me: &[u32],
    last: Option<Last>,
) -> Result<(), Untrusted> {
    if !trusted_owner(meta.uid(), me) {
        return Err(untrusted(
            path,
            format!(
                "belongs to {}, who can rename or replace what is in it",
                who(meta.uid())
            ),
        ));
    }
    let mode = meta.mode();
    let everyone = mode & 0o002 != 0;
    // /etc/passwd and /etc/group are read only for a folder its group may write to.
    let group = !everyone && mode & 0o020 != 0 && !private_group(meta.gid(), meta.uid());
    if !everyone && !group {
        return Ok(());
    }
    let sticky = mode & 0o1000 != 0;
    let writers = if everyone {
        format!("every user (mode {:04o})", mode & 0o7777)
    } else {
        format!(
            "the members of its group {} (mode {:04o})",
            group_name(meta.gid()).unwrap_or_else(|| meta.gid().to_string()),
            mode & 0o7777
        )
    };
    match last {
        Some(Last::Private) if everyone => Err(untrusted(
            path,
            format!(
                "is writable by {writers}: another user could put a game or a file of his in \
                 it for tactus to read"
            ),
        )),
        Some(Last::Private) => Err(untrusted(
            path,
            format!(
                "is writable by other users, {writers}: they could put a game or a file of \
                 theirs in it for tactus to read"
            ),
        )),
        _ if sticky => Ok(()),
        _ => Err(untrusted(
            path,
            format!(
                "can be written by other users ({writers}) and is not sticky: they can rename or \
                 replace what is in it"
            ),
        )),
    }
}

/// Whether `gid` is the private group of user `uid` (user private groups, umask 002: folders are
/// group-writable, but the group is the user alone): `uid`'s primary group in /etc/passwd, no
/// other user's primary group, and no other member listed in /etc/group. When the files cannot
/// be read, it is not.
pub fn private_group(gid: u32, uid: u32) -> bool {
    let (Ok(passwd), Ok(groups)) = (
        std::fs::read_to_string("/etc/passwd"),
        std::fs::read_to_string("/etc/group"),
    ) else {
        return false;
    };
    // name, uid, primary gid
    let users: Vec<(&str, u32, u32)> = passwd
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split(':').collect();
            Some((
                *f.first()?,
                f.get(2)?.parse().ok()?,
                f.get(3)?.parse().ok()?,
            ))
        })
        .collect();
    let Some(&(name, _, primary)) = users.iter().find(|u| u.1 == uid) else {
        return false;
    };
    if primary != gid || users.iter().any(|u| u.2 == gid && u.1 != uid) {
        return false;
    }
    groups.lines().all(|line| {
        let f: Vec<&str> = line.split(':').collect();
        if f.get(2).and_then(|g| g.parse::<u32>().ok()) != Some(gid) {
            return true;
        }
        f.get(3)
            .is_none_or(|members| members.split(',').all(|m| m.is_empty() || m == name))
    })
}

/// The name of user `uid` in /etc/passwd, if it is there.
pub fn user_name(uid: u32) -> Option<String> {
    name_in("/etc/passwd", uid)
}

/// The name of group `gid` in /etc/group, if it is there.
fn group_name(gid: u32) -> Option<String> {
    name_in("/etc/group", gid)
}

/// The name whose third field is `id` in a file of the shape of /etc/passwd or /etc/group.
fn name_in(file: &str, id: u32) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    text.lines().find_map(|line| {
        let mut fields = line.split(':');
        let name = fields.next()?;
        let number = fields.nth(1)?.parse::<u32>().ok()?;
        (number == id).then(|| name.to_owned())
    })
}

/// User `uid` as a message names him: `user 65534 (nobody)`, or `user 4242` without a name.
pub fn who(uid: u32) -> String {
    match user_name(uid) {
        Some(name) => format!("user {uid} ({name})"),
        None => format!("user {uid}"),
    }
}

/// A folder held open after [`check_folder`] found it trusted: files are made, replaced and read
/// relative to it, never through its path again, so that renaming a folder on the way or putting
/// a link in its place redirects nothing.
#[derive(Debug)]
pub struct TrustedDir {
    path: PathBuf,
    dir: File,
    /// Device and inode: what [`TrustedDir::verify`] expects the path to lead to.
    id: (u64, u64),
    /// The users (besides root) whose folders and links it was trusted through: the daemon's
    /// own, or those `tactus hall` was told to trust.
    users: Vec<u32>,
}

impl TrustedDir {
    /// Check `path` (an existing folder, [`Last::Private`]) and hold it open.
    pub fn open(path: &Path) -> Result<TrustedDir> {
        TrustedDir::open_trusting(path, &[me()])
    }

    /// [`TrustedDir::open`] trusting the folders and links of any of `users` (and root).
    pub fn open_trusting(path: &Path, users: &[u32]) -> Result<TrustedDir> {
        let walked =
            check_folder_of_users(path, Last::Private, users).map_err(|e| anyhow!("{e}"))?;
        let Some(id) = walked.id else {
            bail!("the folder {} does not exist", path.display());
        };
        // Every link on the way is resolved in `real`: its last part is the folder itself.
        let fd = open(
            &walked.real,
            OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
            Mode::empty(),
        )
        .map_err(io::Error::from)
        .with_context(|| format!("cannot open the folder {}", path.display()))?;
        let dir = File::from(fd);
        let held = TrustedDir {
            path: path.to_owned(),
            dir,
            id,
            users: users.to_vec(),
        };
        held.check_identity()
            .map_err(|e| anyhow!("{e}; it was changed while it was opened"))?;
        Ok(held)
    }

    /// The folder's path, as it was given (for messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder held, to open, rename and remove its files relative to it.
    pub fn at(&self) -> At<'_> {
        At::new(&self.dir, &self.path)
    }

    /// Open the file `name` in this folder with `flags`, never through a symbolic link (see
    /// [`At::open`]).
    pub fn open_file(&self, name: &str, flags: OFlag, mode: u32) -> io::Result<File> {
        self.at().open(name, flags, mode)
    }

    /// The same folder held a second time (for another task that writes in it).
    pub fn try_clone(&self) -> io::Result<TrustedDir> {
        Ok(TrustedDir {
            path: self.path.clone(),
            dir: self.dir.try_clone()?,
            id: self.id,
            users: self.users.clone(),
        })
    }

    /// The folder held once more, as a plain open folder (for a writer that keeps it).
    pub fn hold(&self) -> io::Result<OpenFolder> {
        Ok(OpenFolder::new(self.dir.try_clone()?, self.path.clone()))
    }

    /// The folder's owner, as the held folder says it.
    pub fn owner(&self) -> io::Result<u32> {
        Ok(self.dir.metadata()?.uid())
    }

    /// The path of a file in the folder (for messages).
    pub fn file_path(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Whether the folder's path still leads to this folder through trusted folders only: an
    /// error names what changed (a folder on the way another user could now change, or the
    /// folder moved and something else in its place).
    pub fn verify(&self) -> Result<(), Untrusted> {
        let walked = check_folder_of_users(&self.path, Last::Private, &self.users)?;
        if walked.id == Some(self.id) {
            return Ok(());
        }
        Err(untrusted(
            &self.path,
            "is not the folder this game was started in any more: it was moved, or a folder or \
             link was put in its place",
        ))
    }

    fn check_identity(&self) -> Result<(), Untrusted> {
        let meta = self
            .dir
            .metadata()
            .map_err(|e| untrusted(&self.path, format!("cannot be looked at ({e})")))?;
        if (meta.dev(), meta.ino()) == self.id {
            Ok(())
        } else {
            Err(untrusted(&self.path, "is not the folder that was checked"))
        }
    }

    /// Replace the file `name` in this folder with `bytes`, atomically (see
    /// [`write_atomically_in`]).
    pub fn write_atomically(&self, name: &str, bytes: &[u8]) -> Result<(), AtomicWriteError> {
        write_atomically_in(&self.dir, &self.path, OsStr::new(name), |w| {
            w.write_all(bytes)
        })
    }

    /// Make the folder `name` in this folder (mode `mode`, less the umask) and hold it open.
    pub fn make_dir(&self, name: &str, mode: u32) -> io::Result<TrustedDir> {
        if name.is_empty() || name == "." || name == ".." || name.as_bytes().contains(&b'/') {
            return Err(io::Error::other(format!("{name:?} is no folder name")));
        }
        mkdirat(&self.dir, name, Mode::from_bits_truncate(mode))?;
        let fd = openat(
            &self.dir,
            name,
            OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
            Mode::empty(),
        )?;
        let dir = File::from(fd);
        let meta = dir.metadata()?;
        Ok(TrustedDir {
            path: self.path.join(name),
            dir,
            id: (meta.dev(), meta.ino()),
            users: self.users.clone(),
        })
    }

    /// The folder `name` in this folder, held open when it is trusted as a folder of the daemon's
    /// own files ([`Last::Private`]: the daemon's user's or root's, closed to other users); never
    /// through a symbolic link.
    pub fn open_dir(&self, name: &str) -> Result<TrustedDir, Untrusted> {
        let path = self.path.join(name);
        if name.is_empty() || name == "." || name == ".." || name.as_bytes().contains(&b'/') {
            return Err(untrusted(&path, "is no folder name"));
        }
        let fd = openat(
            &self.dir,
            name,
            OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| match e {
            nix::errno::Errno::ELOOP | nix::errno::Errno::ENOTDIR => {
                untrusted(&path, "is not a folder (a symbolic link is not followed)")
            }
            e => untrusted(&path, format!("cannot be opened ({e})")),
        })?;
        let dir = File::from(fd);
        let meta = dir
            .metadata()
            .map_err(|e| untrusted(&path, format!("cannot be looked at ({e})")))?;
        check_dir(&path, &meta, &self.users, Some(Last::Private))?;
        Ok(TrustedDir {
            path,
            dir,
            id: (meta.dev(), meta.ino()),
            users: self.users.clone(),
        })
    }

    /// Whether a file of user `uid` in this folder may be trusted: root's, or of a user the
    /// folder was trusted through (another user could write in it whatever he likes).
    pub fn trusts(&self, uid: u32) -> bool {
        trusted_owner(uid, &self.users)
    }

    /// The held folder itself (to change its group or mode through it, say).
    pub fn as_file(&self) -> &File {
        &self.dir
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn scratch(tag: &str) -> crate::store::Scratch {
        crate::store::scratch(&format!("trusted-{tag}"))
    }

    #[test]
    fn users_are_named_by_number_and_name() {
        assert_eq!(who(0), "user 0 (root)");
        assert_eq!(who(4_000_000_000), "user 4000000000");
    }

    #[test]
    fn a_folder_on_the_way_others_may_write_to_is_refused_unless_sticky() {
        let dir = scratch("open");
        let games = dir.join("open").join("games");
        std::fs::create_dir_all(&games).unwrap();
        std::fs::set_permissions(dir.join("open"), std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = check_folder(&games, Last::Private).unwrap_err();
        assert_eq!(err.path, dir.join("open"));
        assert!(err.why.contains("every user (mode 0777)"), "{err}");
        assert!(err.why.contains("not sticky"), "{err}");
        // Sticky, as /tmp: others cannot rename what is ours in it.
        std::fs::set_permissions(dir.join("open"), std::fs::Permissions::from_mode(0o1777))
            .unwrap();
        assert!(check_folder(&games, Last::Private).is_ok());
        // But the folder of the daemon's own files must be closed to others, sticky or not.
        let err = check_folder(&dir.join("open"), Last::Private).unwrap_err();
        assert!(err.why.contains("is writable by every user"), "{err}");
        assert!(check_folder(&dir.join("open"), Last::Shared).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn links_are_followed_and_the_rest_of_a_missing_path_kept() {
        let dir = scratch("links");
        std::fs::create_dir_all(dir.join("real").join("games")).unwrap();
        std::os::unix::fs::symlink(dir.join("real"), dir.join("link")).unwrap();
        let walked = check_folder(&dir.join("link").join("games"), Last::Private).unwrap();
        assert_eq!(walked.real, dir.join("real").join("games"));
        assert!(walked.id.is_some());
        let walked = check_folder(&dir.join("link/new/../newer/x"), Last::Private).unwrap();
        assert_eq!(walked.real, dir.join("real").join("newer").join("x"));
        assert_eq!(walked.id, None);
        // A file on the way is no folder.
        std::fs::write(dir.join("file"), b"").unwrap();
        let err = check_folder(&dir.join("file"), Last::Private).unwrap_err();
        assert!(err.why.contains("is not a folder"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_held_folder_is_written_where_it_is_and_knows_when_its_path_moved() {
        let dir = scratch("held");
        let game = dir.join("games").join("g1");
        std::fs::create_dir_all(&game).unwrap();
        let held = TrustedDir::open(&game).unwrap();
        held.write_atomically("game.pgn", b"1. e4 *").unwrap();
        assert_eq!(std::fs::read(game.join("game.pgn")).unwrap(), b"1. e4 *");
        assert!(held.verify().is_ok());
        // The parent renamed and a link to elsewhere put in its place.
        std::fs::rename(dir.join("games"), dir.join("moved")).unwrap();
        std::fs::create_dir_all(dir.join("elsewhere").join("g1")).unwrap();
        std::os::unix::fs::symlink(dir.join("elsewhere"), dir.join("games")).unwrap();
        let err = held.verify().unwrap_err();
        assert!(
            err.why.contains("not the folder this game was started in"),
            "{err}"
        );
        // A write goes to the folder held, never through the path.
        held.write_atomically("game.pgn", b"1. e4 e5 *").unwrap();
        assert!(!dir.join("elsewhere").join("g1").join("game.pgn").exists());
        assert_eq!(
            std::fs::read(dir.join("moved").join("g1").join("game.pgn")).unwrap(),
            b"1. e4 e5 *"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
