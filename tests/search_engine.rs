//! The search engine's behaviour through the `Engine` contract: shared nodes,
//! reuse between moves, analysis streaming, stopping, threads, pass, cleanup,
//! resignation and dead stones. The tests of pass, cleanup, resignation,
//! threads and win rates run both evaluators (the network's with the b6c96
//! net when it is at hand).

use crate::common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tengen::engine::{Decision, Engine, GenmoveOptions, Limits, Report};
use tengen::search::classical::playout::Policy;
use tengen::search::classical::priors::PriorWeights;
use tengen::search::{MctsEngine, SearchConfig};
use tengen::{Color, Game, Geometry, Move, Preset};

fn engine(tt_mb: usize, transpositions: bool) -> MctsEngine {
    MctsEngine::new(SearchConfig {
        tt_mb,
        transpositions,
        ..SearchConfig::default()
    })
}

/// A named maker of fresh engines.
type Kind = (&'static str, Box<dyn Fn() -> MctsEngine>);

/// Makers of fresh engines of each kind from `config`: the classical search,
/// and the network search with the b6c96 net when it is at hand.
fn kinds(config: SearchConfig) -> Vec<Kind> {
    let classical = config.clone();
    let mut v: Vec<Kind> = vec![(
        "classical",
        Box::new(move || MctsEngine::new(classical.clone())),
    )];
    if let Some(net) = common::b6c96() {
        v.push((
            "network",
            Box::new(move || MctsEngine::with_network(config.clone(), net.clone()).unwrap()),
        ));
    }
    v
}

fn small() -> SearchConfig {
    SearchConfig {
        tt_mb: 4,
        ..SearchConfig::default()
    }
}

fn with_playouts(n: u64) -> GenmoveOptions<'static> {
    GenmoveOptions {
        limits: Limits {
            playouts: Some(n),
            time: None,
        },
        allow_resign: true,
        ..GenmoveOptions::default()
    }
}

fn genmove(
    e: &mut MctsEngine,
    game: &Game,
    color: Color,
    options: &GenmoveOptions,
) -> (Decision, Report) {
    e.genmove(game, color, options, &AtomicBool::new(false), &mut |_| {})
}

/// A game whose position is the diagram, `to_move` to play, after `moves_before`
/// moves (played on the empty board and then replaced by the diagram).
fn position(rows: &[&str], to_move: Color, komi: f64, moves_before: usize) -> Game {
    let g = Geometry::new(rows.len()).unwrap();
    let mut game = Game::new(g, Preset::Chinese.rules(), komi);
    let mut color = Color::Black;
    for p in g.points().take(moves_before) {
        game.play(color, Move::Play(p)).unwrap();
        color = color.opp();
    }
    let mut setup: Vec<_> = g.points().map(|p| (p, None)).collect();
    for (y, row) in rows.iter().enumerate() {
        for (x, ch) in row.split_whitespace().enumerate() {
            let stone = match ch {
                "X" => Some(Color::Black),
                "O" => Some(Color::White),
                _ => None,
            };
            setup.push((g.point(x, y).unwrap(), stone));
        }
    }
    game.setup(&setup, Some(to_move));
    game
}

fn play_all(game: &Game, moves: &[(Color, Move)]) -> Option<Game> {
    let mut g = game.clone();
    for &(c, m) in moves {
        g.play(c, m).ok()?;
    }
    Some(g)
}

