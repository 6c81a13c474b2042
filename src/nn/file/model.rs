//! Reads KataGo network files (`.bin.gz`, `.txt.gz`, and their uncompressed forms) into a
//! plain description of the layers, exactly as written in the file (no folding here).
//!
//! The reader trusts nothing: every count is capped before anything is allocated, every float
//! block is checked against the bytes that are really left, and every failure is a
//! [`ModelError`] naming the layer and the byte offset in the decompressed stream.

use crate::nn::input::sizes::{NUM_GLOBAL_FEATURES, NUM_META_FEATURES, NUM_SPATIAL_FEATURES};
use std::fmt;
use std::io::Read;
use std::path::Path;

/// The model versions this reader understands: the g170 family (8), the kata1 nested-bottleneck
/// nets (14), and everything KataGo 1.17 reads after them: 15 (the nonlinear pass head, the
/// SGF-metadata encoder, RMSNorm trunk tips, transformer blocks), 16 (four policy channels) and
/// 17 (explicit policy channel counts and guard slots).
pub const SUPPORTED_VERSIONS: std::ops::RangeInclusive<i64> = 8..=17;
/// The input planes and global inputs a net must take, as the file's integers.
const SPATIAL: i64 = NUM_SPATIAL_FEATURES as i64;
const GLOBAL: i64 = NUM_GLOBAL_FEATURES as i64;
/// Largest decompressed model accepted (the b18c384nbt net is about 120 MB).
const MAX_DECOMPRESSED_BYTES: u64 = 1 << 30;
/// Deflate never expands more than about 1032 to 1.
const MAX_DEFLATE_RATIO: u64 = 1032;
/// Largest channel count of any layer.
const MAX_CHANNELS: i64 = 4096;
/// Largest convolution kernel side.
const MAX_KERNEL: i64 = 9;
/// Most blocks in one stack.
const MAX_BLOCKS: i64 = 512;
/// Deepest nesting of bottleneck blocks.
const MAX_NESTING: usize = 4;
/// Most parameters (floats) in one model.
const MAX_TOTAL_PARAMS: usize = 400_000_000;
/// Longest token (names, numbers).
const MAX_TOKEN_LEN: usize = 256;

/// A model file that could not be read, with where it went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelError {
    /// What and where: layer name and byte offset when known.
    pub message: String,
}

impl ModelError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        ModelError {
            message: message.into(),
        }
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ModelError {}

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
    /// Reads a model file; `.txt.gz`/`.txt` hold text floats, anything else `@BIN@` blocks.
    pub fn load(path: &Path) -> Result<ModelDesc, ModelError> {
        let shown = path.display().to_string();
        let file = std::fs::File::open(path)
            .map_err(|e| ModelError::new(format!("{shown}: cannot open: {e}")))?;
        let mut raw = Vec::new();
        file.take(MAX_DECOMPRESSED_BYTES + 1)
            .read_to_end(&mut raw)
            .map_err(|e| ModelError::new(format!("{shown}: cannot read: {e}")))?;
        ModelDesc::from_file_bytes(&shown, &raw)
    }

    /// Parses the bytes of a model file named `name` (gzip or not; the name's ending tells
    /// text floats from `@BIN@` blocks, as for [`ModelDesc::load`]); errors start with `name`.
    pub fn from_file_bytes(name: &str, raw: &[u8]) -> Result<ModelDesc, ModelError> {
        let lower = name.to_ascii_lowercase();
        let decompressed;
        let bytes = if raw.starts_with(&[0x1f, 0x8b]) {
            decompressed =
                decompress(raw).map_err(|e| ModelError::new(format!("{name}: {}", e.message)))?;
            &decompressed[..]
        } else if lower.ends_with(".bin") || lower.ends_with(".txt") {
            raw
        } else {
            return Err(ModelError::new(format!(
                "{name}: not a gzip file (no gzip magic bytes) and not named .bin or .txt"
            )));
        };
        let binary = !(lower.ends_with(".txt.gz") || lower.ends_with(".txt"));
        ModelDesc::parse(bytes, binary)
            .map_err(|e| ModelError::new(format!("{name}: {}", e.message)))
    }

    /// Parses a decompressed model; `binary` selects `@BIN@` float blocks over text floats.
    pub fn parse(bytes: &[u8], binary: bool) -> Result<ModelDesc, ModelError> {
        let mut p = Parser {
            bytes,
            pos: 0,
            binary,
            context: String::from("header"),
            params: 0,
        };
        p.model()
    }

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

