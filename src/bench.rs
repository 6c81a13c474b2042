//! `tengen bench`: single-threaded speed figures, printed one line per measure.
//!
//! Each figure is the median of several timed rounds in one run, so a noisy
//! shared machine moves it less than a single long round would.

use crate::go::board::{Board, Color, Geometry};
use crate::search::classical::playout::{default_max_moves, playout, PlayoutRng, Policy};
use std::time::{Duration, Instant};

/// One measured figure.
#[derive(Clone, Copy, Debug)]
pub struct PlayoutRate {
    pub size: usize,
    pub policy: Policy,
    pub playouts_per_sec: f64,
    pub moves_per_playout: f64,
    pub ns_per_move: f64,
}

impl std::fmt::Display for PlayoutRate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{s}x{s} {} playouts: {:.0} playouts/s, {:.0} moves/playout, {:.0} ns/move",
            self.policy.name(),
            self.playouts_per_sec,
            self.moves_per_playout,
            self.ns_per_move,
            s = self.size
        )
    }
}

/// Playouts with `policy` from the empty board of `size`: `rounds` rounds of
/// about `round` each; the median round by playouts per second.
pub fn playouts(
    size: usize,
    policy: Policy,
    rounds: usize,
    round: Duration,
    seed: u64,
) -> PlayoutRate {
    let geo = Geometry::new(size).expect("benchmark size in range");
    let empty = Board::new(geo);
    let cap = default_max_moves(&empty);
    let mut rng = PlayoutRng::new(seed);
    let mut results = Vec::with_capacity(rounds);
    for _ in 0..rounds.max(1) {
        let (mut playouts, mut moves) = (0u64, 0u64);
        let start = Instant::now();
        while start.elapsed() < round {
            for _ in 0..16 {
                let mut b = empty.clone();
                let r = playout(&mut b, Color::Black, None, policy, &mut rng, cap);
                std::hint::black_box(r.margin);
                moves += r.moves as u64;
                playouts += 1;
            }
        }
        let secs = start.elapsed().as_secs_f64();
        results.push(PlayoutRate {
            size,
            policy,
            playouts_per_sec: playouts as f64 / secs,
            moves_per_playout: moves as f64 / playouts as f64,
            ns_per_move: secs * 1e9 / moves as f64,
        });
    }
    results.sort_by(|a, b| a.playouts_per_sec.total_cmp(&b.playouts_per_sec));
    results[results.len() / 2]
}

/// Playouts per second inside the search (single thread, light playouts) on the
/// empty board of `size`: `rounds` searches of `round` each, each with a fresh
/// table; the median round.
pub fn search_speed(
    size: usize,
    policy: Policy,
    rounds: usize,
    round: Duration,
    seed: u64,
) -> SearchRate {
    use crate::engine::{Engine, GenmoveOptions, Limits};
    use crate::search::{MctsEngine, SearchConfig};
    let geo = Geometry::new(size).expect("benchmark size in range");
    let game = crate::Game::new(geo, crate::Rules::default(), 7.0);
    let mut rates = Vec::with_capacity(rounds);
    for r in 0..rounds.max(1) {
        let mut engine = MctsEngine::new(SearchConfig {
            seed: seed + r as u64,
            tt_mb: 64,
            playout_policy: policy,
            ..SearchConfig::default()
        });
        let options = GenmoveOptions {
            limits: Limits {
                playouts: Some(u64::MAX),
                time: Some(round),
            },
            ..GenmoveOptions::default()
        };
        let stop = std::sync::atomic::AtomicBool::new(false);
        let start = Instant::now();
        let _ = engine.genmove(&game, Color::Black, &options, &stop, &mut |_| {});
        let secs = start.elapsed().as_secs_f64();
        rates.push(engine.last_playouts() as f64 / secs);
    }
    rates.sort_by(f64::total_cmp);
    SearchRate {
        size,
        policy,
        playouts_per_sec: rates[rates.len() / 2],
    }
}

