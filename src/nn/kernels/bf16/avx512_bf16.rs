//! The AVX512-BF16 kernel: rows rounded to bf16 pairs, matrices packed as pairs, and the
//! `vdpbf16ps` micro-kernel on the fp32 AVX-512 kernel's walk over C.

use crate::nn::kernels::fp32::avx512::{walk, write_tile, Direct, MicroKernel, Tile, ROWS};
use crate::nn::kernels::fp32::matrix::{KC, PANEL};
use std::arch::x86_64::*;

/// Rounds `m` rows of `k` values (stride `lda`) to bf16, nearest even with subnormals
/// flushed, as `vcvtne2ps2bf16` does, into rows of `ceil(k / 2)` pairs (the last one
/// zero-padded when `k` is odd).
#[target_feature(enable = "avx512f,avx512bf16")]
pub unsafe fn round_rows(m: usize, a: &[f32], lda: usize, k: usize, out: &mut [u32]) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
        use crate::nn::kernels::vecmath::avx512::lanes;
        let row_pairs = k.div_ceil(2);
        // Whole blocks of 32 without masks (AMD runs masked stores slowly), then the ragged
        // end with them.
        let body = k - k % 32;
        for i in 0..m {
            let src = a.as_ptr().add(i * lda);
            let dst = out.as_mut_ptr().add(i * row_pairs);
            let mut at = 0;
            while at < body {
                let lo = _mm512_loadu_ps(src.add(at));
                let hi = _mm512_loadu_ps(src.add(at + 16));
                let packed: __m512i = std::mem::transmute(_mm512_cvtne2ps_pbh(hi, lo));
                _mm512_storeu_si512(dst.add(at / 2) as *mut __m512i, packed);
                at += 32;
            }
            if at < k {
                let rest = k - at;
                let lo = _mm512_maskz_loadu_ps(lanes(rest), src.add(at));
                let hi = _mm512_maskz_loadu_ps(lanes(rest.saturating_sub(16)), src.add(at + 16));
                let packed: __m512i = std::mem::transmute(_mm512_cvtne2ps_pbh(hi, lo));
                let words = lanes(rest.div_ceil(2));
                _mm512_mask_storeu_epi32(dst.add(at / 2) as *mut i32, words, packed);
            }
        }
    }
}

/// For each of `m` rows of `k` scores (stride `k`): `e^(x - max)` rounded to bf16 pairs as
/// [`round_rows`] lays them out, and the sum of the unrounded exponentials into `sums`.
#[target_feature(enable = "avx512f,avx512bf16")]
pub unsafe fn exp_rows(m: usize, s: &[f32], k: usize, out: &mut [u32], sums: &mut [f32]) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
        use crate::nn::kernels::vecmath::avx512::{exp16_coarse, lanes, row_max};
        let row_pairs = k.div_ceil(2);
        // Whole blocks of 32 without masks (AMD runs masked loads and stores slowly), then
        // the ragged end with them.
        let body = k - k % 32;
        for (i, sum) in sums.iter_mut().enumerate().take(m) {
            let src = s.as_ptr().add(i * k);
            let dst = out.as_mut_ptr().add(i * row_pairs);
            let shift = _mm512_set1_ps(row_max(src, k));
            let (mut sum_lo, mut sum_hi) = (_mm512_setzero_ps(), _mm512_setzero_ps());
            let mut at = 0;
            while at < body {
                let lo = exp16_coarse(_mm512_sub_ps(_mm512_loadu_ps(src.add(at)), shift));
                let hi = exp16_coarse(_mm512_sub_ps(_mm512_loadu_ps(src.add(at + 16)), shift));
                sum_lo = _mm512_add_ps(sum_lo, lo);
                sum_hi = _mm512_add_ps(sum_hi, hi);
                let packed: __m512i = std::mem::transmute(_mm512_cvtne2ps_pbh(hi, lo));
                _mm512_storeu_si512(dst.add(at / 2) as *mut __m512i, packed);
                at += 32;
            }
            if at < k {
                let rest = k - at;
                let (lo_mask, hi_mask) = (lanes(rest), lanes(rest.saturating_sub(16)));
                let lo = _mm512_maskz_mov_ps(
                    lo_mask,
                    exp16_coarse(_mm512_sub_ps(
                        _mm512_maskz_loadu_ps(lo_mask, src.add(at)),
                        shift,
                    )),
                );
                let hi = _mm512_maskz_mov_ps(
                    hi_mask,
                    exp16_coarse(_mm512_sub_ps(
                        _mm512_maskz_loadu_ps(hi_mask, src.add(at + 16)),
                        shift,
                    )),
                );
                sum_lo = _mm512_add_ps(sum_lo, lo);
                sum_hi = _mm512_add_ps(sum_hi, hi);
                let packed: __m512i = std::mem::transmute(_mm512_cvtne2ps_pbh(hi, lo));
                let words = lanes(rest.div_ceil(2));
                _mm512_mask_storeu_epi32(dst.add(at / 2) as *mut i32, words, packed);
            }
            *sum = _mm512_reduce_add_ps(_mm512_add_ps(sum_lo, sum_hi));
        }
    }
}

