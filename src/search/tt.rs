//! The transposition table: a fixed-size array of nodes addressed by search key,
//! plus an arena holding the edges (candidate moves) of expanded nodes.
//!
//! - Memory is fixed at creation (`tt_mb`): a quarter for node slots (buckets of
//!   [`BUCKET`] slots), the rest for edges. Nothing grows during a search; when
//!   the edge arena is full, [`Table::prune`] turns the less visited half of the
//!   expanded nodes back into leaves (the search then expands more sparingly).
//! - A slot stores the node's full 64-bit key as its check key; the index uses
//!   the low bits only, so a probe compares the stored key to detect index
//!   collisions.
//! - Replacement: a new key goes to an empty slot of its bucket, else replaces
//!   the entry worth least: fewest visits, entries from older searches counting
//!   a sixteenth. Slots on the current search path are never replaced.
//! - The table is kept between moves. [`Table::compact`] (called before a
//!   search when the arena is half full) keeps the nodes reachable from the
//!   new root, slides their edges down the arena in place, and turns every
//!   other expanded node back into a leaf (its children's statistics folded
//!   into its own). With
//!   [`SearchConfig::drop_unreachable`](super::config::SearchConfig::drop_unreachable),
//!   [`Table::retain_reachable`] instead forgets every other node before each
//!   search, as KataGo does.
//!
//! Values are Black's winning probability, so a node means the same thing
//! whichever path reached it.

use super::subtree_bias::Contribution;
use super::value_weight::{Child, ValueShaping};
use crate::go::board::{Color, Move, Point};
use rustc_hash::FxHashSet;

/// Slots per bucket.
pub const BUCKET: usize = 4;
/// The `point` of a pass edge.
pub const PASS: u16 = 0;
/// A slot index meaning "none".
pub const NO_SLOT: u32 = u32::MAX;

/// The move of an edge's `point` ([`PASS`] or a board point's index).
#[inline]
pub(super) fn point_move(point: u16) -> Move {
    if point == PASS {
        Move::Pass
    } else {
        Move::Play(Point::from_index(point as usize))
    }
}

/// A position of the search. See the module documentation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Node {
    /// Full search key (check key); 0 = empty slot.
    pub key: u64,
    /// Playouts evaluated at this node itself (as a leaf or terminal).
    pub own_n: u32,
    /// The sum of those playouts' weights (each 1 without uncertainty
    /// weighting; see [`super::uncertainty`]).
    pub own_w: f64,
    /// Sum of Black's results of those playouts, each times its weight.
    pub own_sum: f64,
    /// Sum of edge visits.
    pub child_n: u32,
    /// Sum of edge weights (as `child_n` without uncertainty weighting).
    pub child_w: f64,
    /// Sum over edges of `weight * child_q` (recomputed from the children
    /// on every backup through the node).
    pub child_sum: f64,
    /// Sum and count of the final margins (Black's, komi included) of every
    /// playout through the node.
    pub score_sum: f64,
    pub score_n: u32,
    /// Sum of the expected squared margins of those results (a network's
    /// variance included), for the score's standard deviation.
    pub score_sq_sum: f64,
    /// Sum of Black's winning chances of those results (a playout's 1, ½ or
    /// 0; a network's win probability).
    pub win_sum: f64,
    /// Sum of Black's expected leads of those results (a playout's margin; a
    /// network's lead head).
    pub lead_sum: f64,
    /// Sum of the squares of Black's values of those results, for the spread
    /// of the values below the node: the root's moves are chosen by lower
    /// confidence bounds of their values, and PUCT can scale its exploration
    /// by it (`--stdev-scale`).
    pub value_sq_sum: f64,
    /// The node's edges in the arena (`edges_len == 0`: not expanded).
    pub edges_start: u32,
    pub edges_len: u16,
    /// Search number of the last search that touched the node.
    pub generation: u16,
    /// The node's subtree-bias bucket, and the correction it gives the
    /// node's own evaluations ([`super::subtree_bias`]).
    pub bias: Contribution,
    /// The score of the node's own evaluation, from which its value can be
    /// recomputed about another score center ([`super::recenter`]).
    pub own_score: OwnScore,
}

// Nodes fill the table's buckets: keep them at 128 bytes.
const _: () = assert!(std::mem::size_of::<Node>() == 128);

