//! The bfloat16 matrix product for `--precision bf16`: both operands rounded to bf16 (8
//! significant bits, fp32's range), products summed in fp32, as AVX512-BF16's `vdpbf16ps` and
//! AMX's `tdpbf16ps` compute them.
//!
//! Two kernels, chosen at run time ([`best_isa`]):
//! - **AVX512-BF16** (Zen 4 and later, Intel since Cooper Lake): the right-hand matrix packed once
//!   as pairs of bf16 (rows `2t` and `2t+1` of a column in one 32-bit lane), the left one rounded
//!   per call into a per-thread buffer of such pairs, then one `vdpbf16ps` does 32 multiply-adds
//!   where an fp32 FMA does 16.
//! - **Emulated** on every other CPU: the values rounded as those instructions round them
//!   (nearest, ties to even; subnormals flushed to zero), then multiplied by the fp32 kernels of
//!   [`super::super::fp32`]. A bf16 product is exact in fp32, so the emulation differs from the
//!   instruction only in the order the sums are rounded: it is the native kernel's twin in the
//!   tests, and it measures on any CPU what bf16 does to a net's outputs (slower than fp32).

use crate::nn::kernels::fp32::gemm::{check_shapes, gemm, PackedMatrix, PANEL};
use std::cell::RefCell;
use std::sync::OnceLock;

/// `x` rounded to the nearest bfloat16 (ties to even), returned as the `f32` it equals.
/// Subnormals become a zero of their sign, as the bf16 instructions treat them; infinities and
/// NaNs stay what they are, and a finite value past bf16's largest rounds to infinity.
#[inline]
pub fn round_to_bf16(x: f32) -> f32 {
    let bits = x.to_bits();
    if x.is_nan() {
        return x;
    }
    if x.is_subnormal() {
        return f32::from_bits(bits & 0x8000_0000);
    }
    let half_ulp = 0x7fff + ((bits >> 16) & 1);
    f32::from_bits(bits.wrapping_add(half_ulp) & 0xffff_0000)
}

/// Rounds every value of `values` to bf16 in place.
pub fn round_slice(values: &mut [f32]) {
    values.iter_mut().for_each(|v| *v = round_to_bf16(*v));
}

/// The kernels [`gemm_bf16`] has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    /// Rounded operands on the fp32 kernels: any CPU.
    Emulated,
    /// `vdpbf16ps` on 512-bit registers.
    #[cfg(target_arch = "x86_64")]
    Avx512Bf16,
}

impl Isa {
    /// The kernel's name, for stderr and for tests that skip it.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Emulated => "emulated on the fp32 kernels",
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512Bf16 => "AVX512-BF16 vdpbf16ps",
        }
    }

    /// Whether this CPU runs the kernel.
    pub fn available(self) -> bool {
        match self {
            Isa::Emulated => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512Bf16 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bf16")
            }
        }
    }
}

/// Every kernel, whether or not this CPU runs it (tests skip the missing ones by name).
pub const ALL_ISAS: &[Isa] = &[
    Isa::Emulated,
    #[cfg(target_arch = "x86_64")]
    Isa::Avx512Bf16,
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
            .unwrap_or(Isa::Emulated)
    })
}

/// A constant right-hand matrix with its values rounded to bf16, packed for one kernel.
#[derive(Debug, Clone)]
pub struct PackedMatrixBf16 {
    k: usize,
    n: usize,
    layout: Layout,
}

#[derive(Debug, Clone)]
enum Layout {
    /// Rounded, kept in fp32 for the fp32 kernels.
    Emulated(PackedMatrix),
    /// `ceil(n / 16)` panels of `ceil(k / 2)` rows of 16 lanes; lane `j` of row `t` holds
    /// column `j`'s values of rows `2t` (low half) and `2t + 1` (high half) as bf16, zero past
    /// `k` and `n`.
    #[cfg(target_arch = "x86_64")]
    Pairs(Vec<u32>),
}

impl PackedMatrixBf16 {
    /// Rounds and packs row-major `b` (`k x n`) for the fastest kernel of this CPU.
    pub fn new(b: &[f32], k: usize, n: usize) -> Self {
        Self::new_for(best_isa(), b, k, n)
    }

    /// Rounds and packs row-major `b` (`k x n`) for `isa`.
    pub fn new_for(isa: Isa, b: &[f32], k: usize, n: usize) -> Self {
        assert_eq!(b.len(), k * n, "matrix size");
        let mut packed = Self::with_capacity_for(isa, k, n);
        packed.pack_rows(b, k, n, n);
        packed
    }

