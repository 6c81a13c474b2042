//! Eight-bit matrix product for `--precision int8`: `C (m x n) = A (m x k) * B (k x n) [+ C]`
//! with `B` quantized once at load (symmetric, one scale per column) and `A` quantized per call
//! (symmetric, one scale per row). Products are summed exactly in 32-bit integers; the result is
//! `sum * a_scale[i] * b_scale[j]`. Every kernel gives the same integers, so the same floats.
//!
//! Four kernels, chosen at run time ([`best_isa`]):
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

use crate::nn::kernels::fp32::gemm::check_shapes;
use std::cell::RefCell;
use std::sync::OnceLock;

/// Columns per panel.
const PANEL: usize = 16;
/// Rows of `B` (inner dimension) per block.
const QUAD: usize = 4;
/// The largest quantized magnitude (never -128, so that `|a|` fits the unsigned side).
const QMAX: f32 = 127.0;

/// A `k x n` matrix quantized to bytes with one scale per column, packed for the kernel.
#[derive(Debug, Clone)]
pub struct PackedMatrixI8 {
    k: usize,
    n: usize,
    /// `k` rounded up to a multiple of [`QUAD`].
    k_padded: usize,
    data: Vec<i8>,
    scale: Vec<f32>,
    /// Each column's sum of its quantized values (the VNNI kernel's offset correction).
    col_sum: Vec<i32>,
}

impl PackedMatrixI8 {
    /// Quantizes and packs row-major `b` (`k x n`).
    pub fn new(b: &[f32], k: usize, n: usize) -> Self {
        assert_eq!(b.len(), k * n, "matrix size");
        let k_padded = k.div_ceil(QUAD) * QUAD;
        let panels = n.div_ceil(PANEL);
        let scale: Vec<f32> = (0..n)
            .map(|col| {
                let largest = (0..k).map(|row| b[row * n + col].abs()).fold(0.0, f32::max);
                largest / QMAX
            })
            .collect();
        let mut data = vec![0i8; panels * k_padded * PANEL];
        let mut col_sum = vec![0i32; n];
        for col in 0..n {
            let (p, j) = (col / PANEL, col % PANEL);
            for row in 0..k {
                let (quad, t) = (row / QUAD, row % QUAD);
                let q = quantize(b[row * n + col], scale[col]);
                data[((p * (k_padded / QUAD) + quad) * PANEL + j) * QUAD + t] = q;
                col_sum[col] += i32::from(q);
            }
        }
        PackedMatrixI8 {
            k,
            n,
            k_padded,
            data,
            scale,
            col_sum,
        }
    }

    /// Rows (the inner dimension).
    pub fn k(&self) -> usize {
        self.k
    }

    /// Columns.
    pub fn n(&self) -> usize {
        self.n
    }

    fn panel(&self, p: usize) -> &[i8] {
        let len = self.k_padded * PANEL;
        &self.data[p * len..(p + 1) * len]
    }
}

/// `x / scale` rounded to the nearest integer within ±127 (0 when the scale is 0).
#[inline]
fn quantize(x: f32, scale: f32) -> i8 {
    if scale > 0.0 {
        (x / scale).round().clamp(-QMAX, QMAX) as i8
    } else {
        0
    }
}

/// The left matrix of one product, quantized per row: kept per thread and grown only when a
/// larger product comes, so evaluations do not allocate once warm.
#[derive(Debug, Default)]
struct QuantizedRows {
    k_padded: usize,
    data: Vec<i8>,
    scale: Vec<f32>,
}

