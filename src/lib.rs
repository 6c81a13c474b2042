//! tengen: a Go (baduk, weiqi) engine.
//!
//! The house, room by room:
//!
//! ```text
//! go/        the rules core: board (point, zobrist), rules, history, game,
//!            score, handicap. Uses nothing else in the crate.
//! search/    the engine (mcts_engine) with its settings (config), its run
//!            (run, stop), reports (report), decisions (decide, levels,
//!            human) and final status (final_status); a random baseline
//!            (random); the core: mcts/ (worker, descent, backup), tt (the
//!            table), tree (what the threads share), root, key
//!            (superko-sound node keys), value, puct, ownership, and the
//!            seam to the evaluators (evaluate):
//!   classical/  playouts, 3x3 patterns, the tactical reader, priors;
//!   network     leaves judged by a KataGo net, with its cache (net_cache).
//! nn/        KataGo networks in pure Rust (uses go/ for its inputs, nothing of
//!            search/), by layer, each importing only those below it:
//!   kernels/    the arithmetic and the only `unsafe`: one CPU-feature
//!               detection (cpu, capped by TENGEN_ISA), the fp32, bf16 and
//!               int8 products and the vector kernels per instruction set,
//!               the Winograd transforms, flush-to-zero;
//!   input/      the net's input sizes, features, history, ladders, areas,
//!               SGF metadata, symmetries;
//!   file/       the model format, its reader, the built-in net's file;
//!   net/        shapes, folding, layers, transformer, Winograd, the forward
//!               pass, precision, post-processing;
//!   evaluator, source, builtin: a game in and a NetEval out, which net runs.
//! engine     the move-chooser contract between front ends and the search.
//! gtp/       the GTP front end (protocol, commands, setup, analysis).
//! analysis/  `tengen analysis`: KataGo's JSON analysis engine, a second front
//!            end beside gtp/ over the same search (neither imports the other).
//! sgf/       SGF reading, writing and `tengen check`.
//! match_runner/  `tengen match`, with its GTP client (gtp_client).
//! time, config, bench, clock_bench, log, memory, vertex, katago_values:
//!            the clock, rule flags, benchmarks, stderr lines, the machine's
//!            memory, vertex text (`D4`) and KataGo's config values (both
//!            last two shared by both front ends).
//! ```
//!
//! ```
//! use tengen::{Color, Game, Geometry, Move, Rules};
//! let g = Geometry::new(9).unwrap();
//! let mut game = Game::new(g, Rules::default(), 7.0);
//! let p = g.point(2, 6).unwrap();
//! game.play(Color::Black, Move::Play(p)).unwrap();
//! assert!(game.play(Color::White, Move::Play(p)).is_err());
//! ```

#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod analysis;
pub mod bench;
pub mod clock_bench;
pub mod config;
pub mod engine;
pub mod go;
pub mod gtp;
pub mod input_line;
pub mod katago;
pub mod log;
pub mod match_runner;
pub mod memory;
pub mod nn;
pub mod search;
pub mod sgf;
pub mod sync;
pub mod time;

pub use go::board::{Board, Color, Geometry, Move, Point, Stone};
pub use go::game::{Game, IllegalMove, Turn};
pub use go::rules::{KoRule, Preset, Rules, Scoring};
