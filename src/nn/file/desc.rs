//! A model file's contents as plain descriptions of its layers and heads, exactly as written
//! in the file (no folding here).

/// The model versions this reader understands: the g170 family (8), the kata1 nested-bottleneck
/// nets (14), and everything KataGo 1.17 reads after them: 15 (the nonlinear pass head, the
/// SGF-metadata encoder, RMSNorm trunk tips, transformer blocks), 16 (four policy channels) and
/// 17 (explicit policy channel counts and guard slots).
pub const SUPPORTED_VERSIONS: std::ops::RangeInclusive<i64> = 8..=17;

/// A nonlinearity between layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activation {
    Identity,
    Relu,
    Mish,
    Silu,
}

/// A convolution; `weights` in file order: `[ky][kx][in][out]`.
#[derive(Debug, Clone)]
pub struct ConvDesc {
    pub name: String,
    pub ky: usize,
    pub kx: usize,
    pub in_channels: usize,
    pub out_channels: usize,
    pub weights: Vec<f32>,
}

/// A batch norm: per channel `(x - mean) / sqrt(variance + epsilon) * scale + bias`.
#[derive(Debug, Clone)]
pub struct BatchNormDesc {
    pub name: String,
    pub channels: usize,
    pub epsilon: f32,
    pub mean: Vec<f32>,
    pub variance: Vec<f32>,
    pub scale: Vec<f32>,
    pub bias: Vec<f32>,
}

impl BatchNormDesc {
    /// The per-channel `(scale, bias)` with `y = x * scale + bias`, computed as KataGo does.
    pub fn merged(&self) -> (Vec<f32>, Vec<f32>) {
        let scale: Vec<f32> = (0..self.channels)
            .map(|c| self.scale[c] / (self.variance[c] + self.epsilon).sqrt())
            .collect();
        let bias = (0..self.channels)
            .map(|c| self.bias[c] - scale[c] * self.mean[c])
            .collect();
        (scale, bias)
    }
}

/// A dense layer; `weights` in file order: `[in][out]`.
#[derive(Debug, Clone)]
pub struct MatMulDesc {
    pub name: String,
    pub in_channels: usize,
    pub out_channels: usize,
    pub weights: Vec<f32>,
}

/// A bias added to a dense layer's output.
#[derive(Debug, Clone)]
pub struct MatBiasDesc {
    pub name: String,
    pub weights: Vec<f32>,
}

/// The trunk tip's RMSNorm (model version 15+): `x * gamma / rms + beta`, the root mean square
/// taken per point over the channels, or (`spatial`) once per board over every point and channel.
#[derive(Debug, Clone)]
pub struct RmsNormDesc {
    pub name: String,
    pub channels: usize,
    pub epsilon: f32,
    pub spatial: bool,
    pub gamma: Vec<f32>,
    pub beta: Vec<f32>,
}

/// A transformer block's pre-norm: per point `x * weight / sqrt(mean(x^2) + epsilon)`.
#[derive(Debug, Clone)]
pub struct TransformerNormDesc {
    pub name: String,
    pub channels: usize,
    pub epsilon: f32,
    pub weight: Vec<f32>,
}

/// Rotary position embedding of the queries and keys: interleaved channel pairs rotated by an
/// angle that depends on the point's column and row.
#[derive(Debug, Clone)]
pub enum RopeDesc {
    /// Learned frequencies, `[kv head][pair][x or y]`: angle = x * fx + y * fy.
    Learnable { freqs: Vec<f32> },
    /// Fixed frequencies from `theta`: the first half of the pairs follow the row, the rest
    /// the column.
    Fixed { theta: f32 },
}

/// Multi-head (or grouped-query) self-attention over the board's points, pre-normed, with its
/// own residual.
#[derive(Debug, Clone)]
pub struct AttentionDesc {
    pub name: String,
    pub num_heads: usize,
    pub num_kv_heads: usize,
    pub q_head_dim: usize,
    pub v_head_dim: usize,
    pub rope: Option<RopeDesc>,
    pub norm: TransformerNormDesc,
    pub q_proj: MatMulDesc,
    pub k_proj: MatMulDesc,
    pub v_proj: MatMulDesc,
    pub out_proj: MatMulDesc,
}

/// A SwiGLU feed-forward block, pre-normed, with its own residual:
/// `x + linear2(silu(linear1(n)) * gate(n))`, `n` the normed input.
#[derive(Debug, Clone)]
pub struct FeedForwardDesc {
    pub name: String,
    pub channels: usize,
    pub hidden: usize,
    pub norm: TransformerNormDesc,
    pub linear1: MatMulDesc,
    pub gate: MatMulDesc,
    pub linear2: MatMulDesc,
}

/// The SGF-metadata encoder of the human-SL nets: 192 metadata inputs through three dense
/// layers to one more per-channel bias on the trunk.
#[derive(Debug, Clone)]
pub struct MetadataEncoderDesc {
    pub name: String,
    pub mul1: MatMulDesc,
    pub bias1: MatBiasDesc,
    pub act1: Activation,
    pub mul2: MatMulDesc,
    pub bias2: MatBiasDesc,
    pub act2: Activation,
    pub mul3: MatMulDesc,
}

/// The norm at the trunk's tip: a batch norm, or (version 15+) an RMSNorm.
#[derive(Debug, Clone)]
pub enum TrunkTipDesc {
    BatchNorm(BatchNormDesc),
    RmsNorm(RmsNormDesc),
}