/// Decompresses a gzip stream, refusing output past the size cap.
pub fn decompress(raw: &[u8]) -> Result<Vec<u8>, ModelError> {
    // The gzip trailer's size (mod 2^32) is only a hint: it sizes the buffer up front so the
    // output does not double past the cap; the capped read below is what is enforced.
    let hinted = raw
        .len()
        .checked_sub(4)
        .map(|at| u32::from_le_bytes([raw[at], raw[at + 1], raw[at + 2], raw[at + 3]]));
    let mut out = Vec::with_capacity(hinted.map_or(0, |h| {
        (h as u64)
            .min(MAX_DECOMPRESSED_BYTES)
            .min(raw.len() as u64 * MAX_DEFLATE_RATIO) as usize
    }));
    flate2::read::GzDecoder::new(raw)
        .take(MAX_DECOMPRESSED_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| ModelError::new(format!("gzip stream is corrupt or truncated: {e}")))?;
    if out.len() as u64 > MAX_DECOMPRESSED_BYTES {
        return Err(ModelError::new(format!(
            "decompressed model is larger than {MAX_DECOMPRESSED_BYTES} bytes"
        )));
    }
    Ok(out)
}

/// A cursor over the decompressed token stream.
struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
    binary: bool,
    /// The layer being read, for error messages.
    context: String,
    /// Floats read so far.
    params: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, what: impl fmt::Display) -> ModelError {
        ModelError::new(format!(
            "{} (byte offset {}): {what}",
            self.context, self.pos
        ))
    }

    fn skip_space(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn token(&mut self) -> Result<&'a str, ModelError> {
        self.skip_space();
        let start = self.pos;
        while self.pos < self.bytes.len() && !self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
            if self.pos - start > MAX_TOKEN_LEN {
                return Err(self.err("token too long"));
            }
        }
        if start == self.pos {
            return Err(self.err("unexpected end of file"));
        }
        std::str::from_utf8(&self.bytes[start..self.pos])
            .map_err(|_| self.err("token is not UTF-8"))
    }

    fn name(&mut self) -> Result<String, ModelError> {
        let name = self.token()?.to_string();
        self.context = format!("layer '{name}'");
        Ok(name)
    }

    fn int(&mut self, what: &str, min: i64, max: i64) -> Result<i64, ModelError> {
        let tok = self.token()?;
        let v: i64 = tok
            .parse()
            .map_err(|_| self.err(format!("{what}: expected an integer, found '{tok}'")))?;
        if v < min || v > max {
            return Err(self.err(format!("{what} = {v} is outside {min}..={max}")));
        }
        Ok(v)
    }

    fn count(&mut self, what: &str, max: i64) -> Result<usize, ModelError> {
        Ok(self.int(what, 1, max)? as usize)
    }

    fn float(&mut self, what: &str) -> Result<f64, ModelError> {
        let tok = self.token()?;
        let v: f64 = tok
            .parse()
            .map_err(|_| self.err(format!("{what}: expected a number, found '{tok}'")))?;
        if !v.is_finite() {
            return Err(self.err(format!("{what} is not finite")));
        }
        Ok(v)
    }

    fn flag(&mut self, what: &str) -> Result<bool, ModelError> {
        let tok = self.token()?;
        match tok.to_ascii_lowercase().as_str() {
            "1" | "true" => Ok(true),
            "0" | "false" => Ok(false),
            _ => Err(self.err(format!("{what}: expected 0 or 1, found '{tok}'"))),
        }
    }

    /// Reads `n` floats, checking the count against what the file can still hold.
    fn floats(&mut self, n: usize) -> Result<Vec<f32>, ModelError> {
        if self.params + n > MAX_TOTAL_PARAMS {
            return Err(self.err(format!("model has more than {MAX_TOTAL_PARAMS} parameters")));
        }
        self.params += n;
        let remaining = self.bytes.len() - self.pos;
        if self.binary {
            let mut skipped = 0;
            while self.pos < self.bytes.len() && self.bytes[self.pos] != b'@' {
                if !self.bytes[self.pos].is_ascii_whitespace() || skipped > 100 {
                    return Err(
                        self.err("expected a @BIN@ float block (is this a .txt model named .bin?)")
                    );
                }
                self.pos += 1;
                skipped += 1;
            }
            if !self.bytes[self.pos..].starts_with(b"@BIN@") {
                return Err(self.err("expected a @BIN@ float block"));
            }
            self.pos += 5;
            let len = n
                .checked_mul(4)
                .filter(|&l| l <= self.bytes.len() - self.pos);
            let Some(len) = len else {
                return Err(self.err(format!(
                    "float block of {n} floats runs past the end of the file ({} bytes left)",
                    self.bytes.len() - self.pos
                )));
            };
            let out: Vec<f32> = self.bytes[self.pos..self.pos + len]
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            if let Some(i) = out.iter().position(|x| !x.is_finite()) {
                self.pos += 4 * i;
                return Err(self.err("NaN or infinite weight"));
            }
            self.pos += len;
            Ok(out)
        } else {
            // Each text float takes at least two bytes (digit and separator).
            if n > remaining / 2 + 1 {
                return Err(self.err(format!(
                    "{n} text floats cannot fit in the {remaining} bytes left"
                )));
            }
            let mut out = Vec::with_capacity(n);
            for _ in 0..n {
                let v = self.float("weight")?;
                out.push(v as f32);
            }
            Ok(out)
        }
    }

    fn activation(&mut self, version: i64) -> Result<Activation, ModelError> {
        self.name()?;
        if version < 11 {
            return Ok(Activation::Relu);
        }
        let kind = self.token()?;
        match kind {
            "ACTIVATION_IDENTITY" => Ok(Activation::Identity),
            "ACTIVATION_RELU" => Ok(Activation::Relu),
            "ACTIVATION_MISH" => Ok(Activation::Mish),
            "ACTIVATION_SILU" => Ok(Activation::Silu),
            _ => Err(self.err(format!("unknown activation '{kind}'"))),
        }
    }

    fn conv(&mut self) -> Result<ConvDesc, ModelError> {
        let name = self.name()?;
        let ky = self.count("kernel height", MAX_KERNEL)?;
        let kx = self.count("kernel width", MAX_KERNEL)?;
        let in_channels = self.count("input channels", MAX_CHANNELS)?;
        let out_channels = self.count("output channels", MAX_CHANNELS)?;
        let dil_y = self.int("dilation y", 1, 1)?;
        let dil_x = self.int("dilation x", 1, 1)?;
        debug_assert!(dil_y == 1 && dil_x == 1);
        if ky % 2 == 0 || kx % 2 == 0 {
            return Err(self.err(format!("kernel {ky}x{kx} is not odd-sized")));
        }
        let weights = self.floats(ky * kx * in_channels * out_channels)?;
        Ok(ConvDesc {
            name,
            ky,
            kx,
            in_channels,
            out_channels,
            weights,
        })
    }

    fn batch_norm(&mut self) -> Result<BatchNormDesc, ModelError> {
        let name = self.name()?;
        let channels = self.count("channels", MAX_CHANNELS)?;
        let epsilon = self.float("epsilon")? as f32;
        if epsilon.is_nan() || epsilon <= 0.0 {
            return Err(self.err(format!("epsilon {epsilon} is not positive")));
        }
        let has_scale = self.flag("hasScale")?;
        let has_bias = self.flag("hasBias")?;
        let mean = self.floats(channels)?;
        let variance = self.floats(channels)?;
        if variance.iter().any(|&v| v + epsilon <= 0.0) {
            return Err(self.err("variance + epsilon is not positive"));
        }
        let scale = if has_scale {
            self.floats(channels)?
        } else {
            vec![1.0; channels]
        };
        let bias = if has_bias {
            self.floats(channels)?
        } else {
            vec![0.0; channels]
        };
        Ok(BatchNormDesc {
            name,
            channels,
            epsilon,
            mean,
            variance,
            scale,
            bias,
        })
    }

    fn matmul(&mut self) -> Result<MatMulDesc, ModelError> {
        let name = self.name()?;
        let in_channels = self.count("input channels", 3 * MAX_CHANNELS)?;
        let out_channels = self.count("output channels", MAX_CHANNELS)?;
        let weights = self.floats(in_channels * out_channels)?;
        Ok(MatMulDesc {
            name,
            in_channels,
            out_channels,
            weights,
        })
    }

    fn matbias(&mut self) -> Result<MatBiasDesc, ModelError> {
        let name = self.name()?;
        let channels = self.count("channels", MAX_CHANNELS)?;
        let weights = self.floats(channels)?;
        Ok(MatBiasDesc { name, weights })
    }

    /// Fails with `what` unless `a == b`.
    fn same(&self, a: usize, b: usize, what: &str) -> Result<(), ModelError> {
        if a != b {
            return Err(self.err(format!("{what}: {a} != {b}")));
        }
        Ok(())
    }

    fn block_stack(
        &mut self,
        version: i64,
        count: usize,
        channels: usize,
        depth: usize,
    ) -> Result<Vec<BlockDesc>, ModelError> {
        if depth > MAX_NESTING {
            return Err(self.err(format!("blocks nested deeper than {MAX_NESTING}")));
        }
        let mut blocks = Vec::new();
        for _ in 0..count {
            let kind = self.token()?;
            let block = match kind {
                "ordinary_block" => {
                    let name = self.name()?;
                    let pre_bn = self.batch_norm()?;
                    let pre_act = self.activation(version)?;
                    let regular_conv = self.conv()?;
                    let mid_bn = self.batch_norm()?;
                    let mid_act = self.activation(version)?;
                    let final_conv = self.conv()?;
                    self.context = format!("block '{name}'");
                    self.same(pre_bn.channels, channels, "preBN channels vs trunk")?;
                    self.same(
                        regular_conv.in_channels,
                        channels,
                        "regularConv input vs trunk",
                    )?;
                    self.same(
                        mid_bn.channels,
                        regular_conv.out_channels,
                        "midBN vs regularConv output",
                    )?;
                    self.same(
                        final_conv.in_channels,
                        mid_bn.channels,
                        "finalConv input vs midBN",
                    )?;
                    self.same(
                        final_conv.out_channels,
                        channels,
                        "finalConv output vs trunk",
                    )?;
                    BlockDesc::Ordinary {
                        name,
                        pre_bn,
                        pre_act,
                        regular_conv,
                        mid_bn,
                        mid_act,
                        final_conv,
                    }
                }
                "gpool_block" => {
                    let name = self.name()?;
                    let pre_bn = self.batch_norm()?;
                    let pre_act = self.activation(version)?;
                    let regular_conv = self.conv()?;
                    let gpool_conv = self.conv()?;
                    let gpool_bn = self.batch_norm()?;
                    let gpool_act = self.activation(version)?;
                    let gpool_to_bias = self.matmul()?;
                    let mid_bn = self.batch_norm()?;
                    let mid_act = self.activation(version)?;
                    let final_conv = self.conv()?;
                    self.context = format!("block '{name}'");
                    self.same(pre_bn.channels, channels, "preBN channels vs trunk")?;
                    self.same(
                        regular_conv.in_channels,
                        channels,
                        "regularConv input vs trunk",
                    )?;
                    self.same(gpool_conv.in_channels, channels, "gpoolConv input vs trunk")?;
                    self.same(
                        gpool_bn.channels,
                        gpool_conv.out_channels,
                        "gpoolBN vs gpoolConv output",
                    )?;
                    self.same(
                        gpool_to_bias.in_channels,
                        3 * gpool_bn.channels,
                        "gpoolToBiasMul input vs 3 x gpoolBN",
                    )?;
                    self.same(
                        mid_bn.channels,
                        regular_conv.out_channels,
                        "midBN vs regularConv output",
                    )?;
                    self.same(
                        gpool_to_bias.out_channels,
                        mid_bn.channels,
                        "gpoolToBiasMul output vs midBN",
                    )?;
                    self.same(
                        final_conv.in_channels,
                        mid_bn.channels,
                        "finalConv input vs midBN",
                    )?;
                    self.same(
                        final_conv.out_channels,
                        channels,
                        "finalConv output vs trunk",
                    )?;
                    BlockDesc::GlobalPooling {
                        name,
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
                    }
                }
                "nested_bottleneck_block" => {
                    let name = self.name()?;
                    let inner = self.count("number of inner blocks", MAX_BLOCKS)?;
                    let pre_bn = self.batch_norm()?;
                    let pre_act = self.activation(version)?;
                    let pre_conv = self.conv()?;
                    self.context = format!("block '{name}'");
                    self.same(pre_bn.channels, channels, "preBN channels vs trunk")?;
                    self.same(pre_conv.in_channels, channels, "preConv input vs trunk")?;
                    let blocks =
                        self.block_stack(version, inner, pre_conv.out_channels, depth + 1)?;
                    let post_bn = self.batch_norm()?;
                    let post_act = self.activation(version)?;
                    let post_conv = self.conv()?;
                    self.context = format!("block '{name}'");
                    self.same(
                        post_bn.channels,
                        pre_conv.out_channels,
                        "postBN vs preConv output",
                    )?;
                    self.same(
                        post_conv.in_channels,
                        post_bn.channels,
                        "postConv input vs postBN",
                    )?;
                    self.same(post_conv.out_channels, channels, "postConv output vs trunk")?;
                    BlockDesc::NestedBottleneck {
                        name,
                        pre_bn,
                        pre_act,
                        pre_conv,
                        blocks,
                        post_bn,
                        post_act,
                        post_conv,
                    }
                }
                "transformer_attention_block" => BlockDesc::Attention(self.attention(channels)?),
                "transformer_ffn_block" => BlockDesc::FeedForward(self.feed_forward(channels)?),
                _ => return Err(self.err(format!("unknown block kind '{kind}'"))),
            };
            blocks.push(block);
        }
        Ok(blocks)
    }

    /// Reads `count` integers that must be 0 (the guard slots of versions 15 and 17), named
    /// from letter `first` on as KataGo names them.
    fn zeros(&mut self, what: &str, first: u8, count: usize) -> Result<(), ModelError> {
        for slot in 0..count {
            let v = self.int(what, i64::MIN, i64::MAX)?;
            if v != 0 {
                return Err(self.err(format!(
                    "{what} {} is {v}: an option this reader does not know (a newer KataGo \
                     format?)",
                    (first + slot as u8) as char
                )));
            }
        }
        Ok(())
    }

    fn epsilon(&mut self) -> Result<f32, ModelError> {
        let epsilon = self.float("epsilon")? as f32;
        if !(epsilon > 0.0 && epsilon <= 1.0) {
            return Err(self.err(format!("epsilon {epsilon} is not in (0, 1]")));
        }
        Ok(epsilon)
    }

    fn rms_norm(&mut self) -> Result<RmsNormDesc, ModelError> {
        let name = self.name()?;
        let channels = self.count("channels", MAX_CHANNELS)?;
        let epsilon = self.epsilon()?;
        let spatial = self.flag("spatial")?;
        let group = self.int("cgroupSize", i64::MIN, i64::MAX)?;
        if group != 0 {
            return Err(self.err(format!(
                "cgroupSize {group}: grouped spatial RMSNorm is not supported"
            )));
        }
        let gamma = self.floats(channels)?;
        let beta = self.floats(channels)?;
        Ok(RmsNormDesc {
            name,
            channels,
            epsilon,
            spatial,
            gamma,
            beta,
        })
    }

    fn transformer_norm(&mut self) -> Result<TransformerNormDesc, ModelError> {
        let name = self.name()?;
        let channels = self.count("channels", MAX_CHANNELS)?;
        let epsilon = self.epsilon()?;
        let weight = self.floats(channels)?;
        Ok(TransformerNormDesc {
            name,
            channels,
            epsilon,
            weight,
        })
    }

    /// A `transformer_attention_block` in a stack of `channels`.
    fn attention(&mut self, channels: usize) -> Result<AttentionDesc, ModelError> {
        let name = self.name()?;
        let num_heads = self.count("numHeads", MAX_CHANNELS)?;
        let num_kv_heads = self.count("numKVHeads", MAX_CHANNELS)?;
        let q_head_dim = self.count("qHeadDim", MAX_CHANNELS)?;
        let v_head_dim = self.count("vHeadDim", MAX_CHANNELS)?;
        let use_rope = self.flag("useRope")?;
        let learnable = self.flag("learnableRope")?;
        if !num_heads.is_multiple_of(num_kv_heads) {
            return Err(self.err(format!(
                "numHeads {num_heads} is not a multiple of numKVHeads {num_kv_heads}"
            )));
        }
        if use_rope && q_head_dim % 2 != 0 {
            return Err(self.err(format!(
                "qHeadDim {q_head_dim} must be even when RoPE is used"
            )));
        }
        let norm = self.transformer_norm()?;
        let q_proj = self.matmul()?;
        let k_proj = self.matmul()?;
        let v_proj = self.matmul()?;
        let out_proj = self.matmul()?;
        self.context = format!("block '{name}'");
        self.same(norm.channels, channels, "preLN channels vs stack")?;
        for (m, what) in [(&q_proj, "qProj"), (&k_proj, "kProj"), (&v_proj, "vProj")] {
            self.same(m.in_channels, channels, &format!("{what} input vs stack"))?;
        }
        self.same(
            q_proj.out_channels,
            num_heads * q_head_dim,
            "qProj output vs numHeads x qHeadDim",
        )?;
        self.same(
            k_proj.out_channels,
            num_kv_heads * q_head_dim,
            "kProj output vs numKVHeads x qHeadDim",
        )?;
        self.same(
            v_proj.out_channels,
            num_kv_heads * v_head_dim,
            "vProj output vs numKVHeads x vHeadDim",
        )?;
        self.same(
            out_proj.in_channels,
            num_heads * v_head_dim,
            "outProj input vs numHeads x vHeadDim",
        )?;
        self.same(out_proj.out_channels, channels, "outProj output vs stack")?;
        let rope = if !use_rope {
            None
        } else if learnable {
            self.name()?;
            let heads = self.count("rope KV heads", MAX_CHANNELS)?;
            let pairs = self.count("rope pairs", MAX_CHANNELS)?;
            let dim2 = self.count("rope dim2", 2)?;
            self.same(heads, num_kv_heads, "rope KV heads vs numKVHeads")?;
            self.same(pairs, q_head_dim / 2, "rope pairs vs qHeadDim / 2")?;
            self.same(dim2, 2, "rope frequency dim2")?;
            Some(RopeDesc::Learnable {
                freqs: self.floats(heads * pairs * 2)?,
            })
        } else {
            self.name()?;
            let theta = self.float("rope theta")?;
            if theta <= 0.0 || theta > f32::MAX as f64 {
                return Err(self.err(format!("rope theta {theta} is not positive and finite")));
            }
            Some(RopeDesc::Fixed {
                theta: theta as f32,
            })
        };
        Ok(AttentionDesc {
            name,
            num_heads,
            num_kv_heads,
            q_head_dim,
            v_head_dim,
            rope,
            norm,
            q_proj,
            k_proj,
            v_proj,
            out_proj,
        })
    }

    /// A `transformer_ffn_block` in a stack of `channels`.
    fn feed_forward(&mut self, channels: usize) -> Result<FeedForwardDesc, ModelError> {
        let name = self.name()?;
        let width = self.count("numChannels", MAX_CHANNELS)?;
        let hidden = self.count("ffnChannels", 4 * MAX_CHANNELS)?;
        let swiglu = self.flag("useSwiGLU")?;
        if !swiglu {
            // KataGo's CPU backend refuses these too.
            return Err(self.err("Non-SwiGLU transformer FFN is not yet supported"));
        }
        let norm = self.transformer_norm()?;
        let linear1 = self.matmul()?;
        let gate = self.matmul()?;
        let linear2 = self.matmul()?;
        self.context = format!("block '{name}'");
        self.same(width, channels, "numChannels vs stack")?;
        self.same(norm.channels, channels, "preLN channels vs stack")?;
        for (m, what) in [(&linear1, "linear1"), (&gate, "linearGate")] {
            self.same(m.in_channels, channels, &format!("{what} input vs stack"))?;
            self.same(
                m.out_channels,
                hidden,
                &format!("{what} output vs ffnChannels"),
            )?;
        }
        self.same(linear2.in_channels, hidden, "linear2 input vs ffnChannels")?;
        self.same(linear2.out_channels, channels, "linear2 output vs stack")?;
        Ok(FeedForwardDesc {
            name,
            channels,
            hidden,
            norm,
            linear1,
            gate,
            linear2,
        })
    }

    /// The SGF-metadata encoder of a net with `channels` trunk channels.
    fn metadata_encoder(
        &mut self,
        version: i64,
        channels: usize,
    ) -> Result<MetadataEncoderDesc, ModelError> {
        let name = self.name()?;
        let inputs = self.count("numInputMetaChannels", MAX_CHANNELS)?;
        self.same(inputs, NUM_META_FEATURES, "metadata inputs")?;
        let mul1 = self.matmul()?;
        let bias1 = self.matbias()?;
        let act1 = self.activation(version)?;
        let mul2 = self.matmul()?;
        let bias2 = self.matbias()?;
        let act2 = self.activation(version)?;
        let mul3 = self.matmul()?;
        self.context = format!("metadata encoder '{name}'");
        self.same(mul1.in_channels, NUM_META_FEATURES, "mul1 input")?;
        self.same(
            bias1.weights.len(),
            mul1.out_channels,
            "bias1 vs mul1 output",
        )?;
        self.same(
            mul2.in_channels,
            mul1.out_channels,
            "mul2 input vs mul1 output",
        )?;
        self.same(
            bias2.weights.len(),
            mul2.out_channels,
            "bias2 vs mul2 output",
        )?;
        self.same(
            mul3.in_channels,
            mul2.out_channels,
            "mul3 input vs mul2 output",
        )?;
        self.same(mul3.out_channels, channels, "mul3 output vs trunk")?;
        Ok(MetadataEncoderDesc {
            name,
            mul1,
            bias1,
            act1,
            mul2,
            bias2,
            act2,
            mul3,
        })
    }

    fn model(&mut self) -> Result<ModelDesc, ModelError> {
        let name = self.token()?.to_string();
        self.context = format!("model '{name}' header");
        let version = self.int("model version", i64::MIN, i64::MAX)?;
        if !SUPPORTED_VERSIONS.contains(&version) {
            return Err(self.err(format!(
                "model version {version} is not supported (supported: {}..={}; a newer version \
                 needs a newer tengen)",
                SUPPORTED_VERSIONS.start(),
                SUPPORTED_VERSIONS.end()
            )));
        }
        let num_input_channels = self.int("numInputChannels", SPATIAL, SPATIAL)? as usize;
        let num_global_channels = self.int("numInputGlobalChannels", GLOBAL, GLOBAL)? as usize;
        let mut post_process = PostProcessParams::default();
        if version >= 13 {
            let positive = |p: &mut Self, what: &str| -> Result<f64, ModelError> {
                let v = p.float(what)?;
                if v <= 0.0 {
                    return Err(p.err(format!("{what} must be positive")));
                }
                Ok(v)
            };
            post_process = PostProcessParams {
                td_score_multiplier: positive(self, "tdScoreMultiplier")?,
                score_mean_multiplier: positive(self, "scoreMeanMultiplier")?,
                score_stdev_multiplier: positive(self, "scoreStdevMultiplier")?,
                lead_multiplier: positive(self, "leadMultiplier")?,
                variance_time_multiplier: positive(self, "varianceTimeMultiplier")?,
                shortterm_value_error_multiplier: positive(self, "shorttermValueErrorMultiplier")?,
                shortterm_score_error_multiplier: positive(self, "shorttermScoreErrorMultiplier")?,
            };
        }
        let mut meta_encoder_version = 0;
        let mut prefer_pass_alive_under_suicide = false;
        if version >= 15 {
            meta_encoder_version = self.int("metaEncoderVersion", 0, 1)?;
            prefer_pass_alive_under_suicide =
                self.int("preferPassAliveUnderSuicideRules", 0, 1)? == 1;
            self.zeros("model option", b'C', 6)?;
        }

        // Trunk.
        self.name()?;
        let num_blocks = self.count("trunk blocks", MAX_BLOCKS)?;
        let channels = self.count("trunk channels", MAX_CHANNELS)?;
        self.count("mid channels", MAX_CHANNELS)?;
        self.count("regular channels", MAX_CHANNELS)?;
        self.int("dilated channels", 0, MAX_CHANNELS)?;
        self.count("gpool channels", MAX_CHANNELS)?;
        let rms_tip = if version >= 15 {
            let kind = self.int("trunk norm kind", 0, 1)?;
            self.zeros("trunk option", b'B', 5)?;
            kind == 1
        } else {
            false
        };
        let initial_conv = self.conv()?;
        self.same(
            initial_conv.in_channels,
            num_input_channels,
            "initial conv input vs input channels",
        )?;
        self.same(
            initial_conv.out_channels,
            channels,
            "initial conv output vs trunk",
        )?;
        let initial_matmul = self.matmul()?;
        self.same(
            initial_matmul.in_channels,
            num_global_channels,
            "initial matmul input vs global channels",
        )?;
        self.same(
            initial_matmul.out_channels,
            channels,
            "initial matmul output vs trunk",
        )?;
        let metadata_encoder = if meta_encoder_version > 0 {
            Some(self.metadata_encoder(version, channels)?)
        } else {
            None
        };
        let blocks = self.block_stack(version, num_blocks, channels, 0)?;
        let tip = if rms_tip {
            let norm = self.rms_norm()?;
            self.same(norm.channels, channels, "trunk tip RMSNorm vs trunk")?;
            TrunkTipDesc::RmsNorm(norm)
        } else {
            let bn = self.batch_norm()?;
            self.same(bn.channels, channels, "trunk tip BN vs trunk")?;
            TrunkTipDesc::BatchNorm(bn)
        };
        let tip_act = self.activation(version)?;
        let trunk = TrunkDesc {
            channels,
            initial_conv,
            initial_matmul,
            metadata_encoder,
            blocks,
            tip,
            tip_act,
        };

        // Policy head.
        self.name()?;
        let policy_channels = match version {
            17.. => {
                let channels = self.int("policyOutChannels", 2, 4)? as usize;
                if channels == 3 {
                    return Err(self.err("policyOutChannels must be 2 or 4"));
                }
                self.zeros("policy option", b'A', 3)?;
                channels
            }
            16 => 4,
            12..=15 => 2,
            _ => 1,
        };
        let p1_conv = self.conv()?;
        let g1_conv = self.conv()?;
        let g1_bn = self.batch_norm()?;
        let g1_act = self.activation(version)?;
        let gpool_to_bias = self.matmul()?;
        let p1_bn = self.batch_norm()?;
        let p1_act = self.activation(version)?;
        let p2_conv = self.conv()?;
        let gpool_to_pass = self.matmul()?;
        let pass_hidden = if version >= 15 {
            Some(PassHiddenDesc {
                bias: self.matbias()?,
                act: self.activation(version)?,
                mul2: self.matmul()?,
            })
        } else {
            None
        };
        self.context = "policy head".into();
        self.same(p1_conv.in_channels, channels, "p1Conv input vs trunk")?;
        self.same(g1_conv.in_channels, channels, "g1Conv input vs trunk")?;
        self.same(
            g1_bn.channels,
            g1_conv.out_channels,
            "g1BN vs g1Conv output",
        )?;
        self.same(
            gpool_to_bias.in_channels,
            3 * g1_bn.channels,
            "gpoolToBiasMul input vs 3 x g1BN",
        )?;
        self.same(
            gpool_to_bias.out_channels,
            p1_bn.channels,
            "gpoolToBiasMul output vs p1BN",
        )?;
        self.same(
            p1_bn.channels,
            p1_conv.out_channels,
            "p1BN vs p1Conv output",
        )?;
        self.same(p2_conv.in_channels, p1_bn.channels, "p2Conv input vs p1BN")?;
        self.same(
            p2_conv.out_channels,
            policy_channels,
            "p2Conv output vs policy channels",
        )?;
        self.same(
            gpool_to_pass.in_channels,
            3 * g1_bn.channels,
            "gpoolToPassMul input vs 3 x g1BN",
        )?;
        match &pass_hidden {
            Some(hidden) => {
                self.same(
                    gpool_to_pass.out_channels,
                    p1_conv.out_channels,
                    "gpoolToPassMul output vs p1Conv output",
                )?;
                self.same(
                    hidden.bias.weights.len(),
                    gpool_to_pass.out_channels,
                    "gpoolToPassBias vs gpoolToPassMul output",
                )?;
                self.same(
                    hidden.mul2.in_channels,
                    gpool_to_pass.out_channels,
                    "gpoolToPassMul2 input vs gpoolToPassMul output",
                )?;
                self.same(
                    hidden.mul2.out_channels,
                    policy_channels,
                    "gpoolToPassMul2 output vs policy channels",
                )?;
            }
            None => self.same(
                gpool_to_pass.out_channels,
                policy_channels,
                "gpoolToPassMul output vs policy channels",
            )?,
        }
        let policy = PolicyHeadDesc {
            p1_conv,
            g1_conv,
            g1_bn,
            g1_act,
            gpool_to_bias,
            p1_bn,
            p1_act,
            p2_conv,
            gpool_to_pass,
            pass_hidden,
        };

        // Value head.
        self.name()?;
        if version >= 17 {
            self.zeros("value option", b'A', 3)?;
        }
        let v1_conv = self.conv()?;
        let v1_bn = self.batch_norm()?;
        let v1_act = self.activation(version)?;
        let v2_mul = self.matmul()?;
        let v2_bias = self.matbias()?;
        let v2_act = self.activation(version)?;
        let v3_mul = self.matmul()?;
        let v3_bias = self.matbias()?;
        let sv3_mul = self.matmul()?;
        let sv3_bias = self.matbias()?;
        let ownership_conv = self.conv()?;
        self.context = "value head".into();
        let score_channels = if version >= 9 { 6 } else { 4 };
        self.same(v1_conv.in_channels, channels, "v1Conv input vs trunk")?;
        self.same(
            v1_bn.channels,
            v1_conv.out_channels,
            "v1BN vs v1Conv output",
        )?;
        self.same(
            v2_mul.in_channels,
            3 * v1_bn.channels,
            "v2Mul input vs 3 x v1BN",
        )?;
        self.same(
            v2_bias.weights.len(),
            v2_mul.out_channels,
            "v2Bias vs v2Mul output",
        )?;
        self.same(
            v3_mul.in_channels,
            v2_mul.out_channels,
            "v3Mul input vs v2Mul output",
        )?;
        self.same(v3_mul.out_channels, 3, "v3Mul output")?;
        self.same(v3_bias.weights.len(), 3, "v3Bias channels")?;
        self.same(
            sv3_mul.in_channels,
            v2_mul.out_channels,
            "sv3Mul input vs v2Mul output",
        )?;
        self.same(sv3_mul.out_channels, score_channels, "sv3Mul output")?;
        self.same(sv3_bias.weights.len(), score_channels, "sv3Bias channels")?;
        self.same(
            ownership_conv.in_channels,
            v1_conv.out_channels,
            "ownership conv input vs v1Conv output",
        )?;
        self.same(ownership_conv.out_channels, 1, "ownership conv output")?;
        let value = ValueHeadDesc {
            v1_conv,
            v1_bn,
            v1_act,
            v2_mul,
            v2_bias,
            v2_act,
            v3_mul,
            v3_bias,
            sv3_mul,
            sv3_bias,
            ownership_conv,
        };
        Ok(ModelDesc {
            name,
            version,
            num_input_channels,
            num_global_channels,
            post_process,
            parameters: self.params,
            meta_encoder_version,
            prefer_pass_alive_under_suicide,
            trunk,
            policy,
            value,
        })
    }
}
