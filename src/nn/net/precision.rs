//! The arithmetic the net's large matrix products run in (`--precision`).
//!
//! `fp32` is exact to KataGo's outputs (the golden tests run on it). The reduced kinds apply to
//! the trunk's large products; the first convolution, norms, attention scores, softmax and the
//! heads stay in fp32:
//! - `bf16` ([`crate::nn::kernels::bf16`]): weights and inputs rounded to bfloat16, sums in fp32, as
//!   AVX512-BF16 and AMX compute: a convolution net's trunk convolutions (3x3 ones on
//!   Winograd F(2x2, 3x3) tiles, whose transforms only add and subtract), a transformer net's
//!   projections (attention's queries, keys, values and output, the feed-forward blocks) and
//!   its attention products (queries by keys, scores by values; the softmax between them
//!   computes in fp32, its output rounded as the product's input; its convolutions stay
//!   fp32). Native `vdpbf16ps` where the CPU has AVX512-BF16, else emulated on the fp32
//!   kernels (the same outputs but for the order of the sums' rounding, and slower than fp32).
//! - `int8` ([`crate::nn::kernels::int8`]): the transformer projections only, weights quantized once per
//!   output channel, activations per point on the fly, sums exact in 32 bits. Faster on AVX2,
//!   but it misses the accuracy bounds.
//!
//! `auto` ([`PrecisionChoice::Auto`], resolved by [`auto`]) picks the fastest kind that
//! meets the accuracy bounds `tests/nn_precision.rs` holds the reduced kinds to, loses no
//! strength at equal visits and runs natively on this CPU: bf16 on AVX512-BF16, fp32
//! everywhere else.

use crate::nn::kernels::bf16::gemm::{self as gemm_bf16, gemm_bf16, PackedMatrixBf16};
use crate::nn::kernels::cpu::Isa;
use crate::nn::kernels::fp32::gemm::gemm;
use crate::nn::kernels::fp32::matrix::PackedMatrix;
use crate::nn::kernels::int8::gemm::{self as gemm_i8, gemm_i8};
use crate::nn::kernels::int8::matrix::PackedMatrixI8;
use crate::nn::kernels::vecmath::ops::softmax_rows;
use std::fmt;

/// What `--precision` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    #[default]
    Fp32,
    Bf16,
    Int8,
}

impl Precision {
    /// What runs, for stderr.
    pub fn describe(self) -> String {
        match self {
            Precision::Fp32 => "fp32".into(),
            Precision::Bf16 => format!(
                "bf16 for the transformer projections and attention products, or for a \
                 convolution net the trunk's convolutions (3x3 on Winograd F(2x2) tiles), {}, \
                 fp32 elsewhere",
                match gemm_bf16::best_isa() {
                    Isa::Portable => {
                        "emulated on the fp32 kernels (no AVX512-BF16 to run: slower than fp32)"
                    }
                    _ => "on AVX512-BF16 (vdpbf16ps)",
                }
            ),
            Precision::Int8 => format!(
                "int8 for the transformer projections ({} kernel), fp32 elsewhere",
                gemm_i8::kernel_name(gemm_i8::best_isa())
            ),
        }
    }

    /// What runs on a net with or without transformer blocks, for stderr: int8 leaves a net
    /// without them in fp32.
    pub fn describe_on(self, net_has_transformer: bool) -> String {
        if self != Precision::Int8 || net_has_transformer {
            self.describe()
        } else {
            format!("{self} applies to transformer blocks only; this net has none, so fp32")
        }
    }
}

/// What `--precision` (and the analysis config's `precision`) asks for: one kind, or `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrecisionChoice {
    /// The fastest kind this CPU runs natively that has met the accuracy bounds and played
    /// fp32 evenly at equal visits on such a net (see [`auto`]).
    Auto,
    Kind(Precision),
}

impl Default for PrecisionChoice {
    fn default() -> Self {
        PrecisionChoice::Kind(Precision::Fp32)
    }
}

impl PrecisionChoice {
    /// The names [`PrecisionChoice::parse`] reads, for error messages.
    pub const NAMES: &'static str = "fp32, bf16, int8 or auto";

    /// `fp32`, `bf16`, `int8` or `auto`, in any case.
    pub fn parse(name: &str) -> Option<PrecisionChoice> {
        match name.to_ascii_lowercase().as_str() {
            "auto" => Some(PrecisionChoice::Auto),
            "fp32" => Some(PrecisionChoice::Kind(Precision::Fp32)),
            "bf16" => Some(PrecisionChoice::Kind(Precision::Bf16)),
            "int8" => Some(PrecisionChoice::Kind(Precision::Int8)),
            _ => None,
        }
    }

    /// The kind to run on this CPU.
    pub fn resolve(self) -> Precision {
        match self {
            PrecisionChoice::Kind(kind) => kind,
            PrecisionChoice::Auto => auto(gemm_bf16::best_isa()),
        }
    }