impl QuantizedRows {
    fn fill(&mut self, m: usize, a: &[f32], lda: usize, k: usize, isa: Isa) {
        let k_padded = k.div_ceil(QUAD) * QUAD;
        self.k_padded = k_padded;
        if self.data.len() < m * k_padded {
            self.data.resize(m * k_padded, 0);
        }
        if self.scale.len() < m {
            self.scale.resize(m, 0.0);
        }
        for i in 0..m {
            let src = &a[i * lda..i * lda + k];
            let dst = &mut self.data[i * k_padded..(i + 1) * k_padded];
            self.scale[i] = match isa {
                Isa::Portable => quantize_row(src, dst),
                // SAFETY: every x86 kernel is only chosen (and tested) on a CPU with AVX2.
                #[cfg(target_arch = "x86_64")]
                _ => unsafe { avx2::quantize_row(src, dst) },
            };
            #[cfg(target_arch = "x86_64")]
            if isa == Isa::Avx512Vnni {
                // Two's complement with the sign bit flipped is the value plus 128, unsigned.
                dst.iter_mut().for_each(|v| *v ^= i8::MIN);
            }
        }
    }
}

/// Quantizes one row into `dst` (zero padded past `src.len()`); returns its scale. Rounds
/// `v * (1 / scale)` to nearest, ties to even, as the AVX2 code does, so both give the same
/// bytes.
fn quantize_row(src: &[f32], dst: &mut [i8]) -> f32 {
    let scale = src.iter().fold(0.0f32, |m, v| m.max(v.abs())) / QMAX;
    if scale <= 0.0 {
        dst.fill(0);
        return scale;
    }
    let inv = 1.0 / scale;
    for (d, &v) in dst.iter_mut().zip(src) {
        *d = quantize_scaled(v, inv);
    }
    dst[src.len()..].fill(0);
    scale
}

/// `v * inv` clamped to ±127 and rounded to nearest, ties to even: an activation's byte.
#[inline]
fn quantize_scaled(v: f32, inv: f32) -> i8 {
    (v * inv).clamp(-QMAX, QMAX).round_ties_even() as i8
}

thread_local! {
    static ROWS: RefCell<QuantizedRows> = RefCell::new(QuantizedRows::default());
}

/// The kernels [`gemm_i8`] has, slowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    /// Plain Rust: any CPU.
    Portable,
    /// `vpmaddubsw` and `vpmaddwd` on 256-bit registers.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// `vpdpbusd` on 256-bit registers (VEX-encoded).
    #[cfg(target_arch = "x86_64")]
    AvxVnni,
    /// `vpdpbusd` on 512-bit registers.
    #[cfg(target_arch = "x86_64")]
    Avx512Vnni,
}

impl Isa {
    /// The kernel's name, for stderr and for tests that skip it.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => "AVX2 vpmaddubsw",
            #[cfg(target_arch = "x86_64")]
            Isa::AvxVnni => "AVX-VNNI vpdpbusd",
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512Vnni => "AVX512-VNNI vpdpbusd",
        }
    }

    /// Whether this CPU runs the kernel.
    pub fn available(self) -> bool {
        match self {
            Isa::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Isa::AvxVnni => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("avxvnni")
            }
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512Vnni => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512vnni")
            }
        }
    }
}

/// Every kernel, whether or not this CPU runs it (tests skip the missing ones by name).
pub const ALL_ISAS: &[Isa] = &[
    Isa::Portable,
    #[cfg(target_arch = "x86_64")]
    Isa::Avx2,
    #[cfg(target_arch = "x86_64")]
    Isa::AvxVnni,
    #[cfg(target_arch = "x86_64")]
    Isa::Avx512Vnni,
];

/// The fastest kernel this CPU runs (detected once).
pub fn best_isa() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| {
        ALL_ISAS
            .iter()
            .rev()
            .copied()
            .find(|isa| isa.available())
            .unwrap_or(Isa::Portable)
    })
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
    if !check_shapes(m, a, lda, b.k, c, b.n) {
        return;
    }
    assert!(isa.available(), "the {} kernel on this CPU", isa.name());
    ROWS.with(|rows| {
        let mut rows = rows.borrow_mut();
        rows.fill(m, a, lda, b.k, isa);
        // SAFETY (the x86 kernels): the CPU has the kernel's instructions (checked above);
        // `rows` holds `m` rows of `k_padded` bytes, `b` its panels and `c` at least `m * n`
        // floats (checked above).
        match isa {
            Isa::Portable => portable::run(m, &rows, b, c, accumulate),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { avx2::run_avx2(m, &rows, b, c, accumulate) },
            #[cfg(target_arch = "x86_64")]
            Isa::AvxVnni => unsafe { avx2::run_vnni(m, &rows, b, c, accumulate) },
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512Vnni => unsafe { avx512_vnni::run(m, &rows, b, c, accumulate) },
        }
    });
}

