//! A game in, the network's evaluation out: V7 features, the forward pass and
//! KataGo's post-processing, with every buffer kept for the next call.
//!
//! One [`Evaluator`] per thread; they share one loaded [`Network`].

use super::input::features::{FeatureError, FeatureScratch};
use super::input::metadata::SgfMetadata;
use super::input::sizes::{
    MAX_BOARD_SIZE, NUM_GLOBAL_FEATURES, NUM_META_FEATURES, NUM_SPATIAL_FEATURES,
};
use super::kernels::denormals::FlushDenormals;
use super::net::io::{EvalError, NetInput, RawEval};
use super::net::network::Network;
use super::net::output::{postprocess, NetEval, PostProcessOptions};
use super::net::workspace::Workspace;
use crate::go::game::Game;
use crate::go::rules::{KoRule, Scoring};
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

/// The shape of KataGo's input buffer, which decides what a transposing
/// symmetry (4..8) does on a rectangular board. KataGo copies the inputs under a
/// symmetry over its whole `nnXLen`×`nnYLen` buffer and transposes only when that
/// buffer is square (`copyWithSymmetry` in `nninputs.cpp`: `transpose = (symmetry
/// & 4) && hSize == wSize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetBuffer {
    /// A square buffer of the largest size (19×19) with the board in its corner:
    /// KataGo's analysis engine, and its GTP with `gtpForceMaxNNSize`. A
    /// transposing symmetry shows the net the board turned a quarter (a 19×13
    /// board as 13×19).
    Square,
    /// A buffer of exactly the board's size: KataGo's GTP engine by default. On
    /// a rectangular board the transpose is dropped, so symmetry `s` acts as
    /// `s & 3` (on a square board nothing changes).
    BoardSized,
}

/// Evaluates games, one at a time or in batches, on a shared network.
pub struct Evaluator {
    net: Arc<Network>,
    workspace: Workspace,
    features: FeatureScratch,
    /// Inputs of each batch entry, `NUM_SPATIAL_FEATURES * n * n` each.
    spatial: Vec<f32>,
    global: Vec<[f32; NUM_GLOBAL_FEATURES]>,
    /// Legal moves of each batch entry, `n * n + 1` each.
    legal: Vec<bool>,
    raw: Vec<RawEval>,
    /// The human-SL profile the metadata inputs are filled from.
    metadata: Option<SgfMetadata>,
    /// Metadata inputs of each batch entry.
    meta_rows: Vec<[f32; NUM_META_FEATURES]>,
    /// What a transposing symmetry does on a rectangular board.
    buffer: NetBuffer,
    /// Moves before this turn are hidden from the net (see
    /// [`Evaluator::set_history_floor`]).
    history_floor: Option<usize>,
}

impl Evaluator {
    /// An evaluator for single boards up to 19×19 on `net`.
    pub fn new(net: Arc<Network>) -> Evaluator {
        Evaluator::with_batch(net, 1)
    }

    /// An evaluator for batches of up to `max_batch` boards (1 to [`MAX_STACK_BATCH`]).
    pub fn with_batch(net: Arc<Network>, max_batch: usize) -> Evaluator {
        let max_batch = max_batch.clamp(1, MAX_STACK_BATCH);
        let workspace = Workspace::new(&net, max_batch, MAX_BOARD_SIZE);
        let area = MAX_BOARD_SIZE * MAX_BOARD_SIZE;
        let mut features = FeatureScratch::new();
        features.pass_alive_as_if_suicide_legal = net.prefer_pass_alive_under_suicide();
        Evaluator {
            net,
            workspace,
            features,
            spatial: Vec::with_capacity(NUM_SPATIAL_FEATURES * area * max_batch),
            global: vec![[0.0; NUM_GLOBAL_FEATURES]; max_batch],
            legal: Vec::with_capacity((area + 1) * max_batch),
            raw: (0..max_batch).map(|_| RawEval::new()).collect(),
            metadata: None,
            meta_rows: vec![[0.0; NUM_META_FEATURES]; max_batch],
            buffer: NetBuffer::Square,
            history_floor: None,
        }
    }

