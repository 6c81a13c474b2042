//! The forward pass over a batch of positions at the board's true size, under any of the eight
//! symmetries (on a rectangular board the transposing ones show the net the board turned a
//! quarter, as KataGo does, so one batch may hold two shapes: it runs as consecutive runs of
//! one shape). Allocates nothing: every buffer is the [`Workspace`]'s.

use super::blocks::Block;
use super::heads::{Tip, USED_POLICY_CHANNELS};
use super::io::{EvalError, NetInput, RawEval};
use super::layers::{activate_slice, global_pool, PoolKind};
use super::network::Network;
use super::shapes::Frame;
use super::transformer::TransformerScratch;
use super::workspace::{Level, Workspace};
use crate::nn::input::sizes::NUM_SPATIAL_FEATURES;
use crate::nn::input::symmetry;
use crate::nn::kernels::denormals::FlushDenormals;

impl Network {
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
        load_inputs(ws, inputs, symmetries, frame);
        self.run_trunk(ws, inputs, frame);
        let board = (inputs[0].width, inputs[0].height);
        self.run_policy_head(ws, board, frame, out);
        self.run_value_head(ws, frame, out);
    }

    /// The trunk, from the inputs in `ws.input` to the tip's output in `ws.tip`.
    fn run_trunk(&self, ws: &mut Workspace, inputs: &[NetInput], frame: Frame) {
        let batch = inputs.len();
        let area = frame.area();
        let c = self.trunk_channels;
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
    }

    /// The policy head on `ws.tip` into each output's policy and pass logits, back in the
    /// coordinates of the `board` (width, height).
    fn run_policy_head(
        &self,
        ws: &mut Workspace,
        (w, h): (usize, usize),
        frame: Frame,
        out: &mut [RawEval],
    ) {
        let batch = out.len();
        let area = frame.area();
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
    }

    /// The value head on `ws.tip` into each output's value, scores and ownership.
    fn run_value_head(&self, ws: &mut Workspace, frame: Frame, out: &mut [RawEval]) {
        let batch = out.len();
        let area = frame.area();
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
            activate_slice(vh.v2_act, &mut ws.row[..vh.v2.out_channels]);
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

/// The inputs into `ws.input` as NHWC rows under each one's symmetry (and the symmetries'
/// index tables into `ws.sym_table`, for reading the outputs back).
fn load_inputs(ws: &mut Workspace, inputs: &[NetInput], symmetries: &[u8], frame: Frame) {
    let (w, h) = (inputs[0].width, inputs[0].height);
    let area = frame.area();
    for (b, input) in inputs.iter().enumerate() {
        symmetry::index_table(
            symmetries[b],
            w,
            h,
            &mut ws.sym_table[b * area..(b + 1) * area],
        );
        let dst =
            &mut ws.input[b * area * NUM_SPATIAL_FEATURES..(b + 1) * area * NUM_SPATIAL_FEATURES];
        for (board_pos, &net_pos) in ws.sym_table[b * area..(b + 1) * area].iter().enumerate() {
            for f in 0..NUM_SPATIAL_FEATURES {
                dst[net_pos * NUM_SPATIAL_FEATURES + f] = input.spatial[f * area + board_pos];
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::input::sizes::NUM_GLOBAL_FEATURES;
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
