//! The search finds the only good move in small tactical positions, at fixed
//! playouts with one thread (seeded: the result is reproducible). Each
//! position is put to both evaluators: the classical search at 3000 playouts
//! and the b6c96 network's at 200 visits.

mod common;

use std::sync::atomic::AtomicBool;
use tengen::engine::{Decision, Engine, GenmoveOptions, Limits};
use tengen::search::{MctsEngine, SearchConfig};
use tengen::{Color, Game, Geometry, Move, Preset};

/// A game whose start position is the diagram (`X` black, `O` white), `to_move` to play.
fn position(rows: &[&str], to_move: Color, komi: f64) -> Game {
    let g = Geometry::new(rows.len()).unwrap();
    let mut game = Game::new(g, Preset::Chinese.rules(), komi);
    let mut setup = Vec::new();
    for (y, row) in rows.iter().enumerate() {
        for (x, ch) in row.chars().filter(|c| !c.is_whitespace()).enumerate() {
            let stone = match ch {
                'X' => Some(Color::Black),
                'O' => Some(Color::White),
                _ => continue,
            };
            setup.push((g.point(x, y).unwrap(), stone));
        }
    }
    game.setup(&setup, Some(to_move));
    game
}

/// The move each engine chooses for the player to move: the classical
/// search with `playouts`, and the network search with 200 visits when the
/// b6c96 net is at hand. Labelled with the engine's name.
fn best_moves(game: &Game, playouts: u64, seed: u64) -> Vec<(&'static str, Move)> {
    let config = SearchConfig {
        tt_mb: 16,
        seed,
        ..SearchConfig::default()
    };
    let mut engines = vec![("classical", MctsEngine::new(config.clone()), playouts)];
    if let Some(net) = common::b6c96() {
        engines.push((
            "network",
            MctsEngine::with_network(config, net).unwrap(),
            200,
        ));
    }
    engines
        .into_iter()
        .map(|(name, mut engine, n)| {
            let options = GenmoveOptions {
                limits: Limits {
                    playouts: Some(n),
                    time: None,
                },
                ..GenmoveOptions::default()
            };
            let (d, _) = engine.genmove(
                game,
                game.to_move(),
                &options,
                &AtomicBool::new(false),
                &mut |_| {},
            );
            match d {
                Decision::Play(mv) => (name, mv),
                Decision::Resign => panic!("{name} resigned"),
            }
        })
        .collect()
}

/// Both engines choose `expected`, with seeds 1 and 2.
fn assert_finds(game: &Game, expected: Move) {
    for seed in [1, 2] {
        for (name, mv) in best_moves(game, 3000, seed) {
            assert_eq!(mv, expected, "{name}, seed {seed}");
        }
    }
}

fn at(game: &Game, x: usize, y: usize) -> Move {
    Move::Play(game.board().geometry().point(x, y).unwrap())
}

/// White's corner group has a straight three eye space; its middle point is
/// vital. Komi 9.5: White wins if and only if the group lives.
const STRAIGHT_THREE: [&str; 5] = [
    ". . . O X", //
    "O O O O X", //
    "X X X X X", //
    ". . . . .", //
    ". . . . .", //
];

#[test]
fn black_kills_on_the_vital_point() {
    let game = position(&STRAIGHT_THREE, Color::Black, 9.5);
    assert_finds(&game, at(&game, 1, 0));
}

#[test]
fn white_lives_on_the_vital_point() {
    let game = position(&STRAIGHT_THREE, Color::White, 9.5);
    assert_finds(&game, at(&game, 1, 0));
}

/// White's two stones between Black's columns have one liberty left; if
/// Black does not take them at once, they escape and cut Black apart.
#[test]
fn black_captures_the_cutting_stones() {
    let rows = [
        ". X O X .", //
        ". X O X .", //
        "O . . . O", //
        ". O . O .", //
        ". . . . .", //
    ];
    let game = position(&rows, Color::Black, 0.5);
    assert_finds(&game, at(&game, 2, 2));
}

/// White to play in the same position must save the two stones by extending.
#[test]
fn white_saves_the_cutting_stones() {
    let rows = [
        ". X O X .", //
        ". X O X .", //
        "O . . . O", //
        ". O . O .", //
        ". . . . .", //
    ];
    let game = position(&rows, Color::White, 0.5);
    assert_finds(&game, at(&game, 2, 2));
}
