//! The AVX2+FMA kernel: micro-tiles of 6 rows by one 16-wide panel (12 accumulators), walked
//! over `C` by [`walk_six_row_tiles`].

use super::matrix::{store_row, walk_six_row_tiles, PackedMatrix, KC, PANEL};
use std::arch::x86_64::*;

#[target_feature(enable = "avx2,fma")]
pub unsafe fn run(
    m: usize,
    a: &[f32],
    lda: usize,
    b: &PackedMatrix,
    c: &mut [f32],
    accumulate: bool,
) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe { walk_six_row_tiles!(tile_kernel, m, a, lda, b, c, accumulate) }
}

#[inline]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)] // the micro-kernel's loop state, kept in registers
unsafe fn tile_kernel<const R: usize>(
    a: &[f32],
    i: usize,
    lda: usize,
    b: &PackedMatrix,
    p: usize,
    k0: usize,
    k1: usize,
    tile: &mut [[f32; PANEL]; 6],
    direct: Option<(*mut f32, usize, bool)>,
) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
        let panel = b.panel(p).as_ptr();
        let a = a.as_ptr().add(i * lda);
        let mut lo = [_mm256_setzero_ps(); R];
        let mut hi = [_mm256_setzero_ps(); R];
        for kk in k0..k1 {
            let b0 = _mm256_loadu_ps(panel.add(kk * PANEL));
            let b1 = _mm256_loadu_ps(panel.add(kk * PANEL + 8));
            for r in 0..R {
                let x = _mm256_broadcast_ss(&*a.add(r * lda + kk));
                lo[r] = _mm256_fmadd_ps(x, b0, lo[r]);
                hi[r] = _mm256_fmadd_ps(x, b1, hi[r]);
            }
        }
        match direct {
            Some((c, ldc, add)) => {
                for r in 0..R {
                    let row = c.add(r * ldc);
                    let (mut l, mut h) = (lo[r], hi[r]);
                    if add {
                        l = _mm256_add_ps(l, _mm256_loadu_ps(row));
                        h = _mm256_add_ps(h, _mm256_loadu_ps(row.add(8)));
                    }
                    _mm256_storeu_ps(row, l);
                    _mm256_storeu_ps(row.add(8), h);
                }
            }
            None => {
                for r in 0..R {
                    _mm256_storeu_ps(tile[r].as_mut_ptr(), lo[r]);
                    _mm256_storeu_ps(tile[r].as_mut_ptr().add(8), hi[r]);
                }
            }
        }
    }
}