/// How long `genmove` on the empty board of `size` takes under a time limit of
/// `limit` (no playout limit): the time management's overrun, measured.
pub fn time_limit_taken(size: usize, limit: Duration, seed: u64) -> Duration {
    use crate::engine::{Engine, GenmoveOptions, Limits};
    use crate::search::{MctsEngine, SearchConfig};
    let geo = Geometry::new(size).expect("benchmark size in range");
    let game = crate::Game::new(geo, crate::Rules::default(), 7.0);
    let mut engine = MctsEngine::new(SearchConfig {
        seed,
        tt_mb: 64,
        playouts: Some(u64::MAX),
        ..SearchConfig::default()
    });
    let options = GenmoveOptions {
        limits: Limits {
            playouts: None,
            time: Some(limit),
        },
        ..GenmoveOptions::default()
    };
    let stop = std::sync::atomic::AtomicBool::new(false);
    let start = Instant::now();
    let _ = engine.genmove(&game, Color::Black, &options, &stop, &mut |_| {});
    start.elapsed()
}

/// One measured search speed.
#[derive(Clone, Copy, Debug)]
pub struct SearchRate {
    pub size: usize,
    pub policy: Policy,
    pub playouts_per_sec: f64,
}

impl std::fmt::Display for SearchRate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{s}x{s} search ({} playouts, 1 thread): {:.0} playouts/s",
            self.policy.name(),
            self.playouts_per_sec,
            s = self.size
        )
    }
}

/// One measured network speed.
#[derive(Clone, Copy, Debug)]
pub struct NetRate {
    pub size: usize,
    pub batch: usize,
    pub threads: usize,
    pub evals_per_sec: f64,
    /// Arithmetic the rate implies (multiply-adds count two).
    pub gflops: f64,
}

impl std::fmt::Display for NetRate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{s}x{s} network, batch {}, {} thread{}: {:.1} evals/s, {:.1} GFLOP/s",
            self.batch,
            self.threads,
            if self.threads == 1 { "" } else { "s" },
            self.evals_per_sec,
            self.gflops,
            s = self.size
        )
    }
}

/// Forward passes of `net` per second on the empty board of `size` in
/// batches of `batch`, `threads` threads each with its own workspace sharing
/// the one net: `rounds` rounds of about `round`; the median round.
pub fn network_speed(
    net: &std::sync::Arc<crate::nn::Network>,
    size: usize,
    batch: usize,
    threads: usize,
    rounds: usize,
    round: Duration,
) -> NetRate {
    use crate::nn::features::fill_v7;
    use crate::nn::{NetInput, RawEval, Workspace};
    use crate::nn::{NUM_GLOBAL_FEATURES as NUM_GLOBAL, NUM_SPATIAL_FEATURES as NUM_SPATIAL};
    let geo = Geometry::new(size).expect("benchmark size in range");
    let game = crate::Game::new(geo, crate::Rules::default(), 7.5);
    let mut spatial = vec![0.0; NUM_SPATIAL * size * size];
    let mut global = [0.0; NUM_GLOBAL];
    fill_v7(&game, &mut spatial, &mut global).expect("a board the nets take");
    let batch = batch.max(1);
    let threads = threads.max(1);
    let mut rates = Vec::with_capacity(rounds);
    for _ in 0..rounds.max(1) {
        let start = Instant::now();
        let evals: usize = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(|| {
                        let mut ws = Workspace::new(net, batch, size);
                        let inputs = vec![
                            NetInput {
                                width: size,
                                height: size,
                                spatial: &spatial,
                                global: &global,
                                meta: None,
                            };
                            batch
                        ];
                        let symmetries: Vec<u8> = (0..batch).map(|i| (i % 8) as u8).collect();
                        let mut out = vec![RawEval::new(); batch];
                        let mut evals = 0;
                        let begin = Instant::now();
                        while begin.elapsed() < round {
                            net.evaluate(&mut ws, &inputs, &symmetries, &mut out)
                                .expect("benchmark inputs fit the workspace");
                            evals += batch;
                        }
                        evals
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap_or(0)).sum()
        });
        rates.push(evals as f64 / start.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    let evals_per_sec = rates[rates.len() / 2];
    NetRate {
        size,
        batch,
        threads,
        evals_per_sec,
        gflops: evals_per_sec * net.flops(size) / 1e9,
    }
}

/// Visits per second of the network-guided search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetSearchRate {
    pub threads: usize,
    pub batch: usize,
    pub visits_per_sec: f64,
}

