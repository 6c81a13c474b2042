//! The per-thread buffers of the forward pass, sized once for a net, a batch and a board so
//! that evaluations allocate nothing.

use super::blocks::Block;
use super::layers::Dense;
use super::network::Network;
use super::shapes::Frame;
use super::transformer::TransformerScratch;
use crate::nn::input::sizes::{MAX_BOARD_SIZE, NUM_SPATIAL_FEATURES};

/// Buffers of one nesting level: its residual stream and the block scratch.
#[derive(Debug, Clone)]
pub(super) struct Level {
    pub(super) stream: Vec<f32>,
    pub(super) act: Vec<f32>,
    pub(super) mid: Vec<f32>,
    pub(super) gpool: Vec<f32>,
}

/// Per-thread buffers for evaluating batches of up to `max_batch` boards of up to
/// `board_size` on one network.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub(super) max_batch: usize,
    pub(super) board_size: usize,
    pub(super) trunk_channels: usize,
    pub(super) max_channels: usize,
    pub(super) sym_table: Vec<usize>,
    pub(super) input: Vec<f32>,
    pub(super) levels: Vec<Level>,
    pub(super) tip: Vec<f32>,
    pub(super) head_a: Vec<f32>,
    pub(super) head_b: Vec<f32>,
    pub(super) im2col: Vec<f32>,
    pub(super) pooled: Vec<f32>,
    pub(super) row: Vec<f32>,
    pub(super) pass_row: Vec<f32>,
    pub(super) transformer: TransformerScratch,
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
