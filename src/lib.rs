//! tengen: a Go (baduk, weiqi) engine.
//!
//! Module graph (dependencies point one way only):
//!
//! ```text
//! board (point, zobrist)      rules
//!    |  \                      |
//!    |   patterns, tactics     history
//!    |        \                 |
//!    |         priors          game ── score, sgf (parse, write, check)
//!    |                          |
//!  playout ─────────────── engine (the move-chooser contract)
//!    |                          |
//!    └──────────────────── search (MCTS over a transposition table)
//!    |                          |
//!  bench                    config (CLI rule flags), time (clock), handicap
//!                               |
//!                              gtp (protocol, vertex, commands, setup, analysis)
//! ```
//!
//! `nn` (KataGo network files, the forward pass, post-processing) stands apart: it uses only
//! `Color`, and takes its input planes ready-made.
//!
//! `board` and `rules` use nothing else in the crate; `history` uses the board's
//! keys; `game` uses all three; `playout`, `patterns`, `tactics` and `priors`
//! work on a bare `Board`; everything that talks to the outside builds on `game`
//! and `engine`. `log` (stderr lines that never panic) and `memory` (how much
//! the machine has) use nothing else.
//!
//! ```
//! use tengen::{Color, Game, Geometry, Move, Rules};
//! let g = Geometry::new(9).unwrap();
//! let mut game = Game::new(g, Rules::default(), 7.0);
//! let p = g.point(2, 6).unwrap();
//! game.play(Color::Black, Move::Play(p)).unwrap();
//! assert!(game.play(Color::White, Move::Play(p)).is_err());
//! ```

pub mod bench;
pub mod board;
pub mod clock_bench;
pub mod config;
pub mod engine;
pub mod game;
pub mod gtp;
pub mod gtp_client;
pub mod handicap;
pub mod history;
pub mod log;
pub mod match_runner;
pub mod memory;
pub mod nn;
pub mod patterns;
pub mod playout;
pub mod priors;
pub mod rules;
pub mod score;
pub mod search;
pub mod sgf;
pub mod tactics;
pub mod time;

pub use board::{Board, Color, Geometry, Move, Point, Stone};
pub use game::{Game, IllegalMove, Turn};
pub use rules::{KoRule, Preset, Rules, Scoring};
