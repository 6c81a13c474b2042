//! The search's settings: [`SearchConfig`], the part of it each analysis
//! query sets, and the defaults the front ends start from.

use super::classical::playout::Policy;
use super::classical::priors::PriorWeights;
use super::puct::PuctConfig;
use super::uncertainty::UncertaintyWeighting;
use super::value::{ScoreShape, ScoreUtility};
use super::value_weight::ValueShaping;
use crate::engine::level::Level;
use crate::nn::metadata::SgfMetadata;
use std::time::Duration;

/// More search threads than this are not started.
pub const MAX_THREADS: usize = 256;

/// Playouts per move when neither the limits nor the configuration give any.
pub const DEFAULT_PLAYOUTS: u64 = 10_000;

/// Leaves each search thread sends to the net in one call unless told
/// (`--batch`): one, so that each descent sees the results of the one
/// before, as KataGo's threads do. Batches of four run a convolution net
/// about 1.2× faster per leaf on a CPU (a transformer net no faster), but
/// the leaves of a batch are chosen under virtual loss, and at equal visits
/// the search is weaker for it: against KataGo 1.17.2 at 100 visits on 9×9,
/// 41.5% of 100 games with batches of four, 48.0% with one
/// (docs/search.md).
pub const DEFAULT_BATCH: usize = 1;

/// Everything that shapes the search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchConfig {
    /// Search threads (this machine has about one core: 1 is usually best).
    pub threads: usize,
    /// Memory for the transposition table, in MB.
    pub tt_mb: usize,
    /// Random seed: with one thread and playout limits a search is reproducible.
    pub seed: u64,
    /// Resign when the win rate is below this (0 = never).
    pub resign_threshold: f64,
    /// Playouts per move when the [`Limits`](crate::engine::Limits) give none
    /// (a cap alongside a time limit).
    pub playouts: Option<u64>,
    /// Share nodes between move orders (false: a plain tree, for comparison).
    pub transpositions: bool,
    /// Visits a leaf needs before it is expanded; 0 = by board size (2 up to
    /// 9x9, about area/40 above, so 19x19 trees fit the table longer).
    pub expand_after: u32,
    /// RAVE equivalence: about how many playouts an AMAF estimate is worth.
    pub rave_equiv: f32,
    /// UCB exploration constant (0: RAVE and priors do the exploring, as in Pachi).
    pub exploration: f32,
    /// First-play urgency: the value of a move with no visits, no prior and no AMAF.
    pub fpu: f32,
    /// Prior weights for new edges.
    pub priors: PriorWeights,
    /// Playout policy of [`MctsEngine::new`](super::mcts_engine::MctsEngine::new).
    pub playout_policy: Policy,
    /// How often `genmove` reports progress.
    pub report_interval: Duration,
    /// Playouts behind `dead_stones`.
    pub dead_stone_playouts: u32,
    /// Weight of the final margin in a playout's value (0: win or loss only).
    /// A win is worth `1 - w + w * m`, a loss `w * m`, where `m` in 0..=1
    /// grows with Black's margin around the position's expected margin
    /// ([`playout_value`](super::value::playout_value)); so any win still
    /// beats any loss, but among won (or lost) lines the search prefers the
    /// bigger margin, and keeps playing sensible moves when far ahead or
    /// behind, in handicap games for one.
    pub score_weight: f64,
    /// The shape of the score part ([`ScoreShape`]): tengen's tanh about the
    /// expected margin, or KataGo's score utilities.
    pub score_shape: ScoreShape,
    /// With a network: before each search, move the kept tree's values to
    /// the search's score center ([`super::recenter`]). Off by default: it
    /// showed no gain at 100 visits against KataGo (docs/search.md).
    pub recenter_kept_tree: bool,
    /// Before each search, forget the nodes the new root cannot reach, as
    /// KataGo deletes them ([`super::tt::Table::retain_reachable`]), where
    /// by default they stay in the table (folded into leaves once the arena
    /// is half full). Off by default: it showed no gain at 100 visits
    /// against KataGo (docs/search.md).
    pub drop_unreachable: bool,
    /// Choose the move by lower confidence bounds whose spread is that of
    /// each move's results about their own mean, as KataGo's. Off by
    /// default: the bound then takes the spread about the move's value,
    /// which the value weighting leans toward its better replies, so that
    /// wherever they differ the spread is none and the choice is in effect
    /// the best value among the moves with 15% of the most visited one's
    /// visits; that choice won the equal-visit matches, the other showed
    /// no gain (docs/search.md).
    pub lcb_spread: bool,
    /// PUCT's constants (searches whose leaves a network evaluates).
    pub puct: PuctConfig,
    /// Leaves each thread sends to the network in one call (virtual loss
    /// spreads them); the classical search takes one at a time.
    pub batch: usize,
    /// The SGF metadata a human-SL network is given (its `--human-profile`);
    /// other nets ignore it.
    pub human_profile: Option<SgfMetadata>,
    /// How strong `genmove` plays (with a network; analysis is always at
    /// full strength).
    pub level: Level,
    /// KataGo's `ignorePreRootHistory`: the net sees no move played before
    /// the root (the root is evaluated with no history, a node below it
    /// with the moves since the root), so a position's analysis does not
    /// depend on how it was reached. KataGo's analysis engine does this by
    /// default, its GTP engine does not; so here.
    pub ignore_pre_root_history: bool,
    /// KataGo's `rootPolicyTemperature`: the root's priors are the net's
    /// policy raised to `1 / T` and renormalised (above 1 flatter, so the
    /// search looks wider at the root). 1 leaves them as they are.
    pub root_policy_temperature: f32,
    /// The policy optimism the net is evaluated at below the root (0..=1;
    /// nets of model version 12 and later blend toward their optimistic
    /// policy head; others have none). 1, as KataGo's GTP and analysis
    /// engines.
    pub policy_optimism: f32,
    /// The same at the root: 0.2, KataGo's `rootPolicyOptimism` there.
    pub root_policy_optimism: f32,
    /// With a network: evaluate every position in this symmetry (0–7)
    /// instead of one of the eight at random (KataGo's `nnRandomize = false`
    /// with a forced symmetry), so that a search can be compared with
    /// KataGo's move for move.
    pub nn_symmetry: Option<u8>,
}

