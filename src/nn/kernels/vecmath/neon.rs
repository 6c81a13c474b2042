//! The vector kernels on NEON: 4 lanes, the portable kernels' polynomial with fused
//! multiply-adds (as the x86 kernels have).

use super::exp::*;
use std::arch::aarch64::*;

/// `e^x` on 4 lanes: the clamp, the range reduction by `ln 2` in two parts and the degree-6
/// polynomial of [`fast_exp`], times `2^k` built in the exponent bits.
#[inline]
#[target_feature(enable = "neon")]
pub(super) unsafe fn exp4(x: float32x4_t) -> float32x4_t {
    let x = vminq_f32(vmaxq_f32(x, vdupq_n_f32(EXP_MIN)), vdupq_n_f32(EXP_MAX));
    // Round to nearest, ties to even, as the portable kernel's `1.5 * 2^23` trick does.
    let k = vrndnq_f32(vmulq_f32(x, vdupq_n_f32(LOG2E)));
    let r = vfmsq_f32(x, k, vdupq_n_f32(LN2_HI));
    let r = vfmsq_f32(r, k, vdupq_n_f32(LN2_LO));
    let mut p = vdupq_n_f32(C6);
    for c in [C5, C4, C3, C2, 1.0, 1.0] {
        p = vfmaq_f32(vdupq_n_f32(c), p, r);
    }
    let bits = vshlq_n_s32::<23>(vaddq_s32(vcvtq_s32_f32(k), vdupq_n_s32(127)));
    vmulq_f32(p, vreinterpretq_f32_s32(bits))
}

/// `x / (1 + e^-x)` on 4 lanes.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn silu4(x: float32x4_t) -> float32x4_t {
    // SAFETY: this fn's contract: the CPU has NEON.
    let e = unsafe { exp4(vnegq_f32(x)) };
    vdivq_f32(x, vaddq_f32(vdupq_n_f32(1.0), e))
}

#[target_feature(enable = "neon")]
pub unsafe fn softmax_rows(data: &mut [f32], width: usize) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
        let body = width - width % 4;
        for row in data.chunks_exact_mut(width) {
            let p = row.as_mut_ptr();
            let mut max4 = vdupq_n_f32(f32::NEG_INFINITY);
            let mut i = 0;
            while i < body {
                // maxNum, as `f32::max`: a NaN loses to a number.
                max4 = vmaxnmq_f32(max4, vld1q_f32(p.add(i)));
                i += 4;
            }
            let max = row[body..]
                .iter()
                .fold(vmaxnmvq_f32(max4), |m, &v| m.max(v));
            let shift = vdupq_n_f32(max);
            let mut sum4 = vdupq_n_f32(0.0);
            i = 0;
            while i < body {
                let e = exp4(vsubq_f32(vld1q_f32(p.add(i)), shift));
                vst1q_f32(p.add(i), e);
                sum4 = vaddq_f32(sum4, e);
                i += 4;
            }
            let mut sum = vaddvq_f32(sum4);
            for v in &mut row[body..] {
                *v = fast_exp(*v - max);
                sum += *v;
            }
            let inv = 1.0 / sum;
            let inv4 = vdupq_n_f32(inv);
            i = 0;
            while i < body {
                vst1q_f32(p.add(i), vmulq_f32(vld1q_f32(p.add(i)), inv4));
                i += 4;
            }
            row[body..].iter_mut().for_each(|v| *v *= inv);
        }
    }
}

#[target_feature(enable = "neon")]
pub unsafe fn silu(data: &mut [f32]) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
        let body = data.len() - data.len() % 4;
        let p = data.as_mut_ptr();
        let mut i = 0;
        while i < body {
            vst1q_f32(p.add(i), silu4(vld1q_f32(p.add(i))));
            i += 4;
        }
        super::portable::silu(&mut data[body..]);
    }
}

#[target_feature(enable = "neon")]
pub unsafe fn mish(data: &mut [f32]) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
        let body = data.len() - data.len() % 4;
        let p = data.as_mut_ptr();
        let two = vdupq_n_f32(2.0);
        let linear = vdupq_n_f32(MISH_LINEAR);
        let mut i = 0;
        while i < body {
            let x = vld1q_f32(p.add(i));
            let e = exp4(vminq_f32(x, linear));
            let n = vmulq_f32(e, vaddq_f32(e, two));
            let m = vdivq_f32(vmulq_f32(x, n), vaddq_f32(n, two));
            let big = vcgeq_f32(x, linear);
            vst1q_f32(p.add(i), vbslq_f32(big, x, m));
            i += 4;
        }
        super::portable::mish(&mut data[body..]);
    }
}

#[target_feature(enable = "neon")]
pub unsafe fn swiglu(a: &mut [f32], gate: &[f32]) {
    // SAFETY: this fn's contract: the CPU has its target features, and the operands
    // cover the shapes it is given (its safe caller checked both).
    unsafe {
        let n = a.len().min(gate.len());
        let body = n - n % 4;
        let (pa, pg) = (a.as_mut_ptr(), gate.as_ptr());
        let mut i = 0;
        while i < body {
            let silu = silu4(vld1q_f32(pa.add(i)));
            vst1q_f32(pa.add(i), vmulq_f32(silu, vld1q_f32(pg.add(i))));
            i += 4;
        }
        for j in body..n {
            a[j] = a[j] / (1.0 + fast_exp(-a[j])) * gate[j];
        }
    }
}
