//! Tests of the fp32 product: each kernel against a naive product and the portable kernel.

use super::gemm::{gemm_with, KERNELS};
use super::matrix::PackedMatrix;
use crate::nn::kernels::cpu::Isa;
use crate::nn::kernels::tested::run_each;

/// The name the kernel record knows this family by.
pub(in crate::nn::kernels) const FAMILY: &str = "fp32 gemm";

/// Each kernel against a naive f64 product and against the portable kernel, accumulating and
/// not, on ragged shapes.
#[test]
pub(in crate::nn::kernels) fn every_kernel_matches_a_naive_product_on_ragged_sizes() {
    let test = "every_kernel_matches_a_naive_product_on_ragged_sizes";
    for &(m, k, n) in &[
        (1, 1, 1),
        (13, 7, 3),
        (25, 22, 96),
        (361, 864, 96),
        (30, 33, 40),
        (7, 96, 17),
    ] {
        let a: Vec<f32> = (0..m * (k + 3))
            .map(|i| ((i * 37 % 23) as f32 - 11.0) * 0.1)
            .collect();
        let b: Vec<f32> = (0..k * n)
            .map(|i| ((i * 53 % 19) as f32 - 9.0) * 0.1)
            .collect();
        let packed = PackedMatrix::new(&b, k, n);
        let lda = k + 3;
        let mut want = vec![0.0f64; m * n];
        for i in 0..m {
            for j in 0..n {
                want[i * n + j] = 0.5
                    + (0..k)
                        .map(|t| a[i * lda + t] as f64 * b[t * n + j] as f64)
                        .sum::<f64>();
            }
        }
        let mut twin = vec![0.5f32; m * n];
        gemm_with(Isa::Portable, m, &a, lda, &packed, &mut twin, true);
        run_each(test, FAMILY, KERNELS, |isa| {
            let mut c = vec![0.5f32; m * n];
            gemm_with(isa, m, &a, lda, &packed, &mut c, true);
            for (idx, ((&got, &w), &p)) in c.iter().zip(&want).zip(&twin).enumerate() {
                assert!(
                    (got as f64 - w).abs() < 1e-3 * (1.0 + w.abs()),
                    "{isa:?} {m}x{k}x{n} at {idx}: {got} vs {w}"
                );
                assert!(
                    (got - p).abs() <= 1e-4 * (1.0 + p.abs()),
                    "{isa:?} {m}x{k}x{n} at {idx}: {got} vs the portable kernel's {p}"
                );
            }
            // Overwriting: every element replaced (a NaN left anywhere fails).
            let mut c = vec![f32::NAN; m * n];
            gemm_with(isa, m, &a, lda, &packed, &mut c, false);
            for (idx, (&got, &w)) in c.iter().zip(&want).enumerate() {
                let w = w - 0.5;
                assert!(
                    (got as f64 - w).abs() < 1e-3 * (1.0 + w.abs()),
                    "{isa:?} {m}x{k}x{n} overwrite at {idx}: {got} vs {w}"
                );
            }
        });
    }
}
