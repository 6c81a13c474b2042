//! The state the search threads share behind one mutex: the table, this
//! search's counts and ownership, and the budget each descent claims a
//! simulation from.

use super::ownership::OwnershipMap;
use super::recenter::Recentering;
use super::subtree_bias::BiasTable;
use super::tt::{Table, NO_SLOT};
use std::sync::Mutex;

/// The state threads share.
pub struct Tree {
    pub table: Table,
    /// Ownership over this search's playouts.
    pub ownership: OwnershipMap,
    /// Playouts run in this search.
    pub playouts: u64,
    /// Simulations (playouts plus transposition stops) in this search.
    pub simulations: u64,
    /// Visits a leaf needs before it is expanded: starts at the root's value
    /// each search, doubles whenever the arena fills and is pruned.
    pub expand_after: u32,
    /// Times the arena was pruned in this search.
    pub prunes: u32,
    /// The subtree-bias buckets of this search.
    pub biases: BiasTable,
    /// Scratch space for moving the kept tree to a new score center.
    pub recentering: Recentering,
    /// Descents on their way (descended, not yet backed up) in this search.
    pub in_flight: u32,
    /// Simulations this search may run, those on their way included
    /// (`u64::MAX`: no visit limit). Every thread claims one before it
    /// descends, so a visit limit holds exactly at any thread count.
    pub budget: u64,
    /// Threads waiting for room to descend
    /// ([`Worker::wait_for_room`](super::mcts::Worker::wait_for_room)).
    pub waiting: u32,
}

/// How fast the number of descents on their way may grow with the root's
/// visits: one more for every this many. A descent under virtual loss
/// cannot see the results of those on their way, so while the tree is
/// small they go one after another and spread only as it grows (a root of
/// 24 visits lets 7 be on their way), where a fixed width would spread a
/// short search's visits thinly over many moves.
pub const VISITS_PER_EXTRA_DESCENT: u32 = 4;

/// Under a visit limit, at most one more descent on its way for every this
/// many visits of the limit, whatever the root holds (a tree kept from the
/// last move may hold many): 100 visits on 8 threads have at most 4 on
/// their way at once, 1,000 have 32. Each descent on its way is one the
/// others cannot learn from, and in a short search they are a large share
/// of it: with 8 at once against KataGo's 8 threads at 100 visits tengen
/// won 36.5% of 100 games, with at most 4 at once 61.5% (docs/search.md).
/// A search limited by time alone is not held back.
pub const LIMIT_VISITS_PER_EXTRA_DESCENT: u64 = 32;

impl Tree {
    /// Whether one more simulation may start now: the budget has room, and
    /// fewer descents are on their way than the root's visits allow (one
    /// until the root has edges; see [`VISITS_PER_EXTRA_DESCENT`]) and than
    /// the visit limit allows ([`LIMIT_VISITS_PER_EXTRA_DESCENT`]).
    pub fn may_descend(&self, root_key: u64) -> bool {
        if self.budget_claimed() {
            return false;
        }
        let width = match self
            .table
            .find(root_key, NO_SLOT)
            .map(|s| self.table.node(s))
        {
            Some(node) if node.is_expanded() => 1 + node.visits() / VISITS_PER_EXTRA_DESCENT,
            _ => 1,
        };
        self.in_flight < width.min(self.limit_width())
    }

    /// The most descents on their way the visit limit allows (see
    /// [`LIMIT_VISITS_PER_EXTRA_DESCENT`]); no bound without a limit (a
    /// budget of `u64::MAX`).
    fn limit_width(&self) -> u32 {
        u32::try_from(1 + self.budget / LIMIT_VISITS_PER_EXTRA_DESCENT).unwrap_or(u32::MAX)
    }

    /// Whether every simulation the budget allows has been claimed (some
    /// may still be on their way, and one withdrawn gives its claim back).
    pub fn budget_claimed(&self) -> bool {
        self.simulations + u64::from(self.in_flight) >= self.budget
    }

