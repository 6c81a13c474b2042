//! The fast forward pass against a naive one: small random nets written here in KataGo's
//! `.txt.gz` and `.bin.gz` formats, loaded by `tengen::nn`, and evaluated both ways — the
//! reference below is direct convolution in f64 straight from the unfolded layers, with its own
//! symmetry mapping. Also: hostile files give errors, and the real b6c96 net runs.

use std::io::Write;
use std::path::{Path, PathBuf};

use tengen::nn::{
    postprocess, ModelDesc, NetEval, NetInput, Network, PostProcessOptions, RawEval, Workspace,
};
use tengen::Color;

// ---------------------------------------------------------------------------------------------
// Random nets.

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in [lo, hi).
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }
    fn vec(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.range(lo, hi)).collect()
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

struct Conv {
    name: String,
    ky: usize,
    kx: usize,
    cin: usize,
    cout: usize,
    w: Vec<f32>,
}

struct Bn {
    name: String,
    c: usize,
    eps: f32,
    mean: Vec<f32>,
    var: Vec<f32>,
    scale: Option<Vec<f32>>,
    bias: Option<Vec<f32>>,
}

struct Act {
    name: String,
    kind: &'static str,
}

struct Mat {
    name: String,
    cin: usize,
    cout: usize,
    w: Vec<f32>,
}

struct Bias {
    name: String,
    w: Vec<f32>,
}

#[allow(clippy::large_enum_variant)] // test data, a handful per net
enum Block {
    Ordinary {
        name: String,
        pre_bn: Bn,
        pre_act: Act,
        c1: Conv,
        mid_bn: Bn,
        mid_act: Act,
        c2: Conv,
    },
    Gpool {
        name: String,
        pre_bn: Bn,
        pre_act: Act,
        regular: Conv,
        gconv: Conv,
        gbn: Bn,
        gact: Act,
        gmul: Mat,
        mid_bn: Bn,
        mid_act: Act,
        c2: Conv,
    },
    Nested {
        name: String,
        pre_bn: Bn,
        pre_act: Act,
        down: Conv,
        blocks: Vec<Block>,
        post_bn: Bn,
        post_act: Act,
        up: Conv,
    },
}

struct Net {
    version: i64,
    multipliers: [f64; 7],
    trunk_c: usize,
    init: Conv,
    init_mat: Mat,
    blocks: Vec<Block>,
    tip_bn: Bn,
    tip_act: Act,
    p1: Conv,
    g1: Conv,
    g1_bn: Bn,
    g1_act: Act,
    g_to_bias: Mat,
    p1_bn: Bn,
    p1_act: Act,
    p2: Conv,
    g_to_pass: Mat,
    v1: Conv,
    v1_bn: Bn,
    v1_act: Act,
    v2: Mat,
    v2_bias: Bias,
    v2_act: Act,
    v3: Mat,
    v3_bias: Bias,
    sv3: Mat,
    sv3_bias: Bias,
    own: Conv,
}

const KINDS: [&str; 4] = [
    "ACTIVATION_RELU",
    "ACTIVATION_MISH",
    "ACTIVATION_SILU",
    "ACTIVATION_IDENTITY",
];

struct Gen {
    rng: Rng,
    version: i64,
    counter: usize,
}

