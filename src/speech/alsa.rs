//! Keeps ALSA's own error printing off standard error: what ALSA says while tactus looks for an
//! audio output goes to the developer log (`RUST_LOG=alsa=debug`) instead.
//!
//! Owns only that hook. It must not decide anything about speech: tactus learns that an output is
//! missing from the errors cpal returns, and says so once in its own words (the speech task).
//!
//! Why: without a sound card every attempt to open the default output makes ALSA print about
//! eight lines ("cannot find card '0'", "Unknown PCM default", ...) to standard error, once per
//! announcement, into journald under systemd. Those lines say nothing a player, an assistant or
//! an arbiter can act on.
//!
//! Why this way: ALSA offers two hooks. `snd_lib_error_set_handler` replaces the process-wide
//! handler, but its type is a C variadic function, which stable Rust cannot define (a
//! non-variadic Rust function cast to that type would be undefined behaviour), and a handler
//! written in C would need a build script and a C compiler for five lines. The other,
//! `snd_lib_error_set_local`, is ALSA's documented way to take the messages of one thread: its
//! handler gets the arguments as a `va_list`, an ordinary parameter, so stable Rust can define it
//! with the exact C signature. Its handler is per thread, which fits: ALSA is only called from
//! the audio engine's thread (device lookup, opening streams), which quiets itself when it
//! starts, and from the stream workers cpal starts (writing, recovering from an underrun), which
//! quiet themselves in their first callback, before any write. Redirecting file descriptor 2
//! around the calls instead would swallow whatever other threads log meanwhile, and would have to
//! be done around every call.
//!
//! The symbol comes from libasound, which cpal's ALSA backend links already; declaring it here
//! adds no dependency.

/// Sends ALSA's error messages raised on the calling thread to the log at debug level. Cheap
/// after the first call on a thread (a thread-local flag), so it may be called from the audio
/// callback.
pub(crate) fn quiet_this_thread() {
    imp::quiet_this_thread();
}

#[cfg(any(
    target_os = "linux",
    target_os = "dragonfly",
    target_os = "freebsd",
    target_os = "netbsd"
))]
mod imp {
    use std::{
        borrow::Cow,
        cell::Cell,
        ffi::{CStr, c_char, c_int, c_void},
    };

    /// `snd_local_error_handler_t`. The last parameter is a `va_list`: a pointer on x86-64,
    /// i686 and RISC-V, a structure passed by reference on AArch64 (larger than 16 bytes), a
    /// one-pointer structure passed in a register on 32-bit ARM. Pointer-sized on every Linux
    /// target; it is never read.
    type LocalHandler = unsafe extern "C" fn(
        file: *const c_char,
        line: c_int,
        function: *const c_char,
        err: c_int,
        fmt: *const c_char,
        args: *mut c_void,
    );

    #[link(name = "asound")]
    unsafe extern "C" {
        /// Sets the calling thread's handler (alsa-lib 1.1.6 and later) and returns the old one.
        fn snd_lib_error_set_local(handler: Option<LocalHandler>) -> Option<LocalHandler>;
    }

    thread_local! {
        static QUIET: Cell<bool> = const { Cell::new(false) };
    }

    pub(super) fn quiet_this_thread() {
        if QUIET.get() {
            return;
        }
        QUIET.set(true);
        // SAFETY: the function only stores the pointer in a thread-local of libasound; the
        // handler matches `snd_local_error_handler_t` (see `LocalHandler`) and lives as long as
        // the program.
        unsafe {
            snd_lib_error_set_local(Some(to_log));
        }
    }

    /// ALSA's message, unformatted: the printf arguments stay in the `va_list`, which cannot be
    /// read portably without C variadics; file, line, function and the format say enough to a
    /// developer ("confmisc.c:855 (parse_card): cannot find card '%s'").
    unsafe extern "C" fn to_log(
        file: *const c_char,
        line: c_int,
        function: *const c_char,
        err: c_int,
        fmt: *const c_char,
        _args: *mut c_void,
    ) {
        let text = |p: *const c_char| -> Cow<'_, str> {
            if p.is_null() {
                Cow::Borrowed("?")
            } else {
                // SAFETY: ALSA passes NUL-terminated strings (__FILE__, __func__, a literal
                // format), valid for the duration of the call.
                unsafe { CStr::from_ptr(p) }.to_string_lossy()
            }
        };
        let errno = if err == 0 {
            String::new()
        } else {
            format!(" ({})", std::io::Error::from_raw_os_error(err))
        };
        tracing::debug!(
            target: "alsa",
            "{}:{line} ({}): {}{errno}",
            text(file),
            text(function),
            text(fmt)
        );
    }
}

#[cfg(not(any(
    target_os = "linux",
    target_os = "dragonfly",
    target_os = "freebsd",
    target_os = "netbsd"
)))]
mod imp {
    /// cpal does not use ALSA here.
    pub(super) fn quiet_this_thread() {}
}
