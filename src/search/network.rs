//! The network evaluator: each new leaf is evaluated once by the net (under a
//! random one of the eight symmetries); its policy becomes the priors of the
//! leaf's edges, its win probability and score distribution its value
//! ([`super::value::ScoreUtility::value`]), its ownership joins the search's map. No
//! playouts. Values are meant for PUCT selection.
//!
//! Each search thread has one of these, with its own [`nn::Evaluator`]
//! buffers; they share the [`Network`] and a [`NetCache`]. Leaves come in
//! batches (one forward pass for all those the cache does not answer).
//!
//! [`nn::Evaluator`]: crate::nn::Evaluator

use super::config::SearchConfig;
use super::evaluate::{LeafEval, LeafEvaluator, LeafKind, LeafView, Selection};
use super::net_cache::{net_input_key, CachedValue, NetCache};
use super::root::Root;
use super::value::{playout_value, win_value};
use crate::go::board::{Board, Color};
use crate::go::game::Game;
use crate::nn::metadata::SgfMetadata;
use crate::nn::{Evaluator, NetEval, Network};
use crate::search::classical::playout::PlayoutRng;
use crate::search::classical::priors::Prior;
use std::sync::{Arc, Mutex};

pub use super::config::DEFAULT_BATCH;

/// A leaf waiting for the batch's forward pass.
#[derive(Clone, Copy, Debug)]
struct Pending {
    slot: usize,
    /// Cache key of the leaf's net input.
    key: u64,
    /// What its value is centred and scaled on.
    center: f64,
    /// The leaf is the root (its priors take the root's temperature).
    at_root: bool,
}

/// See the module documentation.
pub struct NetworkLeaves {
    evaluator: Evaluator,
    cache: Arc<Mutex<NetCache>>,
    /// Each slot's game: the root game with the path played on it.
    games: Vec<Game>,
    results: Vec<LeafEval>,
    pending: Vec<Pending>,
    /// Slots whose leaf another pending slot already holds: (slot, that slot).
    duplicates: Vec<(usize, usize)>,
    /// The batch's outputs and symmetries.
    evals: Vec<NetEval>,
    symmetries: Vec<u8>,
    /// Black's policy (net order, pass last) and ownership of one evaluation.
    policy: Vec<f32>,
    ownership: Vec<f32>,
    rng: PlayoutRng,
}

/// Locks `cache`; emptied first if a thread panicked holding it (an entry
/// may be half written).
fn lock(cache: &Mutex<NetCache>) -> std::sync::MutexGuard<'_, NetCache> {
    crate::sync::lock_or_reset(cache, "evaluation cache", NetCache::clear)
}

/// Black's values, policy (net order, pass last; 0 where illegal) and
/// ownership of a net evaluation.
fn black_view(e: &NetEval, policy: &mut Vec<f32>, ownership: &mut Vec<f32>) -> CachedValue {
    let area = e.width * e.height;
    let sign = if e.view == Color::Black { 1.0 } else { -1.0 };
    let win = e.win + 0.5 * e.no_result;
    policy.clear();
    policy.extend(e.policy.iter().map(|&p| if p.is_nan() { 0.0 } else { p }));
    policy.resize(area, 0.0);
    policy.push(if e.pass_policy.is_nan() {
        0.0
    } else {
        e.pass_policy
    });
    ownership.clear();
    ownership.extend(e.ownership.iter().map(|&o| sign * o));
    ownership.resize(area, 0.0);
    CachedValue {
        black_win: if e.view == Color::Black {
            win
        } else {
            1.0 - win
        },
        black_score: sign * e.score_mean,
        score_stdev: e.score_stdev,
        black_lead: sign * e.lead,
        winloss_error: e.shortterm_winloss_error,
        score_error: e.shortterm_score_error,
    }
}

/// Writes net-ordered Black ownership into `out` by point index.
pub fn ownership_by_point(board: &Board, net: &[f32], out: &mut Vec<f32>) {
    let width = board.geometry().width();
    out.clear();
    out.resize(crate::go::board::CELLS, 0.0);
    for p in board.geometry().points() {
        out[p.index()] = net[p.y() * width + p.x()];
    }
}

