//! A stand-in for a network with a chosen latency, to measure how the search
//! scales with threads beyond the cores at hand: every leaf gets one fixed
//! answer of a real net (its policy as priors, its value nudged per
//! position so that lines differ), after a sleep of the chosen latency per
//! call. Sleeping threads take no core, so 64 threads fit on two, and the
//! visits a second can be held against the ideal `threads / latency`.

use super::config::SearchConfig;
use super::evaluate::{LeafEval, LeafEvaluator, LeafKind, LeafView, Selection};
use super::root::Root;
use crate::go::board::{Board, Color, CELLS};
use crate::nn::NetEval;
use crate::search::classical::priors::Prior;
use std::sync::Arc;
use std::time::Duration;

/// One net evaluation, from Black's side and by point index, that every
/// leaf is given.
#[derive(Clone, Debug)]
pub struct FixedAnswer {
    priors: Vec<f32>,
    pass_prior: f32,
    black_win: f64,
    black_margin: f64,
    score_stdev: f64,
    black_lead: f64,
    ownership: Vec<f32>,
}

impl FixedAnswer {
    /// The answer `eval` gave on `board`.
    pub fn new(eval: &NetEval, board: &Board) -> FixedAnswer {
        let sign = if eval.view == Color::Black { 1.0 } else { -1.0 };
        let win = f64::from(eval.win + 0.5 * eval.no_result);
        let width = board.geometry().width();
        let mut priors = vec![0.0; CELLS];
        let mut ownership = vec![0.0; CELLS];
        for p in board.geometry().points() {
            let i = p.y() * width + p.x();
            let prior = eval.policy.get(i).copied().unwrap_or(0.0);
            priors[p.index()] = if prior.is_nan() { 0.0 } else { prior };
            ownership[p.index()] = sign as f32 * eval.ownership.get(i).copied().unwrap_or(0.0);
        }
        FixedAnswer {
            priors,
            pass_prior: if eval.pass_policy.is_nan() {
                0.0
            } else {
                eval.pass_policy
            },
            black_win: if eval.view == Color::Black {
                win
            } else {
                1.0 - win
            },
            black_margin: sign * f64::from(eval.score_mean),
            score_stdev: f64::from(eval.score_stdev),
            black_lead: sign * f64::from(eval.lead),
            ownership,
        }
    }
}

/// See the module documentation; one per search thread, batches of one.
pub struct SimulatedNet {
    answer: Arc<FixedAnswer>,
    latency: Duration,
    result: LeafEval,
    pending: bool,
}

impl SimulatedNet {
    pub fn new(answer: Arc<FixedAnswer>, latency: Duration) -> SimulatedNet {
        SimulatedNet {
            answer,
            latency,
            result: LeafEval::new(),
            pending: false,
        }
    }
}

/// A value in -0.1..0.1 drawn from a position key: the same position is
/// always worth the same, other positions differ.
fn nudge(key: u64) -> f64 {
    let mixed = key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 11;
    (mixed as f64 / (1u64 << 53) as f64 - 0.5) * 0.2
}

impl LeafEvaluator for SimulatedNet {
    fn selection(&self) -> Selection {
        Selection::Puct
    }

    fn begin_search(&mut self, _root: &Root, _seed: u64) {
        self.pending = false;
    }

    fn evaluate(&mut self, slot: usize, leaf: LeafView, cfg: &SearchConfig) {
        debug_assert_eq!(slot, 0, "batches of one");
        let a = &*self.answer;
        let out = &mut self.result;
        out.kind = LeafKind::Judged;
        out.moves.clear();
        out.black_win = (a.black_win + nudge(leaf.key)).clamp(0.0, 1.0);
        out.margin = a.black_margin;
        out.score_stdev = a.score_stdev;
        out.lead = a.black_lead;
        let size = (leaf.board.geometry().area() as f64).sqrt();
        out.value = cfg.score_utility().value(
            out.black_win,
            out.margin,
            out.score_stdev,
            leaf.root.score_center,
            size,
        );
        out.ownership.clone_from(&a.ownership);
        for (prior, &p) in out.priors.iter_mut().zip(&a.priors) {
            *prior = Prior {
                visits: 0.0,
                wins: p,
            };
        }
        out.pass_prior = Prior {
            visits: 0.0,
            wins: a.pass_prior,
        };
        out.has_priors = true;
        self.pending = true;
    }

    fn finish(&mut self, _cfg: &SearchConfig) {
        if std::mem::take(&mut self.pending) {
            std::thread::sleep(self.latency);
        }
    }

    fn result(&self, _slot: usize) -> &LeafEval {
        &self.result
    }

    fn expected_margin(
        &mut self,
        _root: &Root,
        _table: Option<(f64, u32)>,
        _cfg: &SearchConfig,
        _seed: u64,
    ) -> f64 {
        self.answer.black_margin
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nudge_is_small_fixed_per_position_and_differs_between_positions() {
        let values: Vec<f64> = (1..200u64).map(|k| nudge(k * 0x1234_5678_9abc)).collect();
        assert!(values.iter().all(|v| (-0.1..0.1).contains(v)));
        assert_eq!(nudge(42), nudge(42));
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        assert!(mean.abs() < 0.02, "{mean}");
        let distinct = values.windows(2).filter(|w| w[0] != w[1]).count();
        assert_eq!(distinct, values.len() - 1);
    }
}
