//! The descent: from the root to a leaf, choosing edges by UCT + RAVE with
//! priors or by PUCT, expanding nodes on the way (legal moves only, superko
//! checked against the game and the path), marking the path with virtual
//! loss, and stopping at a transposition visited more than its edge.

use super::worker::{Leaf, Step, Worker};
use crate::go::board::{Color, Move, Point};
use crate::go::rules::KoRule;
use crate::search::classical::priors::Prior;
use crate::search::config::SearchConfig;
use crate::search::evaluate::{LeafEvaluator, Selection};
use crate::search::key::{KeyMode, KeyState};
use crate::search::puct;
use crate::search::root::Root;
use crate::search::subtree_bias;
use crate::search::tree::Tree;
use crate::search::tt::{point_move, Edge, Table, NO_SLOT, PASS};
use crate::search::value::for_mover;

/// The point of a board play (`None` for a pass).
#[inline]
fn as_point(mv: Move) -> Option<Point> {
    match mv {
        Move::Play(p) => Some(p),
        Move::Pass => None,
    }
}

impl Worker {
    pub(super) fn descend<E: LeafEvaluator>(
        &mut self,
        t: &mut Tree,
        root: &Root,
        cfg: &SearchConfig,
        eval: &mut E,
    ) -> Leaf {
        self.board.clone_from(&root.board);
        self.path.clear();
        self.path_moves.clear();
        self.protect.clear();
        self.positions.clear();
        let mut keys = root.keys;
        let mut color = root.color;
        let mut key = root.key;
        let leaf = |slot, key, terminal| Leaf::Evaluate {
            slot,
            key,
            terminal,
            unexpanded: false,
        };
        // A leaf to expand: a descent on its way to it may be backed up
        // first ([`Worker::back_up`] then withdraws this one).
        let to_expand = |slot, key| Leaf::Evaluate {
            slot: Some(slot),
            key,
            terminal: false,
            unexpanded: true,
        };
        let Some(mut slot) = t.table.find_or_insert(root.key, NO_SLOT, &[]) else {
            self.leaf_keys = keys;
            return leaf(None, key, false);
        };
        let subtree_bias =
            eval.selection() == Selection::Puct && cfg.puct.subtree_bias_factor != 0.0;
        loop {
            self.protect.push(slot);
            self.leaf_keys = keys;
            let depth = self.path.len();
            if depth > 0 && (keys.passes() >= 2 || depth >= root.max_depth) {
                return leaf(Some(slot), key, keys.passes() >= 2);
            }
            let node = *t.table.node(slot);
            if !node.is_expanded()
                && (depth == 0 || node.visits() >= t.expand_after)
                && !self.expand_in_descent(t, slot, color, &keys, root, cfg, eval)
            {
                return to_expand(slot, key);
            }
            if !t.table.node(slot).is_expanded() {
                return to_expand(slot, key);
            }
            let Some(idx) = self.select(&t.table, slot, color, root, cfg, depth == 0, eval) else {
                return leaf(Some(slot), key, false);
            };
            let (_, edges) = t.table.node_and_edges_mut(slot);
            let edge = &mut edges[idx];
            edge.in_flight = edge.in_flight.saturating_add(1);
            let (point, hint, edge_visits) = (edge.point, edge.child_slot, edge.visits);
            let mv = point_move(point);
            let bias_key = if subtree_bias {
                let previous = match self.path.last() {
                    Some(s) => point_move(s.point),
                    None => root.game.last_turn().map_or(Move::Pass, |t| t.mv),
                };
                subtree_bias::bucket_key(&self.board, color, as_point(previous), as_point(mv))
            } else {
                0
            };
            let removed = match mv {
                Move::Play(p) => {
                    let e = self.board.play(p, color);
                    e.captured > 0 || e.suicided > 0
                }
                Move::Pass => {
                    self.board.clear_ko();
                    false
                }
            };
            keys.advance(&self.board, color, mv, removed);
            self.positions
                .push((self.board.hash(), color, mv == Move::Pass));
            self.path.push(Step {
                slot,
                key,
                edge: idx as u16,
                point,
                mover: color,
                bias_key,
            });
            self.path_moves.push((mv, color));
            color = color.opp();
            let child_key = keys.key(&self.board, color, root.mode);
            self.leaf_keys = keys;
            let Some(child) = t.table.find_or_insert(child_key, hint, &self.protect) else {
                return leaf(None, child_key, keys.passes() >= 2);
            };
            let (_, edges) = t.table.node_and_edges_mut(slot);
            let edge = &mut edges[idx];
            if edge.child_key != 0 && edge.child_key != child_key {
                edge.multi_child = true;
            }
            edge.child_slot = child;
            edge.child_key = child_key;
            let multi_child = edge.multi_child;
            if matches!(root.mode, KeyMode::Transpositions { .. })
                && !multi_child
                && t.table.node(child).visits() > edge_visits
            {
                return Leaf::Transposition(child);
            }
            slot = child;
            key = child_key;
        }
    }

    /// Whether `mover`'s play giving position key `hash` repeats a position of
    /// the path under `ko` (the game's history is asked separately).
    fn repeats_on_path(&self, ko: KoRule, hash: u64, mover: Color) -> bool {
        self.positions.iter().any(|&(h, by, pass)| {
            h == hash
                && match ko {
                    KoRule::Simple => false,
                    KoRule::Positional => true,
                    KoRule::Situational => by.opp() == mover.opp(),
                    KoRule::NaturalSituational => !pass && by == mover,
                }
        })
    }

