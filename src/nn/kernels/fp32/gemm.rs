//! Single-precision matrix product `C (m x n) = A (m x k) * B (k x n) [+ C]` against a constant
//! right-hand matrix packed once at load time into 16-column panels ([`PackedMatrix`]).
//!
//! Runtime dispatch picks an AVX-512 or AVX2+FMA micro-kernel (x86-64) or a NEON one (AArch64)
//! when [`cpu`] allows it, a portable loop otherwise; nothing is allocated per call. The left
//! matrix is read in place (row-major, any row stride), so im2col rows and NHWC activations feed
//! it directly.

use super::matrix::{check_shapes, PackedMatrix};
#[cfg(target_arch = "aarch64")]
use super::neon;
use super::portable;
#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512};
use crate::nn::kernels::cpu::{self, Isa};
use std::sync::OnceLock;

/// The levels with an fp32 kernel, lowest first.
pub const KERNELS: &[Isa] = &[
    Isa::Portable,
    #[cfg(target_arch = "aarch64")]
    Isa::Neon,
    #[cfg(target_arch = "x86_64")]
    Isa::Avx2,
    #[cfg(target_arch = "x86_64")]
    Isa::Avx512,
];

/// The kernel [`gemm`] runs (chosen once).
pub fn best_isa() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| cpu::best_of(KERNELS))
}

/// Every kernel this CPU can run, whatever `TENGEN_ISA` says (for tests and benchmarks).
pub fn available_isas() -> Vec<Isa> {
    KERNELS.iter().copied().filter(|isa| isa.on_cpu()).collect()
}

/// `C = A * B` (or `C += A * B` when `accumulate`). `a` holds `m` rows of `b.k()` values at
/// stride `lda`; `c` holds `m` rows of `b.n()` values, contiguous.
pub fn gemm(m: usize, a: &[f32], lda: usize, b: &PackedMatrix, c: &mut [f32], accumulate: bool) {
    gemm_with(best_isa(), m, a, lda, b, c, accumulate);
}

/// [`gemm`] with a chosen kernel; panics if the CPU lacks it or there is no such kernel.
pub fn gemm_with(
    isa: Isa,
    m: usize,
    a: &[f32],
    lda: usize,
    b: &PackedMatrix,
    c: &mut [f32],
    accumulate: bool,
) {
    assert!(
        KERNELS.contains(&isa) && isa.on_cpu(),
        "no fp32 {} kernel on this CPU",
        isa.name()
    );
    if !check_shapes(m, a, lda, b.k(), c, b.n()) {
        return;
    }
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => {
            // SAFETY: the CPU has AVX2 and FMA (checked above); the bounds of a, b, c were
            // checked above and the kernel stays inside them.
            unsafe { avx2::run(m, a, lda, b, c, accumulate) }
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => {
            // SAFETY: as above, with AVX-512F.
            unsafe { avx512::run(m, a, lda, b, c, accumulate) }
        }
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => {
            // SAFETY: the CPU has NEON (checked above); the bounds of a, b, c were checked
            // above and the kernel stays inside them.
            unsafe { neon::run(m, a, lda, b, c, accumulate) }
        }
        _ => portable::run(m, a, lda, b, c, accumulate),
    }
}
