//! Tests of the bf16 product: rounding against a search for the nearest bf16, and each kernel
//! against the product of the rounded operands (the emulation, its portable twin, computes it).

use super::gemm::{gemm_bf16, softmax_gemm_bf16, PackedMatrixBf16, KERNELS};
use super::round::round_to_bf16;
use crate::nn::kernels::cpu::Isa;
use crate::nn::kernels::tested::run_each;

/// The name the kernel record knows this family by.
pub(in crate::nn::kernels) const FAMILY: &str = "bf16 gemm";

/// The bf16 bits of a value already rounded by [`round_to_bf16`].
#[cfg(target_arch = "x86_64")]
fn bf16_bits(rounded: f32) -> u32 {
    rounded.to_bits() >> 16
}

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

/// The native kernel's rounding of the left matrix (`vcvtne2ps2bf16`) is
/// [`round_to_bf16`], bit for bit: random values, ties, subnormals, odd row lengths.
#[cfg(target_arch = "x86_64")]
#[test]
pub(in crate::nn::kernels) fn native_rounding_of_rows_is_round_to_bf16() {
    let test = "native_rounding_of_rows_is_round_to_bf16";
    run_each(test, FAMILY, &[Isa::Avx512Bf16], |_| {
        native_rounding_of_rows()
    });
}

#[cfg(target_arch = "x86_64")]
fn native_rounding_of_rows() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for &(m, k, lda) in &[
        (3usize, 1usize, 1usize),
        (4, 31, 33),
        (2, 32, 32),
        (5, 67, 70),
        (3, 57, 57),
    ] {
        let a: Vec<f32> = (0..m * lda)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let bits = state as u32;
                let x = match i % 5 {
                    0 => f32::from_bits((bits & 0xffff_0000) | 0x8000), // a tie
                    1 => f32::from_bits(bits & 0x807f_ffff),            // subnormal
                    _ => f32::from_bits(bits & 0xbfff_ffff),            // |x| < 2
                };
                if x.is_nan() {
                    0.5
                } else {
                    x
                }
            })
            .collect();
        let pairs = k.div_ceil(2);
        let mut out = vec![u32::MAX; m * pairs];
        // SAFETY: the CPU has the kernel (checked above); `out` holds m rows of pairs.
        unsafe { super::avx512_bf16::round_rows(m, &a, lda, k, &mut out) };
        for i in 0..m {
            for t in 0..k {
                let got = (out[i * pairs + t / 2] >> (16 * (t % 2))) & 0xffff;
                let want = bf16_bits(round_to_bf16(a[i * lda + t]));
                assert_eq!(got, want, "row {i} col {t} of {k}: {:e}", a[i * lda + t]);
            }
            if k % 2 == 1 {
                assert_eq!(
                    out[i * pairs + pairs - 1] >> 16,
                    0,
                    "odd row padded with zero"
                );
            }
        }
    }
}