impl std::fmt::Display for NetSearchRate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "19x19 network search, middle game, {} thread{}, batch {}: {:.1} visits/s",
            self.threads,
            if self.threads == 1 { "" } else { "s" },
            self.batch,
            self.visits_per_sec
        )
    }
}

/// 19x19 middle-game positions for the search benchmarks: the net's own
/// greedy self-play (two visits a move: the policy's favourite) from the
/// empty board, after each of `moves` moves.
pub fn middle_game_positions(
    net: &std::sync::Arc<crate::nn::Network>,
    moves: &[u32],
) -> Vec<crate::Game> {
    use crate::engine::{Decision, Engine, GenmoveOptions, Limits};
    use crate::search::{MctsEngine, SearchConfig};
    let geo = Geometry::new(19).expect("19x19");
    let mut game = crate::Game::new(geo, crate::Rules::default(), 7.5);
    let config = SearchConfig {
        tt_mb: 16,
        batch: 1,
        ..SearchConfig::default()
    };
    let mut engine = match MctsEngine::with_network(config, net.clone()) {
        Ok(e) => e,
        Err(_) => return Vec::new(),
    };
    let options = GenmoveOptions {
        limits: Limits {
            playouts: Some(2),
            time: None,
        },
        ..GenmoveOptions::default()
    };
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut positions = Vec::new();
    let last = moves.iter().copied().max().unwrap_or(0);
    for n in 1..=last {
        let color = game.to_move();
        let (d, _) = engine.genmove(&game, color, &options, &stop, &mut |_| {});
        let Decision::Play(mv) = d else { break };
        if game.play(color, mv).is_err() {
            break;
        }
        if moves.contains(&n) {
            positions.push(game.clone());
        }
    }
    positions
}

/// Visits per second of the network search on `positions` (a fresh table
/// for each), `threads` threads and `batch` leaves per net call, searching
/// each position for `round`; the median over positions and `rounds`.
pub fn network_search_speed(
    net: &std::sync::Arc<crate::nn::Network>,
    positions: &[crate::Game],
    threads: usize,
    batch: usize,
    rounds: usize,
    round: Duration,
) -> NetSearchRate {
    use crate::engine::{Engine, GenmoveOptions, Limits};
    use crate::search::{MctsEngine, SearchConfig};
    let mut rates = Vec::new();
    for r in 0..rounds.max(1) {
        for game in positions {
            let config = SearchConfig {
                tt_mb: 64,
                threads,
                batch,
                seed: r as u64 + 1,
                ..SearchConfig::default()
            };
            let Ok(mut engine) = MctsEngine::with_network(config, net.clone()) else {
                continue;
            };
            let options = GenmoveOptions {
                limits: Limits {
                    playouts: Some(u64::MAX),
                    time: Some(round),
                },
                use_all_time: true,
                ..GenmoveOptions::default()
            };
            let stop = std::sync::atomic::AtomicBool::new(false);
            let start = Instant::now();
            let (_, report) = engine.genmove(game, game.to_move(), &options, &stop, &mut |_| {});
            rates.push(report.visits as f64 / start.elapsed().as_secs_f64());
        }
    }
    rates.sort_by(f64::total_cmp);
    NetSearchRate {
        threads,
        batch,
        visits_per_sec: rates.get(rates.len() / 2).copied().unwrap_or(0.0),
    }
}

