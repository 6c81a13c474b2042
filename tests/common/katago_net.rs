//! Small random KataGo nets and a writer for KataGo's `.txt.gz` / `.bin.gz` model formats,
//! shared by `tests/nn_forward_reference.rs` (diffed against an f64 twin) and
//! `tests/nn_golden_synthetic.rs` (diffed against outputs KataGo computed on the same files).
//! Everything here is deterministic: the same [`Spec`] and seed give the same bytes.
//!
//! Not part of `common/mod.rs` (most test files need none of it): a test file includes it
//! with `#[path = "common/katago_net.rs"] mod katago_net;`.

#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;

// ---------------------------------------------------------------------------------------------
// Random nets.

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }
    pub fn vec(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.range(lo, hi)).collect()
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

pub struct Conv {
    pub name: String,
    pub ky: usize,
    pub kx: usize,
    pub cin: usize,
    pub cout: usize,
    pub w: Vec<f32>,
}

pub struct Bn {
    pub name: String,
    pub c: usize,
    pub eps: f32,
    pub mean: Vec<f32>,
    pub var: Vec<f32>,
    pub scale: Option<Vec<f32>>,
    pub bias: Option<Vec<f32>>,
}

pub struct Act {
    pub name: String,
    pub kind: &'static str,
}

pub struct Mat {
    pub name: String,
    pub cin: usize,
    pub cout: usize,
    pub w: Vec<f32>,
}

pub struct Bias {
    pub name: String,
    pub w: Vec<f32>,
}

#[allow(clippy::large_enum_variant)] // test data, a handful per net
pub enum Block {
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
    Attention(Attn),
    Ffn(Ffn),
}

/// A transformer block's pre-norm: weight only.
pub struct TNorm {
    pub name: String,
    pub c: usize,
    pub eps: f32,
    pub w: Vec<f32>,
}

pub enum Rope {
    None,
    /// `[kv head][pair][x, y]`.
    Learnable {
        name: String,
        freqs: Vec<f32>,
    },
    Fixed {
        name: String,
        theta: f32,
    },
}

pub struct Attn {
    pub name: String,
    pub heads: usize,
    pub kv_heads: usize,
    pub dq: usize,
    pub dv: usize,
    pub rope: Rope,
    pub norm: TNorm,
    pub q: Mat,
    pub k: Mat,
    pub v: Mat,
    pub out: Mat,
}

pub struct Ffn {
    pub name: String,
    pub c: usize,
    pub hidden: usize,
    /// Written as the useSwiGLU flag; with 0 the gate is left out of the file.
    pub swiglu: bool,
    pub norm: TNorm,
    pub l1: Mat,
    pub gate: Mat,
    pub l2: Mat,
}

/// The trunk tip's RMSNorm (trunk norm kind 1).
pub struct Rms {
    pub name: String,
    pub c: usize,
    pub eps: f32,
    pub spatial: bool,
    pub gamma: Vec<f32>,
    pub beta: Vec<f32>,
}

pub enum Tip {
    Bn(Bn),
    Rms(Rms),
}

/// The SGF-metadata encoder: 192 inputs to a per-channel trunk bias.
pub struct MetaEnc {
    pub name: String,
    pub mul1: Mat,
    pub bias1: Bias,
    pub act1: Act,
    pub mul2: Mat,
    pub bias2: Bias,
    pub act2: Act,
    pub mul3: Mat,
}

/// The version-15 pass head's hidden layer after `g_to_pass`.
pub struct PassHidden {
    pub bias: Bias,
    pub act: Act,
    pub mul2: Mat,
}

pub struct Net {
    pub version: i64,
    pub multipliers: [f64; 7],
    /// Version 15+: metaEncoderVersion, preferPassAliveUnderSuicideRules, six zeros.
    pub header_opts: [i64; 8],
    /// Version 15+: trunkNormKind, five zeros.
    pub trunk_opts: [i64; 6],
    /// Version 17: the three zeros after policyOutChannels, and the value head's three.
    pub policy_opts: [i64; 3],
    pub value_opts: [i64; 3],
    pub trunk_c: usize,
    pub init: Conv,
    pub init_mat: Mat,
    pub meta: Option<MetaEnc>,
    pub blocks: Vec<Block>,
    pub tip: Tip,
    pub tip_act: Act,
    pub p1: Conv,
    pub g1: Conv,
    pub g1_bn: Bn,
    pub g1_act: Act,
    pub g_to_bias: Mat,
    pub p1_bn: Bn,
    pub p1_act: Act,
    pub p2: Conv,
    pub g_to_pass: Mat,
    pub pass_hidden: Option<PassHidden>,
    pub v1: Conv,
    pub v1_bn: Bn,
    pub v1_act: Act,
    pub v2: Mat,
    pub v2_bias: Bias,
    pub v2_act: Act,
    pub v3: Mat,
    pub v3_bias: Bias,
    pub sv3: Mat,
    pub sv3_bias: Bias,
    pub own: Conv,
}

