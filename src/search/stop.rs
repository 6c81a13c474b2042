//! When a search ends: its stop rule, the early stop once the best root move
//! cannot change, and how many leaves the next batch may hold in the time
//! left.

use super::root::Root;
use super::tree::{lock, Tree};
use super::tt::NO_SLOT;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How a search should end.
#[derive(Clone, Copy, Debug)]
pub(super) struct StopRule {
    /// Simulations (visits of the root) this search may run.
    pub(super) visits: Option<u64>,
    pub(super) time: Option<Duration>,
    /// Stop once the most visited move cannot be overtaken in the time
    /// left (only against a clock: a visit limit is searched to its end,
    /// since the move is chosen by more than the visits).
    pub(super) early: bool,
}

/// How many leaves of at most `full` the next batch may hold so that it ends
/// within `limit` (at least one: whether that one still fits is the stop
/// rule's question), each taking about `per_leaf`.
pub(super) fn leaves_in_time(
    per_leaf: Duration,
    limit: Option<Duration>,
    elapsed: Duration,
    full: usize,
) -> usize {
    let full = full.max(1);
    match limit {
        Some(limit) if !per_leaf.is_zero() => {
            let left = limit.saturating_sub(elapsed).as_secs_f64();
            ((left / per_leaf.as_secs_f64()) as usize).clamp(1, full)
        }
        _ => full,
    }
}

/// Whether the limits are reached (the time limit: by the time a next
/// batch taking `next_batch` would end), or the best root move can no
/// longer change.
pub(super) fn should_stop(
    tree: &Mutex<Tree>,
    root: &Root,
    rule: StopRule,
    start: Instant,
    next_batch: Duration,
    iterations: u64,
) -> bool {
    let t = lock(tree);
    let elapsed = start.elapsed();
    // Under a visit limit the search ends once every simulation is backed
    // up, not when the last is claimed: one still on its way may be
    // withdrawn ([`Worker::back_up`](super::mcts::Worker::back_up)) and
    // must be run again.
    if t.budget_spent() || rule.time.is_some_and(|limit| elapsed + next_batch >= limit) {
        return true;
    }
    if !rule.early || !iterations.is_multiple_of(32) {
        return false;
    }
    let Some(slot) = t.table.find(root.key, NO_SLOT) else {
        return false;
    };
    let (mut best, mut second, mut choices) = (0u64, 0u64, 0);
    for e in t.table.edges(slot) {
        if !root.searches(e.point) {
            continue;
        }
        choices += 1;
        let v = e.visits as u64;
        if v > best {
            second = best;
            best = v;
        } else if v > second {
            second = v;
        }
    }
    if choices <= 1 {
        return true;
    }
    let mut remaining = u64::MAX;
    if let Some(n) = rule.visits {
        remaining = n.saturating_sub(t.simulations);
    }
    if let Some(limit) = rule.time {
        let rate = t.simulations as f64 / elapsed.as_secs_f64().max(1e-6);
        let left = limit.saturating_sub(elapsed).as_secs_f64();
        remaining = remaining.min((rate * left) as u64);
    }
    best > second + remaining
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_batch_holds_the_leaves_that_end_in_time() {
        let ms = Duration::from_millis;
        // 2 s a move, 0.25 s a leaf: a full batch of 4 while a second is left,
        // 3 leaves with 0.8 s left, then 1 (the stop rule decides on that one).
        assert_eq!(leaves_in_time(ms(250), Some(ms(2000)), ms(500), 4), 4);
        assert_eq!(leaves_in_time(ms(250), Some(ms(2000)), ms(1200), 4), 3);
        assert_eq!(leaves_in_time(ms(250), Some(ms(2000)), ms(1900), 4), 1);
        assert_eq!(leaves_in_time(ms(250), Some(ms(2000)), ms(2500), 4), 1);
        // No clock, or no measure yet: the full batch.
        assert_eq!(leaves_in_time(ms(250), None, ms(1900), 4), 4);
        assert_eq!(leaves_in_time(ms(0), Some(ms(2000)), ms(1900), 8), 8);
        assert_eq!(leaves_in_time(ms(1), Some(ms(2000)), ms(0), 0), 1);
    }
}
