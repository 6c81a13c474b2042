//! A game in, the network's evaluation out: V7 features, the forward pass and
//! KataGo's post-processing, with every buffer kept for the next call.
//!
//! One [`Evaluator`] per thread; they share one loaded [`Network`].

use super::features::{FeatureError, FeatureScratch, NUM_GLOBAL, NUM_SPATIAL};
use super::forward::{EvalError, NetInput, Network, RawEval, Workspace, MAX_BOARD_SIZE};
use super::output::{postprocess, NetEval, PostProcessOptions};
use crate::game::Game;
use crate::rules::{KoRule, Scoring};
use std::fmt;
use std::sync::Arc;

/// Why a position could not be evaluated.
#[derive(Debug, Clone, PartialEq)]
pub enum EvaluateError {
    /// The features could not be computed (a board larger than 19×19).
    Features(FeatureError),
    /// The forward pass refused its inputs.
    Forward(EvalError),
    /// A symmetry outside 0..8.
    Symmetry(u8),
}

impl fmt::Display for EvaluateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvaluateError::Features(e) => write!(f, "{e}"),
            EvaluateError::Forward(e) => write!(f, "{}", e.0),
            EvaluateError::Symmetry(s) => write!(f, "symmetry {s} is not in 0..8"),
        }
    }
}

impl std::error::Error for EvaluateError {}

/// Evaluates games one at a time on a shared network.
pub struct Evaluator {
    net: Arc<Network>,
    workspace: Workspace,
    features: FeatureScratch,
    spatial: Vec<f32>,
    global: [f32; NUM_GLOBAL],
    legal: Vec<bool>,
    raw: RawEval,
}

impl Evaluator {
    /// An evaluator for boards up to 19×19 on `net`.
    pub fn new(net: Arc<Network>) -> Evaluator {
        let workspace = Workspace::new(&net, 1, MAX_BOARD_SIZE);
        Evaluator {
            net,
            workspace,
            features: FeatureScratch::new(),
            spatial: Vec::with_capacity(NUM_SPATIAL * MAX_BOARD_SIZE * MAX_BOARD_SIZE),
            global: [0.0; NUM_GLOBAL],
            legal: Vec::with_capacity(MAX_BOARD_SIZE * MAX_BOARD_SIZE + 1),
            raw: RawEval::new(),
        }
    }

    /// The network.
    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// Evaluates `game` for its player to move under board `symmetry` (0..8)
    /// into `out`, from the side to move's view. `policy_optimism` (0..1)
    /// blends toward the optimistic policy of nets that have one (version 12
    /// and later); KataGo's raw policy is 0.
    ///
    /// # Errors
    /// A board larger than 19×19, or a symmetry outside 0..8.
    pub fn evaluate(
        &mut self,
        game: &Game,
        symmetry: u8,
        policy_optimism: f32,
        out: &mut NetEval,
    ) -> Result<(), EvaluateError> {
        if symmetry >= 8 {
            return Err(EvaluateError::Symmetry(symmetry));
        }
        let n = game.board().size();
        self.spatial.resize(NUM_SPATIAL * n * n, 0.0);
        self.legal.resize(n * n + 1, false);
        self.features
            .fill_v7(game, &mut self.spatial, &mut self.global)
            .map_err(EvaluateError::Features)?;
        self.features
            .legal_moves_mask(game, &mut self.legal)
            .map_err(EvaluateError::Features)?;
        let input = NetInput {
            board_size: n,
            spatial: &self.spatial,
            global: &self.global,
        };
        self.net
            .evaluate(
                &mut self.workspace,
                &[input],
                &[symmetry],
                std::slice::from_mut(&mut self.raw),
            )
            .map_err(EvaluateError::Forward)?;
        let rules = game.rules();
        let options = PostProcessOptions {
            policy_optimism: policy_optimism.clamp(0.0, 1.0),
            // KataGo's no-result outcome exists only where a game can cycle
            // forever: simple ko, or territory scoring.
            no_result_possible: rules.ko == KoRule::Simple || rules.scoring == Scoring::Territory,
        };
        postprocess(
            &self.net,
            &self.raw,
            game.to_move(),
            &self.legal,
            &options,
            out,
        );
        Ok(())
    }
}
