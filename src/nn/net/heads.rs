//! The heads and the trunk's ends, folded from the file: the policy head, the value head,
//! the trunk tip and the human-SL nets' SGF-metadata encoder.

use super::layers::{activate_slice, Conv, Dense, NormAct};
use super::transformer::RmsNormTip;
use crate::nn::file::desc::{
    Activation, ConvDesc, MatMulDesc, MetadataEncoderDesc, PolicyHeadDesc, TrunkDesc, TrunkTipDesc,
    ValueHeadDesc,
};

/// The policy head, folded.
#[derive(Debug, Clone)]
pub(super) struct PolicyHead {
    /// p1 conv scaled by p1's norm (its shift lives in `to_bias`).
    pub(super) p1: Conv,
    pub(super) g1: Conv,
    pub(super) to_bias: Dense,
    pub(super) p1_act: Activation,
    /// The policy channels engines use (plain and optimistic; never the Q-value channels).
    pub(super) p2: Conv,
    /// Pooled values to the pass logits, or (version 15+) to the pass head's hidden layer.
    pub(super) to_pass: Dense,
    /// Version 15+: the hidden layer's activation and its map to the pass logits.
    pub(super) pass_hidden: Option<(Activation, Dense)>,
}

/// The trunk's last norm and activation.
#[derive(Debug, Clone)]
pub(super) enum Tip {
    BatchNorm(NormAct),
    RmsNorm(RmsNormTip),
}

/// The human-SL nets' SGF-metadata encoder: three dense layers to a per-channel trunk bias.
#[derive(Debug, Clone)]
pub(super) struct MetadataEncoder {
    pub(super) first: Dense,
    pub(super) first_act: Activation,
    pub(super) second: Dense,
    pub(super) second_act: Activation,
    pub(super) out: Dense,
}

impl MetadataEncoder {
    pub(super) fn new(d: &MetadataEncoderDesc) -> Self {
        MetadataEncoder {
            first: Dense::new(&d.mul1, Some(&d.bias1.weights)),
            first_act: d.act1,
            second: Dense::new(&d.mul2, Some(&d.bias2.weights)),
            second_act: d.act2,
            out: Dense::new(&d.mul3, None),
        }
    }

    /// The trunk bias for one metadata row; `hidden` holds the widest layer.
    pub(super) fn apply(&self, meta: &[f32], hidden: &mut [f32], out: &mut [f32]) {
        let (a, b) = hidden.split_at_mut(hidden.len() / 2);
        self.first.apply(meta, a);
        activate_slice(self.first_act, &mut a[..self.first.out_channels]);
        self.second.apply(a, b);
        activate_slice(self.second_act, &mut b[..self.second.out_channels]);
        self.out.apply(b, out);
    }

    pub(super) fn width(&self) -> usize {
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
pub(super) const USED_POLICY_CHANNELS: usize = 2;

/// The value head, folded.
#[derive(Debug, Clone)]
pub(super) struct ValueHead {
    pub(super) v1: Conv,
    pub(super) v2: Dense,
    pub(super) v2_act: Activation,
    pub(super) v3: Dense,
    pub(super) sv3: Dense,
    pub(super) ownership: Conv,
}

impl PolicyHead {
    /// Folds the file's policy head: p1's norm into p1 (its shift into the pooled bias), g1's
    /// into g1, and only the policy channels engines read.
    pub(super) fn new(p: &PolicyHeadDesc) -> Self {
        let (p1_scale, p1_shift) = p.p1_bn.merged();
        let mut p1 = Conv::new(&p.p1_conv);
        p1.scale_outputs(&p1_scale);
        let mut to_bias = Dense::new(&p.gpool_to_bias, Some(&p1_shift));
        to_bias.scale_outputs(&p1_scale);
        PolicyHead {
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
        }
    }
}

impl ValueHead {
    /// Folds the file's value head: v1's norm into v1.
    pub(super) fn new(v: &ValueHeadDesc) -> Self {
        ValueHead {
            v1: Conv::with_norm(&v.v1_conv, &v.v1_bn, v.v1_act),
            v2: Dense::new(&v.v2_mul, Some(&v.v2_bias.weights)),
            v2_act: v.v2_act,
            v3: Dense::new(&v.v3_mul, Some(&v.v3_bias.weights)),
            sv3: Dense::new(&v.sv3_mul, Some(&v.sv3_bias.weights)),
            ownership: Conv::new(&v.ownership_conv),
        }
    }
}

impl Tip {
    /// The file's trunk tip with its activation.
    pub(super) fn new(t: &TrunkDesc) -> Self {
        match &t.tip {
            TrunkTipDesc::BatchNorm(bn) => Tip::BatchNorm(NormAct::new(bn, t.tip_act)),
            TrunkTipDesc::RmsNorm(norm) => Tip::RmsNorm(RmsNormTip::new(norm, t.tip_act)),
        }
    }
}
