//! tactus: over-the-board tournament chess for blind and visually impaired players, under the FIDE
//! Laws of Chess and their appendix for blind players (Appendix F of the 2001 Laws).
//!
//! The crate is one library with a thin binary (`src/main.rs`). The pure core ([`rules`], and the
//! [`audit`] report built on it) never performs I/O and never reads the clock; the command line and,
//! later, the daemon shell do that at the edges.

pub mod announce;
pub mod arbiter;
pub mod audit;
pub mod board;
pub mod cli;
pub mod config;
pub mod console;
pub mod daemon;
pub mod record;
pub mod rules;
pub mod sim;
pub mod speech;
pub mod store;
pub mod voices;
