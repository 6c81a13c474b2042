//! The loaded network, its batch norms folded into the convolutions, and the forward pass over
//! a batch of positions at the board's true size, under any of the eight symmetries (on a
//! rectangular board the transposing ones show the net the board turned a quarter, as KataGo
//! does, so one batch may hold two shapes: it runs as consecutive runs of one shape).
//!
//! A [`Network`] is immutable and `Sync`: threads share one and each brings its own
//! [`Workspace`], so an evaluation allocates nothing once the workspace exists.

use std::fmt;
use std::path::Path;

use super::layers::{activate_slice, global_pool, Conv, Dense, NormAct, PoolKind};
use super::precision::Precision;
use super::shapes::Frame;
use super::transformer::{Attention, FeedForward, RmsNormTip, TransformerScratch};
use crate::nn::file::desc::{
    Activation, BlockDesc, ConvDesc, MatMulDesc, MetadataEncoderDesc, ModelDesc, PostProcessParams,
    TrunkTipDesc,
};
use crate::nn::file::error::ModelError;
use crate::nn::input::sizes::{
    MAX_BOARD_SIZE, NUM_GLOBAL_FEATURES, NUM_META_FEATURES, NUM_SPATIAL_FEATURES,
};
use crate::nn::input::symmetry;
use crate::nn::kernels::denormals::FlushDenormals;

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
    /// An output holder for boards up to `MAX_BOARD_SIZE`, filled by [`Network::evaluate`].
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

/// A misuse of [`Network::evaluate`] (sizes that do not match the workspace or the net).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError(pub String);

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EvalError {}

/// A residual block with its norms folded where that is exact.
#[derive(Debug, Clone)]
enum Block {
    Ordinary {
        pre: NormAct,
        /// Regular conv with the mid norm and activation fused.
        first: Conv,
        /// Final conv, added into the stream.
        second: Conv,
    },
    GlobalPooling {
        pre: NormAct,
        /// Regular conv scaled by the mid norm (its shift lives in `to_bias`).
        regular: Conv,
        /// Gpool conv with its norm and activation fused.
        gpool: Conv,
        /// Pooled values to a per-channel bias, scaled by the mid norm, its shift as bias.
        to_bias: Dense,
        mid_act: Activation,
        second: Conv,
    },
    Nested {
        pre: NormAct,
        down: Conv,
        blocks: Vec<Block>,
        post: NormAct,
        up: Conv,
    },
    Attention(Attention),
    FeedForward(FeedForward),
}

impl Block {
    fn fold(desc: &BlockDesc) -> Block {
        match desc {
            BlockDesc::Ordinary {
                pre_bn,
                pre_act,
                regular_conv,
                mid_bn,
                mid_act,
                final_conv,
                ..
            } => Block::Ordinary {
                pre: NormAct::new(pre_bn, *pre_act),
                first: Conv::with_norm(regular_conv, mid_bn, *mid_act),
                second: Conv::new(final_conv),
            },
            BlockDesc::GlobalPooling {
                pre_bn,
                pre_act,
                regular_conv,
                gpool_conv,
                gpool_bn,
                gpool_act,
                gpool_to_bias,
                mid_bn,
                mid_act,
                final_conv,
                ..
            } => {
                // mid_bn(r + g) = s*r + (s*g + t): scale both branches, t becomes the bias.
                let (scale, shift) = mid_bn.merged();
                let mut regular = Conv::new(regular_conv);
                regular.scale_outputs(&scale);
                let mut to_bias = Dense::new(gpool_to_bias, Some(&shift));
                to_bias.scale_outputs(&scale);
                Block::GlobalPooling {
                    pre: NormAct::new(pre_bn, *pre_act),
                    regular,
                    gpool: Conv::with_norm(gpool_conv, gpool_bn, *gpool_act),
                    to_bias,
                    mid_act: *mid_act,
                    second: Conv::new(final_conv),
                }
            }
            BlockDesc::NestedBottleneck {
                pre_bn,
                pre_act,
                pre_conv,
                blocks,
                post_bn,
                post_act,
                post_conv,
                ..
            } => Block::Nested {
                pre: NormAct::new(pre_bn, *pre_act),
                down: Conv::new(pre_conv),
                blocks: blocks.iter().map(Block::fold).collect(),
                post: NormAct::new(post_bn, *post_act),
                up: Conv::new(post_conv),
            },
            BlockDesc::Attention(desc) => Block::Attention(Attention::new(desc)),
            BlockDesc::FeedForward(desc) => Block::FeedForward(FeedForward::new(desc)),
        }
    }

