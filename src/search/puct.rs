//! PUCT selection as KataGo does it, the choice of the move to play by a
//! lower confidence bound, and the utility of a network evaluation.
//!
//! An edge's urgency is `Q + c(N) · P · sqrt(N) / (1 + n)`:
//! - `Q` the child's value for the player to move (0..1); each in-flight
//!   visit (virtual loss) counts as `virtual_loss` lost visits (KataGo's
//!   `numVirtualLossesPerThread`), held against the child's weight but at
//!   least a quarter visit's (a child whose first descent is on its way
//!   keeps that share of the FPU);
//! - `P` the policy prior, at the root raised to `1 / temperature` and
//!   renormalised;
//! - `N` the weight of all edges, `n` this edge's: their visits, each
//!   weighted by the certainty of its evaluation under uncertainty
//!   weighting ([`super::uncertainty`]); in `n`, not in `N`, in-flight
//!   visits count `virtual_loss` each (as KataGo's);
//! - `c(N) = (c_puct + c_log · ln((N + base) / base)) · s`, which grows
//!   slowly with the visits (KataGo's `cpuctExploration`,
//!   `cpuctExplorationLog`, `cpuctExplorationBase`), where
//!   `s = 1 + stdev_scale · (σ / σ₀ - 1)` follows the spread `σ` of the
//!   values below the node, estimated with a prior `σ₀` worth
//!   `stdev_prior_weight` results (KataGo's `cpuctUtilityStdev*`): where
//!   every line ends alike, small value differences count for more against
//!   the policy. KataGo's 0.85 by default on one search thread, off on
//!   more (`stdev_scale_threaded`, see [`PuctConfig::for_threads`]);
//! - an unvisited edge's `Q` is the parent's value less
//!   `fpu_reduction · sqrt(Σ P of visited edges)` (first-play urgency),
//!   the parent's value being its own evaluation while few of its moves
//!   are tried and its mean as they cover the policy: the mean weighted
//!   `min(1, (Σ P of visited edges)^fpu_parent_pow)` (KataGo's
//!   `fpuParentWeightByVisitedPolicy`, power 2 there; 0, the default: the
//!   mean alone).
//!
//! tengen's values run 0..1. Under its default tanh score part at weight
//! 0.25 a won game is worth three quarters of that range, as it is worth 2
//! of KataGo's utility range: the exploration constants are KataGo's times
//! 0.375, the first-play urgency's reductions KataGo's halved. Under KataGo's
//! score utility ([`super::value::ScoreShape::KataGo`], weight 2/7) a value
//! is KataGo's utility `u` (-1.4..1.4) as `½ + u / 2.8`: KataGo's constants
//! divided by 2.8 make the search KataGo's visit for visit
//! (`benches/katago_parity.py`; docs/search.md).

use super::tt::{Edge, Node, PASS};
use super::value::for_mover;
use crate::go::board::Color;

/// PUCT's constants. See the module documentation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PuctConfig {
    pub c_puct: f32,
    pub c_log: f32,
    pub c_base: f32,
    /// FPU reduction below the root, and at the root.
    pub fpu_reduction: f32,
    pub root_fpu_reduction: f32,
    /// How the parent's value for first-play urgency moves from its own
    /// evaluation to its mean as its visited moves cover the policy (the
    /// mean's share is the visited policy to this power; 0: the mean
    /// alone). KataGo's `fpuParentWeightByVisitedPolicyPow`.
    pub fpu_parent_pow: f32,
    /// Softmax temperature of the policy at the root (1: the net's policy).
    pub root_policy_temperature: f32,
    /// The exploration's scaling by the spread of the values (0: off), the
    /// spread it is relative to, and that prior's weight in results.
    pub stdev_scale: f32,
    pub stdev_prior: f32,
    pub stdev_prior_weight: f32,
    /// The scaling a search of more than one thread runs with in place of
    /// `stdev_scale` ([`PuctConfig::for_threads`]).
    pub stdev_scale_threaded: f32,
    /// How a node's children are weighted in its value
    /// ([`super::value_weight`]): KataGo's `valueWeightExponent` (0: by
    /// visits alone) and `noisePruneUtilityScale` (0: no noise pruning).
    pub value_weight_exponent: f32,
    pub noise_prune_scale: f32,
    /// Subtree value bias correction ([`super::subtree_bias`]): KataGo's
    /// `subtreeValueBiasFactor` (0: off) and
    /// `subtreeValueBiasWeightExponent`.
    pub subtree_bias_factor: f32,
    pub subtree_bias_exponent: f32,
    /// Uncertainty-weighted playouts ([`super::uncertainty`]): KataGo's
    /// `uncertaintyCoeff` (0: off, every leaf weighs 1) and
    /// `uncertaintyMaxWeight`.
    pub uncertainty_coeff: f32,
    pub uncertainty_max_weight: f32,
    /// How many lost visits each descent on its way counts for in the edges
    /// it passes (KataGo's `numVirtualLossesPerThread`); one thread never
    /// sees any.
    pub virtual_loss: f32,
}