/// Fills `out` from a net evaluation of `board`'s position: value, margin,
/// ownership and priors (at the root shaped by the root's temperature).
#[allow(clippy::too_many_arguments)]
fn fill(
    out: &mut LeafEval,
    board: &Board,
    v: CachedValue,
    policy: &[f32],
    ownership: &[f32],
    center: f64,
    cfg: &SearchConfig,
    at_root: bool,
) {
    let (width, area) = (board.geometry().width(), board.geometry().area());
    out.kind = LeafKind::Judged;
    out.moves.clear();
    out.margin = v.black_score as f64;
    out.score_stdev = v.score_stdev as f64;
    out.black_win = v.black_win as f64;
    out.lead = v.black_lead as f64;
    // The side of a square board of the same area.
    let size = (area as f64).sqrt();
    out.value = cfg.score_utility().value(
        v.black_win as f64,
        v.black_score as f64,
        v.score_stdev as f64,
        center,
        size,
    );
    out.weight = cfg.uncertainty_weighting().map_or(1.0, |u| {
        u.weight(
            f64::from(v.winloss_error),
            f64::from(v.score_error),
            out.margin,
            center,
            size,
        )
    });
    ownership_by_point(board, ownership, &mut out.ownership);
    out.priors.fill(Prior::default());
    for p in board.geometry().points() {
        out.priors[p.index()] = Prior {
            visits: 0.0,
            wins: policy[p.y() * width + p.x()],
        };
    }
    out.pass_prior = Prior {
        visits: 0.0,
        wins: policy[area],
    };
    out.has_priors = true;
    if at_root {
        apply_temperature(out, board, cfg.root_policy_temperature);
    }
}

/// Raises the priors of `out` to `1 / temperature` and renormalises them
/// (KataGo's `rootPolicyTemperature`); nothing at temperature 1.
fn apply_temperature(out: &mut LeafEval, board: &Board, temperature: f32) {
    if temperature == 1.0 || temperature.is_nan() || temperature <= 0.0 {
        return;
    }
    let exponent = 1.0 / temperature;
    let mut total = 0.0;
    for p in board.geometry().points() {
        let w = &mut out.priors[p.index()].wins;
        *w = w.max(0.0).powf(exponent);
        total += *w;
    }
    out.pass_prior.wins = out.pass_prior.wins.max(0.0).powf(exponent);
    total += out.pass_prior.wins;
    if total > 0.0 {
        for p in board.geometry().points() {
            out.priors[p.index()].wins /= total;
        }
        out.pass_prior.wins /= total;
    }
}

/// A leaf worth nothing to either side (the net could not judge it).
fn neutral(out: &mut LeafEval) {
    out.kind = LeafKind::Judged;
    out.has_priors = false;
    out.moves.clear();
    out.ownership.clear();
    out.margin = 0.0;
    out.score_stdev = 0.0;
    out.black_win = 0.5;
    out.lead = 0.0;
    out.value = 0.5;
    out.weight = 1.0;
}

/// What a policy optimism adds to a net cache key: the optimism is part of
/// the net's input (KataGo folds it into its own key); nothing at 0.
fn optimism_salt(optimism: f32) -> u64 {
    if optimism == 0.0 {
        0
    } else {
        u64::from(optimism.to_bits()).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1 << 63
    }
}

/// The turn before which the net is not shown the moves in a search of
/// `root`: the root's own turn count under KataGo's `ignorePreRootHistory`.
fn history_floor(root: &Root, cfg: &SearchConfig) -> Option<usize> {
    cfg.ignore_pre_root_history.then(|| root.game.turns().len())
}

impl NetworkLeaves {
    /// An evaluator for batches of `batch` leaves, starting from `game`.
    pub fn new(
        net: Arc<Network>,
        cache: Arc<Mutex<NetCache>>,
        game: &Game,
        batch: usize,
        human_profile: Option<SgfMetadata>,
    ) -> NetworkLeaves {
        let mut evaluator = Evaluator::with_batch(net, batch);
        evaluator.set_metadata(human_profile);
        let batch = evaluator.max_batch();
        NetworkLeaves {
            evaluator,
            cache,
            games: vec![game.clone(); batch],
            results: (0..batch).map(|_| LeafEval::new()).collect(),
            pending: Vec::with_capacity(batch),
            duplicates: Vec::with_capacity(batch),
            evals: (0..batch).map(|_| NetEval::new()).collect(),
            symmetries: Vec::with_capacity(batch),
            policy: Vec::with_capacity(19 * 19 + 1),
            ownership: Vec::with_capacity(19 * 19),
            rng: PlayoutRng::new(0),
        }
    }

    /// Evaluates `game` under `symmetry`, past the cache, showing the net
    /// the moves from turn `history_floor` on (see
    /// [`Evaluator::set_history_floor`]): Black's values; Black's ownership
    /// is then in [`NetworkLeaves::ownership`]. `None` if the net cannot
    /// evaluate it (a board larger than 19×19).
    pub fn judge_uncached(
        &mut self,
        game: &Game,
        symmetry: u8,
        history_floor: Option<usize>,
    ) -> Option<CachedValue> {
        self.evaluator.set_history_floor(history_floor);
        if let Err(e) = self
            .evaluator
            .evaluate(game, symmetry, 0.0, &mut self.evals[0])
        {
            crate::log_line!("tengen: network evaluation failed: {e}");
            return None;
        }
        Some(black_view(
            &self.evals[0],
            &mut self.policy,
            &mut self.ownership,
        ))
    }

