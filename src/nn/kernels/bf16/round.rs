//! Rounding to bfloat16 as the bf16 instructions round.

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
