//! `tengen bench --clock`: the seconds an engine really uses per move under a
//! byo-yomi clock, measured from the controller's side of the pipe.
//!
//! The engine plays both colours on an empty board under `time_settings 0 P 1`
//! (P seconds per move, Canadian with one stone: what `tengen match --time P`
//! sends); before each `genmove` it gets `time_left COLOR P 1`, as a referee
//! would send, and the time from sending `genmove` to reading the answer is
//! recorded.

use crate::match_runner::gtp_client::{GtpClient, GtpError};
use std::time::{Duration, Instant};

/// Seconds per move under one period length.
#[derive(Clone, Debug, PartialEq)]
pub struct ClockFigure {
    pub size: usize,
    pub period: f64,
    /// Seconds taken by each move, in order.
    pub seconds: Vec<f64>,
}

impl ClockFigure {
    fn sorted(&self) -> Vec<f64> {
        let mut s = self.seconds.clone();
        s.sort_by(f64::total_cmp);
        s
    }

    /// The median seconds per move (0 without moves).
    pub fn median(&self) -> f64 {
        let s = self.sorted();
        s.get(s.len() / 2).copied().unwrap_or(0.0)
    }

    /// The longest move (0 without moves).
    pub fn max(&self) -> f64 {
        self.sorted().last().copied().unwrap_or(0.0)
    }
}

impl std::fmt::Display for ClockFigure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{s}x{s} time_settings 0 {} 1: median {:.3} s per move ({:.0}% of the period), \
             longest {:.3} s, {} moves",
            self.period,
            self.median(),
            100.0 * self.median() / self.period,
            self.max(),
            self.seconds.len(),
            s = self.size
        )
    }
}

/// Plays `moves` moves with `engine` (a command line run with `sh -c`, or
/// `cmd /C` on Windows) on a `size` board at `period` seconds per move; see
/// the module documentation.
///
/// # Errors
/// Whatever the engine does wrong, including answering later than the period
/// plus 5 s.
pub fn seconds_per_move(
    engine: &str,
    size: usize,
    period: f64,
    moves: usize,
) -> Result<ClockFigure, GtpError> {
    let setup = Duration::from_secs(30);
    let mut client = GtpClient::spawn(engine, "bench")?;
    for command in [
        format!("boardsize {size}"),
        "clear_board".to_string(),
        "komi 7".to_string(),
        format!("time_settings 0 {period} 1"),
    ] {
        client.send(&command, setup)?;
    }
    let mut seconds = Vec::with_capacity(moves);
    let mut color = "b";
    for _ in 0..moves {
        client.send(&format!("time_left {color} {period} 1"), setup)?;
        let start = Instant::now();
        let answer = client.send(
            &format!("genmove {color}"),
            crate::time::duration(period + 5.0),
        )?;
        seconds.push(start.elapsed().as_secs_f64());
        if answer.eq_ignore_ascii_case("resign") {
            client.send("clear_board", setup)?;
        }
        color = if color == "b" { "w" } else { "b" };
    }
    client.quit();
    Ok(ClockFigure {
        size,
        period,
        seconds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_summarise_the_moves() {
        let f = ClockFigure {
            size: 9,
            period: 2.0,
            seconds: vec![1.5, 1.7, 1.6, 1.9],
        };
        assert_eq!(f.median(), 1.7);
        assert_eq!(f.max(), 1.9);
        assert!(f
            .to_string()
            .contains("median 1.700 s per move (85% of the period)"));
    }
}
