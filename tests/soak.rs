//! The soak: game after game in one engine process, as a bot operator runs tengen for days.
//! 9x9 and 19x19 mixed, some games begun from an SGF file tengen wrote itself earlier
//! (`printsgf`, then `loadsgf FILE N` part-way), `undo` in the middle of games, a KGS byo-yomi
//! clock with `time_left` before every `genmove`. GNU Go 3.8 follows every move as an independent
//! referee (`play`, `undo` and `loadsgf` too). Checked: no error response, no illegal move (the
//! referee accepts every move tengen plays), every move within its byo-yomi period, and in the
//! long run resident memory flat.
//!
//! `cargo test` runs a short soak; the 200-game soak a bot operator wants before a long run:
//! `cargo test --test integration soak::two_hundred -- --ignored --nocapture`.

use crate::common;
use crate::match_support;

use common::Engine;
use match_support::{gnugo_installed, TempDir, GNUGO};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The byo-yomi period: one move in it, five periods, no main time.
const PERIOD_SECONDS: f64 = 1.0;
const PERIODS: u32 = 5;
/// What a move may run past its period and still be in time (KGS forgives transmission lag).
const LAG_SECONDS: f64 = 0.5;
/// Chance that a move of the soak is followed by an `undo` (both engines).
const UNDO_CHANCE: f64 = 1.0 / 40.0;

/// What a soak saw.
#[derive(Debug, Default)]
struct Soak {
    /// Resident memory of the engine after each game, in KiB.
    rss_kib: Vec<u64>,
    moves: usize,
    undos: usize,
    loads: usize,
    /// Games stopped at the move cap instead of ending by two passes or resignation.
    capped: usize,
    slowest_move: Duration,
}

/// `games` games in one tengen process with the built-in net at 8 playouts a move, GNU Go
/// refereeing; `None` (said on stderr) without GNU Go.
fn soak(games: usize, seed: u64) -> Option<Soak> {
    if !gnugo_installed() {
        return None;
    }
    let dir = TempDir::new();
    let mut tengen = Engine::spawn_default_net(&["--playouts", "8"]);
    let mut referee = Engine::spawn_program(
        GNUGO,
        &[
            "--mode",
            "gtp",
            "--level",
            "0",
            "--chinese-rules",
            "--positional-superko",
        ],
    );
    let both = |tengen: &mut Engine, referee: &mut Engine, command: &str| {
        let ours = tengen.ok(command);
        let theirs = referee.ok(command);
        (ours, theirs)
    };
    tengen.ok("kgs-rules chinese");
    // GNU Go knows only `time_settings`: the referee needs no clock.
    tengen.ok(&format!(
        "kgs-time_settings byoyomi 0 {PERIOD_SECONDS} {PERIODS}"
    ));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut saved: Vec<(PathBuf, usize)> = Vec::new();
    let mut seen = Soak::default();
    for game in 0..games {
        // The opening position: an empty 9x9 or 19x19 board, or part of an earlier game.
        let mut to_move = "b";
        let from_file = game % 4 == 2 && !saved.is_empty();
        if from_file {
            let (file, length) = &saved[rng.random_range(0..saved.len())];
            let upto = rng.random_range(1..=*length + 1);
            let command = format!("loadsgf {} {upto}", file.display());
            tengen.ok(&command);
            // GNU Go answers the colour to move (the GTP spec asks for no answer).
            let colour = referee.ok(&command).to_lowercase();
            to_move = if colour.starts_with('w') { "w" } else { "b" };
            let copy = dir.path().join("loaded.sgf");
            tengen.ok(&format!("printsgf {}", copy.display()));
            assert_eq!(
                moves_in(&copy),
                upto - 1,
                "game {game}: `{command}`: the moves tengen has after loading"
            );
            seen.loads += 1;
        } else {
            let size = if game % 4 == 3 { 19 } else { 9 };
            both(&mut tengen, &mut referee, &format!("boardsize {size}"));
            both(&mut tengen, &mut referee, "clear_board");
            let komi = if game % 2 == 0 { "7.5" } else { "6.5" };
            both(&mut tengen, &mut referee, &format!("komi {komi}"));
        }
        let size: usize = referee
            .ok("query_boardsize")
            .parse()
            .expect("query_boardsize");
        let cap = 3 * size * size;
        // Moves played since the opening position: only these are undone.
        let mut played = 0usize;
        let mut passes = 0;
        let mut ended = false;
        for _ in 0..cap {
            tengen.ok(&format!("time_left {to_move} {PERIOD_SECONDS} {PERIODS}"));
            let start = Instant::now();
            let vertex = tengen.ok(&format!("genmove {to_move}")).to_lowercase();
            let took = start.elapsed();
            seen.slowest_move = seen.slowest_move.max(took);
            assert!(
                took.as_secs_f64() <= PERIOD_SECONDS + LAG_SECONDS,
                "game {game}: genmove {to_move} took {took:?} of a {PERIOD_SECONDS} s period"
            );
            seen.moves += 1;
            if vertex == "resign" {
                ended = true;
                break;
            }
            referee.send(&format!("play {to_move} {vertex}"));
            let (legal, _, why) = referee.response();
            assert!(
                legal,
                "game {game}: tengen played {to_move} {vertex}, which GNU Go refuses: {why}"
            );
            played += 1;
            passes = if vertex == "pass" { passes + 1 } else { 0 };
            to_move = if to_move == "b" { "w" } else { "b" };
            if passes >= 2 {
                ended = true;
                break;
            }
            if played >= 2 && rng.random_bool(UNDO_CHANCE) {
                both(&mut tengen, &mut referee, "undo");
                played -= 1;
                passes = 0;
                to_move = if to_move == "b" { "w" } else { "b" };
                seen.undos += 1;
            }
        }
        if !ended {
            seen.capped += 1;
        }
        let score = tengen.ok("final_score");
        assert!(
            score == "0" || score.starts_with("B+") || score.starts_with("W+"),
            "game {game}: final_score {score:?}"
        );
        let file = dir.path().join(format!("game-{game}.sgf"));
        tengen.ok(&format!("printsgf {}", file.display()));
        let length = moves_in(&file);
        saved.push((file, length));
        seen.rss_kib.push(resident_kib(tengen.pid()));
    }
    Some(seen)
}

