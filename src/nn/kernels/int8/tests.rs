//! Tests of the int8 product: each kernel's sums against the portable kernel's (equal), and
//! the AVX2 row quantizer against the portable one.

use super::gemm::{gemm_i8_with, KERNELS};
use super::matrix::{quantize_row, PackedMatrixI8};
use crate::nn::kernels::cpu::Isa;
use crate::nn::kernels::tested::run_each;

/// The name the kernel record knows this family by.
pub(in crate::nn::kernels) const FAMILY: &str = "int8 gemm";
/// The row quantizer's name in the record, and its levels past the portable one.
pub(in crate::nn::kernels) const QUANTIZER: &str = "int8 row quantizer";
pub(in crate::nn::kernels) const QUANTIZER_KERNELS: &[Isa] = &[
    #[cfg(target_arch = "x86_64")]
    Isa::Avx2,
];

fn matrix(len: usize, seed: usize) -> Vec<f32> {
    (0..len)
        .map(|i| ((i * 37 + seed * 11) % 23) as f32 * 0.13 - 1.4 + (i % 5) as f32 * 0.01)
        .collect()
}

#[test]
pub(in crate::nn::kernels) fn every_kernel_gives_the_same_sums_and_stays_near_the_float_product() {
    let test = "every_kernel_gives_the_same_sums_and_stays_near_the_float_product";
    run_each(test, FAMILY, KERNELS, same_sums_as_the_portable_kernel);
}

/// Kernel `isa` against the portable one (the same floats) and the float product.
fn same_sums_as_the_portable_kernel(isa: Isa) {
    // Ragged rows (every tile height of every kernel), panels (one, two, three, odd
    // widths) and inner sizes (not a multiple of four).
    for &(m, k, n) in &[
        (1, 1, 1),
        (13, 7, 3),
        (25, 22, 96),
        (361, 384, 40),
        (30, 33, 40),
        (7, 96, 17),
        (5, 64, 16),
        (9, 5, 33),
        (17, 130, 48),
        (6, 3, 31),
    ] {
        let lda = k + 3;
        let a = matrix(m * lda, 1);
        let b = matrix(k * n, 2);
        let packed = PackedMatrixI8::new(&b, k, n);
        let mut outputs = Vec::new();
        for isa in [Isa::Portable, isa] {
            let mut c = vec![0.5f32; m * n];
            gemm_i8_with(isa, m, &a, lda, &packed, &mut c, true);
            let mut fresh = vec![f32::NAN; m * n];
            gemm_i8_with(isa, m, &a, lda, &packed, &mut fresh, false);
            for (x, y) in c.iter().zip(&fresh) {
                assert!(
                    (x - 0.5 - y).abs() <= 1e-4 * (1.0 + y.abs()),
                    "{isa:?} accumulate"
                );
            }
            outputs.push((isa, fresh));
        }
        for (isa, c) in &outputs[1..] {
            assert_eq!(
                c, &outputs[0].1,
                "{isa:?} against the portable kernel, {m}x{k}x{n}"
            );
        }
        // Against the float product: each term errs by at most half a step on each side.
        let c = &outputs[0].1;
        for i in 0..m {
            let row = &a[i * lda..i * lda + k];
            let a_step = row.iter().fold(0.0f32, |s, v| s.max(v.abs())) / 127.0;
            for j in 0..n {
                let (mut exact, mut bound) = (0.0f64, 0.0f64);
                let b_step = (0..k).map(|t| b[t * n + j].abs()).fold(0.0f32, f32::max) / 127.0;
                for t in 0..k {
                    let (x, y) = (row[t] as f64, b[t * n + j] as f64);
                    exact += x * y;
                    bound += 0.5 * (a_step as f64 * y.abs() + b_step as f64 * x.abs())
                        + 0.25 * (a_step * b_step) as f64;
                }
                let got = c[i * n + j] as f64;
                assert!(
                    (got - exact).abs() <= bound + 1e-4,
                    "{m}x{k}x{n} at ({i},{j}): {got} vs {exact}, bound {bound}"
                );
            }
        }
    }
}

#[test]
pub(in crate::nn::kernels) fn quantizing_a_row_in_avx2_gives_the_portable_bytes() {
    let src: Vec<f32> = (0..77)
        .map(|i| ((i * 29) % 31) as f32 * 0.37 - 5.1)
        .collect();
    let mut want = vec![0i8; 80];
    let scale = quantize_row(&src, &mut want);
    #[cfg(target_arch = "x86_64")]
    run_each(
        "quantizing_a_row_in_avx2_gives_the_portable_bytes",
        QUANTIZER,
        QUANTIZER_KERNELS,
        |_| {
            let mut got = vec![7i8; 80];
            // SAFETY: run_each runs this only where the CPU has AVX2.
            let s = unsafe { super::avx2::quantize_row(&src, &mut got) };
            assert_eq!(s, scale);
            assert_eq!(got, want);
        },
    );
    assert!(want.iter().all(|&v| (-127..=127).contains(&v)));
    assert_eq!(want.iter().map(|v| v.unsigned_abs()).max(), Some(127));
    // The bytes times the scale give the row back within half a step.
    for (&q, &x) in want.iter().zip(&src) {
        assert!(
            (f32::from(q) * scale - x).abs() <= 0.5 * scale + 1e-5,
            "{q} vs {x}"
        );
    }
}
