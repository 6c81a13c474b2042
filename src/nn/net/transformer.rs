//! The transformer nets' layers (KataGo model version 15 and later): per-point RMSNorm,
//! self-attention over the board's points with rotary position embeddings (learned or fixed,
//! multi-head or grouped-query), the SwiGLU feed-forward block, and the RMSNorm trunk tip.
//!
//! Everything runs at the board's true size on NHWC rows (`[point][channel]`, one board after
//! another), as the rest of the forward pass does, so there are no off-board points to mask:
//! KataGo masks them out of the norms and the attention's keys, which is the same thing.
//! Projections are GEMMs against matrices packed at load; the attention's keys and values are
//! packed per evaluation into buffers that [`TransformerScratch`] keeps, so nothing allocates.
//! A block takes a batch a chunk of whole boards at a time, so that its intermediate rows (the
//! feed-forward block's hidden ones above all) stay in cache between its passes.

use super::layers::activate_slice;
use super::precision::{Operand, Precision, Weights};
use super::shapes::Frame;
use crate::nn::file::desc::{
    Activation, AttentionDesc, FeedForwardDesc, MatMulDesc, RmsNormDesc, RopeDesc,
    TransformerNormDesc,
};
use crate::nn::input::sizes::MAX_BOARD_SIZE;
use crate::nn::kernels::vecmath::exp::sum_of_squares;
use crate::nn::kernels::vecmath::ops::swiglu;

/// Rows a transformer block works on at a time: whole boards, as many as fit in this many
/// rows (at least one). A 19x19 batch of 8 in one go made the feed-forward block's hidden rows
/// of KaTrain's transformer 12 MB (and its queries, keys and values 7 MB) between passes, far
/// past L2; a board at a time they are an eighth of that.
const CHUNK_ROWS: usize = 512;

/// Boards per chunk for boards of `area` points, at most `batch`.
fn chunk_boards(batch: usize, area: usize) -> usize {
    (CHUNK_ROWS / area.max(1)).clamp(1, batch.max(1))
}

/// Runs `f(stream_part, boards)` over `batch` boards of `area` points of `channels` channels
/// in `stream`, a chunk of whole boards at a time.
fn in_chunks(
    stream: &mut [f32],
    batch: usize,
    area: usize,
    channels: usize,
    mut f: impl FnMut(&mut [f32], usize),
) {
    let per_chunk = chunk_boards(batch, area);
    let mut b0 = 0;
    while b0 < batch {
        let boards = per_chunk.min(batch - b0);
        f(
            &mut stream[b0 * area * channels..(b0 + boards) * area * channels],
            boards,
        );
        b0 += boards;
    }
}

/// Concatenates dense layers of one input width side by side into one packed matrix.
fn pack_side_by_side(parts: &[&MatMulDesc], scales: &[f32]) -> Weights {
    let k = parts[0].in_channels;
    let n: usize = parts.iter().map(|m| m.out_channels).sum();
    let mut joined = vec![0.0; k * n];
    let mut at = 0;
    for (m, &scale) in parts.iter().zip(scales) {
        for row in 0..k {
            for col in 0..m.out_channels {
                joined[row * n + at + col] = m.weights[row * m.out_channels + col] * scale;
            }
        }
        at += m.out_channels;
    }
    Weights::new(&joined, k, n)
}

/// A transformer block's pre-norm: per point `x * weight / sqrt(mean(x^2) + epsilon)`.
#[derive(Debug, Clone)]
pub struct TransformerNorm {
    weight: Vec<f32>,
    epsilon: f32,
}

impl TransformerNorm {
    fn new(desc: &TransformerNormDesc) -> Self {
        TransformerNorm {
            weight: desc.weight.clone(),
            epsilon: desc.epsilon,
        }
    }

    /// Normalizes `input`'s rows of `weight.len()` channels into `out`.
    fn apply(&self, input: &[f32], out: &mut [f32]) {
        let c = self.weight.len();
        for (src, dst) in input.chunks_exact(c).zip(out.chunks_exact_mut(c)) {
            let sum_sq = sum_of_squares(src);
            let inv = 1.0 / (sum_sq / c as f32 + self.epsilon).sqrt();
            for ((d, s), w) in dst.iter_mut().zip(src).zip(&self.weight) {
                *d = s * inv * w;
            }
        }
    }
}

/// Cosines and sines of the rotary embedding for every point of the largest board, laid out
/// `[(point * heads + head) * pairs + pair]` with `point = y * MAX_BOARD_SIZE + x`.
#[derive(Debug, Clone)]
struct RopeTable {
    /// KV heads with their own frequencies (1 for fixed RoPE: all heads share them).
    heads: usize,
    pairs: usize,
    cos: Vec<f32>,
    sin: Vec<f32>,
}

