//! Turns a network's raw outputs into probabilities and scores exactly as KataGo's
//! `nneval.cpp` does: policy softmax over the legal moves and pass, win/loss/no-result
//! softmax, score scalings per model version, ownership tanh. All from the side to move's
//! view; [`NetEval::to_view`] turns a result to Black's or White's.

use super::io::RawEval;
use super::network::Network;
use crate::Color;

/// The `rootPolicyOptimism` KataGo's GTP engine uses by default (and so `kata-raw-nn`) for
/// nets with an optimistic policy channel (model version 12 and later).
pub const KATAGO_GTP_POLICY_OPTIMISM: f32 = 0.2;

/// Choices KataGo takes from the rules and the search settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PostProcessOptions {
    /// Blend from the plain policy (0) to the optimistic one (1); ignored before version 12.
    pub policy_optimism: f32,
    /// Whether a game can end without result (simple ko or territory scoring); otherwise the
    /// no-result probability is forced to 0, as KataGo does.
    pub no_result_possible: bool,
}

impl Default for PostProcessOptions {
    fn default() -> Self {
        PostProcessOptions {
            policy_optimism: 0.0,
            no_result_possible: false,
        }
    }
}

/// A post-processed evaluation, from the view of `view` (initially the side to move).
#[derive(Debug, Clone, PartialEq)]
pub struct NetEval {
    /// Columns of the board.
    pub width: usize,
    /// Rows of the board.
    pub height: usize,
    /// Move probabilities `[y * width + x]`; NaN at illegal points (kata-raw-nn prints NAN).
    pub policy: Vec<f32>,
    /// Pass probability (NaN if pass was marked illegal).
    pub pass_policy: f32,
    pub win: f32,
    pub loss: f32,
    pub no_result: f32,
    /// Expected score (KataGo's "selfplay" score), points for `view`.
    pub score_mean: f32,
    /// Expected square of the score.
    pub score_mean_sq: f32,
    /// Standard deviation of the score (before the no-result weighting).
    pub score_stdev: f32,
    /// Expected lead, points for `view`.
    pub lead: f32,
    /// KataGo's variance-time estimate (-1 for version 8).
    pub var_time_left: f32,
    /// Short-term value error estimate (-1 for version 8).
    pub shortterm_winloss_error: f32,
    /// Short-term score error estimate (-1 for version 8).
    pub shortterm_score_error: f32,
    /// Ownership `[y * width + x]` in -1..1, +1 owned by `view`.
    pub ownership: Vec<f32>,
    /// Whose view these numbers are from.
    pub view: Color,
}

impl NetEval {
    /// The policy as the front ends list it: each board point row by row,
    /// then the pass, and -1 for a move that is illegal.
    pub fn listed_policy(&self) -> impl Iterator<Item = f64> + '_ {
        self.policy
            .iter()
            .chain(std::iter::once(&self.pass_policy))
            .map(|&p| {
                if p.is_nan() || p < 0.0 {
                    -1.0
                } else {
                    f64::from(p)
                }
            })
    }

    /// An empty result with room for a 19x19 board (so post-processing allocates nothing).
    pub fn new() -> Self {
        NetEval {
            width: 0,
            height: 0,
            policy: Vec::with_capacity(19 * 19),
            pass_policy: 0.0,
            win: 0.0,
            loss: 0.0,
            no_result: 0.0,
            score_mean: 0.0,
            score_mean_sq: 0.0,
            score_stdev: 0.0,
            lead: 0.0,
            var_time_left: 0.0,
            shortterm_winloss_error: 0.0,
            shortterm_score_error: 0.0,
            ownership: Vec::with_capacity(19 * 19),
            view: Color::Black,
        }
    }

    /// The same evaluation from `view`'s side: win and loss swap, scores and ownership negate.
    pub fn to_view(&self, view: Color) -> NetEval {
        let mut e = self.clone();
        if view != self.view {
            std::mem::swap(&mut e.win, &mut e.loss);
            e.score_mean = -e.score_mean;
            e.lead = -e.lead;
            e.ownership.iter_mut().for_each(|o| *o = -*o);
            e.view = view;
        }
        e
    }
}

impl Default for NetEval {
    fn default() -> Self {
        NetEval::new()
    }
}

/// KataGo's softplus, with its guard against overflow.
fn soft_plus(x: f64) -> f64 {
    if x > 40.0 {
        x
    } else {
        (1.0 + x.exp()).ln()
    }
}

/// Post-processes `raw` for `to_move` (the side the inputs were computed for). `legal` has
/// `width * height + 1` entries, pass last. With no legal move at all every probability is NaN.
pub fn postprocess(
    net: &Network,
    raw: &RawEval,
    to_move: Color,
    legal: &[bool],
    options: &PostProcessOptions,
    out: &mut NetEval,
) {
    let area = raw.width * raw.height;
    (out.width, out.height) = (raw.width, raw.height);
    out.view = to_move;
    policy(net, raw, legal, options, out);
    values(net, raw, options, out);
    out.ownership.clear();
    out.ownership
        .extend(raw.ownership[..area].iter().map(|o| o.tanh()));
}

