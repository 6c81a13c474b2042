//! Writes a corpus of self-play games as SGF files, for measuring `tengen
//! check` throughput (the files are not kept in the repository) and for
//! fixtures.
//!
//! Usage: `cargo run --release --example sgf_corpus -- DIR [GAMES] [SEED] [SIZE]`
//! (defaults: 5000 games, seed 1, size 19; SIZE is `N` or SGF's `W:H`). Games are played by `RandomEngine` under
//! Chinese rules (positional superko) until both players pass, so every file
//! is a complete legal game; one game per file, named `game-00001.sgf`, ….

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use tengen::engine::{Decision, Engine, GenmoveOptions};
use tengen::search::RandomEngine;
use tengen::{Color, Game, Geometry, Preset};

/// Longest game written; random games end well before this.
const MAX_MOVES: u32 = 1200;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first().map(PathBuf::from) else {
        eprintln!("usage: sgf_corpus DIR [GAMES] [SEED] [SIZE]");
        return ExitCode::from(2);
    };
    let parse = |i: usize, default: u64| -> Option<u64> {
        args.get(i).map_or(Some(default), |s| s.parse().ok())
    };
    let (Some(games), Some(seed)) = (parse(1, 5000), parse(2, 1)) else {
        eprintln!("sgf_corpus: GAMES and SEED must be numbers");
        return ExitCode::from(2);
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("sgf_corpus: cannot create {}: {e}", dir.display());
        return ExitCode::from(2);
    }
    let size = args.get(3).map_or("19", String::as_str);
    let sides = match size.split_once(':') {
        Some((w, h)) => w.parse().ok().zip(h.parse().ok()),
        None => size.parse().ok().map(|n| (n, n)),
    };
    let Some(geometry) = sides.and_then(|(w, h)| Geometry::rect(w, h)) else {
        eprintln!("sgf_corpus: SIZE must be N or W:H, each 2 to 25");
        return ExitCode::from(2);
    };
    let stop = AtomicBool::new(false);
    let mut total_moves = 0u64;
    for i in 0..games {
        let mut engine = RandomEngine::new(seed.wrapping_mul(1_000_003).wrapping_add(i));
        let mut game = Game::new(geometry, Preset::Chinese.rules(), 7.5);
        let mut color = Color::Black;
        while game.consecutive_passes() < 2 && game.move_number() < MAX_MOVES {
            let (decision, _) =
                engine.genmove(&game, color, &GenmoveOptions::default(), &stop, &mut |_| {});
            let Decision::Play(mv) = decision else { break };
            if game.play(color, mv).is_err() {
                break; // cannot happen: the engine only plays legal moves
            }
            color = color.opp();
        }
        total_moves += u64::from(game.move_number());
        let result =
            tengen::go::score::GameResult::of(game.board(), &[], game.rules().scoring, game.komi())
                .to_string();
        let text = tengen::sgf::write_game(&game, 0, Some(&result));
        let path = dir.join(format!("game-{:05}.sgf", i + 1));
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("sgf_corpus: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    eprintln!(
        "wrote {games} games ({:.0} moves per game) to {}",
        total_moves as f64 / games.max(1) as f64,
        dir.display()
    );
    ExitCode::SUCCESS
}
