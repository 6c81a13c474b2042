//! Elementwise kernels of the forward pass: `e^x`, SiLU and Mish over slices, softmax over
//! rows and the SwiGLU gate, each with AVX-512 and AVX2+FMA versions chosen at run time and a
//! portable one that computes the same polynomial. Every norm of a net and every attention row runs
//! through them (millions of exponentials per evaluation), so these are hot paths; they
//! allocate nothing.

#[cfg(test)]
use crate::nn::kernels::fp32::gemm::available_isas;
use crate::nn::kernels::fp32::gemm::{best_isa, Isa};

const LOG2E: f32 = std::f32::consts::LOG2_E;
/// ln 2 split in two for an exact range reduction (Cody and Waite).
const LN2_HI: f32 = 0.693_145_75;
const LN2_LO: f32 = 1.428_606_8e-6;
/// Taylor coefficients of `e^r` on |r| <= ln 2 / 2 (relative error below 2e-7).
const C2: f32 = 0.5;
const C3: f32 = 1.0 / 6.0;
const C4: f32 = 1.0 / 24.0;
const C5: f32 = 1.0 / 120.0;
const C6: f32 = 1.0 / 720.0;
/// Inputs are clamped here: the results stay normal floats.
const EXP_MIN: f32 = -87.0;
const EXP_MAX: f32 = 88.0;
/// The clamp of [`avx512::exp16_coarse`]: `e^x` for `x` at or below it stays a normal float.
#[cfg(target_arch = "x86_64")]
const EXP16_COARSE_MIN: f32 = -80.0;
/// Its polynomial, lowest power first: the least largest relative error from `e^r` on
/// `|r| <= ln 2 / 2` (Lawson's iteration on a fine grid, then rounded to f32).
#[cfg(target_arch = "x86_64")]
const EXP16_COARSE_POLY: [f32; 5] = [
    0.999_999_3,
    0.999_963_4,
    0.500_043_6,
    0.167_908_9,
    0.041_458_465,
];

/// `e^x` to about 2e-7 relative error (the portable form of the vector kernels).
#[inline(always)]
pub fn fast_exp(x: f32) -> f32 {
    // Adding and subtracting 1.5 * 2^23 rounds to the nearest integer.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(EXP_MIN, EXP_MAX);
    let k = (x * LOG2E + ROUND) - ROUND;
    let r = x - k * LN2_HI - k * LN2_LO;
    let p = 1.0 + r * (1.0 + r * (C2 + r * (C3 + r * (C4 + r * (C5 + r * C6)))));
    p * f32::from_bits(((k as i32 + 127) as u32) << 23)
}

/// `sum(v[i]^2)`, in sixteen running sums (which the compiler keeps in vector registers on
/// any x86-64: the per-point norms of transformer nets ran this one add at a time).
pub fn sum_of_squares(v: &[f32]) -> f32 {
    let mut sums = [0.0f32; 16];
    let mut chunks = v.chunks_exact(16);
    for chunk in &mut chunks {
        for (s, x) in sums.iter_mut().zip(chunk) {
            *s += x * x;
        }
    }
    for (s, x) in sums.iter_mut().zip(chunks.remainder()) {
        *s += x * x;
    }
    sums.iter().sum()
}

/// Each row of `width` values replaced by its softmax.
pub fn softmax_rows(data: &mut [f32], width: usize) {
    #[cfg(target_arch = "x86_64")]
    match best_isa() {
        Isa::Portable => {}
        // SAFETY: best_isa() is AVX-512 only on CPUs with AVX-512F.
        Isa::Avx512 => return unsafe { avx512::softmax_rows(data, width) },
        // SAFETY: best_isa() is AVX2 only on CPUs with AVX2 and FMA.
        Isa::Avx2 => return unsafe { avx2::softmax_rows(data, width) },
    }
    portable::softmax_rows(data, width);
}