impl Default for PuctConfig {
    fn default() -> Self {
        // The constants the equal-visit matches kept (docs/search.md), on
        // tengen's tanh score part at weight 0.25: KataGo's exploration
        // (1.0, 0.45, 500) times 0.375 and its first-play urgency's
        // reductions (0.2, 0.1) halved; KataGo's parent weighting and
        // subtree bias off; its value weighting and noise pruning; its
        // spread scaling (0.85, the prior 0.40 times 0.375) on one search
        // thread, off on more. KataGo's own set on its score utility (the
        // search KataGo's visit for visit) is those in utility units divided
        // by 2.8, its utility range: see `--score-utility`.
        PuctConfig {
            c_puct: 0.375,
            c_log: 0.16875,
            c_base: 500.0,
            fpu_reduction: 0.1,
            root_fpu_reduction: 0.05,
            fpu_parent_pow: 0.0,
            root_policy_temperature: 1.0,
            stdev_scale: 0.85,
            stdev_prior: 0.15,
            stdev_prior_weight: 2.0,
            stdev_scale_threaded: 0.0,
            value_weight_exponent: 0.25,
            noise_prune_scale: 0.15,
            subtree_bias_factor: 0.0,
            subtree_bias_exponent: 0.85,
            uncertainty_coeff: 0.0,
            uncertainty_max_weight: 8.0,
            virtual_loss: 1.0,
        }
    }
}

impl PuctConfig {
    /// The constants a search on `threads` threads runs with: past one
    /// thread, `stdev_scale_threaded` in place of `stdev_scale`. At equal
    /// visits against KataGo the spread scaling gained on one thread (19×19,
    /// 100 visits: 55.7% of 70 games against 44.0% of 84 without; 9×9: 52.5%
    /// of 200 against 51.7%) and lost on eight (9×9, 100 visits: 45.5% of 200
    /// against 56.5%): docs/search.md.
    pub fn for_threads(&self, threads: usize) -> PuctConfig {
        PuctConfig {
            stdev_scale: if threads > 1 {
                self.stdev_scale_threaded
            } else {
                self.stdev_scale
            },
            ..*self
        }
    }
}

/// The edge of `node` (with `mover` to play) PUCT follows; `allowed` filters
/// edges (the root's legal moves). `None` if no edge is allowed.
pub fn select(
    node: &Node,
    edges: &[Edge],
    mover: Color,
    at_root: bool,
    cfg: &PuctConfig,
    allowed: impl Fn(&Edge) -> bool,
) -> Option<usize> {
    let mut total = 0.0f32;
    let mut visited_policy = 0.0f32;
    for e in edges {
        total += e.weight;
        if e.visits > 0 || e.in_flight > 0 {
            visited_policy += e.prior_w;
        }
    }
    let temperature = if at_root {
        cfg.root_policy_temperature
    } else {
        1.0
    };
    let tempered = (temperature - 1.0).abs() > 1e-6;
    let policy_sum = if tempered {
        edges
            .iter()
            .map(|e| e.prior_w.max(0.0).powf(1.0 / temperature))
            .sum::<f32>()
            .max(1e-20)
    } else {
        1.0
    };
    let c = cfg.c_puct + cfg.c_log * ((total + cfg.c_base) / cfg.c_base).ln();
    let scale = c * (total + 0.01).sqrt() * stdev_factor(node, edges, cfg);
    let reduction = if at_root {
        cfg.root_fpu_reduction
    } else {
        cfg.fpu_reduction
    };
    let parent_q = for_mover(fpu_parent_value(node, visited_policy, cfg) as f32, mover);
    let fpu = parent_q - reduction * visited_policy.max(0.0).sqrt();
    let mut best = None;
    let mut best_score = f32::NEG_INFINITY;
    // Unvisited edges all share the FPU, so the one with the largest prior
    // (and, among equal priors, the first board play) is the best of them:
    // past it, an unvisited edge with a smaller prior cannot win.
    let mut unvisited_prior = f32::NEG_INFINITY;
    for (i, e) in edges.iter().enumerate() {
        let lost = cfg.virtual_loss * e.in_flight as f32;
        let n = e.weight + lost;
        if n == 0.0
            && !tempered
            && (e.prior_w < unvisited_prior || (e.prior_w == unvisited_prior && e.point == PASS))
        {
            continue;
        }
        if !allowed(e) {
            continue;
        }
        if n == 0.0 && !tempered {
            unvisited_prior = e.prior_w;
        }
        let q = if n == 0.0 {
            fpu
        } else {
            // Lost visits pull the value toward 0, against at least a
            // quarter of a visit's weight: an edge whose first descent is
            // on its way keeps a fifth of the FPU (one lost visit).
            let own = if e.weight > 0.0 {
                for_mover(e.child_q, mover)
            } else {
                fpu
            };
            let held = e.weight.max(MIN_WEIGHT_AGAINST_LOST_VISITS);
            own * held / (held + lost)
        };
        let p = if tempered {
            e.prior_w.max(0.0).powf(1.0 / temperature) / policy_sum
        } else {
            e.prior_w
        };
        let score = q + scale * p / (1.0 + n);
        // Ties (no visits, equal priors) go to board plays before the pass.
        if score > best_score || (score == best_score && e.point != PASS) {
            best_score = score;
            best = Some(i);
        }
    }
    best
}