impl RopeTable {
    fn new(desc: &RopeDesc, kv_heads: usize, head_dim: usize) -> Self {
        let pairs = head_dim / 2;
        let heads = match desc {
            RopeDesc::Learnable { .. } => kv_heads,
            RopeDesc::Fixed { .. } => 1,
        };
        let points = MAX_BOARD_SIZE * MAX_BOARD_SIZE;
        let mut cos = vec![0.0; points * heads * pairs];
        let mut sin = vec![0.0; points * heads * pairs];
        for y in 0..MAX_BOARD_SIZE {
            for x in 0..MAX_BOARD_SIZE {
                let point = y * MAX_BOARD_SIZE + x;
                for h in 0..heads {
                    for p in 0..pairs {
                        // The angle as KataGo computes it, in f32.
                        let angle = match desc {
                            RopeDesc::Learnable { freqs } => {
                                let (fx, fy) =
                                    (freqs[(h * pairs + p) * 2], freqs[(h * pairs + p) * 2 + 1]);
                                x as f32 * fx + y as f32 * fy
                            }
                            RopeDesc::Fixed { theta } => {
                                let per_axis = pairs / 2;
                                let (q, coord) = if p < per_axis {
                                    (p, y)
                                } else {
                                    (p - per_axis, x)
                                };
                                let freq = 1.0 / theta.powf((2 * q) as f32 / pairs as f32);
                                coord as f32 * freq
                            }
                        };
                        let at = (point * heads + h) * pairs + p;
                        cos[at] = angle.cos();
                        sin[at] = angle.sin();
                    }
                }
            }
        }
        RopeTable {
            heads,
            pairs,
            cos,
            sin,
        }
    }

    /// Rotates the `heads` heads of `head_dim` channels starting at `row[offset]`, for the
    /// point `point`; query head `h` of `heads` uses the frequencies of KV head
    /// `h * self.heads / heads`.
    fn rotate(&self, row: &mut [f32], offset: usize, heads: usize, point: usize) {
        let pairs = self.pairs;
        for h in 0..heads {
            let t = (point * self.heads + h * self.heads / heads) * pairs;
            let (cos, sin) = (&self.cos[t..t + pairs], &self.sin[t..t + pairs]);
            let head = &mut row[offset + h * 2 * pairs..offset + (h + 1) * 2 * pairs];
            for ((pair, &c), &s) in head.chunks_exact_mut(2).zip(cos).zip(sin) {
                let (x0, x1) = (pair[0], pair[1]);
                pair[0] = x0 * c - x1 * s;
                pair[1] = x0 * s + x1 * c;
            }
        }
    }
}

/// Self-attention over a board's points, pre-normed, added into the stream.
#[derive(Debug, Clone)]
pub struct Attention {
    heads: usize,
    kv_heads: usize,
    q_dim: usize,
    v_dim: usize,
    norm: TransformerNorm,
    /// `[q | k | v]` projections side by side, the queries scaled by `1/sqrt(q_dim)`.
    qkv: Weights,
    out: Weights,
    rope: Option<RopeTable>,
    /// The precision the scratch's keys and values are packed for: the products of queries
    /// with keys and of scores with values run in it (int8 leaves them fp32, see
    /// [`Operand::with_capacity`]).
    products: Precision,
}

impl Attention {
    pub fn new(desc: &AttentionDesc) -> Self {
        let scale = 1.0 / (desc.q_head_dim as f32).sqrt();
        Attention {
            heads: desc.num_heads,
            kv_heads: desc.num_kv_heads,
            q_dim: desc.q_head_dim,
            v_dim: desc.v_head_dim,
            norm: TransformerNorm::new(&desc.norm),
            qkv: pack_side_by_side(
                &[&desc.q_proj, &desc.k_proj, &desc.v_proj],
                &[scale, 1.0, 1.0],
            ),
            out: Weights::new(
                &desc.out_proj.weights,
                desc.out_proj.in_channels,
                desc.out_proj.out_channels,
            ),
            rope: desc
                .rope
                .as_ref()
                .map(|r| RopeTable::new(r, desc.num_kv_heads, desc.q_head_dim)),
            products: Precision::Fp32,
        }
    }

    /// Channels of the stream it reads and writes.
    pub fn channels(&self) -> usize {
        self.out.n()
    }

    /// Runs the projections in `precision`, and in bf16 the attention's own products too
    /// (int8 leaves those in fp32).
    pub fn set_precision(&mut self, precision: Precision) {
        self.qkv.set_precision(precision);
        self.out.set_precision(precision);
        self.products = precision;
    }

    /// Width of one point's queries, keys and values together.
    fn qkv_width(&self) -> usize {
        self.qkv.n()
    }

    /// Multiply-adds for one board of `area` points.
    pub fn macs(&self, area: usize) -> f64 {
        let per_point = self.qkv.k() * self.qkv.n() + self.out.k() * self.out.n();
        let attention = self.heads * area * (self.q_dim + self.v_dim);
        (area * (per_point + attention)) as f64
    }

