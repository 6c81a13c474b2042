//! One simulation of the search: descend the graph from the root choosing
//! edges by UCT + RAVE with priors, expand a leaf, play a playout, and back the
//! result up the path.
//!
//! Graph soundness (KataGo's `docs/GraphSearch.md`): visits are counted per
//! edge; after each simulation every node on the path recomputes its value from
//! its own evaluations and its children's current values weighted by edge
//! visits ([`Table::refresh`]); a descent that reaches a child already visited
//! more often than the edge stops there and backs up the child's value without
//! a playout. AMAF statistics live on edges (a parent's view of a move).
//!
//! Legality: the root's moves come from
//! [`Game::is_legal`](crate::go::game::Game::is_legal) (the real game with its
//! full superko history); deeper moves are checked on the path's board against
//! the game history plus the positions of the path itself. The tree never plays
//! suicides nor fills its own true eyes.
//!
//! Threads share the [`Tree`] behind a mutex held while descending and while
//! backing up; the playout runs unlocked. Virtual loss (an in-flight count
//! per edge, scored as lost playouts) sends concurrent descents apart. Each
//! descent first claims a simulation from the search's budget, and no more
//! descents are on their way at once than the root's visits allow
//! ([`Tree::may_descend`]): a visit limit holds exactly, and a short search
//! on many threads concentrates its visits as one thread would.

use super::classical::priors::Prior;
use super::config::SearchConfig;
use super::evaluate::{LeafEval, LeafEvaluator, LeafKind, LeafView, Selection};
use super::key::{KeyMode, KeyState};
use super::puct;
use super::root::Root;
use super::subtree_bias;
use super::tree::Tree;
use super::tt::{point_move, Edge, Outcome, Table, NO_SLOT, PASS};
use super::value::{for_mover, playout_value, win_value};
use crate::go::board::{Board, Color, Move, Point, CELLS};
use crate::go::rules::KoRule;
use std::sync::{Condvar, Mutex, MutexGuard};

/// One level of the descent.
#[derive(Clone, Copy, Debug)]
struct Step {
    slot: u32,
    key: u64,
    edge: u16,
    point: u16,
    mover: Color,
    /// The subtree-bias bucket of the position the move makes (0: none).
    bias_key: u64,
}

/// How a descent ended.
#[derive(Clone, Copy, Debug)]
enum Leaf {
    /// Evaluate the path's board; the leaf node's slot if it has one, its key,
    /// and whether two passes ended the game there.
    Evaluate {
        slot: Option<u32>,
        key: u64,
        terminal: bool,
    },
    /// A transposition visited more than its edge: back up its value.
    Transposition(u32),
}

/// A simulating thread's walk through the graph; nothing here allocates once
/// warm. What the leaves are worth comes from a [`LeafEvaluator`].
pub struct Worker {
    board: Board,
    path: Vec<Step>,
    /// The path's moves, for evaluators that rebuild the leaf's game.
    path_moves: Vec<(Move, Color)>,
    protect: Vec<u32>,
    /// Positions created on the path: (position key, mover, by a pass).
    positions: Vec<(u64, Color, bool)>,
    /// Key state at the leaf (for expanding it after its evaluation).
    leaf_keys: KeyState,
    /// AMAF marks: `first[cell] = (stamp, colour index)` of the first play there.
    first: Vec<(u32, u8)>,
    stamp: u32,
    candidates: Vec<Edge>,
    /// Priors of the node being expanded during the descent, by point index.
    prior_buf: Vec<Prior>,
    /// Where the last descent ended, waiting to be backed up.
    leaf: Leaf,
}

/// The point of a board play (`None` for a pass).
#[inline]
fn as_point(mv: Move) -> Option<Point> {
    match mv {
        Move::Play(p) => Some(p),
        Move::Pass => None,
    }
}

fn lock_tree(tree: &Mutex<Tree>) -> MutexGuard<'_, Tree> {
    match tree.lock() {
        Ok(t) => t,
        Err(poisoned) => poisoned.into_inner(),
    }
}

