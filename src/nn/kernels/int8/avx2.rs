//! The AVX2 kernel and its AVX-VNNI twin: one loop, two multipliers.
use super::matrix::{quantize_scaled, store_row, PackedMatrixI8, QuantizedRows, PANEL, QMAX, QUAD};
use std::arch::x86_64::*;

/// Rows per micro-tile: 4 rows x 16 columns = 8 accumulators of 8 sums.
const ROWS: usize = 4;

/// `acc` plus, in each 32-bit lane, the four products of `magnitude`'s unsigned bytes by
/// `signed`'s bytes (never saturating: see the module comment).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn madd_avx2(acc: __m256i, magnitude: __m256i, signed: __m256i) -> __m256i {
    let pairs = _mm256_maddubs_epi16(magnitude, signed);
    _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)))
}

/// [`madd_avx2`] in one instruction.
#[inline]
#[target_feature(enable = "avx2,avxvnni")]
unsafe fn madd_vnni(acc: __m256i, magnitude: __m256i, signed: __m256i) -> __m256i {
    _mm256_dpbusd_avx_epi32(acc, magnitude, signed)
}

/// Defines a kernel `run` and its micro-tile `tile` with the given features and multiplier.
macro_rules! kernel {
    ($run:ident, $tile:ident, $features:literal, $madd:ident) => {
        #[target_feature(enable = $features)]
        pub unsafe fn $run(
            m: usize,
            a: &QuantizedRows,
            b: &PackedMatrixI8,
            c: &mut [f32],
            accumulate: bool,
        ) {
            // SAFETY: this fn's contract: the CPU has its target features, and the operands
            // cover the shapes it is given (its safe caller checked both).
            unsafe {
                let n = b.n;
                for p in 0..n.div_ceil(PANEL) {
                    let cols = PANEL.min(n - p * PANEL);
                    let mut i = 0;
                    while i < m {
                        let rows = ROWS.min(m - i);
                        let mut sums = [[0i32; PANEL]; ROWS];
                        match rows {
                            4 => $tile::<4>(a, i, b, p, &mut sums),
                            3 => $tile::<3>(a, i, b, p, &mut sums),
                            2 => $tile::<2>(a, i, b, p, &mut sums),
                            _ => $tile::<1>(a, i, b, p, &mut sums),
                        }
                        for (r, row_sums) in sums.iter().enumerate().take(rows) {
                            store_row(
                                row_sums,
                                a.scale[i + r],
                                &b.scale[p * PANEL..],
                                &mut c[(i + r) * n + p * PANEL..],
                                cols,
                                accumulate,
                            );
                        }
                        i += rows;
                    }
                }
            }
        }

        #[inline]
        #[target_feature(enable = $features)]
        unsafe fn $tile<const R: usize>(
            a: &QuantizedRows,
            i: usize,
            b: &PackedMatrixI8,
            p: usize,
            sums: &mut [[i32; PANEL]; ROWS],
        ) {
            // SAFETY: this fn's contract: the CPU has its target features, and the operands
            // cover the shapes it is given (its safe caller checked both).
            unsafe {
                let kp = a.k_padded;
                let panel = b.panel(p).as_ptr();
                let rows = a.data.as_ptr().add(i * kp);
                let mut lo = [_mm256_setzero_si256(); R];
                let mut hi = [_mm256_setzero_si256(); R];
                for quad in 0..kp / QUAD {
                    let block = panel.add(quad * PANEL * QUAD);
                    let b0 = _mm256_loadu_si256(block as *const __m256i);
                    let b1 = _mm256_loadu_si256(block.add(32) as *const __m256i);
                    for r in 0..R {
                        let four = (rows.add(r * kp + quad * QUAD) as *const i32).read_unaligned();
                        let x = _mm256_set1_epi32(four);
                        let magnitude = _mm256_sign_epi8(x, x);
                        lo[r] = $madd(lo[r], magnitude, _mm256_sign_epi8(b0, x));
                        hi[r] = $madd(hi[r], magnitude, _mm256_sign_epi8(b1, x));
                    }
                }
                for r in 0..R {
                    _mm256_storeu_si256(sums[r].as_mut_ptr() as *mut __m256i, lo[r]);
                    _mm256_storeu_si256(sums[r].as_mut_ptr().add(8) as *mut __m256i, hi[r]);
                }
            }
        }
    };
}

kernel!(run_avx2, tile_avx2, "avx2", madd_avx2);
kernel!(run_vnni, tile_vnni, "avx2,avxvnni", madd_vnni);

/// [`super::matrix::quantize_row`] in AVX2, byte for byte (`cvtps` rounds to nearest, ties to
/// even).
#[target_feature(enable = "avx2")]
pub unsafe fn quantize_row(src: &[f32], dst: &mut [i8]) -> f32 {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
        let k = src.len();
        let sign = _mm256_set1_ps(-0.0);
        let mut largest = _mm256_setzero_ps();
        let mut at = 0;
        while at + 8 <= k {
            let v = _mm256_loadu_ps(src.as_ptr().add(at));
            largest = _mm256_max_ps(largest, _mm256_andnot_ps(sign, v));
            at += 8;
        }
        let mut lanes = [0.0f32; 8];
        _mm256_storeu_ps(lanes.as_mut_ptr(), largest);
        let mut max = lanes.iter().fold(0.0f32, |m, &v| m.max(v));
        for &v in &src[at..] {
            max = max.max(v.abs());
        }
        let scale = max / QMAX;
        if scale <= 0.0 {
            dst.fill(0);
            return scale;
        }
        let inv = _mm256_set1_ps(1.0 / scale);
        let (lo, hi) = (_mm256_set1_ps(-QMAX), _mm256_set1_ps(QMAX));
        let mut at = 0;
        while at + 32 <= k {
            let mut q = [_mm256_setzero_si256(); 4];
            for (g, q) in q.iter_mut().enumerate() {
                let v = _mm256_loadu_ps(src.as_ptr().add(at + 8 * g));
                let scaled = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(v, inv), lo), hi);
                *q = _mm256_cvtps_epi32(scaled);
            }
            // Pack 32 ints to bytes; the packs interleave 128-bit lanes, the permute undoes it.
            let words01 = _mm256_packs_epi32(q[0], q[1]);
            let words23 = _mm256_packs_epi32(q[2], q[3]);
            let bytes = _mm256_packs_epi16(words01, words23);
            let ordered =
                _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
            _mm256_storeu_si256(dst.as_mut_ptr().add(at) as *mut __m256i, ordered);
            at += 32;
        }
        let inv = 1.0 / scale;
        for (d, &v) in dst[at..k].iter_mut().zip(&src[at..]) {
            *d = quantize_scaled(v, inv);
        }
        dst[k..].fill(0);
        scale
    }
}
