//! What goes into the forward pass and what comes out: one position's inputs, its raw
//! outputs, and the error of a misused evaluation.

use crate::nn::input::sizes::{MAX_BOARD_SIZE, NUM_GLOBAL_FEATURES, NUM_META_FEATURES};
use std::fmt;

/// One position to evaluate: `spatial[c * width * height + y * width + x]` (y = 0 the top
/// row, x = 0 column A), all from the side to move's view.
#[derive(Debug, Clone, Copy)]
pub struct NetInput<'a> {
    /// Columns of the board.
    pub width: usize,
    /// Rows of the board.
    pub height: usize,
    pub spatial: &'a [f32],
    pub global: &'a [f32; NUM_GLOBAL_FEATURES],
    /// The SGF-metadata inputs of a human-SL net (see `nn::metadata`); required by nets with a
    /// metadata encoder, ignored by the others.
    pub meta: Option<&'a [f32; NUM_META_FEATURES]>,
}

/// The network's raw outputs for one position, in board coordinates, side to move's view.
#[derive(Debug, Clone, PartialEq)]
pub struct RawEval {
    /// Columns of the board.
    pub width: usize,
    /// Rows of the board.
    pub height: usize,
    /// Policy logits, `[channel][y * width + x]`; channel 0 plain, channel 1 optimistic (v12+).
    pub policy: Vec<f32>,
    /// Pass logits per policy channel (the second only from v12).
    pub pass: [f32; 2],
    /// Win, loss, no-result logits.
    pub value: [f32; 3],
    /// Score mean, score-stdev (pre-softplus), lead, variance-time, short-term value and
    /// score errors (the last two only from v9), before post-processing.
    pub score: [f32; 6],
    /// Ownership before the tanh, `[y * width + x]`.
    pub ownership: Vec<f32>,
}

impl RawEval {
    /// An output holder for boards up to `MAX_BOARD_SIZE`, filled by [`Network::evaluate`](super::network::Network::evaluate).
    pub fn new() -> Self {
        let area = MAX_BOARD_SIZE * MAX_BOARD_SIZE;
        RawEval {
            width: 0,
            height: 0,
            policy: Vec::with_capacity(2 * area),
            pass: [0.0; 2],
            value: [0.0; 3],
            score: [0.0; 6],
            ownership: Vec::with_capacity(area),
        }
    }
}

impl Default for RawEval {
    fn default() -> Self {
        RawEval::new()
    }
}

/// A misuse of [`Network::evaluate`](super::network::Network::evaluate) (sizes that do not match the workspace or the net).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError(pub String);

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EvalError {}
