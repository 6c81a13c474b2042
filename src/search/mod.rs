//! The search core: [`MctsEngine`] implements [`Engine`] with a graph search
//! over a transposition table, and ownership-based pass, resign and
//! dead-stone decisions. What a leaf is worth comes through one seam from
//! one of two evaluators.
//!
//! - [`key`]: which positions share a node (and the superko reasoning);
//! - [`tt`]: the fixed-size node table and edge arena, kept between moves;
//! - [`mcts`]: descent, expansion, batches of leaves, graph-sound backup;
//! - [`root`]: what a search starts from; [`tree`]: what its threads share;
//! - [`value`]: what a playout's result is worth, to either player;
//! - [`evaluate`]: the seam ([`evaluate::LeafEvaluator`]) and what crosses it;
//! - [`classical`]: heuristic priors and playouts, chosen among by UCT + RAVE;
//! - [`network`]: a KataGo net's policy, value, score and ownership, chosen
//!   among by [`puct`], cached in [`net_cache`];
//! - [`ownership`]: ownership maps, dead stones, seki, settled scores;
//! - [`simulated`]: a net's fixed answer after a chosen latency, for
//!   measuring how the search scales with threads.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use tengen::engine::{Decision, Engine, GenmoveOptions, Limits};
//! use tengen::search::{MctsEngine, SearchConfig};
//! use tengen::{Color, Game, Geometry, Rules};
//! let game = Game::new(Geometry::new(5).unwrap(), Rules::default(), 0.5);
//! let mut engine = MctsEngine::new(SearchConfig { tt_mb: 4, ..SearchConfig::default() });
//! let options = GenmoveOptions {
//!     limits: Limits { playouts: Some(200), time: None },
//!     ..GenmoveOptions::default()
//! };
//! let (decision, report) =
//!     engine.genmove(&game, Color::Black, &options, &AtomicBool::new(false), &mut |_| {});
//! let Decision::Play(mv) = decision else { panic!("no resignation on an empty board") };
//! assert!(game.is_legal(Color::Black, mv));
//! assert!(report.visits > 0 && !report.moves.is_empty());
//! ```

pub mod classical;
pub mod config;
pub mod evaluate;
pub mod human;
pub mod key;
pub mod levels;
pub mod mcts;
pub mod net_cache;
pub mod network;
pub mod ownership;
pub mod puct;
pub mod random;
pub mod root;
pub mod simulated;
pub mod subtree_bias;
#[cfg(test)]
mod test_nets;
pub mod tree;
pub mod tt;
pub mod value;
pub mod value_weight;

pub use config::{QueryOptions, SearchConfig, DEFAULT_PLAYOUTS, MAX_THREADS};
pub use random::RandomEngine;

use crate::engine::level::Level;
use crate::engine::root_choices::RootChoices;
use crate::engine::{Decision, Engine, GenmoveOptions, Limits, MoveInfo, Report};
use crate::go::board::{Color, Move, Point};
use crate::go::game::Game;
use crate::nn::metadata::SgfMetadata;
use crate::nn::Network;
use crate::search::classical::playout::{sample_playouts, PlayoutRng, Policy};
use classical::Classical;
use evaluate::LeafEvaluator;
use human::HumanPlay;
use key::{KeyMode, KeyState};
use mcts::Worker;
use net_cache::{net_input_key, NetCache};
use network::NetworkLeaves;
use ownership::OwnershipMap;
use root::Root;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use tree::Tree;
use tt::{point_move, NO_SLOT};

/// With a network, resign only after this many losing `genmove`s in a row...
pub const RESIGN_AFTER: u32 = 3;
/// ...and this many points behind on 19×19 (scaled by area on other boards),
/// and a quarter of the empty points.
pub const RESIGN_BEHIND: f64 = 10.0;

/// Mixed into the seed of the level's move draws, so they do not repeat the
/// search's random stream.
const LEVEL_SEED: u64 = 0x6c65_7665_6c73;

/// Visits behind the root's moves needed before resigning: playouts are
/// noisy and need many; a net's judgement needs fewer (a slow net at a fast
/// clock searches a few dozen visits a move and would never resign).
const RESIGN_EVIDENCE_PLAYOUTS: u64 = 64;
const RESIGN_EVIDENCE_NETWORK: u64 = 16;

/// Moves in a reported principal variation, at most.
pub const MAX_PV: usize = 16;

/// How a search should end.
#[derive(Clone, Copy, Debug)]
struct StopRule {
    /// Simulations (visits of the root) this search may run.
    visits: Option<u64>,
    time: Option<Duration>,
    /// Stop once the most visited move cannot be overtaken in the time
    /// left (only against a clock: a visit limit is searched to its end,
    /// since the move is chosen by more than the visits).
    early: bool,
}

/// The network side of an engine made with [`MctsEngine::with_network`]:
/// the net, its evaluation cache, and one evaluator per search thread.
struct NetworkParts {
    net: Arc<Network>,
    cache: Arc<Mutex<NetCache>>,
    threads: Vec<NetworkLeaves>,
}

/// The search engine. See the module documentation.
pub struct MctsEngine {
    config: SearchConfig,
    tree: Mutex<Tree>,
    searches: u64,
    /// The classical evaluator of each search thread (kept between searches):
    /// the engine's own without a net, and with one on boards larger than
    /// the net takes.
    classical: Vec<Classical<Policy>>,
    network: Option<NetworkParts>,
    /// `genmove`s in a row whose best move's win rate was below the
    /// resignation threshold.
    losing_streak: u32,
    /// Visits searched over the losing streak: a slow net at a fast clock
    /// may search a handful of visits a move, and its judgement over several
    /// moves is the evidence for resigning.
    losing_evidence: u64,
    /// Draws the moves of a level below full strength.
    level_rng: PlayoutRng,
    /// Human-like play, with a human-SL net.
    human: Option<HumanPlay>,
    /// The last position's ownership averaged over the net's 8 symmetries,
    /// under its [`net_input_key`] with the full-history node key: one
    /// `final_status_list` or `final_score` after another asks the net once.
    final_ownership: Option<(u64, OwnershipMap)>,
}

fn lock(tree: &Mutex<Tree>) -> std::sync::MutexGuard<'_, Tree> {
    match tree.lock() {
        Ok(t) => t,
        Err(poisoned) => poisoned.into_inner(),
    }
}

