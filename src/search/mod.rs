//! The search core: [`MctsEngine`] implements
//! [`Engine`](crate::engine::Engine) with a graph search over a transposition
//! table, and ownership-based pass, resign and dead-stone decisions. What a
//! leaf is worth comes through one seam from one of two evaluators.
//!
//! The engine, from the front ends' side:
//! - [`config`]: the search's settings;
//! - [`mcts_engine`]: the engine, what it keeps between searches, its side of
//!   the engine contract;
//! - [`run`]: one search on its threads, [`stop`]: when it ends;
//! - [`report`]: what it reports (root figures, moves, variations);
//! - [`decide`]: the move played (resigning, passing, levels, human-like play;
//!   [`levels`], [`human`]);
//! - [`final_status`]: dead stones and seki;
//! - [`random`]: a random mover, the baseline.
//!
//! The search core:
//! - [`key`]: which positions share a node (and the superko reasoning);
//! - [`tt`]: the fixed-size node table and edge arena, kept between moves;
//! - [`mcts`]: descent, expansion, batches of leaves, graph-sound backup;
//! - [`root`]: what a search starts from; [`tree`]: what its threads share;
//! - [`value`]: what a playout's result is worth, to either player;
//!   [`recenter`]: the kept tree's values moved to a new score center;
//! - [`evaluate`]: the seam ([`evaluate::LeafEvaluator`]) and what crosses it;
//! - [`classical`]: heuristic priors and playouts, chosen among by UCT + RAVE;
//! - [`network`]: a KataGo net's policy, value, score and ownership, chosen
//!   among by [`puct`], cached in [`net_cache`], each leaf weighted by the
//!   net's certainty ([`uncertainty`]);
//! - [`ownership`]: ownership maps, dead stones, seki, settled scores;
//! - [`simulated`]: a net's fixed answer after a chosen latency, for
//!   measuring how the search scales with threads.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use tengen::engine::{Decision, Engine, GenmoveOptions, Limits};
//! use tengen::search::{MctsEngine, SearchConfig};
//! use tengen::{Color, Game, Geometry, Rules};
//! let game = Game::new(Geometry::new(5).unwrap(), Rules::default(), 0.5);
//! let mut engine = MctsEngine::new(SearchConfig { tt_mb: 4, ..SearchConfig::default() });
//! let options = GenmoveOptions {
//!     limits: Limits { playouts: Some(200), time: None },
//!     ..GenmoveOptions::default()
//! };
//! let (decision, report) =
//!     engine.genmove(&game, Color::Black, &options, &AtomicBool::new(false), &mut |_| {});
//! let Decision::Play(mv) = decision else { panic!("no resignation on an empty board") };
//! assert!(game.is_legal(Color::Black, mv));
//! assert!(report.visits > 0 && !report.moves.is_empty());
//! ```

pub mod classical;
pub mod config;
pub mod decide;
pub mod evaluate;
pub mod final_status;
pub mod human;
pub mod key;
pub mod levels;
pub mod mcts;
pub mod mcts_engine;
pub mod net_cache;
pub mod network;
pub mod ownership;
pub mod puct;
pub mod random;
pub mod recenter;
pub mod report;
pub mod root;
pub mod run;
pub mod simulated;
pub mod stop;
pub mod subtree_bias;
#[cfg(test)]
mod test_nets;
pub mod tree;
pub mod tt;
pub mod uncertainty;
pub mod value;
pub mod value_weight;

pub use config::{QueryOptions, SearchConfig, DEFAULT_PLAYOUTS, MAX_THREADS};
pub use decide::{RESIGN_AFTER, RESIGN_BEHIND};
pub use mcts_engine::MctsEngine;
pub use random::RandomEngine;
pub use report::MAX_PV;
