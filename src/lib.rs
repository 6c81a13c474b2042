//! tengen: a Go (baduk, weiqi) engine.
//!
//! The house, room by room, from the ground floor up; a room imports only
//! rooms below it (`tests/house_layout.rs` checks this, and that no two
//! files import each other, even through others):
//!
//! ```text
//! go/        the rules core: board (point, zobrist), rules, history, game,
//!            score, handicap, vertex text (`D4`), the portable random
//!            generator (random). Uses nothing else in the crate.
//! log, memory, input_line, sync: stderr lines, the machine's memory,
//!            input lines of bounded length, locks across a panic.
//! config     rule flags of the command line.
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
//! engine     the move-chooser contract between front ends and the search
//!            (Engine, Report, MoveInfo, Limits), with the strength levels
//!            (level) and what a search may begin with (root_choices).
//! time       the clock: time controls and each move's budget.
//! search/    the engine (mcts_engine) with its settings (config), its run
//!            (run, stop), reports (report), decisions (decide, levels,
//!            human) and final status (final_status); a random baseline
//!            (random); the core: mcts/ (worker, descent, backup), tt (the
//!            table), tree (what the threads share), root, key
//!            (superko-sound node keys), value, puct, ownership, and the
//!            seam to the evaluators (evaluate):
//!   classical/  playouts, 3x3 patterns, the tactical reader, priors;
//!   network     leaves judged by a KataGo net, with its cache (net_cache).
//! katago/    the KataGo compatibility layer both front ends share: config
//!            values, rules by name, compact form or JSON, search limits,
//!            avoid/allow, one move's figures as both print them.
//! gtp/       the GTP front end: protocol (framing), session (reading,
//!            thinking, writing), options, and the handlers (commands,
//!            setup, params, network, analysis output).
//! analysis/  `tengen analysis`: KataGo's JSON analysis engine, a second front
//!            end beside gtp/ over the same search (neither imports the other).
//! sgf/       SGF: parse, the typed record, write, and `tengen check`
//!            (check, batch).
//! match_runner/  `tengen match`, with its GTP client (gtp_client).
//! bench, clock_bench: `tengen bench` and the clock's benchmark.
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