    /// Visits every transformer block (for workspace sizing and arithmetic counts).
    fn for_each_transformer<'a>(&'a self, f: &mut dyn FnMut(&'a Block)) {
        match self {
            Block::Attention(_) | Block::FeedForward(_) => f(self),
            Block::Nested { blocks, .. } => blocks.iter().for_each(|b| b.for_each_transformer(f)),
            _ => {}
        }
    }

    /// Visits every convolution (for workspace sizing).
    fn for_each_conv(&self, f: &mut dyn FnMut(&Conv)) {
        match self {
            Block::Ordinary { first, second, .. } => {
                f(first);
                f(second);
            }
            Block::GlobalPooling {
                regular,
                gpool,
                second,
                ..
            } => {
                f(regular);
                f(gpool);
                f(second);
            }
            Block::Nested {
                down, blocks, up, ..
            } => {
                f(down);
                blocks.iter().for_each(|b| b.for_each_conv(f));
                f(up);
            }
            Block::Attention(_) | Block::FeedForward(_) => {}
        }
    }

    /// Runs the transformer blocks' projections in `precision`.
    fn set_precision(&mut self, precision: Precision) {
        match self {
            Block::Attention(a) => a.set_precision(precision),
            Block::FeedForward(f) => f.set_precision(precision),
            Block::Nested { blocks, .. } => {
                blocks.iter_mut().for_each(|b| b.set_precision(precision))
            }
            _ => {}
        }
    }

    /// Visits every convolution mutably.
    fn for_each_conv_mut(&mut self, f: &mut dyn FnMut(&mut Conv)) {
        match self {
            Block::Ordinary { first, second, .. } => {
                f(first);
                f(second);
            }
            Block::GlobalPooling {
                regular,
                gpool,
                second,
                ..
            } => {
                f(regular);
                f(gpool);
                f(second);
            }
            Block::Nested {
                down, blocks, up, ..
            } => {
                f(down);
                blocks.iter_mut().for_each(|b| b.for_each_conv_mut(f));
                f(up);
            }
            Block::Attention(_) | Block::FeedForward(_) => {}
        }
    }

    /// Nesting depth below this block (0 for plain blocks).
    fn depth(&self) -> usize {
        match self {
            Block::Nested { blocks, .. } => 1 + blocks.iter().map(Block::depth).max().unwrap_or(0),
            _ => 0,
        }
    }
}

/// The policy head, folded.
#[derive(Debug, Clone)]
struct PolicyHead {
    /// p1 conv scaled by p1's norm (its shift lives in `to_bias`).
    p1: Conv,
    g1: Conv,
    to_bias: Dense,
    p1_act: Activation,
    /// The policy channels engines use (plain and optimistic; never the Q-value channels).
    p2: Conv,
    /// Pooled values to the pass logits, or (version 15+) to the pass head's hidden layer.
    to_pass: Dense,
    /// Version 15+: the hidden layer's activation and its map to the pass logits.
    pass_hidden: Option<(Activation, Dense)>,
}

/// The trunk's last norm and activation.
#[derive(Debug, Clone)]
enum Tip {
    BatchNorm(NormAct),
    RmsNorm(RmsNormTip),
}

/// The human-SL nets' SGF-metadata encoder: three dense layers to a per-channel trunk bias.
#[derive(Debug, Clone)]
struct MetadataEncoder {
    first: Dense,
    first_act: Activation,
    second: Dense,
    second_act: Activation,
    out: Dense,
}

impl MetadataEncoder {
    fn new(d: &MetadataEncoderDesc) -> Self {
        MetadataEncoder {
            first: Dense::new(&d.mul1, Some(&d.bias1.weights)),
            first_act: d.act1,
            second: Dense::new(&d.mul2, Some(&d.bias2.weights)),
            second_act: d.act2,
            out: Dense::new(&d.mul3, None),
        }
    }

    /// The trunk bias for one metadata row; `hidden` holds the widest layer.
    fn apply(&self, meta: &[f32], hidden: &mut [f32], out: &mut [f32]) {
        let (a, b) = hidden.split_at_mut(hidden.len() / 2);
        self.first.apply(meta, a);
        activate_slice(self.first_act, &mut a[..self.first.out_channels]);
        self.second.apply(a, b);
        activate_slice(self.second_act, &mut b[..self.second.out_channels]);
        self.out.apply(b, out);
    }

