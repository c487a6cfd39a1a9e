//! `[opponent]`: the chess engine a training game is played against (`tactus train`), its
//! strength and patience, and where the game starts (a FEN, or a PGN game after move N).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use serde::Deserialize;
use shakmaty::Color;

use super::paths::resolve;

/// `[opponent]`: the chess engine a training game is played against (`tactus train`), and where
/// the game starts.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct OpponentSection {
    /// The UCI engine: a program name (looked up in PATH and /usr/games) or a path. Default:
    /// "stockfish" (Debian's package).
    #[serde(default)]
    pub engine: Option<PathBuf>,
    /// Arguments for the engine's program.
    #[serde(default)]
    pub args: Vec<String>,
    /// Its strength as a skill level (Stockfish: 0 to 20) ...
    pub skill: Option<u32>,
    /// ... or as an Elo rating (UCI_Elo; Stockfish: 1350 to 2850).
    pub elo: Option<u32>,
    /// How long it thinks about each move, in milliseconds (default 2000) ...
    pub move_time_ms: Option<u64>,
    /// ... or how many positions it searches per move.
    pub nodes: Option<u64>,
    /// How long it may take to answer `uci` and `isready` (default 10000 ms).
    pub handshake_timeout_ms: Option<u64>,
    /// How long it may take beyond its move time to give a move (default 30000 ms).
    pub answer_timeout_ms: Option<u64>,
    /// Start from this position (FEN) instead of the initial one ...
    pub start_fen: Option<String>,
    /// ... or from a game of this PGN file (its first game) ...
    pub start_pgn: Option<PathBuf>,
    /// ... after this many moves of it (White's and Black's; 0 or absent: its start).
    pub start_move: Option<u32>,
}

/// The engine the training opponent runs when `[opponent] engine` is not given.
pub const DEFAULT_ENGINE: &str = "stockfish";

impl OpponentSection {
    /// The engine task's settings (`daemon::engine`).
    pub fn strength(&self) -> tactus_core::engine::Strength {
        use tactus_core::engine::{Limit, Strength};
        let limit = match (self.move_time_ms, self.nodes) {
            (_, Some(n)) => Limit::Nodes(n),
            (Some(ms), None) => Limit::MoveTime(ms),
            (None, None) => Strength::default().limit,
        };
        let skill = match (self.skill, self.elo) {
            (None, None) => Strength::default().skill,
            (skill, _) => skill,
        };
        Strength {
            elo: self.elo,
            skill,
            limit,
        }
    }

    pub fn patience(&self) -> tactus_core::engine::Patience {
        let d = tactus_core::engine::Patience::default();
        tactus_core::engine::Patience {
            handshake_ms: self.handshake_timeout_ms.unwrap_or(d.handshake_ms),
            answer_ms: self.answer_timeout_ms.unwrap_or(d.answer_ms),
        }
    }

    pub fn program(&self) -> PathBuf {
        self.engine
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_ENGINE))
    }

    /// The engine, its strength and where the game starts, in words (`check-config`, `train`).
    pub fn describe(&self) -> String {
        use tactus_core::engine::Limit;
        let strength = self.strength();
        let level = match (strength.elo, strength.skill) {
            (Some(elo), _) => format!("playing at Elo {elo}"),
            (None, Some(skill)) => format!("at skill level {skill}"),
            (None, None) => "at full strength".into(),
        };
        let think = match strength.limit {
            Limit::MoveTime(ms) => format!(
                "thinking {} a move",
                tactus_core::rules::time_control::duration_words(ms as i64)
            ),
            Limit::Nodes(n) => format!("searching {n} positions a move"),
            Limit::Depth(d) => format!("searching {d} half-moves deep"),
        };
        let start = match (&self.start_fen, &self.start_pgn) {
            (Some(fen), _) => format!("from the position {fen}"),
            (None, Some(pgn)) => format!(
                "from the first game of {} after move {}",
                pgn.display(),
                self.start_move.unwrap_or(0)
            ),
            (None, None) => "from the initial position".into(),
        };
        format!(
            "training opponent: {} {level}, {think}; the game starts {start}",
            self.program().display()
        )
    }

    /// What the text tells: no two keys that say the same thing differently.
    pub fn check(&self, origin: &str) -> Result<()> {
        if self.skill.is_some() && self.elo.is_some() {
            bail!(
                "{origin}: opponent.skill and opponent.elo: give one (an engine limited by Elo \
                 ignores its skill level)"
            );
        }
        if self.move_time_ms.is_some() && self.nodes.is_some() {
            bail!("{origin}: opponent.move_time_ms and opponent.nodes: give one limit per move");
        }
        if self.move_time_ms == Some(0) || self.nodes == Some(0) {
            bail!(
                "{origin}: opponent.move_time_ms / opponent.nodes = 0: the engine needs some time \
                 (1000 ms is a quick opponent)"
            );
        }
        if self
            .engine
            .as_ref()
            .is_some_and(|e| e.as_os_str().is_empty())
        {
            bail!(
                "{origin}: opponent.engine = \"\": name the engine (\"stockfish\", or its full path)"
            );
        }
        if self.start_fen.is_some() && self.start_pgn.is_some() {
            bail!(
                "{origin}: opponent.start_fen and opponent.start_pgn: give one starting position"
            );
        }
        if self.start_move.is_some() && self.start_pgn.is_none() {
            bail!("{origin}: opponent.start_move needs opponent.start_pgn (the game it counts in)");
        }
        if let Some(fen) = &self.start_fen {
            start_from_fen(fen).map_err(|e| anyhow!("{origin}: key opponent.start_fen: {e}"))?;
        }
        Ok(())
    }
}