impl SearchConfig {
    /// The settings a search on `threads` threads runs with
    /// ([`PuctConfig::for_threads`]).
    pub fn for_threads(&self, threads: usize) -> SearchConfig {
        SearchConfig {
            puct: self.puct.for_threads(threads),
            ..self.clone()
        }
    }

    /// How the network's search weights a node's children in its value
    /// ([`super::value_weight`]). Gaps between values are measured in KataGo's
    /// utility units.
    pub fn value_shaping(&self) -> ValueShaping {
        ValueShaping {
            exponent: f64::from(self.puct.value_weight_exponent),
            noise_prune_scale: f64::from(self.puct.noise_prune_scale),
            utility_per_value: self.utility_per_value(),
        }
    }

    /// How the network's search weights each leaf by its net's certainty
    /// ([`super::uncertainty`]); `None` when it does not.
    pub fn uncertainty_weighting(&self) -> Option<UncertaintyWeighting> {
        (self.puct.uncertainty_coeff > 0.0).then(|| UncertaintyWeighting {
            coeff: f64::from(self.puct.uncertainty_coeff),
            max_weight: f64::from(self.puct.uncertainty_max_weight),
            score: self.score_utility(),
            utility_per_value: self.utility_per_value(),
        })
    }

    /// How a result's margin enters its value.
    pub fn score_utility(&self) -> ScoreUtility {
        ScoreUtility {
            weight: self.score_weight,
            shape: self.score_shape,
        }
    }

    /// KataGo utility units per unit of tengen's value: a whole win against
    /// a whole loss is 2 there, and the win rate's share of tengen's value
    /// is `1 - score_weight`.
    fn utility_per_value(&self) -> f64 {
        2.0 / (1.0 - self.score_weight).max(0.1)
    }
}

/// The part of [`SearchConfig`] each analysis query sets
/// ([`MctsEngine::set_query_options`](super::mcts_engine::MctsEngine::set_query_options)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueryOptions {
    pub ignore_pre_root_history: bool,
    pub root_policy_temperature: f32,
    pub policy_optimism: f32,
    pub root_policy_optimism: f32,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            threads: 1,
            tt_mb: 256,
            seed: 1,
            resign_threshold: 0.1,
            playouts: None,
            transpositions: true,
            expand_after: 0,
            rave_equiv: 3000.0,
            exploration: 0.0,
            fpu: 1.0,
            priors: PriorWeights::default(),
            playout_policy: Policy::Heavy,
            report_interval: Duration::from_millis(500),
            dead_stone_playouts: 2000,
            score_weight: 0.25,
            score_shape: ScoreShape::Tanh,
            recenter_kept_tree: false,
            drop_unreachable: false,
            lcb_spread: false,
            puct: PuctConfig::default(),
            batch: DEFAULT_BATCH,
            human_profile: None,
            level: Level::Max,
            ignore_pre_root_history: false,
            root_policy_temperature: 1.0,
            policy_optimism: 1.0,
            root_policy_optimism: crate::nn::KATAGO_GTP_POLICY_OPTIMISM,
            nn_symmetry: None,
        }
    }
}