    fn width(&self) -> usize {
        self.first.out_channels.max(self.second.out_channels)
    }
}

/// The first `keep` columns of row-major `weights` with rows of `width` values.
fn first_columns(weights: &[f32], width: usize, keep: usize) -> Vec<f32> {
    weights
        .chunks_exact(width)
        .flat_map(|row| row[..keep].iter().copied())
        .collect()
}

/// The first `keep` output channels of a convolution.
fn first_outputs_conv(d: &ConvDesc, keep: usize) -> ConvDesc {
    let keep = keep.min(d.out_channels);
    ConvDesc {
        out_channels: keep,
        weights: first_columns(&d.weights, d.out_channels, keep),
        ..d.clone()
    }
}

/// The first `keep` output columns of a dense layer.
fn first_outputs_dense(d: &MatMulDesc, keep: usize) -> MatMulDesc {
    let keep = keep.min(d.out_channels);
    MatMulDesc {
        out_channels: keep,
        weights: first_columns(&d.weights, d.out_channels, keep),
        ..d.clone()
    }
}

/// Policy channels engines read: plain and optimistic.
const USED_POLICY_CHANNELS: usize = 2;

/// The value head, folded.
#[derive(Debug, Clone)]
struct ValueHead {
    v1: Conv,
    v2: Dense,
    v2_act: Activation,
    v3: Dense,
    sv3: Dense,
    ownership: Conv,
}

// One loaded network is shared by every evaluating thread.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<Network>();
};

/// A loaded network, ready to evaluate.
#[derive(Debug, Clone)]
pub struct Network {
    name: String,
    version: i64,
    post_process: PostProcessParams,
    prefer_pass_alive_under_suicide: bool,
    trunk_channels: usize,
    initial: Conv,
    initial_global: Dense,
    metadata: Option<MetadataEncoder>,
    blocks: Vec<Block>,
    tip: Tip,
    policy: PolicyHead,
    value: ValueHead,
    parameters: usize,
}

impl Network {
    /// Loads a `.bin.gz` / `.txt.gz` (or uncompressed `.bin` / `.txt`) KataGo model.
    pub fn load(path: impl AsRef<Path>) -> Result<Network, ModelError> {
        Ok(Network::from_model(&ModelDesc::load(path.as_ref())?))
    }

    /// Builds the evaluator from a parsed model, folding batch norms where exact; 3x3
    /// convolutions run by Winograd F(4x4, 3x3).
    pub fn from_model(m: &ModelDesc) -> Network {
        Network::from_model_with(m, true)
    }

    /// As [`Network::from_model`], choosing Winograd or im2col for the 3x3 convolutions (for
    /// benchmarks and tests).
    pub fn from_model_with(m: &ModelDesc, winograd: bool) -> Network {
        let t = &m.trunk;
        let p = &m.policy;
        let v = &m.value;
        let (p1_scale, p1_shift) = p.p1_bn.merged();
        let mut p1 = Conv::new(&p.p1_conv);
        p1.scale_outputs(&p1_scale);
        let mut to_bias = Dense::new(&p.gpool_to_bias, Some(&p1_shift));
        to_bias.scale_outputs(&p1_scale);
        let policy = PolicyHead {
            p1,
            g1: Conv::with_norm(&p.g1_conv, &p.g1_bn, p.g1_act),
            to_bias,
            p1_act: p.p1_act,
            p2: Conv::new(&first_outputs_conv(&p.p2_conv, USED_POLICY_CHANNELS)),
            to_pass: match &p.pass_hidden {
                Some(h) => Dense::new(&p.gpool_to_pass, Some(&h.bias.weights)),
                None => Dense::new(
                    &first_outputs_dense(&p.gpool_to_pass, USED_POLICY_CHANNELS),
                    None,
                ),
            },
            pass_hidden: p.pass_hidden.as_ref().map(|h| {
                (
                    h.act,
                    Dense::new(&first_outputs_dense(&h.mul2, USED_POLICY_CHANNELS), None),
                )
            }),
        };
        let value = ValueHead {
            v1: Conv::with_norm(&v.v1_conv, &v.v1_bn, v.v1_act),
            v2: Dense::new(&v.v2_mul, Some(&v.v2_bias.weights)),
            v2_act: v.v2_act,
            v3: Dense::new(&v.v3_mul, Some(&v.v3_bias.weights)),
            sv3: Dense::new(&v.sv3_mul, Some(&v.sv3_bias.weights)),
            ownership: Conv::new(&v.ownership_conv),
        };
        let mut net = Network {
            name: m.name.clone(),
            version: m.version,
            post_process: m.post_process,
            prefer_pass_alive_under_suicide: m.prefer_pass_alive_under_suicide,
            trunk_channels: t.channels,
            initial: Conv::new(&t.initial_conv),
            initial_global: Dense::new(&t.initial_matmul, None),
            metadata: t.metadata_encoder.as_ref().map(MetadataEncoder::new),
            blocks: t.blocks.iter().map(Block::fold).collect(),
            tip: match &t.tip {
                TrunkTipDesc::BatchNorm(bn) => Tip::BatchNorm(NormAct::new(bn, t.tip_act)),
                TrunkTipDesc::RmsNorm(norm) => Tip::RmsNorm(RmsNormTip::new(norm, t.tip_act)),
            },
            policy,
            value,
            parameters: 0,
        };
        net.parameters = m.parameters;
        if winograd {
            net.blocks
                .iter_mut()
                .for_each(|b| b.for_each_conv_mut(&mut Conv::use_winograd));
        }
        net
    }

