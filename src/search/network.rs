//! The network evaluator: each new leaf is evaluated once by the net (under a
//! random one of the eight symmetries); its policy becomes the priors of the
//! leaf's edges, its win probability and score distribution its value
//! ([`super::puct::net_value`]), its ownership joins the search's map. No
//! playouts. Values are meant for PUCT selection.
//!
//! Each search thread has one of these, with its own [`nn::Evaluator`]
//! buffers; they share the [`Network`] and a [`NetCache`].

use super::evaluate::{LeafEval, LeafEvaluator, LeafKind, LeafView, Selection};
use super::mcts::{playout_value, Root};
use super::net_cache::{net_input_key, CachedValue, NetCache};
use super::puct::net_value;
use super::SearchConfig;
use crate::board::{Board, Color, Point};
use crate::game::Game;
use crate::nn::{Evaluator, NetEval, Network};
use crate::playout::PlayoutRng;
use crate::priors::Prior;
use std::sync::{Arc, Mutex};

/// See the module documentation.
pub struct NetworkLeaves {
    evaluator: Evaluator,
    cache: Arc<Mutex<NetCache>>,
    /// The leaf's game: the root game with the path played on it.
    game: Game,
    eval: NetEval,
    /// Black's policy (net order, pass last) and ownership of the last leaf.
    policy: Vec<f32>,
    ownership: Vec<f32>,
    rng: PlayoutRng,
    /// Symmetry of every evaluation (for tests); random when `None`.
    pub fixed_symmetry: Option<u8>,
}

/// Locks `cache`, whatever a panicking thread left in it (entries are plain data).
fn lock(cache: &Mutex<NetCache>) -> std::sync::MutexGuard<'_, NetCache> {
    match cache.lock() {
        Ok(c) => c,
        Err(poisoned) => poisoned.into_inner(),
    }
}

impl NetworkLeaves {
    pub fn new(net: Arc<Network>, cache: Arc<Mutex<NetCache>>, game: &Game) -> NetworkLeaves {
        NetworkLeaves {
            evaluator: Evaluator::new(net),
            cache,
            game: game.clone(),
            eval: NetEval::new(),
            policy: Vec::with_capacity(19 * 19 + 1),
            ownership: Vec::with_capacity(19 * 19),
            rng: PlayoutRng::new(0),
            fixed_symmetry: None,
        }
    }

    /// Evaluates `self.game` (cache first) into `policy` and `ownership`;
    /// returns Black's (win probability, score mean, score stdev), or `None`
    /// if the net refuses the position (a board larger than 19×19).
    fn judge_game(&mut self, node_key: u64) -> Option<CachedValue> {
        let n = self.game.board().size();
        self.policy.resize(n * n + 1, 0.0);
        self.ownership.resize(n * n, 0.0);
        let key = net_input_key(node_key, &self.game);
        if let Some(v) = lock(&self.cache).get(key, &mut self.policy, &mut self.ownership) {
            return Some(v);
        }
        let symmetry = match self.fixed_symmetry {
            Some(s) => s,
            None => self.rng.below(8) as u8,
        };
        let value = self.run_net(symmetry)?;
        lock(&self.cache).put(key, value, &self.policy, &self.ownership);
        Some(value)
    }

    /// Runs the net on `self.game` under `symmetry` into `policy` and
    /// `ownership`; Black's values.
    fn run_net(&mut self, symmetry: u8) -> Option<CachedValue> {
        let n = self.game.board().size();
        self.policy.resize(n * n + 1, 0.0);
        self.ownership.resize(n * n, 0.0);
        if let Err(e) = self
            .evaluator
            .evaluate(&self.game, symmetry, 0.0, &mut self.eval)
        {
            crate::log_line!("tengen: network evaluation failed: {e}");
            return None;
        }
        let e = &self.eval;
        let sign = if e.view == Color::Black { 1.0 } else { -1.0 };
        let win = e.win + 0.5 * e.no_result;
        let value = CachedValue {
            black_win: if e.view == Color::Black {
                win
            } else {
                1.0 - win
            },
            black_score: sign * e.score_mean,
            score_stdev: e.score_stdev,
        };
        for (dst, &p) in self.policy.iter_mut().zip(&e.policy) {
            *dst = if p.is_nan() { 0.0 } else { p };
        }
        self.policy[n * n] = if e.pass_policy.is_nan() {
            0.0
        } else {
            e.pass_policy
        };
        for (dst, &o) in self.ownership.iter_mut().zip(&e.ownership) {
            *dst = sign * o;
        }
        Some(value)
    }

