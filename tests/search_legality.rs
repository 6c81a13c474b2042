//! `genmove` never returns an illegal move: self-play on tiny boards, where
//! superko bites often, under every ko rule, with random moves mixed in and
//! sometimes asking for the player who is not to move. Every test runs both
//! evaluators: the classical search and the b6c96 network's.

use crate::common;

use std::sync::atomic::AtomicBool;
use tengen::engine::{Decision, Engine, GenmoveOptions, Limits};
use tengen::search::RandomEngine;
use tengen::search::{MctsEngine, SearchConfig};
use tengen::{Color, Game, Geometry, KoRule, Move, Preset};

/// The engines under test: the classical search with `playouts`, and when
/// the b6c96 net is at hand the network search with a fifth as many visits.
fn engines(config: SearchConfig, playouts: u64) -> Vec<(&'static str, MctsEngine, u64)> {
    let mut v = vec![("classical", MctsEngine::new(config.clone()), playouts)];
    if let Some(net) = common::b6c96() {
        let engine = MctsEngine::with_network(config, net).unwrap();
        v.push(("network", engine, (playouts / 5).max(8)));
    }
    v
}

/// Whether some board play is refused by superko alone in `game` for `color`.
fn superko_bites(game: &Game, color: Color) -> bool {
    let b = game.board();
    b.geometry().points().any(|p| {
        b.at(p) == tengen::Stone::Empty
            && !b.is_ko(p, color)
            && !b.is_suicide(p, color)
            && !game.is_legal(color, Move::Play(p))
    })
}

#[test]
#[ignore = "heavy: .ci/run runs it in its second step"]
fn genmove_is_always_legal_under_every_ko_rule() {
    let stop = AtomicBool::new(false);
    let mut superko_positions = 0;
    let mut searched = [0; 2];
    for ko in KoRule::ALL {
        for size in [4, 5] {
            for seed in 0..8u64 {
                let mut rules = Preset::TrompTaylor.rules();
                rules.ko = ko;
                rules.suicide_allowed = seed % 2 == 0;
                let config = SearchConfig {
                    tt_mb: 2,
                    seed,
                    transpositions: seed != 1,
                    ..SearchConfig::default()
                };
                for (kind, (name, mut engine, playouts)) in
                    engines(config, 48).into_iter().enumerate()
                {
                    let mut game = if size == 5 && seed % 2 == 1 {
                        let mut g = ko_game(ko);
                        g.set_rules(rules);
                        g
                    } else {
                        Game::new(Geometry::new(size).unwrap(), rules, 0.5)
                    };
                    let mut random = RandomEngine::new(seed);
                    let options = GenmoveOptions {
                        limits: Limits {
                            playouts: Some(playouts),
                            time: None,
                        },
                        allow_resign: true,
                        ..GenmoveOptions::default()
                    };
                    let mut color = game.to_move();
                    // Play on after two passes: long games on tiny boards are
                    // full of captures, hence of positions superko forbids.
                    for turn in 0..150u64 {
                        // Every fifth turn the other player is asked (GTP allows it).
                        let asked = if turn % 5 == 4 { color.opp() } else { color };
                        if superko_bites(&game, asked) {
                            superko_positions += 1;
                        }
                        let (d, _) = if (turn + seed) % 3 != 0 {
                            random.genmove(&game, asked, &options, &stop, &mut |_| {})
                        } else {
                            searched[kind] += 1;
                            engine.genmove(&game, asked, &options, &stop, &mut |_| {})
                        };
                        let Decision::Play(mv) = d else { break };
                        if let Err(e) = game.play(asked, mv) {
                            panic!(
                                "{name}: {ko:?} {size}x{size} seed {seed} turn {turn}: {mv:?} is illegal: {e}"
                            );
                        }
                        color = asked.opp();
                    }
                }
            }
        }
    }
    eprintln!("{searched:?} searches (classical, network), superko refused a move in {superko_positions} positions");
    assert!(searched[0] > 500, "only {} searches", searched[0]);
    assert!(
        searched[1] == 0 || searched[1] > 500,
        "only {} network searches",
        searched[1]
    );
    assert!(
        superko_positions >= 6,
        "superko bit in only {superko_positions} positions"
    );
}

/// A ko (5x5): White's stone at (1,1) is in atari; Black captures at (2,1).
const KO: [&str; 5] = [
    ". X O . .", //
    "X O . O .", //
    ". X O . .", //
    ". . . . .", //
    ". . . . .", //
];

fn ko_game(ko: KoRule) -> Game {
    let g = Geometry::new(5).unwrap();
    let mut rules = Preset::Chinese.rules();
    rules.ko = ko;
    let mut game = Game::new(g, rules, 0.5);
    let mut setup = Vec::new();
    for (y, row) in KO.iter().enumerate() {
        for (x, ch) in row.split_whitespace().enumerate() {
            let stone = match ch {
                "X" => Some(Color::Black),
                "O" => Some(Color::White),
                _ => continue,
            };
            setup.push((g.point(x, y).unwrap(), stone));
        }
    }
    game.setup(&setup, Some(Color::White));
    let pt = |x, y| Move::Play(g.point(x, y).unwrap());
    // White plays elsewhere (so even natural situational superko counts the
    // position), Black takes the ko, both pass: the simple-ko point is gone.
    for (c, m) in [
        (Color::White, pt(4, 4)),
        (Color::Black, pt(2, 1)),
        (Color::White, Move::Pass),
        (Color::Black, Move::Pass),
    ] {
        game.play(c, m).unwrap();
    }
    game
}

#[test]
#[ignore = "heavy: .ci/run runs it in its second step"]
fn no_retaking_a_ko_after_passes_where_superko_forbids_it() {
    let stop = AtomicBool::new(false);
    for ko in KoRule::ALL {
        let game = ko_game(ko);
        let retake = Move::Play(game.board().geometry().point(1, 1).unwrap());
        assert_eq!(
            game.is_legal(Color::White, retake),
            ko == KoRule::Simple,
            "{ko:?}"
        );
        if ko == KoRule::Simple {
            continue;
        }
        assert!(superko_bites(&game, Color::White));
        let configs = (0..4).map(|seed| SearchConfig {
            tt_mb: 2,
            seed,
            ..SearchConfig::default()
        });
        for (name, mut engine, playouts) in configs.flat_map(|c| engines(c, 300)) {
            let options = GenmoveOptions {
                limits: Limits {
                    playouts: Some(playouts),
                    time: None,
                },
                ..GenmoveOptions::default()
            };
            let mut g = game.clone();
            let mut color = Color::White;
            let mut bites = 0;
            for _ in 0..40 {
                bites += superko_bites(&g, color) as u32;
                let (d, _) = engine.genmove(&g, color, &options, &stop, &mut |_| {});
                let Decision::Play(mv) = d else { break };
                g.play(color, mv)
                    .unwrap_or_else(|e| panic!("{name} {ko:?}: {mv:?}: {e}"));
                color = color.opp();
            }
            assert!(bites >= 1);
        }
    }
}