pub const KINDS: [&str; 4] = [
    "ACTIVATION_RELU",
    "ACTIVATION_MISH",
    "ACTIVATION_SILU",
    "ACTIVATION_IDENTITY",
];

struct Gen {
    pub rng: Rng,
    pub version: i64,
    pub counter: usize,
    /// Every activation SiLU, as in KataGo's transformer nets.
    pub silu: bool,
    /// Multiplies the attention blocks' Q and K projections.
    pub qk_gain: f32,
}

impl Gen {
    pub fn name(&mut self, what: &str) -> String {
        self.counter += 1;
        format!("{what}{}", self.counter)
    }
    pub fn conv(&mut self, k: usize, cin: usize, cout: usize) -> Conv {
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
    pub fn bn(&mut self, c: usize) -> Bn {
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
    pub fn act(&mut self) -> Act {
        let kind = if self.silu {
            "ACTIVATION_SILU"
        } else if self.version >= 11 {
            KINDS[self.rng.below(4)]
        } else {
            "ACTIVATION_RELU"
        };
        Act {
            name: self.name("act"),
            kind,
        }
    }
    pub fn mat(&mut self, cin: usize, cout: usize) -> Mat {
        let bound = 1.5 / (cin as f32).sqrt();
        Mat {
            name: self.name("mat"),
            cin,
            cout,
            w: self.rng.vec(cin * cout, -bound, bound),
        }
    }
    pub fn bias(&mut self, c: usize) -> Bias {
        Bias {
            name: self.name("bias"),
            w: self.rng.vec(c, -0.5, 0.5),
        }
    }
    pub fn ordinary(&mut self, c: usize, mid: usize) -> Block {
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
    pub fn gpool(&mut self, c: usize, regular: usize, gp: usize) -> Block {
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
    pub fn tnorm(&mut self, c: usize) -> TNorm {
        TNorm {
            name: self.name("tnorm"),
            c,
            eps: 1e-6,
            w: self.rng.vec(c, 0.5, 1.5),
        }
    }
    pub fn attention(&mut self, c: usize, cfg: AttnCfg) -> Block {
        let name = self.name("attn");
        let norm = self.tnorm(c);
        let mut q = self.mat(c, cfg.heads * cfg.dq);
        let mut k = self.mat(c, cfg.kv_heads * cfg.dq);
        for w in q.w.iter_mut().chain(&mut k.w) {
            *w *= self.qk_gain;
        }
        let v = self.mat(c, cfg.kv_heads * cfg.dv);
        let out = self.mat(cfg.heads * cfg.dv, c);
        let rope = match cfg.rope {
            RopeKind::None => Rope::None,
            RopeKind::Learnable => Rope::Learnable {
                name: self.name("ropefreqs"),
                freqs: self.rng.vec(cfg.kv_heads * cfg.dq / 2 * 2, -1.5, 1.5),
            },
            RopeKind::Fixed(theta) => Rope::Fixed {
                name: self.name("ropetheta"),
                theta,
            },
        };
        Block::Attention(Attn {
            name,
            heads: cfg.heads,
            kv_heads: cfg.kv_heads,
            dq: cfg.dq,
            dv: cfg.dv,
            rope,
            norm,
            q,
            k,
            v,
            out,
        })
    }
    pub fn ffn(&mut self, c: usize, hidden: usize) -> Block {
        Block::Ffn(Ffn {
            name: self.name("ffn"),
            c,
            hidden,
            swiglu: true,
            norm: self.tnorm(c),
            l1: self.mat(c, hidden),
            gate: self.mat(c, hidden),
            l2: self.mat(hidden, c),
        })
    }
    pub fn rms(&mut self, c: usize, spatial: bool) -> Rms {
        Rms {
            name: self.name("rmsnorm"),
            c,
            eps: 1e-6,
            spatial,
            gamma: self.rng.vec(c, 0.5, 1.5),
            beta: self.rng.vec(c, -0.5, 0.5),
        }
    }
    pub fn meta_enc(&mut self, hidden: usize, c: usize) -> MetaEnc {
        MetaEnc {
            name: self.name("metaencoder"),
            mul1: self.mat(192, hidden),
            bias1: self.bias(hidden),
            act1: self.act(),
            mul2: self.mat(hidden, hidden),
            bias2: self.bias(hidden),
            act2: self.act(),
            mul3: self.mat(hidden, c),
        }
    }
    pub fn nested(&mut self, c: usize, mid: usize, inner: Vec<Block>) -> Block {
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

#[derive(Clone, Copy, Debug)]
pub enum RopeKind {
    None,
    Learnable,
    Fixed(f32),
}

/// One attention block's shape.
#[derive(Clone, Copy, Debug)]
pub struct AttnCfg {
    pub heads: usize,
    pub kv_heads: usize,
    pub dq: usize,
    pub dv: usize,
    pub rope: RopeKind,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TipKind {
    Bn,
    Rms { spatial: bool },
}

/// What a random net holds.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub version: i64,
    /// A trunk of nested bottlenecks around attention + SwiGLU FFN pairs (KataGo's "nbt"
    /// transformers) instead of the convolution blocks.
    pub transformer: bool,
    /// The attention blocks' shapes, used in turn.
    pub attn: &'static [AttnCfg],
    /// Also an attention block, an FFN block and a gpool block straight in the trunk.
    pub top_level: bool,
    pub tip: TipKind,
    /// 1, 2 or 4 (4 with the Q-value channels of versions 16 and 17).
    pub policy_channels: usize,
    /// An SGF-metadata encoder (metaEncoderVersion 1).
    pub meta: bool,
    pub silu: bool,
    pub prefer_pass_alive: bool,
    /// Multiplies the attention blocks' Q and K projections (1: the plain random weights): more
    /// than 1 makes the attention peaked rather than near uniform, so that what a query attends
    /// to (its RoPE angles, its KV head) shows in the outputs.
    pub qk_gain: f32,
    /// Multiplies the policy head's last layers (p2 and the pass logit's last matrix): more
    /// than 1 spreads the policy over orders of magnitude instead of near uniform.
    pub policy_gain: f32,
}

impl Spec {
    /// The convolution nets as each version's KataGo exporter writes them.
    pub fn conv(version: i64) -> Spec {
        Spec {
            version,
            transformer: false,
            attn: &[],
            top_level: false,
            tip: TipKind::Bn,
            policy_channels: match version {
                16.. => 4,
                12.. => 2,
                _ => 1,
            },
            meta: false,
            silu: false,
            prefer_pass_alive: false,
            qk_gain: 1.0,
            policy_gain: 1.0,
        }
    }
}

/// b10c384h6nbttflrs's attention: 6 heads of 32, learnable RoPE; here 3 heads of 4.
pub const MHA_LEARNABLE: AttnCfg = AttnCfg {
    heads: 3,
    kv_heads: 3,
    dq: 4,
    dv: 4,
    rope: RopeKind::Learnable,
};
pub const GQA_LEARNABLE: AttnCfg = AttnCfg {
    heads: 4,
    kv_heads: 2,
    dq: 4,
    dv: 2,
    rope: RopeKind::Learnable,
};
/// Three pairs: one follows the row, two the column.
pub const GQA_FIXED: AttnCfg = AttnCfg {
    heads: 4,
    kv_heads: 2,
    dq: 6,
    dv: 3,
    rope: RopeKind::Fixed(100.0),
};
pub const GQA_FIXED_EVEN: AttnCfg = AttnCfg {
    heads: 2,
    kv_heads: 1,
    dq: 8,
    dv: 3,
    rope: RopeKind::Fixed(10000.0),
};
/// Multi-query without RoPE; an odd head dim is allowed then.
pub const MQA_NO_ROPE: AttnCfg = AttnCfg {
    heads: 2,
    kv_heads: 1,
    dq: 3,
    dv: 5,
    rope: RopeKind::None,
};

/// KataGo's b10c384h6nbttflrs in miniature: nested bottlenecks around attention + SwiGLU
/// pairs, learnable RoPE, multi-head attention, SiLU everywhere, a spatial RMSNorm tip.
pub fn v15_transformer() -> Spec {
    Spec {
        transformer: true,
        attn: &[MHA_LEARNABLE],
        tip: TipKind::Rms { spatial: true },
        silu: true,
        ..Spec::conv(15)
    }
}

/// The human-SL nets' layout: a version-15 convolution net with the SGF-metadata encoder.
pub fn v15_meta() -> Spec {
    Spec {
        meta: true,
        ..Spec::conv(15)
    }
}

/// A small random net of `version`; v14 gets nested bottleneck blocks (one nested twice).
pub fn random_net(version: i64, seed: u64) -> Net {
    random_net_spec(&Spec::conv(version), seed)
}

pub fn random_net_spec(spec: &Spec, seed: u64) -> Net {
    let version = spec.version;
    let mut g = Gen {
        rng: Rng(seed),
        version,
        counter: 0,
        silu: spec.silu,
        qk_gain: spec.qk_gain,
    };
    let c = 8;
    let mut attn_cfgs = spec.attn.iter().copied().cycle();
    let mut next_cfg = || attn_cfgs.next().expect("attention shapes");
    let blocks = if spec.transformer {
        let mid = 6;
        let first_inner = vec![
            g.attention(mid, next_cfg()),
            g.ffn(mid, 10),
            g.attention(mid, next_cfg()),
            g.ffn(mid, 10),
        ];
        let first = g.nested(c, mid, first_inner);
        let second_inner = vec![g.attention(mid, next_cfg()), g.ffn(mid, 7)];
        let second = g.nested(c, mid, second_inner);
        let mut blocks = vec![first, second];
        if spec.top_level {
            blocks.push(g.attention(c, next_cfg()));
            blocks.push(g.ffn(c, 12));
            blocks.push(g.gpool(c, 6, 3));
        }
        blocks
    } else if version >= 14 {
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
    let policy_channels = spec.policy_channels;
    let score_channels = if version >= 9 { 6 } else { 4 };
    let init_k = if version == 8 { 5 } else { 3 };
    let init = g.conv(init_k, 22, c);
    let init_mat = g.mat(19, c);
    let meta = spec.meta.then(|| g.meta_enc(7, c));
    let tip = match spec.tip {
        TipKind::Bn => Tip::Bn(g.bn(c)),
        TipKind::Rms { spatial } => Tip::Rms(g.rms(c, spatial)),
    };
    let tip_act = g.act();
    let p1 = g.conv(1, c, 5);
    let g1 = g.conv(1, c, 4);
    let g1_bn = g.bn(4);
    let g1_act = g.act();
    let g_to_bias = g.mat(12, 5);
    let p1_bn = g.bn(5);
    let p1_act = g.act();
    let mut p2 = g.conv(1, 5, policy_channels);
    p2.w.iter_mut().for_each(|w| *w *= spec.policy_gain);
    // From version 15 the pass logit goes through a hidden layer as wide as p1Conv's output.
    let (mut g_to_pass, mut pass_hidden) = if version >= 15 {
        let m = g.mat(12, 5);
        let hidden = PassHidden {
            bias: g.bias(5),
            act: g.act(),
            mul2: g.mat(5, policy_channels),
        };
        (m, Some(hidden))
    } else {
        (g.mat(12, policy_channels), None)
    };
    let pass_last = match &mut pass_hidden {
        Some(h) => &mut h.mul2.w,
        None => &mut g_to_pass.w,
    };
    pass_last.iter_mut().for_each(|w| *w *= spec.policy_gain);
    Net {
        version,
        multipliers: [20.0, 21.0, 22.0, 23.0, 41.0, 0.3, 31.0],
        header_opts: [
            spec.meta as i64,
            spec.prefer_pass_alive as i64,
            0,
            0,
            0,
            0,
            0,
            0,
        ],
        trunk_opts: [(spec.tip != TipKind::Bn) as i64, 0, 0, 0, 0, 0],
        policy_opts: [0; 3],
        value_opts: [0; 3],
        trunk_c: c,
        init,
        init_mat,
        meta,
        blocks,
        tip,
        tip_act,
        p1,
        g1,
        g1_bn,
        g1_act,
        g_to_bias,
        p1_bn,
        p1_act,
        p2,
        g_to_pass,
        pass_hidden,
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
    pub out: Vec<u8>,
    pub binary: bool,
    pub version: i64,
}

impl Writer {
    pub fn tok(&mut self, t: impl std::fmt::Display) {
        writeln!(self.out, "{t}").expect("write to Vec");
    }
    pub fn floats(&mut self, v: &[f32]) {
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
    pub fn conv(&mut self, c: &Conv) {
        self.tok(format!(
            "{} {} {} {} {} 1 1",
            c.name, c.ky, c.kx, c.cin, c.cout
        ));
        self.floats(&c.w);
    }
    pub fn bn(&mut self, b: &Bn) {
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
    pub fn act(&mut self, a: &Act) {
        if self.version >= 11 {
            self.tok(format!("{} {}", a.name, a.kind));
        } else {
            self.tok(&a.name);
        }
    }
    pub fn mat(&mut self, m: &Mat) {
        self.tok(format!("{} {} {}", m.name, m.cin, m.cout));
        self.floats(&m.w);
    }
    pub fn bias(&mut self, b: &Bias) {
        self.tok(format!("{} {}", b.name, b.w.len()));
        self.floats(&b.w);
    }
    pub fn tnorm(&mut self, n: &TNorm) {
        self.tok(format!("{} {} {}", n.name, n.c, n.eps));
        self.floats(&n.w);
    }
    pub fn rms(&mut self, r: &Rms) {
        self.tok(format!(
            "{} {} {} {} 0",
            r.name, r.c, r.eps, r.spatial as u8
        ));
        self.floats(&r.gamma);
        self.floats(&r.beta);
    }
    pub fn meta_enc(&mut self, m: &MetaEnc) {
        self.tok(format!("{} 192", m.name));
        self.mat(&m.mul1);
        self.bias(&m.bias1);
        self.act(&m.act1);
        self.mat(&m.mul2);
        self.bias(&m.bias2);
        self.act(&m.act2);
        self.mat(&m.mul3);
    }
    pub fn block(&mut self, b: &Block) {
        match b {
            Block::Attention(a) => {
                let (use_rope, learnable) = match a.rope {
                    Rope::None => (0, 0),
                    Rope::Learnable { .. } => (1, 1),
                    Rope::Fixed { .. } => (1, 0),
                };
                self.tok(format!(
                    "transformer_attention_block {} {} {} {} {} {use_rope} {learnable}",
                    a.name, a.heads, a.kv_heads, a.dq, a.dv
                ));
                self.tnorm(&a.norm);
                self.mat(&a.q);
                self.mat(&a.k);
                self.mat(&a.v);
                self.mat(&a.out);
                match &a.rope {
                    Rope::None => {}
                    Rope::Learnable { name, freqs } => {
                        self.tok(format!("{name} {} {} 2", a.kv_heads, a.dq / 2));
                        self.floats(freqs);
                    }
                    Rope::Fixed { name, theta } => self.tok(format!("{name} {theta}")),
                }
            }
            Block::Ffn(f) => {
                self.tok(format!(
                    "transformer_ffn_block {} {} {} {}",
                    f.name, f.c, f.hidden, f.swiglu as u8
                ));
                self.tnorm(&f.norm);
                self.mat(&f.l1);
                if f.swiglu {
                    self.mat(&f.gate);
                }
                self.mat(&f.l2);
            }
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
pub fn model_bytes(net: &Net, binary: bool) -> Vec<u8> {
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
    let ints = |v: &[i64]| {
        v.iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    if net.version >= 15 {
        w.tok(ints(&net.header_opts));
    }
    w.tok(format!(
        "trunk {} {} 6 6 0 3",
        net.blocks.len(),
        net.trunk_c
    ));
    if net.version >= 15 {
        w.tok(ints(&net.trunk_opts));
    }
    w.conv(&net.init);
    w.mat(&net.init_mat);
    if let Some(m) = &net.meta {
        w.meta_enc(m);
    }
    for b in &net.blocks {
        w.block(b);
    }
    match &net.tip {
        Tip::Bn(b) => w.bn(b),
        Tip::Rms(r) => w.rms(r),
    }
    w.act(&net.tip_act);
    w.tok("policyhead");
    if net.version >= 17 {
        w.tok(format!("{} {}", net.p2.cout, ints(&net.policy_opts)));
    }
    w.conv(&net.p1);
    w.conv(&net.g1);
    w.bn(&net.g1_bn);
    w.act(&net.g1_act);
    w.mat(&net.g_to_bias);
    w.bn(&net.p1_bn);
    w.act(&net.p1_act);
    w.conv(&net.p2);
    w.mat(&net.g_to_pass);
    if let Some(h) = &net.pass_hidden {
        w.bias(&h.bias);
        w.act(&h.act);
        w.mat(&h.mul2);
    }
    w.tok("valuehead");
    if net.version >= 17 {
        w.tok(ints(&net.value_opts));
    }
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

pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).expect("gzip");
    enc.finish().expect("gzip")
}

pub fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tengen-nn-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    // Written beside it and renamed into place: tests running at once may
    // write the same file while another reads it, and a rename is atomic.
    static WRITES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let partial = dir.join(format!("{name}.{n}.partial"));
    std::fs::write(&partial, bytes).expect("write temp file");
    std::fs::rename(&partial, &path).expect("rename temp file");
    path
}