impl MctsEngine {
    /// A classical engine: playouts follow `config.playout_policy`.
    ///
    /// # Panics
    /// If the table's memory cannot be had; see [`MctsEngine::try_new`].
    pub fn new(config: SearchConfig) -> MctsEngine {
        MctsEngine::try_new(config).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Like [`MctsEngine::new`], with a message instead of a panic when the
    /// table's memory (`config.tt_mb`) cannot be had.
    ///
    /// # Errors
    /// The allocation failed.
    pub fn try_new(config: SearchConfig) -> Result<MctsEngine, String> {
        MctsEngine::build(config, None)
    }

    /// An engine whose leaves the network `net` evaluates (PUCT search).
    ///
    /// # Errors
    /// The table's memory cannot be had.
    pub fn with_network(config: SearchConfig, net: Arc<Network>) -> Result<MctsEngine, String> {
        MctsEngine::with_network_cache(config, net, Arc::new(Mutex::new(NetCache::new())))
    }

    /// Like [`MctsEngine::with_network`], with an evaluation cache shared with
    /// other engines on the same net (the analysis engine's parallel searches).
    ///
    /// # Errors
    /// The table's memory cannot be had.
    pub fn with_network_cache(
        config: SearchConfig,
        net: Arc<Network>,
        cache: Arc<Mutex<NetCache>>,
    ) -> Result<MctsEngine, String> {
        let network = NetworkParts {
            net,
            cache,
            threads: Vec::new(),
        };
        MctsEngine::build(config, Some(network))
    }

    fn build(config: SearchConfig, network: Option<NetworkParts>) -> Result<MctsEngine, String> {
        let tree = Tree::try_new(config.tt_mb).map_err(|_| {
            format!(
                "cannot allocate {} MB for the transposition table",
                config.tt_mb
            )
        })?;
        Ok(MctsEngine {
            tree: Mutex::new(tree),
            searches: 0,
            classical: Vec::new(),
            network,
            losing_streak: 0,
            losing_evidence: 0,
            final_ownership: None,
            level_rng: PlayoutRng::new(config.seed ^ LEVEL_SEED),
            human: None,
            config,
        })
    }

    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Sets the options the analysis engine's queries may change for the
    /// next searches: [`SearchConfig::ignore_pre_root_history`],
    /// [`SearchConfig::root_policy_temperature`] and the policy optimism
    /// below and at the root.
    pub fn set_query_options(&mut self, options: QueryOptions) {
        self.config.ignore_pre_root_history = options.ignore_pre_root_history;
        self.config.root_policy_temperature = options.root_policy_temperature;
        self.config.policy_optimism = options.policy_optimism;
        self.config.root_policy_optimism = options.root_policy_optimism;
    }

    /// Whether a network evaluates the leaves (on boards it takes).
    pub fn uses_network(&self) -> bool {
        self.network.is_some()
    }

    /// Whether the network evaluates `game`'s leaves: there is one, and the
    /// board is one it takes (up to 19 on each side; larger boards are
    /// searched the classical way).
    fn network_for(&self, game: &Game) -> bool {
        self.network.is_some() && game.board().geometry().max_side() <= crate::nn::MAX_BOARD_SIZE
    }

    /// Plays like a person from now on: `genmove`'s board moves are drawn
    /// from `net`'s human policy under the configured profile (see
    /// [`human`]); the search with the main net still decides the rest.
    ///
    /// # Errors
    /// The engine has no main network to search and veto with.
    pub fn set_human_net(&mut self, net: Arc<Network>) -> Result<(), String> {
        let Some(parts) = &self.network else {
            return Err("human-like play needs a main network to search with".into());
        };
        self.human = Some(HumanPlay::new(
            net,
            parts.net.clone(),
            self.config.human_profile,
            self.config.seed ^ LEVEL_SEED.rotate_left(17),
        ));
        Ok(())
    }

    /// Playouts (leaf evaluations) run by the last search.
    pub fn last_playouts(&self) -> u64 {
        lock(&self.tree).playouts
    }

    /// Visits of the node holding `game`'s position with `color` to move, and
    /// its table slot; `None` if the table has no such node.
    pub fn node_of(&self, game: &Game, color: Color) -> Option<(u32, u32)> {
        let root = Root::new(game, color, &self.config);
        let t = lock(&self.tree);
        t.table
            .find(root.key, NO_SLOT)
            .map(|s| (s, t.table.node(s).visits()))
    }

    /// Searches `game` for `color` until a limit of `limits` is reached (no
    /// limit: until `stop` is set), never stopping early, and returns the
    /// final report; `progress` gets a report every `interval`, not the final
    /// one. The root never plays the points of `excluded` (they are not
    /// reported either). For analysis front ends (KataGo's JSON engine).
    #[allow(clippy::too_many_arguments)]
    pub fn analyze_within(
        &mut self,
        game: &Game,
        color: Color,
        limits: Limits,
        excluded: &[Point],
        interval: Duration,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(&Report),
    ) -> Report {
        let rule = StopRule {
            visits: limits.playouts,
            time: limits.time,
            early: false,
        };
        let root_moves = RootMoves {
            excluded,
            report_at_end: false,
        };
        self.search_root(game, color, rule, root_moves, stop, interval, progress)
    }

    /// Forgets the search tree but keeps the network's evaluation cache, so
    /// the next search starts from no visits (what `clear` does to the tree
    /// alone).
    pub fn clear_tree(&mut self) {
        lock(&self.tree).table.clear();
        self.final_ownership = None;
    }

    /// Searches `game` for `color` within `limits` with `evaluators`, one
    /// per search thread, in place of the engine's own (the configured
    /// thread count does not apply): for measuring the search itself, as
    /// with [`simulated::SimulatedNet`].
    pub fn search_with<E: LeafEvaluator>(
        &mut self,
        game: &Game,
        color: Color,
        limits: Limits,
        evaluators: &mut [E],
    ) -> Report {
        let never = AtomicBool::new(false);
        let search = Search {
            cfg: &self.config,
            tree: &self.tree,
            game,
            color,
            rule: StopRule {
                visits: limits.playouts,
                time: limits.time,
                early: false,
            },
            stop: &never,
            interval: Duration::MAX,
            root_moves: RootMoves {
                excluded: &[],
                report_at_end: false,
            },
        };
        self.searches += 1;
        search.run(self.searches, evaluators, &mut |_| {})
    }

    /// Makes sure there are `n` evaluators of the kind that searches `game`.
    fn ensure_evaluators(&mut self, n: usize, game: &Game) {
        let use_network = self.network_for(game);
        match &mut self.network {
            Some(parts) if use_network => {
                while parts.threads.len() < n {
                    parts.threads.push(NetworkLeaves::new(
                        parts.net.clone(),
                        parts.cache.clone(),
                        game,
                        self.config.batch,
                        self.config.human_profile,
                    ));
                }
            }
            _ => {
                while self.classical.len() < n {
                    self.classical
                        .push(Classical::new(self.config.playout_policy));
                }
            }
        }
    }

    /// Searches `game` for `color` under `rule`, never beginning with a
    /// point of `excluded`, reporting every `interval` and at the end.
    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        game: &Game,
        color: Color,
        rule: StopRule,
        excluded: &[Point],
        stop: &AtomicBool,
        interval: Duration,
        progress: &mut dyn FnMut(&Report),
    ) -> Report {
        let root_moves = RootMoves {
            excluded,
            report_at_end: true,
        };
        self.search_root(game, color, rule, root_moves, stop, interval, progress)
    }

    /// [`MctsEngine::search`] with the root's moves and the last report as
    /// `root_moves` says.
    #[allow(clippy::too_many_arguments)]
    fn search_root(
        &mut self,
        game: &Game,
        color: Color,
        rule: StopRule,
        root_moves: RootMoves<'_>,
        stop: &AtomicBool,
        interval: Duration,
        progress: &mut dyn FnMut(&Report),
    ) -> Report {
        let threads = self.config.threads.clamp(1, MAX_THREADS);
        self.ensure_evaluators(threads, game);
        let search = Search {
            cfg: &self.config,
            tree: &self.tree,
            game,
            color,
            rule,
            stop,
            interval,
            root_moves,
        };
        self.searches += 1;
        match &mut self.network {
            Some(parts) if game.board().geometry().max_side() <= crate::nn::MAX_BOARD_SIZE => {
                search.run(self.searches, &mut parts.threads[..threads], progress)
            }
            _ => search.run(self.searches, &mut self.classical[..threads], progress),
        }
    }
}

/// One search's settings: see [`MctsEngine::search`].
struct Search<'a> {
    cfg: &'a SearchConfig,
    tree: &'a Mutex<Tree>,
    game: &'a Game,
    color: Color,
    rule: StopRule,
    stop: &'a AtomicBool,
    interval: Duration,
    root_moves: RootMoves<'a>,
}

/// What a search may play at the root, and whether its last report goes to
/// `progress` too.
#[derive(Clone, Copy)]
struct RootMoves<'a> {
    /// Board plays the root never searches (nor reports).
    excluded: &'a [Point],
    report_at_end: bool,
}