/// The least weight an edge's value holds against its lost visits (so an
/// edge whose first descent is on its way is not yet a certain loss), as
/// KataGo's.
const MIN_WEIGHT_AGAINST_LOST_VISITS: f32 = 0.25;

/// Black's value of `node` that first-play urgency starts from: its mean
/// weighted `min(1, visited_policy^fpu_parent_pow)` against its own
/// evaluation (see the module documentation).
fn fpu_parent_value(node: &Node, visited_policy: f32, cfg: &PuctConfig) -> f64 {
    let mean = node.value();
    match node.own_value() {
        Some(own) if cfg.fpu_parent_pow > 0.0 => {
            let share = f64::from(visited_policy.max(0.0))
                .powf(f64::from(cfg.fpu_parent_pow))
                .min(1.0);
            share * mean + (1.0 - share) * own
        }
        _ => mean,
    }
}

/// The weight each root move keeps when the root's figures are reported
/// (KataGo's pruned root values): the most visited move (counting a little
/// policy, discounting its latest visit) keeps its weight (its visits
/// without uncertainty weighting); any other keeps
/// at most the visits PUCT would have given it had it known its value from
/// the start, the `w` with `q + c · P / (1 + w)` equal to the best move's
/// urgency. Visits spent on a move before it proved poor count no more.
/// `weights[i]` for `edges[i]` (0 for unvisited or not `allowed`).
pub fn retrospective_weights(
    node: &Node,
    edges: &[Edge],
    mover: Color,
    cfg: &PuctConfig,
    allowed: impl Fn(&Edge) -> bool,
    weights: &mut Vec<f64>,
) {
    weights.clear();
    weights.extend(edges.iter().map(|e| {
        if allowed(e) && e.visits > 0 {
            f64::from(e.weight)
        } else {
            0.0
        }
    }));
    let goodness = |i: usize| {
        let n = weights[i];
        n * (n - 1.0).max(0.0) / n.max(1.0) + 2.0 * f64::from(edges[i].prior_w)
    };
    let Some(best) = (0..edges.len())
        .filter(|&i| weights[i] > 0.0)
        .max_by(|&a, &b| goodness(a).total_cmp(&goodness(b)))
    else {
        return;
    };
    let total: f64 = weights.iter().sum();
    let c = f64::from(cfg.c_puct)
        + f64::from(cfg.c_log) * ((total + f64::from(cfg.c_base)) / f64::from(cfg.c_base)).ln();
    let scale = c * (total + 0.01).sqrt() * f64::from(stdev_factor(node, edges, cfg));
    let q = |e: &Edge| f64::from(for_mover(e.child_q, mover));
    let urgency =
        |i: usize| q(&edges[i]) + scale * f64::from(edges[i].prior_w) / (1.0 + weights[i]);
    let best_urgency = urgency(best);
    for (i, e) in edges.iter().enumerate() {
        if i == best || weights[i] <= 0.0 {
            continue;
        }
        let gap = best_urgency - q(e);
        if gap > 0.0 {
            let wanted = scale * f64::from(e.prior_w) / gap - 1.0;
            weights[i] = weights[i].min(wanted.max(0.0).ceil());
        }
    }
}