    /// Evaluates `game` as it stands (for the root's margin, dead stones
    /// and final scores): Black's values, and Black's ownership by net
    /// index (`y * n + x`) in `ownership()`.
    pub fn judge(&mut self, game: &Game, node_key: u64) -> Option<CachedValue> {
        self.game.clone_from(game);
        self.judge_game(node_key)
    }

    /// Evaluates `game` under `symmetry`, past the cache: Black's values, and
    /// Black's ownership in [`NetworkLeaves::ownership`].
    pub fn judge_uncached(&mut self, game: &Game, symmetry: u8) -> Option<CachedValue> {
        self.game.clone_from(game);
        self.run_net(symmetry)
    }

    /// Black's ownership of the last position judged, `[y * n + x]`.
    pub fn ownership(&self) -> &[f32] {
        &self.ownership
    }

    /// Cache hits and misses so far.
    pub fn cache_stats(&self) -> (u64, u64) {
        let c = lock(&self.cache);
        (c.hits, c.misses)
    }
}

/// Writes net-ordered Black ownership into `out` by point index.
pub fn ownership_by_point(board: &Board, net: &[f32], out: &mut Vec<f32>) {
    let n = board.geometry().size();
    out.clear();
    out.resize(crate::board::CELLS, 0.0);
    for p in board.geometry().points() {
        out[p.index()] = net[p.y() * n + p.x()];
    }
}

impl LeafEvaluator for NetworkLeaves {
    fn selection(&self) -> Selection {
        Selection::Puct
    }

    fn begin_search(&mut self, _root: &Root, seed: u64) {
        self.rng = PlayoutRng::new(seed);
    }

    fn descent_priors(
        &mut self,
        _board: &Board,
        _color: Color,
        _last: Option<Point>,
        _move_number: u32,
        _cfg: &SearchConfig,
        _out: &mut [Prior],
    ) -> Option<Prior> {
        None
    }

    fn evaluate(&mut self, leaf: LeafView, cfg: &SearchConfig, out: &mut LeafEval) {
        out.kind = LeafKind::Judged;
        out.has_priors = false;
        out.moves.clear();
        out.ownership.clear();
        let root = leaf.root;
        let size = leaf.board.geometry().size() as f64;
        if leaf.terminal {
            // Two passes: the board is counted as it stands, as the net's
            // training games were (area scoring, every stone alive).
            let margin = crate::score::area_margin_fast(leaf.board) as f64 - root.game.komi();
            out.margin = margin;
            out.score_stdev = 0.0;
            out.value = playout_value(margin, root.score_center, size, cfg.score_weight);
            return;
        }
        self.game.clone_from(root.game);
        for &(mv, color) in leaf.path {
            if self.game.play(color, mv).is_err() {
                // The tree plays only legal moves; should one slip through,
                // the leaf is worth nothing to either side.
                crate::log_line!("tengen: the search played an illegal {mv:?}");
                out.margin = 0.0;
                out.score_stdev = 0.0;
                out.value = 0.5;
                return;
            }
        }
        let Some(v) = self.judge_game(leaf.key) else {
            out.margin = 0.0;
            out.score_stdev = 0.0;
            out.value = 0.5;
            return;
        };
        out.margin = v.black_score as f64;
        out.score_stdev = v.score_stdev as f64;
        out.value = net_value(
            v.black_win as f64,
            v.black_score as f64,
            v.score_stdev as f64,
            root.score_center,
            size,
            cfg.score_weight,
        );
        let board = self.game.board();
        ownership_by_point(board, &self.ownership, &mut out.ownership);
        let n = board.geometry().size();
        out.priors.fill(Prior::default());
        for p in board.geometry().points() {
            out.priors[p.index()] = Prior {
                visits: 0.0,
                wins: self.policy[p.y() * n + p.x()],
            };
        }
        out.pass_prior = Prior {
            visits: 0.0,
            wins: self.policy[n * n],
        };
        out.has_priors = true;
    }

    /// The table's mean once the root has a few results, else the net's
    /// score of the root.
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
        self.judge(root.game, root.key)
            .map_or(0.0, |v| v.black_score as f64)
    }
}