    /// Runs the large matrix products in `precision` (see [`Precision`]); the net starts in
    /// fp32. Only fp32 is exact to KataGo. A transformer net reduces its projections only: its
    /// convolutions in bf16 too tripled the win-rate error on the golden positions (0.016
    /// against 0.005, `docs/precision.md`).
    pub fn set_precision(&mut self, precision: Precision) {
        let transformer = self.has_transformer();
        for block in &mut self.blocks {
            if transformer {
                block.set_precision(precision);
            } else {
                block.for_each_conv_mut(&mut |conv| conv.set_precision(precision));
            }
        }
    }

    /// The model's name from its file.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// KataGo model version.
    pub fn version(&self) -> i64 {
        self.version
    }

    /// Score post-processing multipliers.
    pub fn post_process(&self) -> &PostProcessParams {
        &self.post_process
    }

    /// Policy channels computed: 1, or 2 (plain and optimistic) from version 12.
    pub fn policy_channels(&self) -> usize {
        self.policy.p2.out_channels
    }

    /// Whether the net needs the SGF-metadata inputs (the human-SL nets).
    pub fn needs_metadata(&self) -> bool {
        self.metadata.is_some()
    }

    /// Whether the net wants its pass-alive-area inputs computed as if multi-stone suicide were
    /// legal, whatever the rules (KataGo's `preferPassAliveUnderSuicideRules`).
    pub fn prefer_pass_alive_under_suicide(&self) -> bool {
        self.prefer_pass_alive_under_suicide
    }

    /// Whether the trunk has transformer (attention and feed-forward) blocks.
    pub fn has_transformer(&self) -> bool {
        let mut any = false;
        self.blocks
            .iter()
            .for_each(|b| b.for_each_transformer(&mut |_| any = true));
        any
    }

    /// Score-value outputs: 4 for version 8, 6 from version 9.
    pub fn score_channels(&self) -> usize {
        self.value.sv3.out_channels
    }

    /// Trunk width.
    pub fn trunk_channels(&self) -> usize {
        self.trunk_channels
    }

    /// Number of parameters in the file (weights, biases, norms).
    pub fn parameters(&self) -> usize {
        self.parameters
    }

    /// Multiply-adds of one evaluation on an `n`x`n` board, times two (FLOPs of the convs,
    /// counted as direct convolution, and of the transformer blocks).
    pub fn flops(&self, n: usize) -> f64 {
        let area = n * n;
        let mut macs = 0.0;
        self.for_each_conv(&mut |c| macs += (c.num_weights() * area) as f64);
        self.blocks.iter().for_each(|b| {
            b.for_each_transformer(&mut |t| match t {
                Block::Attention(a) => macs += a.macs(area),
                Block::FeedForward(f) => macs += f.macs(area),
                _ => {}
            })
        });
        2.0 * macs
    }

    fn for_each_conv(&self, f: &mut dyn FnMut(&Conv)) {
        f(&self.initial);
        self.blocks.iter().for_each(|b| b.for_each_conv(f));
        f(&self.policy.p1);
        f(&self.policy.g1);
        f(&self.policy.p2);
        f(&self.value.v1);
        f(&self.value.ownership);
    }

