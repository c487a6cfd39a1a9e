//! The shell's integration tests, one binary (`cargo test -p tactus --test it`, or one topic with
//! `cargo test -p tactus --test it daemon_table::`), one module per topic. The tests that need
//! only the pure core live in the core's own binary (`core/tests/it/`).
//!
//! - Speech and audio: [`audio`], [`audio_scoresheet`], [`clip_phonemes`], [`no_sound_card`],
//!   [`voices`].
//! - The one-shot commands: [`audit_cli`], [`check_config`], [`cli_output`], [`closed_pipe`],
//!   [`scoresheet`], [`train`].
//! - The boards over real pseudo-terminals: [`board_e2e`].
//! - The open pegged board's firmware on a simulated ATmega328P against `tactus run`:
//!   [`firmware`].
//! - The console: [`console`] (client and language), [`console_abuse`], [`console_security`],
//!   [`console_flood`] (a flooding keypad, the arbiter's places).
//! - The daemon through the real binary: [`daemon`], [`daemon_games`], [`daemon_recovery`],
//!   [`daemon_stop_resume`], [`daemon_table`]; a disk that refuses writes: [`daemon_outage`].
//! - The daemon in the test's own process: [`daemon_adjournment`], [`daemon_buttons`],
//!   [`daemon_console`], [`daemon_damage`], [`daemon_dispute`], [`daemon_ibca`] (two blind
//!   players), [`daemon_requests`].
//! - The game's files against another user (issue 25, point 1): [`record_trust`].
//! - The page and the hall against planted files, other sites and stalled viewers (issue 39):
//!   [`web_guard`].
//! - The house's rules the compiler cannot check: [`purity`].
//!
//! [`support`] is shared by all of them; with one binary, every helper in it has a user.

mod support;

mod audio;
mod audio_scoresheet;
mod audit_cli;
mod board_e2e;
mod check_config;
mod cli_output;
mod clip_phonemes;
mod closed_pipe;
mod console;
mod console_abuse;
mod console_flood;
mod console_security;
mod daemon;
mod daemon_adjournment;
mod daemon_buttons;
mod daemon_console;
mod daemon_cut;
mod daemon_damage;
mod daemon_dispute;
mod daemon_games;
mod daemon_ibca;
mod daemon_outage;
mod daemon_procedure;
mod daemon_recovery;
mod daemon_requests;
mod daemon_stop_resume;
mod daemon_table;
mod firmware;
mod no_sound_card;
mod purity;
mod record_trust;
mod run_terminal;
mod scoresheet;
mod train;
mod voices;
mod web;
mod web_guard;