/// A legal position from a FEN, or why not.
pub fn start_from_fen(fen: &str) -> Result<shakmaty::Chess> {
    use shakmaty::{CastlingMode, fen::Fen};
    let parsed: Fen = fen
        .trim()
        .parse()
        .map_err(|e| anyhow!("\"{fen}\" is not a FEN ({e})"))?;
    parsed
        .into_position(CastlingMode::Standard)
        .map_err(|e| anyhow!("\"{fen}\" is not a legal position ({e})"))
}

impl OpponentSection {
    /// The engine as the PGN names the training opponent: its program and strength.
    pub fn engine_name(&self) -> String {
        format!(
            "{} ({})",
            self.program().display(),
            match (self.elo, self.strength().skill) {
                (Some(elo), _) => format!("Elo {elo}"),
                (None, Some(skill)) => format!("skill {skill}"),
                (None, None) => "full strength".into(),
            }
        )
    }

    /// Where a training game starts (`[opponent]` start_fen or start_pgn with start_move); the
    /// initial position otherwise. Reads the PGN file, relative to the configuration's folder (`base`).
    pub fn start_position(&self, origin: &str, base: &Path) -> Result<shakmaty::Chess> {
        let opponent = self;
        if let Some(fen) = &opponent.start_fen {
            return start_from_fen(fen)
                .map_err(|e| anyhow!("{origin}: key opponent.start_fen: {e}"));
        }
        let Some(pgn) = &opponent.start_pgn else {
            return Ok(shakmaty::Chess::default());
        };
        let path = resolve(base, pgn);
        let bytes = std::fs::read(&path).with_context(|| {
            format!(
                "{origin}: key opponent.start_pgn: cannot read {}",
                path.display()
            )
        })?;
        let game = tactus_core::rules::pgn::read_pgn_each(&bytes)
            .into_iter()
            .next()
            .ok_or_else(|| {
                anyhow!(
                    "{origin}: key opponent.start_pgn: {} holds no game",
                    path.display()
                )
            })?
            .map_err(|e| anyhow!("{origin}: key opponent.start_pgn: {}: {e}", path.display()))?;
        let plies = opponent.start_move.unwrap_or(0) as usize * 2;
        // "After move N": White's and Black's N-th moves, counted from the game's own start.
        let first_black = shakmaty::Position::turn(&game.start) == Color::Black;
        let plies = if first_black {
            plies.saturating_sub(1)
        } else {
            plies
        };
        if plies > game.moves.len() {
            bail!(
                "{origin}: key opponent.start_move = {}: the game in {} has {} moves",
                opponent.start_move.unwrap_or(0),
                path.display(),
                game.moves.len().div_ceil(2)
            );
        }
        let mut start = game.start.clone();
        for &m in &game.moves[..plies] {
            shakmaty::Position::play_unchecked(&mut start, m);
        }
        Ok(start)
    }
}