    /// Evaluates `inputs` (all of one board shape), each under `symmetries[i]` (0..8), into
    /// `out[i]`. Flushes denormals while it runs (see [`FlushDenormals`]). Allocates
    /// nothing.
    ///
    /// On a rectangular board, symmetries 4..8 show the net a frame of the other shape: the
    /// batch runs as consecutive runs of inputs whose frames agree.
    pub fn evaluate(
        &self,
        ws: &mut Workspace,
        inputs: &[NetInput],
        symmetries: &[u8],
        out: &mut [RawEval],
    ) -> Result<(), EvalError> {
        let batch = inputs.len();
        if batch == 0 {
            return Ok(());
        }
        if batch > ws.max_batch {
            return Err(EvalError(format!(
                "batch of {batch} exceeds the workspace's {}",
                ws.max_batch
            )));
        }
        if ws.trunk_channels != self.trunk_channels || ws.max_channels < self.trunk_channels {
            return Err(EvalError("workspace was built for another network".into()));
        }
        if symmetries.len() != batch || out.len() < batch {
            return Err(EvalError(format!(
                "{batch} inputs but {} symmetries and {} outputs",
                symmetries.len(),
                out.len()
            )));
        }
        let (w, h) = (inputs[0].width, inputs[0].height);
        if w < 2 || h < 2 || w > ws.board_size || h > ws.board_size {
            return Err(EvalError(format!(
                "board size {w}x{h} outside 2..={} on a side",
                ws.board_size
            )));
        }
        for (i, input) in inputs.iter().enumerate() {
            if (input.width, input.height) != (w, h)
                || input.spatial.len() != NUM_SPATIAL_FEATURES * w * h
            {
                return Err(EvalError(format!(
                    "input {i}: board size {}x{} with {} spatial values (expected size {w}x{h}, {} values)",
                    input.width,
                    input.height,
                    input.spatial.len(),
                    NUM_SPATIAL_FEATURES * w * h
                )));
            }
            if self.metadata.is_some() && input.meta.is_none() {
                return Err(EvalError(format!(
                    "input {i}: this net needs the SGF-metadata inputs (a human-SL profile)"
                )));
            }
            if symmetries[i] >= symmetry::NUM_SYMMETRIES {
                return Err(EvalError(format!(
                    "input {i}: symmetry {} is not 0..8",
                    symmetries[i]
                )));
            }
        }
        // Denormals flushed while the net runs, the caller's setting back afterwards.
        let _flush = FlushDenormals::new();
        let frame_of = |s: u8| {
            let (width, height) = symmetry::frame(s, w, h);
            Frame { width, height }
        };
        let mut start = 0;
        while start < batch {
            let frame = frame_of(symmetries[start]);
            let end = (start..batch)
                .find(|&i| frame_of(symmetries[i]) != frame)
                .unwrap_or(batch);
            self.evaluate_run(
                ws,
                &inputs[start..end],
                &symmetries[start..end],
                frame,
                &mut out[start..end],
            );
            start = end;
        }
        Ok(())
    }

