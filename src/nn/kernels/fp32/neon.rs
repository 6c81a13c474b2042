//! The NEON kernel: micro-tiles of 6 rows by one 16-wide panel, each row's panel in four
//! 4-lane registers (24 accumulators of AArch64's 32 vector registers).

use super::matrix::{store_row, PackedMatrix, KC, PANEL};
use std::arch::aarch64::*;

/// Rows per micro-tile: 6 rows x 16 columns = 24 accumulators, with the 4 registers of a
/// panel row and a broadcast value of `a` beside them (30 of the 32).
const ROWS: usize = 6;

#[target_feature(enable = "neon")]
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

/// `R` rows of `a` (from row `i`) times panel `p` over `k0..k1`: per step of the inner
/// dimension, four loads of the panel row, `R` broadcast loads of `a`, `4 R` fused
/// multiply-adds.
#[inline]
#[target_feature(enable = "neon")]
#[allow(clippy::too_many_arguments)] // the micro-kernel's loop state, kept in registers
unsafe fn tile_kernel<const R: usize>(
    a: &[f32],
    i: usize,
    lda: usize,
    b: &PackedMatrix,
    p: usize,
    k0: usize,
    k1: usize,
    tile: &mut [[f32; PANEL]; ROWS],
    direct: Option<(*mut f32, usize, bool)>,
) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
        let panel = b.panel(p).as_ptr();
        let a = a.as_ptr().add(i * lda);
        let mut acc = [[vdupq_n_f32(0.0); 4]; R];
        for kk in k0..k1 {
            let row = panel.add(kk * PANEL);
            let bk = [
                vld1q_f32(row),
                vld1q_f32(row.add(4)),
                vld1q_f32(row.add(8)),
                vld1q_f32(row.add(12)),
            ];
            for (r, acc) in acc.iter_mut().enumerate() {
                let x = vld1q_dup_f32(a.add(r * lda + kk));
                for (acc, &b) in acc.iter_mut().zip(&bk) {
                    *acc = vfmaq_f32(*acc, x, b);
                }
            }
        }
        match direct {
            Some((c, ldc, add)) => {
                for (r, acc) in acc.iter().enumerate() {
                    let row = c.add(r * ldc);
                    for (q, &v) in acc.iter().enumerate() {
                        let v = if add {
                            vaddq_f32(v, vld1q_f32(row.add(4 * q)))
                        } else {
                            v
                        };
                        vst1q_f32(row.add(4 * q), v);
                    }
                }
            }
            None => {
                for (r, acc) in acc.iter().enumerate() {
                    for (q, &v) in acc.iter().enumerate() {
                        vst1q_f32(tile[r].as_mut_ptr().add(4 * q), v);
                    }
                }
            }
        }
    }
}