/// `a[i] = silu(a[i]) * gate[i]`, SwiGLU's gate.
pub fn swiglu(a: &mut [f32], gate: &[f32]) {
    #[cfg(target_arch = "x86_64")]
    match best_isa() {
        Isa::Portable => {}
        // SAFETY: best_isa() is AVX-512 only on CPUs with AVX-512F.
        Isa::Avx512 => return unsafe { avx512::swiglu(a, gate) },
        // SAFETY: best_isa() is AVX2 only on CPUs with AVX2 and FMA.
        Isa::Avx2 => return unsafe { avx2::swiglu(a, gate) },
    }
    portable::swiglu(a, gate);
}

/// `x * sigmoid(x)` on every value.
pub fn silu(data: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    match best_isa() {
        Isa::Portable => {}
        // SAFETY: best_isa() is AVX-512 only on CPUs with AVX-512F.
        Isa::Avx512 => return unsafe { avx512::silu(data) },
        // SAFETY: best_isa() is AVX2 only on CPUs with AVX2 and FMA.
        Isa::Avx2 => return unsafe { avx2::silu(data) },
    }
    portable::silu(data);
}

/// `x * tanh(softplus(x))` on every value, as KataGo's Mish (exactly `x` from 20 up).
pub fn mish(data: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    match best_isa() {
        Isa::Portable => {}
        // SAFETY: best_isa() is AVX-512 only on CPUs with AVX-512F.
        Isa::Avx512 => return unsafe { avx512::mish(data) },
        // SAFETY: best_isa() is AVX2 only on CPUs with AVX2 and FMA.
        Isa::Avx2 => return unsafe { avx2::mish(data) },
    }
    portable::mish(data);
}

/// Mish through one exponential: `tanh(ln(1 + e^x)) = n / (n + 2)` with `n = e^x (e^x + 2)`.
#[inline(always)]
fn mish_one(x: f32) -> f32 {
    if x >= MISH_LINEAR {
        return x;
    }
    let e = fast_exp(x);
    let n = e * (e + 2.0);
    x * n / (n + 2.0)
}

/// From here Mish is the identity in f32 (tanh of the softplus rounds to 1).
const MISH_LINEAR: f32 = 20.0;

mod portable {
    use super::{fast_exp, mish_one};

    pub fn silu(data: &mut [f32]) {
        for x in data {
            *x /= 1.0 + fast_exp(-*x);
        }
    }

    pub fn mish(data: &mut [f32]) {
        for x in data {
            *x = mish_one(*x);
        }
    }