    /// `stream += attention(norm(stream))` for `batch` boards of shape `frame`. Rotary
    /// positions are the points' places on a [`MAX_BOARD_SIZE`]-wide grid from the top-left,
    /// as in KataGo's fixed-size buffer.
    pub fn apply(
        &self,
        stream: &mut [f32],
        batch: usize,
        frame: Frame,
        s: &mut TransformerScratch,
    ) {
        let (area, c) = (frame.area(), self.channels());
        in_chunks(stream, batch, area, c, |part, boards| {
            self.apply_chunk(part, boards, frame, s)
        });
    }

    /// [`Attention::apply`] on one chunk of boards.
    fn apply_chunk(
        &self,
        stream: &mut [f32],
        batch: usize,
        frame: Frame,
        s: &mut TransformerScratch,
    ) {
        let area = frame.area();
        let w = frame.width;
        let c = self.channels();
        let rows = batch * area;
        let width = self.qkv_width();
        let (q_at, k_at) = (0, self.heads * self.q_dim);
        let v_at = k_at + self.kv_heads * self.q_dim;
        let hv = self.heads * self.v_dim;
        self.norm
            .apply(&stream[..rows * c], &mut s.normed[..rows * c]);
        self.qkv.multiply(rows, &s.normed, c, &mut s.qkv, false);
        if let Some(rope) = &self.rope {
            for (i, row) in s.qkv[..rows * width].chunks_exact_mut(width).enumerate() {
                let at = i % area;
                let point = (at / w) * MAX_BOARD_SIZE + at % w;
                rope.rotate(row, q_at, self.heads, point);
                rope.rotate(row, k_at, self.kv_heads, point);
            }
        }
        let group = self.heads / self.kv_heads;
        for b in 0..batch {
            let qkv = &s.qkv[b * area * width..(b + 1) * area * width];
            for kvh in 0..self.kv_heads {
                let (keys, values) = (
                    &qkv[k_at + kvh * self.q_dim..],
                    &qkv[v_at + kvh * self.v_dim..],
                );
                s.keys.pack_transposed(keys, self.q_dim, area, width);
                s.values.pack_rows(values, area, self.v_dim, width);
                for h in kvh * group..(kvh + 1) * group {
                    let scores = &mut s.scores[..area * area];
                    let queries = &qkv[q_at + h * self.q_dim..];
                    s.keys.multiply(area, queries, width, scores, false);
                    let head_out = &mut s.head_out[..area * self.v_dim];
                    s.values.softmax_multiply(area, scores, head_out);
                    let attended = &mut s.attended[b * area * hv..(b + 1) * area * hv];
                    for (dst, src) in attended
                        .chunks_exact_mut(hv)
                        .zip(head_out.chunks_exact(self.v_dim))
                    {
                        dst[h * self.v_dim..(h + 1) * self.v_dim].copy_from_slice(src);
                    }
                }
            }
        }
        self.out.multiply(rows, &s.attended, hv, stream, true);
    }
}

/// The SwiGLU feed-forward block, pre-normed, added into the stream.
#[derive(Debug, Clone)]
pub struct FeedForward {
    hidden: usize,
    norm: TransformerNorm,
    /// `[linear1 | gate]` side by side.
    up: Weights,
    down: Weights,
}

impl FeedForward {
    pub fn new(desc: &FeedForwardDesc) -> Self {
        FeedForward {
            hidden: desc.hidden,
            norm: TransformerNorm::new(&desc.norm),
            up: pack_side_by_side(&[&desc.linear1, &desc.gate], &[1.0, 1.0]),
            down: Weights::new(
                &desc.linear2.weights,
                desc.linear2.in_channels,
                desc.linear2.out_channels,
            ),
        }
    }

    /// Channels of the stream it reads and writes.
    pub fn channels(&self) -> usize {
        self.down.n()
    }

    /// Runs the projections in `precision`.
    pub fn set_precision(&mut self, precision: Precision) {
        self.up.set_precision(precision);
        self.down.set_precision(precision);
    }

    /// Multiply-adds for one board of `area` points.
    pub fn macs(&self, area: usize) -> f64 {
        (area * (self.up.k() * self.up.n() + self.down.k() * self.down.n())) as f64
    }

    /// `stream += linear2(silu(linear1(x)) * gate(x))`, `x = norm(stream)`, for `batch`
    /// boards of `area` points.
    pub fn apply(&self, stream: &mut [f32], batch: usize, area: usize, s: &mut TransformerScratch) {
        let c = self.channels();
        in_chunks(stream, batch, area, c, |part, boards| {
            self.apply_chunk(part, boards, area, s)
        });
    }

