//! The portable vector kernels: plain Rust, the twin of the others in the tests.

use super::exp::{fast_exp, mish_one};

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
