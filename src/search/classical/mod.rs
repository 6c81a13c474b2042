//! The classical evaluator: heuristic priors with the tactical reader when the
//! descent expands a node, and a heavy (or light) playout from every leaf.
//! Its values are meant for UCT + RAVE selection. This is tengen's search
//! without a network.
//!
//! Its room holds what it is made of, all working on a bare board:
//! - [`playout`]: the playout policies (light, heavy, settling) and their
//!   random generator;
//! - [`patterns`]: 3x3 shapes for the heavy policy and the priors;
//! - [`tactics`]: a small alpha-beta reader (ladders, captures) with its
//!   own table;
//! - [`priors`]: the prior knowledge given to new edges.

pub mod patterns;
pub mod playout;
pub mod priors;
pub mod tactics;

use super::config::SearchConfig;
use super::evaluate::{LeafEval, LeafEvaluator, LeafKind, LeafView, Selection};
use super::root::Root;
use crate::go::board::{Board, Color, Point};
use playout::{play_out, sample_playouts, MovePolicy, PlayoutRng, Policy};
use priors::{pass_prior, Prior};
use tactics::Reader;

/// Bits of the tactical reader's table.
const READER_BITS: u32 = 14;

/// Playouts behind the root's expected margin when the table has too few.
const MARGIN_PLAYOUTS: u32 = 200;

/// See the module documentation.
pub struct Classical<P: MovePolicy = Policy> {
    policy: P,
    rng: PlayoutRng,
    /// Tactical reader for the priors of new nodes (fresh each search).
    reader: Reader,
    /// The one slot's result.
    result: LeafEval,
}

impl<P: MovePolicy> Classical<P> {
    pub fn new(policy: P) -> Classical<P> {
        Classical {
            policy,
            rng: PlayoutRng::new(0),
            reader: Reader::new(READER_BITS),
            result: LeafEval::new(),
        }
    }
}

impl<P: MovePolicy> LeafEvaluator for Classical<P> {
    fn selection(&self) -> Selection {
        Selection::Rave
    }

    fn begin_search(&mut self, _root: &Root, seed: u64) {
        self.rng = PlayoutRng::new(seed);
        self.reader.clear();
    }

    fn descent_priors(
        &mut self,
        board: &Board,
        color: Color,
        last: Option<Point>,
        move_number: u32,
        cfg: &SearchConfig,
        out: &mut [Prior],
    ) -> Option<Prior> {
        priors::compute(
            board,
            color,
            last,
            move_number,
            &cfg.priors,
            &mut self.reader,
            out,
        );
        Some(pass_prior(board, &cfg.priors))
    }

    fn evaluate(&mut self, _slot: usize, leaf: LeafView, _cfg: &SearchConfig) {
        let out = &mut self.result;
        out.kind = LeafKind::PlayedOut;
        out.has_priors = false;
        out.moves.clear();
        let moves = &mut out.moves;
        play_out(
            &mut self.policy,
            leaf.board,
            leaf.to_move,
            leaf.last,
            &mut self.rng,
            leaf.root.max_playout_moves,
            |p, c| moves.push((p, c)),
        );
    }

    fn result(&self, _slot: usize) -> &LeafEval {
        &self.result
    }

    /// The table's estimate once it rests on enough playouts, else the mean
    /// of a few playouts from the root.
    fn expected_margin(
        &mut self,
        root: &Root,
        table: Option<(f64, u32)>,
        cfg: &SearchConfig,
        seed: u64,
    ) -> f64 {
        if cfg.score_weight == 0.0 {
            return 0.0;
        }
        if let Some((margin, n)) = table {
            if n >= MARGIN_PLAYOUTS {
                return margin;
            }
        }
        let mut rng = PlayoutRng::new(seed);
        let mut sum = 0.0;
        sample_playouts(
            &mut self.policy.clone(),
            &root.board,
            MARGIN_PLAYOUTS,
            |_| (root.color, None),
            &mut rng,
            root.max_playout_moves,
            |end| sum += crate::go::score::area_margin_fast(end) as f64,
        );
        sum / MARGIN_PLAYOUTS as f64 - root.game.effective_komi()
    }
}
