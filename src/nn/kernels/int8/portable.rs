//! The portable kernel: plain Rust, the twin of the others in the tests.

use super::matrix::{store_row, PackedMatrixI8, QuantizedRows, PANEL, QUAD};

pub fn run(m: usize, a: &QuantizedRows, b: &PackedMatrixI8, c: &mut [f32], accumulate: bool) {
    let n = b.n;
    let kp = a.k_padded;
    for p in 0..n.div_ceil(PANEL) {
        let panel = b.panel(p);
        let cols = PANEL.min(n - p * PANEL);
        for i in 0..m {
            let row = &a.data[i * kp..(i + 1) * kp];
            let mut sums = [0i32; PANEL];
            for (quad, block) in panel.chunks_exact(PANEL * QUAD).enumerate() {
                for (j, sum) in sums.iter_mut().enumerate() {
                    for t in 0..QUAD {
                        *sum += row[quad * QUAD + t] as i32 * block[j * QUAD + t] as i32;
                    }
                }
            }
            store_row(
                &sums,
                a.scale[i],
                &b.scale[p * PANEL..],
                &mut c[i * n + p * PANEL..],
                cols,
                accumulate,
            );
        }
    }
}
