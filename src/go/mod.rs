//! The rules core: what a game of Go is, with nothing about choosing moves.
//!
//! - [`board`]: stones, chains and liberties kept incrementally, Zobrist keys;
//! - [`rules`]: ko, superko, suicide and scoring rules, and their presets;
//! - [`history`]: the positions a game has seen, for superko;
//! - [`game`]: a board with its rules, history, moves, setup and undo;
//! - [`score`]: area and territory counts;
//! - [`handicap`]: where handicap stones go;
//! - [`vertex`]: points as GTP writes them (`D4`), for both front ends;
//! - [`random`]: a portable generator and uniformly random points.

pub mod board;
pub mod game;
pub mod handicap;
pub mod history;
pub mod random;
pub mod rules;
pub mod score;
pub mod vertex;
