//! Whose an input to the randomized table is ([`Origin`]): the people who make inputs
//! (`people`, `asking`) and the run that checks what they do (`play`) both name it.

use shakmaty::Color;

/// Whose an input to the table is: what must hold of what it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Origin {
    /// The table's own world: a tick, speech ending, a verdict, a board's reading asked for.
    World,
    /// A player's own action (a move on his board, his clock): a refusal of it must be said.
    Player,
    /// A request of this seat's blind player (his keypad, his board's button, his assistant's
    /// `tell`): what it says and shows reaches only him (F.9 d), and a refusal of it is said.
    Asked(Color),
    /// The staff at their consoles (the arbiter, the assistant's own questions).
    Staff,
    /// A press of the DGT clock's lever by this player's hand: the sighted player's is his own
    /// action (a refusal of it is said to him); the blind player's (his move counts without it,
    /// F.3) is answered to nobody.
    Lever(Color),
}
