//! `tengen bench`: single-threaded speed figures, printed one line per measure.
//!
//! Each figure is the median of several timed rounds in one run, so a noisy
//! shared machine moves it less than a single long round would.

use crate::board::{Board, Color, Geometry};
use crate::playout::{default_max_moves, playout, PlayoutRng, Policy};
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
            match self.policy {
                Policy::Light => "light",
                Policy::Heavy => "heavy",
            },
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
