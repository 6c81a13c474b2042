//! Running a search: the root made ready, the helper threads started, the
//! stop rule and the progress reports watched, one report at the end.

use super::config::{SearchConfig, MAX_THREADS};
use super::evaluate::{self, LeafEvaluator};
use super::mcts::Worker;
use super::mcts_engine::MctsEngine;
use super::report::search_report;
use super::root::Root;
use super::stop::{leaves_in_time, should_stop, StopRule};
use super::subtree_bias;
use super::tree::{lock, Clock, Tree};
use super::tt::NO_SLOT;
use crate::engine::{Limits, Report};
use crate::go::board::{Color, Point};
use crate::go::game::Game;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

impl MctsEngine {
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

    /// Searches `game` for `color` within `limits` with `evaluators`, one
    /// per search thread, in place of the engine's own (the configured
    /// thread count does not apply): for measuring the search itself, as
    /// with [`super::simulated::SimulatedNet`].
    pub fn search_with<E: LeafEvaluator>(
        &mut self,
        game: &Game,
        color: Color,
        limits: Limits,
        evaluators: &mut [E],
    ) -> Report {
        let never = AtomicBool::new(false);
        let cfg = self.config.for_threads(evaluators.len());
        let search = Search {
            cfg: &cfg,
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

    /// Searches `game` for `color` under `rule`, never beginning with a
    /// point of `excluded`, reporting every `interval` and at the end.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn search(
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
        let cfg = self.config.for_threads(threads);
        let search = Search {
            cfg: &cfg,
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
        let threads = evaluators.len();
        let Some((first, others)) = evaluators.split_first_mut() else {
            return Report::default();
        };
        let expected = first.expected_margin(&root, table_margin, cfg, cfg.seed ^ searches);
        let size = (root.board.geometry().area() as f64).sqrt();
        root.score_center = cfg.score_shape.center(expected, size);
        let exact = first.selection() == evaluate::Selection::Puct;
        let clock = self.rule.time.map(|limit| Clock {
            deadline: start + limit,
            threads,
        });
        self.begin(&root, exact, clock);
        let seed = cfg.seed ^ searches.wrapping_mul(0x9e37_79b9_7f4a_7c15);
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
            self.lead(first, root_ref, start, exact, &wake, progress);
            done.store(true, Ordering::Relaxed);
            wake.notify_all();
        });
        let report = search_report(&lock(tree), &root, cfg, exact);
        if self.root_moves.report_at_end {
            progress(&report);
        }
        report
    }

    /// Makes the tree ready for a search from `root`: this search's counts,
    /// ownership, buckets, budget and `clock` start afresh, the nodes the root cannot
    /// reach are forgotten (or, kept, folded once the arena is half full),
    /// and the root's own bias correction is dropped.
    fn begin(&self, root: &Root, network: bool, clock: Option<Clock>) {
        let mut t = lock(self.tree);
        t.table.new_search();
        let budget = self.rule.visits.map_or(u64::MAX, |n| n.max(1));
        t.start_search(budget, root.expand_after, clock);
        let root_slot = t.table.find(root.key, NO_SLOT);
        if self.cfg.drop_unreachable {
            let Tree { table, biases, .. } = &mut *t;
            table.retain_reachable(root_slot, |node| biases.forget(&node.bias));
        }
        if let Some(slot) = root_slot {
            // The root's own evaluation is its own now: no correction from
            // the buckets of the search in which it was a descendant, and
            // its part leaves its bucket as a forgotten node's does.
            let Tree { table, biases, .. } = &mut *t;
            let node = table.node_mut(slot);
            biases.forget(&node.bias);
            node.bias = subtree_bias::Contribution::default();
        }
        if network && self.cfg.recenter_kept_tree {
            // The kept tree's values about this search's score center.
            let size = (root.board.geometry().area() as f64).sqrt();
            let Tree {
                table, recentering, ..
            } = &mut *t;
            recentering.run(
                table,
                root_slot,
                root.color,
                root.score_center,
                size,
                self.cfg,
            );
        }
        if !self.cfg.drop_unreachable && t.table.edge_usage() > 0.5 {
            let Tree { table, biases, .. } = &mut *t;
            if let Some(slot) = table.find_or_insert(root.key, NO_SLOT, &[]) {
                table.compact(slot, |node| biases.forget(&node.bias));
            }
        }
    }

