//! The console language: what the blind player (through his keypad or his board's buttons), his
//! assistant (Appendix F.9) and the arbiter may say to a running game, and how it is answered.
//!
//! This module owns the command language ([`parse`], over the commands and roles of
//! [`crate::commands`]), what each role may do at a connection ([`Session`]), the mapping of
//! commands to the arbiter's inputs ([`to_input`]), the answers to the blind player's requests
//! computed from the game ([`answer()`], F.9 d: only when asked), their printed form
//! ([`format_reply`]), the arbiter's token check ([`token`]) and the line protocol of the console
//! socket ([`wire`]).
//!
//! Pure: no I/O, no clock, no randomness. Time comes in as an argument (the daemon's
//! [`Millis`](crate::rules::Millis)), the token's random bytes come from the caller. The
//! daemon's socket server owns the connections, `tactus console` (in `cli/`) is the client, and
//! the hub owns the game; this module only reads a line, says what it means and, for requests,
//! what the answer is.
//!
//! A line is refused as a whole, before anything is done: an unknown command, a command the
//! role may not use, or a bad argument gives a [`ConsoleError`] whose text says what was wrong
//! and how to write it instead. One command spans lines: a Braille scoresheet pasted whole
//! (`scoresheet SIDE braille`, its lines, `end`), which the [`Session`] gathers; it is read into
//! moves in the Braille chess notation of the player whose sheet it is (each seat's profile, which
//! the caller passes to [`to_input`] as [`SheetProfiles`]).
//!
//! The blind player types in his voice pack's language as well ([`Words`], given to the
//! [`Session`] as [`Keypads`]): his words are read as the table's English ones ([`parse_in`]).
//! His `help` ([`player_help`]) lists only what he may do, in his words; the table tells him a
//! refusal in his words and voice (`table::KeypadRefusal`: what he hears, what his console
//! prints).

pub mod answer;
mod command;
mod error;
mod help;
mod input;
mod parse;
mod session;
#[cfg(test)]
mod tests;
pub mod token;
pub mod wire;

pub use crate::commands::{COMMANDS, CommandEntry, Role, Spec, Words};
pub use answer::{Answer, answer, format_announcement, format_reply};
pub use command::{
    Action, ClaimKind, Command, Line, Paste, Penalty, Request, Side, Switchable, Training,
};
pub use error::ConsoleError;
pub use help::{help_lines, his_commands, is_training, player_help};
pub use input::{SheetProfiles, is_braille, to_input};
pub use parse::{parse, parse_in, request_names};
pub use session::{Keypads, Session};

/// Longest line the console reads, in bytes (without the line end); a longer one is refused.
pub const MAX_LINE: usize = 4096;
/// Most lines a Braille scoresheet pasted line by line may have: a long game's `blind-score.txt`
/// (25-line pages, a header) with room to spare.
pub const MAX_PASTE_LINES: usize = 2000;
/// Most bytes a pasted Braille scoresheet may have in all (a Unicode Braille cell is 3 bytes).
pub const MAX_PASTE_BYTES: usize = 256 * 1024;
