//! The fast forward pass against a naive one: small random nets written in KataGo's
//! `.txt.gz` and `.bin.gz` formats (by `common/katago_net.rs`), loaded by `tengen::nn`, and
//! evaluated both ways — the reference below is direct convolution in f64 straight from the
//! unfolded layers, with its own symmetry mapping. Also: hostile files give errors, and the real
//! b6c96 net runs.

use crate::common::katago_net;

use std::path::Path;

use katago_net::*;

use tengen::nn::{
    postprocess, ModelDesc, NetEval, NetInput, Network, PostProcessOptions, RawEval, Workspace,
};
use tengen::Color;

// ---------------------------------------------------------------------------------------------
// The naive reference: NCHW in f64, every layer as written.

fn act_ref(kind: &str, x: f64) -> f64 {
    match kind {
        "ACTIVATION_RELU" => x.max(0.0),
        "ACTIVATION_MISH" => x * (1.0 + x.exp()).ln().tanh(),
        "ACTIVATION_SILU" => x / (1.0 + (-x).exp()),
        _ => x,
    }
}

/// Direct convolution of `[cin][n*n]` into `[cout][n*n]`, zero outside the board.
fn conv_ref(c: &Conv, x: &[f64], n: usize) -> Vec<f64> {
    let mut out = vec![0.0; c.cout * n * n];
    for oc in 0..c.cout {
        for y in 0..n as isize {
            for xx in 0..n as isize {
                let mut s = 0.0;
                for dy in 0..c.ky {
                    for dx in 0..c.kx {
                        let sy = y + dy as isize - (c.ky / 2) as isize;
                        let sx = xx + dx as isize - (c.kx / 2) as isize;
                        if sy < 0 || sx < 0 || sy >= n as isize || sx >= n as isize {
                            continue;
                        }
                        for ic in 0..c.cin {
                            let w = c.w[((dy * c.kx + dx) * c.cin + ic) * c.cout + oc] as f64;
                            s += w * x[ic * n * n + (sy as usize) * n + sx as usize];
                        }
                    }
                }
                out[oc * n * n + y as usize * n + xx as usize] = s;
            }
        }
    }
    out
}

fn bn_act_ref(b: &Bn, a: &Act, x: &[f64], area: usize) -> Vec<f64> {
    let mut out = x.to_vec();
    for ch in 0..b.c {
        let scale = b.scale.as_ref().map_or(1.0, |s| s[ch] as f64);
        let bias = b.bias.as_ref().map_or(0.0, |s| s[ch] as f64);
        let denom = (b.var[ch] as f64 + b.eps as f64).sqrt();
        for v in &mut out[ch * area..(ch + 1) * area] {
            *v = act_ref(a.kind, (*v - b.mean[ch] as f64) / denom * scale + bias);
        }
    }
    out
}

fn mat_ref(m: &Mat, x: &[f64]) -> Vec<f64> {
    (0..m.cout)
        .map(|o| (0..m.cin).map(|i| x[i] * m.w[i * m.cout + o] as f64).sum())
        .collect()
}

fn pool_ref(x: &[f64], c: usize, area: usize, value_head: bool) -> Vec<f64> {
    let mut out = vec![0.0; 3 * c];
    let b = (area as f64).sqrt() - 14.0;
    for ch in 0..c {
        let vals = &x[ch * area..(ch + 1) * area];
        let mean = vals.iter().sum::<f64>() / area as f64;
        out[ch] = mean;
        out[c + ch] = mean * b * 0.1;
        out[2 * c + ch] = if value_head {
            mean * (b * b * 0.01 - 0.1)
        } else {
            vals.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
        };
    }
    out
}

fn add_channel_bias(x: &mut [f64], bias: &[f64], area: usize) {
    for (ch, b) in bias.iter().enumerate() {
        x[ch * area..(ch + 1) * area]
            .iter_mut()
            .for_each(|v| *v += b);
    }
}

/// A transformer pre-norm, per point over the `c` channels of `[c][area]`.
fn tnorm_ref(norm: &TNorm, x: &[f64], area: usize) -> Vec<f64> {
    let c = norm.c;
    let mut out = vec![0.0; c * area];
    for p in 0..area {
        let mut sum_sq = 0.0;
        for ch in 0..c {
            sum_sq += x[ch * area + p] * x[ch * area + p];
        }
        let inv_rms = 1.0 / (sum_sq / c as f64 + norm.eps as f64).sqrt();
        for ch in 0..c {
            out[ch * area + p] = x[ch * area + p] * inv_rms * norm.w[ch] as f64;
        }
    }
    out
}

/// `m` applied at every point: `[cin][area]` to `[point][cout]`.
fn mat_per_point(m: &Mat, x: &[f64], area: usize) -> Vec<Vec<f64>> {
    (0..area)
        .map(|p| {
            let column: Vec<f64> = (0..m.cin).map(|i| x[i * area + p]).collect();
            mat_ref(m, &column)
        })
        .collect()
}

/// RoPE's angle for pair `pair` of a head whose KV head is `kv_head`, at row `y`, column `x`.
fn rope_angle(a: &Attn, kv_head: usize, pair: usize, y: usize, x: usize) -> f64 {
    let pairs = a.dq / 2;
    match &a.rope {
        Rope::None => 0.0,
        Rope::Learnable { freqs, .. } => {
            let fx = freqs[(kv_head * pairs + pair) * 2] as f64;
            let fy = freqs[(kv_head * pairs + pair) * 2 + 1] as f64;
            x as f64 * fx + y as f64 * fy
        }
        Rope::Fixed { theta, .. } => {
            // The first pairs/2 pairs follow the row, the others the column, each with
            // frequency theta^(-2p / (dq/2)), p counted from the start of its half.
            let per_dim = pairs / 2;
            let dim_half = (a.dq / 2) as f64;
            let theta = *theta as f64;
            if pair < per_dim {
                y as f64 / theta.powf((2 * pair) as f64 / dim_half)
            } else {
                x as f64 / theta.powf((2 * (pair - per_dim)) as f64 / dim_half)
            }
        }
    }
}