    /// What runs for this choice on a net with or without transformer blocks, for a load
    /// message on stderr: the resolved kind's description, marked `auto: ` when the CPU
    /// chose it.
    pub fn describe_on(self, net_has_transformer: bool) -> String {
        let kind = self.resolve().describe_on(net_has_transformer);
        match self {
            PrecisionChoice::Auto => format!("auto: {kind}"),
            PrecisionChoice::Kind(_) => kind,
        }
    }
}

impl fmt::Display for PrecisionChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrecisionChoice::Auto => f.write_str("auto"),
            PrecisionChoice::Kind(kind) => kind.fmt(f),
        }
    }
}

/// What `auto` runs, given the bf16 kernel chosen ([`Isa::Portable`] for the emulation): bf16 where the CPU has AVX512-BF16 (about
/// 1.6× fp32's evaluations at batch 1 on every net, within the accuracy bounds on every net
/// counting near-ties, and at least even with fp32 at equal visits and ahead of it at equal
/// time: `docs/precision.md`); fp32 elsewhere, where emulated bf16 is slower than fp32. int8
/// misses the bounds.
pub fn auto(bf16: Isa) -> Precision {
    if bf16 != Isa::Portable {
        Precision::Bf16
    } else {
        Precision::Fp32
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Precision::Fp32 => "fp32",
            Precision::Bf16 => "bf16",
            Precision::Int8 => "int8",
        })
    }
}

/// A constant right-hand matrix, packed for the precision its product runs in.
#[derive(Debug, Clone)]
pub enum Weights {
    Fp32(PackedMatrix),
    Bf16(PackedMatrixBf16),
    Int8(PackedMatrixI8),
}

impl Weights {
    /// Row-major `b` (`k x n`), in fp32.
    pub fn new(b: &[f32], k: usize, n: usize) -> Weights {
        Weights::Fp32(PackedMatrix::new(b, k, n))
    }

    /// Rows (the inner dimension).
    pub fn k(&self) -> usize {
        match self {
            Weights::Fp32(m) => m.k(),
            Weights::Bf16(m) => m.k(),
            Weights::Int8(m) => m.k(),
        }
    }

    /// Columns.
    pub fn n(&self) -> usize {
        match self {
            Weights::Fp32(m) => m.n(),
            Weights::Bf16(m) => m.n(),
            Weights::Int8(m) => m.n(),
        }
    }

    /// The matrix in row-major order while it is fp32.
    pub fn unpack_fp32(&self) -> Option<Vec<f32>> {
        match self {
            Weights::Fp32(m) => Some(m.unpack()),
            _ => None,
        }
    }

    /// Multiplies column `j` by `scale[j]` (while fp32: scale before reducing precision).
    pub fn scale_columns(&mut self, scale: &[f32]) {
        match self {
            Weights::Fp32(m) => m.scale_columns(scale),
            _ => panic!("columns scaled after the precision was reduced"),
        }
    }

    /// Repacks for `precision` (from fp32 only: reduced weights are not widened back).
    pub fn set_precision(&mut self, precision: Precision) {
        if let Weights::Fp32(m) = &*self {
            let (b, k, n) = (m.unpack(), m.k(), m.n());
            match precision {
                Precision::Fp32 => {}
                Precision::Bf16 => *self = Weights::Bf16(PackedMatrixBf16::new(&b, k, n)),
                Precision::Int8 => *self = Weights::Int8(PackedMatrixI8::new(&b, k, n)),
            }
        }
    }

    /// `C = A * B` (or `C += A * B` when `accumulate`): `a` holds `m` rows of `k()` values at
    /// stride `lda`, `c` holds `m` rows of `n()` values.
    pub fn multiply(&self, m: usize, a: &[f32], lda: usize, c: &mut [f32], accumulate: bool) {
        match self {
            Weights::Fp32(b) => gemm(m, a, lda, b, c, accumulate),
            Weights::Bf16(b) => gemm_bf16(m, a, lda, b, c, accumulate),
            Weights::Int8(b) => gemm_i8(m, a, lda, b, c, accumulate),
        }
    }
}

/// A right-hand matrix packed afresh for every evaluation (attention's keys and values), in
/// fp32 or bf16.
#[derive(Debug, Clone)]
pub enum Operand {
    Fp32(PackedMatrix),
    Bf16(PackedMatrixBf16),
}

impl Operand {
    /// Room for a `k x n` matrix in `precision` (int8 leaves these products in fp32).
    pub fn with_capacity(precision: Precision, k: usize, n: usize) -> Operand {
        match precision {
            Precision::Bf16 => Operand::Bf16(PackedMatrixBf16::with_capacity(k, n)),
            Precision::Fp32 | Precision::Int8 => Operand::Fp32(PackedMatrix::with_capacity(k, n)),
        }
    }