/// Pairs of move orders (a, c, b, d) and (b, d, a, c) that reach one position,
/// among the root's most visited moves; for each pair where both positions have
/// a node, whether it is the same node.
fn transposed_nodes(e: &mut MctsEngine) -> Vec<bool> {
    let game = Game::new(Geometry::new(5).unwrap(), Preset::Chinese.rules(), 0.5);
    let (_, report) = genmove(e, &game, Color::Black, &with_playouts(20_000));
    let top: Vec<Move> = report.moves.iter().take(4).map(|m| m.mv).collect();
    let mut found = Vec::new();
    for &a in &top {
        for &b in &top {
            for &c in &top {
                for &d in &top {
                    if [a, b, c, d].contains(&Move::Pass)
                        || a == b
                        || c == d
                        || [c, d].contains(&a)
                        || [c, d].contains(&b)
                    {
                        continue;
                    }
                    use Color::{Black as B, White as W};
                    let (Some(one), Some(two)) = (
                        play_all(&game, &[(B, a), (W, c), (B, b), (W, d)]),
                        play_all(&game, &[(B, b), (W, d), (B, a), (W, c)]),
                    ) else {
                        continue;
                    };
                    if let (Some((s1, v1)), Some((s2, v2))) =
                        (e.node_of(&one, B), e.node_of(&two, B))
                    {
                        if v1 > 0 && v2 > 0 {
                            found.push(s1 == s2);
                        }
                    }
                }
            }
        }
    }
    found
}

/// An engine with only the even prior and light playouts: a broad search, so
/// that both orders of the top moves get visited.
fn broad_engine(transpositions: bool) -> MctsEngine {
    let even = PriorWeights::default().even;
    MctsEngine::new(SearchConfig {
        tt_mb: 16,
        transpositions,
        playout_policy: Policy::Light,
        priors: PriorWeights {
            capture: 0.0,
            capture_last: 0.0,
            save: 0.0,
            ladder_run: 0.0,
            atari: 0.0,
            self_atari: 0.0,
            pattern: 0.0,
            near_last: 0.0,
            opening_line: 0.0,
            opening_sense: 0.0,
            early_pass: 0.0,
            even,
        },
        ..SearchConfig::default()
    })
}

#[test]
fn two_move_orders_share_one_node_only_with_transpositions() {
    let shared = transposed_nodes(&mut broad_engine(true));
    assert!(!shared.is_empty(), "no transposition visited");
    assert!(shared.iter().all(|&s| s));
    let plain = transposed_nodes(&mut broad_engine(false));
    assert!(!plain.is_empty(), "no pair of orders visited");
    assert!(plain.iter().all(|&s| !s), "a plain tree never shares");
}

#[test]
fn the_table_survives_between_moves_until_cleared() {
    let mut e = engine(16, true);
    let mut game = Game::new(Geometry::new(9).unwrap(), Preset::Chinese.rules(), 7.0);
    let (d, report) = genmove(&mut e, &game, Color::Black, &with_playouts(3000));
    assert!(matches!(d, Decision::Play(Move::Play(_))));
    let pv = &report.moves[0].pv;
    assert!(pv.len() >= 2, "pv {pv:?}");
    game.play(Color::Black, pv[0]).unwrap();
    game.play(Color::White, pv[1]).unwrap();
    let (_, visits) = e
        .node_of(&game, Color::Black)
        .expect("the reply's node is kept");
    assert!(visits > 0);
    // The next search starts from what the last one learnt.
    let (_, next) = genmove(&mut e, &game, Color::Black, &with_playouts(100));
    assert!(next.moves.iter().map(|m| m.visits).sum::<u64>() > 100);
    e.clear();
    assert_eq!(e.node_of(&game, Color::Black), None);
}

#[test]
fn analyze_streams_reports_until_stopped() {
    let mut e = engine(16, true);
    let game = Game::new(Geometry::new(9).unwrap(), Preset::Chinese.rules(), 7.0);
    let stop = AtomicBool::new(false);
    let mut seen: Vec<u64> = Vec::new();
    e.analyze(
        &game,
        Color::White,
        &[],
        Duration::from_millis(2),
        &stop,
        &mut |r: &Report| {
            assert_eq!(r.ownership.len(), 81);
            assert!(r.moves.windows(2).all(|w| w[0].visits >= w[1].visits));
            for m in &r.moves {
                assert!((0.0..=1.0).contains(&m.winrate) && m.lcb <= m.winrate);
                assert_eq!(m.pv.first(), Some(&m.mv));
            }
            seen.push(r.visits);
            if seen.len() == 3 {
                stop.store(true, Ordering::Relaxed);
            }
        },
    );
    assert!(seen.len() >= 3);
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    assert!(seen[2] > 0);
}

