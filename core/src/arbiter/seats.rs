//! The table's two seats, one per colour, as shakmaty's `ByColor` keys them: whether a seat's
//! player is blind (Appendix F: a tactile board, his move counts once announced, he hears it said
//! back and asks for what he cannot see) or sighted (his move counts at his clock press or when
//! his board settles), and his board (a recogniser; none for a plain board whose moves are entered
//! at the console). A table has one blind player against a sighted one, or two blind players on
//! two tactile boards (IBCA's events; "either player may demand the use of two boards").
//!
//! Also how people are told about a seat: at a table with one blind player the seats keep the
//! names everybody at such a table uses ("blind", "sighted"; the "tactile" and the "sighted"
//! board), with two blind players they are named by colour.

use shakmaty::{ByColor, Color};

use super::completion::Completion;
use crate::{
    announce::{Audience, WhichBoard},
    board::recognize::RecognizerConfig,
    rules::notation::PieceLetters,
};

/// One seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeatConfig {
    /// The player is blind or visually handicapped (Appendix F).
    pub blind: bool,
    /// His board's recogniser; `None`: no sensors, his moves are entered at the console (a
    /// sighted player's plain board).
    pub board: Option<RecognizerConfig>,
    /// When a sighted player's move counts (a blind player's counts once announced, F.3).
    pub completion: Completion,
    /// The piece letters he writes (E.3: his country's): his sealed move is read in them first.
    /// `None`: every notation the Laws allow at once, an ambiguity asked about when sealing.
    pub notation: Option<PieceLetters>,
    /// The seat is a training engine's (`tactus train`): its moves are typed for it, and it is
    /// named "engine", not "sighted", in notes, logs and the transcript.
    pub engine: bool,
}

impl SeatConfig {
    /// A blind player on a tactile board.
    pub fn blind(board: RecognizerConfig) -> SeatConfig {
        SeatConfig {
            blind: true,
            board: Some(board),
            completion: Completion::ClockPress,
            notation: None,
            engine: false,
        }
    }

    /// A sighted player on `board` (none: a plain board), his move counting at `completion`.
    pub fn sighted(board: Option<RecognizerConfig>, completion: Completion) -> SeatConfig {
        SeatConfig {
            blind: false,
            board,
            completion,
            notation: None,
            engine: false,
        }
    }

    /// This seat, its player writing in `notation`.
    pub fn with_notation(self, notation: Option<PieceLetters>) -> SeatConfig {
        SeatConfig { notation, ..self }
    }

    /// This seat, a training engine's if `engine`.
    pub fn with_engine(self, engine: bool) -> SeatConfig {
        SeatConfig { engine, ..self }
    }
}

/// The two seats of a table with one blind player (`blind`) on `tactile` against a sighted one
/// on `sighted` (none: a plain board).
pub fn one_blind(
    blind: Color,
    tactile: RecognizerConfig,
    sighted: Option<RecognizerConfig>,
    completion: Completion,
) -> ByColor<SeatConfig> {
    ByColor::new_with(|c| {
        if c == blind {
            SeatConfig::blind(tactile)
        } else {
            SeatConfig::sighted(sighted, completion)
        }
    })
}

/// The two seats of a table with two blind players, each on his own tactile board.
pub fn two_blind(boards: ByColor<RecognizerConfig>) -> ByColor<SeatConfig> {
    boards.map(SeatConfig::blind)
}

/// Why a table cannot be played.
pub fn check(seats: &ByColor<SeatConfig>) -> Result<(), String> {
    if !seats.iter().any(|s| s.blind) {
        return Err("no seat has a blind player: tactus serves a table with one or two".into());
    }
    for side in Color::ALL {
        if seats[side].blind && seats[side].board.is_none() {
            return Err(format!(
                "{side}'s blind player has no board: he plays on a tactile board with sensors"
            ));
        }
    }
    Ok(())
}

/// How a table's seats are named to people (notes, logs, the transcript): see the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeatNames {
    blind: ByColor<bool>,
    engine: ByColor<bool>,
}

impl SeatNames {
    pub fn new(seats: &ByColor<SeatConfig>) -> SeatNames {
        SeatNames {
            blind: seats.map(|s| s.blind),
            engine: seats.map(|s| s.engine),
        }
    }

    /// Whether both players are blind (their seats are then named by colour).
    pub fn both_blind(&self) -> bool {
        self.blind.white && self.blind.black
    }