/// Black's mean margin and its standard deviation of a node's own
/// evaluation (a network's, or a counted end's with no deviation), in
/// 1/32 points, in the four bytes a node has to spare; or unknown, where
/// the node's own results cannot be recomputed from one score (playouts,
/// folded children).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OwnScore {
    margin: i16,
    stdev: u16,
}

impl OwnScore {
    const STEPS_PER_POINT: f64 = 32.0;
    pub const UNKNOWN: OwnScore = OwnScore {
        margin: 0,
        stdev: u16::MAX,
    };

    /// The score, rounded to 1/32 point (margins beyond ±1023 points and
    /// deviations beyond 2047 are clamped).
    pub fn new(margin: f64, stdev: f64) -> OwnScore {
        let steps = |x: f64, lo: f64, hi: f64| (x * Self::STEPS_PER_POINT).round().clamp(lo, hi);
        OwnScore {
            margin: steps(margin, f64::from(i16::MIN), f64::from(i16::MAX)) as i16,
            stdev: steps(stdev, 0.0, f64::from(u16::MAX - 1)) as u16,
        }
    }

    /// Margin and deviation, in points; `None` if unknown.
    pub fn get(self) -> Option<(f64, f64)> {
        (self.stdev != u16::MAX).then(|| {
            (
                f64::from(self.margin) / Self::STEPS_PER_POINT,
                f64::from(self.stdev) / Self::STEPS_PER_POINT,
            )
        })
    }
}

impl Default for OwnScore {
    fn default() -> Self {
        OwnScore::UNKNOWN
    }
}

impl Node {
    /// N: visits of the node.
    #[inline]
    pub fn visits(&self) -> u32 {
        self.own_n + self.child_n
    }

    /// W: the weight of the node's visits (its visits without uncertainty
    /// weighting).
    #[inline]
    pub fn weight(&self) -> f64 {
        self.own_w + self.child_w
    }

    /// The mean weight of one of the node's visits (1 with none): what a
    /// transposition to it weighs in its parents.
    #[inline]
    pub fn weight_per_visit(&self) -> f64 {
        let n = self.visits();
        if n == 0 || self.weight() <= 0.0 {
            1.0
        } else {
            self.weight() / f64::from(n)
        }
    }

    /// Q: Black's value, or 0.5 with no visits: the winning probability,
    /// blended with the margin by
    /// [`SearchConfig::score_weight`](super::config::SearchConfig::score_weight);
    /// the weighted mean of the node's own evaluations, corrected by its
    /// subtree bias, and its children's values.
    #[inline]
    pub fn value(&self) -> f64 {
        let w = self.weight();
        if self.visits() == 0 || w <= 0.0 {
            0.5
        } else {
            let own = self.own_sum + self.own_w * f64::from(self.bias.bias);
            ((own + self.child_sum) / w).clamp(0.0, 1.0)
        }
    }

    /// Black's value of the node's own evaluations (the network's, with a
    /// network), without its children's and without the subtree bias
    /// correction (as KataGo's first-play urgency reads the net's own
    /// utility): `None` before any.
    pub fn own_value(&self) -> Option<f64> {
        (self.own_n > 0 && self.own_w > 0.0).then(|| (self.own_sum / self.own_w).clamp(0.0, 1.0))
    }

    /// `sum` divided by the results through the node (0 with none).
    #[inline]
    fn per_result(&self, sum: f64) -> f64 {
        if self.score_n == 0 {
            0.0
        } else {
            sum / self.score_n as f64
        }
    }

    /// Mean final margin for Black.
    #[inline]
    pub fn score(&self) -> f64 {
        self.per_result(self.score_sum)
    }

    /// Counts one result through the node.
    #[inline]
    pub fn record(&mut self, o: &Outcome) {
        self.score_sum += o.margin;
        self.score_sq_sum += o.margin_sq;
        self.win_sum += o.win;
        self.lead_sum += o.lead;
        self.value_sq_sum += o.value_sq;
        self.score_n += 1;
    }

    /// The mean of the results through the node (what a transposition
    /// backs up).
    pub fn mean_outcome(&self) -> Outcome {
        Outcome {
            margin: self.score(),
            margin_sq: self.score_sq_mean(),
            win: self.win_rate(),
            lead: self.per_result(self.lead_sum),
            value_sq: self.value_sq_mean(),
        }
    }

    /// Black's mean winning chance over the results through the node (½
    /// with none).
    #[inline]
    pub fn win_rate(&self) -> f64 {
        if self.score_n == 0 {
            0.5
        } else {
            self.win_sum / self.score_n as f64
        }
    }