/// The policy: blended toward the optimistic channel, a softmax over the legal moves.
fn policy(
    net: &Network,
    raw: &RawEval,
    legal: &[bool],
    options: &PostProcessOptions,
    out: &mut NetEval,
) {
    let area = raw.width * raw.height;
    let optimistic = net.policy_channels() >= 2;
    let opt = if optimistic {
        options.policy_optimism
    } else {
        0.0
    };
    let logit = |i: usize| -> f32 {
        let (p, p_opt) = if i == area {
            (raw.pass[0], raw.pass[1])
        } else {
            (
                raw.policy[i],
                if optimistic {
                    raw.policy[area + i]
                } else {
                    raw.policy[i]
                },
            )
        };
        if optimistic {
            p + (p_opt - p) * opt
        } else {
            p
        }
    };
    let is_legal = |i: usize| legal.get(i).copied().unwrap_or(false);
    let mut max_logit = f32::NEG_INFINITY;
    for i in 0..=area {
        if is_legal(i) {
            max_logit = max_logit.max(logit(i));
        }
    }
    out.policy.clear();
    out.policy.resize(area, f32::NAN);
    let mut sum = 0.0f32;
    let mut pass = f32::NAN;
    for i in 0..=area {
        if is_legal(i) {
            let e = (logit(i) - max_logit).exp();
            sum += e;
            if i == area {
                pass = e;
            } else {
                out.policy[i] = e;
            }
        }
    }
    out.pass_policy = pass;
    if sum > 0.0 && sum.is_finite() {
        out.policy.iter_mut().for_each(|p| *p /= sum);
        out.pass_policy /= sum;
    } else {
        let legal_count = (0..=area).filter(|&i| is_legal(i)).count() as f32;
        for i in 0..area {
            out.policy[i] = if is_legal(i) {
                1.0 / legal_count
            } else {
                f32::NAN
            };
        }
        out.pass_policy = if is_legal(area) {
            1.0 / legal_count
        } else {
            f32::NAN
        };
    }
}

/// The value and the scores, in f64 as KataGo computes them.
fn values(net: &Network, raw: &RawEval, options: &PostProcessOptions, out: &mut NetEval) {
    let version = net.version();
    let pp = net.post_process();
    let win_logit = raw.value[0] as f64;
    let loss_logit = raw.value[1] as f64;
    let mut no_result_logit = raw.value[2] as f64;
    if !options.no_result_possible {
        no_result_logit -= 100000.0;
    }
    let max_logit = win_logit.max(loss_logit).max(no_result_logit);
    let mut win = (win_logit - max_logit).exp();
    let mut loss = (loss_logit - max_logit).exp();
    let mut no_result = (no_result_logit - max_logit).exp();
    if !options.no_result_possible {
        no_result = 0.0;
    }
    let total = win + loss + no_result;
    win /= total;
    loss /= total;
    no_result /= total;

    let s = |i: usize| raw.score[i] as f64;
    let score_mean = s(0) * pp.score_mean_multiplier;
    let score_stdev = soft_plus(s(1)) * pp.score_stdev_multiplier;
    let score_mean_sq = score_mean * score_mean + score_stdev * score_stdev;
    let lead = s(2) * pp.lead_multiplier;
    let var_time_left = soft_plus(s(3)) * pp.variance_time_multiplier;
    let (winloss_error, score_error) = if version >= 14 {
        let a = soft_plus(s(4) * 0.5);
        let b = soft_plus(s(5) * 0.5);
        (
            (a * a * pp.shortterm_value_error_multiplier).sqrt(),
            (b * b * pp.shortterm_score_error_multiplier).sqrt(),
        )
    } else if version >= 10 {
        (
            (soft_plus(s(4)) * pp.shortterm_value_error_multiplier).sqrt(),
            (soft_plus(s(5)) * pp.shortterm_score_error_multiplier).sqrt(),
        )
    } else {
        (soft_plus(s(4)), soft_plus(s(5)) * 10.0)
    };
    let has_result = 1.0 - no_result;
    out.win = win as f32;
    out.loss = loss as f32;
    out.no_result = no_result as f32;
    out.score_mean = (score_mean * has_result) as f32;
    out.score_mean_sq = (score_mean_sq * has_result) as f32;
    out.score_stdev = score_stdev as f32;
    out.lead = (lead * has_result) as f32;
    if version >= 9 {
        out.var_time_left = var_time_left as f32;
        out.shortterm_winloss_error = winloss_error as f32;
        out.shortterm_score_error = score_error as f32;
    } else {
        out.var_time_left = -1.0;
        out.shortterm_winloss_error = -1.0;
        out.shortterm_score_error = -1.0;
    }
}
