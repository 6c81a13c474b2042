//! The seam between the search core and what judges positions.
//!
//! The core ([`super::mcts`], [`super::tt`], [`super::key`]) walks the graph,
//! creates edges, backs values up and decides; a [`LeafEvaluator`] says what a
//! leaf is worth and which moves deserve attention. Two evaluators exist:
//! - [`super::classical::Classical`]: heuristic priors (with the tactical
//!   reader) given when the descent expands a node, and a heavy playout from
//!   each leaf; the core chooses edges by UCT + RAVE ([`Selection::Rave`]);
//! - [`super::network::NetworkLeaves`]: one network evaluation per new leaf,
//!   whose policy becomes the priors of the leaf's edges and whose value,
//!   score and ownership are backed up; the core chooses edges by PUCT
//!   ([`Selection::Puct`]).

use super::config::SearchConfig;
use super::root::Root;
use crate::go::board::{Board, Color, Move, Point};
use crate::search::classical::priors::Prior;

/// How the core chooses among a node's edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// Value blended with AMAF and prior pseudo-playouts (plus optional UCB).
    Rave,
    /// KataGo's PUCT over the policy priors ([`super::puct`]).
    Puct,
}

/// Where a descent stopped, as an evaluator sees it.
pub struct LeafView<'a> {
    pub root: &'a Root<'a>,
    /// The path's moves from the root, in order.
    pub path: &'a [(Move, Color)],
    /// The board at the leaf (the evaluator may play on it).
    pub board: &'a mut Board,
    /// The player to move at the leaf.
    pub to_move: Color,
    /// The last move on the path, if it was a board play.
    pub last: Option<Point>,
    /// Two passes ended the game on the path: the board is final.
    pub terminal: bool,
    /// The leaf's node key ([`super::key`]).
    pub key: u64,
}

/// How a leaf's result is to be counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeafKind {
    /// The leaf's board was played out to its end: the core counts it
    /// (Tromp-Taylor), adds it to the ownership map and scores it with
    /// [`super::value::playout_value`]; `moves` feed AMAF.
    PlayedOut,
    /// `value`, `margin` and `ownership` are filled in.
    Judged,
}

/// What an evaluator learnt about a leaf. Kept by the evaluator and reused.
#[derive(Clone)]
pub struct LeafEval {
    pub kind: LeafKind,
    /// Black's value of the leaf, 0..=1 (win rate blended with the score
    /// utility), for [`LeafKind::Judged`].
    pub value: f64,
    /// Black's expected margin, komi included, and its standard deviation,
    /// for [`LeafKind::Judged`].
    pub margin: f64,
    pub score_stdev: f64,
    /// The result's weight in the nodes above it: 1, or under uncertainty
    /// weighting ([`super::uncertainty`]) more for an evaluation its net is
    /// sure of, less for one it is not.
    pub weight: f64,
    /// Black's winning chance, 0..=1, and expected lead in points, for
    /// [`LeafKind::Judged`].
    pub black_win: f64,
    pub lead: f64,
    /// Black's expected ownership by point index (empty: none).
    pub ownership: Vec<f32>,
    /// Stones played by the playout, for AMAF ([`LeafKind::PlayedOut`]).
    pub moves: Vec<(Point, Color)>,
    /// Priors of the leaf's moves by point index, and of the pass, when the
    /// evaluation gives them (`has_priors`).
    pub priors: Vec<Prior>,
    pub pass_prior: Prior,
    pub has_priors: bool,
}

impl LeafEval {
    pub fn new() -> LeafEval {
        LeafEval {
            kind: LeafKind::PlayedOut,
            value: 0.5,
            margin: 0.0,
            score_stdev: 0.0,
            weight: 1.0,
            black_win: 0.5,
            lead: 0.0,
            ownership: Vec::with_capacity(crate::go::board::CELLS),
            moves: Vec::with_capacity(1024),
            priors: vec![Prior::default(); crate::go::board::CELLS],
            pass_prior: Prior::default(),
            has_priors: false,
        }
    }
}

impl Default for LeafEval {
    fn default() -> Self {
        LeafEval::new()
    }
}

/// Judges leaves for the search core; one per search thread, kept between
/// searches (its caches and buffers stay warm).
///
/// A thread descends [`LeafEvaluator::batch_size`] times (virtual loss
/// spreads the descents), hands each leaf to [`LeafEvaluator::evaluate`]
/// under its slot number, calls [`LeafEvaluator::finish`] (where a network
/// evaluates the batch in one call), then backs each slot's
/// [`LeafEvaluator::result`] up.
pub trait LeafEvaluator: Send {
    /// The selection rule this evaluator's priors and values are made for.
    fn selection(&self) -> Selection;

    /// Leaves per batch (slots `0..batch_size()`).
    fn batch_size(&self) -> usize {
        1
    }

    /// A search of `root` starts; `seed` reseeds any randomness.
    fn begin_search(&mut self, root: &Root, seed: u64);

    /// Priors for a node the descent expands before evaluating anything
    /// below it (the classical way). Fills `out` (by point index) and returns
    /// the pass's prior; `None` (the default) if priors come only with an
    /// evaluation (the node is then evaluated as a leaf and expanded with
    /// its results).
    fn descent_priors(
        &mut self,
        _board: &Board,
        _color: Color,
        _last: Option<Point>,
        _move_number: u32,
        _cfg: &SearchConfig,
        _out: &mut [Prior],
    ) -> Option<Prior> {
        None
    }

    /// Judges the leaf into slot `slot`, at once or at [`LeafEvaluator::finish`].
    fn evaluate(&mut self, slot: usize, leaf: LeafView, cfg: &SearchConfig);

    /// Completes the evaluations of the batch.
    fn finish(&mut self, _cfg: &SearchConfig) {}

    /// The evaluation in slot `slot` (after [`LeafEvaluator::finish`]).
    fn result(&self, slot: usize) -> &LeafEval;

    /// Black's expected margin (komi included) in the root position, given
    /// the table's estimate (mean margin, number of results) if it has one;
    /// `seed` for any sampling. Centres the score utility.
    fn expected_margin(
        &mut self,
        root: &Root,
        table: Option<(f64, u32)>,
        cfg: &SearchConfig,
        seed: u64,
    ) -> f64;
}