    /// [`Network::evaluate`] on checked inputs whose symmetries all give the net `frame`.
    fn evaluate_run(
        &self,
        ws: &mut Workspace,
        inputs: &[NetInput],
        symmetries: &[u8],
        frame: Frame,
        out: &mut [RawEval],
    ) {
        let batch = inputs.len();
        let (w, h) = (inputs[0].width, inputs[0].height);
        let area = frame.area();
        let c = self.trunk_channels;

        // Inputs into NHWC under each symmetry.
        for (b, input) in inputs.iter().enumerate() {
            symmetry::index_table(
                symmetries[b],
                w,
                h,
                &mut ws.sym_table[b * area..(b + 1) * area],
            );
            let dst = &mut ws.input
                [b * area * NUM_SPATIAL_FEATURES..(b + 1) * area * NUM_SPATIAL_FEATURES];
            for (board_pos, &net_pos) in ws.sym_table[b * area..(b + 1) * area].iter().enumerate() {
                for f in 0..NUM_SPATIAL_FEATURES {
                    dst[net_pos * NUM_SPATIAL_FEATURES + f] = input.spatial[f * area + board_pos];
                }
            }
        }

        // Trunk.
        let (level0, deeper) = ws.levels.split_at_mut(1);
        let trunk = &mut level0[0].stream;
        self.initial
            .apply(&ws.input, batch, frame, trunk, false, &mut ws.im2col);
        for (b, input) in inputs.iter().enumerate() {
            self.initial_global.apply(input.global, &mut ws.row);
            if let (Some(encoder), Some(meta)) = (&self.metadata, input.meta) {
                // KataGo adds the two biases one after the other.
                let rows = trunk[b * area * c..(b + 1) * area * c].chunks_exact_mut(c);
                for row in rows {
                    for (t, g) in row.iter_mut().zip(&ws.row) {
                        *t += g;
                    }
                }
                encoder.apply(meta, &mut ws.pooled, &mut ws.row);
            }
            for row in trunk[b * area * c..(b + 1) * area * c].chunks_exact_mut(c) {
                for (t, g) in row.iter_mut().zip(&ws.row) {
                    *t += g;
                }
            }
        }
        let mut scratch = Scratch {
            im2col: &mut ws.im2col,
            pooled: &mut ws.pooled,
            row: &mut ws.row,
            transformer: &mut ws.transformer,
        };
        run_stack(
            &self.blocks,
            &mut level0[0],
            deeper,
            batch,
            frame,
            &mut scratch,
        );
        let stream_len = batch * area * c;
        let tip_in = &level0[0].stream[..stream_len];
        match &self.tip {
            Tip::BatchNorm(norm) => norm.apply(tip_in, &mut ws.tip[..stream_len]),
            Tip::RmsNorm(norm) => norm.apply(tip_in, &mut ws.tip[..stream_len], batch, area),
        }

        // Policy head.
        let ph = &self.policy;
        let pc = ph.p1.out_channels;
        let gc = ph.g1.out_channels;
        ph.p1
            .apply(&ws.tip, batch, frame, &mut ws.head_a, false, &mut ws.im2col);
        ph.g1
            .apply(&ws.tip, batch, frame, &mut ws.head_b, false, &mut ws.im2col);
        for (b, o) in out.iter_mut().enumerate().take(batch) {
            let pooled = &mut ws.pooled[..3 * gc];
            global_pool(&ws.head_b[b * area * gc..], area, gc, PoolKind::Max, pooled);
            ph.to_bias.apply(pooled, &mut ws.row);
            ph.to_pass.apply(pooled, &mut ws.pass_row);
            if let Some((act, second)) = &ph.pass_hidden {
                let hidden = &mut ws.pass_row[..ph.to_pass.out_channels];
                activate_slice(*act, hidden);
                let mut logits = [0.0; USED_POLICY_CHANNELS];
                second.apply(hidden, &mut logits);
                ws.pass_row[..second.out_channels].copy_from_slice(&logits[..second.out_channels]);
            }
            for row in ws.head_a[b * area * pc..(b + 1) * area * pc].chunks_exact_mut(pc) {
                for (v, g) in row.iter_mut().zip(&ws.row) {
                    *v += g;
                }
                activate_slice(ph.p1_act, row);
            }
            o.pass = [0.0; 2];
            let po = ph.p2.out_channels;
            o.pass[..po].copy_from_slice(&ws.pass_row[..po]);
        }
        let po = ph.p2.out_channels;
        ph.p2.apply(
            &ws.head_a,
            batch,
            frame,
            &mut ws.head_b,
            false,
            &mut ws.im2col,
        );
        for (b, o) in out.iter_mut().enumerate().take(batch) {
            (o.width, o.height) = (w, h);
            o.policy.clear();
            o.policy.resize(po * area, 0.0);
            let table = &ws.sym_table[b * area..(b + 1) * area];
            let src = &ws.head_b[b * area * po..(b + 1) * area * po];
            for ch in 0..po {
                for (board_pos, &net_pos) in table.iter().enumerate() {
                    o.policy[ch * area + board_pos] = src[net_pos * po + ch];
                }
            }
        }

        // Value head.
        let vh = &self.value;
        let vc = vh.v1.out_channels;
        vh.v1
            .apply(&ws.tip, batch, frame, &mut ws.head_a, false, &mut ws.im2col);
        vh.ownership.apply(
            &ws.head_a,
            batch,
            frame,
            &mut ws.head_b,
            false,
            &mut ws.im2col,
        );
        for (b, o) in out.iter_mut().enumerate().take(batch) {
            let pooled = &mut ws.pooled[..3 * vc];
            global_pool(
                &ws.head_a[b * area * vc..],
                area,
                vc,
                PoolKind::ValueHead,
                pooled,
            );
            vh.v2.apply(pooled, &mut ws.row);
            super::layers::activate_slice(vh.v2_act, &mut ws.row[..vh.v2.out_channels]);
            vh.v3.apply(&ws.row, &mut o.value);
            o.score = [0.0; 6];
            vh.sv3.apply(&ws.row, &mut o.score);
            o.ownership.clear();
            o.ownership.resize(area, 0.0);
            let table = &ws.sym_table[b * area..(b + 1) * area];
            for (board_pos, &net_pos) in table.iter().enumerate() {
                o.ownership[board_pos] = ws.head_b[b * area + net_pos];
            }
        }
    }
}

