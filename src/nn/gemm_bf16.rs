//! The bfloat16 matrix product for `--precision bf16`: both operands rounded to bf16 (8
//! significant bits, fp32's range), products summed in fp32, as AVX512-BF16's `vdpbf16ps` and
//! AMX's `tdpbf16ps` compute them.
//!
//! Only the emulation exists so far: the values rounded as those instructions round them
//! (nearest, ties to even; subnormals flushed to zero), then multiplied by the fp32 kernels of
//! [`super::gemm`]. A bf16 product is exact in fp32, so the emulation differs from the
//! instructions only in the order the sums are rounded. It measures on any CPU what bf16 does
//! to a net's outputs, and it is the twin a native kernel will be tested against; it is no
//! faster than fp32.

use super::gemm::{gemm, PackedMatrix};
use std::cell::RefCell;

/// `x` rounded to the nearest bfloat16 (ties to even), returned as the `f32` it equals.
/// Subnormals become a zero of their sign, as the bf16 instructions treat them; infinities and
/// NaNs stay what they are, and a finite value past bf16's largest rounds to infinity.
#[inline]
pub fn round_to_bf16(x: f32) -> f32 {
    let bits = x.to_bits();
    if x.is_nan() {
        return x;
    }
    if x.is_subnormal() {
        return f32::from_bits(bits & 0x8000_0000);
    }
    let half_ulp = 0x7fff + ((bits >> 16) & 1);
    f32::from_bits(bits.wrapping_add(half_ulp) & 0xffff_0000)
}

/// Rounds every value of `values` to bf16 in place.
pub fn round_slice(values: &mut [f32]) {
    values.iter_mut().for_each(|v| *v = round_to_bf16(*v));
}

/// A constant right-hand matrix with its values rounded to bf16 (kept in fp32 for the
/// emulating kernel).
#[derive(Debug, Clone)]
pub struct PackedMatrixBf16(PackedMatrix);

impl PackedMatrixBf16 {
    /// Rounds and packs row-major `b` (`k x n`).
    pub fn new(b: &[f32], k: usize, n: usize) -> Self {
        let mut rounded = b.to_vec();
        round_slice(&mut rounded);
        PackedMatrixBf16(PackedMatrix::new(&rounded, k, n))
    }

    /// Rows (the inner dimension).
    pub fn k(&self) -> usize {
        self.0.k()
    }

    /// Columns.
    pub fn n(&self) -> usize {
        self.0.n()
    }
}

thread_local! {
    /// The left matrix rounded, per thread, grown only when a larger product comes.
    static ROUNDED: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// `C = A * B` (or `C += A * B` when `accumulate`) with `A` rounded to bf16 on the way in.
/// `a` holds `m` rows of `b.k()` values at stride `lda`; `c` holds `m` rows of `b.n()` values.
pub fn gemm_bf16(
    m: usize,
    a: &[f32],
    lda: usize,
    b: &PackedMatrixBf16,
    c: &mut [f32],
    accumulate: bool,
) {
    let k = b.k();
    ROUNDED.with(|rounded| {
        let mut rounded = rounded.borrow_mut();
        if rounded.len() < m * k {
            rounded.resize(m * k, 0.0);
        }
        for (i, dst) in rounded[..m * k].chunks_exact_mut(k).enumerate() {
            dst.copy_from_slice(&a[i * lda..i * lda + k]);
            round_slice(dst);
        }
        gemm(m, &rounded[..m * k], k, &b.0, c, accumulate);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nearest bf16 by search: the two bf16 values around `x` (its top 16 bits, and
    /// one more unit), whichever is nearer in f64, the even one on a tie.
    fn nearest_bf16_slow(x: f32) -> f32 {
        let down = f32::from_bits(x.to_bits() & 0xffff_0000);
        let up = f32::from_bits((x.to_bits() & 0xffff_0000) + 0x1_0000);
        let (dd, du) = ((x as f64 - down as f64).abs(), (up as f64 - x as f64).abs());
        if dd < du || (dd == du && (down.to_bits() >> 16) & 1 == 0) {
            down
        } else {
            up
        }
    }

    #[test]
    fn rounding_matches_a_search_for_the_nearest_bf16() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut checked = 0;
        for i in 0..200_000u32 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Random bit patterns, and ties: values with exactly half a unit below the cut.
            let bits = if i % 4 == 0 {
                (state as u32 & 0xffff_0000) | 0x8000
            } else {
                state as u32
            };
            let x = f32::from_bits(bits);
            if !x.is_finite() || x.is_subnormal() || x.abs() > 3.0e38 {
                continue;
            }
            let (got, want) = (round_to_bf16(x), nearest_bf16_slow(x));
            assert_eq!(got.to_bits(), want.to_bits(), "{x:e}: {got:e} vs {want:e}");
            assert_eq!(got.to_bits() & 0xffff, 0);
            checked += 1;
        }
        assert!(checked > 100_000);
        assert_eq!(round_to_bf16(1.0 + 1.0 / 256.0), 1.0, "a tie goes to even");
        assert_eq!(round_to_bf16(1.0 + 3.0 / 256.0), 1.0 + 4.0 / 256.0);
        assert_eq!(round_to_bf16(-1e-40).to_bits(), (-0.0f32).to_bits());
        assert_eq!(round_to_bf16(f32::MAX), f32::INFINITY);
        assert!(round_to_bf16(f32::NAN).is_nan());
        assert_eq!(round_to_bf16(f32::NEG_INFINITY), f32::NEG_INFINITY);
    }

    #[test]
    fn the_product_is_the_rounded_operands_product_on_ragged_shapes() {
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
        };
        for &(m, k, n, lda) in &[
            (1, 1, 1, 1),
            (5, 17, 33, 20),
            (19, 40, 16, 40),
            (7, 3, 50, 9),
        ] {
            let a: Vec<f32> = (0..m * lda).map(|_| next()).collect();
            let b: Vec<f32> = (0..k * n).map(|_| next()).collect();
            let packed = PackedMatrixBf16::new(&b, k, n);
            for accumulate in [false, true] {
                let start: Vec<f32> = (0..m * n).map(|_| next()).collect();
                let mut c = start.clone();
                gemm_bf16(m, &a, lda, &packed, &mut c, accumulate);
                for i in 0..m {
                    for j in 0..n {
                        let mut want = if accumulate {
                            start[i * n + j] as f64
                        } else {
                            0.0
                        };
                        for t in 0..k {
                            want += round_to_bf16(a[i * lda + t]) as f64
                                * round_to_bf16(b[t * n + j]) as f64;
                        }
                        let got = c[i * n + j] as f64;
                        assert!(
                            (got - want).abs() < 1e-5 * (1.0 + k as f64),
                            "{got} vs {want}"
                        );
                    }
                }
            }
        }
    }
}
