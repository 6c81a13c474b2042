//! The AVX2+FMA kernel: micro-tiles of 6 rows by one 16-wide panel.

use super::matrix::{store_row, PackedMatrix, KC, PANEL};
use std::arch::x86_64::*;

/// Rows per micro-tile: 6 rows x 16 columns = 12 accumulators.
const ROWS: usize = 6;

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
    unsafe {
        let n = b.n;
        let panels = n.div_ceil(PANEL);
        // A ragged panel's tile, written whole by the micro-kernel before it is read.
        let mut tile = [[0.0f32; PANEL]; ROWS];
        let mut k0 = 0;
        while k0 < b.k {
            let k1 = (k0 + KC).min(b.k);
            let add = accumulate || k0 > 0;
            for p in 0..panels {
                let cols = PANEL.min(n - p * PANEL);
                let mut i = 0;
                while i < m {
                    let rows = ROWS.min(m - i);
                    // Full panels go straight to C; a ragged last panel through `tile`.
                    let direct =
                        (cols == PANEL).then(|| (c.as_mut_ptr().add(i * n + p * PANEL), n, add));
                    match rows {
                        6 => tile_kernel::<6>(a, i, lda, b, p, k0, k1, &mut tile, direct),
                        5 => tile_kernel::<5>(a, i, lda, b, p, k0, k1, &mut tile, direct),
                        4 => tile_kernel::<4>(a, i, lda, b, p, k0, k1, &mut tile, direct),
                        3 => tile_kernel::<3>(a, i, lda, b, p, k0, k1, &mut tile, direct),
                        2 => tile_kernel::<2>(a, i, lda, b, p, k0, k1, &mut tile, direct),
                        _ => tile_kernel::<1>(a, i, lda, b, p, k0, k1, &mut tile, direct),
                    }
                    if direct.is_none() {
                        for r in 0..rows {
                            store_row(&tile[r], &mut c[(i + r) * n + p * PANEL..], cols, add);
                        }
                    }
                    i += rows;
                }
            }
            k0 = k1;
        }
    }
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