/// Rotates the interleaved pairs of every head of `rows` (`[point][heads * dq]`); head `h`
/// takes the angles of KV head `h * kv_heads / heads`.
fn rope_ref(a: &Attn, rows: &mut [Vec<f64>], heads: usize, n: usize) {
    if matches!(a.rope, Rope::None) {
        return;
    }
    for (p, row) in rows.iter_mut().enumerate() {
        let (y, x) = (p / n, p % n);
        for h in 0..heads {
            let kv_head = h * a.kv_heads / heads;
            for pair in 0..a.dq / 2 {
                let angle = rope_angle(a, kv_head, pair, y, x);
                let (sin, cos) = angle.sin_cos();
                let i0 = h * a.dq + 2 * pair;
                let (x0, x1) = (row[i0], row[i0 + 1]);
                row[i0] = x0 * cos - x1 * sin;
                row[i0 + 1] = x0 * sin + x1 * cos;
            }
        }
    }
}

/// Pre-norm self-attention over all points, added to `x` (`[c][area]`).
fn attention_ref(a: &Attn, x: &mut [f64], n: usize) {
    let area = n * n;
    let normed = tnorm_ref(&a.norm, x, area);
    let mut q = mat_per_point(&a.q, &normed, area);
    let mut k = mat_per_point(&a.k, &normed, area);
    let v = mat_per_point(&a.v, &normed, area);
    rope_ref(a, &mut q, a.heads, n);
    rope_ref(a, &mut k, a.kv_heads, n);
    let group = a.heads / a.kv_heads;
    let scale = 1.0 / (a.dq as f64).sqrt();
    // [point][heads * dv]
    let mut attended = vec![vec![0.0; a.heads * a.dv]; area];
    for h in 0..a.heads {
        let kv = h / group;
        for qi in 0..area {
            let scores: Vec<f64> = (0..area)
                .map(|ki| {
                    let mut dot = 0.0;
                    for d in 0..a.dq {
                        dot += q[qi][h * a.dq + d] * k[ki][kv * a.dq + d];
                    }
                    dot * scale
                })
                .collect();
            let max = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let exps: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
            let total: f64 = exps.iter().sum();
            for e in 0..a.dv {
                let mut acc = 0.0;
                for ki in 0..area {
                    acc += exps[ki] / total * v[ki][kv * a.dv + e];
                }
                attended[qi][h * a.dv + e] = acc;
            }
        }
    }
    for (p, row) in attended.iter().enumerate() {
        let o = mat_ref(&a.out, row);
        for (ch, val) in o.iter().enumerate() {
            x[ch * area + p] += val;
        }
    }
}

/// Pre-norm SwiGLU feed-forward, added to `x`: linear2(silu(linear1(n)) * gate(n)).
fn ffn_ref(f: &Ffn, x: &mut [f64], area: usize) {
    let normed = tnorm_ref(&f.norm, x, area);
    let h1 = mat_per_point(&f.l1, &normed, area);
    let gate = mat_per_point(&f.gate, &normed, area);
    for p in 0..area {
        let hidden: Vec<f64> = (0..f.hidden)
            .map(|j| act_ref("ACTIVATION_SILU", h1[p][j]) * gate[p][j])
            .collect();
        let o = mat_ref(&f.l2, &hidden);
        for (ch, val) in o.iter().enumerate() {
            x[ch * area + p] += val;
        }
    }
}

/// The trunk tip's RMSNorm then its activation: the root mean square per point over the
/// channels, or (spatial) one over every point and channel of the board.
fn rms_act_ref(r: &Rms, a: &Act, x: &[f64], area: usize) -> Vec<f64> {
    let c = r.c;
    let mut inv_rms = vec![0.0; area];
    if r.spatial {
        let sum_sq: f64 = x.iter().map(|v| v * v).sum();
        let inv = 1.0 / (sum_sq / (area * c) as f64 + r.eps as f64).sqrt();
        inv_rms.fill(inv);
    } else {
        for (p, inv) in inv_rms.iter_mut().enumerate() {
            let sum_sq: f64 = (0..c).map(|ch| x[ch * area + p] * x[ch * area + p]).sum();
            *inv = 1.0 / (sum_sq / c as f64 + r.eps as f64).sqrt();
        }
    }
    let mut out = vec![0.0; c * area];
    for ch in 0..c {
        for p in 0..area {
            let v = x[ch * area + p] * inv_rms[p] * r.gamma[ch] as f64 + r.beta[ch] as f64;
            out[ch * area + p] = act_ref(a.kind, v);
        }
    }
    out
}

/// The metadata encoder's per-channel trunk bias.
fn meta_ref(m: &MetaEnc, meta: &[f32; 192]) -> Vec<f64> {
    let input: Vec<f64> = meta.iter().map(|&v| v as f64).collect();
    let mut h1 = mat_ref(&m.mul1, &input);
    for (v, b) in h1.iter_mut().zip(&m.bias1.w) {
        *v = act_ref(m.act1.kind, *v + *b as f64);
    }
    let mut h2 = mat_ref(&m.mul2, &h1);
    for (v, b) in h2.iter_mut().zip(&m.bias2.w) {
        *v = act_ref(m.act2.kind, *v + *b as f64);
    }
    mat_ref(&m.mul3, &h2)
}