    /// An empty matrix for the fastest kernel of this CPU, with room to be repacked up to
    /// `k x n` without allocating (for right-hand matrices computed per evaluation:
    /// attention's keys and values).
    pub fn with_capacity(k: usize, n: usize) -> Self {
        Self::with_capacity_for(best_isa(), k, n)
    }

    /// [`PackedMatrixBf16::with_capacity`] for `isa`.
    pub fn with_capacity_for(isa: Isa, k: usize, n: usize) -> Self {
        let layout = match isa {
            Isa::Emulated => Layout::Emulated(PackedMatrix::with_capacity(k, n)),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512Bf16 => Layout::Pairs(Vec::with_capacity(
                n.div_ceil(PANEL) * k.div_ceil(2) * PANEL,
            )),
        };
        PackedMatrixBf16 { k: 0, n: 0, layout }
    }

    /// Repacks as the `k x n` matrix `B[row][col] = src[row * stride + col]`, rounded.
    /// Allocates only past the capacity.
    pub fn pack_rows(&mut self, src: &[f32], k: usize, n: usize, stride: usize) {
        assert!(
            k == 0 || n == 0 || src.len() >= (k - 1) * stride + n,
            "source too short"
        );
        (self.k, self.n) = (k, n);
        match &mut self.layout {
            Layout::Emulated(packed) => {
                packed.pack_rows(src, k, n, stride);
                round_slice(packed.values_mut());
            }
            #[cfg(target_arch = "x86_64")]
            Layout::Pairs(data) => {
                data.resize(n.div_ceil(PANEL) * k.div_ceil(2) * PANEL, 0);
                // SAFETY: a matrix is packed in pairs only where the CPU has AVX512-BF16
                // (checked when it was made); `src` holds the k rows (checked above) and
                // `data` was sized for them.
                unsafe { avx512_bf16::pack_row_pairs(src, k, n, stride, data) };
            }
        }
    }

    /// Repacks as the `k x n` matrix `B[row][col] = src[col * stride + row]` (the transpose of
    /// `n` rows of `k` values), rounded. Allocates only past the capacity (and, with the native
    /// kernel, a per-thread row of `k` pairs the first time).
    pub fn pack_transposed(&mut self, src: &[f32], k: usize, n: usize, stride: usize) {
        assert!(
            k == 0 || n == 0 || src.len() >= (n - 1) * stride + k,
            "source too short"
        );
        (self.k, self.n) = (k, n);
        match &mut self.layout {
            Layout::Emulated(packed) => {
                packed.pack_transposed(src, k, n, stride);
                round_slice(packed.values_mut());
            }
            #[cfg(target_arch = "x86_64")]
            Layout::Pairs(data) => {
                let pairs = k.div_ceil(2);
                data.resize(n.div_ceil(PANEL) * pairs * PANEL, 0);
                data.fill(0);
                COLUMN.with(|column| {
                    let mut column = column.borrow_mut();
                    let column = prefix(&mut column, pairs);
                    for col in 0..n {
                        // SAFETY: as in `pack_rows`; column `col` is `k` values at
                        // `col * stride` (checked above) and `column` holds `pairs` words.
                        unsafe {
                            avx512_bf16::round_rows(
                                1,
                                &src[col * stride..],
                                k,
                                k,
                                &mut column[..pairs],
                            )
                        };
                        let (p, j) = (col / PANEL, col % PANEL);
                        for (t, &pair) in column[..pairs].iter().enumerate() {
                            data[(p * pairs + t) * PANEL + j] = pair;
                        }
                    }
                });
            }
        }
    }

