//! Eight-bit matrix product for `--precision int8`: `C (m x n) = A (m x k) * B (k x n) [+ C]`
//! with `B` quantized once at load (symmetric, one scale per column) and `A` quantized per call
//! (symmetric, one scale per row). Products are summed exactly in 32-bit integers; the result is
//! `sum * a_scale[i] * b_scale[j]`. Every kernel gives the same integers, so the same floats.
//!
//! Four kernels, chosen at run time ([`best_isa`], as [`cpu`] allows):
//! - **AVX512-VNNI** (Zen 4 and later, Intel since Ice Lake): `vpdpbusd` sums four unsigned by
//!   signed byte products into each of 16 lanes, 64 multiply-adds per instruction where an fp32
//!   FMA does 16. Its unsigned side is `A` offset by 128 (the sign bit flipped when the row is
//!   quantized); the offset's share, `128 * sum_t B(t, j)`, is taken off each column's sums.
//! - **AVX-VNNI** (Intel since Alder Lake, Zen 5): `vpdpbusd` on 256-bit registers, fed as the AVX2
//!   kernel feeds its multiplier.
//! - **AVX2**: `vpmaddubsw` (unsigned by signed bytes, pairs summed into 16 bits) and `vpmaddwd`
//!   (pairs of those into 32 bits): 32 multiply-adds per two multiplier instructions, where an fp32
//!   FMA does 8. `vpmaddubsw` wants one unsigned side: the kernel feeds it `|a|` and `b` with `a`'s
//!   sign (`vpsignb`). Both sides stay within ±127, so a pair sums to at most 2 * 127 * 127 = 32258
//!   and the 16-bit sums never saturate.
//! - **Portable** Rust, the twin of the others in the tests.
//!
//! `B` is packed in panels of 16 columns, each a run of `k/4` blocks of 16 columns x 4 rows
//! (64 bytes: a column's four consecutive rows side by side), as the kernels load them.

#[cfg(target_arch = "x86_64")]
use super::avx2;
#[cfg(target_arch = "x86_64")]
use super::avx512_vnni;
use super::matrix::{quantize_row, PackedMatrixI8, QuantizedRows, QUAD};
use super::portable;
use crate::nn::kernels::cpu::{self, Isa};
use crate::nn::kernels::fp32::matrix::check_shapes;
use std::cell::RefCell;
use std::sync::OnceLock;

/// The levels with an int8 kernel, lowest first.
pub const KERNELS: &[Isa] = &[
    Isa::Portable,
    #[cfg(target_arch = "x86_64")]
    Isa::Avx2,
    #[cfg(target_arch = "x86_64")]
    Isa::AvxVnni,
    #[cfg(target_arch = "x86_64")]
    Isa::Avx512Vnni,
];

/// An int8 kernel's name, for stderr.
pub fn kernel_name(isa: Isa) -> &'static str {
    match isa {
        Isa::Avx2 => "AVX2 vpmaddubsw",
        Isa::AvxVnni => "AVX-VNNI vpdpbusd",
        Isa::Avx512Vnni => "AVX512-VNNI vpdpbusd",
        _ => "portable",
    }
}

/// The kernel [`gemm_i8`] runs (chosen once).
pub fn best_isa() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| cpu::best_of(KERNELS))
}

/// Quantizes `m` rows of `k` values of `a` (stride `lda`) into `rows` for kernel `isa`.
fn fill(rows: &mut QuantizedRows, m: usize, a: &[f32], lda: usize, k: usize, isa: Isa) {
    let k_padded = k.div_ceil(QUAD) * QUAD;
    rows.k_padded = k_padded;
    if rows.data.len() < m * k_padded {
        rows.data.resize(m * k_padded, 0);
    }
    if rows.scale.len() < m {
        rows.scale.resize(m, 0.0);
    }
    for i in 0..m {
        let src = &a[i * lda..i * lda + k];
        let dst = &mut rows.data[i * k_padded..(i + 1) * k_padded];
        rows.scale[i] = match isa {
            // SAFETY: every x86 kernel's level implies AVX2, which the CPU has (checked by
            // the caller, `gemm_i8_with`); `dst` holds at least `src.len()` bytes.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 | Isa::AvxVnni | Isa::Avx512Vnni => unsafe { avx2::quantize_row(src, dst) },
            _ => quantize_row(src, dst),
        };
        #[cfg(target_arch = "x86_64")]
        if isa == Isa::Avx512Vnni {
            // Two's complement with the sign bit flipped is the value plus 128, unsigned.
            dst.iter_mut().for_each(|v| *v ^= i8::MIN);
        }
    }
}

thread_local! {
    static ROWS: RefCell<QuantizedRows> = RefCell::new(QuantizedRows::default());
}

/// `C = A * B` (or `C += A * B` when `accumulate`) with `A` quantized per row on the way in.
/// `a` holds `m` rows of `b.k()` values at stride `lda`; `c` holds `m` rows of `b.n()` values.
pub fn gemm_i8(
    m: usize,
    a: &[f32],
    lda: usize,
    b: &PackedMatrixI8,
    c: &mut [f32],
    accumulate: bool,
) {
    gemm_i8_with(best_isa(), m, a, lda, b, c, accumulate);
}

/// [`gemm_i8`] with a chosen kernel; panics if the CPU lacks it.
pub fn gemm_i8_with(
    isa: Isa,
    m: usize,
    a: &[f32],
    lda: usize,
    b: &PackedMatrixI8,
    c: &mut [f32],
    accumulate: bool,
) {
    assert!(
        KERNELS.contains(&isa) && isa.on_cpu(),
        "no int8 {} kernel on this CPU",
        isa.name()
    );
    if !check_shapes(m, a, lda, b.k, c, b.n) {
        return;
    }
    ROWS.with(|rows| {
        let mut rows = rows.borrow_mut();
        fill(&mut rows, m, a, lda, b.k, isa);
        // SAFETY (the x86 kernels): the CPU has the kernel's instructions (checked above);
        // `rows` holds `m` rows of `k_padded` bytes, `b` its panels and `c` at least `m * n`
        // floats (checked above).
        match isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { avx2::run_avx2(m, &rows, b, c, accumulate) },
            #[cfg(target_arch = "x86_64")]
            Isa::AvxVnni => unsafe { avx2::run_vnni(m, &rows, b, c, accumulate) },
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512Vnni => unsafe { avx512_vnni::run(m, &rows, b, c, accumulate) },
            _ => portable::run(m, &rows, b, c, accumulate),
        }
    });
}