#[test]
fn a_stopped_search_still_answers_and_threads_work() {
    let game = Game::new(Geometry::new(9).unwrap(), Preset::Chinese.rules(), 7.0);
    let stop = AtomicBool::new(true);
    let mut e = engine(16, true);
    let (d, r) = e.genmove(
        &game,
        Color::Black,
        &with_playouts(1_000_000),
        &stop,
        &mut |_| {},
    );
    let Decision::Play(mv) = d else {
        panic!("resigned")
    };
    assert!(game.is_legal(Color::Black, mv));
    assert!(
        r.visits >= 1 && r.visits < 100,
        "stopped at once: {}",
        r.visits
    );
    let two_threads = SearchConfig {
        threads: 2,
        tt_mb: 16,
        ..SearchConfig::default()
    };
    for (name, fresh) in kinds(two_threads) {
        let (d, r) = genmove(&mut fresh(), &game, Color::Black, &with_playouts(400));
        let Decision::Play(mv) = d else {
            panic!("{name} resigned")
        };
        assert!(game.is_legal(Color::Black, mv), "{name}");
        // The search may stop early once the best move is settled.
        assert!(r.visits >= 100, "{name}: {}", r.visits);
    }
}

/// Black's area, all alive, with a dead white stone at (2,0); White has just passed.
const WON: [&str; 5] = [
    ". . O X .", //
    ". . . X X", //
    "X X X X .", //
    ". . . X X", //
    ". . . X .", //
];

#[test]
#[ignore = "heavy: .ci/run runs it in its second step"]
fn passes_when_won_but_cleans_up_dead_stones_first() {
    for (name, fresh) in kinds(small()) {
        let mut game = position(&WON, Color::White, 0.5, 0);
        game.play(Color::White, Move::Pass).unwrap();
        let dead = fresh().dead_stones(&game);
        assert_eq!(
            dead,
            vec![game.board().geometry().point(2, 0).unwrap()],
            "{name}"
        );
        let (d, _) = genmove(&mut fresh(), &game, Color::Black, &with_playouts(500));
        assert_eq!(d, Decision::Play(Move::Pass), "{name}");
        let cleanup = GenmoveOptions {
            cleanup: true,
            ..with_playouts(500)
        };
        let (d, _) = genmove(&mut fresh(), &game, Color::Black, &cleanup);
        assert!(matches!(d, Decision::Play(Move::Play(_))), "{name}: {d:?}");
        // Once the dead stone is captured, cleanup passes after White's pass.
        let mut cleaned = game.clone();
        let g = game.board().geometry();
        for (x, y) in [(2, 1), (1, 0)] {
            let p = g.point(x, y).unwrap();
            cleaned.play(Color::Black, Move::Play(p)).unwrap();
            cleaned.play(Color::White, Move::Pass).unwrap();
        }
        assert!(cleaned.board().at(g.point(2, 0).unwrap()) == tengen::Stone::Empty);
        let (d, _) = genmove(&mut fresh(), &cleaned, Color::Black, &cleanup);
        assert_eq!(d, Decision::Play(Move::Pass), "{name}");
    }
}

/// White owns the board with many eyes; Black has nothing.
const LOST: [&str; 5] = [
    ". . . O .", //
    "O O O O O", //
    ". O . O .", //
    "O O O O O", //
    ". O . O .", //
];