    /// The kernel this matrix is packed for.
    pub fn isa(&self) -> Isa {
        match self.layout {
            Layout::Emulated(_) => Isa::Emulated,
            #[cfg(target_arch = "x86_64")]
            Layout::Pairs(_) => Isa::Avx512Bf16,
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
}

thread_local! {
    /// The left matrix rounded (emulation) or as bf16 pairs (native), per thread, grown only
    /// when a larger product comes.
    static ROUNDED: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
    #[cfg(target_arch = "x86_64")]
    static PAIRS: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    /// One column of a matrix packed transposed, as bf16 pairs.
    #[cfg(target_arch = "x86_64")]
    static COLUMN: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    /// Each row's sum of exponentials in [`softmax_gemm_bf16`].
    #[cfg(target_arch = "x86_64")]
    static SUMS: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// The first `len` values of a per-thread buffer, grown to hold them (never shrunk, so it
/// allocates only the first time a shape is larger than any before).
fn prefix<T: Copy + Default>(buffer: &mut Vec<T>, len: usize) -> &mut [T] {
    if buffer.len() < len {
        buffer.resize(len, T::default());
    }
    &mut buffer[..len]
}

/// `C = A * B` (or `C += A * B` when `accumulate`) with `A` rounded to bf16 on the way in, on
/// the kernel `b` was packed for. `a` holds `m` rows of `b.k()` values at stride `lda`; `c`
/// holds `m` rows of `b.n()` values.
pub fn gemm_bf16(
    m: usize,
    a: &[f32],
    lda: usize,
    b: &PackedMatrixBf16,
    c: &mut [f32],
    accumulate: bool,
) {
    let k = b.k;
    match &b.layout {
        Layout::Emulated(packed) => ROUNDED.with(|rounded| {
            let mut rounded = rounded.borrow_mut();
            let rounded = prefix(&mut rounded, m * k);
            for (i, dst) in rounded.chunks_exact_mut(k).enumerate() {
                dst.copy_from_slice(&a[i * lda..i * lda + k]);
                round_slice(dst);
            }
            gemm(m, rounded, k, packed, c, accumulate);
        }),
        #[cfg(target_arch = "x86_64")]
        Layout::Pairs(data) => {
            if !check_shapes(m, a, lda, k, c, b.n) {
                return;
            }
            assert!(Isa::Avx512Bf16.available(), "packed for AVX512-BF16");
            PAIRS.with(|pairs| {
                let mut pairs = pairs.borrow_mut();
                let pairs = prefix(&mut pairs, m * k.div_ceil(2));
                // SAFETY: the CPU has AVX-512F and AVX512-BF16 (checked above); the shapes of
                // a, c and the packed matrix were checked, and the kernel stays inside them.
                unsafe {
                    avx512_bf16::round_rows(m, a, lda, k, pairs);
                    avx512_bf16::run(m, pairs, data, k, b.n, c, accumulate);
                }
            });
        }
    }
}

/// `C = softmax(S) * B`, the softmax taken over each of the `m` rows of `k()` scores in `s`
/// (which it may overwrite): attention's scores times its values. On the native kernel the
/// exponentials `e^(x - max)` go straight to bf16 pairs and each row of `C` is divided by its
/// sum afterwards, which saves two passes over the scores (the normalising one and the
/// rounding one) for a division over the far smaller rows of `C`; the emulation runs the fp32
/// softmax, then [`gemm_bf16`].
pub fn softmax_gemm_bf16(m: usize, s: &mut [f32], b: &PackedMatrixBf16, c: &mut [f32]) {
    let k = b.k;
    match &b.layout {
        Layout::Emulated(_) => {
            crate::nn::kernels::vecmath::ops::softmax_rows(&mut s[..m * k], k);
            gemm_bf16(m, s, k, b, c, false);
        }
        #[cfg(target_arch = "x86_64")]
        Layout::Pairs(data) => {
            if !check_shapes(m, s, k, k, c, b.n) {
                return;
            }
            assert!(Isa::Avx512Bf16.available(), "packed for AVX512-BF16");
            PAIRS.with(|pairs| {
                SUMS.with(|sums| {
                    let (mut pairs, mut sums) = (pairs.borrow_mut(), sums.borrow_mut());
                    let pairs = prefix(&mut pairs, m * k.div_ceil(2));
                    let sums = prefix(&mut sums, m);
                    // SAFETY: as in `gemm_bf16`: the CPU has the instructions and the shapes
                    // were checked; `pairs` and `sums` were sized for m rows.
                    unsafe {
                        avx512_bf16::exp_rows(m, s, k, pairs, sums);
                        avx512_bf16::run(m, pairs, data, k, b.n, c, false);
                    }
                    for (row, sum) in c.chunks_exact_mut(b.n).zip(sums.iter()) {
                        let inverse = 1.0 / sum;
                        row.iter_mut().for_each(|v| *v *= inverse);
                    }
                })
            });
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512_bf16 {
    use crate::nn::kernels::fp32::gemm::avx512::{
        walk, write_tile, Direct, MicroKernel, Tile, ROWS,
    };
    use crate::nn::kernels::fp32::gemm::{KC, PANEL};
    use std::arch::x86_64::*;

    /// Rounds `m` rows of `k` values (stride `lda`) to bf16, nearest even with subnormals
    /// flushed, as `vcvtne2ps2bf16` does, into rows of `ceil(k / 2)` pairs (the last one
    /// zero-padded when `k` is odd).
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub unsafe fn round_rows(m: usize, a: &[f32], lda: usize, k: usize, out: &mut [u32]) {
        use crate::nn::kernels::vecmath::ops::avx512::lanes;
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

    /// For each of `m` rows of `k` scores (stride `k`): `e^(x - max)` rounded to bf16 pairs as
    /// [`round_rows`] lays them out, and the sum of the unrounded exponentials into `sums`.
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub unsafe fn exp_rows(m: usize, s: &[f32], k: usize, out: &mut [u32], sums: &mut [f32]) {
        use crate::nn::kernels::vecmath::ops::avx512::{exp16_coarse, lanes, row_max};
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

    /// Packs the `k x n` matrix `B[row][col] = src[row * stride + col]` as pairs of rows:
    /// lane `j` of pair-row `t` in panel `p` holds column `16p + j` of rows `2t` (low half) and
    /// `2t + 1` (high half), rounded as `vcvtneps2bf16` rounds, zero past `k` and `n`. `out`
    /// holds `ceil(n / 16) * ceil(k / 2) * 16` words.
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub unsafe fn pack_row_pairs(src: &[f32], k: usize, n: usize, stride: usize, out: &mut [u32]) {
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
        let pairs = k.div_ceil(2);
        debug_assert!(a.len() >= m * pairs && b.len() >= n.div_ceil(PANEL) * pairs * PANEL);
        walk(&Pairs { a, b, pairs }, m, n, pairs, KC / 2, c, accumulate);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bf16 bits of a value already rounded by [`round_to_bf16`].
    #[cfg(target_arch = "x86_64")]
    fn bf16_bits(rounded: f32) -> u32 {
        rounded.to_bits() >> 16
    }

    /// The nearest bf16 by search: the two bf16 values around `x` (its top 16 bits, and
    /// one more unit), whichever is nearer in f64, the even one on a tie.
    fn nearest_bf16_slow(x: f32) -> f32 {
        let down = f32::from_bits(x.to_bits() & 0xffff_0000);
        let up = f32::from_bits((x.to_bits() & 0xffff_0000) + 0x1_0000);
        let (dd, du) = ((x as f64 - down as f64).abs(), (up as f64 - x as f64).abs());
        if dd < du || (dd == du && (down.to_bits() >> 16) & 1 == 0) {
            down
        } else {
            up
        }
    }

    #[test]
    fn rounding_matches_a_search_for_the_nearest_bf16() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut checked = 0;
        for i in 0..200_000u32 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Random bit patterns, and ties: values with exactly half a unit below the cut.
            let bits = if i % 4 == 0 {
                (state as u32 & 0xffff_0000) | 0x8000
            } else {
                state as u32
            };
            let x = f32::from_bits(bits);
            if !x.is_finite() || x.is_subnormal() || x.abs() > 3.0e38 {
                continue;
            }
            let (got, want) = (round_to_bf16(x), nearest_bf16_slow(x));
            assert_eq!(got.to_bits(), want.to_bits(), "{x:e}: {got:e} vs {want:e}");
            assert_eq!(got.to_bits() & 0xffff, 0);
            checked += 1;
        }
        assert!(checked > 100_000);
        assert_eq!(round_to_bf16(1.0 + 1.0 / 256.0), 1.0, "a tie goes to even");
        assert_eq!(round_to_bf16(1.0 + 3.0 / 256.0), 1.0 + 4.0 / 256.0);
        assert_eq!(round_to_bf16(-1e-40).to_bits(), (-0.0f32).to_bits());
        assert_eq!(round_to_bf16(f32::MAX), f32::INFINITY);
        assert!(round_to_bf16(f32::NAN).is_nan());
        assert_eq!(round_to_bf16(f32::NEG_INFINITY), f32::NEG_INFINITY);
    }

    /// The native kernel's rounding of the left matrix (`vcvtne2ps2bf16`) is
    /// [`round_to_bf16`], bit for bit: random values, ties, subnormals, odd row lengths.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn native_rounding_of_rows_is_round_to_bf16() {
        if !Isa::Avx512Bf16.available() {
            eprintln!(
                "native_rounding_of_rows_is_round_to_bf16: skipped the {} kernel (not on this CPU)",
                Isa::Avx512Bf16.name()
            );
            return;
        }
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for &(m, k, lda) in &[
            (3usize, 1usize, 1usize),
            (4, 31, 33),
            (2, 32, 32),
            (5, 67, 70),
            (3, 57, 57),
        ] {
            let a: Vec<f32> = (0..m * lda)
                .map(|i| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let bits = state as u32;
                    let x = match i % 5 {
                        0 => f32::from_bits((bits & 0xffff_0000) | 0x8000), // a tie
                        1 => f32::from_bits(bits & 0x807f_ffff),            // subnormal
                        _ => f32::from_bits(bits & 0xbfff_ffff),            // |x| < 2
                    };
                    if x.is_nan() {
                        0.5
                    } else {
                        x
                    }
                })
                .collect();
            let pairs = k.div_ceil(2);
            let mut out = vec![u32::MAX; m * pairs];
            // SAFETY: the CPU has the kernel (checked above); `out` holds m rows of pairs.
            unsafe { avx512_bf16::round_rows(m, &a, lda, k, &mut out) };
            for i in 0..m {
                for t in 0..k {
                    let got = (out[i * pairs + t / 2] >> (16 * (t % 2))) & 0xffff;
                    let want = bf16_bits(round_to_bf16(a[i * lda + t]));
                    assert_eq!(got, want, "row {i} col {t} of {k}: {:e}", a[i * lda + t]);
                }
                if k % 2 == 1 {
                    assert_eq!(
                        out[i * pairs + pairs - 1] >> 16,
                        0,
                        "odd row padded with zero"
                    );
                }
            }
        }
    }

    /// Uniform values in [-1, 1) from a seeded linear congruential generator.
    fn values(seed: u32) -> impl FnMut() -> f32 {
        let mut state = seed;
        move || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
        }
    }

    /// The kernels this CPU runs; each one it lacks is named on stderr for `test`.
    fn kernels_here(test: &str) -> Vec<Isa> {
        crate::nn::kernels_here(test, ALL_ISAS, Isa::name, Isa::available)
    }

    /// Checks `c` (m x n) against `start` (when accumulating) plus the f64 product of the
    /// rounded `a(i, t)` and `b(t, j)` over `k`.
    #[allow(clippy::too_many_arguments)] // a product's shape and operands
    fn assert_rounded_product(
        what: &str,
        (m, k, n): (usize, usize, usize),
        a: impl Fn(usize, usize) -> f32,
        b: impl Fn(usize, usize) -> f32,
        start: Option<&[f32]>,
        c: &[f32],
    ) {
        for i in 0..m {
            for j in 0..n {
                let mut want = start.map_or(0.0, |s| s[i * n + j] as f64);
                for t in 0..k {
                    want += round_to_bf16(a(i, t)) as f64 * round_to_bf16(b(t, j)) as f64;
                }
                let got = c[i * n + j] as f64;
                assert!(
                    (got - want).abs() < 1e-5 * (1.0 + k as f64),
                    "{what} {m}x{k}x{n} at ({i}, {j}): {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn the_product_is_the_rounded_operands_product_on_ragged_shapes() {
        let mut next = values(7);
        let isas = kernels_here("the_product_is_the_rounded_operands_product_on_ragged_shapes");
        // Ragged rows (past one and many 12-row tiles), columns (past one and two 16-wide
        // panels), odd inner sizes and ones past a 256-deep block, a row stride wider than the
        // row.
        for &(m, k, n, lda) in &[
            (1, 1, 1, 1),
            (5, 17, 33, 20),
            (19, 40, 16, 40),
            (7, 3, 50, 9),
            (13, 301, 45, 310),
            (25, 64, 96, 64),
            (1, 33, 17, 40),
            (30, 513, 80, 520),
            (205, 300, 50, 300),
        ] {
            let a: Vec<f32> = (0..m * lda).map(|_| next()).collect();
            let b: Vec<f32> = (0..k * n).map(|_| next()).collect();
            for (isa, accumulate) in isas.iter().flat_map(|&i| [(i, false), (i, true)]) {
                let packed = PackedMatrixBf16::new_for(isa, &b, k, n);
                assert_eq!((packed.isa(), packed.k(), packed.n()), (isa, k, n));
                let start: Vec<f32> = (0..m * n).map(|_| next()).collect();
                let mut c = start.clone();
                gemm_bf16(m, &a, lda, &packed, &mut c, accumulate);
                assert_rounded_product(
                    &format!("{isa:?}"),
                    (m, k, n),
                    |i, t| a[i * lda + t],
                    |t, j| b[t * n + j],
                    accumulate.then_some(&start[..]),
                    &c,
                );
            }
        }
    }

    /// Matrices packed per evaluation (attention's keys, transposed, and values, by rows) on
    /// every kernel this CPU has: the product is the rounded operands' product, and repacking
    /// smaller into the same buffer leaves nothing of the larger matrix behind.
    #[test]
    fn repacked_matrices_multiply_as_their_rounded_values() {
        let mut next = values(11);
        for isa in kernels_here("repacked_matrices_multiply_as_their_rounded_values") {
            let mut rows = PackedMatrixBf16::with_capacity_for(isa, 70, 40);
            let mut transposed = PackedMatrixBf16::with_capacity_for(isa, 40, 70);
            // (k, n, stride): odd and even inner sizes, ragged panels; larger first.
            for &(k, n, stride) in &[(69usize, 37usize, 45usize), (8, 33, 40), (5, 3, 7)] {
                let src: Vec<f32> = (0..k.max(n) * stride.max(k)).map(|_| next()).collect();
                rows.pack_rows(&src, k, n, stride);
                transposed.pack_transposed(&src, k, n, stride);
                assert_eq!((rows.isa(), rows.k(), rows.n()), (isa, k, n));
                let m = 5;
                let a: Vec<f32> = (0..m * k).map(|_| next()).collect();
                for (packed, by_columns) in [(&rows, false), (&transposed, true)] {
                    let mut c = vec![f32::NAN; m * n];
                    gemm_bf16(m, &a, k, packed, &mut c, false);
                    assert_rounded_product(
                        &format!("{isa:?} repacked, transposed {by_columns}"),
                        (m, k, n),
                        |i, t| a[i * k + t],
                        |t, j| {
                            src[if by_columns {
                                j * stride + t
                            } else {
                                t * stride + j
                            }]
                        },
                        None,
                        &c,
                    );
                }
            }
        }
    }

    /// Attention's scores times its values (`softmax_gemm_bf16`) on every kernel this CPU has:
    /// within bf16's rounding of the f64 softmax times the rounded values, on score rows
    /// shorter than a vector, between one and two, ragged past several, wide-spread or not.
    #[test]
    fn softmax_product_is_the_softmax_times_the_rounded_values() {
        let mut next = values(13);
        for isa in kernels_here("softmax_product_is_the_softmax_times_the_rounded_values") {
            for &(m, k, n, spread) in &[
                (1usize, 1usize, 1usize, 1.0f32),
                (3, 7, 20, 4.0),
                (13, 31, 16, 8.0),
                (5, 33, 40, 2.0),
                (25, 81, 64, 30.0),
                (14, 100, 33, 8.0),
            ] {
                let scores: Vec<f32> = (0..m * k).map(|_| next() * spread).collect();
                let b: Vec<f32> = (0..k * n).map(|_| next()).collect();
                let packed = PackedMatrixBf16::new_for(isa, &b, k, n);
                let mut s = scores.clone();
                let mut c = vec![f32::NAN; m * n];
                softmax_gemm_bf16(m, &mut s, &packed, &mut c);
                for i in 0..m {
                    let row = &scores[i * k..(i + 1) * k];
                    let max = row.iter().fold(f32::NEG_INFINITY, |x, &v| x.max(v)) as f64;
                    let e: Vec<f64> = row.iter().map(|&v| (v as f64 - max).exp()).collect();
                    let sum: f64 = e.iter().sum();
                    for j in 0..n {
                        let want: f64 = (0..k)
                            .map(|t| e[t] / sum * round_to_bf16(b[t * n + j]) as f64)
                            .sum();
                        let got = c[i * n + j] as f64;
                        // Each weight rounded to bf16 (2^-9 relative), the weights summing
                        // to 1 and the values at most 1.
                        assert!(
                            (got - want).abs() < 4e-3,
                            "{isa:?} {m}x{k}x{n} spread {spread} at ({i}, {j}): {got} vs {want}"
                        );
                    }
                }
            }
        }
    }
}