    /// Whether every simulation the budget allows has been backed up.
    pub fn budget_spent(&self) -> bool {
        self.simulations >= self.budget
    }
}

impl Tree {
    /// This search's counts, ownership and buckets afresh, with a budget of
    /// `budget` simulations and leaves expanded after `expand_after` visits
    /// (the table is left as it is).
    pub fn start_search(&mut self, budget: u64, expand_after: u32) {
        self.ownership.clear();
        self.playouts = 0;
        self.simulations = 0;
        self.prunes = 0;
        self.in_flight = 0;
        self.waiting = 0;
        self.budget = budget;
        self.expand_after = expand_after;
    }

    /// Forgets every node and what the subtree bias buckets learnt from them.
    pub fn forget_all(&mut self) {
        self.table.clear();
        self.biases.clear();
    }

    /// Empty again, as after [`Tree::try_new`], keeping the table's memory.
    pub fn reset(&mut self) {
        self.forget_all();
        self.start_search(u64::MAX, 2);
    }

    /// A tree over a table of `tt_mb` megabytes.
    ///
    /// # Errors
    /// The table's memory cannot be had.
    pub fn try_new(tt_mb: usize) -> Result<Tree, std::collections::TryReserveError> {
        Ok(Tree {
            table: Table::try_new(tt_mb)?,
            ownership: OwnershipMap::default(),
            playouts: 0,
            simulations: 0,
            expand_after: 2,
            prunes: 0,
            biases: BiasTable::new(),
            recentering: Recentering::default(),
            in_flight: 0,
            budget: u64::MAX,
            waiting: 0,
        })
    }
}

/// The tree behind `tree`'s lock, between searches or at a search's start
/// and end: after a panic in a search thread (which ends that search with the
/// panic), the tree is emptied before it is used again.
pub(super) fn lock(tree: &Mutex<Tree>) -> std::sync::MutexGuard<'_, Tree> {
    crate::sync::lock_or_reset(tree, "search tree", Tree::reset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tt::Edge;

    /// A tree whose root (key `ROOT`) is expanded and holds `visits` visits,
    /// searching under `budget`.
    fn tree_with_root(visits: u32, budget: u64) -> Tree {
        let mut t = Tree::try_new(1).expect("a 1 MB table");
        let slot = t.table.find_or_insert(ROOT, NO_SLOT, &[]).expect("room");
        let edge = Edge {
            point: 1,
            prior_w: 1.0,
            ..Edge::default()
        };
        assert!(t.table.expand(slot, &[edge]));
        t.table.node_mut(slot).child_n = visits;
        t.start_search(budget, 2);
        t
    }

    const ROOT: u64 = 0x5eed;

    /// How many descents may be on their way at once.
    fn width(t: &mut Tree) -> u32 {
        t.in_flight = 0;
        while t.may_descend(ROOT) {
            t.in_flight += 1;
            assert!(t.in_flight < 10_000, "no bound");
        }
        t.in_flight
    }

    #[test]
    fn descents_on_their_way_grow_with_the_root_and_stay_within_the_visit_limit() {
        // Root visits: one more descent for every four.
        assert_eq!(width(&mut tree_with_root(0, u64::MAX)), 1);
        assert_eq!(width(&mut tree_with_root(12, u64::MAX)), 4);
        assert_eq!(width(&mut tree_with_root(400, u64::MAX)), 101);
        // A visit limit holds a big kept tree back: 100 visits, at most 4.
        assert_eq!(width(&mut tree_with_root(400, 100)), 4);
        assert_eq!(width(&mut tree_with_root(400, 31)), 1);
        assert_eq!(width(&mut tree_with_root(400, 1000)), 32);
        // The root's visits still bound a search with a large limit.
        assert_eq!(width(&mut tree_with_root(8, 100_000)), 3);
    }
}
