//! Tests of the vector kernels: each one against KataGo's formulas in f64 and the portable
//! kernels.

use super::exp::*;
#[cfg(target_arch = "aarch64")]
use super::neon;
use super::ops::KERNELS;
use super::portable;
#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512};
use crate::nn::kernels::cpu::Isa;
use crate::nn::kernels::tested::run_each;

/// The name the kernel record knows this family by.
pub(in crate::nn::kernels) const FAMILY: &str = "vector";

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
pub(in crate::nn::kernels) fn coarse_exp_is_within_1e_5_of_exp_below_zero() {
    let test = "coarse_exp_is_within_1e_5_of_exp_below_zero";
    run_each(test, FAMILY, &[Isa::Avx512], |_| coarse_exp_below_zero());
}

#[cfg(target_arch = "x86_64")]
fn coarse_exp_below_zero() {
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

/// NEON's `e^x` over the whole clamped range: within 1e-6 of `exp` (as [`fast_exp`]) and
/// within 2 ulp-sized steps of the portable one (the same polynomial, fused).
#[cfg(target_arch = "aarch64")]
#[test]
pub(in crate::nn::kernels) fn neon_exp_is_close_to_exp_and_to_the_portable_one() {
    let test = "neon_exp_is_close_to_exp_and_to_the_portable_one";
    run_each(test, FAMILY, &[Isa::Neon], |_| {
        let mut worst = 0.0f64;
        let mut x = -90.0f32;
        while x < 90.0 {
            let lanes: [f32; 4] = std::array::from_fn(|i| x + i as f32 * 0.003_1);
            let mut got = [0.0f32; 4];
            // SAFETY: this CPU has NEON (run_each runs only the kernels it has).
            unsafe {
                use std::arch::aarch64::*;
                vst1q_f32(got.as_mut_ptr(), neon::exp4(vld1q_f32(lanes.as_ptr())));
            }
            for (&v, &e) in lanes.iter().zip(&got) {
                let want = (v.clamp(EXP_MIN, EXP_MAX) as f64).exp();
                let error = ((e as f64 - want) / want).abs();
                assert!(error < 1e-6, "{v}: {e} vs {want}");
                let twin = fast_exp(v);
                assert!(
                    (e - twin).abs() <= 4e-7 * twin,
                    "{v}: {e} vs portable {twin}"
                );
                worst = worst.max(error);
            }
            x += 0.0137;
        }
        eprintln!("exp4: largest relative error {worst:.2e}");
    });
}

/// The vector kernels of one level.
struct Kernels {
    softmax_rows: fn(&mut [f32], usize),
    swiglu: fn(&mut [f32], &[f32]),
    silu: fn(&mut [f32]),
    mish: fn(&mut [f32]),
}

/// The kernels of level `isa`, for [`run_each`] to call where the CPU has them.
fn kernels(isa: Isa) -> Kernels {
    assert!(isa.on_cpu(), "{} is not on this CPU", isa.name());
    match isa {
        // SAFETY (of the calls below): this CPU has AVX-512F (checked above).
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => Kernels {
            softmax_rows: |d, w| unsafe { avx512::softmax_rows(d, w) },
            swiglu: |a, g| unsafe { avx512::swiglu(a, g) },
            silu: |d| unsafe { avx512::silu(d) },
            mish: |d| unsafe { avx512::mish(d) },
        },
        // SAFETY (of the calls below): this CPU has AVX2 and FMA (checked above).
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => Kernels {
            softmax_rows: |d, w| unsafe { avx2::softmax_rows(d, w) },
            swiglu: |a, g| unsafe { avx2::swiglu(a, g) },
            silu: |d| unsafe { avx2::silu(d) },
            mish: |d| unsafe { avx2::mish(d) },
        },
        // SAFETY (of the calls below): this CPU has NEON (checked above).
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => Kernels {
            softmax_rows: |d, w| unsafe { neon::softmax_rows(d, w) },
            swiglu: |a, g| unsafe { neon::swiglu(a, g) },
            silu: |d| unsafe { neon::silu(d) },
            mish: |d| unsafe { neon::mish(d) },
        },
        _ => Kernels {
            softmax_rows: portable::softmax_rows,
            swiglu: portable::swiglu,
            silu: portable::silu,
            mish: portable::mish,
        },
    }
}

#[test]
pub(in crate::nn::kernels) fn softmax_and_swiglu_match_slow_twins() {
    let test = "softmax_and_swiglu_match_slow_twins";
    run_each(test, FAMILY, KERNELS, |isa| {
        let k = kernels(isa);
        check_kernels(isa.name(), k.softmax_rows, k.swiglu);
    });
}

/// SiLU and Mish of each kernel against KataGo's formulas in f64 and against the portable
/// kernel's.
#[test]
pub(in crate::nn::kernels) fn silu_and_mish_match_katago_formulas() {
    let data: Vec<f32> = (0..2000).map(|i| i as f32 * 0.037 - 40.0).collect();
    let (mut twin_s, mut twin_m) = (data.clone(), data.clone());
    portable::silu(&mut twin_s);
    portable::mish(&mut twin_m);
    run_each(
        "silu_and_mish_match_katago_formulas",
        FAMILY,
        KERNELS,
        |isa| {
            let (name, silu, mish) = (isa.name(), kernels(isa).silu, kernels(isa).mish);
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
            for (got, twin) in s.iter().zip(&twin_s).chain(m.iter().zip(&twin_m)) {
                assert!(
                    (got - twin).abs() <= 1e-6 * (1.0 + twin.abs()),
                    "{name}: {got} against the portable kernel's {twin}"
                );
            }
        },
    );
}

fn check_kernels(name: &str, softmax_rows: fn(&mut [f32], usize), swiglu: fn(&mut [f32], &[f32])) {
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