/// Writes `sum * a_scale * b_scale` (or adds it) for the `cols` real columns of a tile row.
#[inline(always)]
fn store_row(
    sums: &[i32; PANEL],
    a_scale: f32,
    b_scale: &[f32],
    dst: &mut [f32],
    cols: usize,
    accumulate: bool,
) {
    for j in 0..cols {
        let v = sums[j] as f32 * a_scale * b_scale[j];
        if accumulate {
            dst[j] += v;
        } else {
            dst[j] = v;
        }
    }
}

mod portable {
    use super::{store_row, PackedMatrixI8, QuantizedRows, PANEL, QUAD};

    pub fn run(m: usize, a: &QuantizedRows, b: &PackedMatrixI8, c: &mut [f32], accumulate: bool) {
        let n = b.n;
        let kp = a.k_padded;
        for p in 0..n.div_ceil(PANEL) {
            let panel = b.panel(p);
            let cols = PANEL.min(n - p * PANEL);
            for i in 0..m {
                let row = &a.data[i * kp..(i + 1) * kp];
                let mut sums = [0i32; PANEL];
                for (quad, block) in panel.chunks_exact(PANEL * QUAD).enumerate() {
                    for (j, sum) in sums.iter_mut().enumerate() {
                        for t in 0..QUAD {
                            *sum += row[quad * QUAD + t] as i32 * block[j * QUAD + t] as i32;
                        }
                    }
                }
                store_row(
                    &sums,
                    a.scale[i],
                    &b.scale[p * PANEL..],
                    &mut c[i * n + p * PANEL..],
                    cols,
                    accumulate,
                );
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The AVX2 kernel and its AVX-VNNI twin: one loop, two multipliers.
    use super::{quantize_scaled, store_row, PackedMatrixI8, QuantizedRows, PANEL, QMAX, QUAD};
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

            #[inline]
            #[target_feature(enable = $features)]
            unsafe fn $tile<const R: usize>(
                a: &QuantizedRows,
                i: usize,
                b: &PackedMatrixI8,
                p: usize,
                sums: &mut [[i32; PANEL]; ROWS],
            ) {
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
        };
    }

    kernel!(run_avx2, tile_avx2, "avx2", madd_avx2);
    kernel!(run_vnni, tile_vnni, "avx2,avxvnni", madd_vnni);

    /// [`super::quantize_row`] in AVX2, byte for byte (`cvtps` rounds to nearest, ties to
    /// even).
    #[target_feature(enable = "avx2")]
    pub unsafe fn quantize_row(src: &[f32], dst: &mut [i8]) -> f32 {
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

#[cfg(target_arch = "x86_64")]
mod avx512_vnni {
    //! `vpdpbusd` on 512-bit registers: a 64-byte block of `B` is one register, and a tile is up
    //! to 8 rows by two panels (16 accumulators). `A`'s bytes arrive offset by 128 (unsigned).
    use super::{PackedMatrixI8, QuantizedRows, PANEL, QUAD};
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

    /// Rows `i..i + R` by panels `p..p + P`, sums to `c` as [`super::store_row`] writes them
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

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(len: usize, seed: usize) -> Vec<f32> {
        (0..len)
            .map(|i| ((i * 37 + seed * 11) % 23) as f32 * 0.13 - 1.4 + (i % 5) as f32 * 0.01)
            .collect()
    }

    /// The kernels this CPU runs; each one it lacks is named on stderr for `test`.
    fn kernels_here(test: &str) -> Vec<Isa> {
        crate::nn::kernels_here(test, ALL_ISAS, Isa::name, Isa::available)
    }

    #[test]
    fn every_kernel_gives_the_same_sums_and_stays_near_the_float_product() {
        let kernels =
            kernels_here("every_kernel_gives_the_same_sums_and_stays_near_the_float_product");
        // Ragged rows (every tile height of every kernel), panels (one, two, three, odd
        // widths) and inner sizes (not a multiple of four).
        for &(m, k, n) in &[
            (1, 1, 1),
            (13, 7, 3),
            (25, 22, 96),
            (361, 384, 40),
            (30, 33, 40),
            (7, 96, 17),
            (5, 64, 16),
            (9, 5, 33),
            (17, 130, 48),
            (6, 3, 31),
        ] {
            let lda = k + 3;
            let a = matrix(m * lda, 1);
            let b = matrix(k * n, 2);
            let packed = PackedMatrixI8::new(&b, k, n);
            let mut outputs = Vec::new();
            for &isa in &kernels {
                let mut c = vec![0.5f32; m * n];
                gemm_i8_with(isa, m, &a, lda, &packed, &mut c, true);
                let mut fresh = vec![f32::NAN; m * n];
                gemm_i8_with(isa, m, &a, lda, &packed, &mut fresh, false);
                for (x, y) in c.iter().zip(&fresh) {
                    assert!(
                        (x - 0.5 - y).abs() <= 1e-4 * (1.0 + y.abs()),
                        "{isa:?} accumulate"
                    );
                }
                outputs.push((isa, fresh));
            }
            for (isa, c) in &outputs[1..] {
                assert_eq!(
                    c, &outputs[0].1,
                    "{isa:?} against the portable kernel, {m}x{k}x{n}"
                );
            }
            // Against the float product: each term errs by at most half a step on each side.
            let c = &outputs[0].1;
            for i in 0..m {
                let row = &a[i * lda..i * lda + k];
                let a_step = row.iter().fold(0.0f32, |s, v| s.max(v.abs())) / 127.0;
                for j in 0..n {
                    let (mut exact, mut bound) = (0.0f64, 0.0f64);
                    let b_step = (0..k).map(|t| b[t * n + j].abs()).fold(0.0f32, f32::max) / 127.0;
                    for t in 0..k {
                        let (x, y) = (row[t] as f64, b[t * n + j] as f64);
                        exact += x * y;
                        bound += 0.5 * (a_step as f64 * y.abs() + b_step as f64 * x.abs())
                            + 0.25 * (a_step * b_step) as f64;
                    }
                    let got = c[i * n + j] as f64;
                    assert!(
                        (got - exact).abs() <= bound + 1e-4,
                        "{m}x{k}x{n} at ({i},{j}): {got} vs {exact}, bound {bound}"
                    );
                }
            }
        }
    }

    #[test]
    fn quantizing_a_row_in_avx2_gives_the_portable_bytes() {
        let src: Vec<f32> = (0..77)
            .map(|i| ((i * 29) % 31) as f32 * 0.37 - 5.1)
            .collect();
        let mut want = vec![0i8; 80];
        let scale = quantize_row(&src, &mut want);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            let mut got = vec![7i8; 80];
            // SAFETY: AVX2 checked above.
            let s = unsafe { avx2::quantize_row(&src, &mut got) };
            assert_eq!(s, scale);
            assert_eq!(got, want);
        } else {
            eprintln!(
                "quantizing_a_row_in_avx2_gives_the_portable_bytes: skipped avx2 (not on this CPU)"
            );
        }
        assert!(want.iter().all(|&v| (-127..=127).contains(&v)));
        assert_eq!(want.iter().map(|v| v.unsigned_abs()).max(), Some(127));
    }
}
