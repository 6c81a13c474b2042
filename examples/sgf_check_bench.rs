//! Throughput of the SGF checker without file I/O: parses and replays an
//! in-memory corpus of complete random self-play 19x19 games, single-threaded,
//! and prints the median of several rounds.
//!
//! Usage: `cargo run --release --example sgf_check_bench -- [GAMES] [ROUNDS]`
//! (defaults: 2000 games, 5 rounds). `tengen check` on files adds reading them
//! (see `examples/sgf_corpus.rs` and the README).

use std::sync::atomic::AtomicBool;
use std::time::Instant;
use tengen::config::RuleArgs;
use tengen::engine::{Decision, Engine, GenmoveOptions};
use tengen::search::RandomEngine;
use tengen::sgf::check::check_bytes;
use tengen::{Color, Game, Geometry, Preset};

fn self_play(seed: u64) -> String {
    let geometry = Geometry::new(19).expect("19 is a supported size");
    let mut engine = RandomEngine::new(seed);
    let mut game = Game::new(geometry, Preset::Chinese.rules(), 7.5);
    let stop = AtomicBool::new(false);
    let mut color = Color::Black;
    while game.consecutive_passes() < 2 && game.move_number() < 1200 {
        let (decision, _) =
            engine.genmove(&game, color, &GenmoveOptions::default(), &stop, &mut |_| {});
        let Decision::Play(mv) = decision else { break };
        if game.play(color, mv).is_err() {
            break;
        }
        color = color.opp();
    }
    tengen::sgf::write_game(&game, 0, None)
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let games = args.first().copied().unwrap_or(2000).max(1) as usize;
    let rounds = args.get(1).copied().unwrap_or(5).max(1) as usize;
    let corpus: Vec<String> = (0..games as u64).map(self_play).collect();
    let rules = RuleArgs::default();
    let mut rates = Vec::new();
    let mut moves = 0;
    for _ in 0..rounds {
        let t = Instant::now();
        moves = 0;
        for text in &corpus {
            let report = check_bytes(text.as_bytes(), &rules);
            assert!(report.violations.is_empty() && report.errors.is_empty());
            moves += report.moves;
        }
        rates.push(games as f64 / t.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    let median = rates[rates.len() / 2];
    println!(
        "sgf check (in memory, 1 thread): {median:.0} games/s, {:.0} moves/s, {:.0} moves/game (median of {rounds} rounds of {games} games)",
        median * moves as f64 / games as f64,
        moves as f64 / games as f64
    );
}
