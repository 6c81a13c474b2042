//! The scalar exponential and activations every vector kernel computes the same polynomial as,
//! and the constants they share.

pub(super) const LOG2E: f32 = std::f32::consts::LOG2_E;
/// ln 2 split in two for an exact range reduction (Cody and Waite).
pub(super) const LN2_HI: f32 = 0.693_145_75;
pub(super) const LN2_LO: f32 = 1.428_606_8e-6;
/// Taylor coefficients of `e^r` on |r| <= ln 2 / 2 (relative error below 2e-7).
pub(super) const C2: f32 = 0.5;
pub(super) const C3: f32 = 1.0 / 6.0;
pub(super) const C4: f32 = 1.0 / 24.0;
pub(super) const C5: f32 = 1.0 / 120.0;
pub(super) const C6: f32 = 1.0 / 720.0;
/// Inputs are clamped here: the results stay normal floats.
pub(super) const EXP_MIN: f32 = -87.0;
pub(super) const EXP_MAX: f32 = 88.0;
/// The clamp of [`avx512::exp16_coarse`]: `e^x` for `x` at or below it stays a normal float.
#[cfg(target_arch = "x86_64")]
pub(super) const EXP16_COARSE_MIN: f32 = -80.0;
/// Its polynomial, lowest power first: the least largest relative error from `e^r` on
/// `|r| <= ln 2 / 2` (Lawson's iteration on a fine grid, then rounded to f32).
#[cfg(target_arch = "x86_64")]
pub(super) const EXP16_COARSE_POLY: [f32; 5] = [
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

/// Mish through one exponential: `tanh(ln(1 + e^x)) = n / (n + 2)` with `n = e^x (e^x + 2)`.
#[inline(always)]
pub(super) fn mish_one(x: f32) -> f32 {
    if x >= MISH_LINEAR {
        return x;
    }
    let e = fast_exp(x);
    let n = e * (e + 2.0);
    x * n / (n + 2.0)
}

/// From here Mish is the identity in f32 (tanh of the softplus rounds to 1).
pub(super) const MISH_LINEAR: f32 = 20.0;