/// One block of a residual stack.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // a few dozen per net, built once
pub enum BlockDesc {
    /// norm, act, conv, norm, act, conv, residual add.
    Ordinary {
        name: String,
        pre_bn: BatchNormDesc,
        pre_act: Activation,
        regular_conv: ConvDesc,
        mid_bn: BatchNormDesc,
        mid_act: Activation,
        final_conv: ConvDesc,
    },
    /// As ordinary, with a pooled branch giving a per-channel bias to the regular branch.
    GlobalPooling {
        name: String,
        pre_bn: BatchNormDesc,
        pre_act: Activation,
        regular_conv: ConvDesc,
        gpool_conv: ConvDesc,
        gpool_bn: BatchNormDesc,
        gpool_act: Activation,
        gpool_to_bias: MatMulDesc,
        mid_bn: BatchNormDesc,
        mid_act: Activation,
        final_conv: ConvDesc,
    },
    /// norm, act, 1x1 down, inner blocks, norm, act, 1x1 up, residual add.
    NestedBottleneck {
        name: String,
        pre_bn: BatchNormDesc,
        pre_act: Activation,
        pre_conv: ConvDesc,
        blocks: Vec<BlockDesc>,
        post_bn: BatchNormDesc,
        post_act: Activation,
        post_conv: ConvDesc,
    },
    /// Self-attention (inside the transformer nets' bottlenecks).
    Attention(AttentionDesc),
    /// SwiGLU feed-forward (inside the transformer nets' bottlenecks).
    FeedForward(FeedForwardDesc),
}

/// The trunk: input layers, block stack, tip norm.
#[derive(Debug, Clone)]
pub struct TrunkDesc {
    pub channels: usize,
    pub initial_conv: ConvDesc,
    pub initial_matmul: MatMulDesc,
    /// The human-SL nets' metadata encoder (metaEncoderVersion 1).
    pub metadata_encoder: Option<MetadataEncoderDesc>,
    pub blocks: Vec<BlockDesc>,
    pub tip: TrunkTipDesc,
    pub tip_act: Activation,
}

/// The pass logit's hidden layer from version 15: `gpool_to_pass` then feeds
/// `mul2(act(x + bias))`.
#[derive(Debug, Clone)]
pub struct PassHiddenDesc {
    pub bias: MatBiasDesc,
    pub act: Activation,
    pub mul2: MatMulDesc,
}

/// The policy head: 1 output channel before version 12, 2 (plain and optimistic) from 12, 4 in
/// version 16 and 2 or 4 in 17 (the last two, Q-value predictions, are unused by engines).
#[derive(Debug, Clone)]
pub struct PolicyHeadDesc {
    pub p1_conv: ConvDesc,
    pub g1_conv: ConvDesc,
    pub g1_bn: BatchNormDesc,
    pub g1_act: Activation,
    pub gpool_to_bias: MatMulDesc,
    pub p1_bn: BatchNormDesc,
    pub p1_act: Activation,
    pub p2_conv: ConvDesc,
    pub gpool_to_pass: MatMulDesc,
    /// Version 15+: the pass logit's hidden layer.
    pub pass_hidden: Option<PassHiddenDesc>,
}

/// The value head: win/loss/no-result, score values, ownership.
#[derive(Debug, Clone)]
pub struct ValueHeadDesc {
    pub v1_conv: ConvDesc,
    pub v1_bn: BatchNormDesc,
    pub v1_act: Activation,
    pub v2_mul: MatMulDesc,
    pub v2_bias: MatBiasDesc,
    pub v2_act: Activation,
    pub v3_mul: MatMulDesc,
    pub v3_bias: MatBiasDesc,
    pub sv3_mul: MatMulDesc,
    pub sv3_bias: MatBiasDesc,
    pub ownership_conv: ConvDesc,
}

/// Multipliers applied to the score outputs (read from the file from version 13, fixed before).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PostProcessParams {
    pub td_score_multiplier: f64,
    pub score_mean_multiplier: f64,
    pub score_stdev_multiplier: f64,
    pub lead_multiplier: f64,
    pub variance_time_multiplier: f64,
    pub shortterm_value_error_multiplier: f64,
    pub shortterm_score_error_multiplier: f64,
}

impl Default for PostProcessParams {
    fn default() -> Self {
        PostProcessParams {
            td_score_multiplier: 20.0,
            score_mean_multiplier: 20.0,
            score_stdev_multiplier: 20.0,
            lead_multiplier: 20.0,
            variance_time_multiplier: 40.0,
            shortterm_value_error_multiplier: 0.25,
            shortterm_score_error_multiplier: 30.0,
        }
    }
}

/// A whole model as written in the file.
#[derive(Debug, Clone)]
pub struct ModelDesc {
    pub name: String,
    pub version: i64,
    pub num_input_channels: usize,
    pub num_global_channels: usize,
    pub post_process: PostProcessParams,
    /// Every float the file holds (weights, biases, norms' statistics).
    pub parameters: usize,
    /// 0, or 1 for the human-SL nets with an SGF-metadata encoder (version 15+).
    pub meta_encoder_version: i64,
    /// The net wants its pass-alive-area inputs computed as if multi-stone suicide were legal.
    pub prefer_pass_alive_under_suicide: bool,
    pub trunk: TrunkDesc,
    pub policy: PolicyHeadDesc,
    pub value: ValueHeadDesc,
}

impl ModelDesc {
    /// Number of policy output channels in the file (1 before version 12, 2 from 12: plain,
    /// optimistic; 4 with the Q-value channels of versions 16 and 17).
    pub fn policy_channels(&self) -> usize {
        self.policy.p2_conv.out_channels
    }

    /// Number of score-value outputs (4 for version 8, 6 from 9).
    pub fn score_channels(&self) -> usize {
        self.value.sv3_mul.out_channels
    }
}
