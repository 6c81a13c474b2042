//! The vector kernels on AVX2+FMA: 8 lanes, the portable kernels' polynomial.

use super::exp::*;
use std::arch::x86_64::*;

#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn exp8(x: __m256) -> __m256 {
    let x = _mm256_min_ps(
        _mm256_max_ps(x, _mm256_set1_ps(EXP_MIN)),
        _mm256_set1_ps(EXP_MAX),
    );
    let k = _mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm256_mul_ps(
        x,
        _mm256_set1_ps(LOG2E),
    ));
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
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
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
}

#[target_feature(enable = "avx2,fma")]
pub unsafe fn silu(data: &mut [f32]) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
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
}

#[target_feature(enable = "avx2,fma")]
pub unsafe fn mish(data: &mut [f32]) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
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
}

#[target_feature(enable = "avx2,fma")]
pub unsafe fn swiglu(a: &mut [f32], gate: &[f32]) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
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
