//! The portable kernel: plain Rust, the twin of the others in the tests.

use super::matrix::{store_row, PackedMatrix, PANEL};

/// The portable kernel: one 16-wide accumulator row per row of `a` and panel.
pub fn run(m: usize, a: &[f32], lda: usize, b: &PackedMatrix, c: &mut [f32], accumulate: bool) {
    let (k, n) = (b.k, b.n);
    for p in 0..n.div_ceil(PANEL) {
        let panel = b.panel(p);
        let cols = PANEL.min(n - p * PANEL);
        for i in 0..m {
            let row = &a[i * lda..i * lda + k];
            let mut acc = [0.0f32; PANEL];
            for (x, bk) in row.iter().zip(panel.chunks_exact(PANEL)) {
                for j in 0..PANEL {
                    acc[j] += x * bk[j];
                }
            }
            store_row(&acc, &mut c[i * n + p * PANEL..], cols, accumulate);
        }
    }
}
