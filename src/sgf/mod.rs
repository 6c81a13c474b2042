//! SGF for Go: the typed view of a parsed game tree (board size, komi,
//! handicap, rules, setup stones, moves), loading a [`Game`](crate::Game) from a record,
//! writing one back, and `tengen check`.
//!
//! - [`parse`](mod@parse): bytes → raw tree (no Go knowledge).
//! - [`record`]: [`GameRecord`] reads the root's game information and walks a
//!   line of play as [`Step`]s: setup (`AB`/`AW`/`AE`/`PL`, in any node,
//!   compressed point lists included) and moves (`B`/`W`; `B[]` and, on boards
//!   up to 19x19, `B[tt]` are passes). Values are read leniently (`HA[0]`,
//!   `PL[b]`, `KM[6,5]`, Fox's `KM[750]`); points are range-checked.
//! - [`write`](mod@write): a [`Game`](crate::Game) as FF\[4\] text.
//! - [`check`]: replay with every rule violation collected.
//!
//! ```
//! use tengen::sgf;
//! let bytes = b"(;GM[1]FF[4]SZ[9]KM[7]RU[Japanese];B[ee];W[cc];B[tt])";
//! let loaded = sgf::load(bytes, 0, None, tengen::Rules::default(), 7.5).unwrap();
//! assert_eq!(loaded.game.move_number(), 3);
//! assert_eq!(loaded.info.komi, Some(7.0));
//! assert_eq!(loaded.game.rules(), tengen::Preset::Japanese.rules());
//! ```

pub mod batch;
pub mod check;
pub mod parse;
pub mod record;
pub mod write;

pub use parse::{parse, Collection, Node, SgfError};
pub use record::*;
pub use write::write_game;