    /// The calling thread's part of the search, with `first`: simulates
    /// batches sized to the time left until the stop rule (or `stop`) ends
    /// the search, reporting to `progress` every interval. `exact`: the
    /// reports' win rates are the network search's exact means.
    fn lead<E: LeafEvaluator>(
        &self,
        first: &mut E,
        root: &Root,
        start: Instant,
        exact: bool,
        wake: &Condvar,
        progress: &mut dyn FnMut(&Report),
    ) {
        let (cfg, tree, stop) = (self.cfg, self.tree, self.stop);
        let mut workers = Worker::batch(first.batch_size(), &root.board);
        let mut last_report = Instant::now();
        let mut iterations = 0u64;
        let mut batch = workers.len();
        let mut per_leaf = Duration::ZERO;
        // At least one simulation, so that even an immediate stop has a move.
        loop {
            let batch_start = Instant::now();
            let done_now =
                Worker::simulate_batch(&mut workers[..batch], tree, wake, root, cfg, first);
            if done_now == 0 {
                Worker::wait_for_room(tree, wake, root);
            } else {
                iterations += done_now as u64;
                // With a slow net a batch is a sizeable part of a move's
                // time: the next one holds as many leaves as can end in
                // time (a full batch that cannot would leave that time
                // unused), and none is started when not even one leaf can.
                per_leaf = batch_start.elapsed() / done_now as u32;
                batch = leaves_in_time(per_leaf, self.rule.time, start.elapsed(), workers.len());
            }
            let next_batch = per_leaf * batch as u32;
            if stop.load(Ordering::Relaxed)
                || should_stop(tree, root, self.rule, start, next_batch, iterations)
            {
                break;
            }
            if last_report.elapsed() >= self.interval {
                last_report = Instant::now();
                let report = search_report(&lock(tree), root, cfg, exact);
                progress(&report);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::root_choices::RootChoices;
    use crate::engine::{Decision, Engine, GenmoveOptions};
    use crate::go::board::{Geometry, Move};
    use crate::go::rules::{KoRule, Preset};
    use crate::search::config::SearchConfig;
    use crate::search::decide::root_visits;
    use crate::search::puct::PuctConfig;
    use crate::search::test_nets;
    use crate::search::tt::point_move;
    use crate::search::value::for_mover;
    use crate::search::value_weight;
    use std::sync::Arc;

    /// `genmove` under a limit of `visits` visits alone.
    fn visit_limited(visits: u64) -> GenmoveOptions<'static> {
        GenmoveOptions {
            limits: Limits {
                playouts: Some(visits),
                time: None,
            },
            ..GenmoveOptions::default()
        }
    }

    /// A search thread that panicked holding the tree leaves it poisoned:
    /// the next search empties the tree before it runs and plays on.
    #[test]
    fn a_tree_poisoned_by_a_panic_is_emptied_before_the_next_search() {
        let mut engine = MctsEngine::new(SearchConfig {
            tt_mb: 8,
            ..SearchConfig::default()
        });
        let game = Game::new(Geometry::new(7).unwrap(), Preset::Chinese.rules(), 7.5);
        let options = visit_limited(200);
        let never = AtomicBool::new(false);
        engine.genmove(&game, Color::Black, &options, &never, &mut |_| {});
        assert!(engine.tree.lock().unwrap().table.occupied().count() > 0);
        let _ = std::thread::scope(|s| {
            s.spawn(|| {
                let _held = engine.tree.lock().unwrap();
                panic!("a bug in a search thread");
            })
            .join()
        });
        assert!(engine.tree.is_poisoned());
        let (decision, report) = engine.genmove(&game, Color::Black, &options, &never, &mut |_| {});
        assert!(
            matches!(decision, Decision::Play(Move::Play(_))),
            "{decision:?}"
        );
        assert_eq!(report.visits, 200);
        assert!(!engine.tree.is_poisoned());
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
        let weighted = engine.uses_network() && engine.config.uncertainty_weighting().is_some();
        let mut rules = Preset::Chinese.rules();
        rules.ko = ko;
        let mut game = Game::new(Geometry::new(5).unwrap(), rules, 0.5);
        let options = visit_limited(visits);
        let stop = AtomicBool::new(false);
        let mut color = Color::Black;
        let mut roots = Vec::new();
        for _ in 0..6 {
            roots.push(Root::new(&game, color, &engine.config).key);
            let (d, report) = engine.genmove(&game, color, &options, &stop, &mut |_| {});
            // The visit limit holds exactly, withdrawn descents run again.
            assert_eq!(report.visits, visits);
            let Decision::Play(mv) = d else { break };
            check_listing(&engine, &game, color, mv, &report);
            game.play(color, mv).unwrap();
            color = color.opp();
        }
        let t = lock(&engine.tree);
        let (mut nodes, mut edges_checked, mut multi, mut weights_seen) = (0, 0, 0, 0);
        for slot in t.table.occupied() {
            let node = t.table.node(slot);
            let edges = t.table.edges(slot);
            let n: u32 = edges.iter().map(|e| e.visits).sum();
            let w: f64 = edges.iter().map(|e| f64::from(e.weight)).sum();
            let sum: f64 = edges
                .iter()
                .map(|e| f64::from(e.weight) * e.child_q as f64)
                .sum();
            assert_eq!(node.child_n, n);
            assert!((node.child_w - w).abs() < 1e-6 * (1.0 + w));
            if engine.uses_network() && node.is_expanded() && !roots.contains(&node.key) {
                // The net judged each expanded position once (a root may be
                // judged again at its own policy optimism): a descent that
                // reached it while another was on its way there was
                // withdrawn, not counted as a second evaluation.
                assert!(node.own_n <= 1, "a node judged {} times", node.own_n);
            }
            if !weighted {
                assert!(edges.iter().all(|e| e.weight == e.visits as f32));
                assert_eq!(node.own_w, f64::from(node.own_n));
            }
            for e in edges.iter() {
                // Every visit weighs something, at most the largest weight.
                assert!(e.weight >= 0.0 && e.weight <= 8.0 * e.visits as f32 + 1e-3);
                assert_eq!(e.weight > 0.0, e.visits > 0);
            }
            weights_seen += edges.iter().filter(|e| e.weight != e.visits as f32).count();
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
                            value: for_mover(e.child_q, mover) as f64,
                            visits: f64::from(e.weight),
                            tag: 0,
                        })
                        .collect();
                    let mean = shaping.mean(&mut children);
                    let black = if mover == Color::Black {
                        mean
                    } else {
                        1.0 - mean
                    };
                    w * black
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
        if weighted {
            assert!(weights_seen > 100, "{weights_seen} edges weighted");
        }
    }

    /// The search's listing of the root's moves after it chose `played` for
    /// `color` in `game`: the move played first (unless the opponent has
    /// just passed: then passing may end a won game, or a board play
    /// continue a lost one), the others by their edges' weight (visits
    /// without uncertainty weighting), every visited root move listed with
    /// its edge's visits.
    fn check_listing(
        engine: &MctsEngine,
        game: &Game,
        color: Color,
        played: Move,
        report: &Report,
    ) {
        if game.last_turn().is_none_or(|t| t.mv != Move::Pass) {
            assert_eq!(report.moves.first().map(|m| m.mv), Some(played));
        }
        let t = lock(&engine.tree);
        let root = Root::new(game, color, &engine.config);
        let slot = t
            .table
            .find(root.key, NO_SLOT)
            .expect("the root is in the table");
        let edges = t.table.edges(slot);
        let edge_of = |mv: Move| {
            edges
                .iter()
                .find(|e| point_move(e.point) == mv)
                .expect("a listed move is a root edge")
        };
        let weights: Vec<f32> = report.moves[1..]
            .iter()
            .map(|m| edge_of(m.mv).weight)
            .collect();
        assert!(
            weights.windows(2).all(|w| w[0] >= w[1]),
            "listed after the move played by weight: {weights:?}"
        );
        for m in &report.moves {
            assert_eq!(m.visits, u64::from(edge_of(m.mv).visits));
        }
        let visited = edges
            .iter()
            .filter(|e| e.visits > 0 && root.searches(e.point))
            .count();
        assert_eq!(report.moves.len(), visited);
    }

    #[test]
    #[ignore = "heavy: .ci/run runs it in its second step"]
    fn graph_invariants_hold_in_the_network_search() {
        let Some(net) = test_nets::b6c96() else {
            return;
        };
        // The second also moves the kept tree to each search's score center.
        for (ko, batch, recenter) in [(KoRule::Simple, 1, false), (KoRule::Positional, 4, true)] {
            let engine = MctsEngine::with_network(
                SearchConfig {
                    tt_mb: 64,
                    batch,
                    recenter_kept_tree: recenter,
                    ..SearchConfig::default()
                },
                net.clone(),
            )
            .unwrap();
            check_graph_invariants_of(engine, ko, 600);
        }
    }

    /// `nn_symmetry` fixes the net's symmetry, so two searches at different
    /// seeds give the same visits (random symmetries do not); `lcb_spread`
    /// leaves the visits as they are and widens the bounds the move is
    /// chosen by.
    #[test]
    fn a_fixed_symmetry_repeats_the_search_and_the_results_spread_widens_the_bounds() {
        let Some(net) = test_nets::b6c96() else {
            return;
        };
        let mut game = Game::new(Geometry::new(9).unwrap(), Preset::Chinese.rules(), 7.0);
        for (color, x, y) in [
            (Color::Black, 4, 4),
            (Color::White, 2, 6),
            (Color::Black, 6, 3),
        ] {
            let p = game.board().geometry().point(x, y).unwrap();
            game.play(color, Move::Play(p)).unwrap();
        }
        let search = |seed: u64, nn_symmetry: Option<u8>, lcb_spread: bool| {
            let mut engine = MctsEngine::with_network(
                SearchConfig {
                    tt_mb: 8,
                    seed,
                    nn_symmetry,
                    lcb_spread,
                    ..SearchConfig::default()
                },
                net.clone(),
            )
            .unwrap();
            let options = visit_limited(150);
            let (_, report) = engine.genmove(
                &game,
                Color::White,
                &options,
                &AtomicBool::new(false),
                &mut |_| {},
            );
            report
                .moves
                .iter()
                .map(|m| (m.mv, m.visits, m.winrate - m.lcb))
                .collect::<Vec<_>>()
        };
        let fixed = search(1, Some(3), false);
        assert_eq!(fixed, search(2, Some(3), false));
        assert_ne!(search(1, None, false), search(2, None, false));
        let spread = search(1, Some(3), true);
        let visits = |r: &[(Move, u64, f64)]| r.iter().map(|m| (m.0, m.1)).collect::<Vec<_>>();
        assert_eq!(visits(&spread), visits(&fixed));
        for (wide, narrow) in spread.iter().zip(&fixed) {
            assert!(wide.2 >= narrow.2 - 1e-9, "{wide:?} {narrow:?}");
        }
        assert!(spread.iter().zip(&fixed).any(|(w, n)| w.2 > n.2 + 0.01));
    }

    /// Eight threads on the net: descents run side by side, and some reach
    /// the same new leaf.
    #[test]
    #[ignore = "heavy: .ci/run runs it in its second step"]
    fn graph_invariants_hold_in_the_network_search_on_eight_threads() {
        let Some(net) = test_nets::b6c96() else {
            return;
        };
        let engine = MctsEngine::with_network(
            SearchConfig {
                tt_mb: 64,
                threads: 8,
                ..SearchConfig::default()
            },
            net,
        )
        .unwrap();
        check_graph_invariants_of(engine, KoRule::Positional, 600);
    }

    /// Uncertainty weighting with a net that has the short-term error
    /// heads (the transformer, model version 15): the edges weigh their
    /// visits, and the nodes sum their edges' weights.
    #[test]
    #[ignore = "heavy: .ci/run runs it in its second step"]
    fn graph_invariants_hold_with_uncertainty_weighting() {
        let Some(net) = test_nets::transformer() else {
            return;
        };
        let engine = MctsEngine::with_network(
            SearchConfig {
                tt_mb: 64,
                puct: PuctConfig {
                    uncertainty_coeff: 0.25,
                    ..PuctConfig::default()
                },
                ..SearchConfig::default()
            },
            net,
        )
        .unwrap();
        check_graph_invariants_of(engine, KoRule::Positional, 200);
    }

    #[test]
    fn graph_invariants_hold_with_transpositions() {
        check_graph_invariants(true, KoRule::Simple);
        check_graph_invariants(true, KoRule::Positional);
    }

    #[test]
    fn graph_invariants_hold_in_a_plain_tree() {
        check_graph_invariants(false, KoRule::Situational);
    }

    /// A search keeps what its root can reach from the last one and, with
    /// `drop_unreachable`, forgets the rest: after Black's search from the
    /// empty board and White's from the position after its move, the
    /// position after Black's other candidate is gone (kept by default).
    #[test]
    fn a_search_forgets_the_positions_its_root_cannot_reach() {
        for drop_unreachable in [true, false] {
            let mut engine = MctsEngine::new(SearchConfig {
                tt_mb: 8,
                drop_unreachable,
                ..SearchConfig::default()
            });
            let game = Game::new(Geometry::new(7).unwrap(), Preset::Chinese.rules(), 7.5);
            let options = visit_limited(300);
            let never = AtomicBool::new(false);
            let (_, report) = engine.genmove(&game, Color::Black, &options, &never, &mut |_| {});
            let after = |mv: Move| {
                let mut g = game.clone();
                g.play(Color::Black, mv).unwrap();
                g
            };
            let (first, other) = (after(report.moves[0].mv), after(report.moves[1].mv));
            let (_, kept) = engine.node_of(&first, Color::White).unwrap();
            assert!(kept > 0);
            assert!(engine.node_of(&other, Color::White).is_some());
            engine.genmove(&first, Color::White, &options, &never, &mut |_| {});
            let (_, visits) = engine.node_of(&first, Color::White).unwrap();
            assert_eq!(u64::from(visits), u64::from(kept) + 300);
            assert_eq!(
                engine.node_of(&other, Color::White).is_some(),
                !drop_unreachable,
                "drop_unreachable {drop_unreachable}"
            );
            // The empty board's root is gone too (White's root cannot reach it).
            assert_eq!(
                engine.node_of(&game, Color::Black).is_some(),
                !drop_unreachable
            );
        }
    }

    #[test]
    fn a_full_arena_is_pruned_and_the_search_goes_on() {
        let game = Game::new(Geometry::new(9).unwrap(), Preset::Chinese.rules(), 7.0);
        let mut engine = MctsEngine::new(SearchConfig {
            tt_mb: 1,
            ..SearchConfig::default()
        });
        let options = visit_limited(20_000);
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
        // The longest search, whose visits must stay together.
        let spread_visits = 24u64;
        for threads in [1, 8] {
            for visits in [1, 7, spread_visits] {
                let report = search(threads, visits);
                assert_eq!(report.visits, visits, "{threads} threads, {visits} visits");
                // The root's own evaluation is the one visit no move gets.
                assert_eq!(root_visits(&report), visits - 1, "{threads} threads");
            }
            // Visits stay together: a few moves, the best holding a quarter
            // of them or more (eight threads spread a little with the order
            // in which their descents come back; thinly spread visits, 2–3
            // a move over dozens of moves, are what this guards against).
            let report = search(threads, spread_visits);
            let top = report.moves.iter().map(|m| m.visits).max().unwrap_or(0);
            assert!(
                report.moves.len() <= 8 && top * 4 >= spread_visits,
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
    #[ignore = "heavy: .ci/run runs it in its second step"]
    fn subtree_bias_corrects_nodes_and_keeps_the_graph_sound() {
        let Some(net) = test_nets::b6c96() else {
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
            let options = visit_limited(300);
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
}