impl Worker {
    pub fn new(board: &Board) -> Worker {
        Worker {
            board: board.clone(),
            path: Vec::with_capacity(64),
            path_moves: Vec::with_capacity(64),
            protect: Vec::with_capacity(64),
            positions: Vec::with_capacity(64),
            leaf_keys: KeyState::start(board, Color::Black),
            first: vec![(0, 0); CELLS],
            stamp: 0,
            candidates: Vec::with_capacity(400),
            prior_buf: vec![Prior::default(); CELLS],
            leaf: Leaf::Transposition(NO_SLOT),
        }
    }

    /// `n` workers (at least one) for the slots of a batch.
    pub fn batch(n: usize, board: &Board) -> Vec<Worker> {
        (0..n.max(1)).map(|_| Worker::new(board)).collect()
    }

    /// The last move on the descent path, if it was a board play: what the
    /// heavy playout policy and the priors answer.
    fn last_move(&self) -> Option<Point> {
        self.path
            .last()
            .filter(|s| s.point != PASS)
            .map(|s| Point::from_index(s.point as usize))
    }

    /// Runs one batch of simulations with `workers` (one per slot of
    /// `eval`), as many as [`Tree::may_descend`] lets start; wakes the
    /// threads waiting on `wake` once they are backed up. Returns the number
    /// of simulations (0: none may start now).
    pub fn simulate_batch<E: LeafEvaluator>(
        workers: &mut [Worker],
        tree: &Mutex<Tree>,
        wake: &Condvar,
        root: &Root,
        cfg: &SearchConfig,
        eval: &mut E,
    ) -> usize {
        let mut n = 0;
        for (slot, w) in workers.iter_mut().enumerate() {
            if !w.descend_and_submit(tree, root, cfg, eval, slot) {
                break;
            }
            n += 1;
        }
        if n == 0 {
            return 0;
        }
        eval.finish(cfg);
        let mut waiting = false;
        for (slot, w) in workers[..n].iter_mut().enumerate() {
            waiting |= w.back_up(tree, root, cfg, eval, slot);
        }
        if waiting {
            wake.notify_all();
        }
        n
    }

    /// Waits on `wake` (a little while at most) for a descent on its way to
    /// be backed up, when none may start now; returns at once when one may,
    /// or when the budget is spent.
    pub fn wait_for_room(tree: &Mutex<Tree>, wake: &Condvar, root: &Root) {
        let mut t = lock_tree(tree);
        if t.may_descend(root.key) || t.budget_claimed() || t.in_flight == 0 {
            return;
        }
        t.waiting += 1;
        let (mut t, _) = match wake.wait_timeout(t, std::time::Duration::from_millis(2)) {
            Ok(woken) => woken,
            Err(poisoned) => poisoned.into_inner(),
        };
        t.waiting -= 1;
    }

    /// The first half of a simulation: claims it ([`Tree::may_descend`]),
    /// descends (virtual loss marks the path) and hands the leaf to `eval`
    /// under `slot`. False if no simulation may start now.
    pub fn descend_and_submit<E: LeafEvaluator>(
        &mut self,
        tree: &Mutex<Tree>,
        root: &Root,
        cfg: &SearchConfig,
        eval: &mut E,
        slot: usize,
    ) -> bool {
        let leaf = {
            let mut t = lock_tree(tree);
            if !t.may_descend(root.key) {
                return false;
            }
            t.in_flight += 1;
            self.descend(&mut t, root, cfg, eval)
        };
        self.leaf = leaf;
        let Leaf::Evaluate { key, terminal, .. } = leaf else {
            return true;
        };
        let to_move = match self.path.last() {
            Some(s) => s.mover.opp(),
            None => root.color,
        };
        let last = self.last_move();
        let view = LeafView {
            root,
            path: &self.path_moves,
            board: &mut self.board,
            to_move,
            last,
            terminal,
            key,
        };
        eval.evaluate(slot, view, cfg);
        true
    }