fn blocks_ref(blocks: &[Block], x: &mut [f64], n: usize) {
    let area = n * n;
    for block in blocks {
        match block {
            Block::Attention(a) => attention_ref(a, x, n),
            Block::Ffn(f) => ffn_ref(f, x, area),
            Block::Ordinary {
                pre_bn,
                pre_act,
                c1,
                mid_bn,
                mid_act,
                c2,
                ..
            } => {
                let a = bn_act_ref(pre_bn, pre_act, x, area);
                let m = bn_act_ref(mid_bn, mid_act, &conv_ref(c1, &a, n), area);
                let r = conv_ref(c2, &m, n);
                x.iter_mut().zip(r).for_each(|(v, r)| *v += r);
            }
            Block::Gpool {
                pre_bn,
                pre_act,
                regular,
                gconv,
                gbn,
                gact,
                gmul,
                mid_bn,
                mid_act,
                c2,
                ..
            } => {
                let a = bn_act_ref(pre_bn, pre_act, x, area);
                let mut reg = conv_ref(regular, &a, n);
                let g = bn_act_ref(gbn, gact, &conv_ref(gconv, &a, n), area);
                let bias = mat_ref(gmul, &pool_ref(&g, gconv.cout, area, false));
                add_channel_bias(&mut reg, &bias, area);
                let m = bn_act_ref(mid_bn, mid_act, &reg, area);
                let r = conv_ref(c2, &m, n);
                x.iter_mut().zip(r).for_each(|(v, r)| *v += r);
            }
            Block::Nested {
                pre_bn,
                pre_act,
                down,
                blocks,
                post_bn,
                post_act,
                up,
                ..
            } => {
                let a = bn_act_ref(pre_bn, pre_act, x, area);
                let mut inner = conv_ref(down, &a, n);
                blocks_ref(blocks, &mut inner, n);
                let p = bn_act_ref(post_bn, post_act, &inner, area);
                let r = conv_ref(up, &p, n);
                x.iter_mut().zip(r).for_each(|(v, r)| *v += r);
            }
        }
    }
}

/// KataGo's symmetry, written independently: flip rows (bit 0), flip columns (bit 1), then
/// transpose (bit 2).
fn sym_ref(s: u8, n: usize, y: usize, x: usize) -> (usize, usize) {
    let fy = if s & 1 == 1 { n - 1 - y } else { y };
    let fx = if s & 2 == 2 { n - 1 - x } else { x };
    if s & 4 == 4 {
        (fx, fy)
    } else {
        (fy, fx)
    }
}

struct RefOut {
    policy: Vec<f64>,
    pass: Vec<f64>,
    value: Vec<f64>,
    score: Vec<f64>,
    ownership: Vec<f64>,
}

fn forward_ref(
    net: &Net,
    spatial: &[f32],
    global: &[f32; 19],
    meta: Option<&[f32; 192]>,
    n: usize,
    sym: u8,
) -> RefOut {
    let area = n * n;
    let mut input = vec![0.0; 22 * area];
    for c in 0..22 {
        for y in 0..n {
            for x in 0..n {
                let (sy, sx) = sym_ref(sym, n, y, x);
                input[c * area + sy * n + sx] = spatial[c * area + y * n + x] as f64;
            }
        }
    }
    let g: Vec<f64> = global.iter().map(|&v| v as f64).collect();
    let mut trunk = conv_ref(&net.init, &input, n);
    add_channel_bias(&mut trunk, &mat_ref(&net.init_mat, &g), area);
    if let Some(enc) = &net.meta {
        let row = meta.expect("a metadata row for a net with an encoder");
        add_channel_bias(&mut trunk, &meta_ref(enc, row), area);
    }
    blocks_ref(&net.blocks, &mut trunk, n);
    let tip = match &net.tip {
        Tip::Bn(b) => bn_act_ref(b, &net.tip_act, &trunk, area),
        Tip::Rms(r) => rms_act_ref(r, &net.tip_act, &trunk, area),
    };

    let mut p1 = conv_ref(&net.p1, &tip, n);
    let g1 = bn_act_ref(&net.g1_bn, &net.g1_act, &conv_ref(&net.g1, &tip, n), area);
    let pooled = pool_ref(&g1, net.g1.cout, area, false);
    add_channel_bias(&mut p1, &mat_ref(&net.g_to_bias, &pooled), area);
    let p1 = bn_act_ref(&net.p1_bn, &net.p1_act, &p1, area);
    let p2 = conv_ref(&net.p2, &p1, n);
    let mut pass = mat_ref(&net.g_to_pass, &pooled);
    if let Some(h) = &net.pass_hidden {
        for (v, b) in pass.iter_mut().zip(&h.bias.w) {
            *v = act_ref(h.act.kind, *v + *b as f64);
        }
        pass = mat_ref(&h.mul2, &pass);
    }

    let v1 = bn_act_ref(&net.v1_bn, &net.v1_act, &conv_ref(&net.v1, &tip, n), area);
    let vpool = pool_ref(&v1, net.v1.cout, area, true);
    let mut v2 = mat_ref(&net.v2, &vpool);
    v2.iter_mut()
        .zip(&net.v2_bias.w)
        .for_each(|(v, b)| *v = act_ref(net.v2_act.kind, *v + *b as f64));
    let mut value = mat_ref(&net.v3, &v2);
    value
        .iter_mut()
        .zip(&net.v3_bias.w)
        .for_each(|(v, b)| *v += *b as f64);
    let mut score = mat_ref(&net.sv3, &v2);
    score
        .iter_mut()
        .zip(&net.sv3_bias.w)
        .for_each(|(v, b)| *v += *b as f64);
    let own = conv_ref(&net.own, &v1, n);

    // Spatial outputs back to board coordinates. Engines use the plain and optimistic
    // policy channels only, not the Q-value channels 2 and 3 of versions 16 and 17.
    let pc = net.p2.cout.min(2);
    pass.truncate(2);
    let mut policy = vec![0.0; pc * area];
    let mut ownership = vec![0.0; area];
    for y in 0..n {
        for x in 0..n {
            let (sy, sx) = sym_ref(sym, n, y, x);
            for ch in 0..pc {
                policy[ch * area + y * n + x] = p2[ch * area + sy * n + sx];
            }
            ownership[y * n + x] = own[sy * n + sx];
        }
    }
    RefOut {
        policy,
        pass,
        value,
        score,
        ownership,
    }
}

// ---------------------------------------------------------------------------------------------
// The comparison.

fn random_input(rng: &mut Rng, n: usize) -> (Vec<f32>, [f32; 19]) {
    let area = n * n;
    let mut spatial = vec![0.0f32; 22 * area];
    spatial[..area].fill(1.0);
    for v in &mut spatial[area..] {
        *v = match rng.below(4) {
            0 => 1.0,
            1 => rng.range(-1.0, 1.0),
            _ => 0.0,
        };
    }
    let mut global = [0.0f32; 19];
    for g in &mut global {
        *g = rng.range(-1.0, 1.0);
    }
    (spatial, global)
}