    /// Packs the `k x n` matrix whose row `i` starts at `src[i * stride]`.
    pub fn pack_rows(&mut self, src: &[f32], k: usize, n: usize, stride: usize) {
        match self {
            Operand::Fp32(m) => m.pack_rows(src, k, n, stride),
            Operand::Bf16(m) => m.pack_rows(src, k, n, stride),
        }
    }

    /// Packs the transpose of the `n x k` matrix whose row `j` starts at `src[j * stride]`.
    pub fn pack_transposed(&mut self, src: &[f32], k: usize, n: usize, stride: usize) {
        match self {
            Operand::Fp32(m) => m.pack_transposed(src, k, n, stride),
            Operand::Bf16(m) => m.pack_transposed(src, k, n, stride),
        }
    }

    /// `C = A * B` (or `C += A * B` when `accumulate`), as [`Weights::multiply`].
    pub fn multiply(&self, m: usize, a: &[f32], lda: usize, c: &mut [f32], accumulate: bool) {
        match self {
            Operand::Fp32(b) => gemm(m, a, lda, b, c, accumulate),
            Operand::Bf16(b) => gemm_bf16(m, a, lda, b, c, accumulate),
        }
    }

    /// `C = softmax(S) * B` over `m` rows of `k()` scores in `s`, which it may overwrite (see
    /// [`gemm_bf16::softmax_gemm_bf16`]).
    pub fn softmax_multiply(&self, m: usize, s: &mut [f32], c: &mut [f32]) {
        match self {
            Operand::Fp32(b) => {
                softmax_rows(&mut s[..m * b.k()], b.k());
                gemm(m, s, b.k(), b, c, false);
            }
            Operand::Bf16(b) => gemm_bf16::softmax_gemm_bf16(m, s, b, c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_runs_bf16_only_with_a_native_kernel() {
        assert_eq!(auto(Isa::Portable), Precision::Fp32);
        assert_eq!(auto(Isa::Avx512Bf16), Precision::Bf16);
        let here = PrecisionChoice::Auto.resolve();
        assert_eq!(here, auto(gemm_bf16::best_isa()));
        let native = gemm_bf16::best_isa() != Isa::Portable;
        assert_eq!(here == Precision::Bf16, native);
    }

    #[test]
    fn a_load_message_marks_what_auto_chose() {
        for transformer in [false, true] {
            let chosen = PrecisionChoice::Auto.resolve().describe_on(transformer);
            let auto = PrecisionChoice::Auto.describe_on(transformer);
            assert_eq!(auto, format!("auto: {chosen}"));
            let int8 = PrecisionChoice::Kind(Precision::Int8);
            assert_eq!(
                int8.describe_on(transformer),
                Precision::Int8.describe_on(transformer)
            );
        }
        assert_ne!(
            Precision::Int8.describe_on(false),
            Precision::Int8.describe_on(true),
            "int8 says when a net has no blocks for it"
        );
    }

    #[test]
    fn names_parse_and_reduced_weights_multiply_close_to_fp32() {
        let parse = PrecisionChoice::parse;
        assert_eq!(parse("INT8"), Some(PrecisionChoice::Kind(Precision::Int8)));
        assert_eq!(parse("bf16"), Some(PrecisionChoice::Kind(Precision::Bf16)));
        assert_eq!(parse("Auto"), Some(PrecisionChoice::Auto));
        assert_eq!(parse("fp16"), None);
        for kind in [Precision::Fp32, Precision::Bf16, Precision::Int8] {
            let choice = PrecisionChoice::Kind(kind);
            assert_eq!(parse(&choice.to_string()), Some(choice));
            assert_eq!(choice.resolve(), kind, "a kind asked for is run");
        }
        let (m, k, n) = (9, 40, 24);
        let b: Vec<f32> = (0..k * n)
            .map(|i| ((i * 7) % 13) as f32 * 0.1 - 0.6)
            .collect();
        let a: Vec<f32> = (0..m * k)
            .map(|i| ((i * 5) % 11) as f32 * 0.2 - 1.0)
            .collect();
        let fp32 = Weights::new(&b, k, n);
        let mut want = vec![0.0; m * n];
        fp32.multiply(m, &a, k, &mut want, false);
        let largest = want.iter().fold(0.0f32, |s, v| s.max(v.abs()));
        // bf16 keeps 8 significant bits (relative error 2^-9 per operand), int8 about 7.
        for (precision, bound) in [(Precision::Bf16, 0.01), (Precision::Int8, 0.02)] {
            let mut reduced = fp32.clone();
            reduced.set_precision(precision);
            assert!(!matches!(reduced, Weights::Fp32(_)), "{precision}");
            assert_eq!((reduced.k(), reduced.n()), (k, n));
            let mut got = vec![0.0; m * n];
            reduced.multiply(m, &a, k, &mut got, false);
            for (w, g) in want.iter().zip(&got) {
                assert!((w - g).abs() < bound * largest, "{precision}: {w} vs {g}");
            }
        }
    }
}
