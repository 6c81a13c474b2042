//! The forward pass's building blocks on NHWC activations (`[position][channel]` rows, one
//! board after another): convolution by im2col + GEMM, per-channel affine + activation,
//! dense layers, and KataGo's global pooling. No allocation: callers hand in every buffer.

use super::precision::{Precision, Weights};
use super::shapes::Frame;
use super::winograd;
use crate::nn::file::desc::{Activation, BatchNormDesc, ConvDesc, MatMulDesc};
use crate::nn::kernels::vecmath::ops as vecmath;
use crate::nn::kernels::winograd::Tile;

/// Applies an activation to one value, with KataGo's formulas.
#[inline(always)]
pub fn activate(kind: Activation, x: f32) -> f32 {
    match kind {
        Activation::Identity => x,
        Activation::Relu => x.max(0.0),
        Activation::Mish => {
            // softplus computed as KataGo does: log1p(exp(min(x, 20))) + max(x, 20) - 20.
            let softplus = x.min(20.0).exp().ln_1p() + (x.max(20.0) - 20.0);
            x * softplus.tanh()
        }
        Activation::Silu => x / ((-x).exp() + 1.0),
    }
}

/// Applies an activation to a whole slice (SiLU and Mish by the vector kernels of
/// [`vecmath`], which agree with [`activate`] to float rounding).
pub fn activate_slice(kind: Activation, data: &mut [f32]) {
    match kind {
        Activation::Identity => {}
        Activation::Relu => data.iter_mut().for_each(|v| *v = v.max(0.0)),
        Activation::Silu => vecmath::silu(data),
        Activation::Mish => vecmath::mish(data),
    }
}

/// A per-channel `x * scale + bias` followed by an activation (a batch norm that cannot be
/// folded into a convolution, because it reads the residual stream).
#[derive(Debug, Clone)]
pub struct NormAct {
    pub scale: Vec<f32>,
    pub bias: Vec<f32>,
    pub act: Activation,
}

impl NormAct {
    pub fn new(bn: &BatchNormDesc, act: Activation) -> Self {
        let (scale, bias) = bn.merged();
        NormAct { scale, bias, act }
    }

    /// `out = act(input * scale + bias)` over NHWC rows of `scale.len()` channels.
    pub fn apply(&self, input: &[f32], out: &mut [f32]) {
        let c = self.scale.len();
        for (src, dst) in input.chunks_exact(c).zip(out.chunks_exact_mut(c)) {
            for i in 0..c {
                dst[i] = src[i] * self.scale[i] + self.bias[i];
            }
            activate_slice(self.act, dst);
        }
    }
}

/// A convolution with an optional fused bias and activation.
#[derive(Debug, Clone)]
pub struct Conv {
    pub ky: usize,
    pub kx: usize,
    pub in_channels: usize,
    pub out_channels: usize,
    /// `[ky][kx][in][out]` packed as the GEMM's right-hand matrix (empty once Winograd is on).
    pub weights: Weights,
    /// The transformed filters when this 3x3 conv runs by Winograd.
    pub winograd: Option<winograd::Filters>,
    pub bias: Option<Vec<f32>>,
    pub act: Activation,
}

impl Conv {
    /// A plain convolution (no bias, identity).
    pub fn new(desc: &ConvDesc) -> Self {
        Conv {
            ky: desc.ky,
            kx: desc.kx,
            in_channels: desc.in_channels,
            out_channels: desc.out_channels,
            weights: Weights::new(
                &desc.weights,
                desc.ky * desc.kx * desc.in_channels,
                desc.out_channels,
            ),
            winograd: None,
            bias: None,
            act: Activation::Identity,
        }
    }

    /// The convolution followed by a batch norm and an activation, the norm folded in:
    /// weights scaled per output channel, the norm's shift as a bias.
    pub fn with_norm(desc: &ConvDesc, bn: &BatchNormDesc, act: Activation) -> Self {
        let mut conv = Conv::new(desc);
        let (scale, bias) = bn.merged();
        conv.scale_outputs(&scale);
        conv.bias = Some(bias);
        conv.act = act;
        conv
    }

