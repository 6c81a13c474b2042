//! One simulation of the search: descend the graph from the root choosing
//! edges by UCT + RAVE with priors, expand a leaf, play a playout, and back the
//! result up the path.
//!
//! Graph soundness (KataGo's `docs/GraphSearch.md`): visits are counted per
//! edge; after each simulation every node on the path recomputes its value from
//! its own evaluations and its children's current values weighted by edge
//! visits ([`Table::refresh`](super::tt::Table::refresh)); a descent that
//! reaches a child already visited more often than the edge stops there and
//! backs up the child's value without a playout. AMAF statistics live on edges
//! (a parent's view of a move).
//!
//! Legality: the root's moves come from
//! [`Game::is_legal`](crate::go::game::Game::is_legal) (the real game with its
//! full superko history); deeper moves are checked on the path's board against
//! the game history plus the positions of the path itself. The tree never plays
//! suicides nor fills its own true eyes.
//!
//! Threads share the [`Tree`](super::tree::Tree) behind a mutex held while
//! descending and while backing up; the playout runs unlocked. Virtual loss (an
//! in-flight count per edge, scored as lost playouts) sends concurrent descents
//! apart. Each descent first claims a simulation from the search's budget, and
//! no more descents are on their way at once than the root's visits and the
//! visit limit allow
//! ([`Tree::may_descend`](super::tree::Tree::may_descend)): a visit limit
//! holds exactly, and a short search on many threads concentrates its visits
//! as one thread would.
//!
//! - [`worker`]: a thread's [`Worker`] and the batch of simulations it runs;
//! - [`descent`]: from the root to a leaf;
//! - [`backup`]: the leaf's result back up the path.

pub mod backup;
pub mod descent;
pub mod worker;

pub use worker::Worker;
