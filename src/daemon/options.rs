//! What a run is asked to do ([`RunOptions`], with the simulated boards' [`SimSettings`]) and what
//! it leaves behind ([`RunReport`]: the game folder, the record, and how to go on with a game
//! stopped before its end).

use std::path::PathBuf;

use shakmaty::Move;

use crate::config::Config;
use tactus_core::sim::appendix_e;

/// What the simulated boards play.
#[derive(Debug, Clone)]
pub struct SimSettings {
    /// The game's start position (must be the game's) and moves.
    pub moves: Vec<Move>,
    pub speed: f64,
    /// The ply of an opponent's move the blind player first executes wrongly.
    pub blind_mistake_ply: Option<usize>,
    /// He is sure of that mistaken execution: he keeps his board through the guidance, and
    /// writes the move as he executed it (only the game taken back puts him right, F.8).
    pub blind_keeps_mistake: bool,
    /// From this ply on, the blind player's first own move is preceded by touching another of
    /// his pieces that could move (a possible claim, Art. 4.3 a).
    pub blind_touch_ply: Option<usize>,
    /// From this ply on, the blind player's first simple own move is made with his board's
    /// cable pulled between the lift and the placement, and plugged back in afterwards.
    pub blind_unplug_ply: Option<usize>,
    /// Before his own move at this ply, the blind player presses this button (a request).
    pub blind_button: Option<(usize, u8)>,
    /// At a table with two blind players, the other (Black) presses this button before his own
    /// move at this ply. (Every other `blind_*` setting is the first blind player's: White's.)
    pub second_blind_button: Option<(usize, u8)>,
    /// The blind player executes the opponent's move as soon as it stands on the sighted
    /// board (he heard it said aloud, F.1), this many ms later, before tactus announces it.
    pub blind_executes_early_ms: Option<u64>,
    /// At this ply the blind player makes another legal move than his own (the assistant
    /// corrects it with `correct`, F.6, and he is guided to the right one).
    pub blind_wrong_ply: Option<usize>,
    /// The sighted player presses his clock (the console's `press`) this many ms after his
    /// move stands on his board; never after a move that ends the game.
    pub sighted_press_ms: Option<u64>,
    /// The players make their moves even while the clocks stand.
    pub move_while_paused: bool,
    /// Past the end of `moves` the blind player chooses his own moves, with this seed (a
    /// training game: the engine's replies are not known in advance).
    pub blind_chooses: Option<u64>,
    /// The tactile board, switched on, shows this rather than the game's start (it is then
    /// guided to the start before play).
    pub blind_initial: Option<shakmaty::Board>,
    /// The sighted player's side of a DGT clock on his board (set by the run from
    /// `boards.clock_left`): with a clock, his hands press its lever there.
    pub sighted_lever: Option<tactus_core::board::dgt_clock::ClockSide>,
    /// The player who makes the move at this 1-based ply offers a draw with it (9.1 b: once it
    /// stands on his board, before his press).
    pub draw_offer_ply: Option<usize>,
    /// The player to move at this 1-based ply accepts the draw offered to him instead of
    /// moving: the game is played out when it is over, not when the moves run out.
    pub draw_accept_ply: Option<usize>,
}

impl Default for SimSettings {
    fn default() -> Self {
        SimSettings {
            moves: appendix_e::appendix_e_moves(),
            speed: 1.0,
            blind_mistake_ply: None,
            blind_keeps_mistake: false,
            blind_touch_ply: None,
            blind_unplug_ply: None,
            blind_button: None,
            second_blind_button: None,
            blind_executes_early_ms: None,
            blind_wrong_ply: None,
            sighted_press_ms: None,
            move_while_paused: false,
            blind_chooses: None,
            blind_initial: None,
            sighted_lever: None,
            draw_offer_ply: None,
            draw_accept_ply: None,
        }
    }
}

/// How `run` is asked to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub config: Config,
    /// The configuration file's name, for messages.
    pub origin: String,
    /// Resume this game folder.
    pub resume: Option<PathBuf>,
    /// Start a new game even if an unfinished one is in the output folder.
    pub new_game: bool,
    pub sim: SimSettings,
    /// Print announcements and notes on standard output.
    pub echo: bool,
    /// End when the simulated boards have played every move (the demo).
    pub stop_when_played: bool,
    /// The voices folder.
    pub voices_dir: PathBuf,
    /// A file the structured log is appended to (`--log`).
    pub log: Option<PathBuf>,
}

/// What a run left behind.
#[derive(Debug, Clone)]
pub struct RunReport {
    pub folder: PathBuf,
    pub pgn: String,
    pub over: bool,
    pub resumed: bool,
    /// The demo: every move was played.
    pub played_out: bool,
    /// Half-moves played, and whose move it is.
    pub ply: usize,
    pub to_move: shakmaty::Color,
    /// A training game (`tactus train` resumes it, not `tactus run`).
    pub training: bool,
}

impl RunReport {
    /// What is left of a game stopped before its end, for the person who stopped it: where it
    /// stands and how to go on. None for a game that is over.
    pub fn unfinished(&self) -> Option<String> {
        if self.over {
            return None;
        }
        let side = match self.to_move {
            shakmaty::Color::White => "White",
            shakmaty::Color::Black => "Black",
        };
        let at = match (self.ply, self.to_move) {
            (0, _) => "before the first move".to_string(),
            (ply, shakmaty::Color::White) => format!("after move {}", ply / 2),
            (ply, shakmaty::Color::Black) => format!("after White's move {}", ply.div_ceil(2)),
        };
        let command = if self.training {
            "tactus train"
        } else {
            "tactus run"
        };
        Some(format!(
            "game unfinished {at}, {side} to move; `{command}` resumes it"
        ))
    }
}
