//! The journal's disk behind a thread of its own, so that a storage stall (an SD card busy for
//! seconds, a frozen file system) costs the hub at most [`STALL`]: the writes and the `fsync`
//! happen on the thread, in order; the hub waits for them that long, then goes on (the journal
//! reports the line as in flight, and the hub halts play behind it while it keeps answering the
//! consoles and speaking). The line lands when the disk wakes up; [`Sink::landed`] says so
//! without waiting.

use std::{
    ffi::OsStr,
    fs::File,
    io::{self, Seek, SeekFrom, Write},
    sync::mpsc,
    time::{Duration, Instant},
};

use super::Sink;
use crate::store::at::At;

/// How long the hub waits for a line to reach the disk before it counts as stalled.
pub const STALL: Duration = Duration::from_millis(1_500);

enum Op {
    Write(Vec<u8>),
    Sync,
    Cut(u64),
}

/// A sink whose operations run on a thread; see the module.
pub struct Behind {
    ops: mpsc::Sender<Op>,
    done: mpsc::Receiver<io::Result<()>>,
    /// Operations sent whose results have not come back.
    outstanding: usize,
    /// The first failure among results collected while others are still out.
    failed: Option<io::Error>,
    /// A handle on the same file, for looking at it (deleted?) and reading it back.
    look: Option<File>,
    stall: Duration,
}

impl std::fmt::Debug for Behind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Behind")
            .field("outstanding", &self.outstanding)
            .finish()
    }
}

impl Behind {
    /// The journal's file, written on a thread.
    pub fn file(file: File) -> io::Result<Behind> {
        let look = file.try_clone()?;
        Ok(Behind::spawn(Box::new(file), Some(look), STALL))
    }

    /// `inner` written on a thread; `look` is the same file, for [`Sink::gone_from`] and
    /// [`Sink::read_back`].
    pub fn spawn(mut inner: Box<dyn Sink>, look: Option<File>, stall: Duration) -> Behind {
        let (ops, rx) = mpsc::channel::<Op>();
        let (tx, done) = mpsc::channel();
        std::thread::Builder::new()
            .name("journal".into())
            .spawn(move || {
                for op in rx {
                    let result = match op {
                        Op::Write(bytes) => inner.append(&bytes),
                        Op::Sync => inner.sync(),
                        Op::Cut(len) => inner.cut(len),
                    };
                    if tx.send(result).is_err() {
                        break;
                    }
                }
            })
            .expect("cannot start the journal's thread");
        Behind {
            ops,
            done,
            outstanding: 0,
            failed: None,
            look,
            stall,
        }
    }

    fn send(&mut self, op: Op) -> io::Result<()> {
        self.ops
            .send(op)
            .map_err(|_| io::Error::other("the journal's thread is gone"))?;
        self.outstanding += 1;
        Ok(())
    }

    /// Collect results until none is out or `deadline` passes (None: do not wait). Returns
    /// None while some are out.
    fn collect(&mut self, deadline: Option<Instant>) -> Option<io::Result<()>> {
        while self.outstanding > 0 {
            let result = match deadline {
                None => match self.done.try_recv() {
                    Ok(r) => r,
                    Err(mpsc::TryRecvError::Empty) => return None,
                    Err(mpsc::TryRecvError::Disconnected) => {
                        Err(io::Error::other("the journal's thread is gone"))
                    }
                },
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    match self.done.recv_timeout(left) {
                        Ok(r) => r,
                        Err(mpsc::RecvTimeoutError::Timeout) => return None,
                        Err(mpsc::RecvTimeoutError::Disconnected) => {
                            Err(io::Error::other("the journal's thread is gone"))
                        }
                    }
                }
            };
            self.outstanding -= 1;
            if let Err(e) = result
                && self.failed.is_none()
            {
                self.failed = Some(e);
            }
        }
        Some(self.failed.take().map_or(Ok(()), Err))
    }

    fn stalled(&self) -> io::Error {
        io::Error::new(
            io::ErrorKind::TimedOut,
            format!(
                "the disk has not taken the line within {:.1} s (a storage stall)",
                self.stall.as_secs_f64()
            ),
        )
    }
}

impl Sink for Behind {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.outstanding > 0 {
            return Err(self.stalled());
        }
        self.send(Op::Write(bytes.to_vec()))
    }

    fn sync(&mut self) -> io::Result<()> {
        self.send(Op::Sync)?;
        match self.collect(Some(Instant::now() + self.stall)) {
            Some(result) => result,
            None => Err(self.stalled()),
        }
    }

    fn cut(&mut self, len: u64) -> io::Result<()> {
        if self.outstanding > 0 {
            return Err(self.stalled());
        }
        self.send(Op::Cut(len))?;
        match self.collect(Some(Instant::now() + self.stall)) {
            Some(result) => result,
            None => Err(self.stalled()),
        }
    }

    fn landed(&mut self) -> Option<io::Result<()>> {
        self.collect(None)
    }

    fn settle(&mut self, wait: Duration) -> Option<io::Result<()>> {
        self.collect(Some(Instant::now() + wait))
    }

    fn gone_from(&self, at: At<'_>, name: &OsStr) -> bool {
        self.look.as_ref().is_some_and(|f| f.gone_from(at, name))
    }

    fn read_back(&self, len: u64) -> io::Result<Vec<u8>> {
        match &self.look {
            Some(f) => f.read_back(len),
            None => Err(io::Error::other("this journal cannot be read back")),
        }
    }
}

/// A new file for the journal at `path` to go on in (after a deleted one is written back),
/// positioned at its end.
pub fn reopen(mut file: File) -> io::Result<Behind> {
    file.seek(SeekFrom::End(0))?;
    file.flush()?;
    Behind::file(file)
}