    pub fn softmax_rows(data: &mut [f32], width: usize) {
        for row in data.chunks_exact_mut(width) {
            let max = row.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v));
            let mut sum = 0.0;
            for v in row.iter_mut() {
                *v = fast_exp(*v - max);
                sum += *v;
            }
            let inv = 1.0 / sum;
            row.iter_mut().for_each(|v| *v *= inv);
        }
    }

    pub fn swiglu(a: &mut [f32], gate: &[f32]) {
        for (x, g) in a.iter_mut().zip(gate) {
            *x = *x / (1.0 + fast_exp(-*x)) * g;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::*;
    use std::arch::x86_64::*;

    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn exp8(x: __m256) -> __m256 {
        let x = _mm256_min_ps(
            _mm256_max_ps(x, _mm256_set1_ps(EXP_MIN)),
            _mm256_set1_ps(EXP_MAX),
        );
        let k = _mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
            _mm256_mul_ps(x, _mm256_set1_ps(LOG2E)),
        );
        let r = _mm256_fnmadd_ps(k, _mm256_set1_ps(LN2_HI), x);
        let r = _mm256_fnmadd_ps(k, _mm256_set1_ps(LN2_LO), r);
        let mut p = _mm256_set1_ps(C6);
        for c in [C5, C4, C3, C2, 1.0, 1.0] {
            p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(c));
        }
        let bits = _mm256_slli_epi32::<23>(_mm256_add_epi32(
            _mm256_cvtps_epi32(k),
            _mm256_set1_epi32(127),
        ));
        _mm256_mul_ps(p, _mm256_castsi256_ps(bits))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn sum8(v: __m256) -> f32 {
        let halves = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v));
        let pairs = _mm_add_ps(halves, _mm_movehl_ps(halves, halves));
        let one = _mm_add_ss(pairs, _mm_shuffle_ps::<1>(pairs, pairs));
        _mm_cvtss_f32(one)
    }

    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn softmax_rows(data: &mut [f32], width: usize) {
        let body = width - width % 8;
        for row in data.chunks_exact_mut(width) {
            let p = row.as_mut_ptr();
            let mut max8 = _mm256_set1_ps(f32::NEG_INFINITY);
            let mut i = 0;
            while i < body {
                max8 = _mm256_max_ps(max8, _mm256_loadu_ps(p.add(i)));
                i += 8;
            }
            let mut lanes = [0.0f32; 8];
            _mm256_storeu_ps(lanes.as_mut_ptr(), max8);
            let max = lanes
                .iter()
                .chain(&row[body..])
                .fold(f32::NEG_INFINITY, |m, &v| m.max(v));
            let shift = _mm256_set1_ps(max);
            let mut sum8v = _mm256_setzero_ps();
            i = 0;
            while i < body {
                let e = exp8(_mm256_sub_ps(_mm256_loadu_ps(p.add(i)), shift));
                _mm256_storeu_ps(p.add(i), e);
                sum8v = _mm256_add_ps(sum8v, e);
                i += 8;
            }
            let mut sum = sum8(sum8v);
            for v in &mut row[body..] {
                *v = fast_exp(*v - max);
                sum += *v;
            }
            let inv = 1.0 / sum;
            let inv8 = _mm256_set1_ps(inv);
            i = 0;
            while i < body {
                _mm256_storeu_ps(p.add(i), _mm256_mul_ps(_mm256_loadu_ps(p.add(i)), inv8));
                i += 8;
            }
            row[body..].iter_mut().for_each(|v| *v *= inv);
        }
    }

    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn silu(data: &mut [f32]) {
        let body = data.len() - data.len() % 8;
        let p = data.as_mut_ptr();
        let one = _mm256_set1_ps(1.0);
        let mut i = 0;
        while i < body {
            let x = _mm256_loadu_ps(p.add(i));
            let e = exp8(_mm256_sub_ps(_mm256_setzero_ps(), x));
            _mm256_storeu_ps(p.add(i), _mm256_div_ps(x, _mm256_add_ps(one, e)));
            i += 8;
        }
        super::portable::silu(&mut data[body..]);
    }

    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn mish(data: &mut [f32]) {
        let body = data.len() - data.len() % 8;
        let p = data.as_mut_ptr();
        let two = _mm256_set1_ps(2.0);
        let linear = _mm256_set1_ps(MISH_LINEAR);
        let mut i = 0;
        while i < body {
            let x = _mm256_loadu_ps(p.add(i));
            let e = exp8(_mm256_min_ps(x, linear));
            let n = _mm256_mul_ps(e, _mm256_add_ps(e, two));
            let m = _mm256_div_ps(_mm256_mul_ps(x, n), _mm256_add_ps(n, two));
            let big = _mm256_cmp_ps::<_CMP_GE_OQ>(x, linear);
            _mm256_storeu_ps(p.add(i), _mm256_blendv_ps(m, x, big));
            i += 8;
        }
        super::portable::mish(&mut data[body..]);
    }

    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn swiglu(a: &mut [f32], gate: &[f32]) {
        let n = a.len().min(gate.len());
        let body = n - n % 8;
        let (pa, pg) = (a.as_mut_ptr(), gate.as_ptr());
        let one = _mm256_set1_ps(1.0);
        let mut i = 0;
        while i < body {
            let x = _mm256_loadu_ps(pa.add(i));
            let e = exp8(_mm256_sub_ps(_mm256_setzero_ps(), x));
            let silu = _mm256_div_ps(x, _mm256_add_ps(one, e));
            _mm256_storeu_ps(pa.add(i), _mm256_mul_ps(silu, _mm256_loadu_ps(pg.add(i))));
            i += 8;
        }
        for j in body..n {
            a[j] = a[j] / (1.0 + fast_exp(-a[j])) * gate[j];
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub(in crate::nn::kernels) mod avx512 {
    //! The AVX2 kernels on 16 lanes: the same polynomial, the same results but for the order
    //! of the row sums.
    use super::*;
    use std::arch::x86_64::*;

    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(in crate::nn::kernels) unsafe fn exp16(x: __m512) -> __m512 {
        let x = _mm512_min_ps(
            _mm512_max_ps(x, _mm512_set1_ps(EXP_MIN)),
            _mm512_set1_ps(EXP_MAX),
        );
        let k = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
            _mm512_mul_ps(x, _mm512_set1_ps(LOG2E)),
        );
        let r = _mm512_fnmadd_ps(k, _mm512_set1_ps(LN2_HI), x);
        let r = _mm512_fnmadd_ps(k, _mm512_set1_ps(LN2_LO), r);
        let mut p = _mm512_set1_ps(C6);
        for c in [C5, C4, C3, C2, 1.0, 1.0] {
            p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
        }
        let bits = _mm512_slli_epi32::<23>(_mm512_add_epi32(
            _mm512_cvtps_epi32(k),
            _mm512_set1_epi32(127),
        ));
        _mm512_mul_ps(p, _mm512_castsi512_ps(bits))
    }

    /// `e^x` for `x <= 0` to within 1e-5 relative, for values about to be rounded to bf16
    /// (whose own rounding is up to 2e-3): nine operations where [`exp16`] takes fifteen.
    /// Below `EXP16_COARSE_MIN` it answers `e^EXP16_COARSE_MIN`, about 2e-35, a nothing beside
    /// the row maximum's 1 in a softmax. A degree-4 polynomial on `|r| <= ln 2 / 2` fitted for
    /// the least largest relative error (2.7e-6 in f32); the power of two goes into the
    /// exponent bits by an integer add, which the clamp keeps away from subnormals.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(in crate::nn::kernels) unsafe fn exp16_coarse(x: __m512) -> __m512 {
        // 1.5 * 2^23: adding it leaves round(x * log2 e) in the low mantissa bits.
        const SHIFTER: f32 = 12_582_912.0;
        let x = _mm512_max_ps(x, _mm512_set1_ps(EXP16_COARSE_MIN));
        let t = _mm512_fmadd_ps(x, _mm512_set1_ps(LOG2E), _mm512_set1_ps(SHIFTER));
        let k = _mm512_sub_ps(t, _mm512_set1_ps(SHIFTER));
        let r = _mm512_fnmadd_ps(k, _mm512_set1_ps(std::f32::consts::LN_2), x);
        let (top, lower) = EXP16_COARSE_POLY.split_last().expect("five coefficients");
        let mut p = _mm512_set1_ps(*top);
        for &c in lower.iter().rev() {
            p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
        }
        // t's low bits hold k (two's complement); shifted, they are k in the exponent field.
        let scale = _mm512_slli_epi32::<23>(_mm512_castps_si512(t));
        _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(p), scale))
    }

    /// The mask of the first `n` (at most 16) lanes.
    #[inline]
    pub(in crate::nn::kernels) fn lanes(n: usize) -> __mmask16 {
        if n >= 16 {
            0xffff
        } else {
            (1u16 << n) - 1
        }
    }

    /// Loads the 16 values at `p`, or only the first `left` of them (the rest zero) when
    /// fewer are left: a masked load only on a tail, since AMD's cores run masked stores and
    /// loads slower than plain ones (masking every vector cost about 2% of a transformer
    /// evaluation in bf16).
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn load(p: *const f32, left: usize) -> __m512 {
        if left >= 16 {
            _mm512_loadu_ps(p)
        } else {
            _mm512_maskz_loadu_ps(lanes(left), p)
        }
    }

    /// Stores `v` at `p`, or only its first `left` values when fewer are left.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn store(p: *mut f32, left: usize, v: __m512) {
        if left >= 16 {
            _mm512_storeu_ps(p, v)
        } else {
            _mm512_mask_storeu_ps(p, lanes(left), v)
        }
    }

    /// The largest of the `width` values at `p`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(in crate::nn::kernels) unsafe fn row_max(p: *const f32, width: usize) -> f32 {
        // Two running maxima over whole blocks, unmasked; the ragged end masked.
        let (mut max_a, mut max_b) = (
            _mm512_set1_ps(f32::NEG_INFINITY),
            _mm512_set1_ps(f32::NEG_INFINITY),
        );
        let body = width - width % 32;
        let mut i = 0;
        while i < body {
            max_a = _mm512_max_ps(max_a, _mm512_loadu_ps(p.add(i)));
            max_b = _mm512_max_ps(max_b, _mm512_loadu_ps(p.add(i + 16)));
            i += 32;
        }
        while i < width {
            let m = lanes(width - i);
            max_a = _mm512_mask_max_ps(max_a, m, max_a, load(p.add(i), width - i));
            i += 16;
        }
        _mm512_reduce_max_ps(_mm512_max_ps(max_a, max_b))
    }

    #[target_feature(enable = "avx512f")]
    pub unsafe fn softmax_rows(data: &mut [f32], width: usize) {
        for row in data.chunks_exact_mut(width) {
            let p = row.as_mut_ptr();
            let shift = _mm512_set1_ps(row_max(p, width));
            let mut sum16 = _mm512_setzero_ps();
            let mut i = 0;
            while i < width {
                let m = lanes(width - i);
                let e = exp16(_mm512_sub_ps(load(p.add(i), width - i), shift));
                store(p.add(i), width - i, e);
                sum16 = _mm512_mask_add_ps(sum16, m, sum16, e);
                i += 16;
            }
            let inv16 = _mm512_set1_ps(1.0 / _mm512_reduce_add_ps(sum16));
            i = 0;
            while i < width {
                let v = load(p.add(i), width - i);
                store(p.add(i), width - i, _mm512_mul_ps(v, inv16));
                i += 16;
            }
        }
    }

    #[target_feature(enable = "avx512f")]
    pub unsafe fn silu(data: &mut [f32]) {
        let p = data.as_mut_ptr();
        let one = _mm512_set1_ps(1.0);
        let mut i = 0;
        while i < data.len() {
            let left = data.len() - i;
            let x = load(p.add(i), left);
            let e = exp16(_mm512_sub_ps(_mm512_setzero_ps(), x));
            store(p.add(i), left, _mm512_div_ps(x, _mm512_add_ps(one, e)));
            i += 16;
        }
    }

    #[target_feature(enable = "avx512f")]
    pub unsafe fn mish(data: &mut [f32]) {
        let p = data.as_mut_ptr();
        let two = _mm512_set1_ps(2.0);
        let linear = _mm512_set1_ps(MISH_LINEAR);
        let mut i = 0;
        while i < data.len() {
            let left = data.len() - i;
            let x = load(p.add(i), left);
            let e = exp16(_mm512_min_ps(x, linear));
            let n = _mm512_mul_ps(e, _mm512_add_ps(e, two));
            let mish = _mm512_div_ps(_mm512_mul_ps(x, n), _mm512_add_ps(n, two));
            let big = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(x, linear);
            store(p.add(i), left, _mm512_mask_blend_ps(big, mish, x));
            i += 16;
        }
    }

    #[target_feature(enable = "avx512f")]
    pub unsafe fn swiglu(a: &mut [f32], gate: &[f32]) {
        let n = a.len().min(gate.len());
        let (pa, pg) = (a.as_mut_ptr(), gate.as_ptr());
        let one = _mm512_set1_ps(1.0);
        let mut i = 0;
        while i < n {
            let left = n - i;
            let x = load(pa.add(i), left);
            let e = exp16(_mm512_sub_ps(_mm512_setzero_ps(), x));
            let silu = _mm512_div_ps(x, _mm512_add_ps(one, e));
            let g = load(pg.add(i), left);
            store(pa.add(i), left, _mm512_mul_ps(silu, g));
            i += 16;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_exp_is_close_to_exp() {
        let mut x = -87.0f32;
        while x < 88.0 {
            let want = (x as f64).exp();
            let got = fast_exp(x) as f64;
            assert!(((got - want) / want).abs() < 1e-6, "{x}: {got} vs {want}");
            x += 0.0137;
        }
    }

    #[test]
    fn sum_of_squares_is_the_sum_of_squares() {
        let mut next = 0.37f32;
        let values: Vec<f32> = (0..400)
            .map(|_| {
                next = (next * 3.9 * (1.0 - next)).clamp(0.01, 0.99);
                (next - 0.5) * 8.0
            })
            .collect();
        for len in (0..40).chain([383, 384, 385]) {
            let want: f64 = values[..len].iter().map(|&v| v as f64 * v as f64).sum();
            let got = sum_of_squares(&values[..len]) as f64;
            assert!(
                (got - want).abs() <= 1e-6 * want.max(1.0),
                "{len}: {got} vs {want}"
            );
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn coarse_exp_is_within_1e_5_of_exp_below_zero() {
        if !available_isas().contains(&Isa::Avx512) {
            eprintln!("vecmath: no AVX-512 on this CPU, exp16_coarse is not tested here");
            return;
        }
        let mut worst = 0.0f64;
        let mut x = 0.0f32;
        while x > -100.0 {
            let lanes: [f32; 16] = std::array::from_fn(|i| x - i as f32 * 0.000_37);
            let mut got = [0.0f32; 16];
            // SAFETY: this CPU has AVX-512F (checked above).
            unsafe {
                use std::arch::x86_64::*;
                let e = avx512::exp16_coarse(_mm512_loadu_ps(lanes.as_ptr()));
                _mm512_storeu_ps(got.as_mut_ptr(), e);
            }
            for (&v, &e) in lanes.iter().zip(&got) {
                let want = (v.max(EXP16_COARSE_MIN) as f64).exp();
                let error = ((e as f64 - want) / want).abs();
                assert!(error < 1e-5, "{v}: {e} vs {want}");
                worst = worst.max(error);
            }
            x -= 0.0071;
        }
        eprintln!("exp16_coarse: largest relative error {worst:.2e}");
    }

    /// Every kernel this CPU runs: the portable one and, where there is AVX2, the vector one.
    #[allow(clippy::type_complexity)]
    fn kernels() -> Vec<(&'static str, fn(&mut [f32], usize), fn(&mut [f32], &[f32]))> {
        let mut out: Vec<(&'static str, fn(&mut [f32], usize), fn(&mut [f32], &[f32]))> =
            vec![("portable", portable::softmax_rows, portable::swiglu)];
        #[cfg(target_arch = "x86_64")]
        {
            if available_isas().contains(&Isa::Avx2) {
                // SAFETY (of the calls below): this CPU has AVX2 and FMA.
                out.push((
                    "avx2",
                    |d, w| unsafe { avx2::softmax_rows(d, w) },
                    |a, g| unsafe { avx2::swiglu(a, g) },
                ));
            } else {
                eprintln!("vecmath: no AVX2 on this CPU, its kernels are not tested here");
            }
            if available_isas().contains(&Isa::Avx512) {
                // SAFETY (of the calls below): this CPU has AVX-512F.
                out.push((
                    "avx512",
                    |d, w| unsafe { avx512::softmax_rows(d, w) },
                    |a, g| unsafe { avx512::swiglu(a, g) },
                ));
            } else {
                eprintln!("vecmath: no AVX-512 on this CPU, its kernels are not tested here");
            }
        }
        out
    }

    #[test]
    fn softmax_and_swiglu_match_slow_twins() {
        for (name, softmax_rows, swiglu) in kernels() {
            check_kernels(name, softmax_rows, swiglu);
        }
    }

    /// A name and its SiLU and Mish kernels.
    type Activations = (&'static str, fn(&mut [f32]), fn(&mut [f32]));

    #[test]
    fn silu_and_mish_match_katago_formulas() {
        let data: Vec<f32> = (0..2000).map(|i| i as f32 * 0.037 - 40.0).collect();
        let mut kernels: Vec<Activations> = vec![("portable", portable::silu, portable::mish)];
        #[cfg(target_arch = "x86_64")]
        {
            if available_isas().contains(&Isa::Avx2) {
                // SAFETY (of the calls below): this CPU has AVX2 and FMA.
                kernels.push((
                    "avx2",
                    |d| unsafe { avx2::silu(d) },
                    |d| unsafe { avx2::mish(d) },
                ));
            }
            if available_isas().contains(&Isa::Avx512) {
                // SAFETY (of the calls below): this CPU has AVX-512F.
                kernels.push((
                    "avx512",
                    |d| unsafe { avx512::silu(d) },
                    |d| unsafe { avx512::mish(d) },
                ));
            }
        }
        for (name, silu, mish) in kernels {
            let (mut s, mut m) = (data.clone(), data.clone());
            silu(&mut s);
            mish(&mut m);
            for ((&x, &gs), &gm) in data.iter().zip(&s).zip(&m) {
                let x64 = x as f64;
                let want_s = x64 / (1.0 + (-x64).exp());
                // KataGo's Mish: x tanh(log1p(e^x)) below 20, x tanh(x) from there.
                let soft = if x < 20.0 { x64.exp().ln_1p() } else { x64 };
                let want_m = x64 * soft.tanh();
                assert!(
                    (gs as f64 - want_s).abs() <= 1e-6 * (1.0 + want_s.abs()),
                    "{name} silu {x}"
                );
                assert!(
                    (gm as f64 - want_m).abs() <= 1e-6 * (1.0 + want_m.abs()),
                    "{name} mish {x}"
                );
            }
        }
    }

    fn check_kernels(
        name: &str,
        softmax_rows: fn(&mut [f32], usize),
        swiglu: fn(&mut [f32], &[f32]),
    ) {
        // Widths with and without a ragged tail, values spread wide.
        for width in [1usize, 7, 8, 9, 81, 361] {
            let data: Vec<f32> = (0..3 * width)
                .map(|i| ((i * 7919) % 1000) as f32 / 37.0 - 13.0)
                .collect();
            let mut fast = data.clone();
            softmax_rows(&mut fast, width);
            for (row, got) in data.chunks(width).zip(fast.chunks(width)) {
                let max = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
                let sum: f64 = row.iter().map(|&v| (v as f64 - max).exp()).sum();
                for (&v, &g) in row.iter().zip(got) {
                    let want = (v as f64 - max).exp() / sum;
                    assert!(
                        (g as f64 - want).abs() < 1e-6 * (1.0 + want),
                        "{name} {width}"
                    );
                }
            }
            let gate: Vec<f32> = data.iter().map(|v| v * 0.5 - 1.0).collect();
            let mut a = data.clone();
            swiglu(&mut a, &gate);
            for ((&x, &g), &got) in data.iter().zip(&gate).zip(&a) {
                let x = x as f64;
                let want = x / (1.0 + (-x).exp()) * g as f64;
                assert!(
                    (got as f64 - want).abs() < 1e-5 * (1.0 + want.abs()),
                    "{name} {x}"
                );
            }
        }
    }
}