/// The moves of an SGF file tengen wrote (its nodes but the root).
fn moves_in(file: &std::path::Path) -> usize {
    std::fs::read_to_string(file)
        .expect("printsgf wrote the file")
        .matches(';')
        .count()
        .saturating_sub(1)
}

/// `VmRSS` of a process, in KiB.
fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

#[test]
#[ignore = "heavy: .ci/run runs it in its second step"]
fn a_short_soak_keeps_every_move_legal_and_in_time() {
    let Some(seen) = soak(8, 1) else { return };
    eprintln!("short soak: {seen:?}");
    assert_eq!(seen.rss_kib.len(), 8);
    assert!(seen.loads >= 2, "{seen:?}");
    assert!(seen.undos >= 1, "{seen:?}");
}

/// The long soak: 200 games; resident memory after the first 20 (the tables filled) may not
/// grow by more than 10% over the rest.
#[test]
#[ignore = "about 15 minutes: run by hand (see the module comment)"]
fn two_hundred_games_in_one_process() {
    let Some(seen) = soak(200, 26) else { return };
    let settled = *seen.rss_kib[..20].iter().max().expect("20 games");
    let largest = *seen.rss_kib[20..].iter().max().expect("180 games");
    eprintln!(
        "200 games: {} moves, {} undos, {} games from loadsgf, {} capped, slowest move {:?}; \
         resident memory: after 20 games at most {settled} KiB, later at most {largest} KiB \
         ({:+.1}%); every 20th game: {:?}",
        seen.moves,
        seen.undos,
        seen.loads,
        seen.capped,
        seen.slowest_move,
        100.0 * (largest as f64 / settled as f64 - 1.0),
        seen.rss_kib.iter().step_by(20).collect::<Vec<_>>()
    );
    assert!(
        largest as f64 <= 1.1 * settled as f64,
        "resident memory grew from {settled} KiB to {largest} KiB"
    );
}
