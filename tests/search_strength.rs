//! A sanity check of playing strength: the search beats a random player.
//! (Real strength is measured with `tengen match` against GNU Go.)

use std::sync::atomic::AtomicBool;
use tengen::engine::{Decision, Engine, GenmoveOptions, Limits};
use tengen::go::score::GameResult;
use tengen::search::RandomEngine;
use tengen::search::{MctsEngine, SearchConfig};
use tengen::{Color, Game, Geometry, Preset};

/// Plays one game; returns the winner (resignation loses).
fn play(black: &mut dyn Engine, white: &mut dyn Engine, size: usize) -> Option<Color> {
    let mut game = Game::new(Geometry::new(size).unwrap(), Preset::Chinese.rules(), 7.0);
    let options = GenmoveOptions {
        limits: Limits {
            playouts: Some(400),
            time: None,
        },
        allow_resign: true,
        ..GenmoveOptions::default()
    };
    let stop = AtomicBool::new(false);
    let mut color = Color::Black;
    while game.consecutive_passes() < 2 && game.move_number() < 3 * (size * size) as u32 {
        let engine: &mut dyn Engine = if color == Color::Black { black } else { white };
        match engine.genmove(&game, color, &options, &stop, &mut |_| {}).0 {
            Decision::Resign => return Some(color.opp()),
            Decision::Play(mv) => game.play(color, mv).expect("legal move"),
        }
        color = color.opp();
    }
    let mut judge = MctsEngine::new(SearchConfig {
        tt_mb: 4,
        ..SearchConfig::default()
    });
    let dead = judge.dead_stones(&game);
    GameResult::of(game.board(), &dead, game.rules().scoring, game.komi()).winner()
}

#[test]
fn the_search_beats_a_random_player_with_either_colour() {
    for seed in 0..2 {
        let config = SearchConfig {
            tt_mb: 8,
            seed,
            ..SearchConfig::default()
        };
        let mut mcts = MctsEngine::new(config.clone());
        let mut random = RandomEngine::new(seed);
        assert_eq!(play(&mut mcts, &mut random, 7), Some(Color::Black));
        let mut mcts = MctsEngine::new(config);
        assert_eq!(play(&mut random, &mut mcts, 7), Some(Color::White));
    }
}