    /// [`FeedForward::apply`] on one chunk of boards.
    fn apply_chunk(
        &self,
        stream: &mut [f32],
        batch: usize,
        area: usize,
        s: &mut TransformerScratch,
    ) {
        let c = self.channels();
        let rows = batch * area;
        let f = self.hidden;
        self.norm
            .apply(&stream[..rows * c], &mut s.normed[..rows * c]);
        self.up.multiply(rows, &s.normed, c, &mut s.hidden, false);
        for row in s.hidden[..rows * 2 * f].chunks_exact_mut(2 * f) {
            let (a, gate) = row.split_at_mut(f);
            swiglu(a, gate);
        }
        self.down.multiply(rows, &s.hidden, 2 * f, stream, true);
    }
}

/// The trunk tip's RMSNorm and activation (model version 15+).
#[derive(Debug, Clone)]
pub struct RmsNormTip {
    gamma: Vec<f32>,
    beta: Vec<f32>,
    epsilon: f32,
    spatial: bool,
    act: Activation,
}

impl RmsNormTip {
    pub fn new(desc: &RmsNormDesc, act: Activation) -> Self {
        RmsNormTip {
            gamma: desc.gamma.clone(),
            beta: desc.beta.clone(),
            epsilon: desc.epsilon,
            spatial: desc.spatial,
            act,
        }
    }

    /// `out = act(input * gamma / rms + beta)` for `batch` boards of `area` points: the root
    /// mean square per point, or with `spatial` per board over all its points and channels.
    pub fn apply(&self, input: &[f32], out: &mut [f32], batch: usize, area: usize) {
        let c = self.gamma.len();
        let per_board = area * c;
        for b in 0..batch {
            let src = &input[b * per_board..(b + 1) * per_board];
            let dst = &mut out[b * per_board..(b + 1) * per_board];
            let board_inv = self.spatial.then(|| {
                let sum_sq: f64 = src.iter().map(|&v| (v as f64) * (v as f64)).sum();
                (1.0 / (sum_sq / per_board as f64 + self.epsilon as f64).sqrt()) as f32
            });
            for (s, d) in src.chunks_exact(c).zip(dst.chunks_exact_mut(c)) {
                let inv = board_inv.unwrap_or_else(|| {
                    let sum_sq = sum_of_squares(s);
                    1.0 / (sum_sq / c as f32 + self.epsilon).sqrt()
                });
                for i in 0..c {
                    d[i] = s[i] * inv * self.gamma[i] + self.beta[i];
                }
                activate_slice(self.act, d);
            }
        }
    }
}

/// Buffers of the transformer blocks, sized for the widest block of a net.
#[derive(Debug, Clone)]
pub struct TransformerScratch {
    normed: Vec<f32>,
    qkv: Vec<f32>,
    scores: Vec<f32>,
    head_out: Vec<f32>,
    attended: Vec<f32>,
    hidden: Vec<f32>,
    /// Attention's keys and values, packed per evaluation in what its products run in.
    keys: Operand,
    values: Operand,
}

impl TransformerScratch {
    /// Empty buffers (for nets without transformer blocks).
    pub fn empty() -> Self {
        TransformerScratch::new(&[], &[], 1, 1)
    }

    /// Buffers for `attention` and `feed_forward` blocks on batches of `batch` boards of up to
    /// `area` points, a chunk of boards at a time.
    pub fn new(
        attention: &[&Attention],
        feed_forward: &[&FeedForward],
        batch: usize,
        area: usize,
    ) -> Self {
        // A chunk on boards of `area` points or fewer: one board, or boards within CHUNK_ROWS.
        let rows = (batch * area).min(CHUNK_ROWS.max(area));
        let max =
            |f: &dyn Fn(&Attention) -> usize| attention.iter().map(|a| f(a)).max().unwrap_or(0);
        let channels = max(&|a| a.channels())
            .max(feed_forward.iter().map(|f| f.channels()).max().unwrap_or(0));
        let hidden = feed_forward.iter().map(|f| 2 * f.hidden).max().unwrap_or(0);
        let (q_dim, v_dim) = (max(&|a| a.q_dim), max(&|a| a.v_dim));
        let any_attention = !attention.is_empty();
        // A net runs all its blocks in one precision.
        let products = attention.first().map_or(Precision::Fp32, |a| a.products);
        TransformerScratch {
            normed: vec![0.0; rows * channels],
            qkv: vec![0.0; rows * max(&|a| a.qkv_width())],
            scores: vec![0.0; if any_attention { area * area } else { 0 }],
            head_out: vec![0.0; area * v_dim],
            attended: vec![0.0; rows * max(&|a| a.heads * a.v_dim)],
            hidden: vec![0.0; rows * hidden],
            keys: Operand::with_capacity(products, q_dim, area),
            values: Operand::with_capacity(products, area, v_dim),
        }
    }
}
