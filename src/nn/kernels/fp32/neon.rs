//! The NEON kernel: micro-tiles of 6 rows by one 16-wide panel, each row's panel in four
//! 4-lane registers (24 accumulators of AArch64's 32 vector registers).

use super::matrix::{store_row, walk_six_row_tiles, PackedMatrix, KC, PANEL};
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
    unsafe { walk_six_row_tiles!(tile_kernel, m, a, lda, b, c, accumulate) }
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