fn close(what: &str, fast: f32, reference: f64) {
    let tol = 1e-3 * (1.0 + reference.abs());
    assert!(
        (fast as f64 - reference).abs() <= tol && fast.is_finite(),
        "{what}: fast {fast} vs reference {reference}"
    );
}

/// Asserts every output `close`; returns the largest `|fast - ref| / (1 + |ref|)`.
fn check(label: &str, net: &Net, raw: &RawEval, r: &RefOut) -> f64 {
    let mut worst = 0.0f64;
    let mut close = |what: &str, fast: f32, reference: f64| {
        close(what, fast, reference);
        worst = worst.max((fast as f64 - reference).abs() / (1.0 + reference.abs()));
    };
    assert_eq!(raw.policy.len(), r.policy.len(), "{label}: policy length");
    for (i, (&f, &g)) in raw.policy.iter().zip(&r.policy).enumerate() {
        close(&format!("{label} policy[{i}]"), f, g);
    }
    for (i, &g) in r.pass.iter().enumerate() {
        close(&format!("{label} pass[{i}]"), raw.pass[i], g);
    }
    for (i, &g) in r.value.iter().enumerate() {
        close(&format!("{label} value[{i}]"), raw.value[i], g);
    }
    for (i, &g) in r.score.iter().enumerate() {
        close(&format!("{label} score[{i}]"), raw.score[i], g);
    }
    assert_eq!(
        raw.ownership.len(),
        r.ownership.len(),
        "{label}: ownership length"
    );
    for (i, (&f, &g)) in raw.ownership.iter().zip(&r.ownership).enumerate() {
        close(&format!("{label} ownership[{i}]"), f, g);
    }
    assert_eq!(r.score.len(), if net.version >= 9 { 6 } else { 4 });
    worst
}

/// A metadata row: mostly 0 and 1 as a real profile's, some other values.
fn random_meta(rng: &mut Rng) -> [f32; 192] {
    let mut meta = [0.0f32; 192];
    for v in &mut meta {
        *v = match rng.below(5) {
            0 => 1.0,
            1 => rng.range(-1.0, 1.0),
            _ => 0.0,
        };
    }
    meta
}

/// Loads `net` from both formats and diffs the fast path against the reference at several
/// board sizes, batch 1 under every symmetry and batch 7 under mixed ones.
fn diff_against_reference(version: i64, seed: u64) {
    diff_spec(&Spec::conv(version), seed);
}