/// The exploration's factor `s` from the spread of the values below `node`
/// (see the module documentation): the variance of the results through the
/// node, with `stdev_prior²` counted as `stdev_prior_weight` results.
fn stdev_factor(node: &Node, edges: &[Edge], cfg: &PuctConfig) -> f32 {
    if cfg.stdev_scale == 0.0 {
        return 1.0;
    }
    let prior = cfg.stdev_prior as f64;
    let weight = cfg.stdev_prior_weight as f64;
    let n = node.score_n as f64;
    let stdev = if n <= 1.0 {
        prior
    } else {
        // KataGo's estimate, `((m² + σ₀²)·w + E[u²]·n) / (w + n - 1) - m²`
        // over utilities `u` of mean `m`, equals
        // `(σ₀²·w + n·variance + m²) / (w + n - 1)`: not the same for
        // shifted values, and KataGo's utilities are 0 for an even game,
        // so tengen's 0..1 values enter it less the ½ of an even game.
        let variance = node.value_variance(edges);
        let centred = node.value() - 0.5;
        ((prior * prior * weight + n * variance + centred * centred) / (weight + n - 1.0))
            .max(0.0)
            .sqrt()
    };
    (1.0 + cfg.stdev_scale as f64 * (stdev / prior - 1.0)) as f32
}

/// Standard errors between a root move's value and the lower confidence
/// bound it is chosen by (KataGo's `lcbStdevs`).
pub const LCB_STDEVS: f64 = 5.0;
/// Share of the most visited root move's visits a move needs before its
/// lower confidence bound may win it the choice (KataGo's
/// `minVisitPropForLCB`).
pub const LCB_MIN_VISIT_SHARE: f64 = 0.15;
/// Half the width of the value range (0..1); KataGo's utility range radius
/// on tengen's scale.
const VALUE_RANGE_RADIUS: f64 = 0.5;

/// The lower confidence bound of a root move's value for the player to move,
/// as KataGo chooses its move by: the mean `mover_q` (0..1) less
/// [`LCB_STDEVS`] standard errors of the mean of `visits` results with
/// variance `variance`. So that a handful of results cannot look certain,
/// the variance carries a prior as wide as the whole value range, weighted
/// `1 / visits²` results (KataGo's weighting, which fades quickly). No
/// visits give the bound of the worst possible move.
pub fn value_lcb(mover_q: f64, variance: f64, visits: u32) -> f64 {
    let radius_of_range = 2.0 * VALUE_RANGE_RADIUS * LCB_STDEVS;
    if visits == 0 {
        return -radius_of_range;
    }
    let n = visits as f64;
    let prior = 1.0 / (n * n);
    let variance =
        variance.max(1e-8) + VALUE_RANGE_RADIUS * VALUE_RANGE_RADIUS * prior / (n + prior);
    let effective = (n + prior) * (n + prior) / (n + prior * prior);
    mover_q - LCB_STDEVS * (variance / effective).sqrt()
}