/// Uniform values in [-1, 1) from a seeded linear congruential generator.
fn values(seed: u32) -> impl FnMut() -> f32 {
    let mut state = seed;
    move || {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (state >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
    }
}

/// Checks `c` (m x n) against `start` (when accumulating) plus the f64 product of the
/// rounded `a(i, t)` and `b(t, j)` over `k`.
#[allow(clippy::too_many_arguments)] // a product's shape and operands
fn assert_rounded_product(
    what: &str,
    (m, k, n): (usize, usize, usize),
    a: impl Fn(usize, usize) -> f32,
    b: impl Fn(usize, usize) -> f32,
    start: Option<&[f32]>,
    c: &[f32],
) {
    for i in 0..m {
        for j in 0..n {
            let mut want = start.map_or(0.0, |s| s[i * n + j] as f64);
            for t in 0..k {
                want += round_to_bf16(a(i, t)) as f64 * round_to_bf16(b(t, j)) as f64;
            }
            let got = c[i * n + j] as f64;
            assert!(
                (got - want).abs() < 1e-5 * (1.0 + k as f64),
                "{what} {m}x{k}x{n} at ({i}, {j}): {got} vs {want}"
            );
        }
    }
}

#[test]
pub(in crate::nn::kernels) fn the_product_is_the_rounded_operands_product_on_ragged_shapes() {
    let test = "the_product_is_the_rounded_operands_product_on_ragged_shapes";
    run_each(test, FAMILY, KERNELS, products_on_ragged_shapes);
}

fn products_on_ragged_shapes(isa: Isa) {
    let mut next = values(7);
    // Ragged rows (past one and many 12-row tiles), columns (past one and two 16-wide
    // panels), odd inner sizes and ones past a 256-deep block, a row stride wider than the
    // row.
    for &(m, k, n, lda) in &[
        (1, 1, 1, 1),
        (5, 17, 33, 20),
        (19, 40, 16, 40),
        (7, 3, 50, 9),
        (13, 301, 45, 310),
        (25, 64, 96, 64),
        (1, 33, 17, 40),
        (30, 513, 80, 520),
        (205, 300, 50, 300),
    ] {
        let a: Vec<f32> = (0..m * lda).map(|_| next()).collect();
        let b: Vec<f32> = (0..k * n).map(|_| next()).collect();
        for accumulate in [false, true] {
            let packed = PackedMatrixBf16::new_for(isa, &b, k, n);
            assert_eq!((packed.isa(), packed.k(), packed.n()), (isa, k, n));
            let start: Vec<f32> = (0..m * n).map(|_| next()).collect();
            let mut c = start.clone();
            gemm_bf16(m, &a, lda, &packed, &mut c, accumulate);
            assert_rounded_product(
                &format!("{isa:?}"),
                (m, k, n),
                |i, t| a[i * lda + t],
                |t, j| b[t * n + j],
                accumulate.then_some(&start[..]),
                &c,
            );
        }
    }
}

/// Matrices packed per evaluation (attention's keys, transposed, and values, by rows) on
/// every kernel this CPU has: the product is the rounded operands' product, and repacking
/// smaller into the same buffer leaves nothing of the larger matrix behind.
#[test]
pub(in crate::nn::kernels) fn repacked_matrices_multiply_as_their_rounded_values() {
    let mut next = values(11);
    let test = "repacked_matrices_multiply_as_their_rounded_values";
    run_each(test, FAMILY, KERNELS, |isa| {
        let mut rows = PackedMatrixBf16::with_capacity_for(isa, 70, 40);
        let mut transposed = PackedMatrixBf16::with_capacity_for(isa, 40, 70);
        // (k, n, stride): odd and even inner sizes, ragged panels; larger first.
        for &(k, n, stride) in &[(69usize, 37usize, 45usize), (8, 33, 40), (5, 3, 7)] {
            let src: Vec<f32> = (0..k.max(n) * stride.max(k)).map(|_| next()).collect();
            rows.pack_rows(&src, k, n, stride);
            transposed.pack_transposed(&src, k, n, stride);
            assert_eq!((rows.isa(), rows.k(), rows.n()), (isa, k, n));
            let m = 5;
            let a: Vec<f32> = (0..m * k).map(|_| next()).collect();
            for (packed, by_columns) in [(&rows, false), (&transposed, true)] {
                let mut c = vec![f32::NAN; m * n];
                gemm_bf16(m, &a, k, packed, &mut c, false);
                assert_rounded_product(
                    &format!("{isa:?} repacked, transposed {by_columns}"),
                    (m, k, n),
                    |i, t| a[i * k + t],
                    |t, j| {
                        src[if by_columns {
                            j * stride + t
                        } else {
                            t * stride + j
                        }]
                    },
                    None,
                    &c,
                );
            }
        }
    });
}

/// Attention's scores times its values (`softmax_gemm_bf16`) on every kernel this CPU has:
/// within bf16's rounding of the f64 softmax times the rounded values, on score rows
/// shorter than a vector, between one and two, ragged past several, wide-spread or not.
#[test]
pub(in crate::nn::kernels) fn softmax_product_is_the_softmax_times_the_rounded_values() {
    let mut next = values(13);
    let test = "softmax_product_is_the_softmax_times_the_rounded_values";
    run_each(test, FAMILY, KERNELS, |isa| {
        for &(m, k, n, spread) in &[
            (1usize, 1usize, 1usize, 1.0f32),
            (3, 7, 20, 4.0),
            (13, 31, 16, 8.0),
            (5, 33, 40, 2.0),
            (25, 81, 64, 30.0),
            (14, 100, 33, 8.0),
        ] {
            let scores: Vec<f32> = (0..m * k).map(|_| next() * spread).collect();
            let b: Vec<f32> = (0..k * n).map(|_| next()).collect();
            let packed = PackedMatrixBf16::new_for(isa, &b, k, n);
            let mut s = scores.clone();
            let mut c = vec![f32::NAN; m * n];
            softmax_gemm_bf16(m, &mut s, &packed, &mut c);
            for i in 0..m {
                let row = &scores[i * k..(i + 1) * k];
                let max = row.iter().fold(f32::NEG_INFINITY, |x, &v| x.max(v)) as f64;
                let e: Vec<f64> = row.iter().map(|&v| (v as f64 - max).exp()).collect();
                let sum: f64 = e.iter().sum();
                for j in 0..n {
                    let want: f64 = (0..k)
                        .map(|t| e[t] / sum * round_to_bf16(b[t * n + j]) as f64)
                        .sum();
                    let got = c[i * n + j] as f64;
                    // Each weight rounded to bf16 (2^-9 relative), the weights summing
                    // to 1 and the values at most 1.
                    assert!(
                        (got - want).abs() < 4e-3,
                        "{isa:?} {m}x{k}x{n} spread {spread} at ({i}, {j}): {got} vs {want}"
                    );
                }
            }
        }
    });
}