/// As [`diff_against_reference`] for any [`Spec`]; returns the largest difference seen
/// relative to the tolerance's scale, `|fast - ref| / (1 + |ref|)`.
fn diff_spec(spec: &Spec, seed: u64) -> f64 {
    let version = spec.version;
    let net = random_net_spec(spec, seed);
    let bytes_txt = model_bytes(&net, false);
    let bytes_bin = model_bytes(&net, true);
    let files = [
        temp_file(&format!("v{version}-{seed}.txt.gz"), &gzip(&bytes_txt)),
        temp_file(&format!("v{version}-{seed}.bin.gz"), &gzip(&bytes_bin)),
    ];
    let mut rng = Rng(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut cases = Vec::new();
    for file in &files {
        let loaded = Network::load(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        cases.push((file.display().to_string(), loaded));
    }
    // The im2col path for 3x3 convolutions too (Network::load uses Winograd).
    let desc = ModelDesc::load(&files[1]).expect("parse");
    assert_eq!(desc.meta_encoder_version, spec.meta as i64);
    assert_eq!(desc.prefer_pass_alive_under_suicide, spec.prefer_pass_alive);
    assert_eq!(desc.policy_channels(), spec.policy_channels);
    cases.push((
        format!("{} (im2col)", files[1].display()),
        Network::from_model_with(&desc, false),
    ));
    let mut worst = 0.0f64;
    for (label, loaded) in &cases {
        assert_eq!(loaded.version(), version);
        assert_eq!(loaded.name(), format!("testnet-v{version}"));
        assert_eq!(loaded.needs_metadata(), spec.meta);
        if version >= 13 {
            let pp = loaded.post_process();
            assert_eq!(pp.score_mean_multiplier, net.multipliers[1]);
            assert_eq!(pp.shortterm_score_error_multiplier, net.multipliers[6]);
        }
        let mut ws = Workspace::new(loaded, 7, 13);
        let mut out = vec![RawEval::new(); 7];
        for n in [5usize, 9, 13] {
            let (spatial, global) = random_input(&mut rng, n);
            let meta = random_meta(&mut rng);
            // Nets without an encoder get no row here, and ignore the rows of the batch below.
            let own_meta = spec.meta.then_some(&meta);
            for sym in 0..8u8 {
                let input = NetInput {
                    width: n,
                    height: n,
                    spatial: &spatial,
                    global: &global,
                    meta: own_meta,
                };
                loaded
                    .evaluate(&mut ws, &[input], &[sym], &mut out[..1])
                    .expect("evaluate");
                let r = forward_ref(&net, &spatial, &global, own_meta, n, sym);
                worst = worst.max(check(
                    &format!("{label} n={n} sym={sym} batch 1"),
                    &net,
                    &out[0],
                    &r,
                ));
            }
            let batch: Vec<(Vec<f32>, [f32; 19], [f32; 192])> = (0..7)
                .map(|_| {
                    let (s, g) = random_input(&mut rng, n);
                    (s, g, random_meta(&mut rng))
                })
                .collect();
            let inputs: Vec<NetInput> = batch
                .iter()
                .map(|(s, g, m)| NetInput {
                    width: n,
                    height: n,
                    spatial: s,
                    global: g,
                    meta: Some(m),
                })
                .collect();
            let syms: Vec<u8> = (0..7).map(|i| ((i * 3 + 1) % 8) as u8).collect();
            loaded
                .evaluate(&mut ws, &inputs, &syms, &mut out)
                .expect("evaluate");
            for i in 0..7 {
                let (s, g, m) = &batch[i];
                let r = forward_ref(&net, s, g, Some(m), n, syms[i]);
                worst = worst.max(check(
                    &format!("{label} n={n} batch 7 item {i}"),
                    &net,
                    &out[i],
                    &r,
                ));
            }
        }
    }
    worst
}

#[test]
fn version_8_plain_residual_with_5x5_input_conv() {
    diff_against_reference(8, 11);
}

#[test]
fn version_10_six_score_outputs() {
    diff_against_reference(10, 12);
}

#[test]
fn version_11_activation_kinds() {
    diff_against_reference(11, 13);
    diff_against_reference(11, 14);
}

#[test]
fn version_14_nested_bottleneck_and_optimistic_policy() {
    diff_against_reference(14, 15);
    diff_against_reference(14, 16);
}

#[test]
fn version_15_conv_net_with_the_pass_hidden_layer_and_bn_tip() {
    // Random activation kinds, Mish and SiLU among them, the pass head's included.
    for seed in [61, 62] {
        let worst = diff_spec(&Spec::conv(15), seed);
        eprintln!("v15 conv seed {seed}: worst scaled difference {worst:.2e}");
    }
}

#[test]
fn version_15_nested_transformer_like_b10c384h6nbttflrs() {
    for seed in [71, 72] {
        let worst = diff_spec(&v15_transformer(), seed);
        eprintln!("v15 transformer seed {seed}: worst scaled difference {worst:.2e}");
    }
}

#[test]
fn version_16_four_policy_channels() {
    let worst = diff_spec(&Spec::conv(16), 81);
    eprintln!("v16 conv: worst scaled difference {worst:.2e}");
    // A v16 transformer with a per-point RMSNorm tip, asking for pass-alive under suicide.
    let spec = Spec {
        version: 16,
        policy_channels: 4,
        tip: TipKind::Rms { spatial: false },
        prefer_pass_alive: true,
        ..v15_transformer()
    };
    let worst = diff_spec(&spec, 82);
    eprintln!("v16 transformer: worst scaled difference {worst:.2e}");
}

#[test]
fn version_17_policy_channels_gqa_fixed_and_no_rope() {
    // Two policy channels; grouped-query attention with fixed RoPE (an odd and an even
    // number of pairs); a per-point RMSNorm tip.
    let fixed = Spec {
        version: 17,
        attn: &[GQA_FIXED, GQA_FIXED_EVEN],
        tip: TipKind::Rms { spatial: false },
        ..v15_transformer()
    };
    let worst = diff_spec(&fixed, 91);
    eprintln!("v17 GQA fixed RoPE, 2 channels: worst scaled difference {worst:.2e}");
    // Four policy channels; GQA with learnable RoPE, multi-query without RoPE, and an
    // attention, an FFN and a gpool block straight in the trunk; random activations.
    let mixed = Spec {
        version: 17,
        attn: &[GQA_LEARNABLE, MQA_NO_ROPE],
        top_level: true,
        policy_channels: 4,
        silu: false,
        prefer_pass_alive: true,
        ..v15_transformer()
    };
    let worst = diff_spec(&mixed, 92);
    eprintln!("v17 GQA learnable + MQA no RoPE, 4 channels: worst scaled difference {worst:.2e}");
    // Plain convolution nets of version 17 with both channel counts.
    for (policy_channels, seed) in [(2, 93), (4, 94)] {
        let spec = Spec {
            policy_channels,
            ..Spec::conv(17)
        };
        let worst = diff_spec(&spec, seed);
        eprintln!("v17 conv, {policy_channels} channels: worst scaled difference {worst:.2e}");
    }
}

#[test]
fn version_15_metadata_encoder() {
    let worst = diff_spec(&v15_meta(), 101);
    eprintln!("v15 metadata encoder: worst scaled difference {worst:.2e}");
    // And on a transformer.
    let spec = Spec {
        meta: true,
        ..v15_transformer()
    };
    let worst = diff_spec(&spec, 102);
    eprintln!("v15 transformer + metadata encoder: worst scaled difference {worst:.2e}");
}

#[test]
fn a_metadata_net_without_a_metadata_row_is_an_error() {
    let net = random_net_spec(&v15_meta(), 111);
    let loaded = Network::load(temp_file(
        "meta-none.bin.gz",
        &gzip(&model_bytes(&net, true)),
    ))
    .expect("load");
    assert!(loaded.needs_metadata());
    let n = 9;
    let mut rng = Rng(7);
    let (spatial, global) = random_input(&mut rng, n);
    let meta = random_meta(&mut rng);
    let mut ws = Workspace::new(&loaded, 2, n);
    let mut out = vec![RawEval::new(); 2];
    let with = NetInput {
        width: n,
        height: n,
        spatial: &spatial,
        global: &global,
        meta: Some(&meta),
    };
    let without = NetInput { meta: None, ..with };
    assert!(loaded
        .evaluate(&mut ws, &[without], &[0], &mut out[..1])
        .is_err());
    // One row missing in a batch fails the batch.
    assert!(loaded
        .evaluate(&mut ws, &[with, without], &[0, 0], &mut out)
        .is_err());
    // The workspace still works afterwards.
    loaded
        .evaluate(&mut ws, &[with], &[3], &mut out[..1])
        .expect("evaluate with a row");
    let r = forward_ref(&net, &spatial, &global, Some(&meta), n, 3);
    check("after the errors", &net, &out[0], &r);
}

#[test]
fn fast_exp_matches_exp_over_the_float_range() {
    use tengen::nn::kernels::vecmath::fast_exp;
    let steps = 1_000_000;
    let mut worst = 0.0f64;
    for i in 0..=steps {
        let x = -87.0 + 175.0 * (i as f64 / steps as f64);
        let x = x as f32;
        let want = (x as f64).exp();
        let got = fast_exp(x) as f64;
        let rel = (got - want).abs() / want;
        assert!(
            rel < 1e-6,
            "fast_exp({x}) = {got}, exp = {want}, relative error {rel}"
        );
        worst = worst.max(rel);
    }
    for x in [-87.0f32, -1e-30, 0.0, 1e-30, 88.0] {
        let want = (x as f64).exp();
        let rel = (fast_exp(x) as f64 - want).abs() / want;
        assert!(rel < 1e-6, "fast_exp({x}): relative error {rel}");
    }
    eprintln!("fast_exp: worst relative error {worst:.2e}");
}

#[test]
fn symmetry_matches_katago_numbering_on_a_single_stone() {
    // A net's outputs follow its input: a lone marked point at (y=0, x=1) on 5x5 seen under
    // symmetry 6 (flip x, then transpose) sits at (3, 0) for the net, so under symmetry 6 the
    // board at (0,1) must get what symmetry 0 gives for a stone at (3,0).
    let net = random_net(11, 21);
    let loaded =
        Network::load(temp_file("sym.bin.gz", &gzip(&model_bytes(&net, true)))).expect("load");
    let n = 5;
    let area = n * n;
    let mut a = vec![0.0f32; 22 * area];
    a[..area].fill(1.0);
    let mut b = a.clone();
    a[area + 1] = 1.0;
    b[area + 3 * n] = 1.0;
    let global = [0.1f32; 19];
    let mut ws = Workspace::new(&loaded, 1, n);
    let mut out_a = [RawEval::new()];
    let mut out_b = [RawEval::new()];
    loaded
        .evaluate(
            &mut ws,
            &[NetInput {
                width: n,
                height: n,
                spatial: &a,
                global: &global,
                meta: None,
            }],
            &[6],
            &mut out_a,
        )
        .expect("eval");
    loaded
        .evaluate(
            &mut ws,
            &[NetInput {
                width: n,
                height: n,
                spatial: &b,
                global: &global,
                meta: None,
            }],
            &[0],
            &mut out_b,
        )
        .expect("eval");
    for (i, v) in out_a[0].value.iter().enumerate() {
        assert!((v - out_b[0].value[i]).abs() < 1e-4, "value {i}");
    }
}

// ---------------------------------------------------------------------------------------------
// Post-processing.

#[test]
fn postprocess_masks_illegal_moves_and_scales_scores() {
    for version in [8i64, 14] {
        let net = random_net(version, 31);
        let loaded = Network::load(temp_file(
            &format!("pp{version}.bin.gz"),
            &gzip(&model_bytes(&net, true)),
        ))
        .expect("load");
        let n = 9;
        let mut rng = Rng(5);
        let (spatial, global) = random_input(&mut rng, n);
        let mut ws = Workspace::new(&loaded, 1, n);
        let mut raw = [RawEval::new()];
        loaded
            .evaluate(
                &mut ws,
                &[NetInput {
                    width: n,
                    height: n,
                    spatial: &spatial,
                    global: &global,
                    meta: None,
                }],
                &[0],
                &mut raw,
            )
            .expect("eval");
        let mut legal = vec![true; n * n + 1];
        legal[0] = false;
        legal[40] = false;
        let mut e = NetEval::new();
        let opts = PostProcessOptions {
            policy_optimism: 0.5,
            no_result_possible: false,
        };
        postprocess(&loaded, &raw[0], Color::White, &legal, &opts, &mut e);
        assert!(e.policy[0].is_nan() && e.policy[40].is_nan());
        let sum: f64 = e
            .policy
            .iter()
            .filter(|p| !p.is_nan())
            .map(|&p| p as f64)
            .sum::<f64>()
            + e.pass_policy as f64;
        assert!((sum - 1.0).abs() < 1e-5, "policy sums to {sum}");
        // Reference policy with the optimism blend done here.
        let area = n * n;
        let logit = |i: usize| -> f64 {
            let (p, q) = if i == area {
                (raw[0].pass[0], raw[0].pass[1])
            } else if version >= 12 {
                (raw[0].policy[i], raw[0].policy[area + i])
            } else {
                (raw[0].policy[i], raw[0].policy[i])
            };
            let opt = if version >= 12 { 0.5 } else { 0.0 };
            p as f64 + (q as f64 - p as f64) * opt
        };
        let z: f64 = (0..=area)
            .filter(|&i| legal[i])
            .map(|i| logit(i).exp())
            .sum();
        close("policy[1]", e.policy[1], logit(1).exp() / z);
        close("pass", e.pass_policy, logit(area).exp() / z);
        assert_eq!(e.no_result, 0.0);
        assert!((e.win + e.loss - 1.0).abs() < 1e-6);
        let mult = if version >= 13 {
            net.multipliers[3]
        } else {
            20.0
        };
        close("lead", e.lead, raw[0].score[2] as f64 * mult);
        if version == 8 {
            assert_eq!((e.var_time_left, e.shortterm_winloss_error), (-1.0, -1.0));
        } else {
            assert!(e.var_time_left > 0.0 && e.shortterm_score_error > 0.0);
        }
        close(
            "ownership",
            e.ownership[7],
            (raw[0].ownership[7] as f64).tanh(),
        );
        let black = e.to_view(Color::Black);
        assert_eq!(
            (black.win, black.loss, black.lead),
            (e.loss, e.win, -e.lead)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Hostile files.

fn parse_err(bytes: &[u8], binary: bool) -> String {
    match ModelDesc::parse(bytes, binary) {
        Ok(_) => panic!("parsed a broken model"),
        Err(e) => e.message,
    }
}

#[test]
fn truncated_models_are_errors_at_every_offset() {
    let v15_transformer_meta = Spec {
        meta: true,
        ..v15_transformer()
    };
    let v17 = Spec {
        version: 17,
        attn: &[GQA_LEARNABLE, GQA_FIXED, MQA_NO_ROPE],
        top_level: true,
        policy_channels: 4,
        ..v15_transformer()
    };
    let nets = [
        random_net(14, 41),
        random_net_spec(&v15_transformer_meta, 42),
        random_net_spec(&v17, 43),
    ];
    for (net, binary) in nets.iter().flat_map(|n| [(n, false), (n, true)]) {
        let bytes = model_bytes(net, binary);
        assert!(ModelDesc::parse(&bytes, binary).is_ok());
        // Every cut before the last token's start loses at least one token (a cut inside the
        // last text float would still leave a valid, shorter number).
        let trimmed = bytes.trim_ascii_end();
        let last_token = trimmed
            .iter()
            .rposition(|b| b.is_ascii_whitespace())
            .map_or(0, |p| p + 1);
        let end = if binary { bytes.len() - 1 } else { last_token };
        let step = (end / 400).max(1);
        for cut in (0..end).step_by(step).chain([end - 1]) {
            let msg = parse_err(&bytes[..cut], binary);
            assert!(msg.contains("offset"), "cut {cut}: {msg}");
        }
        // Truncated gzip too.
        let gz = gzip(&bytes);
        for cut in [0, 5, 10, gz.len() / 2, gz.len() - 3] {
            let path = temp_file(
                &format!("cut{cut}-{binary}-v{}.bin.gz", net.version),
                &gz[..cut],
            );
            assert!(Network::load(&path).is_err(), "gzip cut at {cut}");
        }
    }
}

#[test]
fn corrupt_counts_versions_and_formats_are_errors() {
    let text = String::from_utf8(model_bytes(&random_net(11, 51), false)).expect("utf8");
    // Absurd channel counts in the trunk header and in a conv: no huge allocation, an error.
    for (from, to) in [
        ("trunk 3 8 ", "trunk 3 999999999 "),
        ("trunk 3 8 ", "trunk 3 4000 "),
        (" 3 3 8 6 1 1", " 3 3 4000 4000 1 1"),
        (" 3 3 8 6 1 1", " 9 9 4096 4096 1 1"),
        (" 3 3 8 6 1 1", " 3 3 8 -6 1 1"),
        (" 3 3 8 6 1 1", " 3 3 8 6 2 1"),
        (" 3 3 8 6 1 1", " 2 2 8 6 1 1"),
        (" 3 3 8 6 1 1", " 3 3 8 7 1 1"),
        ("ACTIVATION_", "ACTIVATION_BOGUS_"),
        ("ordinary_block", "fancy_block"),
    ] {
        assert!(text.contains(from), "{from}");
        let broken = text.replacen(from, to, 1);
        let msg = parse_err(broken.as_bytes(), false);
        assert!(msg.contains("offset"), "{to}: {msg}");
    }
    for v in [0, 7, 18, -3] {
        let broken = text.replacen("\n11\n", &format!("\n{v}\n"), 1);
        let msg = parse_err(broken.as_bytes(), false);
        assert!(
            msg.contains(&format!("version {v}")) && msg.contains("8..=17"),
            "{msg}"
        );
    }
    // Binary blocks: wrong counts read into the next layer or past the end.
    let bin = model_bytes(&random_net(8, 52), true);
    let mut corrupt = bin.clone();
    let at = bin.windows(5).position(|w| w == b"@BIN@").expect("a block");
    corrupt[at + 5..at + 9].copy_from_slice(&f32::NAN.to_le_bytes());
    assert!(parse_err(&corrupt, true).contains("NaN"));
    // A text model read as binary and the reverse.
    assert!(ModelDesc::parse(text.as_bytes(), true).is_err());
    assert!(ModelDesc::parse(&bin, false).is_err());
    // Not gzip, empty, random bytes.
    for (name, bytes) in [
        ("junk.bin.gz", b"hello world".to_vec()),
        ("empty.bin.gz", Vec::new()),
        (
            "rnd.txt.gz",
            (0..4000u32).map(|i| (i * 7919 % 251) as u8).collect(),
        ),
    ] {
        let err = Network::load(temp_file(name, &bytes)).expect_err("junk loads");
        assert!(!err.message.is_empty());
    }
    let missing = Network::load(Path::new("/nonexistent/model.bin.gz")).expect_err("missing file");
    assert!(missing.message.contains("cannot open"));
}

#[test]
fn version_18_guard_slots_and_non_swiglu_are_errors() {
    let spec = Spec {
        version: 17,
        attn: &[GQA_LEARNABLE],
        meta: true,
        ..v15_transformer()
    };
    let fresh = || random_net_spec(&spec, 121);
    for binary in [false, true] {
        assert!(ModelDesc::parse(&model_bytes(&fresh(), binary), binary).is_ok());
        // A version-17 layout marked 18.
        let mut net = fresh();
        net.version = 18;
        let msg = parse_err(&model_bytes(&net, binary), binary);
        assert!(msg.contains("version 18"), "{msg}");
        // Every guard slot, non-zero: the header's six (C..H), the trunk's five (B..F), the
        // policy and value heads' three each.
        for slot in 0..17 {
            let mut net = fresh();
            match slot {
                0..=5 => net.header_opts[2 + slot] = 7,
                6..=10 => net.trunk_opts[1 + slot - 6] = 7,
                11..=13 => net.policy_opts[slot - 11] = 7,
                _ => net.value_opts[slot - 14] = 7,
            }
            let msg = parse_err(&model_bytes(&net, binary), binary);
            assert!(
                msg.contains("offset") && msg.contains("option") && msg.contains('7'),
                "slot {slot}: {msg}"
            );
        }
        // Out-of-range values of the used slots: metaEncoderVersion 2,
        // preferPassAliveUnderSuicideRules 2, trunk norm kind 2.
        for (what, edit) in [
            (
                "metaEncoderVersion",
                (|n: &mut Net| n.header_opts[0] = 2) as fn(&mut Net),
            ),
            ("preferPassAlive", |n: &mut Net| n.header_opts[1] = 2),
            ("trunk norm kind", |n: &mut Net| n.trunk_opts[0] = 2),
            ("trunk norm kind -1", |n: &mut Net| n.trunk_opts[0] = -1),
        ] {
            let mut net = fresh();
            edit(&mut net);
            let msg = parse_err(&model_bytes(&net, binary), binary);
            assert!(msg.contains("offset"), "{what}: {msg}");
        }
        // A non-SwiGLU FFN (the file then has no gate).
        let mut net = fresh();
        let Block::Nested { blocks, .. } = &mut net.blocks[0] else {
            panic!("a nested block first")
        };
        let Block::Ffn(f) = &mut blocks[1] else {
            panic!("an FFN second")
        };
        f.swiglu = false;
        let msg = parse_err(&model_bytes(&net, binary), binary);
        assert!(msg.contains("SwiGLU"), "{msg}");
    }
    // policyOutChannels other than 2 or 4.
    let text = String::from_utf8(model_bytes(&fresh(), false)).expect("utf8");
    assert!(text.contains("policyhead\n2 0 0 0\n"));
    for bad in ["3", "1", "0", "-2", "5"] {
        let broken = text.replacen("policyhead\n2 ", &format!("policyhead\n{bad} "), 1);
        let msg = parse_err(broken.as_bytes(), false);
        assert!(msg.contains("policyOutChannels"), "{bad}: {msg}");
    }
    // Grouped spatial RMSNorm at the tip (cgroupSize != 0).
    let tip_name = match &fresh().tip {
        Tip::Rms(r) => r.name.clone(),
        Tip::Bn(_) => unreachable!(),
    };
    let header = format!("{tip_name} 8 0.000001 1 0\n");
    assert!(text.contains(&header), "{header}");
    let broken = text.replacen(&header, &format!("{tip_name} 8 0.000001 1 4\n"), 1);
    assert!(parse_err(broken.as_bytes(), false).contains("offset"));
    // The metadata encoder's input count must be 192.
    let broken = text.replacen(" 192\n", " 191\n", 1);
    assert!(parse_err(broken.as_bytes(), false).contains("offset"));
}

// ---------------------------------------------------------------------------------------------
// The real net.

#[test]
fn real_b6c96_net_runs_on_an_empty_board() {
    let Some(path) = crate::common::b6c96_path() else {
        return;
    };
    let net = Network::load(&path).expect("load b6c96");
    assert_eq!(net.version(), 8);
    assert_eq!(net.trunk_channels(), 96);
    let n = 19;
    let area = n * n;
    let mut spatial = vec![0.0f32; 22 * area];
    spatial[..area].fill(1.0);
    let mut global = [0.0f32; 19];
    global[5] = -7.5 / 20.0;
    let mut ws = Workspace::new(&net, 2, n);
    let mut raw = vec![RawEval::new(); 2];
    let input = NetInput {
        width: n,
        height: n,
        spatial: &spatial,
        global: &global,
        meta: None,
    };
    net.evaluate(&mut ws, &[input, input], &[0, 5], &mut raw)
        .expect("evaluate");
    let legal = vec![true; area + 1];
    let mut e = NetEval::new();
    postprocess(
        &net,
        &raw[0],
        Color::Black,
        &legal,
        &PostProcessOptions::default(),
        &mut e,
    );
    let sum: f32 = e.policy.iter().sum::<f32>() + e.pass_policy;
    assert!((sum - 1.0).abs() < 1e-4, "policy sums to {sum}");
    assert!(e.policy.iter().chain(&e.ownership).all(|v| v.is_finite()));
    assert!(e.win.is_finite() && e.lead.is_finite() && e.score_mean.is_finite());
    // The 4-4 point carries a real prior; the second board (symmetry 5) is finite too.
    assert!(
        e.policy[3 * n + 3] > 0.001,
        "4-4 prior {}",
        e.policy[3 * n + 3]
    );
    assert!(raw[1]
        .policy
        .iter()
        .chain(&raw[1].ownership)
        .all(|v| v.is_finite()));
}

/// `Evaluator::evaluate_batch` gives each game of a batch what
/// `Evaluator::evaluate` gives it alone: different positions, both colours
/// to move, different symmetries, one forward pass.
#[test]
fn a_batch_evaluates_each_game_as_a_single_call_does() {
    use std::sync::Arc;
    use tengen::nn::Evaluator;
    use tengen::{Game, Geometry, Move, Preset};
    let Some(path) = crate::common::b6c96_path() else {
        return;
    };
    let net = Arc::new(Network::load(&path).expect("load b6c96"));
    let g = Geometry::new(9).unwrap();
    let mut games = Vec::new();
    for moves in [
        &[][..],
        &[(2, 2), (6, 6)][..],
        &[(4, 4), (3, 4), (4, 3)][..],
    ] {
        let mut game = Game::new(g, Preset::Chinese.rules(), 7.5);
        for &(x, y) in moves {
            let c = game.to_move();
            game.play(c, Move::Play(g.point(x, y).unwrap())).unwrap();
        }
        games.push(game);
    }
    let symmetries = [0u8, 3, 6];
    let mut batch = Evaluator::with_batch(net.clone(), 4);
    let mut together = vec![NetEval::new(); 3];
    let refs: Vec<&Game> = games.iter().collect();
    batch
        .evaluate_batch(&refs, &symmetries, 0.0, &mut together)
        .expect("batch");
    let mut single = Evaluator::new(net);
    for (i, game) in games.iter().enumerate() {
        let mut alone = NetEval::new();
        single
            .evaluate(game, symmetries[i], 0.0, &mut alone)
            .expect("single");
        let b = &together[i];
        assert_eq!(b.view, alone.view, "game {i}");
        let close = |x: f32, y: f32| (x - y).abs() <= 1e-5 || (x.is_nan() && y.is_nan());
        assert!(
            close(b.win, alone.win) && close(b.loss, alone.loss),
            "game {i}"
        );
        assert!(close(b.score_mean, alone.score_mean), "game {i}");
        assert!(close(b.pass_policy, alone.pass_policy), "game {i}");
        for (x, y) in b.policy.iter().zip(&alone.policy) {
            assert!(close(*x, *y), "game {i}: policy {x} vs {y}");
        }
        for (x, y) in b.ownership.iter().zip(&alone.ownership) {
            assert!(close(*x, *y), "game {i}: ownership {x} vs {y}");
        }
    }
    // More games than the batch holds, or mixed sizes: an error, not a panic.
    let small = Game::new(Geometry::new(7).unwrap(), Preset::Chinese.rules(), 7.5);
    assert!(batch
        .evaluate_batch(&[&games[0], &small], &[0, 0], 0.0, &mut together)
        .is_err());
    let five: Vec<&Game> = std::iter::repeat_n(&games[0], 5).collect();
    let mut out = vec![NetEval::new(); 5];
    assert!(batch.evaluate_batch(&five, &[0; 5], 0.0, &mut out).is_err());
}