    /// Mean squared margin over the results through the node.
    #[inline]
    pub fn score_sq_mean(&self) -> f64 {
        self.per_result(self.score_sq_sum)
    }

    /// Standard deviation of Black's margin over the results through the node.
    #[inline]
    pub fn score_stdev(&self) -> f64 {
        if self.score_n == 0 {
            return 0.0;
        }
        let mean = self.score();
        (self.score_sq_mean() - mean * mean).max(0.0).sqrt()
    }

    /// Mean square of Black's values over the results through the node.
    #[inline]
    pub fn value_sq_mean(&self) -> f64 {
        self.per_result(self.value_sq_sum)
    }

    /// The variance of Black's values over the results through the node
    /// (whose `edges` are given): their mean square less the square of their
    /// plain mean, its own evaluations and its children's values weighted
    /// by visits. Not about [`Node::value`]: that leans toward the better
    /// children (value weighting, noise pruning), and the squares are per
    /// result, so about it the variance came out below zero wherever the
    /// children differed.
    pub fn value_variance(&self, edges: &[Edge]) -> f64 {
        if self.score_n == 0 {
            return 0.0;
        }
        let (mut weight, mut sum) = (self.own_w, self.own_sum);
        for e in edges.iter().filter(|e| e.visits > 0) {
            weight += f64::from(e.weight);
            sum += f64::from(e.weight) * f64::from(e.child_q);
        }
        if weight <= 0.0 {
            return 0.0;
        }
        let mean = sum / weight;
        (self.value_sq_mean() - mean * mean).max(0.0)
    }

    #[inline]
    pub fn is_expanded(&self) -> bool {
        self.edges_len > 0
    }

    /// Forgets the node's edges: their statistics become the node's own.
    fn fold_children(&mut self) {
        self.own_n += self.child_n;
        self.own_w += self.child_w;
        self.own_sum += self.child_sum;
        // Folded children are not the node's own evaluations.
        self.bias = Contribution::default();
        self.own_score = OwnScore::UNKNOWN;
        self.child_n = 0;
        self.child_w = 0.0;
        self.child_sum = 0.0;
        self.edges_len = 0;
        self.edges_start = 0;
    }
}

/// One result as the nodes above a leaf count it, all from Black's view.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Expected margin (komi included) and its expected square.
    pub margin: f64,
    pub margin_sq: f64,
    /// Winning chance, 0..=1.
    pub win: f64,
    /// Expected lead in points.
    pub lead: f64,
    /// The square of Black's value of the result (its mean square, for a
    /// mean of results).
    pub value_sq: f64,
}

/// A move from a node: the per-edge statistics of graph search, AMAF and prior.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Edge {
    /// Cell index of the move, [`PASS`] for a pass.
    pub point: u16,
    /// Playouts that went through this edge (parent→child visits).
    pub visits: u32,
    /// The sum of those playouts' weights (as `visits` without uncertainty
    /// weighting): what PUCT and the parent's value count the edge for.
    pub weight: f32,
    /// Playouts in flight through this edge (virtual loss).
    pub in_flight: u8,
    /// The edge has led to more than one child: under superko, a capture from
    /// a node reached by different move orders leads to positions with
    /// different histories, hence different nodes (see [`super::key`]). Such
    /// an edge keeps its own running mean in `child_q` instead of reading one
    /// child's value, and never stops a descent as a transposition.
    pub multi_child: bool,
    /// Prior as pseudo-playouts and pseudo-wins for the mover.
    pub prior_n: f32,
    pub prior_w: f32,
    /// AMAF (RAVE) playouts and wins for the mover.
    pub amaf_n: f32,
    pub amaf_w: f32,
    /// The child's value (Black's) when last seen.
    pub child_q: f32,
    /// The child's key once the edge has been followed (0 before).
    pub child_key: u64,
    /// Where the child was last found ([`NO_SLOT`] before).
    pub child_slot: u32,
}

impl Edge {
    pub fn new(point: u16, prior_n: f32, prior_w: f32) -> Edge {
        Edge {
            point,
            prior_n,
            prior_w,
            child_slot: NO_SLOT,
            ..Edge::default()
        }
    }
}

// Edges are most of the memory: keep them at 48 bytes.
const _: () = assert!(std::mem::size_of::<Edge>() == 48);