    /// Black's ownership of the last position judged, `[y * n + x]`.
    pub fn ownership(&self) -> &[f32] {
        &self.ownership
    }

    /// The symmetry of the next evaluation: `cfg.nn_symmetry`, or one of
    /// the eight at random.
    fn symmetry(&mut self, cfg: &SearchConfig) -> u8 {
        cfg.nn_symmetry.unwrap_or_else(|| self.rng.below(8) as u8)
    }

    /// The root at its own optimism (KataGo's `rootPolicyOptimism`) when it
    /// differs from the tree's: evaluated at once and alone (once a search,
    /// so batching loses nothing), cached under `key`.
    fn judge_root_now(&mut self, slot: usize, key: u64, root: &Root, cfg: &SearchConfig) {
        let symmetry = self.symmetry(cfg);
        let done = self.evaluator.evaluate(
            &self.games[slot],
            symmetry,
            cfg.root_policy_optimism,
            &mut self.evals[0],
        );
        if let Err(e) = done {
            crate::log_line!("tengen: network evaluation failed: {e}");
            neutral(&mut self.results[slot]);
            return;
        }
        self.take_result(0, slot, key, root.score_center, cfg, true);
    }

    /// Net evaluation `eval` of the game in `slot`: cached under `key` and
    /// made the slot's leaf result.
    fn take_result(
        &mut self,
        eval: usize,
        slot: usize,
        key: u64,
        center: f64,
        cfg: &SearchConfig,
        at_root: bool,
    ) {
        let v = black_view(&self.evals[eval], &mut self.policy, &mut self.ownership);
        lock(&self.cache).put(key, v, &self.policy, &self.ownership);
        fill(
            &mut self.results[slot],
            self.games[slot].board(),
            v,
            &self.policy,
            &self.ownership,
            center,
            cfg,
            at_root,
        );
    }
}

impl LeafEvaluator for NetworkLeaves {
    fn selection(&self) -> Selection {
        Selection::Puct
    }

    fn batch_size(&self) -> usize {
        self.results.len()
    }

    fn begin_search(&mut self, _root: &Root, seed: u64) {
        self.rng = PlayoutRng::new(seed);
        self.pending.clear();
        self.duplicates.clear();
    }

    fn evaluate(&mut self, slot: usize, leaf: LeafView, cfg: &SearchConfig) {
        let root = leaf.root;
        let out = &mut self.results[slot];
        if leaf.terminal {
            // Two passes: the board is counted as it stands, as the net's
            // training games were (area scoring, every stone alive).
            let margin =
                crate::go::score::area_margin_fast(leaf.board) as f64 - root.game.effective_komi();
            // The side of a square board of the same area.
            let size = (leaf.board.geometry().area() as f64).sqrt();
            neutral(out);
            out.margin = margin;
            out.black_win = win_value(margin);
            out.lead = margin;
            out.value = playout_value(margin, root.score_center, size, cfg.score_utility());
            return;
        }
        let game = &mut self.games[slot];
        game.clone_from(root.game);
        for &(mv, color) in leaf.path {
            if game.play(color, mv).is_err() {
                // The tree plays only legal moves; should one slip through,
                // the leaf is worth nothing to either side.
                crate::log_line!("tengen: the search played an illegal {mv:?}");
                neutral(out);
                return;
            }
        }
        let area = game.board().geometry().area();
        self.policy.resize(area + 1, 0.0);
        self.ownership.resize(area, 0.0);
        let floor = history_floor(root, cfg);
        // Every leaf of a batch descends from the one root: one floor.
        self.evaluator.set_history_floor(floor);
        let at_root = leaf.path.is_empty();
        let optimism = if at_root {
            cfg.root_policy_optimism
        } else {
            cfg.policy_optimism
        };
        let key = net_input_key(leaf.key, game, floor) ^ optimism_salt(optimism);
        let cached = lock(&self.cache).get(key, &mut self.policy, &mut self.ownership);
        match cached {
            Some(v) => fill(
                out,
                game.board(),
                v,
                &self.policy,
                &self.ownership,
                root.score_center,
                cfg,
                at_root,
            ),
            None if at_root && optimism != cfg.policy_optimism => {
                self.judge_root_now(slot, key, root, cfg);
            }
            None => match self.pending.iter().find(|p| p.key == key) {
                // Two descents of the batch reached one leaf: evaluate once.
                Some(p) => self.duplicates.push((slot, p.slot)),
                None => self.pending.push(Pending {
                    slot,
                    key,
                    center: root.score_center,
                    at_root,
                }),
            },
        }
    }