/// Packs the `k x n` matrix `B[row][col] = src[row * stride + col]` as pairs of rows:
/// lane `j` of pair-row `t` in panel `p` holds column `16p + j` of rows `2t` (low half) and
/// `2t + 1` (high half), rounded as `vcvtneps2bf16` rounds, zero past `k` and `n`. `out`
/// holds `ceil(n / 16) * ceil(k / 2) * 16` words.
#[target_feature(enable = "avx512f,avx512bf16")]
pub unsafe fn pack_row_pairs(src: &[f32], k: usize, n: usize, stride: usize, out: &mut [u32]) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
        let pairs = k.div_ceil(2);
        let panels = n.div_ceil(PANEL);
        debug_assert!(out.len() >= panels * pairs * PANEL);
        let src = src.as_ptr();
        let out = out.as_mut_ptr();
        for p in 0..panels {
            let cols = PANEL.min(n - p * PANEL);
            let mask: __mmask16 = if cols == PANEL {
                0xffff
            } else {
                (1u16 << cols) - 1
            };
            for t in 0..pairs {
                let low = _mm512_maskz_loadu_ps(mask, src.add(2 * t * stride + p * PANEL));
                let high = if 2 * t + 1 < k {
                    _mm512_maskz_loadu_ps(mask, src.add((2 * t + 1) * stride + p * PANEL))
                } else {
                    _mm512_setzero_ps()
                };
                let low: __m256i = std::mem::transmute(_mm512_cvtneps_pbh(low));
                let high: __m256i = std::mem::transmute(_mm512_cvtneps_pbh(high));
                let words = _mm512_or_si512(
                    _mm512_cvtepu16_epi32(low),
                    _mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(high)),
                );
                _mm512_storeu_si512(out.add((p * pairs + t) * PANEL) as *mut __m512i, words);
            }
        }
    }
}

/// The bf16 operands of one product, as pairs.
struct Pairs<'a> {
    a: &'a [u32],
    b: &'a [u32],
    /// Pairs per row of `a` and per panel row of `b`.
    pairs: usize,
}

impl MicroKernel for Pairs<'_> {
    #[target_feature(enable = "avx512f,avx512bf16")]
    unsafe fn tile<const R: usize, const P: usize>(
        &self,
        i: usize,
        p: usize,
        t0: usize,
        t1: usize,
        tile: &mut Tile,
        direct: Direct,
    ) {
        // SAFETY: this fn's contract: the CPU has its target features, and the operands
        // cover the shapes it is given (its safe caller checked both).
        unsafe {
            let pairs = self.pairs;
            let a = self.a.as_ptr().add(i * pairs);
            let panel0 = self.b.as_ptr().add(p * pairs * PANEL);
            let panel1 = if P == 2 {
                panel0.add(pairs * PANEL)
            } else {
                panel0
            };
            let mut acc0 = [_mm512_setzero_ps(); R];
            let mut acc1 = [_mm512_setzero_ps(); R];
            for t in t0..t1 {
                let b0: __m512bh = std::mem::transmute(_mm512_loadu_si512(
                    panel0.add(t * PANEL) as *const __m512i
                ));
                let b1: __m512bh = std::mem::transmute(_mm512_loadu_si512(
                    panel1.add(t * PANEL) as *const __m512i
                ));
                for r in 0..R {
                    let x: __m512bh =
                        std::mem::transmute(_mm512_set1_epi32(*a.add(r * pairs + t) as i32));
                    acc0[r] = _mm512_dpbf16_ps(acc0[r], x, b0);
                    if P == 2 {
                        acc1[r] = _mm512_dpbf16_ps(acc1[r], x, b1);
                    }
                }
            }
            write_tile!(R, P, acc0, acc1, tile, direct);
        }
    }
}

/// `C = A * B` (or `+=`): `a` holds `m` rows of `ceil(k / 2)` bf16 pairs, `b` the packed
/// pairs of a `k x n` matrix.
#[target_feature(enable = "avx512f,avx512bf16")]
pub unsafe fn run(
    m: usize,
    a: &[u32],
    b: &[u32],
    k: usize,
    n: usize,
    c: &mut [f32],
    accumulate: bool,
) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
        let pairs = k.div_ceil(2);
        debug_assert!(a.len() >= m * pairs && b.len() >= n.div_ceil(PANEL) * pairs * PANEL);
        walk(&Pairs { a, b, pairs }, m, n, pairs, KC / 2, c, accumulate);
    }
}