impl Search<'_> {
    /// Runs search number `searches` with `evaluators`, one per thread.
    fn run<E: LeafEvaluator>(
        &self,
        searches: u64,
        evaluators: &mut [E],
        progress: &mut dyn FnMut(&Report),
    ) -> Report {
        let (cfg, tree, stop) = (self.cfg, self.tree, self.stop);
        let start = Instant::now();
        let mut root = Root::new(self.game, self.color, cfg);
        for p in self.root_moves.excluded {
            if let Some(searched) = root.searched.get_mut(p.index()) {
                *searched = false;
            }
        }
        let table_margin = {
            let t = lock(tree);
            t.table
                .find(root.key, NO_SLOT)
                .map(|s| t.table.node(s))
                .map(|n| (n.score(), n.score_n))
        };
        let Some((first, others)) = evaluators.split_first_mut() else {
            return Report::default();
        };
        root.score_center = first.expected_margin(&root, table_margin, cfg, cfg.seed ^ searches);
        {
            let mut t = lock(tree);
            t.table.new_search();
            t.ownership.clear();
            t.playouts = 0;
            t.simulations = 0;
            t.prunes = 0;
            t.in_flight = 0;
            t.biases.new_search();
            t.budget = self.rule.visits.map_or(u64::MAX, |n| n.max(1));
            t.expand_after = root.expand_after;
            // The root's own evaluation is its own now: no correction from
            // the buckets of the search in which it was a descendant.
            if let Some(slot) = t.table.find(root.key, NO_SLOT) {
                t.table.node_mut(slot).bias = subtree_bias::Contribution::default();
            }
            if t.table.edge_usage() > 0.5 {
                if let Some(slot) = t.table.find_or_insert(root.key, NO_SLOT, &[]) {
                    t.table.compact(slot);
                }
            }
        }
        let seed = cfg.seed ^ searches.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let exact = first.selection() == evaluate::Selection::Puct;
        let done = AtomicBool::new(false);
        let wake = Condvar::new();
        let root_ref = &root;
        std::thread::scope(|scope| {
            for (i, eval) in others.iter_mut().enumerate() {
                let (done, wake) = (&done, &wake);
                eval.begin_search(root_ref, seed.wrapping_add(i as u64 + 1));
                let mut workers = Worker::batch(eval.batch_size(), &root_ref.board);
                scope.spawn(move || {
                    while !done.load(Ordering::Relaxed) && !stop.load(Ordering::Relaxed) {
                        let n =
                            Worker::simulate_batch(&mut workers, tree, wake, root_ref, cfg, eval);
                        if n == 0 {
                            if lock(tree).budget_claimed() {
                                break;
                            }
                            Worker::wait_for_room(tree, wake, root_ref);
                        }
                    }
                });
            }
            first.begin_search(root_ref, seed);
            let mut workers = Worker::batch(first.batch_size(), &root_ref.board);
            let mut last_report = Instant::now();
            let mut iterations = 0u64;
            let mut batch = workers.len();
            let mut per_leaf = Duration::ZERO;
            // At least one simulation, so that even an immediate stop has a move.
            loop {
                let batch_start = Instant::now();
                let done_now = Worker::simulate_batch(
                    &mut workers[..batch],
                    tree,
                    &wake,
                    root_ref,
                    cfg,
                    first,
                );
                if done_now == 0 {
                    Worker::wait_for_room(tree, &wake, root_ref);
                } else {
                    iterations += done_now as u64;
                    // With a slow net a batch is a sizeable part of a move's
                    // time: the next one holds as many leaves as can end in
                    // time (a full batch that cannot would leave that time
                    // unused), and none is started when not even one leaf can.
                    per_leaf = batch_start.elapsed() / done_now as u32;
                    batch =
                        leaves_in_time(per_leaf, self.rule.time, start.elapsed(), workers.len());
                }
                let next_batch = per_leaf * batch as u32;
                if stop.load(Ordering::Relaxed)
                    || MctsEngine::should_stop(
                        tree, root_ref, self.rule, start, next_batch, iterations,
                    )
                {
                    break;
                }
                if last_report.elapsed() >= self.interval {
                    last_report = Instant::now();
                    let report = MctsEngine::report(&lock(tree), root_ref, cfg, exact);
                    progress(&report);
                }
            }
            done.store(true, Ordering::Relaxed);
            wake.notify_all();
        });
        let report = MctsEngine::report(&lock(tree), &root, cfg, exact);
        if self.root_moves.report_at_end {
            progress(&report);
        }
        report
    }
}

/// Visits behind a search's root moves.
fn root_visits(report: &Report) -> u64 {
    report.moves.iter().map(|m| m.visits).sum()
}