    /// Multiplies each output channel's weights by `scale[oc]`.
    pub fn scale_outputs(&mut self, scale: &[f32]) {
        assert!(
            self.winograd.is_none(),
            "scale before switching to Winograd"
        );
        self.weights.scale_columns(scale);
    }

    /// Switches a 3x3 fp32 convolution to Winograd F(4x4, 3x3) (other kernels stay on im2col).
    pub fn use_winograd(&mut self) {
        if let (3, 3, None, Some(raw)) =
            (self.ky, self.kx, &self.winograd, self.weights.unpack_fp32())
        {
            let filters =
                winograd::Filters::new(Tile::F4x4, &raw, self.in_channels, self.out_channels);
            self.winograd = Some(filters);
            self.weights = Weights::new(&[], 0, 0);
        }
    }

    /// Runs in `precision`: bf16 on im2col, or for a Winograd convolution on F(2x2, 3x3)
    /// tiles (F(4x4)'s transforms would amplify bf16's rounding); int8 leaves convolutions in
    /// fp32.
    pub fn set_precision(&mut self, precision: Precision) {
        if precision != Precision::Bf16 {
            return;
        }
        let (cin, cout) = (self.in_channels, self.out_channels);
        if let Some(filters) = &mut self.winograd {
            if filters.tile() != Tile::F2x2 {
                if let Some(raw) = filters.untransform() {
                    *filters = winograd::Filters::new(Tile::F2x2, &raw, cin, cout);
                }
            }
            filters.set_precision(precision);
        } else {
            self.weights.set_precision(precision);
        }
    }

    /// Number of weights.
    pub fn num_weights(&self) -> usize {
        self.ky * self.kx * self.in_channels * self.out_channels
    }

    /// Scratch floats needed for a batch of `batch` boards of shape `frame` (enough for any
    /// frame that fits inside it).
    pub fn scratch_len(&self, batch: usize, frame: Frame) -> usize {
        if let Some(filters) = &self.winograd {
            filters.scratch_len(batch, frame)
        } else if self.ky == 1 && self.kx == 1 {
            0
        } else {
            frame.area() * self.ky * self.kx * self.in_channels
        }
    }

    /// Convolves `batch` boards of shape `frame` (zero padding outside the board). `out`
    /// receives the result, or has it added when `accumulate` (then bias and activation must
    /// be absent).
    pub fn apply(
        &self,
        input: &[f32],
        batch: usize,
        frame: Frame,
        out: &mut [f32],
        accumulate: bool,
        scratch: &mut [f32],
    ) {
        debug_assert!(!accumulate || (self.bias.is_none() && self.act == Activation::Identity));
        let area = frame.area();
        let (cin, cout) = (self.in_channels, self.out_channels);
        if let Some(filters) = &self.winograd {
            filters.convolve(input, batch, frame, out, accumulate, scratch);
        } else if self.ky == 1 && self.kx == 1 {
            self.weights.multiply(
                batch * area,
                &input[..batch * area * cin],
                cin,
                out,
                accumulate,
            );
        } else {
            let k = self.ky * self.kx * cin;
            let cols = &mut scratch[..area * k];
            for b in 0..batch {
                self.im2col(&input[b * area * cin..(b + 1) * area * cin], frame, cols);
                let dst = &mut out[b * area * cout..(b + 1) * area * cout];
                self.weights.multiply(area, cols, k, dst, accumulate);
            }
        }
        let out = &mut out[..batch * area * cout];
        if let Some(bias) = &self.bias {
            for row in out.chunks_exact_mut(cout) {
                for (v, b) in row.iter_mut().zip(bias) {
                    *v += b;
                }
            }
        }
        activate_slice(self.act, out);
    }

