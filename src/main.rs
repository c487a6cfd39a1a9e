//! The `tactus` command line: the list of commands and the dispatch. Each command lives in
//! `src/cli/` (its arguments and what it does); the library below holds everything else.

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};
use tactus::cli::{
    audit, board_test, check_config, console, demo, hall, replay, run, say, scoresheet, sim,
    speak_test, train, voices,
};

#[derive(Parser)]
#[command(
    name = "tactus",
    version,
    about = "Over-the-board chess for blind and visually impaired players (FIDE Laws, Appendix F)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The daemon: play a game over the two boards of config.toml (announce, execute, keep in
    /// sync, reconcile), with speech, the console socket and the game's files. An unfinished game
    /// in the output folder is resumed (clocks paused until `resume` at the console). Stops on
    /// SIGINT/SIGTERM with every file written.
    Run(run::RunArgs),
    /// Training at home: the blind player on his tactile board against a chess engine
    /// (Stockfish by default, [opponent] in config.toml), with the game's words, guidance,
    /// clock, requests, scoresheets and journal; `hint`, `eval` and `takeback` at the console.
    Train(train::TrainArgs),
    /// Talk to a running game's console: the blind player's requests, the assistant's duties
    /// (F.9), the arbiter's commands. Interactive (plain lines, for screen readers and Braille
    /// displays), or one command with -c. `tactus console -c help` lists the commands.
    Console(console::ConsoleArgs),
    /// The built-in demo: two simulated boards on real pseudo-terminals play the sample game of
    /// the Laws' Appendix E through the daemon, with speech and every file of a game folder.
    Demo(demo::DemoArgs),
    /// Print the transcript and the final PGN of a game's journal (journal.jsonl), replayed
    /// without any hardware.
    Replay(replay::ReplayArgs),
    /// The hall: serve the tables of an event from their game folders (read only): a page
    /// listing every table with state, clocks and warnings, and /games.pgn for a broadcast.
    Hall(hall::HallArgs),
    /// Write a game's scoresheet as Braille (BRF or Unicode), PGN or printable text, or turn a
    /// Braille score typed on a note-taker into PGN.
    Scoresheet(scoresheet::ScoresheetArgs),
    /// Replay every game of a PGN file and report legality, available draw claims (9.2, 9.3),
    /// mate, stalemate and dead positions, and the result of a flag fall in the final position.
    /// Exits with 1 when a game holds an illegal or unreadable move.
    Audit(audit::AuditArgs),
    /// Check a configuration file and print the rules it sets.
    CheckConfig(check_config::CheckConfigArgs),
    /// Print the words a voice pack says for each move (and render them to a WAV audio
    /// scoresheet with --wav).
    Say(say::SayArgs),
    /// List the voice packs, their languages and what each lacks (words or clips), if anything.
    /// Exits with 1 when a pack lacks something.
    Voices(voices::VoicesArgs),
    /// Say one phrase on an audio device ("Dame Hector fünf Schach") and report whether and how
    /// fast it sounded: the check of each player's headphones or speaker before the round.
    SpeakTest(speak_test::ProbeArgs),
    /// Connect to a sensor board and print the board it sees, then every touch and every
    /// recognised move in SAN, live (both sides move on this board). For setting up a board.
    BoardTest(board_test::BoardTestArgs),
    /// Simulate a sensor board on a serial port (e.g. one end of a socat pty pair) and play a
    /// game from a PGN file on it, the way hands do.
    Sim(sim::SimArgs),
}

fn main() -> ExitCode {
    match dispatch(Cli::parse()) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("tactus: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn dispatch(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::Train(args) => train::run(args),
        Command::Console(args) => console::main(args),
        Command::Demo(args) => demo::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Hall(args) => hall::run(args),
        Command::Scoresheet(args) => scoresheet::run(args),
        Command::Audit(args) => audit::run(args),
        Command::CheckConfig(args) => check_config::run(args),
        Command::Say(args) => say::run(args),
        Command::Voices(args) => voices::run(args),
        Command::SpeakTest(args) => speak_test::main(args),
        Command::BoardTest(args) => board_test::run(args),
        Command::Sim(args) => sim::run(args),
    }
}