    /// The second half: backs `slot`'s result (after `eval.finish`) up the
    /// path of the last descent. Returns whether a thread is waiting for
    /// room ([`Worker::wait_for_room`]) and must be woken.
    pub fn back_up<E: LeafEvaluator>(
        &mut self,
        tree: &Mutex<Tree>,
        root: &Root,
        cfg: &SearchConfig,
        eval: &E,
        slot: usize,
    ) -> bool {
        let rave_search = eval.selection() == Selection::Rave;
        let leaf = self.leaf;
        let result = eval.result(slot);
        // A judged leaf's edges are made before the lock is taken.
        let edges_built = matches!(leaf, Leaf::Evaluate { .. })
            && result.has_priors
            && result.kind != LeafKind::PlayedOut;
        if edges_built {
            let color = self.path.last().map_or(root.color, |st| st.mover.opp());
            let keys = self.leaf_keys;
            self.build_edges(color, &keys, root, &result.priors, result.pass_prior);
        }
        let mut t = lock_tree(tree);
        t.in_flight = t.in_flight.saturating_sub(1);
        self.backup(&mut t, root, cfg, leaf, result, rave_search, edges_built);
        t.waiting > 0
    }

    fn descend<E: LeafEvaluator>(
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
                return leaf(Some(slot), key, false);
            }
            if !t.table.node(slot).is_expanded() {
                return leaf(Some(slot), key, false);
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

    /// The node in `slot`, of subtree-bias bucket `key`, observes its
    /// children's value against its own evaluations and takes its bucket's
    /// correction ([`subtree_bias`]).
    fn observe_bias(t: &mut Tree, slot: u32, key: u64, cfg: &SearchConfig) {
        let factor = f64::from(cfg.puct.subtree_bias_factor);
        let node = t.table.node_mut(slot);
        if key == 0 || factor == 0.0 || node.own_n == 0 || node.child_n == 0 {
            return;
        }
        // A node reached by other move orders keeps the bucket it was first
        // given: what it put there must come out of the same bucket.
        if node.bias.key == 0 {
            node.bias.key = key;
        }
        let children = node.child_sum / f64::from(node.child_n);
        let own = node.own_sum / f64::from(node.own_n);
        let weight = f64::from(node.child_n).powf(f64::from(cfg.puct.subtree_bias_exponent));
        let mean = t.biases.observe(&mut node.bias, children - own, weight);
        node.bias.bias = (factor * mean) as f32;
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
    fn build_edges(
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
    fn install_edges(&mut self, t: &mut Tree, slot: u32) -> bool {
        if !t.table.has_room(self.candidates.len()) {
            if let Some(&root_slot) = self.protect.first() {
                t.table.prune(root_slot);
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

    /// Backs the leaf's result up the path; `rave_search`: keep AMAF
    /// statistics (UCT + RAVE selection reads them); `edges_built`: the
    /// leaf's edges are made ([`Worker::build_edges`]) and it is expanded
    /// with them.
    #[allow(clippy::too_many_arguments)]
    fn backup(
        &mut self,
        t: &mut Tree,
        root: &Root,
        cfg: &SearchConfig,
        leaf: Leaf,
        result: &LeafEval,
        rave_search: bool,
        edges_built: bool,
    ) {
        let komi = root.game.effective_komi();
        t.simulations += 1;
        let played_out =
            matches!(leaf, Leaf::Evaluate { .. }) && result.kind == LeafKind::PlayedOut;
        let (mut q, outcome, counted) = match leaf {
            Leaf::Evaluate { slot, .. } => {
                t.playouts += 1;
                let (v, counted) = if played_out {
                    let margin = t.ownership.add(&self.board) as f64 - komi;
                    // The side of a square board of the same area.
                    let size = (self.board.geometry().area() as f64).sqrt();
                    // Also the AMAF value: RAVE must blend like with like.
                    let v = playout_value(margin, root.score_center, size, cfg.score_weight);
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
                        n.own_sum += v;
                        n.record(&counted);
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
            Leaf::Transposition(s) => {
                let n = t.table.node(s);
                (n.value(), n.value(), n.mean_outcome())
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
            let Some(slot) = t.table.find(step.key, step.slot) else {
                continue;
            };
            let (node, edges) = t.table.node_and_edges_mut(slot);
            let idx = step.edge as usize;
            if idx >= edges.len() || edges[idx].point != step.point {
                continue;
            }
            node.record(&counted);
            let e = &mut edges[idx];
            e.in_flight = e.in_flight.saturating_sub(1);
            e.visits += 1;
            if e.multi_child {
                e.child_q += (q as f32 - e.child_q) / e.visits as f32;
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
}
