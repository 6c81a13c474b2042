//! A simulating thread's [`Worker`]: what it keeps between simulations, and
//! one batch of them (each descends and hands its leaf to the evaluator;
//! once the evaluator has finished the batch, each backs its result up),
//! with the wait for room while too many descents are on their way.

use crate::go::board::{Board, Color, Move, Point, CELLS};
use crate::search::classical::priors::Prior;
use crate::search::config::SearchConfig;
use crate::search::evaluate::{LeafEvaluator, LeafKind, LeafView, Selection};
use crate::search::key::KeyState;
use crate::search::root::Root;
use crate::search::tree::Tree;
use crate::search::tt::{Edge, Table, NO_SLOT, PASS};
use std::sync::{Condvar, Mutex, MutexGuard};

/// One level of the descent.
#[derive(Clone, Copy, Debug)]
pub(super) struct Step {
    pub(super) slot: u32,
    pub(super) key: u64,
    pub(super) edge: u16,
    pub(super) point: u16,
    pub(super) mover: Color,
    /// The subtree-bias bucket of the position the move makes (0: none).
    pub(super) bias_key: u64,
}

impl Step {
    /// The slot of the node this step left, while the step's edge is still
    /// where the descent took it (the table may have replaced the node since).
    pub(super) fn slot_in(&self, table: &Table) -> Option<u32> {
        let slot = table.find(self.key, self.slot)?;
        let still_there = table
            .edges(slot)
            .get(self.edge as usize)
            .is_some_and(|e| e.point == self.point);
        still_there.then_some(slot)
    }
}

/// How a descent ended.
#[derive(Clone, Copy, Debug)]
pub(super) enum Leaf {
    /// Evaluate the path's board; the leaf node's slot if it has one, its key,
    /// whether two passes ended the game there, and whether the node was
    /// not yet expanded when the descent reached it.
    Evaluate {
        slot: Option<u32>,
        key: u64,
        terminal: bool,
        unexpanded: bool,
    },
    /// A transposition visited more than its edge: back up its value.
    Transposition(u32),
}

/// A simulating thread's walk through the graph; nothing here allocates once
/// warm. What the leaves are worth comes from a [`LeafEvaluator`].
pub struct Worker {
    pub(super) board: Board,
    pub(super) path: Vec<Step>,
    /// The path's moves, for evaluators that rebuild the leaf's game.
    pub(super) path_moves: Vec<(Move, Color)>,
    pub(super) protect: Vec<u32>,
    /// Positions created on the path: (position key, mover, by a pass).
    pub(super) positions: Vec<(u64, Color, bool)>,
    /// Key state at the leaf (for expanding it after its evaluation).
    pub(super) leaf_keys: KeyState,
    /// AMAF marks: `first[cell] = (stamp, colour index)` of the first play there.
    pub(super) first: Vec<(u32, u8)>,
    pub(super) stamp: u32,
    pub(super) candidates: Vec<Edge>,
    /// Priors of the node being expanded during the descent, by point index.
    pub(super) prior_buf: Vec<Prior>,
    /// Where the last descent ended, waiting to be backed up.
    pub(super) leaf: Leaf,
}

/// The tree during a search. A panic in one thread ends the search with
/// that panic (the threads' scope raises it again); the others finish on the
/// tree as it is, and the engine's next [`lock`](super::super::tree::lock)
/// empties it.
fn lock_tree(tree: &Mutex<Tree>) -> MutexGuard<'_, Tree> {
    crate::sync::lock(tree)
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
    pub(super) fn last_move(&self) -> Option<Point> {
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
        let batch_start = std::time::Instant::now();
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
        let leaf_time = batch_start.elapsed() / n as u32;
        let mut waiting = false;
        for (slot, w) in workers[..n].iter_mut().enumerate() {
            waiting |= w.back_up(tree, root, cfg, eval, slot, leaf_time);
        }
        if waiting {
            wake.notify_all();
        }
        n
    }

    /// Waits on `wake` (a little while at most) for a descent on its way to
    /// be backed up, when none may start now; returns at once when one may,
    /// or when none is on its way.
    pub fn wait_for_room(tree: &Mutex<Tree>, wake: &Condvar, root: &Root) {
        let mut t = lock_tree(tree);
        if t.may_descend(root.key) || t.in_flight == 0 {
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
    /// path of the last descent, and tells the tree the evaluator took
    /// `leaf_time` a leaf in this batch. Returns whether a thread is waiting
    /// for room ([`Worker::wait_for_room`]) and must be woken.
    pub fn back_up<E: LeafEvaluator>(
        &mut self,
        tree: &Mutex<Tree>,
        root: &Root,
        cfg: &SearchConfig,
        eval: &E,
        slot: usize,
        leaf_time: std::time::Duration,
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
        t.per_leaf = leaf_time;
        if result.kind != LeafKind::PlayedOut && Self::expanded_meanwhile(&t, leaf) {
            // Another descent reached the same new leaf and was backed up
            // first: the net's answer is already in the tree, and counting
            // it twice would weigh that position twice (KataGo drops such a
            // playout too). This one is withdrawn, and its simulation goes
            // back to the budget.
            self.withdraw(&mut t);
        } else {
            self.backup(&mut t, root, cfg, leaf, result, rave_search, edges_built);
        }
        t.waiting > 0
    }

    /// Whether `leaf` is a node the descent found unexpanded that another
    /// descent has expanded since.
    fn expanded_meanwhile(t: &Tree, leaf: Leaf) -> bool {
        match leaf {
            Leaf::Evaluate {
                slot: Some(slot),
                key,
                unexpanded: true,
                ..
            } => {
                let node = t.table.node(slot);
                node.key == key && node.is_expanded()
            }
            _ => false,
        }
    }

    /// Takes the last descent's virtual loss off its path without a visit.
    fn withdraw(&mut self, t: &mut Tree) {
        for step in &self.path {
            if let Some(slot) = step.slot_in(&t.table) {
                let e = &mut t.table.node_and_edges_mut(slot).1[step.edge as usize];
                e.in_flight = e.in_flight.saturating_sub(1);
            }
        }
    }
}
