//! The loaded network: its layers folded from a file's description, and what it tells about
//! itself. A [`Network`] is immutable and `Sync`: threads share one and each brings its own
//! [`Workspace`](super::workspace::Workspace); the forward pass is in `forward.rs`.

use super::blocks::Block;
use super::heads::{MetadataEncoder, PolicyHead, Tip, ValueHead};
use super::layers::{Conv, Dense};
use super::precision::Precision;
use crate::nn::file::desc::{ModelDesc, PostProcessParams};
use crate::nn::file::error::ModelError;
use std::path::Path;

// One loaded network is shared by every evaluating thread.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<Network>();
};

/// A loaded network, ready to evaluate.
#[derive(Debug, Clone)]
pub struct Network {
    pub(super) name: String,
    pub(super) version: i64,
    pub(super) post_process: PostProcessParams,
    pub(super) prefer_pass_alive_under_suicide: bool,
    pub(super) trunk_channels: usize,
    pub(super) initial: Conv,
    pub(super) initial_global: Dense,
    pub(super) metadata: Option<MetadataEncoder>,
    pub(super) blocks: Vec<Block>,
    pub(super) tip: Tip,
    pub(super) policy: PolicyHead,
    pub(super) value: ValueHead,
    pub(super) parameters: usize,
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
            tip: Tip::new(t),
            policy: PolicyHead::new(&m.policy),
            value: ValueHead::new(&m.value),
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

    pub(super) fn for_each_conv(&self, f: &mut dyn FnMut(&Conv)) {
        f(&self.initial);
        self.blocks.iter().for_each(|b| b.for_each_conv(f));
        f(&self.policy.p1);
        f(&self.policy.g1);
        f(&self.policy.p2);
        f(&self.value.v1);
        f(&self.value.ownership);
    }
}