/// Small buffers shared by every level.
struct Scratch<'a> {
    im2col: &'a mut [f32],
    pooled: &'a mut [f32],
    row: &'a mut [f32],
    transformer: &'a mut TransformerScratch,
}

/// Runs a block stack on `level.stream`; nested blocks use the levels below.
fn run_stack(
    blocks: &[Block],
    level: &mut Level,
    deeper: &mut [Level],
    batch: usize,
    frame: Frame,
    s: &mut Scratch,
) {
    let area = frame.area();
    for block in blocks {
        match block {
            Block::Ordinary { pre, first, second } => {
                let len = batch * area * pre.scale.len();
                pre.apply(&level.stream[..len], &mut level.act[..len]);
                first.apply(&level.act, batch, frame, &mut level.mid, false, s.im2col);
                second.apply(&level.mid, batch, frame, &mut level.stream, true, s.im2col);
            }
            Block::GlobalPooling {
                pre,
                regular,
                gpool,
                to_bias,
                mid_act,
                second,
            } => {
                let len = batch * area * pre.scale.len();
                pre.apply(&level.stream[..len], &mut level.act[..len]);
                regular.apply(&level.act, batch, frame, &mut level.mid, false, s.im2col);
                gpool.apply(&level.act, batch, frame, &mut level.gpool, false, s.im2col);
                let (rc, gc) = (regular.out_channels, gpool.out_channels);
                for b in 0..batch {
                    let pooled = &mut s.pooled[..3 * gc];
                    global_pool(
                        &level.gpool[b * area * gc..],
                        area,
                        gc,
                        PoolKind::Max,
                        pooled,
                    );
                    to_bias.apply(pooled, s.row);
                    for row in level.mid[b * area * rc..(b + 1) * area * rc].chunks_exact_mut(rc) {
                        for (v, g) in row.iter_mut().zip(s.row.iter()) {
                            *v += g;
                        }
                        activate_slice(*mid_act, row);
                    }
                }
                second.apply(&level.mid, batch, frame, &mut level.stream, true, s.im2col);
            }
            Block::Nested {
                pre,
                down,
                blocks,
                post,
                up,
            } => {
                let len = batch * area * pre.scale.len();
                pre.apply(&level.stream[..len], &mut level.act[..len]);
                let (inner, rest) = deeper.split_at_mut(1);
                let inner = &mut inner[0];
                down.apply(&level.act, batch, frame, &mut inner.stream, false, s.im2col);
                run_stack(blocks, inner, rest, batch, frame, s);
                let inner_len = batch * area * post.scale.len();
                post.apply(&inner.stream[..inner_len], &mut inner.act[..inner_len]);
                up.apply(&inner.act, batch, frame, &mut level.stream, true, s.im2col);
            }
            Block::Attention(attention) => {
                attention.apply(&mut level.stream, batch, frame, s.transformer);
            }
            Block::FeedForward(ffn) => ffn.apply(&mut level.stream, batch, area, s.transformer),
        }
    }
}

/// Buffers of one nesting level: its residual stream and the block scratch.
#[derive(Debug, Clone)]
struct Level {
    stream: Vec<f32>,
    act: Vec<f32>,
    mid: Vec<f32>,
    gpool: Vec<f32>,
}

/// Per-thread buffers for evaluating batches of up to `max_batch` boards of up to
/// `board_size` on one network.
#[derive(Debug, Clone)]
pub struct Workspace {
    max_batch: usize,
    board_size: usize,
    trunk_channels: usize,
    max_channels: usize,
    sym_table: Vec<usize>,
    input: Vec<f32>,
    levels: Vec<Level>,
    tip: Vec<f32>,
    head_a: Vec<f32>,
    head_b: Vec<f32>,
    im2col: Vec<f32>,
    pooled: Vec<f32>,
    row: Vec<f32>,
    pass_row: Vec<f32>,
    transformer: TransformerScratch,
}