    /// Expands the node in `slot` during the descent if the evaluator gives
    /// priors without an evaluation (classical). False if it does not (the
    /// node becomes the leaf) or the edges do not fit.
    #[allow(clippy::too_many_arguments)]
    fn expand_in_descent<E: LeafEvaluator>(
        &mut self,
        t: &mut Tree,
        slot: u32,
        color: Color,
        keys: &KeyState,
        root: &Root,
        cfg: &SearchConfig,
        eval: &mut E,
    ) -> bool {
        let last = self.last_move();
        let move_number = root.game.move_number() + self.path.len() as u32;
        let Some(pass) = eval.descent_priors(
            &self.board,
            color,
            last,
            move_number,
            cfg,
            &mut self.prior_buf,
        ) else {
            return false;
        };
        let priors = std::mem::take(&mut self.prior_buf);
        let done = self.expand(t, slot, color, keys, root, &priors, pass);
        self.prior_buf = priors;
        done
    }

    /// Creates the edges of the leaf in `slot` ([`Worker::build_edges`],
    /// then [`Worker::install_edges`]).
    #[allow(clippy::too_many_arguments)]
    fn expand(
        &mut self,
        t: &mut Tree,
        slot: u32,
        color: Color,
        keys: &KeyState,
        root: &Root,
        priors: &[Prior],
        pass: Prior,
    ) -> bool {
        self.build_edges(color, keys, root, priors, pass);
        self.install_edges(t, slot)
    }

    /// Makes the edges of a leaf, for [`Worker::install_edges`]: the legal
    /// moves of `color` on the path's board with their `priors` (by point
    /// index), and a pass with `pass`. Needs no tree: the network's search
    /// makes them before it takes the tree's lock.
    pub(super) fn build_edges(
        &mut self,
        color: Color,
        keys: &KeyState,
        root: &Root,
        priors: &[Prior],
        pass: Prior,
    ) {
        let ko = root.game.rules().ko;
        let check_superko = ko != KoRule::Simple && keys.any_capture();
        let at_root = self.path.is_empty();
        self.candidates.clear();
        let board = &self.board;
        for p in board.empty_points() {
            if board.is_true_eye(p, color) || !board.is_legal_simple(p, color) {
                continue;
            }
            if at_root {
                if !root.legal[p.index()] {
                    continue;
                }
            } else if check_superko {
                let h = board.hash_after(p, color);
                if root.game.history().repeats(h, color).is_some()
                    || self.repeats_on_path(ko, h, color)
                {
                    continue;
                }
            }
            let prior = priors[p.index()];
            self.candidates
                .push(Edge::new(p.index() as u16, prior.visits, prior.wins));
        }
        self.candidates
            .push(Edge::new(PASS, pass.visits, pass.wins));
    }

    /// Gives the leaf in `slot` the edges [`Worker::build_edges`] made. When
    /// the arena is full, prunes the less visited half of the expanded nodes
    /// (never the root) and doubles the expansion threshold first. False if
    /// they still do not fit.
    pub(super) fn install_edges(&mut self, t: &mut Tree, slot: u32) -> bool {
        if !t.table.has_room(self.candidates.len()) {
            if let Some(&root_slot) = self.protect.first() {
                let Tree { table, biases, .. } = &mut *t;
                table.prune(root_slot, |node| biases.forget(&node.bias));
                t.expand_after = t.expand_after.saturating_mul(2);
                t.prunes += 1;
            }
        }
        t.table.expand(slot, &self.candidates)
    }

    /// The edge to follow from the node in `slot`: UCT + RAVE over priors,
    /// or PUCT, as the evaluator's values want.
    #[allow(clippy::too_many_arguments)]
    fn select<E: LeafEvaluator>(
        &self,
        table: &Table,
        slot: u32,
        color: Color,
        root: &Root,
        cfg: &SearchConfig,
        at_root: bool,
        eval: &E,
    ) -> Option<usize> {
        let node = table.node(slot);
        let edges = table.edges(slot);
        let allowed = |e: &Edge| !at_root || root.searches(e.point);
        if eval.selection() == Selection::Puct {
            return puct::select(node, edges, color, at_root, &cfg.puct, allowed);
        }
        let log_n = if cfg.exploration > 0.0 {
            let in_flight: f32 = edges.iter().map(|e| e.in_flight as f32).sum();
            (node.visits() as f32 + in_flight + 1.0).ln()
        } else {
            0.0
        };
        let equiv = cfg.rave_equiv.max(1.0);
        let mut best = None;
        let mut best_score = f32::NEG_INFINITY;
        for (i, e) in edges.iter().enumerate() {
            if !allowed(e) {
                continue;
            }
            let n = e.visits as f32 + e.in_flight as f32;
            let won = e.visits as f32 * for_mover(e.child_q, color);
            let vn = n + e.prior_n;
            let value = if vn > 0.0 {
                (won + e.prior_w) / vn
            } else {
                cfg.fpu
            };
            let r = e.amaf_n;
            let blended = if r > 0.0 {
                let beta = r / (r + vn + vn * r / equiv);
                (1.0 - beta) * value + beta * (e.amaf_w / r)
            } else {
                value
            };
            let score = if cfg.exploration > 0.0 {
                blended + cfg.exploration * (log_n / (vn + 1.0)).sqrt()
            } else {
                blended
            };
            if score > best_score {
                best_score = score;
                best = Some(i);
            }
        }
        best
    }
}