impl Gen {
    fn name(&mut self, what: &str) -> String {
        self.counter += 1;
        format!("{what}{}", self.counter)
    }
    fn conv(&mut self, k: usize, cin: usize, cout: usize) -> Conv {
        let bound = 1.5 / ((k * k * cin) as f32).sqrt();
        Conv {
            name: self.name("conv"),
            ky: k,
            kx: k,
            cin,
            cout,
            w: self.rng.vec(k * k * cin * cout, -bound, bound),
        }
    }
    fn bn(&mut self, c: usize) -> Bn {
        let has_scale = self.rng.below(4) != 0;
        let has_bias = self.rng.below(4) != 0;
        Bn {
            name: self.name("norm"),
            c,
            eps: 1e-3,
            mean: self.rng.vec(c, -0.5, 0.5),
            var: self.rng.vec(c, 0.5, 1.5),
            scale: has_scale.then(|| self.rng.vec(c, 0.5, 1.5)),
            bias: has_bias.then(|| self.rng.vec(c, -0.5, 0.5)),
        }
    }
    fn act(&mut self) -> Act {
        let kind = if self.version >= 11 {
            KINDS[self.rng.below(4)]
        } else {
            "ACTIVATION_RELU"
        };
        Act {
            name: self.name("act"),
            kind,
        }
    }
    fn mat(&mut self, cin: usize, cout: usize) -> Mat {
        let bound = 1.5 / (cin as f32).sqrt();
        Mat {
            name: self.name("mat"),
            cin,
            cout,
            w: self.rng.vec(cin * cout, -bound, bound),
        }
    }
    fn bias(&mut self, c: usize) -> Bias {
        Bias {
            name: self.name("bias"),
            w: self.rng.vec(c, -0.5, 0.5),
        }
    }
    fn ordinary(&mut self, c: usize, mid: usize) -> Block {
        Block::Ordinary {
            name: self.name("block"),
            pre_bn: self.bn(c),
            pre_act: self.act(),
            c1: self.conv(3, c, mid),
            mid_bn: self.bn(mid),
            mid_act: self.act(),
            c2: self.conv(3, mid, c),
        }
    }
    fn gpool(&mut self, c: usize, regular: usize, gp: usize) -> Block {
        Block::Gpool {
            name: self.name("gblock"),
            pre_bn: self.bn(c),
            pre_act: self.act(),
            regular: self.conv(3, c, regular),
            gconv: self.conv(3, c, gp),
            gbn: self.bn(gp),
            gact: self.act(),
            gmul: self.mat(3 * gp, regular),
            mid_bn: self.bn(regular),
            mid_act: self.act(),
            c2: self.conv(3, regular, c),
        }
    }
    fn nested(&mut self, c: usize, mid: usize, inner: Vec<Block>) -> Block {
        Block::Nested {
            name: self.name("nblock"),
            pre_bn: self.bn(c),
            pre_act: self.act(),
            down: self.conv(1, c, mid),
            blocks: inner,
            post_bn: self.bn(mid),
            post_act: self.act(),
            up: self.conv(1, mid, c),
        }
    }
}

/// A small random net of `version`; v14 gets nested bottleneck blocks (one nested twice).
fn random_net(version: i64, seed: u64) -> Net {
    let mut g = Gen {
        rng: Rng(seed),
        version,
        counter: 0,
    };
    let c = 8;
    let blocks = if version >= 14 {
        let inner_deep = vec![g.ordinary(4, 3)];
        let deeper = g.nested(5, 4, inner_deep);
        let first_inner = vec![g.ordinary(5, 6), g.gpool(5, 4, 3), deeper];
        let first = g.nested(c, 5, first_inner);
        let second = g.ordinary(c, 6);
        let last_inner = vec![g.gpool(6, 5, 2), g.ordinary(6, 6)];
        let last = g.nested(c, 6, last_inner);
        vec![first, second, last]
    } else {
        vec![g.ordinary(c, 6), g.gpool(c, 6, 3), g.ordinary(c, 7)]
    };
    let policy_channels = if version >= 12 { 2 } else { 1 };
    let score_channels = if version >= 9 { 6 } else { 4 };
    let init_k = if version == 8 { 5 } else { 3 };
    Net {
        version,
        multipliers: [20.0, 21.0, 22.0, 23.0, 41.0, 0.3, 31.0],
        trunk_c: c,
        init: g.conv(init_k, 22, c),
        init_mat: g.mat(19, c),
        blocks,
        tip_bn: g.bn(c),
        tip_act: g.act(),
        p1: g.conv(1, c, 5),
        g1: g.conv(1, c, 4),
        g1_bn: g.bn(4),
        g1_act: g.act(),
        g_to_bias: g.mat(12, 5),
        p1_bn: g.bn(5),
        p1_act: g.act(),
        p2: g.conv(1, 5, policy_channels),
        g_to_pass: g.mat(12, policy_channels),
        v1: g.conv(1, c, 4),
        v1_bn: g.bn(4),
        v1_act: g.act(),
        v2: g.mat(12, 6),
        v2_bias: g.bias(6),
        v2_act: g.act(),
        v3: g.mat(6, 3),
        v3_bias: g.bias(3),
        sv3: g.mat(6, score_channels),
        sv3_bias: g.bias(score_channels),
        own: g.conv(1, 4, 1),
    }
}

// ---------------------------------------------------------------------------------------------
// Writing KataGo's formats.

struct Writer {
    out: Vec<u8>,
    binary: bool,
    version: i64,
}