impl Workspace {
    /// Buffers for `net`, batches up to `max_batch` (at least 1), boards up to `board_size`
    /// (clamped to 2..=19).
    pub fn new(net: &Network, max_batch: usize, board_size: usize) -> Workspace {
        let max_batch = max_batch.max(1);
        let board_size = board_size.clamp(2, MAX_BOARD_SIZE);
        let area = board_size * board_size;
        let mut max_channels = net.trunk_channels.max(NUM_SPATIAL_FEATURES);
        let mut im2col = 0;
        net.for_each_conv(&mut |c| {
            max_channels = max_channels.max(c.in_channels).max(c.out_channels);
            im2col = im2col.max(c.scratch_len(max_batch, Frame::square(board_size)));
        });
        let dense_width = [
            &net.initial_global,
            &net.policy.to_bias,
            &net.policy.to_pass,
            &net.value.v2,
            &net.value.v3,
            &net.value.sv3,
        ]
        .iter()
        .map(|d| d.in_channels.max(d.out_channels))
        .max()
        .unwrap_or(0);
        let mut pooled_width = dense_width;
        let mut row_width = dense_width.max(max_channels);
        fn visit_dense(blocks: &[Block], f: &mut dyn FnMut(&Dense)) {
            for b in blocks {
                match b {
                    Block::GlobalPooling { to_bias, .. } => f(to_bias),
                    Block::Nested { blocks, .. } => visit_dense(blocks, f),
                    _ => {}
                }
            }
        }
        visit_dense(&net.blocks, &mut |d| {
            pooled_width = pooled_width.max(d.in_channels);
            row_width = row_width.max(d.out_channels);
        });
        if let Some(encoder) = &net.metadata {
            // Its two hidden layers live in the two halves of `pooled`.
            pooled_width = pooled_width.max(2 * encoder.width());
        }
        let mut attention = Vec::new();
        let mut feed_forward = Vec::new();
        net.blocks.iter().for_each(|b| {
            b.for_each_transformer(&mut |t| match t {
                Block::Attention(a) => attention.push(a),
                Block::FeedForward(f) => feed_forward.push(f),
                _ => {}
            })
        });
        let transformer = TransformerScratch::new(&attention, &feed_forward, max_batch, area);
        let depth = 1 + net.blocks.iter().map(Block::depth).max().unwrap_or(0);
        let plane = max_batch * area * max_channels;
        let level = Level {
            stream: vec![0.0; plane],
            act: vec![0.0; plane],
            mid: vec![0.0; plane],
            gpool: vec![0.0; plane],
        };
        Workspace {
            max_batch,
            board_size,
            trunk_channels: net.trunk_channels,
            max_channels,
            sym_table: vec![0; max_batch * area],
            input: vec![0.0; max_batch * area * NUM_SPATIAL_FEATURES],
            levels: vec![level; depth],
            tip: vec![0.0; plane],
            head_a: vec![0.0; plane],
            head_b: vec![0.0; plane],
            im2col: vec![0.0; im2col],
            pooled: vec![0.0; pooled_width.max(3 * max_channels)],
            row: vec![0.0; row_width],
            pass_row: vec![0.0; dense_width],
            transformer,
        }
    }

    /// Largest batch this workspace takes.
    pub fn max_batch(&self) -> usize {
        self.max_batch
    }

    /// Largest board side this workspace takes.
    pub fn board_size(&self) -> usize {
        self.board_size
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::kernels::denormals::flushing;

    /// The forward pass flushes denormals only while it runs: a thread that did not flush them
    /// before an evaluation does not after it.
    #[test]
    fn evaluating_leaves_the_callers_denormal_setting_as_it_was() {
        std::thread::spawn(|| {
            let model = crate::nn::file::builtin::model().expect("the built-in net parses");
            let net = Network::from_model(&model);
            let mut ws = Workspace::new(&net, 1, 9);
            let spatial = vec![0.0f32; NUM_SPATIAL_FEATURES * 81];
            let global = [0.0f32; NUM_GLOBAL_FEATURES];
            let input = NetInput {
                width: 9,
                height: 9,
                spatial: &spatial,
                global: &global,
                meta: None,
            };
            let mut out = [RawEval::new()];
            assert!(!flushing(), "a new thread starts without flush-to-zero");
            net.evaluate(&mut ws, &[input], &[0], &mut out)
                .expect("evaluates");
            assert!(
                !flushing(),
                "the caller's setting is back after the evaluation"
            );
            assert!(out[0].value.iter().all(|v| v.is_finite()));
        })
        .join()
        .expect("the evaluating thread");
    }
}
