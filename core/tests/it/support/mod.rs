//! Support for the core's integration tests: [`corpus`], the chess-data corpus and the
//! workspace's top folder (where `boards/` lives).

pub mod corpus;
