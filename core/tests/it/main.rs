//! The core's integration tests, one binary (`cargo test -p tactus-core --test it`), one module
//! per topic; they use only `tactus_core` (and shakmaty):
//!
//! - [`codecs`]: the DGT and line protocol codecs, round trips and hostile bytes.
//! - [`dgt_clock`]: the DGT clock set to the official clock through a whole game, over the link's
//!   session and a simulated board with an emulated DGT 3000.
//! - [`perft`]: move generation against the corpus's perft counts.
//! - [`pgn_corpus`]: the PGN reader, writer and notation matcher on the corpus.
//! - [`profiles`]: the shipped board profiles (`boards/`) load and hold together.
//! - [`recognition`]: every corpus game recognised on both board kinds, several styles each.
//! - [`rules_cases`]: every expectation of the corpus's `rules-cases.txt` through the game.
//! - [`sheets`]: F.8 and Appendix E: the corpus games as a player writes them.
//! - [`table_random`]: the randomized table on virtual time (`sim::table`).
//! - [`third_protocol`]: what a new board protocol costs: a toy one behind the protocols' seam,
//!   the link's session and the simulated board talking it.
//! - [`unwinnability`]: FIDE 6.9 / 9.6 dead positions against the corpus.
//!
//! The tests read their corpus and fixtures from disk and time the randomized table, which the
//! core's library may never do (`core/clippy.toml`); a test is the shell's stand-in here, handing
//! the bytes to the pure code, so the file, clock and print rules are lifted for this binary only.
#![allow(
    clippy::disallowed_methods,
    clippy::disallowed_types,
    clippy::disallowed_macros,
    reason = "the tests read the corpus and fixtures and report skips, as the shell would"
)]

mod support;

mod codecs;
mod dgt_clock;
mod perft;
mod pgn_corpus;
mod profiles;
mod recognition;
mod rules_cases;
mod sheets;
mod table_random;
mod third_protocol;
mod unwinnability;
