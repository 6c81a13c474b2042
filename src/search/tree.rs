//! The state the search threads share behind one mutex: the table, this
//! search's counts and ownership, and the budget each descent claims a
//! simulation from.

use super::ownership::OwnershipMap;
use super::recenter::Recentering;
use super::subtree_bias::BiasTable;
use super::tt::{Table, NO_SLOT};
use std::sync::Mutex;
use std::time::{Duration, Instant};

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
    /// The clock this search runs against, if any.
    pub clock: Option<Clock>,
    /// How long a leaf took the evaluator in the batch last backed up
    /// (zero until one is).
    pub per_leaf: Duration,
}

/// A search's clock: when it must end, and how many threads search until then.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    pub deadline: Instant,
    pub threads: usize,
}

impl Clock {
    /// Simulations a search that has run `simulations` may expect to run in
    /// all when each leaf takes `per_leaf`: in the time left, one a leaf on
    /// every thread (what the search would run were its descents not held
    /// back while the tree is young). 0 while no leaf has been timed.
    pub fn expected_simulations(&self, simulations: u64, now: Instant, per_leaf: Duration) -> u64 {
        if per_leaf.is_zero() {
            return 0;
        }
        let left = self.deadline.saturating_duration_since(now).as_secs_f64();
        let more = left / per_leaf.as_secs_f64() * self.threads as f64;
        simulations.saturating_add(more.min(1e18) as u64)
    }
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
/// A search under a clock is allowed the same share of the simulations it
/// is expected to run ([`Clock::expected_simulations`]), so that a long search on a slow
/// net on many threads does not spend its first few hundred visits narrow.
pub const LIMIT_VISITS_PER_EXTRA_DESCENT: u64 = 32;

/// The most descents on their way in a search of `simulations` (see
/// [`LIMIT_VISITS_PER_EXTRA_DESCENT`]).
fn width_for(simulations: u64) -> u32 {
    u32::try_from(1 + simulations / LIMIT_VISITS_PER_EXTRA_DESCENT).unwrap_or(u32::MAX)
}

impl Tree {
    /// Whether one more simulation may start now: the budget has room, and
    /// fewer descents are on their way than the root's visits allow (one
    /// until the root has edges; see [`VISITS_PER_EXTRA_DESCENT`]) or the
    /// simulations a search under a clock expects to run allow, and than
    /// the visit limit allows ([`LIMIT_VISITS_PER_EXTRA_DESCENT`]).
    pub fn may_descend(&self, root_key: u64) -> bool {
        if self.budget_claimed() {
            return false;
        }
        let by_root = match self
            .table
            .find(root_key, NO_SLOT)
            .map(|s| self.table.node(s))
        {
            Some(node) if node.is_expanded() => 1 + node.visits() / VISITS_PER_EXTRA_DESCENT,
            _ => 1,
        };
        let limit = self.limit_width();
        if self.in_flight < by_root.min(limit) {
            return true;
        }
        // Only a search held back by its root asks the clock (and reads it).
        let by_clock = self.clock.map_or(1, |clock| {
            width_for(clock.expected_simulations(self.simulations, Instant::now(), self.per_leaf))
        });
        self.in_flight < by_clock.min(limit)
    }

    /// The most descents on their way the visit limit allows (see
    /// [`LIMIT_VISITS_PER_EXTRA_DESCENT`]); no bound without a limit (a
    /// budget of `u64::MAX`).
    fn limit_width(&self) -> u32 {
        width_for(self.budget)
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
    /// `budget` simulations, leaves expanded after `expand_after` visits
    /// and `clock`, if any (the table is left as it is).
    pub fn start_search(&mut self, budget: u64, expand_after: u32, clock: Option<Clock>) {
        self.clock = clock;
        self.ownership.clear();
        self.playouts = 0;
        self.simulations = 0;
        self.prunes = 0;
        self.in_flight = 0;
        self.waiting = 0;
        self.per_leaf = Duration::ZERO;
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
        self.start_search(u64::MAX, 2, None);
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
            clock: None,
            per_leaf: Duration::ZERO,
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
        t.start_search(budget, 2, None);
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

    #[test]
    fn a_search_under_a_clock_opens_as_wide_as_the_time_left_allows() {
        // 2 s left on 16 threads at 30 ms a leaf: about 1,070 simulations
        // to come, so 34 on their way at once, though the root holds one.
        let clock = Clock {
            deadline: Instant::now() + Duration::from_secs(2),
            threads: 16,
        };
        let mut t = tree_with_root(1, u64::MAX);
        t.clock = Some(clock);
        assert_eq!(width(&mut t), 1, "no leaf timed yet");
        t.per_leaf = Duration::from_millis(30);
        assert!((33..=34).contains(&width(&mut t)), "{}", width(&mut t));
        // A visit limit still bounds it, and a slow leaf near the end
        // leaves the root's own bound.
        t.budget = 100;
        assert_eq!(width(&mut t), 4);
        t.budget = u64::MAX;
        t.per_leaf = Duration::from_secs(2);
        assert_eq!(width(&mut t), 1);
        // What the clock expects: the simulations run, and those to come.
        let now = clock.deadline - Duration::from_millis(300);
        let expected = clock.expected_simulations(50, now, Duration::from_millis(30));
        assert!((209..=210).contains(&expected), "{expected}");
        assert_eq!(
            clock.expected_simulations(50, clock.deadline, Duration::from_millis(30)),
            50
        );
        assert_eq!(clock.expected_simulations(50, now, Duration::ZERO), 0);
    }
}
