//! The AVX2 kernels on 16 lanes: the same polynomial, the same results but for the order
//! of the row sums.
use super::exp::*;
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
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
        if left >= 16 {
            _mm512_loadu_ps(p)
        } else {
            _mm512_maskz_loadu_ps(lanes(left), p)
        }
    }
}

/// Stores `v` at `p`, or only its first `left` values when fewer are left.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn store(p: *mut f32, left: usize, v: __m512) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
        if left >= 16 {
            _mm512_storeu_ps(p, v)
        } else {
            _mm512_mask_storeu_ps(p, lanes(left), v)
        }
    }
}

/// The largest of the `width` values at `p`.
#[inline]
#[target_feature(enable = "avx512f")]
pub(in crate::nn::kernels) unsafe fn row_max(p: *const f32, width: usize) -> f32 {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
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
}

#[target_feature(enable = "avx512f")]
pub unsafe fn softmax_rows(data: &mut [f32], width: usize) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
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
}

#[target_feature(enable = "avx512f")]
pub unsafe fn silu(data: &mut [f32]) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
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
}

#[target_feature(enable = "avx512f")]
pub unsafe fn mish(data: &mut [f32]) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
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
}

#[target_feature(enable = "avx512f")]
pub unsafe fn swiglu(a: &mut [f32], gate: &[f32]) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
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