    /// Hides the moves before turn `floor` of each game from the net (its
    /// history planes and pass inputs, and the boards of the ladder inputs):
    /// KataGo's `ignorePreRootHistory`, with `floor` the root's turn count, so
    /// that the root is evaluated with no history and a node below it with
    /// the moves since the root. `None` shows the whole history.
    pub fn set_history_floor(&mut self, floor: Option<usize>) {
        self.history_floor = floor;
    }

    /// Sets the KataGo input buffer to imitate (see [`NetBuffer`]; the default is
    /// [`NetBuffer::Square`]).
    pub fn set_buffer(&mut self, buffer: NetBuffer) {
        self.buffer = buffer;
    }

    /// Sets the human-SL profile whose metadata inputs a human-SL net sees (other nets ignore
    /// it); `None` leaves such a net unable to evaluate.
    pub fn set_metadata(&mut self, metadata: Option<SgfMetadata>) {
        self.metadata = metadata;
    }

    /// The human-SL profile in use.
    pub fn metadata(&self) -> Option<&SgfMetadata> {
        self.metadata.as_ref()
    }

    /// The network.
    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// The largest batch [`Evaluator::evaluate_batch`] takes.
    pub fn max_batch(&self) -> usize {
        self.workspace.max_batch()
    }

    /// Evaluates `game` for its player to move under board `symmetry` (0..8)
    /// into `out`, from the side to move's view. `policy_optimism` (0..1)
    /// blends toward the optimistic policy of nets that have one (version 12
    /// and later); KataGo's raw policy is 0.
    ///
    /// # Errors
    /// A board side longer than 19, or a symmetry outside 0..8.
    pub fn evaluate(
        &mut self,
        game: &Game,
        symmetry: u8,
        policy_optimism: f32,
        out: &mut NetEval,
    ) -> Result<(), EvaluateError> {
        self.evaluate_batch(
            &[game],
            &[symmetry],
            policy_optimism,
            std::slice::from_mut(out),
        )
    }

    /// Evaluates `games` (all of one board size, at most
    /// [`Evaluator::max_batch`]) in one forward pass, `games[i]` under
    /// `symmetries[i]` into `out[i]`, as [`Evaluator::evaluate`] does one.
    ///
    /// # Errors
    /// A board side longer than 19, boards of different sizes, a symmetry
    /// outside 0..8, or more games than the batch holds.
    pub fn evaluate_batch(
        &mut self,
        games: &[&Game],
        symmetries: &[u8],
        policy_optimism: f32,
        out: &mut [NetEval],
    ) -> Result<(), EvaluateError> {
        let batch = games.len();
        if batch == 0 {
            return Ok(());
        }
        // Denormals flushed for the features, the forward pass and the post-processing.
        let _flush = FlushDenormals::new();
        if let Some(&s) = symmetries.iter().find(|&&s| s >= 8) {
            return Err(EvaluateError::Symmetry(s));
        }
        if batch > self.max_batch() || symmetries.len() != batch || out.len() < batch {
            return Err(EvaluateError::Forward(EvalError(format!(
                "{batch} games, {} symmetries, {} outputs, batch of at most {}",
                symmetries.len(),
                out.len(),
                self.max_batch()
            ))));
        }
        let geometry = games[0].board().geometry();
        if games.iter().any(|g| g.board().geometry() != geometry) {
            return Err(EvaluateError::Forward(EvalError(
                "the games of a batch differ in board size".into(),
            )));
        }
        let area = geometry.area();
        if self.net.needs_metadata() && self.metadata.is_none() {
            return Err(EvaluateError::Forward(EvalError(
                "this human-SL net needs SGF metadata: set a profile (--human-profile or \
                 kata-set-param humanSLProfile, e.g. rank_8k)"
                    .into(),
            )));
        }
        let (plane, cells) = (NUM_SPATIAL_FEATURES * area, area + 1);
        self.fill_features(games, area)?;
        let use_meta = self.net.needs_metadata();
        // KataGo's board-sized buffer drops the transpose of a rectangle.
        let mut symmetry_buf = [0u8; MAX_STACK_BATCH];
        let symmetries = if self.buffer == NetBuffer::BoardSized && !geometry.is_square() {
            let mapped = symmetry_buf.get_mut(..batch).ok_or_else(|| {
                EvaluateError::Forward(EvalError(format!(
                    "a batch of {batch} exceeds {MAX_STACK_BATCH}"
                )))
            })?;
            for (m, &s) in mapped.iter_mut().zip(symmetries) {
                *m = s & 3;
            }
            &*mapped
        } else {
            symmetries
        };
        let mut inputs = [NetInput {
            width: geometry.width(),
            height: geometry.height(),
            spatial: &[],
            global: &self.global[0],
            meta: None,
        }; MAX_STACK_BATCH];
        let inputs = if batch <= MAX_STACK_BATCH {
            &mut inputs[..batch]
        } else {
            return Err(EvaluateError::Forward(EvalError(format!(
                "a batch of {batch} exceeds {MAX_STACK_BATCH}"
            ))));
        };
        for (i, input) in inputs.iter_mut().enumerate() {
            input.spatial = &self.spatial[i * plane..(i + 1) * plane];
            input.global = &self.global[i];
            input.meta = use_meta.then(|| &self.meta_rows[i]);
        }
        self.net
            .evaluate(
                &mut self.workspace,
                inputs,
                symmetries,
                &mut self.raw[..batch],
            )
            .map_err(EvaluateError::Forward)?;
        self.postprocess_batch(games, policy_optimism, use_meta, cells, out);
        Ok(())
    }