/// The search's visits a second at one thread count against a simulated
/// net of fixed latency ([`crate::search::simulated`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScalingRate {
    pub latency: Duration,
    pub threads: usize,
    pub visits_per_sec: f64,
}

impl ScalingRate {
    /// `threads / latency`: every thread always waiting on the net.
    pub fn ideal(&self) -> f64 {
        self.threads as f64 / self.latency.as_secs_f64().max(1e-9)
    }
}

impl std::fmt::Display for ScalingRate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "19x19 search, simulated net of {:.1} ms, {:2} thread{}: {:8.1} visits/s, ideal {:8.1}, {:5.1}%",
            self.latency.as_secs_f64() * 1e3,
            self.threads,
            if self.threads == 1 { " " } else { "s" },
            self.visits_per_sec,
            self.ideal(),
            100.0 * self.visits_per_sec / self.ideal()
        )
    }
}

/// Visits per second that reach the net (leaf evaluations) in the search on
/// `game` with `threads` threads, each
/// waiting `latency` for every leaf on a net that answers as `net` did on
/// `game` ([`crate::search::simulated::SimulatedNet`]): the median of
/// `rounds` searches of `round` each, each on a fresh table.
pub fn search_scaling(
    net: &std::sync::Arc<crate::nn::Network>,
    game: &crate::Game,
    latency: Duration,
    threads: usize,
    rounds: usize,
    round: Duration,
) -> ScalingRate {
    use crate::engine::Limits;
    use crate::search::simulated::{FixedAnswer, SimulatedNet};
    use crate::search::{MctsEngine, SearchConfig};
    let mut eval = crate::nn::NetEval::new();
    let answered = crate::nn::Evaluator::new(net.clone())
        .evaluate(game, 0, 0.0, &mut eval)
        .is_ok();
    let answer = std::sync::Arc::new(FixedAnswer::new(&eval, game.board()));
    let mut rates = Vec::new();
    for r in 0..rounds.max(1) {
        let config = SearchConfig {
            tt_mb: 64,
            seed: r as u64 + 1,
            ..SearchConfig::default()
        };
        let Ok(mut engine) = MctsEngine::try_new(config) else {
            continue;
        };
        if !answered {
            break;
        }
        let mut evaluators: Vec<SimulatedNet> = (0..threads.max(1))
            .map(|_| SimulatedNet::new(answer.clone(), latency))
            .collect();
        let limits = Limits {
            playouts: None,
            time: Some(round),
        };
        let start = Instant::now();
        engine.search_with(game, game.to_move(), limits, &mut evaluators);
        // Visits that reach the net: those a transposition answers cost no
        // wait and would flatter the figure.
        rates.push(engine.last_playouts() as f64 / start.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    ScalingRate {
        latency,
        threads,
        visits_per_sec: rates.get(rates.len() / 2).copied().unwrap_or(0.0),
    }
}

/// The process's peak and current resident memory in MB, where the system
/// tells (Linux `/proc/self/status`; elsewhere `None`, also for a Windows
/// build under Wine, which would read the Wine server's figures there).
pub fn memory_mb() -> Option<(f64, f64)> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<f64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb / 1024.0)
    };
    Some((field("VmHWM:")?, field("VmRSS:")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_reports_plausible_figures() {
        let r = playouts(9, Policy::Light, 3, Duration::from_millis(20), 1);
        assert!(r.playouts_per_sec > 0.0);
        assert!((60.0..200.0).contains(&r.moves_per_playout), "{r}");
        assert!(r.to_string().starts_with("9x9 light playouts: "));
        let h = playouts(9, Policy::Heavy, 1, Duration::from_millis(20), 1);
        assert!(h.to_string().starts_with("9x9 heavy playouts: "));
    }
}
