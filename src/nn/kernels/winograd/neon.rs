//! The Winograd row transforms with NEON intrinsics, 4 channels a step over the first `body`
//! values of each channel row (the caller does the ragged end): the portable transforms'
//! operations in the same order, unfused, so the same values bit for bit.

use std::arch::aarch64::*;

/// Pointers to the first `len` values of each row, after checking every row holds them.
fn starts<const N: usize>(rows: &[&[f32]], len: usize) -> [*const f32; N] {
    assert!(rows.len() == N && rows.iter().all(|r| r.len() >= len));
    std::array::from_fn(|k| rows[k].as_ptr())
}

/// [`starts`], mutable.
fn starts_mut<const N: usize>(rows: &mut [&mut [f32]], len: usize) -> [*mut f32; N] {
    assert!(rows.len() >= N && rows[..N].iter().all(|r| r.len() >= len));
    std::array::from_fn(|k| rows[k].as_mut_ptr())
}

/// F(4x4, 3x3)'s `B^T d` over the first `body` (a multiple of 4) values of 6 rows.
#[target_feature(enable = "neon")]
pub(super) unsafe fn f4_input(src: &[&[f32]], dst: &mut [&mut [f32]], body: usize) {
    let d: [*const f32; 6] = starts(src, body);
    let o: [*mut f32; 6] = starts_mut(dst, body);
    let (two, four, five) = (vdupq_n_f32(2.0), vdupq_n_f32(4.0), vdupq_n_f32(5.0));
    let minus_four = vdupq_n_f32(-4.0);
    let mut i = 0;
    while i < body {
        // SAFETY: each row holds `body` values (checked above) and `i + 4 <= body`; NEON is
        // on this CPU (this fn's contract).
        unsafe {
            let [a0, a1, a2, a3, a4, a5] = d.map(|p| vld1q_f32(p.add(i)));
            let o0 = vaddq_f32(vsubq_f32(vmulq_f32(four, a0), vmulq_f32(five, a2)), a4);
            let o1 = vaddq_f32(vaddq_f32(vmulq_f32(minus_four, vaddq_f32(a1, a2)), a3), a4);
            let o2 = vaddq_f32(vsubq_f32(vmulq_f32(four, vsubq_f32(a1, a2)), a3), a4);
            let o3 = vaddq_f32(vsubq_f32(vmulq_f32(two, vsubq_f32(a3, a1)), a2), a4);
            let o4 = vaddq_f32(vsubq_f32(vmulq_f32(two, vsubq_f32(a1, a3)), a2), a4);
            let o5 = vaddq_f32(vsubq_f32(vmulq_f32(four, a1), vmulq_f32(five, a3)), a5);
            for (p, v) in o.iter().zip([o0, o1, o2, o3, o4, o5]) {
                vst1q_f32(p.add(i), v);
            }
        }
        i += 4;
    }
}

/// F(4x4, 3x3)'s `A^T m` over the first `body` values of 6 rows, into 4 rows.
#[target_feature(enable = "neon")]
pub(super) unsafe fn f4_output(src: &[&[f32]], dst: &mut [&mut [f32]], body: usize) {
    let m: [*const f32; 6] = starts(src, body);
    let o: [*mut f32; 4] = starts_mut(dst, body);
    let (two, four, eight) = (vdupq_n_f32(2.0), vdupq_n_f32(4.0), vdupq_n_f32(8.0));
    let mut i = 0;
    while i < body {
        // SAFETY: as in `f4_input`.
        unsafe {
            let [m0, m1, m2, m3, m4, m5] = m.map(|p| vld1q_f32(p.add(i)));
            let (p12, n12) = (vaddq_f32(m1, m2), vsubq_f32(m1, m2));
            let (p34, n34) = (vaddq_f32(m3, m4), vsubq_f32(m3, m4));
            let o0 = vaddq_f32(vaddq_f32(m0, p12), p34);
            let o1 = vaddq_f32(n12, vmulq_f32(two, n34));
            let o2 = vaddq_f32(p12, vmulq_f32(four, p34));
            let o3 = vaddq_f32(vaddq_f32(n12, vmulq_f32(eight, n34)), m5);
            for (p, v) in o.iter().zip([o0, o1, o2, o3]) {
                vst1q_f32(p.add(i), v);
            }
        }
        i += 4;
    }
}

/// F(2x2, 3x3)'s `B^T d` over the first `body` values of 4 rows.
#[target_feature(enable = "neon")]
pub(super) unsafe fn f2_input(src: &[&[f32]], dst: &mut [&mut [f32]], body: usize) {
    let d: [*const f32; 4] = starts(src, body);
    let o: [*mut f32; 4] = starts_mut(dst, body);
    let mut i = 0;
    while i < body {
        // SAFETY: as in `f4_input`.
        unsafe {
            let [d0, d1, d2, d3] = d.map(|p| vld1q_f32(p.add(i)));
            let out = [
                vsubq_f32(d0, d2),
                vaddq_f32(d1, d2),
                vsubq_f32(d2, d1),
                vsubq_f32(d1, d3),
            ];
            for (p, v) in o.iter().zip(out) {
                vst1q_f32(p.add(i), v);
            }
        }
        i += 4;
    }
}

/// F(2x2, 3x3)'s `A^T m` over the first `body` values of 4 rows, into 2 rows.
#[target_feature(enable = "neon")]
pub(super) unsafe fn f2_output(src: &[&[f32]], dst: &mut [&mut [f32]], body: usize) {
    let m: [*const f32; 4] = starts(src, body);
    let o: [*mut f32; 2] = starts_mut(dst, body);
    let mut i = 0;
    while i < body {
        // SAFETY: as in `f4_input`.
        unsafe {
            let [m0, m1, m2, m3] = m.map(|p| vld1q_f32(p.add(i)));
            let o0 = vaddq_f32(vaddq_f32(m0, m1), m2);
            let o1 = vsubq_f32(vsubq_f32(m1, m2), m3);
            vst1q_f32(o[0].add(i), o0);
            vst1q_f32(o[1].add(i), o1);
        }
        i += 4;
    }
}