    /// Lays out one board's receptive fields as rows of `ky*kx*in` values.
    fn im2col(&self, input: &[f32], frame: Frame, cols: &mut [f32]) {
        let cin = self.in_channels;
        let (py, px) = (self.ky / 2, self.kx / 2);
        let row_len = self.ky * self.kx * cin;
        let (w, h) = (frame.width, frame.height);
        for y in 0..h {
            for x in 0..w {
                let row = &mut cols[(y * w + x) * row_len..(y * w + x + 1) * row_len];
                let mut at = 0;
                for dy in 0..self.ky {
                    let sy = y as isize + dy as isize - py as isize;
                    for dx in 0..self.kx {
                        let sx = x as isize + dx as isize - px as isize;
                        let dst = &mut row[at..at + cin];
                        if sy >= 0 && sx >= 0 && (sy as usize) < h && (sx as usize) < w {
                            let src = (sy as usize * w + sx as usize) * cin;
                            dst.copy_from_slice(&input[src..src + cin]);
                        } else {
                            dst.fill(0.0);
                        }
                        at += cin;
                    }
                }
            }
        }
    }
}

/// A dense layer with an optional bias: `out = input * weights + bias`, one row per board.
#[derive(Debug, Clone)]
pub struct Dense {
    pub in_channels: usize,
    pub out_channels: usize,
    /// `[in][out]`.
    pub weights: Vec<f32>,
    pub bias: Option<Vec<f32>>,
}

impl Dense {
    pub fn new(desc: &MatMulDesc, bias: Option<&[f32]>) -> Self {
        Dense {
            in_channels: desc.in_channels,
            out_channels: desc.out_channels,
            weights: desc.weights.clone(),
            bias: bias.map(|b| b.to_vec()),
        }
    }

    /// Multiplies each output column by `scale[oc]` (bias untouched).
    pub fn scale_outputs(&mut self, scale: &[f32]) {
        for row in self.weights.chunks_exact_mut(self.out_channels) {
            for (w, s) in row.iter_mut().zip(scale) {
                *w *= s;
            }
        }
    }

    /// Applies the layer to one input row.
    pub fn apply(&self, input: &[f32], out: &mut [f32]) {
        let out = &mut out[..self.out_channels];
        match &self.bias {
            Some(b) => out.copy_from_slice(b),
            None => out.fill(0.0),
        }
        for (x, row) in input[..self.in_channels]
            .iter()
            .zip(self.weights.chunks_exact(self.out_channels))
        {
            for (o, w) in out.iter_mut().zip(row) {
                *o += x * w;
            }
        }
    }
}

/// Which statistics a global pool gives as its third block of channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolKind {
    /// Trunk and policy pools: the max.
    Max,
    /// The value head's pool: the mean scaled by a quadratic in the board width.
    ValueHead,
}

/// Pools one board's NHWC activations (`area` rows of `c` channels) into `3c` values: mean,
/// mean·(√area − 14)·0.1, and max or mean·((√area − 14)²·0.01 − 0.1).
pub fn global_pool(input: &[f32], area: usize, c: usize, kind: PoolKind, out: &mut [f32]) {
    let (sums, rest) = out.split_at_mut(c);
    let (scaled, third) = rest.split_at_mut(c);
    sums.fill(0.0);
    if kind == PoolKind::Max {
        third[..c].fill(f32::NEG_INFINITY);
    }
    for row in input[..area * c].chunks_exact(c) {
        for i in 0..c {
            sums[i] += row[i];
        }
        if kind == PoolKind::Max {
            for i in 0..c {
                third[i] = third[i].max(row[i]);
            }
        }
    }
    let div = area as f32;
    let sqrt_off = div.sqrt() - 14.0;
    for i in 0..c {
        let mean = sums[i] / div;
        sums[i] = mean;
        scaled[i] = mean * sqrt_off * 0.1;
        if kind == PoolKind::ValueHead {
            third[i] = mean * (sqrt_off * sqrt_off * 0.01 - 0.1);
        }
    }
}