#[test]
fn resigns_when_lost_but_not_in_the_opening_nor_when_told_not_to() {
    for (name, fresh) in kinds(small()) {
        let late = position(&LOST, Color::Black, 0.5, 14);
        // The classical engine resigns at once; the network's after
        // RESIGN_AFTER lost-looking moves in a row (a streak, not a blip).
        let mut e = fresh();
        let decisions: Vec<(Decision, f64)> = (0..tengen::search::RESIGN_AFTER)
            .map(|_| {
                let (d, r) = genmove(&mut e, &late, Color::Black, &with_playouts(500));
                (d, r.winrate)
            })
            .collect();
        let first_resignation = decisions.iter().position(|(d, _)| *d == Decision::Resign);
        let expected = if name == "network" {
            tengen::search::RESIGN_AFTER as usize - 1
        } else {
            0
        };
        assert_eq!(first_resignation, Some(expected), "{name}: {decisions:?}");
        let early = position(&LOST, Color::Black, 0.5, 0);
        let (d, _) = genmove(&mut fresh(), &early, Color::Black, &with_playouts(500));
        assert_ne!(d, Decision::Resign, "{name}: never in the opening");
        let never = SearchConfig {
            resign_threshold: 0.0,
            ..small()
        };
        for (name, never) in kinds(never) {
            let (d, _) = genmove(&mut never(), &late, Color::Black, &with_playouts(500));
            assert_ne!(d, Decision::Resign, "{name}: threshold 0 never resigns");
        }
        let no_resign = GenmoveOptions {
            allow_resign: false,
            ..with_playouts(500)
        };
        let (d, _) = genmove(&mut fresh(), &late, Color::Black, &no_resign);
        assert_ne!(d, Decision::Resign);
    }
}

/// Searches too short to resign on their own (fewer than 64 visits each, as
/// at a few seconds per move on a slow machine) still resign once the visits
/// the table keeps from earlier moves add up to enough.
#[test]
fn short_searches_resign_on_the_visits_the_table_keeps() {
    let late = position(&LOST, Color::Black, 0.5, 14);
    for (name, fresh) in kinds(small()) {
        let mut e = fresh();
        let decisions: Vec<Decision> = (0..2 * tengen::search::RESIGN_AFTER)
            .map(|_| genmove(&mut e, &late, Color::Black, &with_playouts(40)).0)
            .collect();
        assert!(
            decisions.contains(&Decision::Resign),
            "{name}: {decisions:?}"
        );
    }
}

/// Below full strength the engine resigns later: after twice the losing
/// streak (the search judges by its own play, which the level does not play).
#[test]
fn a_levelled_engine_resigns_later() {
    let Some(net) = common::b6c96() else { return };
    let late = position(&LOST, Color::Black, 0.5, 14);
    let config = SearchConfig {
        level: tengen::search::levels::Level::Rank(10),
        ..small()
    };
    let mut e = MctsEngine::with_network(config, net).unwrap();
    let after = tengen::search::RESIGN_AFTER as usize;
    let decisions: Vec<Decision> = (0..2 * after)
        .map(|_| genmove(&mut e, &late, Color::Black, &with_playouts(500)).0)
        .collect();
    let first = decisions.iter().position(|d| *d == Decision::Resign);
    assert_eq!(first, Some(2 * after - 1), "{decisions:?}");
}

/// A slow net at a fast clock searches a few dozen visits a move: the
/// network's search resigns a hopeless game on far fewer visits than the
/// playouts need (16 a move here: about 48 in the table by the third move,
/// under the 64 the classical engine asks for).
#[test]
fn the_network_resigns_on_few_visits() {
    let late = position(&LOST, Color::Black, 0.5, 14);
    for (name, fresh) in kinds(small()) {
        if name != "network" {
            continue;
        }
        let mut e = fresh();
        let decisions: Vec<Decision> = (0..tengen::search::RESIGN_AFTER)
            .map(|_| genmove(&mut e, &late, Color::Black, &with_playouts(16)).0)
            .collect();
        assert_eq!(decisions.last(), Some(&Decision::Resign), "{decisions:?}");
    }
}

