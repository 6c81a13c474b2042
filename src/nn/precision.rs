//! The arithmetic the net's large matrix products run in (`--precision`).
//!
//! `fp32` is exact to KataGo's outputs (the golden tests run on it). `int8` runs the transformer
//! nets' projections (attention's queries, keys, values and output, the feed-forward blocks) on
//! [`super::gemm_i8`]: weights quantized once per output channel, activations per point on the
//! fly, sums exact in 32 bits. Norms, attention scores, softmax, convolutions and the heads stay
//! in fp32. `auto` is fp32 until the accuracy figures of issue 25 let it choose otherwise.

use super::gemm::{gemm, PackedMatrix};
use super::gemm_i8::{self, gemm_i8, PackedMatrixI8};
use std::fmt;

/// What `--precision` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    #[default]
    Fp32,
    Int8,
}

impl Precision {
    /// The names `--precision` takes: `fp32`, `int8`, and `auto` (the fastest kind whose
    /// accuracy has been measured good enough: fp32 for now).
    pub fn parse(name: &str) -> Option<Precision> {
        match name.to_ascii_lowercase().as_str() {
            "fp32" | "auto" => Some(Precision::Fp32),
            "int8" => Some(Precision::Int8),
            _ => None,
        }
    }

    /// What runs, for stderr.
    pub fn describe(self) -> String {
        match self {
            Precision::Fp32 => "fp32".into(),
            Precision::Int8 => format!(
                "int8 for the transformer projections ({} kernel), fp32 elsewhere",
                match gemm_i8::best_isa() {
                    gemm_i8::Isa::Portable => "portable",
                    #[cfg(target_arch = "x86_64")]
                    gemm_i8::Isa::Avx2 => "AVX2 vpmaddubsw",
                }
            ),
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Precision::Fp32 => "fp32",
            Precision::Int8 => "int8",
        })
    }
}

/// A constant right-hand matrix, packed for the precision its product runs in.
#[derive(Debug, Clone)]
pub enum Weights {
    Fp32(PackedMatrix),
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
            Weights::Int8(m) => m.k(),
        }
    }

    /// Columns.
    pub fn n(&self) -> usize {
        match self {
            Weights::Fp32(m) => m.n(),
            Weights::Int8(m) => m.n(),
        }
    }

    /// Repacks for `precision` (from fp32 only: int8 weights are not widened back).
    pub fn set_precision(&mut self, precision: Precision) {
        if let (Weights::Fp32(m), Precision::Int8) = (&*self, precision) {
            *self = Weights::Int8(PackedMatrixI8::new(&m.unpack(), m.k(), m.n()));
        }
    }

    /// `C = A * B` (or `C += A * B` when `accumulate`): `a` holds `m` rows of `k()` values at
    /// stride `lda`, `c` holds `m` rows of `n()` values.
    pub fn multiply(&self, m: usize, a: &[f32], lda: usize, c: &mut [f32], accumulate: bool) {
        match self {
            Weights::Fp32(b) => gemm(m, a, lda, b, c, accumulate),
            Weights::Int8(b) => gemm_i8(m, a, lda, b, c, accumulate),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_int8_weights_multiply_close_to_fp32() {
        assert_eq!(Precision::parse("INT8"), Some(Precision::Int8));
        assert_eq!(Precision::parse("auto"), Some(Precision::Fp32));
        assert_eq!(Precision::parse("bf16"), None);
        let (m, k, n) = (9, 40, 24);
        let b: Vec<f32> = (0..k * n)
            .map(|i| ((i * 7) % 13) as f32 * 0.1 - 0.6)
            .collect();
        let a: Vec<f32> = (0..m * k)
            .map(|i| ((i * 5) % 11) as f32 * 0.2 - 1.0)
            .collect();
        let fp32 = Weights::new(&b, k, n);
        let mut int8 = fp32.clone();
        int8.set_precision(Precision::Int8);
        assert!(matches!(int8, Weights::Int8(_)));
        assert_eq!((int8.k(), int8.n()), (k, n));
        let (mut want, mut got) = (vec![0.0; m * n], vec![0.0; m * n]);
        fp32.multiply(m, &a, k, &mut want, false);
        int8.multiply(m, &a, k, &mut got, false);
        let largest = want.iter().fold(0.0f32, |s, v| s.max(v.abs()));
        for (w, g) in want.iter().zip(&got) {
            assert!((w - g).abs() < 0.02 * largest, "{w} vs {g}");
        }
    }
}
