//! The trunk's blocks: residual stacks (ordinary, global-pooling, nested bottleneck), the
//! transformer blocks and the SGF-metadata encoder.

use super::desc::{AttentionDesc, BlockDesc, FeedForwardDesc, MetadataEncoderDesc, RopeDesc};
use super::error::ModelError;
use super::parser::{Parser, MAX_BLOCKS, MAX_CHANNELS};
use crate::nn::input::sizes::NUM_META_FEATURES;

/// Deepest nesting of bottleneck blocks.
const MAX_NESTING: usize = 4;

impl Parser<'_> {
    /// A stack of `count` blocks on `channels` channels, nested `depth` deep.
    pub(super) fn block_stack(
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
                "ordinary_block" => self.ordinary_block(version, channels)?,
                "gpool_block" => self.gpool_block(version, channels)?,
                "nested_bottleneck_block" => self.nested_block(version, channels, depth)?,
                "transformer_attention_block" => BlockDesc::Attention(self.attention(channels)?),
                "transformer_ffn_block" => BlockDesc::FeedForward(self.feed_forward(channels)?),
                _ => return Err(self.err(format!("unknown block kind '{kind}'"))),
            };
            blocks.push(block);
        }
        Ok(blocks)
    }

    /// An ordinary residual block: norm, conv, norm, conv.
    fn ordinary_block(&mut self, version: i64, channels: usize) -> Result<BlockDesc, ModelError> {
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
        Ok(BlockDesc::Ordinary {
            name,
            pre_bn,
            pre_act,
            regular_conv,
            mid_bn,
            mid_act,
            final_conv,
        })
    }

    /// A global-pooling residual block.
    fn gpool_block(&mut self, version: i64, channels: usize) -> Result<BlockDesc, ModelError> {
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
        Ok(BlockDesc::GlobalPooling {
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
        })
    }

    /// A nested bottleneck block, its inner stack one level deeper.
    fn nested_block(
        &mut self,
        version: i64,
        channels: usize,
        depth: usize,
    ) -> Result<BlockDesc, ModelError> {
        let name = self.name()?;
        let inner = self.count("number of inner blocks", MAX_BLOCKS)?;
        let pre_bn = self.batch_norm()?;
        let pre_act = self.activation(version)?;
        let pre_conv = self.conv()?;
        self.context = format!("block '{name}'");
        self.same(pre_bn.channels, channels, "preBN channels vs trunk")?;
        self.same(pre_conv.in_channels, channels, "preConv input vs trunk")?;
        let blocks = self.block_stack(version, inner, pre_conv.out_channels, depth + 1)?;
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
        Ok(BlockDesc::NestedBottleneck {
            name,
            pre_bn,
            pre_act,
            pre_conv,
            blocks,
            post_bn,
            post_act,
            post_conv,
        })
    }

    /// A `transformer_attention_block` in a stack of `channels`.
    pub(super) fn attention(&mut self, channels: usize) -> Result<AttentionDesc, ModelError> {
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
    pub(super) fn feed_forward(&mut self, channels: usize) -> Result<FeedForwardDesc, ModelError> {
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
    pub(super) fn metadata_encoder(
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
}
