//! `vpdpbusd` on 512-bit registers: a 64-byte block of `B` is one register, and a tile is up
//! to 8 rows by two panels (16 accumulators). `A`'s bytes arrive offset by 128 (unsigned).
use super::matrix::{PackedMatrixI8, QuantizedRows, PANEL, QUAD};
use std::arch::x86_64::*;

/// Rows per micro-tile.
const ROWS: usize = 8;

#[target_feature(enable = "avx512f,avx512vnni")]
pub unsafe fn run(
    m: usize,
    a: &QuantizedRows,
    b: &PackedMatrixI8,
    c: &mut [f32],
    accumulate: bool,
) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
        let panels = b.n.div_ceil(PANEL);
        let mut p = 0;
        while p < panels {
            let two = p + 1 < panels;
            let mut i = 0;
            while i < m {
                let rows = ROWS.min(m - i);
                if two {
                    tile_rows::<2>(rows, a, i, b, p, c, accumulate);
                } else {
                    tile_rows::<1>(rows, a, i, b, p, c, accumulate);
                }
                i += rows;
            }
            p += if two { 2 } else { 1 };
        }
    }
}

/// One tile of `rows` rows (1 to [`ROWS`]) by `P` panels.
#[inline]
#[target_feature(enable = "avx512f,avx512vnni")]
unsafe fn tile_rows<const P: usize>(
    rows: usize,
    a: &QuantizedRows,
    i: usize,
    b: &PackedMatrixI8,
    p: usize,
    c: &mut [f32],
    accumulate: bool,
) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
        match rows {
            8 => tile::<8, P>(a, i, b, p, c, accumulate),
            7 => tile::<7, P>(a, i, b, p, c, accumulate),
            6 => tile::<6, P>(a, i, b, p, c, accumulate),
            5 => tile::<5, P>(a, i, b, p, c, accumulate),
            4 => tile::<4, P>(a, i, b, p, c, accumulate),
            3 => tile::<3, P>(a, i, b, p, c, accumulate),
            2 => tile::<2, P>(a, i, b, p, c, accumulate),
            _ => tile::<1, P>(a, i, b, p, c, accumulate),
        }
    }
}

/// Rows `i..i + R` by panels `p..p + P`, sums to `c` as [`super::matrix::store_row`] writes them
/// (`sum * a_scale * b_scale`, in that order, added to `c` when `accumulate`).
#[inline]
#[target_feature(enable = "avx512f,avx512vnni")]
unsafe fn tile<const R: usize, const P: usize>(
    a: &QuantizedRows,
    i: usize,
    b: &PackedMatrixI8,
    p: usize,
    c: &mut [f32],
    accumulate: bool,
) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
        let kp = a.k_padded;
        let panel_len = kp * PANEL;
        let panel = b.data.as_ptr().add(p * panel_len);
        let rows = a.data.as_ptr().add(i * kp);
        let mut acc = [[_mm512_setzero_si512(); P]; R];
        for quad in 0..kp / QUAD {
            let mut block = [_mm512_setzero_si512(); P];
            for (q, block) in block.iter_mut().enumerate() {
                *block = _mm512_loadu_si512(panel.add(q * panel_len + quad * PANEL * QUAD).cast());
            }
            for (r, acc) in acc.iter_mut().enumerate() {
                let four = (rows.add(r * kp + quad * QUAD) as *const i32).read_unaligned();
                let x = _mm512_set1_epi32(four);
                for q in 0..P {
                    acc[q] = _mm512_dpbusd_epi32(acc[q], x, block[q]);
                }
            }
        }
        let n = b.n;
        for q in 0..P {
            let col = (p + q) * PANEL;
            let cols = PANEL.min(n - col);
            let mask: __mmask16 = if cols == PANEL { !0 } else { (1 << cols) - 1 };
            let offset =
                _mm512_slli_epi32::<7>(_mm512_maskz_loadu_epi32(mask, b.col_sum.as_ptr().add(col)));
            let b_scale = _mm512_maskz_loadu_ps(mask, b.scale.as_ptr().add(col));
            for (r, acc) in acc.iter().enumerate() {
                let sums = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[q], offset));
                let scaled =
                    _mm512_mul_ps(_mm512_mul_ps(sums, _mm512_set1_ps(a.scale[i + r])), b_scale);
                let dst = c.as_mut_ptr().add((i + r) * n + col);
                let out = if accumulate {
                    _mm512_add_ps(_mm512_maskz_loadu_ps(mask, dst), scaled)
                } else {
                    scaled
                };
                _mm512_mask_storeu_ps(dst, mask, out);
            }
        }
    }
}