/// See the module documentation.
pub struct Table {
    slots: Vec<Node>,
    bucket_mask: usize,
    edges: Vec<Edge>,
    edge_capacity: usize,
    /// The slots holding a node, each once (room for every slot is reserved
    /// at creation), so that forgetting the nodes a root cannot reach visits
    /// the nodes there are, not the whole array.
    in_use: Vec<u32>,
    generation: u16,
    /// Scratch for [`Table::refresh`]'s child weighting.
    children: Vec<Child>,
}

impl Table {
    /// A table using about `mb` megabytes (at least one bucket and a thousand
    /// edges; at most 1 TB).
    ///
    /// # Panics
    /// If the memory cannot be had; see [`Table::try_new`].
    pub fn new(mb: usize) -> Table {
        Table::try_new(mb).unwrap_or_else(|e| panic!("transposition table of {mb} MB: {e}"))
    }

    /// Like [`Table::new`], but memory that cannot be had is an error, not an abort.
    ///
    /// # Errors
    /// The allocation failed.
    pub fn try_new(mb: usize) -> Result<Table, std::collections::TryReserveError> {
        let bytes = mb.clamp(1, 1 << 20) << 20;
        let bucket_bytes = BUCKET * std::mem::size_of::<Node>();
        let buckets = ((bytes / 4) / bucket_bytes).max(1);
        let buckets = 1usize << (usize::BITS - 1 - buckets.leading_zeros());
        let edge_capacity =
            ((bytes - buckets * bucket_bytes) / std::mem::size_of::<Edge>()).max(1024);
        let mut slots = Vec::new();
        slots.try_reserve_exact(buckets * BUCKET)?;
        slots.resize(buckets * BUCKET, Node::default());
        let mut edges = Vec::new();
        edges.try_reserve_exact(edge_capacity)?;
        let mut in_use = Vec::new();
        in_use.try_reserve_exact(slots.len())?;
        Ok(Table {
            slots,
            bucket_mask: buckets - 1,
            edges,
            edge_capacity,
            in_use,
            generation: 1,
            children: Vec::with_capacity(crate::go::board::CELLS + 1),
        })
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.slots.fill(Node::default());
        self.edges.clear();
        self.in_use.clear();
    }