/// How many leaves of at most `full` the next batch may hold so that it ends
/// within `limit` (at least one: whether that one still fits is the stop
/// rule's question), each taking about `per_leaf`.
fn leaves_in_time(
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

impl MctsEngine {
    /// Whether the limits are reached (the time limit: by the time a next
    /// batch taking `next_batch` would end), or the best root move can no
    /// longer change.
    fn should_stop(
        tree: &Mutex<Tree>,
        root: &Root,
        rule: StopRule,
        start: Instant,
        next_batch: Duration,
        iterations: u64,
    ) -> bool {
        let t = lock(tree);
        let elapsed = start.elapsed();
        if t.budget_claimed() || rule.time.is_some_and(|limit| elapsed + next_batch >= limit) {
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

    /// The state of the search at the root. Win rates are the mean winning
    /// chances of the results below each node when `exact_winrates` (the
    /// network's search), else read back from the blended values
    /// ([`value::winrate_of`], as the classical search always has).
    fn report(t: &Tree, root: &Root, cfg: &SearchConfig, exact_winrates: bool) -> Report {
        let color = root.color;
        let sign = if color == Color::Black { 1.0 } else { -1.0 };
        let for_color = |black_winrate: f64| {
            if color == Color::Black {
                black_winrate
            } else {
                1.0 - black_winrate
            }
        };
        let winrate = |black_q: f64, node: Option<&tt::Node>| match node {
            Some(n) if exact_winrates && n.score_n > 0 => for_color(n.win_rate()),
            _ => for_color(value::winrate_of(black_q, cfg.score_weight)),
        };
        let mut report = Report {
            visits: t.simulations,
            ownership: t.ownership.for_color(&root.board, color),
            ownership_stdev: t.ownership.stdev(&root.board),
            ..Report::default()
        };
        let Some(slot) = t.table.find(root.key, NO_SLOT) else {
            return report;
        };
        let node = t.table.node(slot);
        let utility = |black_q: f64| sign * (2.0 * black_q - 1.0);
        report.winrate = winrate(node.value(), Some(node));
        report.score_lead = sign * node.mean_outcome().lead;
        report.score_mean = sign * node.score();
        report.score_stdev = node.score_stdev();
        report.utility = utility(node.value());
        let edges = t.table.edges(slot);
        if exact_winrates {
            if let Some(o) = Self::pruned_root_outcome(t, slot, root, cfg) {
                report.winrate = for_color(o.win);
                report.score_lead = sign * o.lead;
                report.score_mean = sign * o.margin;
            }
        }
        let prior_total: f64 = edges
            .iter()
            .map(|e| e.prior_w as f64)
            .sum::<f64>()
            .max(1e-9);
        let mut moves: Vec<(MoveInfo, f64)> = edges
            .iter()
            .filter(|e| e.visits > 0 && root.searches(e.point))
            .map(|e| {
                let n = e.visits as f64;
                let child = t.table.find(e.child_key, e.child_slot);
                let winrate = winrate(e.child_q as f64, child.map(|c| t.table.node(c)));
                let (score, lead, stdev) = child.map_or((0.0, 0.0, 0.0), |c| {
                    let node = t.table.node(c);
                    let lead = node.mean_outcome().lead;
                    (sign * node.score(), sign * lead, node.score_stdev())
                });
                let mut pv = vec![point_move(e.point)];
                let mut pv_visits = vec![e.visits as u64];
                if let Some(c) = child {
                    Self::principal_variation(&t.table, c, &mut pv, &mut pv_visits);
                }
                let variance = child.map_or(0.0, |c| {
                    let node = t.table.node(c);
                    node.value_sq_mean() - node.value() * node.value()
                });
                let mover_q = value::for_mover(e.child_q, color) as f64;
                let value_lcb = puct::value_lcb(mover_q, variance, e.visits);
                // The network's search shows the bound it chooses by, moved
                // to the win rate (as KataGo shows it); the classical search
                // a binomial bound of the win rate.
                let lcb = if exact_winrates {
                    winrate - (mover_q - value_lcb)
                } else {
                    winrate - 1.96 * (winrate * (1.0 - winrate) / n).sqrt()
                };
                let info = MoveInfo {
                    mv: point_move(e.point),
                    visits: e.visits as u64,
                    winrate,
                    prior: e.prior_w as f64 / prior_total,
                    lcb: lcb.max(0.0),
                    score_lead: lead,
                    score_mean: score,
                    score_stdev: stdev,
                    utility: utility(e.child_q as f64),
                    pv,
                    pv_visits,
                };
                (info, value_lcb)
            })
            .collect();
        if moves.is_empty() {
            // The search ended before a root move was visited (a slow net, a
            // short clock): the policy's favourite, with the root's values.
            let favourite = edges
                .iter()
                .filter(|e| root.searches(e.point))
                .max_by(|a, b| a.prior_w.total_cmp(&b.prior_w));
            if let Some(e) = favourite {
                let prior = e.prior_w as f64 / prior_total;
                let info = MoveInfo::unvisited(point_move(e.point), prior, &report);
                moves.push((info, f64::NEG_INFINITY));
            }
        }
        moves.sort_by(|(a, _), (b, _)| {
            b.visits
                .cmp(&a.visits)
                .then(b.winrate.total_cmp(&a.winrate))
        });
        // The network's search plays, as KataGo, the well-visited move with
        // the best lower confidence bound; it goes first.
        if exact_winrates {
            if let Some(i) = puct::lcb_choice(moves.iter().map(|(m, lcb)| (m.visits, *lcb))) {
                moves[..=i].rotate_right(1);
            }
        }
        report.moves = moves.into_iter().map(|(m, _)| m).collect();
        report.unvisited = edges
            .iter()
            .filter(|e| e.visits == 0 && root.searches(e.point))
            .map(|e| (point_move(e.point), e.prior_w as f64 / prior_total))
            .filter(|(mv, _)| report.moves.iter().all(|m| m.mv != *mv))
            .collect();
        report.unvisited.sort_by(|a, b| b.1.total_cmp(&a.1));
        report
    }

    /// The root's win rate, lead and margin (Black's) as the mean of its
    /// children's, each weighted by the visits it keeps in hindsight
    /// ([`puct::retrospective_weights`]), as KataGo reports its root: the
    /// visits spent exploring poor moves, all poor for the player to move,
    /// would otherwise pull every root's figures toward the opponent, and
    /// the lead would swing with the side to move from one position to the
    /// next. `None` without two visited children to weigh.
    fn pruned_root_outcome(
        t: &Tree,
        slot: u32,
        root: &Root,
        cfg: &SearchConfig,
    ) -> Option<tt::Outcome> {
        let (node, edges) = (t.table.node(slot), t.table.edges(slot));
        let mut weights = Vec::with_capacity(edges.len());
        let allowed = |e: &tt::Edge| root.searches(e.point);
        puct::retrospective_weights(node, edges, root.color, &cfg.puct, allowed, &mut weights);
        let (mut sum, mut weight, mut children) = (tt::Outcome::default(), 0.0, 0);
        for (e, &w) in edges.iter().zip(&weights) {
            let Some(c) = t.table.find(e.child_key, e.child_slot).filter(|_| w > 0.0) else {
                continue;
            };
            let child = t.table.node(c);
            if child.score_n == 0 {
                continue;
            }
            let o = child.mean_outcome();
            sum.win += w * o.win;
            sum.lead += w * o.lead;
            sum.margin += w * o.margin;
            weight += w;
            children += 1;
        }
        (children >= 2 && weight > 0.0).then(|| tt::Outcome {
            win: sum.win / weight,
            lead: sum.lead / weight,
            margin: sum.margin / weight,
            ..sum
        })
    }

    /// Extends `pv` by following the most visited edges from `slot`, and
    /// `visits` by those edges' visits.
    fn principal_variation(
        table: &tt::Table,
        mut slot: u32,
        pv: &mut Vec<Move>,
        visits: &mut Vec<u64>,
    ) {
        while pv.len() < MAX_PV {
            let best = table
                .edges(slot)
                .iter()
                .filter(|e| e.visits > 0)
                .max_by_key(|e| e.visits);
            let Some(e) = best else { break };
            pv.push(point_move(e.point));
            visits.push(e.visits as u64);
            match table.find(e.child_key, e.child_slot) {
                Some(c) if c != slot => slot = c,
                _ => break,
            }
        }
    }

    /// Ownership from `dead_stone_playouts` settling playouts of `game`'s
    /// position ([`Policy::Settling`]: nobody throws a chain into atari, so
    /// sekis and capture races that neither side should start stand), half
    /// with each colour to move first, so that the count of a finished game
    /// does not hang on whose turn it would be.
    fn playout_ownership(&self, game: &Game) -> OwnershipMap {
        let mut map = OwnershipMap::default();
        let mut rng = PlayoutRng::new(self.config.seed ^ 0xdead);
        let cap = crate::search::classical::playout::default_max_moves(game.board());
        let last = game.last_turn().and_then(|t| match t.mv {
            Move::Play(p) => Some(p),
            Move::Pass => None,
        });
        let (to_move, n) = (game.to_move(), self.config.dead_stone_playouts.max(2));
        sample_playouts(
            &mut Policy::Settling,
            game.board(),
            n,
            |i| {
                if i % 2 == 0 {
                    (to_move, last)
                } else {
                    (to_move.opp(), None)
                }
            },
            &mut rng,
            cap,
            |end| {
                map.add(end);
            },
        );
        map
    }

    /// The network's ownership of `game`'s position, averaged over the eight
    /// symmetries; `None` without a network (or if it cannot evaluate).
    fn network_ownership(&mut self, game: &Game) -> Option<OwnershipMap> {
        if !self.network_for(game) {
            return None;
        }
        let history_key =
            KeyState::of_game(game).key(game.board(), game.to_move(), KeyMode::PlainTree);
        let key = net_input_key(history_key, game, None);
        if let Some((k, map)) = &self.final_ownership {
            if *k == key {
                return Some(map.clone());
            }
        }
        self.ensure_evaluators(1, game);
        let eval = self.network.as_mut()?.threads.first_mut()?;
        let mut map = OwnershipMap::default();
        let mut by_point = Vec::new();
        for symmetry in 0..8 {
            eval.judge_uncached(game, symmetry, None)?;
            network::ownership_by_point(game.board(), eval.ownership(), &mut by_point);
            map.add_black(game.board(), &by_point);
        }
        self.final_ownership = Some((key, map.clone()));
        Some(map)
    }

    /// With a network: whether resigning is right besides the low win rate:
    /// the net's win rate has stayed low for [`RESIGN_AFTER`] moves in a
    /// row, and the score lead is worse than [`RESIGN_BEHIND`] points
    /// (scaled by the board's area) and than a quarter of the empty points,
    /// the points still in play. So a game lost by a point or two, or one
    /// still being caught up (a handicap game as White), is played out
    /// against a fallible opponent.
    ///
    /// Below full strength (a level, or human-like play) the streak and the
    /// margin are twice as long: the search judges by its own play, which
    /// the engine then does not play.
    fn hopeless(&self, game: &Game, score_lead: f64) -> bool {
        let board = game.board();
        let area = board.geometry().area() as f64;
        let behind = (RESIGN_BEHIND * area / 361.0).max(board.num_empty() as f64 / 4.0);
        let below_full_strength = self.config.level != Level::Max || self.human.is_some();
        let patience = if below_full_strength { 2 } else { 1 };
        self.losing_streak >= patience * RESIGN_AFTER && score_lead < -behind * patience as f64
    }

    /// The net's policy over `color`'s legal moves (pass included) at the
    /// root of the last search: the priors of the root's edges.
    fn root_policy(&self, game: &Game, color: Color) -> Vec<(Move, f32)> {
        let root = Root::new(game, color, &self.config);
        let t = lock(&self.tree);
        let Some(slot) = t.table.find(root.key, NO_SLOT) else {
            return Vec::new();
        };
        t.table
            .edges(slot)
            .iter()
            .filter(|e| root.searches(e.point))
            .map(|e| (point_move(e.point), e.prior_w))
            .collect()
    }

    /// Below full strength, the board move the human-SL net (see
    /// [`human`]) or the level (see [`levels`]) plays instead of the
    /// search's; passes, resignation and the clean-up stay the search's.
    fn below_full_strength(
        &mut self,
        game: &Game,
        color: Color,
        options: &GenmoveOptions,
        decision: Decision,
        report: &Report,
    ) -> Decision {
        if options.cleanup
            || !self.network_for(game)
            || !matches!(decision, Decision::Play(Move::Play(_)))
        {
            return decision;
        }
        // A move the front end avoids is never played; an image of a searched
        // move is as good as it.
        let avoided = options.root.map_or(&[][..], RootChoices::avoided);
        let admitted = |mv: Move| {
            game.is_legal(color, mv) && !matches!(mv, Move::Play(p) if avoided.contains(&p))
        };
        if let Some(human) = &mut self.human {
            return human
                .choose(game, color, report)
                .filter(|&mv| admitted(mv))
                .map_or(decision, Decision::Play);
        }
        let Some(kyu) = self.config.level.kyu() else {
            return decision;
        };
        let mut policy = self.root_policy(game, color);
        if policy.is_empty() {
            return decision;
        }
        let points = game.board().geometry().area();
        let visits: Vec<(Move, u64)> = report.moves.iter().map(|m| (m.mv, m.visits)).collect();
        let mv = levels::pick(kyu, points, &mut policy, &visits, &mut self.level_rng);
        if admitted(mv) {
            Decision::Play(mv)
        } else {
            decision
        }
    }

    /// The move to play given the finished search (see the module docs of
    /// [`crate::engine`] for what the options mean).
    fn decide(
        &self,
        game: &Game,
        color: Color,
        options: &GenmoveOptions,
        report: &Report,
    ) -> Decision {
        let legal = |mv: Move| game.is_legal(color, mv);
        let best_board_play = report
            .moves
            .iter()
            .find(|m| m.mv != Move::Pass && legal(m.mv))
            .map(|m| m.mv);
        let Some(best) = report.moves.iter().find(|m| legal(m.mv)) else {
            return Decision::Play(Move::Pass);
        };
        let area = game.board().geometry().area() as u32;
        // Visits behind the root's moves, this search's and those kept in
        // the table from earlier ones (an early stop may add only a few);
        // with a net, or those searched over the whole losing streak when
        // that is more (the playouts' noisy judgement needs one long search).
        let network = self.network_for(game);
        let evidence = if network {
            root_visits(report).max(self.losing_evidence)
        } else {
            root_visits(report)
        };
        let min_evidence = if network {
            RESIGN_EVIDENCE_NETWORK
        } else {
            RESIGN_EVIDENCE_PLAYOUTS
        };
        if options.allow_resign
            && !options.cleanup
            && self.config.resign_threshold > 0.0
            && game.move_number() >= area / 2
            && evidence >= min_evidence
            && best.winrate < self.config.resign_threshold
            && (!network || self.hopeless(game, best.score_lead))
        {
            return Decision::Resign;
        }
        let t = lock(&self.tree);
        let board = game.board();
        let opponent_passed = game.last_turn().is_some_and(|t| t.mv == Move::Pass);
        let sign = if color == Color::Black { 1.0 } else { -1.0 };
        let settled = sign
            * t.ownership
                .settled_margin(board, game.rules().scoring, game.effective_komi());
        let dead_opponents = t
            .ownership
            .dead_stones(board)
            .iter()
            .any(|&p| board.at(p).color() == Some(color.opp()));
        drop(t);
        let mv = match best.mv {
            Move::Pass if options.cleanup && dead_opponents => {
                best_board_play.unwrap_or(Move::Pass)
            }
            Move::Pass if opponent_passed && settled < 0.0 => best_board_play.unwrap_or(Move::Pass),
            Move::Play(_)
                if opponent_passed && !options.cleanup && settled > 0.0 && best.winrate > 0.5 =>
            {
                Move::Pass
            }
            // Cleanup is over once no dead opponent stone is left.
            Move::Play(_) if opponent_passed && options.cleanup && !dead_opponents => Move::Pass,
            mv => mv,
        };
        Decision::Play(if legal(mv) { mv } else { Move::Pass })
    }
}

impl Engine for MctsEngine {
    fn genmove(
        &mut self,
        game: &Game,
        color: Color,
        options: &GenmoveOptions,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(&Report),
    ) -> (Decision, Report) {
        let Limits { playouts, time } = options.limits;
        let playouts = playouts.or(self.config.playouts).or(if time.is_none() {
            Some(DEFAULT_PLAYOUTS)
        } else {
            None
        });
        let rule = StopRule {
            visits: playouts,
            time,
            early: time.is_some() && !options.use_all_time,
        };
        let interval = self.config.report_interval;
        let excluded = options.root.map(RootChoices::excluded).unwrap_or_default();
        let report = self.search(game, color, rule, &excluded, stop, interval, progress);
        let losing = report
            .moves
            .first()
            .is_some_and(|m| m.winrate < self.config.resign_threshold);
        self.losing_streak = if losing { self.losing_streak + 1 } else { 0 };
        self.losing_evidence = if losing {
            self.losing_evidence + report.visits
        } else {
            0
        };
        let decision = self.decide(game, color, options, &report);
        let decision = self.below_full_strength(game, color, options, decision, &report);
        (decision, report)
    }

    fn analyze(
        &mut self,
        game: &Game,
        color: Color,
        excluded: &[Point],
        interval: Duration,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(&Report),
    ) {
        let rule = StopRule {
            visits: None,
            time: None,
            early: false,
        };
        self.search(game, color, rule, excluded, stop, interval, progress);
    }

    /// Settling playouts decide, a short search of the player to move is the
    /// second opinion on chains they leave in doubt
    /// ([`OwnershipMap::dead_stones_checked`]); it runs only when there is
    /// such a chain, and nothing runs on a board without stones.
    fn dead_stones(&mut self, game: &Game) -> Vec<Point> {
        let board = game.board();
        if board.num_empty() == board.geometry().area() {
            return Vec::new();
        }
        if let Some(net_map) = self.network_ownership(game) {
            // The net decides; settling playouts are the second opinion on
            // the chains it leaves in doubt.
            if !net_map.leaves_chains_in_doubt(board) {
                return net_map.dead_stones(board);
            }
            let settling = self.playout_ownership(game);
            return net_map.dead_stones_checked(board, &settling);
        }
        let settling = self.playout_ownership(game);
        if !settling.leaves_chains_in_doubt(board) {
            return settling.dead_stones(board);
        }
        let rule = StopRule {
            visits: Some(u64::from(self.config.dead_stone_playouts)),
            time: None,
            early: false,
        };
        let never = AtomicBool::new(false);
        self.search(
            game,
            game.to_move(),
            rule,
            &[],
            &never,
            Duration::MAX,
            &mut |_| {},
        );
        let searched = lock(&self.tree).ownership.clone();
        settling.dead_stones_checked(game.board(), &searched)
    }

    /// From the network's ownership: chains neither side owns that share a
    /// liberty ([`OwnershipMap::seki_stones`]), never a dead one. Without a
    /// network, none (playouts cannot tell a seki from an open fight).
    fn seki_stones(&mut self, game: &Game) -> Vec<Point> {
        let Some(map) = self.network_ownership(game) else {
            return Vec::new();
        };
        let dead = self.dead_stones(game);
        let mut seki = map.seki_stones(game.board());
        seki.retain(|p| !dead.contains(p));
        seki
    }

    fn set_level(&mut self, level: Level) -> Result<(), String> {
        if level != Level::Max && self.network.is_none() {
            return Err("a level below max needs a network (not --classical)".into());
        }
        self.config.level = level;
        Ok(())
    }

    fn set_human_profile(&mut self, profile: Option<SgfMetadata>) -> Result<(), String> {
        self.config.human_profile = profile;
        if let Some(human) = &mut self.human {
            human.set_profile(profile);
        }
        if let Some(parts) = &mut self.network {
            // Evaluations under the old profile are stale everywhere.
            parts.threads.clear();
            self.clear();
        }
        Ok(())
    }

    fn clear(&mut self) {
        lock(&self.tree).table.clear();
        self.losing_streak = 0;
        self.losing_evidence = 0;
        self.final_ownership = None;
        if let Some(parts) = &self.network {
            match parts.cache.lock() {
                Ok(mut c) => c.clear(),
                Err(poisoned) => poisoned.into_inner().clear(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Geometry;
    use crate::go::rules::{KoRule, Preset};
    use crate::search::puct::PuctConfig;

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

    /// The root's priors come from the net at `root_policy_optimism`: with a
    /// net that has an optimistic policy head (the transformer, version 15)
    /// and the same seed (so the same symmetry), optimism 1 at the root moves
    /// the priors away from optimism 0.
    #[test]
    fn the_root_is_judged_at_its_own_policy_optimism() {
        let Some(net) = super::test_nets::transformer() else {
            return;
        };
        let mut game = Game::new(Geometry::new(9).unwrap(), Preset::Chinese.rules(), 7.0);
        game.play(
            Color::Black,
            Move::Play(game.board().geometry().point(4, 4).unwrap()),
        )
        .unwrap();
        let priors = |root_policy_optimism: f32| {
            let config = SearchConfig {
                tt_mb: 4,
                root_policy_optimism,
                ..SearchConfig::default()
            };
            let mut engine = MctsEngine::with_network(config, net.clone()).unwrap();
            let options = GenmoveOptions {
                limits: Limits {
                    playouts: Some(1),
                    time: None,
                },
                ..GenmoveOptions::default()
            };
            engine.genmove(
                &game,
                Color::White,
                &options,
                &AtomicBool::new(false),
                &mut |_| {},
            );
            engine.root_policy(&game, Color::White)
        };
        let (plain, optimistic) = (priors(0.0), priors(1.0));
        assert_eq!(plain.len(), optimistic.len());
        let largest = plain
            .iter()
            .zip(&optimistic)
            .map(|((a, p), (b, q))| {
                assert_eq!(a, b);
                (p - q).abs()
            })
            .fold(0.0f32, f32::max);
        assert!(
            largest > 1e-3,
            "optimism changed no prior by more than {largest}"
        );
        assert_eq!(priors(0.0), plain, "the same seed gives the same priors");
    }

    /// After searches (with reuse), every node satisfies the graph-search
    /// invariants: its child statistics are the sums over its edges, and no
    /// edge has more visits than the child it leads to.
    fn check_graph_invariants(transpositions: bool, ko: KoRule) {
        // Large enough that no node is replaced (a replaced child restarts
        // from zero visits, which these invariants do not allow for).
        let engine = MctsEngine::new(SearchConfig {
            tt_mb: 64,
            transpositions,
            ..SearchConfig::default()
        });
        check_graph_invariants_of(engine, ko, 3000);
    }

    fn check_graph_invariants_of(mut engine: MctsEngine, ko: KoRule, visits: u64) {
        let mut rules = Preset::Chinese.rules();
        rules.ko = ko;
        let mut game = Game::new(Geometry::new(5).unwrap(), rules, 0.5);
        let options = GenmoveOptions {
            limits: Limits {
                playouts: Some(visits),
                time: None,
            },
            ..GenmoveOptions::default()
        };
        let stop = AtomicBool::new(false);
        let mut color = Color::Black;
        for _ in 0..6 {
            let (d, _) = engine.genmove(&game, color, &options, &stop, &mut |_| {});
            let Decision::Play(mv) = d else { break };
            game.play(color, mv).unwrap();
            color = color.opp();
        }
        let t = lock(&engine.tree);
        let (mut nodes, mut edges_checked, mut multi) = (0, 0, 0);
        for slot in t.table.occupied() {
            let node = t.table.node(slot);
            let edges = t.table.edges(slot);
            let n: u32 = edges.iter().map(|e| e.visits).sum();
            let sum: f64 = edges
                .iter()
                .map(|e| e.visits as f64 * e.child_q as f64)
                .sum();
            assert_eq!(node.child_n, n);
            if engine.uses_network() {
                // The children weighted as [`value_weight`] weighs them for
                // the player to move here (which the node does not record:
                // either colour's weighting may be the one).
                let shaping = engine.config.value_shaping();
                let shaped = |mover: Color| {
                    let mut children: Vec<value_weight::Child> = edges
                        .iter()
                        .filter(|e| e.visits > 0)
                        .map(|e| value_weight::Child {
                            prior: e.prior_w,
                            value: value::for_mover(e.child_q, mover) as f64,
                            visits: e.visits as f64,
                            tag: 0,
                        })
                        .collect();
                    let mean = shaping.mean(&mut children);
                    let black = if mover == Color::Black {
                        mean
                    } else {
                        1.0 - mean
                    };
                    n as f64 * black
                };
                let close = |want: f64| (node.child_sum - want).abs() < 1e-4 * (1.0 + want);
                assert!(
                    close(shaped(Color::Black)) || close(shaped(Color::White)),
                    "{} vs {} or {}",
                    node.child_sum,
                    shaped(Color::Black),
                    shaped(Color::White)
                );
            } else {
                assert!((node.child_sum - sum).abs() < 1e-6 * (1.0 + sum));
            }
            assert!((0.0..=1.0).contains(&node.value()));
            for e in edges.iter().filter(|e| e.visits > 0) {
                assert_eq!(e.in_flight, 0);
                if e.multi_child {
                    multi += 1;
                    continue;
                }
                if let Some(c) = t.table.find(e.child_key, e.child_slot) {
                    let child = t.table.node(c).visits();
                    assert!(e.visits <= child, "edge {} > child {child}", e.visits);
                    edges_checked += 1;
                }
            }
            nodes += 1;
        }
        assert!(
            nodes > 100 && edges_checked > 100,
            "{nodes} nodes, {edges_checked} edges"
        );
        if !engine.config.transpositions || ko == KoRule::Simple {
            assert_eq!(multi, 0, "one child per edge without a history key");
        }
    }

    #[test]
    fn graph_invariants_hold_in_the_network_search() {
        let Some(net) = super::test_nets::b6c96() else {
            return;
        };
        for (ko, batch) in [(KoRule::Simple, 1), (KoRule::Positional, 4)] {
            let engine = MctsEngine::with_network(
                SearchConfig {
                    tt_mb: 64,
                    batch,
                    ..SearchConfig::default()
                },
                net.clone(),
            )
            .unwrap();
            check_graph_invariants_of(engine, ko, 600);
        }
    }

    /// A network engine with a small table and the default settings.
    fn small_network_engine(net: &Arc<Network>) -> MctsEngine {
        let cfg = SearchConfig {
            tt_mb: 4,
            ..SearchConfig::default()
        };
        MctsEngine::with_network(cfg, net.clone()).unwrap()
    }

    /// The remembered final ownership is always the asked position's: after
    /// a move, and after a change of komi, the engine answers as a fresh one
    /// does, and going back gives the first answer again.
    #[test]
    fn remembered_final_ownership_follows_the_position() {
        let Some(net) = super::test_nets::b6c96() else {
            return;
        };
        let fresh = || small_network_engine(&net);
        let g = Geometry::new(9).unwrap();
        let start = Game::new(g, Preset::Chinese.rules(), 7.0);
        let mut moved = start.clone();
        moved
            .play(Color::Black, Move::Play(g.point(4, 4).unwrap()))
            .unwrap();
        let mut high_komi = start.clone();
        high_komi.set_komi(30.0);
        let map = |engine: &mut MctsEngine, game: &Game| {
            let m = engine.network_ownership(game).expect("the net covers 9x9");
            m.for_color(game.board(), Color::Black)
        };
        let mut engine = fresh();
        let first = map(&mut engine, &start);
        for other in [&moved, &high_komi] {
            let remembered = map(&mut engine, other);
            assert_ne!(remembered, first, "the position changed");
            assert_eq!(remembered, map(&mut fresh(), other));
            assert_eq!(map(&mut engine, &start), first);
        }
    }

    /// `dead_stones` searches only for a second opinion on chains the
    /// settling playouts leave in doubt: none on a board without stones, none
    /// where every chain is clearly alive or dead.
    #[test]
    fn dead_stones_search_only_for_chains_in_doubt() {
        let g = Geometry::new(5).unwrap();
        let mut engine = MctsEngine::new(SearchConfig {
            tt_mb: 4,
            ..SearchConfig::default()
        });
        let empty = Game::new(g, Preset::Chinese.rules(), 0.5);
        assert_eq!(engine.dead_stones(&empty), vec![]);
        // Black's wall owns the board; White's stone at (2,0) is dead.
        let mut won = empty.clone();
        let mut setup = Vec::new();
        for (y, row) in ["..OX.", "...XX", "XXXX.", "...XX", "...X."]
            .iter()
            .enumerate()
        {
            for (x, ch) in row.chars().enumerate() {
                let stone = match ch {
                    'X' => Some(Color::Black),
                    'O' => Some(Color::White),
                    _ => continue,
                };
                setup.push((g.point(x, y).unwrap(), stone));
            }
        }
        won.setup(&setup, Some(Color::White));
        let settling = engine.playout_ownership(&won);
        assert!(!settling.leaves_chains_in_doubt(won.board()));
        assert_eq!(engine.dead_stones(&won), vec![g.point(2, 0).unwrap()]);
        assert_eq!(
            lock(&engine.tree).table.occupied().count(),
            0,
            "no search ran"
        );
    }

    #[test]
    fn graph_invariants_hold_with_transpositions() {
        check_graph_invariants(true, KoRule::Simple);
        check_graph_invariants(true, KoRule::Positional);
    }

    #[test]
    fn a_full_arena_is_pruned_and_the_search_goes_on() {
        let game = Game::new(Geometry::new(9).unwrap(), Preset::Chinese.rules(), 7.0);
        let mut engine = MctsEngine::new(SearchConfig {
            tt_mb: 1,
            ..SearchConfig::default()
        });
        let options = GenmoveOptions {
            limits: Limits {
                playouts: Some(20_000),
                time: None,
            },
            ..GenmoveOptions::default()
        };
        let (d, report) = engine.genmove(
            &game,
            Color::Black,
            &options,
            &AtomicBool::new(false),
            &mut |_| {},
        );
        let Decision::Play(mv) = d else {
            panic!("resigned")
        };
        assert!(game.is_legal(Color::Black, mv));
        let t = lock(&engine.tree);
        assert!(t.prunes > 0, "the 1 MB arena should have filled");
        assert!(t.expand_after > 2);
        assert!(t.table.edge_usage() <= 1.0);
        assert!(
            t.playouts > 5000 && !report.moves.is_empty(),
            "{}",
            t.playouts
        );
        let root = t
            .table
            .find(Root::new(&game, Color::Black, &engine.config).key, NO_SLOT);
        assert!(
            root.is_some_and(|r| t.table.node(r).is_expanded()),
            "the root keeps its edges"
        );
    }

    /// `analyze_within` (the analysis engine's search): the excluded root
    /// moves are neither searched nor reported, the visit limit holds
    /// exactly (a transposition's visit needs no playout), `progress` never sees the final report, and each PV
    /// comes with its visits.
    #[test]
    fn analyze_within_excludes_root_moves_and_keeps_the_last_report() {
        let g = Geometry::new(5).unwrap();
        let game = Game::new(g, Preset::Chinese.rules(), 0.5);
        let mut engine = MctsEngine::new(SearchConfig {
            tt_mb: 4,
            ..SearchConfig::default()
        });
        let excluded: Vec<Point> = g.points().filter(|p| p.x() == 2).collect();
        let limits = Limits {
            playouts: Some(400),
            time: None,
        };
        let mut calls = 0;
        let report = engine.analyze_within(
            &game,
            Color::Black,
            limits,
            &excluded,
            Duration::MAX,
            &AtomicBool::new(false),
            &mut |_| calls += 1,
        );
        assert_eq!(calls, 0, "no interval passed, and the end is not reported");
        assert_eq!(report.visits, 400);
        assert!((300..=400).contains(&engine.last_playouts()));
        assert!(!report.moves.is_empty());
        for m in &report.moves {
            assert!(!matches!(m.mv, Move::Play(p) if p.x() == 2), "{:?}", m.mv);
            assert_eq!(m.pv_visits.len(), m.pv.len());
            assert_eq!(m.pv_visits[0], m.visits);
        }
        engine.clear_tree();
        assert!(engine.node_of(&game, Color::Black).is_none());
    }

    /// `genmove` and `analyze` honour a front end's excluded points (GTP's
    /// `avoid`/`allow`): on an empty 5×5 board, where the search plays
    /// inside, a search kept to the first line plays and reports nothing
    /// else; under symmetry pruning it searches one of each set of
    /// symmetric moves.
    #[test]
    fn genmove_and_analyze_never_begin_with_an_excluded_point() {
        let g = Geometry::new(5).unwrap();
        let game = Game::new(g, Preset::Chinese.rules(), 0.5);
        let mut engine = MctsEngine::new(SearchConfig {
            tt_mb: 4,
            playouts: Some(300),
            ..SearchConfig::default()
        });
        let inner = |p: Point| (1..4).contains(&p.x()) && (1..4).contains(&p.y());
        let excluded: Vec<Point> = g.points().filter(|&p| inner(p)).collect();
        let outside = |mv: Move| !matches!(mv, Move::Play(p) if inner(p));
        let never = AtomicBool::new(false);
        let (free, _) = engine.genmove(
            &game,
            Color::Black,
            &GenmoveOptions::default(),
            &never,
            &mut |_| {},
        );
        assert!(!outside(free_move(free)), "unrestricted: {free:?}");
        let choices = RootChoices::without_symmetries(excluded.clone());
        let options = GenmoveOptions {
            root: Some(&choices),
            ..GenmoveOptions::default()
        };
        let (decision, report) = engine.genmove(&game, Color::Black, &options, &never, &mut |_| {});
        assert!(outside(free_move(decision)), "{decision:?}");
        assert!(!report.moves.is_empty());
        assert!(report.moves.iter().all(|m| outside(m.mv)), "{report:?}");
        // Symmetry pruning: one of each set of symmetric moves.
        let pruned = RootChoices::new(&game, Color::Black, Vec::new());
        let duplicates: Vec<Point> = pruned.duplicates().collect();
        assert_eq!(duplicates.len(), 25 - 6);
        let options = GenmoveOptions {
            root: Some(&pruned),
            ..GenmoveOptions::default()
        };
        let (_, report) = engine.genmove(&game, Color::Black, &options, &never, &mut |_| {});
        assert!(!report.moves.is_empty());
        for m in &report.moves {
            assert!(
                !matches!(m.mv, Move::Play(p) if duplicates.contains(&p)),
                "{m:?}"
            );
        }
        let stop = AtomicBool::new(false);
        let mut reports = 0;
        engine.analyze(
            &game,
            Color::White,
            &excluded,
            Duration::ZERO,
            &stop,
            &mut |r| {
                assert!(r.moves.iter().all(|m| outside(m.mv)), "{r:?}");
                reports += 1;
                if reports == 5 {
                    stop.store(true, Ordering::Relaxed);
                }
            },
        );
        assert!(reports >= 5);
    }

    /// Excluded root moves keep their share of the policy: a searched move
    /// reports the net's prior whether its symmetric images are searched
    /// too or not (KataGo reports the raw prior), and whether or not the
    /// root was first expanded by a search without exclusions.
    #[test]
    fn excluded_root_moves_leave_the_reported_priors_alone() {
        let Some(net) = super::test_nets::b6c96() else {
            return;
        };
        let fresh = || small_network_engine(&net);
        let g = Geometry::new(9).unwrap();
        let game = Game::new(g, Preset::Chinese.rules(), 7.0);
        let pruned = RootChoices::new(&game, Color::Black, Vec::new()).excluded();
        assert_eq!(pruned.len(), 81 - 15);
        let limits = Limits {
            playouts: Some(40),
            time: None,
        };
        let never = AtomicBool::new(false);
        let prior_of_centre = |engine: &mut MctsEngine, excluded: &[Point]| {
            let report = engine.analyze_within(
                &game,
                Color::Black,
                limits,
                excluded,
                Duration::MAX,
                &never,
                &mut |_| {},
            );
            let centre = Move::Play(g.point(4, 4).unwrap());
            report
                .moves
                .iter()
                .find(|m| m.mv == centre)
                .map(|m| m.prior)
                .expect("the centre is searched")
        };
        let whole = prior_of_centre(&mut fresh(), &[]);
        let alone = prior_of_centre(&mut fresh(), &pruned);
        let mut shared = fresh();
        prior_of_centre(&mut shared, &[]);
        let after = prior_of_centre(&mut shared, &pruned);
        assert!(whole > 0.1 && whole < 0.5, "{whole}");
        assert!((alone - whole).abs() < 1e-6, "{alone} vs {whole}");
        assert!((after - whole).abs() < 1e-6, "{after} vs {whole}");
    }

    fn free_move(decision: Decision) -> Move {
        match decision {
            Decision::Play(mv) => mv,
            Decision::Resign => panic!("resigned on an empty board"),
        }
    }

    /// A visit limit holds exactly at any thread count, and a short search
    /// on many threads concentrates its visits as one thread does: the
    /// built-in net on an opening position, 24 visits on 1 and on 8
    /// threads (KaTrain's bundled config), batches of 4.
    #[test]
    fn many_threads_search_exactly_the_visits_asked_and_keep_them_together() {
        let net = Arc::new(crate::nn::builtin::network().expect("the built-in net loads"));
        let g = Geometry::new(19).unwrap();
        let mut game = Game::new(g, Preset::Chinese.rules(), 7.5);
        for (x, y) in [(3, 3), (15, 15), (15, 3), (3, 15), (9, 2)] {
            let c = game.to_move();
            game.play(c, Move::Play(g.point(x, y).unwrap())).unwrap();
        }
        let search = |threads: usize, visits: u64| {
            let config = SearchConfig {
                tt_mb: 16,
                threads,
                batch: 4,
                ..SearchConfig::default()
            };
            let mut engine = MctsEngine::with_network(config, net.clone()).unwrap();
            let limits = Limits {
                playouts: Some(visits),
                time: None,
            };
            let stop = AtomicBool::new(false);
            engine.analyze_within(
                &game,
                Color::White,
                limits,
                &[],
                Duration::MAX,
                &stop,
                &mut |_| {},
            )
        };
        for threads in [1, 8] {
            for visits in [1u64, 7, 24] {
                let report = search(threads, visits);
                assert_eq!(report.visits, visits, "{threads} threads, {visits} visits");
                // The root's own evaluation is the one visit no move gets.
                assert_eq!(root_visits(&report), visits - 1, "{threads} threads");
            }
            let report = search(threads, 24);
            let top = report.moves.iter().map(|m| m.visits).max().unwrap_or(0);
            assert!(
                report.moves.len() <= 8 && top >= 8,
                "{threads} threads: {} moves, top {top}",
                report.moves.len()
            );
            // The first move listed is well visited.
            assert!(report.moves[0].visits * 10 >= top, "{threads} threads");
        }
    }

    /// With subtree bias correction on (KataGo's 0.45), nodes of a network
    /// search take corrections from their buckets, and the graph's
    /// invariants and value range still hold.
    #[test]
    fn subtree_bias_corrects_nodes_and_keeps_the_graph_sound() {
        let Some(net) = super::test_nets::b6c96() else {
            return;
        };
        let config = SearchConfig {
            tt_mb: 64,
            batch: 1,
            puct: PuctConfig {
                subtree_bias_factor: 0.45,
                ..PuctConfig::default()
            },
            ..SearchConfig::default()
        };
        let engine = MctsEngine::with_network(config, net).unwrap();
        let t = {
            let mut engine = engine;
            let mut game = Game::new(Geometry::new(7).unwrap(), Preset::Chinese.rules(), 7.5);
            let options = GenmoveOptions {
                limits: Limits {
                    playouts: Some(300),
                    time: None,
                },
                ..GenmoveOptions::default()
            };
            let stop = AtomicBool::new(false);
            for _ in 0..2 {
                let color = game.to_move();
                let (d, _) = engine.genmove(&game, color, &options, &stop, &mut |_| {});
                let Decision::Play(mv) = d else { break };
                game.play(color, mv).unwrap();
            }
            engine
        };
        let tree = lock(&t.tree);
        let (mut corrected, mut keyed) = (0, 0);
        for slot in tree.table.occupied() {
            let node = tree.table.node(slot);
            assert!((0.0..=1.0).contains(&node.value()));
            assert!(node.bias.bias.abs() < 0.5, "{:?}", node.bias);
            keyed += usize::from(node.bias.key != 0);
            corrected += usize::from(node.bias.bias != 0.0);
        }
        assert!(
            keyed > 50 && corrected > 10,
            "{keyed} keyed, {corrected} corrected"
        );
        drop(tree);
        check_graph_invariants_of(t, KoRule::Positional, 300);
    }

    #[test]
    fn graph_invariants_hold_in_a_plain_tree() {
        check_graph_invariants(false, KoRule::Situational);
    }
}
