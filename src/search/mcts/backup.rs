//! The backup: a leaf's result recorded in its node and carried up the
//! descent's path, each edge counting its visit and each node recomputing its
//! value from its own evaluations and its children's (graph-sound), with
//! AMAF statistics for the classical search and subtree bias corrections for
//! the network's.

use super::worker::{Leaf, Worker};
use crate::search::config::SearchConfig;
use crate::search::evaluate::{LeafEval, LeafKind};
use crate::search::key::KeyMode;
use crate::search::root::Root;
use crate::search::tree::Tree;
use crate::search::tt::{Outcome, OwnScore, PASS};
use crate::search::value::{for_mover, playout_value, win_value};

impl Worker {
    /// Backs the leaf's result up the path; `rave_search`: keep AMAF
    /// statistics (UCT + RAVE selection reads them); `edges_built`: the
    /// leaf's edges are made ([`Worker::build_edges`]) and it is expanded
    /// with them.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn backup(
        &mut self,
        t: &mut Tree,
        root: &Root,
        cfg: &SearchConfig,
        leaf: Leaf,
        result: &LeafEval,
        rave_search: bool,
        edges_built: bool,
    ) {
        t.simulations += 1;
        let played_out =
            matches!(leaf, Leaf::Evaluate { .. }) && result.kind == LeafKind::PlayedOut;
        // The playout's weight in every node above it: its evaluation's
        // (uncertainty weighting), or a transposition's mean.
        let (mut q, outcome, counted, weight) = match leaf {
            Leaf::Evaluate { slot, .. } => {
                let weight = if played_out { 1.0 } else { result.weight };
                let (q, v, counted) =
                    self.record_leaf(t, root, cfg, slot, result, weight, rave_search, edges_built);
                (q, v, counted, weight)
            }
            Leaf::Transposition(s) => {
                let n = t.table.node(s);
                (n.value(), n.value(), n.mean_outcome(), n.weight_per_visit())
            }
        };
        // AMAF (classical search only): the first play on each point after a
        // node, by the node's mover.
        let rave = rave_search;
        let stamp = if rave {
            self.stamp = self.stamp.wrapping_add(1).max(1);
            let stamp = self.stamp;
            if played_out {
                for &(p, c) in result.moves.iter().rev() {
                    self.first[p.index()] = (stamp, c.index() as u8);
                }
            }
            stamp
        } else {
            0
        };
        let black_result = outcome as f32;
        let reread = matches!(root.mode, KeyMode::Transpositions { .. });
        let shaping = cfg.value_shaping();
        for (i, step) in self.path.iter().enumerate().rev() {
            if rave && step.point != PASS {
                self.first[step.point as usize] = (stamp, step.mover.index() as u8);
            }
            let Some(slot) = step.slot_in(&t.table) else {
                continue;
            };
            let (node, edges) = t.table.node_and_edges_mut(slot);
            let idx = step.edge as usize;
            node.record(&counted);
            let e = &mut edges[idx];
            e.in_flight = e.in_flight.saturating_sub(1);
            e.visits += 1;
            e.weight += weight as f32;
            if e.multi_child {
                e.child_q += (q as f32 - e.child_q) * weight as f32 / e.weight;
            } else {
                e.child_q = q as f32;
            }
            if rave {
                let mover = step.mover.index() as u8;
                let won = for_mover(black_result, step.mover);
                for e in edges.iter_mut() {
                    if e.point == PASS {
                        continue;
                    }
                    let (s, c) = self.first[e.point as usize];
                    if s == stamp && c == mover {
                        e.amaf_n += 1.0;
                        e.amaf_w += won;
                    }
                }
            }
            let shaping = (!rave).then_some((step.mover, &shaping));
            t.table.refresh(slot, reread && cfg.transpositions, shaping);
            if !rave && i > 0 {
                Self::observe_bias(t, slot, self.path[i - 1].bias_key, cfg);
            }
            q = t.table.node(slot).value();
        }
    }

    /// Records the evaluated leaf's result, of weight `weight`, in its node
    /// (`slot`, if the table kept one) and the search's counts and
    /// ownership, installing the edges [`Worker::build_edges`] made when
    /// `edges_built`. Returns the value to back up, the result's own value
    /// and its outcome.
    #[allow(clippy::too_many_arguments)]
    fn record_leaf(
        &mut self,
        t: &mut Tree,
        root: &Root,
        cfg: &SearchConfig,
        slot: Option<u32>,
        result: &LeafEval,
        weight: f64,
        rave_search: bool,
        edges_built: bool,
    ) -> (f64, f64, Outcome) {
        let komi = root.game.effective_komi();
        let played_out = result.kind == LeafKind::PlayedOut;
        t.playouts += 1;
        let (v, counted) = if played_out {
            let margin = t.ownership.add(&self.board) as f64 - komi;
            // The side of a square board of the same area.
            let size = (self.board.geometry().area() as f64).sqrt();
            // Also the AMAF value: RAVE must blend like with like.
            let v = playout_value(margin, root.score_center, size, cfg.score_utility());
            let counted = Outcome {
                margin,
                margin_sq: margin * margin,
                win: win_value(margin),
                lead: margin,
                value_sq: v * v,
            };
            (v, counted)
        } else {
            if !result.ownership.is_empty() {
                t.ownership.add_black(&self.board, &result.ownership);
            }
            let (m, sd) = (result.margin, result.score_stdev);
            let counted = Outcome {
                margin: m,
                margin_sq: m * m + sd * sd,
                win: result.black_win,
                lead: result.lead,
                value_sq: result.value * result.value,
            };
            (result.value, counted)
        };
        let q = match slot.filter(|&s| t.table.node(s).key != 0) {
            Some(s) => {
                let n = t.table.node_mut(s);
                n.own_n += 1;
                n.own_w += weight;
                n.own_sum += weight * v;
                n.record(&counted);
                n.own_score = if played_out {
                    OwnScore::UNKNOWN
                } else {
                    OwnScore::new(result.margin, result.score_stdev)
                };
                let bias_key = self.path.last().map_or(0, |st| st.bias_key);
                if !rave_search && bias_key != 0 && !played_out {
                    if n.bias.key == 0 {
                        n.bias.key = bias_key;
                    }
                    let mean = t.biases.mean(n.bias.key);
                    n.bias.bias = (f64::from(cfg.puct.subtree_bias_factor) * mean) as f32;
                }
                let q = n.value();
                if edges_built && !t.table.node(s).is_expanded() {
                    self.install_edges(t, s);
                }
                q
            }
            None => v,
        };
        (q, v, counted)
    }

    /// The node in `slot`, of subtree-bias bucket `key`, observes its
    /// children's value against its own evaluations and takes its bucket's
    /// correction ([`crate::search::subtree_bias`]).
    fn observe_bias(t: &mut Tree, slot: u32, key: u64, cfg: &SearchConfig) {
        let factor = f64::from(cfg.puct.subtree_bias_factor);
        let node = t.table.node_mut(slot);
        if key == 0 || factor == 0.0 || node.own_w <= 0.0 || node.child_w <= 0.0 {
            return;
        }
        // A node reached by other move orders keeps the bucket it was first
        // given: what it put there must come out of the same bucket.
        if node.bias.key == 0 {
            node.bias.key = key;
        }
        let children = node.child_sum / node.child_w;
        let own = node.own_sum / node.own_w;
        let weight = node.child_w.powf(f64::from(cfg.puct.subtree_bias_exponent));
        let mean = t.biases.observe(&mut node.bias, children - own, weight);
        node.bias.bias = (factor * mean) as f32;
    }
}