    /// Starts a new search (ages the entries of earlier ones).
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1).max(1);
    }

    /// Number of node slots.
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// The slots holding a node.
    pub fn occupied(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.slots.len() as u32).filter(|&s| self.slots[s as usize].key != 0)
    }

    /// Whether the arena has room for `n` more edges.
    pub fn has_room(&self, n: usize) -> bool {
        self.edges.len() + n <= self.edge_capacity
    }

    /// Fraction of the edge arena in use.
    pub fn edge_usage(&self) -> f64 {
        self.edges.len() as f64 / self.edge_capacity as f64
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        (key as usize & self.bucket_mask) * BUCKET
    }

    /// The slot holding `key`, trying `hint` first.
    #[inline]
    pub fn find(&self, key: u64, hint: u32) -> Option<u32> {
        if (hint as usize) < self.slots.len() && self.slots[hint as usize].key == key {
            return Some(hint);
        }
        let b = self.bucket(key);
        (b..b + BUCKET)
            .find(|&i| self.slots[i].key == key)
            .map(|i| i as u32)
    }

    /// The slot holding `key`, creating a fresh node if needed (replacing the
    /// least valuable entry of the bucket, never one in `protect`). `None` if
    /// every slot of the bucket is protected.
    pub fn find_or_insert(&mut self, key: u64, hint: u32, protect: &[u32]) -> Option<u32> {
        if let Some(s) = self.find(key, hint) {
            self.slots[s as usize].generation = self.generation;
            return Some(s);
        }
        let b = self.bucket(key);
        let generation = self.generation;
        let worth = |n: &Node| -> u64 {
            if n.key == 0 {
                return 0;
            }
            let v = n.visits() as u64 + 1;
            if n.generation == generation {
                v * 16
            } else {
                v
            }
        };
        let victim = (b..b + BUCKET)
            .filter(|i| !protect.contains(&(*i as u32)))
            .min_by_key(|&i| worth(&self.slots[i]))?;
        if self.slots[victim].key == 0 {
            self.in_use.push(victim as u32);
        }
        self.slots[victim] = Node {
            key,
            generation,
            ..Node::default()
        };
        Some(victim as u32)
    }

    #[inline]
    pub fn node(&self, slot: u32) -> &Node {
        &self.slots[slot as usize]
    }

    #[inline]
    pub fn node_mut(&mut self, slot: u32) -> &mut Node {
        &mut self.slots[slot as usize]
    }

    /// The edges of the node in `slot`.
    #[inline]
    pub fn edges(&self, slot: u32) -> &[Edge] {
        let n = &self.slots[slot as usize];
        &self.edges[n.edges_start as usize..n.edges_start as usize + n.edges_len as usize]
    }

    /// The node in `slot` and its edges, both mutable.
    #[inline]
    pub fn node_and_edges_mut(&mut self, slot: u32) -> (&mut Node, &mut [Edge]) {
        let n = &mut self.slots[slot as usize];
        let range = n.edges_start as usize..n.edges_start as usize + n.edges_len as usize;
        (n, &mut self.edges[range])
    }

    /// Recomputes the node's child statistics from its edges, as graph search
    /// requires: `child_n = Σ edge visits`, `child_w = Σ edge weights`,
    /// `child_sum = child_w · Q̄`, where `Q̄` is the children's mean value
    /// (Black's), each weighted by its edge's weight, or with `shaping` by
    /// the weights
    /// [`ValueShaping::mean`] gives them for `mover`, the player choosing
    /// among them. With `reread`, each visited edge first re-reads its
    /// child's current value (transpositions may have changed it through
    /// another parent).
    pub fn refresh(&mut self, slot: u32, reread: bool, shaping: Option<(Color, &ValueShaping)>) {
        let n = self.slots[slot as usize];
        let range = n.edges_start as usize..n.edges_start as usize + n.edges_len as usize;
        let (mut visits, mut weight, mut sum) = (0u32, 0.0f64, 0.0f64);
        self.children.clear();
        for e in &mut self.edges[range] {
            if e.visits == 0 {
                continue;
            }
            if reread && e.child_key != 0 && !e.multi_child {
                let hint = e.child_slot as usize;
                let child = if hint < self.slots.len() && self.slots[hint].key == e.child_key {
                    Some(&self.slots[hint])
                } else {
                    let b = (e.child_key as usize & self.bucket_mask) * BUCKET;
                    self.slots[b..b + BUCKET]
                        .iter()
                        .find(|c| c.key == e.child_key)
                };
                if let Some(c) = child {
                    if c.visits() > 0 {
                        e.child_q = c.value() as f32;
                    }
                }
            }
            visits += e.visits;
            weight += f64::from(e.weight);
            sum += f64::from(e.weight) * e.child_q as f64;
            if let Some((mover, _)) = shaping {
                let q = e.child_q as f64;
                self.children.push(Child {
                    prior: e.prior_w,
                    value: if mover == Color::Black { q } else { 1.0 - q },
                    visits: f64::from(e.weight),
                    tag: 0,
                });
            }
        }
        if let Some((mover, shaping)) = shaping.filter(|(_, s)| s.is_active()) {
            if self.children.len() >= 2 {
                let mean = shaping.mean(&mut self.children);
                let black_mean = if mover == Color::Black {
                    mean
                } else {
                    1.0 - mean
                };
                sum = weight * black_mean;
            }
        }
        let n = &mut self.slots[slot as usize];
        n.child_n = visits;
        n.child_w = weight;
        n.child_sum = sum;
    }

    /// Gives the leaf in `slot` the edges `new`; false if the arena is full (or
    /// `new` is empty or too long), and the node stays a leaf.
    pub fn expand(&mut self, slot: u32, new: &[Edge]) -> bool {
        if new.is_empty()
            || new.len() > u16::MAX as usize
            || self.edges.len() + new.len() > self.edge_capacity
            || self.slots[slot as usize].is_expanded()
        {
            return false;
        }
        let start = self.edges.len() as u32;
        self.edges.extend_from_slice(new);
        let n = &mut self.slots[slot as usize];
        n.edges_start = start;
        n.edges_len = new.len() as u16;
        // Statistics gathered as a leaf stay as the node's own evaluations.
        true
    }

    /// Keeps the subgraph reachable from `root` and frees the rest of the arena
    /// (see the module documentation); `fold` sees each node before its
    /// children are folded into it. Returns the number of nodes kept.
    pub fn compact(&mut self, root: u32, mut fold: impl FnMut(&Node)) -> usize {
        let reachable = self.reachable_from(root);
        self.keep_edges_of(|slot, _| reachable.contains(&slot), &mut fold);
        reachable.len()
    }

    /// Keeps the subgraph reachable from `root` and forgets every other node,
    /// as KataGo deletes the nodes its new root cannot reach: a position met
    /// again by another move order is then searched afresh, not from the
    /// values of a search about another root (its evaluation stays in the
    /// evaluation cache); `forget` sees each node before it goes. With no
    /// `root`, forgets everything. Returns the number of nodes kept.
    pub fn retain_reachable(&mut self, root: Option<u32>, mut forget: impl FnMut(&Node)) -> usize {
        let reachable = root.map(|r| self.reachable_from(r)).unwrap_or_default();
        // Every unreachable node is forgotten below, expanded or not.
        self.keep_edges_of(|slot, _| reachable.contains(&slot), &mut |_| {});
        let slots = &mut self.slots;
        self.in_use.retain(|&slot| {
            let kept = reachable.contains(&slot);
            if !kept {
                forget(&slots[slot as usize]);
                slots[slot as usize] = Node::default();
            }
            kept
        });
        reachable.len()
    }

    /// The slots of the nodes reachable from `root` through expanded edges.
    fn reachable_from(&self, root: u32) -> FxHashSet<u32> {
        let mut reachable = FxHashSet::default();
        let mut stack = vec![root];
        reachable.insert(root);
        while let Some(s) = stack.pop() {
            for e in self.edges(s) {
                if e.child_key == 0 {
                    continue;
                }
                if let Some(c) = self.find(e.child_key, e.child_slot) {
                    if reachable.insert(c) {
                        stack.push(c);
                    }
                }
            }
        }
        reachable
    }

    /// Frees about half the arena during a search: the expanded nodes with the
    /// fewest visits (below the median) become leaves again, their children's
    /// statistics folded into their own; `fold` sees each before. `keep`
    /// (the root) is never pruned. Returns the number of nodes pruned.
    pub fn prune(&mut self, keep: u32, mut fold: impl FnMut(&Node)) -> usize {
        let mut visits: Vec<u32> = self
            .in_use
            .iter()
            .map(|&s| &self.slots[s as usize])
            .filter(|n| n.is_expanded())
            .map(|n| n.visits())
            .collect();
        if visits.is_empty() {
            return 0;
        }
        let mid = visits.len() / 2;
        let (_, &mut median, _) = visits.select_nth_unstable(mid);
        let before = self.edges.len();
        let mut pruned = 0;
        self.keep_edges_of(
            |slot, node| {
                let keep_it = slot == keep || node.visits() > median;
                pruned += !keep_it as usize;
                keep_it
            },
            &mut fold,
        );
        if self.edges.len() == before {
            // Every node had the median count: drop all but `keep`.
            self.keep_edges_of(|slot, _| slot == keep, &mut fold);
        }
        pruned
    }

    /// Keeps the edges of the expanded nodes `keep` accepts, sliding them down
    /// the arena in place; every other expanded node becomes a leaf, seen by
    /// `fold` first (its subtree bias part is dropped with its children).
    fn keep_edges_of(
        &mut self,
        mut keep: impl FnMut(u32, &Node) -> bool,
        fold: &mut impl FnMut(&Node),
    ) {
        let mut kept: Vec<u32> = Vec::new();
        for &i in &self.in_use {
            let node = &self.slots[i as usize];
            if !node.is_expanded() {
                continue;
            }
            if keep(i, node) {
                kept.push(i);
            } else {
                fold(node);
                self.slots[i as usize].fold_children();
            }
        }
        kept.sort_by_key(|&s| self.slots[s as usize].edges_start);
        let mut top = 0usize;
        for s in kept {
            let n = &mut self.slots[s as usize];
            let (start, len) = (n.edges_start as usize, n.edges_len as usize);
            self.edges.copy_within(start..start + len, top);
            n.edges_start = top as u32;
            top += len;
        }
        self.edges.truncate(top);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_checks_the_full_key_and_replacement_keeps_visited_entries() {
        let mut t = Table::new(1);
        let buckets = t.slot_count() / BUCKET;
        // Five keys in the same bucket: the fifth replaces the least visited.
        let keys: Vec<u64> = (1..=5).map(|i| 7 + (i * buckets) as u64).collect();
        let mut slots = Vec::new();
        for (i, &k) in keys[..4].iter().enumerate() {
            let s = t.find_or_insert(k, NO_SLOT, &[]).unwrap();
            t.node_mut(s).own_n = 10 + i as u32;
            slots.push(s);
        }
        t.node_mut(slots[2]).own_n = 1;
        for &k in &keys[..4] {
            assert!(t.find(k, NO_SLOT).is_some());
        }
        assert_eq!(t.find(keys[4], NO_SLOT), None, "same index, other key");
        // Protecting the weakest entry moves the choice to the next weakest.
        let s = t.find_or_insert(keys[4], NO_SLOT, &[slots[2]]).unwrap();
        assert_eq!(s, slots[0]);
        assert_in_use_is_occupied(&t);
        assert_eq!(t.find(keys[0], NO_SLOT), None);
        assert!(t.find(keys[2], NO_SLOT).is_some());
        // An entry of an older search counts a sixteenth: it goes before a
        // fresher one with fewer visits.
        t.new_search();
        let old = t.find(keys[4], NO_SLOT).unwrap();
        t.node_mut(old).own_n = 20;
        let fresh = t.find_or_insert(keys[2], NO_SLOT, &[]).unwrap();
        t.node_mut(fresh).own_n = 5;
        for k in [keys[1], keys[3]] {
            let s = t.find(k, NO_SLOT).unwrap();
            t.node_mut(s).own_n = 1000;
        }
        let s = t.find_or_insert(keys[0], NO_SLOT, &[]).unwrap();
        assert_eq!(s, old);
        assert!(t.find(keys[2], NO_SLOT).is_some());
    }

    #[test]
    fn pruning_keeps_the_most_visited_nodes_and_the_root() {
        let mut t = Table::new(1);
        let mut slots = Vec::new();
        for k in 1..=6u64 {
            let s = t.find_or_insert(k * 977, NO_SLOT, &[]).unwrap();
            assert!(t.expand(s, &[Edge::new(k as u16, 1.0, 0.5); 2]));
            let (n, e) = t.node_and_edges_mut(s);
            e[0].visits = k as u32;
            e[0].weight = k as f32;
            e[0].child_q = 1.0;
            n.own_n = 1;
            n.own_w = 1.0;
            t.refresh(s, false, None);
            slots.push(s);
        }
        // Visits 2..=7: the median is 5; the root (least visited) stays.
        let mut folded = Vec::new();
        assert_eq!(t.prune(slots[0], |n| folded.push(n.key)), 3);
        assert_eq!(folded, [2 * 977, 3 * 977, 4 * 977]);
        assert_in_use_is_occupied(&t);
        let expanded: Vec<bool> = slots.iter().map(|&s| t.node(s).is_expanded()).collect();
        assert_eq!(expanded, [true, false, false, false, true, true]);
        assert_eq!(t.edges(slots[5])[0].point, 6);
        assert_eq!(t.edges(slots[0])[0].point, 1);
        assert_eq!((t.edge_usage() * t.edge_capacity as f64).round(), 6.0);
        let folded = t.node(slots[2]);
        assert_eq!((folded.visits(), folded.value()), (4, 0.75));
    }

    #[test]
    fn compaction_keeps_reachable_nodes_and_folds_the_rest() {
        let mut t = Table::new(1);
        let root = t.find_or_insert(11, NO_SLOT, &[]).unwrap();
        let child = t.find_or_insert(12, NO_SLOT, &[]).unwrap();
        let orphan = t.find_or_insert(13, NO_SLOT, &[]).unwrap();
        assert!(t.expand(orphan, &[Edge::new(5, 1.0, 0.5); 3]));
        assert!(t.expand(root, &[Edge::new(6, 1.0, 0.5), Edge::new(7, 1.0, 0.5)]));
        assert!(t.expand(child, &[Edge::new(8, 1.0, 0.5)]));
        {
            let (n, e) = t.node_and_edges_mut(root);
            e[0].child_key = 12;
            e[0].visits = 3;
            e[0].weight = 3.0;
            e[0].child_q = 1.0;
            n.child_n = 3;
            n.child_w = 3.0;
            n.child_sum = 3.0;
        }
        {
            let (n, _) = t.node_and_edges_mut(orphan);
            n.child_n = 4;
            n.child_w = 4.0;
            n.child_sum = 1.0;
        }
        let mut folded = Vec::new();
        assert_eq!(t.compact(root, |n| folded.push(n.key)), 2);
        assert_eq!(folded, [13]);
        assert_eq!(t.edges(root).len(), 2);
        assert_eq!(t.edges(root)[1].point, 7);
        assert_eq!(t.edges(child)[0].point, 8);
        assert_eq!((t.edge_usage() * t.edge_capacity as f64).round(), 3.0);
        let o = t.node(orphan);
        assert!(!o.is_expanded());
        assert_eq!((o.own_n, o.own_w, o.own_sum), (4, 4.0, 1.0));
        assert_eq!(t.node(root).value(), 1.0);
    }

    /// The list of slots in use is the slots holding a key, each once.
    fn assert_in_use_is_occupied(t: &Table) {
        let mut listed = t.in_use.clone();
        listed.sort_unstable();
        assert_eq!(listed, t.occupied().collect::<Vec<_>>());
    }

    /// The variance of the results is about their own mean, not about the
    /// node's value, which the value weighting leans toward the better child.
    #[test]
    fn the_variance_of_the_results_is_about_their_plain_mean() {
        let mut t = Table::new(1);
        let s = t.find_or_insert(5, NO_SLOT, &[]).unwrap();
        assert!(t.expand(s, &[Edge::new(1, 0.5, 0.5), Edge::new(2, 0.5, 0.5)]));
        // One own result of 0.5, three of 0.2 below one child, three of 0.8
        // below the other.
        let results = [0.5, 0.2, 0.2, 0.2, 0.8, 0.8, 0.8];
        let (node, edges) = t.node_and_edges_mut(s);
        for (e, q) in edges.iter_mut().zip([0.2f32, 0.8]) {
            e.visits = 3;
            e.weight = 3.0;
            e.child_q = q;
        }
        node.own_n = 1;
        node.own_w = 1.0;
        node.own_sum = 0.5;
        node.child_n = 6;
        node.child_w = 6.0;
        // Leaning toward the better child: a mean of 0.7, not 0.5.
        node.child_sum = 6.0 * 0.733_333;
        node.score_n = 7;
        node.value_sq_sum = results.iter().map(|v| v * v).sum();
        let node = *t.node(s);
        assert!((node.value() - 0.7).abs() < 1e-4);
        let mean = results.iter().sum::<f64>() / 7.0;
        let want = results.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 7.0;
        let got = node.value_variance(t.edges(s));
        assert!((got - want).abs() < 1e-6, "{got} against {want}");
        // About the value the spread would have come out below zero.
        assert!(node.value_sq_mean() - node.value() * node.value() < 0.0);
    }

    #[test]
    fn retaining_the_reachable_nodes_forgets_the_rest() {
        let mut t = Table::new(1);
        let root = t.find_or_insert(11, NO_SLOT, &[]).unwrap();
        let child = t.find_or_insert(12, NO_SLOT, &[]).unwrap();
        let grandchild = t.find_or_insert(14, NO_SLOT, &[]).unwrap();
        let orphan = t.find_or_insert(13, NO_SLOT, &[]).unwrap();
        let orphan_leaf = t.find_or_insert(15, NO_SLOT, &[]).unwrap();
        assert!(t.expand(orphan, &[Edge::new(5, 1.0, 0.5); 3]));
        assert!(t.expand(root, &[Edge::new(6, 1.0, 0.5), Edge::new(7, 1.0, 0.5)]));
        assert!(t.expand(child, &[Edge::new(8, 1.0, 0.5)]));
        t.node_and_edges_mut(root).1[0].child_key = 12;
        t.node_and_edges_mut(child).1[0].child_key = 14;
        t.node_and_edges_mut(orphan).1[0].child_key = 15;
        for s in [grandchild, orphan_leaf] {
            t.node_mut(s).own_n = 2;
        }
        let mut forgotten = Vec::new();
        assert_eq!(t.retain_reachable(Some(root), |n| forgotten.push(n.key)), 3);
        forgotten.sort_unstable();
        assert_eq!(forgotten, [13, 15]);
        // The root, its child and the child's leaf stay, in the same slots.
        for (slot, key) in [(root, 11), (child, 12), (grandchild, 14)] {
            assert_eq!(t.find(key, NO_SLOT), Some(slot));
        }
        assert_eq!(t.node(grandchild).own_n, 2);
        assert_eq!(t.edges(root)[1].point, 7);
        assert_eq!(t.edges(child)[0].point, 8);
        // The orphan and the leaf below it are gone, and their edges.
        assert_eq!(t.find(13, NO_SLOT), None);
        assert_eq!(t.find(15, NO_SLOT), None);
        assert_eq!(t.occupied().count(), 3);
        assert_in_use_is_occupied(&t);
        assert_eq!((t.edge_usage() * t.edge_capacity as f64).round(), 3.0);
        // No root: nothing is kept.
        assert_eq!(t.retain_reachable(None, |_| {}), 0);
        assert_eq!((t.occupied().count(), t.edge_usage()), (0, 0.0));
    }
}