/// A slow net at a fast clock may search three visits a move, and the table
/// keeps little when the position changes between moves: the visits searched
/// over the losing streak are the evidence for resigning (18 over the six
/// moves here, past the 16 needed). Here White fills its own territory after
/// each of Black's moves, so no position repeats.
#[test]
fn a_slow_search_resigns_on_the_visits_of_its_losing_streak() {
    let Some(net) = common::b6c96() else { return };
    let mut game = position(&LOST, Color::Black, 0.5, 14);
    let g = game.board().geometry();
    let fills = [(1, 0), (4, 2), (4, 4), (0, 4), (2, 4), (0, 2)];
    let mut e = MctsEngine::with_network(small(), net).unwrap();
    let mut decisions = Vec::new();
    for &(x, y) in &fills {
        let (d, _) = genmove(&mut e, &game, Color::Black, &with_playouts(3));
        decisions.push(d);
        let Decision::Play(mv) = d else { break };
        game.play(Color::Black, mv).unwrap();
        let fill = Move::Play(g.point(x, y).unwrap());
        let white = if game.is_legal(Color::White, fill) {
            fill
        } else {
            Move::Pass
        };
        game.play(Color::White, white).unwrap();
    }
    assert_eq!(decisions.last(), Some(&Decision::Resign), "{decisions:?}");
}

/// The network's search plays, as KataGo, the move with the best lower
/// confidence bound among those with at least 15% of the most visits; it
/// comes first in the report, the rest by visits. Over forty seeds of short
/// searches in an opening, the bound overrules the visits at least once (the
/// spread-scaled exploration of one thread makes that rarer: 3 of 40).
#[test]
#[ignore = "heavy: .ci/run runs it in its second step"]
fn the_network_plays_a_well_visited_move_listed_first() {
    let Some(net) = common::b6c96() else {
        eprintln!("SKIPPED: no b6c96 net in ../shared/nets");
        return;
    };
    let game = Game::new(Geometry::new(9).unwrap(), Preset::Chinese.rules(), 7.0);
    let mut overruled = 0;
    for seed in 1..=40 {
        let config = SearchConfig { seed, ..small() };
        let mut e = MctsEngine::with_network(config, net.clone()).unwrap();
        let (d, r) = genmove(&mut e, &game, Color::Black, &with_playouts(48));
        let most = r.moves.iter().map(|m| m.visits).max().unwrap();
        let first = &r.moves[0];
        assert_eq!(d, Decision::Play(first.mv), "seed {seed}");
        assert!(first.visits as f64 >= 0.15 * most as f64, "seed {seed}");
        assert!(r.moves[1..].windows(2).all(|w| w[0].visits >= w[1].visits));
        overruled += usize::from(first.visits < most);
    }
    assert!(
        overruled > 0,
        "the bound never chose another move than the most visited"
    );
}

/// The score utility must not bend the reported win rate: in a position every
/// playout wins, the winner's win rate is about 1 (and a finite number, komi
/// 0 included), whatever `score_weight` is and whichever colour wins.
#[test]
fn a_won_position_reports_a_win_rate_near_one() {
    let won_by_black = LOST.map(|row| row.replace('O', "X"));
    let won_by_black: Vec<&str> = won_by_black.iter().map(String::as_str).collect();
    for (rows, winner) in [(&LOST[..], Color::White), (&won_by_black[..], Color::Black)] {
        for komi in [0.5, 0.0] {
            for score_weight in [0.0, 0.25, 0.5] {
                let game = position(rows, winner, komi, 14);
                let config = SearchConfig {
                    score_weight,
                    resign_threshold: 0.0,
                    ..small()
                };
                for (name, fresh) in kinds(config) {
                    let (_, r) = genmove(&mut fresh(), &game, winner, &with_playouts(500));
                    assert!(
                        r.winrate > 0.95,
                        "{name}: {winner:?}, komi {komi}, weight {score_weight}: {}",
                        r.winrate
                    );
                }
            }
        }
    }
}