impl Writer {
    fn tok(&mut self, t: impl std::fmt::Display) {
        writeln!(self.out, "{t}").expect("write to Vec");
    }
    fn floats(&mut self, v: &[f32]) {
        if self.binary {
            self.out.extend_from_slice(b"@BIN@");
            for x in v {
                self.out.extend_from_slice(&x.to_le_bytes());
            }
            self.out.push(b'\n');
        } else {
            for x in v {
                write!(self.out, "{x} ").expect("write to Vec");
            }
            self.out.push(b'\n');
        }
    }
    fn conv(&mut self, c: &Conv) {
        self.tok(format!(
            "{} {} {} {} {} 1 1",
            c.name, c.ky, c.kx, c.cin, c.cout
        ));
        self.floats(&c.w);
    }
    fn bn(&mut self, b: &Bn) {
        self.tok(format!(
            "{} {} {} {} {}",
            b.name,
            b.c,
            b.eps,
            b.scale.is_some() as u8,
            b.bias.is_some() as u8
        ));
        self.floats(&b.mean);
        self.floats(&b.var);
        if let Some(s) = &b.scale {
            self.floats(s);
        }
        if let Some(s) = &b.bias {
            self.floats(s);
        }
    }
    fn act(&mut self, a: &Act) {
        if self.version >= 11 {
            self.tok(format!("{} {}", a.name, a.kind));
        } else {
            self.tok(&a.name);
        }
    }
    fn mat(&mut self, m: &Mat) {
        self.tok(format!("{} {} {}", m.name, m.cin, m.cout));
        self.floats(&m.w);
    }
    fn bias(&mut self, b: &Bias) {
        self.tok(format!("{} {}", b.name, b.w.len()));
        self.floats(&b.w);
    }
    fn block(&mut self, b: &Block) {
        match b {
            Block::Ordinary {
                name,
                pre_bn,
                pre_act,
                c1,
                mid_bn,
                mid_act,
                c2,
            } => {
                self.tok(format!("ordinary_block {name}"));
                self.bn(pre_bn);
                self.act(pre_act);
                self.conv(c1);
                self.bn(mid_bn);
                self.act(mid_act);
                self.conv(c2);
            }
            Block::Gpool {
                name,
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
            } => {
                self.tok(format!("gpool_block {name}"));
                self.bn(pre_bn);
                self.act(pre_act);
                self.conv(regular);
                self.conv(gconv);
                self.bn(gbn);
                self.act(gact);
                self.mat(gmul);
                self.bn(mid_bn);
                self.act(mid_act);
                self.conv(c2);
            }
            Block::Nested {
                name,
                pre_bn,
                pre_act,
                down,
                blocks,
                post_bn,
                post_act,
                up,
            } => {
                self.tok(format!("nested_bottleneck_block {name} {}", blocks.len()));
                self.bn(pre_bn);
                self.act(pre_act);
                self.conv(down);
                for inner in blocks {
                    self.block(inner);
                }
                self.bn(post_bn);
                self.act(post_act);
                self.conv(up);
            }
        }
    }
}

/// The decompressed model file.
fn model_bytes(net: &Net, binary: bool) -> Vec<u8> {
    let mut w = Writer {
        out: Vec::new(),
        binary,
        version: net.version,
    };
    w.tok(format!("testnet-v{}", net.version));
    w.tok(net.version);
    w.tok("22 19");
    if net.version >= 13 {
        for m in net.multipliers {
            w.tok(m);
        }
    }
    w.tok(format!(
        "trunk {} {} 6 6 0 3",
        net.blocks.len(),
        net.trunk_c
    ));
    w.conv(&net.init);
    w.mat(&net.init_mat);
    for b in &net.blocks {
        w.block(b);
    }
    w.bn(&net.tip_bn);
    w.act(&net.tip_act);
    w.tok("policyhead");
    w.conv(&net.p1);
    w.conv(&net.g1);
    w.bn(&net.g1_bn);
    w.act(&net.g1_act);
    w.mat(&net.g_to_bias);
    w.bn(&net.p1_bn);
    w.act(&net.p1_act);
    w.conv(&net.p2);
    w.mat(&net.g_to_pass);
    w.tok("valuehead");
    w.conv(&net.v1);
    w.bn(&net.v1_bn);
    w.act(&net.v1_act);
    w.mat(&net.v2);
    w.bias(&net.v2_bias);
    w.act(&net.v2_act);
    w.mat(&net.v3);
    w.bias(&net.v3_bias);
    w.mat(&net.sv3);
    w.bias(&net.sv3_bias);
    w.conv(&net.own);
    w.out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).expect("gzip");
    enc.finish().expect("gzip")
}

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tengen-nn-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write temp file");
    path
}

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