    fn finish(&mut self, cfg: &SearchConfig) {
        if self.pending.is_empty() {
            self.duplicates.clear();
            return;
        }
        self.symmetries.clear();
        for _ in 0..self.pending.len() {
            let s = self.symmetry(cfg);
            self.symmetries.push(s);
        }
        let mut games: smallvec::SmallVec<[&Game; 32]> = smallvec::SmallVec::new();
        games.extend(self.pending.iter().map(|p| &self.games[p.slot]));
        let done = self.evaluator.evaluate_batch(
            &games,
            &self.symmetries,
            cfg.policy_optimism,
            &mut self.evals,
        );
        drop(games);
        if let Err(e) = done {
            crate::log_line!("tengen: network evaluation failed: {e}");
            for p in &self.pending {
                neutral(&mut self.results[p.slot]);
            }
            for &(slot, _) in &self.duplicates {
                neutral(&mut self.results[slot]);
            }
            self.pending.clear();
            self.duplicates.clear();
            return;
        }
        for i in 0..self.pending.len() {
            let p = self.pending[i];
            self.take_result(i, p.slot, p.key, p.center, cfg, p.at_root);
        }
        self.pending.clear();
        for &(slot, source) in &self.duplicates {
            let (a, b) = (slot.min(source), slot.max(source));
            let (low, high) = self.results.split_at_mut(b);
            if slot < source {
                low[a].clone_from(&high[0]);
            } else {
                high[0].clone_from(&low[a]);
            }
        }
        self.duplicates.clear();
    }

    fn result(&self, slot: usize) -> &LeafEval {
        &self.results[slot]
    }

    /// The table's mean once the root has a result, else the net's score
    /// of the root.
    fn expected_margin(
        &mut self,
        root: &Root,
        table: Option<(f64, u32)>,
        cfg: &SearchConfig,
        _seed: u64,
    ) -> f64 {
        if cfg.score_weight == 0.0 {
            return 0.0;
        }
        if let Some((margin, n)) = table {
            if n >= 1 {
                return margin;
            }
        }
        let symmetry = self.symmetry(cfg);
        self.judge_uncached(root.game, symmetry, history_floor(root, cfg))
            .map_or(0.0, |v| v.black_score as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Geometry;

    #[test]
    fn an_optimism_changes_the_cache_key_and_none_leaves_it() {
        assert_eq!(optimism_salt(0.0), 0);
        let (a, b) = (optimism_salt(0.2), optimism_salt(1.0));
        assert!(a != 0 && b != 0 && a != b);
    }

    #[test]
    fn the_root_temperature_reshapes_the_priors_and_keeps_their_sum() {
        let board = Board::new(Geometry::new(3).unwrap());
        let policy = [0.4, 0.2, 0.1, 0.1, 0.05, 0.05, 0.0, 0.0, 0.0];
        let pass = 0.1;
        let priors_at = |temperature: f32| {
            let mut out = LeafEval::new();
            for (p, &w) in board.geometry().points().zip(&policy) {
                out.priors[p.index()] = Prior {
                    visits: 0.0,
                    wins: w,
                };
            }
            out.pass_prior = Prior {
                visits: 0.0,
                wins: pass,
            };
            apply_temperature(&mut out, &board, temperature);
            let mut all: Vec<f32> = board
                .geometry()
                .points()
                .map(|p| out.priors[p.index()].wins)
                .collect();
            all.push(out.pass_prior.wins);
            all
        };
        let mut original = policy.to_vec();
        original.push(pass);
        assert_eq!(priors_at(1.0), original);
        for temperature in [0.5f32, 2.0, 5.0] {
            // The slow twin: p^(1/T) / sum.
            let raised: Vec<f64> = original
                .iter()
                .map(|&p| f64::from(p).powf(1.0 / f64::from(temperature)))
                .collect();
            let sum: f64 = raised.iter().sum();
            let got = priors_at(temperature);
            for (g, r) in got.iter().zip(&raised) {
                assert!(
                    (f64::from(*g) - r / sum).abs() < 1e-6,
                    "T {temperature}: {got:?}"
                );
            }
            let top = got[0];
            if temperature > 1.0 {
                assert!(top < 0.4, "flatter at T {temperature}");
            } else {
                assert!(top > 0.4, "sharper at T {temperature}");
            }
        }
    }
}