    /// The input features and legal-move masks of `games` (boards of `area` points) into the
    /// evaluator's buffers.
    fn fill_features(&mut self, games: &[&Game], area: usize) -> Result<(), EvaluateError> {
        let batch = games.len();
        let (plane, cells) = (NUM_SPATIAL_FEATURES * area, area + 1);
        self.spatial.resize(plane * batch, 0.0);
        self.legal.resize(cells * batch, false);
        for (i, game) in games.iter().enumerate() {
            self.features.max_history = self
                .history_floor
                .map_or(usize::MAX, |floor| game.turns().len().saturating_sub(floor));
            self.features
                .fill_v7(
                    game,
                    &mut self.spatial[i * plane..(i + 1) * plane],
                    &mut self.global[i],
                )
                .map_err(EvaluateError::Features)?;
            self.features
                .legal_moves_mask(game, &mut self.legal[i * cells..(i + 1) * cells])
                .map_err(EvaluateError::Features)?;
            if let Some(meta) = &self.metadata {
                meta.fill_row(game.to_move(), area, &mut self.meta_rows[i]);
            }
        }
        Ok(())
    }

    /// Each raw output post-processed for its game into `out`.
    fn postprocess_batch(
        &self,
        games: &[&Game],
        policy_optimism: f32,
        use_meta: bool,
        cells: usize,
        out: &mut [NetEval],
    ) {
        // KataGo never blends in the optimistic policy of a net with metadata inputs.
        let policy_optimism = if use_meta {
            0.0
        } else {
            policy_optimism.clamp(0.0, 1.0)
        };
        for (i, game) in games.iter().enumerate() {
            let rules = game.rules();
            let options = PostProcessOptions {
                policy_optimism,
                // KataGo's no-result outcome exists only where a game can cycle
                // forever: simple ko, or territory scoring.
                no_result_possible: rules.ko == KoRule::Simple
                    || rules.scoring == Scoring::Territory,
            };
            postprocess(
                &self.net,
                &self.raw[i],
                game.to_move(),
                &self.legal[i * cells..(i + 1) * cells],
                &options,
                &mut out[i],
            );
        }
    }
}

/// The largest batch: the inputs' descriptors live on the stack.
pub const MAX_STACK_BATCH: usize = 32;