    /// The player of `seat`: "blind" or "sighted" ("engine" in training); with two blind
    /// players, "white" or "black".
    pub fn player(&self, seat: Color) -> &'static str {
        match (self.both_blind(), self.blind[seat]) {
            (true, _) => seat.fold_wb("white", "black"),
            (false, true) => "blind",
            (false, false) if self.engine[seat] => "engine",
            (false, false) => "sighted",
        }
    }

    /// His board: "tactile" or "sighted" ("engine's" in training); with two blind players,
    /// "white's tactile".
    pub fn board(&self, seat: Color) -> String {
        match (self.both_blind(), self.blind[seat]) {
            (true, _) => format!("{seat}'s tactile"),
            (false, true) => "tactile".into(),
            (false, false) if self.engine[seat] => "engine's".into(),
            (false, false) => "sighted".into(),
        }
    }

    /// Whether `seat` is a training engine's.
    pub fn is_engine(&self, seat: Color) -> bool {
        self.engine[seat]
    }

    /// His board in a notice said to the players.
    pub fn which_board(&self, seat: Color) -> WhichBoard {
        match (self.both_blind(), self.blind[seat]) {
            (true, _) => WhichBoard::TactileOf(seat),
            (false, true) => WhichBoard::Tactile,
            (false, false) => WhichBoard::Sighted,
        }
    }

    /// Who hears `audience`, in a word: a player's name as [`SeatNames::player`], or "both".
    pub fn audience(&self, audience: Audience) -> &'static str {
        match audience {
            Audience::Player(seat) => self.player(seat),
            Audience::Both => "both",
        }
    }

    /// The seat a word names: "white"/"black", or at a table with one blind player "blind" and
    /// "sighted" too.
    pub fn seat_of(&self, word: &str) -> Option<Color> {
        let word = word.to_ascii_lowercase();
        Color::ALL.into_iter().find(|&side| {
            word == side.fold_wb("white", "black")
                || word == self.player(side)
                // The engine's seat is the sighted player's, by that word too.
                || (word == "sighted" && !self.both_blind() && !self.blind[side])
        })
    }

    /// The seats of blind players.
    pub fn blind_seats(&self) -> impl Iterator<Item = Color> + '_ {
        Color::ALL.into_iter().filter(|&c| self.blind[c])
    }

    /// Whether `seat`'s player is blind.
    pub fn is_blind(&self, seat: Color) -> bool {
        self.blind[seat]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Sensing;

    const TACTILE: RecognizerConfig = RecognizerConfig {
        sensing: Sensing::Occupancy,
        settle_ms: 0,
        scan_ms: 0,
        bounce_ms: 0,
        differs_after_ms: 1500,
        confirm_with_snapshot: false,
    };

    #[test]
    fn one_blind_player_keeps_the_names_of_his_table_two_are_named_by_colour() {
        let one = SeatNames::new(&one_blind(
            Color::Black,
            TACTILE,
            None,
            Completion::ClockPress,
        ));
        assert_eq!(
            (one.player(Color::Black), one.player(Color::White)),
            ("blind", "sighted")
        );
        assert_eq!(one.board(Color::Black), "tactile");
        assert_eq!(one.which_board(Color::White), WhichBoard::Sighted);
        assert_eq!(one.audience(Audience::Player(Color::Black)), "blind");
        assert_eq!(one.seat_of("Sighted"), Some(Color::White));
        assert_eq!(one.seat_of("black"), Some(Color::Black));
        let two = SeatNames::new(&two_blind(ByColor::new_with(|_| TACTILE)));
        assert!(two.both_blind());
        assert_eq!(two.player(Color::White), "white");
        assert_eq!(two.board(Color::Black), "black's tactile");
        assert_eq!(
            two.which_board(Color::White),
            WhichBoard::TactileOf(Color::White)
        );
        assert_eq!(two.seat_of("blind"), None, "two blind players: which?");
        assert_eq!(two.blind_seats().count(), 2);
    }

    #[test]
    fn a_table_needs_a_blind_player_and_his_board() {
        let sighted = ByColor::new_with(|_| SeatConfig::sighted(None, Completion::ClockPress));
        assert!(
            check(&sighted)
                .unwrap_err()
                .contains("no seat has a blind player")
        );
        let mut seats = one_blind(Color::White, TACTILE, None, Completion::ClockPress);
        assert!(check(&seats).is_ok());
        seats.white.board = None;
        assert!(
            check(&seats)
                .unwrap_err()
                .contains("white's blind player has no board")
        );
    }
}
