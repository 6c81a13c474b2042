//! The trunk's blocks, their batch norms folded into the convolutions where that is exact.

use super::layers::{Conv, Dense, NormAct};
use super::precision::Precision;
use super::transformer::{Attention, FeedForward};
use crate::nn::file::desc::{Activation, BlockDesc};

/// A residual block with its norms folded where that is exact.
#[derive(Debug, Clone)]
pub(super) enum Block {
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
    pub(super) fn fold(desc: &BlockDesc) -> Block {
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
    pub(super) fn for_each_transformer<'a>(&'a self, f: &mut dyn FnMut(&'a Block)) {
        match self {
            Block::Attention(_) | Block::FeedForward(_) => f(self),
            Block::Nested { blocks, .. } => blocks.iter().for_each(|b| b.for_each_transformer(f)),
            _ => {}
        }
    }

    /// Visits every convolution (for workspace sizing).
    pub(super) fn for_each_conv(&self, f: &mut dyn FnMut(&Conv)) {
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
    pub(super) fn set_precision(&mut self, precision: Precision) {
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
    pub(super) fn for_each_conv_mut(&mut self, f: &mut dyn FnMut(&mut Conv)) {
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
    pub(super) fn depth(&self) -> usize {
        match self {
            Block::Nested { blocks, .. } => 1 + blocks.iter().map(Block::depth).max().unwrap_or(0),
            _ => 0,
        }
    }
}