fn blocks_ref(blocks: &[Block], x: &mut [f64], n: usize) {
    let area = n * n;
    for block in blocks {
        match block {
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

fn forward_ref(net: &Net, spatial: &[f32], global: &[f32; 19], n: usize, sym: u8) -> RefOut {
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
    blocks_ref(&net.blocks, &mut trunk, n);
    let tip = bn_act_ref(&net.tip_bn, &net.tip_act, &trunk, area);

    let mut p1 = conv_ref(&net.p1, &tip, n);
    let g1 = bn_act_ref(&net.g1_bn, &net.g1_act, &conv_ref(&net.g1, &tip, n), area);
    let pooled = pool_ref(&g1, net.g1.cout, area, false);
    add_channel_bias(&mut p1, &mat_ref(&net.g_to_bias, &pooled), area);
    let p1 = bn_act_ref(&net.p1_bn, &net.p1_act, &p1, area);
    let p2 = conv_ref(&net.p2, &p1, n);
    let pass = mat_ref(&net.g_to_pass, &pooled);

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

    // Spatial outputs back to board coordinates.
    let pc = net.p2.cout;
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

fn check(label: &str, net: &Net, raw: &RawEval, r: &RefOut) {
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
}

/// Loads `net` from both formats and diffs the fast path against the reference at several
/// board sizes, batch 1 under every symmetry and batch 7 under mixed ones.
fn diff_against_reference(version: i64, seed: u64) {
    let net = random_net(version, seed);
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
    cases.push((
        format!("{} (im2col)", files[1].display()),
        Network::from_model_with(&desc, false),
    ));
    for (label, loaded) in &cases {
        assert_eq!(loaded.version(), version);
        assert_eq!(loaded.name(), format!("testnet-v{version}"));
        if version >= 13 {
            let pp = loaded.post_process();
            assert_eq!(pp.score_mean_multiplier, net.multipliers[1]);
            assert_eq!(pp.shortterm_score_error_multiplier, net.multipliers[6]);
        }
        let mut ws = Workspace::new(loaded, 7, 13);
        let mut out = vec![RawEval::new(); 7];
        for n in [5usize, 9, 13] {
            let (spatial, global) = random_input(&mut rng, n);
            for sym in 0..8u8 {
                let input = NetInput {
                    board_size: n,
                    spatial: &spatial,
                    global: &global,
                };
                loaded
                    .evaluate(&mut ws, &[input], &[sym], &mut out[..1])
                    .expect("evaluate");
                let r = forward_ref(&net, &spatial, &global, n, sym);
                check(
                    &format!("{label} n={n} sym={sym} batch 1"),
                    &net,
                    &out[0],
                    &r,
                );
            }
            let batch: Vec<(Vec<f32>, [f32; 19])> =
                (0..7).map(|_| random_input(&mut rng, n)).collect();
            let inputs: Vec<NetInput> = batch
                .iter()
                .map(|(s, g)| NetInput {
                    board_size: n,
                    spatial: s,
                    global: g,
                })
                .collect();
            let syms: Vec<u8> = (0..7).map(|i| ((i * 3 + 1) % 8) as u8).collect();
            loaded
                .evaluate(&mut ws, &inputs, &syms, &mut out)
                .expect("evaluate");
            for i in 0..7 {
                let r = forward_ref(&net, &batch[i].0, &batch[i].1, n, syms[i]);
                check(
                    &format!("{label} n={n} batch 7 item {i}"),
                    &net,
                    &out[i],
                    &r,
                );
            }
        }
    }
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
                board_size: n,
                spatial: &a,
                global: &global,
            }],
            &[6],
            &mut out_a,
        )
        .expect("eval");
    loaded
        .evaluate(
            &mut ws,
            &[NetInput {
                board_size: n,
                spatial: &b,
                global: &global,
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
                    board_size: n,
                    spatial: &spatial,
                    global: &global,
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
    for binary in [false, true] {
        let bytes = model_bytes(&random_net(14, 41), binary);
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
            let path = temp_file(&format!("cut{cut}-{binary}.bin.gz"), &gz[..cut]);
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
    for v in [0, 7, 15, 17, -3] {
        let broken = text.replacen("\n11\n", &format!("\n{v}\n"), 1);
        let msg = parse_err(broken.as_bytes(), false);
        assert!(
            msg.contains(&format!("version {v}")) && msg.contains("8..=14"),
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

// ---------------------------------------------------------------------------------------------
// The real net.

#[test]
fn real_b6c96_net_runs_on_an_empty_board() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/nets/g170-b6c96-s175395328-d26788732.bin.gz");
    if !path.exists() {
        eprintln!(
            "SKIP real_b6c96_net_runs_on_an_empty_board: {} is missing",
            path.display()
        );
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the b6c96 net is missing under CI"
        );
        return;
    }
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
        board_size: n,
        spatial: &spatial,
        global: &global,
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
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/nets/g170-b6c96-s175395328-d26788732.bin.gz");
    if !path.exists() {
        eprintln!(
            "SKIP a_batch_evaluates_each_game_as_a_single_call_does: {} is missing",
            path.display()
        );
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the b6c96 net is missing under CI"
        );
        return;
    }
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