/// The index of the move to play among root moves given as
/// `(weight, lower confidence bound)`, the weight being the edge's (its
/// visits without uncertainty weighting), as KataGo chooses by its
/// children's weights: the best bound among the moves with at least
/// [`LCB_MIN_VISIT_SHARE`] of the largest weight (the first on ties).
/// `None` for no moves.
pub fn lcb_choice(moves: impl Iterator<Item = (f64, f64)> + Clone) -> Option<usize> {
    let most = moves.clone().map(|(n, _)| n).max_by(f64::total_cmp)?;
    let floor = LCB_MIN_VISIT_SHARE * most;
    let mut best: Option<(usize, f64)> = None;
    for (i, (n, lcb)) in moves.enumerate() {
        if n > 0.0 && n >= floor && best.is_none_or(|(_, b)| lcb > b) {
            best = Some((i, lcb));
        }
    }
    best.map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tt::NO_SLOT;

    /// The defaults with KataGo's scaling by the spread of values.
    fn katago_spread() -> PuctConfig {
        PuctConfig {
            stdev_scale: 0.85,
            ..PuctConfig::default()
        }
    }

    fn edge(point: u16, prior: f32, visits: u32, black_q: f32) -> Edge {
        Edge {
            point,
            prior_w: prior,
            visits,
            weight: visits as f32,
            child_q: black_q,
            child_slot: NO_SLOT,
            ..Edge::default()
        }
    }

    fn node_over(edges: &[Edge]) -> Node {
        let child_n: u32 = edges.iter().map(|e| e.visits).sum();
        let child_w: f64 = edges.iter().map(|e| f64::from(e.weight)).sum();
        let child_sum: f64 = edges
            .iter()
            .map(|e| f64::from(e.weight) * e.child_q as f64)
            .sum();
        // Results whose squares spread around the children's values.
        let value_sq_sum: f64 = 0.25
            + edges
                .iter()
                .map(|e| e.visits as f64 * (e.child_q as f64).powi(2) * 1.1)
                .sum::<f64>();
        Node {
            key: 1,
            own_n: 1,
            own_w: 1.0,
            own_sum: 0.5,
            child_n,
            child_w,
            child_sum,
            score_n: child_n + 1,
            value_sq_sum,
            ..Node::default()
        }
    }

    /// A brute-force twin: the formula of the module documentation, written
    /// out for one edge.
    fn urgency(
        cfg: &PuctConfig,
        node: &Node,
        edges: &[Edge],
        i: usize,
        mover: Color,
        root: bool,
    ) -> f32 {
        // Descents on their way count `virtual_loss` lost visits each.
        let vl = |e: &Edge| cfg.virtual_loss * e.in_flight as f32;
        let total: f32 = edges.iter().map(|e| e.weight).sum();
        // The spread of the values below the node, the prior counted as
        // `stdev_prior_weight` extra results (Bessel-corrected), over
        // utilities centred on an even game (value - ½) as KataGo's.
        // The results' spread is about their plain mean (own evaluations
        // and children by visits): E[u²] is that spread plus the square of
        // the node's mean, as KataGo's mean square is about its mean.
        let n = node.score_n as f64;
        let mean = node.value() - 0.5;
        let prior = cfg.stdev_prior as f64;
        let w = cfg.stdev_prior_weight as f64;
        let stdev = if n <= 1.0 {
            prior
        } else {
            let (mut weight, mut sum) = (node.own_w, node.own_sum);
            for e in edges.iter().filter(|e| e.visits > 0) {
                weight += e.weight as f64;
                sum += e.weight as f64 * e.child_q as f64;
            }
            let plain = sum / weight;
            let spread = (node.value_sq_sum / n - plain * plain).max(0.0);
            let sum_sq = n * (spread + mean * mean) + w * (mean * mean + prior * prior);
            (sum_sq / (n + w - 1.0) - mean * mean).max(0.0).sqrt()
        };
        let s = 1.0 + cfg.stdev_scale * (stdev as f32 / cfg.stdev_prior - 1.0);
        let c = (cfg.c_puct + cfg.c_log * ((total + cfg.c_base) / cfg.c_base).ln()) * s;
        let visited: f32 = edges
            .iter()
            .filter(|e| e.visits > 0 || e.in_flight > 0)
            .map(|e| e.prior_w)
            .sum();
        let red = if root {
            cfg.root_fpu_reduction
        } else {
            cfg.fpu_reduction
        };
        // The parent's value for first-play urgency, written out.
        let own = (node.own_sum / node.own_w) as f32;
        let share = visited.powf(cfg.fpu_parent_pow).min(1.0);
        let black = share * node.value() as f32 + (1.0 - share) * own;
        let parent = if mover == Color::Black {
            black
        } else {
            1.0 - black
        };
        let e = &edges[i];
        let fpu = parent - red * visited.sqrt();
        let mut q = if e.visits == 0 || e.weight <= 0.0 {
            fpu
        } else if mover == Color::Black {
            e.child_q
        } else {
            1.0 - e.child_q
        };
        if e.in_flight > 0 {
            // Lost visits (worth 0 to the mover) pull the value down by
            // their share against the edge's weight, at least a quarter.
            let share = vl(e) / (vl(e) + e.weight.max(0.25));
            q += (0.0 - q) * share;
        }
        q + c * (total + 0.01).sqrt() * e.prior_w / (1.0 + e.weight + vl(e))
    }

    #[test]
    fn select_agrees_with_the_formula_written_out() {
        let mut rng = 12345u64;
        let mut next = || {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (rng >> 33) as f32 / (1u64 << 31) as f32
        };
        for case in 0..200 {
            let k = 2 + case % 7;
            let mut edges = Vec::new();
            for i in 0..k {
                let visits = if next() < 0.4 {
                    0
                } else {
                    (next() * 50.0) as u32
                };
                let mut e = edge(i as u16 + 1, next(), visits, next());
                // Half the cases weigh their visits as uncertainty
                // weighting does: 1/4 to 8 each.
                if case % 2 == 1 {
                    e.weight = visits as f32 * (0.25 + 7.75 * next());
                }
                // A third have descents on their way through some edges.
                if case % 3 == 2 && next() < 0.5 {
                    e.in_flight = 1 + (next() * 3.0) as u8;
                }
                edges.push(e);
            }
            let mut node = node_over(&edges);
            // The node's own evaluation apart from its mean, for the
            // first-play urgency's parent value.
            node.own_sum = f64::from(next());
            let katago_fpu = PuctConfig {
                fpu_parent_pow: 2.0,
                ..PuctConfig::default()
            };
            let katago_virtual_loss = PuctConfig {
                virtual_loss: 3.0,
                ..PuctConfig::default()
            };
            for (mover, root, cfg) in [Color::Black, Color::White]
                .into_iter()
                .flat_map(|m| [false, true].map(|r| (m, r)))
                .flat_map(|(m, r)| {
                    [
                        PuctConfig::default(),
                        katago_spread(),
                        katago_fpu,
                        katago_virtual_loss,
                    ]
                    .map(|c| (m, r, c))
                })
            {
                let got = select(&node, &edges, mover, root, &cfg, |_| true).unwrap();
                let scores: Vec<f32> = (0..k)
                    .map(|i| urgency(&cfg, &node, &edges, i, mover, root))
                    .collect();
                let best = scores.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
                assert!(
                    (scores[got] - best).abs() < 1e-5,
                    "case {case}: chose {got} ({}) over best {best}",
                    scores[got]
                );
            }
        }
    }

    #[test]
    fn first_play_urgency_starts_from_the_own_evaluation_and_ends_at_the_mean() {
        // Own evaluation 0.7 for Black; ten visits of a move worth 0.1 pull
        // the mean down to about 0.15.
        let edges = [edge(1, 0.1, 10, 0.1), edge(2, 0.6, 0, 0.5)];
        let mut node = node_over(&edges);
        node.own_sum = 0.7;
        let mean = node.value();
        assert!((mean - 1.7 / 11.0).abs() < 1e-6);
        let cfg = PuctConfig {
            fpu_parent_pow: 2.0,
            ..PuctConfig::default()
        };
        // 10% of the policy tried: 1% of the mean, 99% of the own evaluation.
        let fpu = fpu_parent_value(&node, 0.1, &cfg);
        assert!((fpu - (0.01 * mean + 0.99 * 0.7)).abs() < 1e-6, "{fpu}");
        // Most of the policy tried: the mean; KataGo's rule off: the mean.
        assert!((fpu_parent_value(&node, 1.0, &cfg) - mean).abs() < 1e-9);
        let off = PuctConfig {
            fpu_parent_pow: 0.0,
            ..cfg
        };
        assert!((fpu_parent_value(&node, 0.1, &off) - mean).abs() < 1e-9);
        // An own evaluation of 0.9 above a move tried 40 times at 0.6: from
        // the own evaluation a rarely liked untried move looks better than
        // the tried one; from the mean (about 0.61) it does not.
        let edges = [edge(1, 0.1, 40, 0.6), edge(2, 0.005, 0, 0.5)];
        let mut node = node_over(&edges);
        node.own_sum = 0.9;
        assert_eq!(
            select(&node, &edges, Color::Black, false, &off, |_| true),
            Some(0)
        );
    }

    /// Both moves tried 40 times, the policy's favourite 5% worse, and the
    /// results spread narrowly about them.
    fn calm_node() -> ([Edge; 2], Node) {
        let edges = [edge(1, 0.9, 40, 0.50), edge(2, 0.1, 40, 0.55)];
        let mut node = node_over(&edges);
        node.own_sum = 0.52;
        node.value_sq_sum = 0.52 * 0.52 + 40.0 * (0.50f64.powi(2) + 0.55f64.powi(2));
        (edges, node)
    }

    #[test]
    fn a_narrow_spread_of_values_lets_them_overrule_the_policy_sooner() {
        let (edges, mut node) = calm_node();
        let scaled = katago_spread();
        assert!(stdev_factor(&node, &edges, &scaled) < 0.6);
        assert_eq!(
            select(&node, &edges, Color::Black, false, &scaled, |_| true),
            Some(1)
        );
        let unscaled = PuctConfig {
            stdev_scale: 0.0,
            ..PuctConfig::default()
        };
        assert_eq!(stdev_factor(&node, &edges, &unscaled), 1.0);
        assert_eq!(
            select(&node, &edges, Color::Black, false, &unscaled, |_| true),
            Some(0)
        );
        // Values spread as widely as the prior leave the exploration about as it is.
        node.value_sq_sum += 81.0 * scaled.stdev_prior.powi(2) as f64;
        assert!((stdev_factor(&node, &edges, &scaled) - 1.0).abs() < 0.1);
    }

    /// By default one search thread scales by the spread and more do not;
    /// a scale set for both applies on any number of threads.
    #[test]
    fn the_default_spread_scaling_is_for_one_thread() {
        let (edges, node) = calm_node();
        let defaults = PuctConfig::default();
        let one = defaults.for_threads(1);
        let eight = defaults.for_threads(8);
        assert!(stdev_factor(&node, &edges, &one) < 0.6);
        assert_eq!(stdev_factor(&node, &edges, &eight), 1.0);
        assert_eq!(
            select(&node, &edges, Color::Black, false, &one, |_| true),
            Some(1)
        );
        assert_eq!(
            select(&node, &edges, Color::Black, false, &eight, |_| true),
            Some(0)
        );
        let both = PuctConfig {
            stdev_scale: 0.5,
            stdev_scale_threaded: 0.5,
            ..defaults
        };
        assert_eq!(both.for_threads(8), both.for_threads(1));
        assert!(stdev_factor(&node, &edges, &both.for_threads(8)) < 1.0);
    }

    /// The spread's factor is KataGo's formula over utilities centred on an
    /// even game, written out over the results one by one; and so the same
    /// for Black's values as for their mirror image (White's view).
    #[test]
    fn the_spread_is_katagos_estimate_about_an_even_game() {
        let prior = f64::from(katago_spread().stdev_prior);
        let weight = f64::from(katago_spread().stdev_prior_weight);
        for (own, a, b) in [(0.52, 0.30, 0.80), (0.9, 0.85, 0.95), (0.1, 0.12, 0.02)] {
            for mirrored in [false, true] {
                let v = |x: f64| if mirrored { 1.0 - x } else { x };
                let edges = [edge(1, 0.5, 40, v(a) as f32), edge(2, 0.5, 40, v(b) as f32)];
                let mut node = node_over(&edges);
                node.own_n = 1;
                node.own_w = 1.0;
                node.own_sum = v(own);
                node.score_n = 81;
                let results: Vec<f64> = std::iter::once(v(own))
                    .chain(std::iter::repeat_n(f64::from(edges[0].child_q), 40))
                    .chain(std::iter::repeat_n(f64::from(edges[1].child_q), 40))
                    .collect();
                node.value_sq_sum = results.iter().map(|r| r * r).sum();
                // KataGo's, on utilities u = value - ½.
                let n = results.len() as f64;
                let m = results.iter().sum::<f64>() / n - 0.5;
                let sq = results.iter().map(|r| (r - 0.5).powi(2)).sum::<f64>() / n;
                let stdev = (((m * m + prior * prior) * weight + sq * n) / (weight + n - 1.0)
                    - m * m)
                    .sqrt();
                let want = 1.0 + 0.85 * (stdev / prior - 1.0);
                let got = f64::from(stdev_factor(&node, &edges, &katago_spread()));
                assert!(
                    (got - want).abs() < 1e-4,
                    "{own} {a} {b} mirrored {mirrored}: {got} against {want}"
                );
            }
        }
    }

    #[test]
    fn policy_leads_at_first_and_value_wins_in_the_end() {
        // A strong prior is tried first...
        let edges = [edge(1, 0.8, 0, 0.5), edge(2, 0.2, 0, 0.5)];
        let node = node_over(&edges);
        let cfg = PuctConfig::default();
        assert_eq!(
            select(&node, &edges, Color::Black, false, &cfg, |_| true),
            Some(0)
        );
        // ...but once it is refuted, the other move gets the visits.
        let edges = [edge(1, 0.8, 40, 0.1), edge(2, 0.2, 0, 0.5)];
        let node = node_over(&edges);
        assert_eq!(
            select(&node, &edges, Color::Black, false, &cfg, |_| true),
            Some(1)
        );
        // White reads the same values the other way round.
        let edges = [edge(1, 0.5, 40, 0.9), edge(2, 0.5, 40, 0.1)];
        let node = node_over(&edges);
        assert_eq!(
            select(&node, &edges, Color::White, false, &cfg, |_| true),
            Some(1)
        );
        // Virtual loss sends a second thread elsewhere.
        let mut busy = [edge(1, 0.5, 4, 0.6), edge(2, 0.5, 4, 0.6)];
        busy[0].in_flight = 3;
        let node = node_over(&busy);
        assert_eq!(
            select(&node, &busy, Color::Black, false, &cfg, |_| true),
            Some(1)
        );
        // A filter excludes edges.
        assert_eq!(
            select(&node, &busy, Color::Black, false, &cfg, |e| e.point == 1),
            Some(0)
        );
        assert_eq!(
            select(&node, &busy, Color::Black, false, &cfg, |_| false),
            None
        );
    }

    #[test]
    fn a_hot_root_temperature_flattens_the_policy() {
        let edges = [edge(1, 0.6, 10, 0.5), edge(2, 0.4, 3, 0.5)];
        let node = node_over(&edges);
        let cold = PuctConfig::default();
        let hot = PuctConfig {
            root_policy_temperature: 4.0,
            ..cold
        };
        assert_eq!(
            select(&node, &edges, Color::Black, true, &cold, |_| true),
            Some(1)
        );
        // Equal values: with the policy flattened, the less visited move leads more.
        let edges = [edge(1, 0.9, 6, 0.5), edge(2, 0.1, 1, 0.5)];
        let node = node_over(&edges);
        assert_eq!(
            select(&node, &edges, Color::Black, true, &cold, |_| true),
            Some(0)
        );
        assert_eq!(
            select(&node, &edges, Color::Black, true, &hot, |_| true),
            Some(1)
        );
        // Below the root the temperature does nothing.
        assert_eq!(
            select(&node, &edges, Color::Black, false, &hot, |_| true),
            Some(0)
        );
    }

    /// KataGo's bound as its code computes it (weights, squared mean, a
    /// prior as wide as the range), for `visits` results of weight one.
    fn katago_lcb(q: f64, mean: f64, sq_mean: f64, visits: u32) -> f64 {
        let (mut weight, mut weight_sq) = (visits as f64, visits as f64);
        let ess = weight * weight / weight_sq;
        let prior = weight / (ess * ess * ess);
        let range = VALUE_RANGE_RADIUS;
        let sq = sq_mean.max(mean * mean + 1e-8);
        let sq = (sq * weight + (sq + range * range) * prior) / (weight + prior);
        weight += prior;
        weight_sq += prior * prior;
        let ess = weight * weight / weight_sq;
        q - LCB_STDEVS * ((sq - mean * mean) / ess).sqrt()
    }

    #[test]
    fn value_lcb_is_katagos_bound_and_tightens_with_visits() {
        for (mean, sq_mean) in [(0.6, 0.37), (0.3, 0.0901), (0.55, 0.3025), (0.9, 0.82)] {
            let variance = sq_mean - mean * mean;
            for visits in [1u32, 2, 3, 5, 10, 40, 1000] {
                for q in [mean, 1.0 - mean] {
                    let ours = value_lcb(q, variance, visits);
                    let theirs = katago_lcb(q, mean, sq_mean, visits);
                    assert!((ours - theirs).abs() < 1e-9, "{q} {variance} {visits}");
                }
            }
            let bounds: Vec<f64> = [1u32, 2, 4, 8, 16, 64]
                .iter()
                .map(|&n| value_lcb(mean, variance, n))
                .collect();
            assert!(bounds.windows(2).all(|w| w[0] < w[1]), "{bounds:?}");
            assert!(bounds.iter().all(|&b| b < mean));
        }
        // One result says almost nothing; no results are the worst.
        assert!(value_lcb(0.9, 0.0, 1) < 0.0);
        assert!(value_lcb(0.9, 0.0, 0) < value_lcb(0.0, 0.25, 1));
    }

    #[test]
    fn lcb_choice_takes_the_best_bound_among_well_visited_moves() {
        let choice =
            |moves: &[(u64, f64)]| lcb_choice(moves.iter().map(|&(n, lcb)| (n as f64, lcb)));
        assert_eq!(choice(&[]), None);
        assert_eq!(choice(&[(0, 0.5)]), None);
        assert_eq!(choice(&[(30, 0.4), (10, 0.45), (2, 0.9)]), Some(1));
        // 4.5 of 30 visits is the floor: 5 qualifies, 4 does not.
        assert_eq!(choice(&[(30, 0.4), (5, 0.41)]), Some(1));
        assert_eq!(choice(&[(30, 0.4), (4, 0.9)]), Some(0));
        // Ties keep the earlier (more visited) move.
        assert_eq!(choice(&[(30, 0.4), (20, 0.4)]), Some(0));
    }
}
