//! Times each GEMM kernel against matrixmultiply on the im2col shape of a 19x19 96->96 3x3
//! convolution, or on the shape `M K N` given as arguments, alternating rounds so machine load
//! hits both alike.
use std::time::Instant;
use tengen::nn::kernels::fp32::{available_isas, gemm_with, PackedMatrix};

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("arguments: M K N"))
        .collect();
    let (m, k, n) = match args[..] {
        [m, k, n] => (m, k, n),
        _ => (361usize, 864usize, 96usize),
    };
    println!("{m} x {k} x {n}");
    let a: Vec<f32> = (0..m * k).map(|i| ((i * 7 % 13) as f32) * 0.01).collect();
    let b: Vec<f32> = (0..k * n).map(|i| ((i * 5 % 11) as f32) * 0.01).collect();
    let packed = PackedMatrix::new(&b, k, n);
    let mut c = vec![0f32; m * n];
    let flops = 2.0 * (m * k * n) as f64;
    let reps = (300.0 * 361.0 * 864.0 * 96.0 / (m * k * n) as f64).ceil() as usize;
    for round in 0..3 {
        let mut line = format!("round {round}:");
        for isa in available_isas().into_iter().skip(1) {
            let t = Instant::now();
            for _ in 0..reps {
                gemm_with(isa, m, &a, k, &packed, &mut c, false);
            }
            line += &format!(
                " {isa:?} {:.1}",
                flops * reps as f64 / t.elapsed().as_secs_f64() / 1e9
            );
        }
        let t = Instant::now();
        for _ in 0..reps {
            // SAFETY: the three matrices are exactly m x k, k x n and m x n, row-major.
            unsafe {
                matrixmultiply::sgemm(
                    m,
                    k,
                    n,
                    1.0,
                    a.as_ptr(),
                    k as isize,
                    1,
                    b.as_ptr(),
                    n as isize,
                    1,
                    0.0,
                    c.as_mut_ptr(),
                    n as isize,
                    1,
                );
            }
        }
        line += &format!(
            " matrixmultiply {:.1} GFLOP/s",
            flops * reps as f64 / t.elapsed().as_secs_f64() / 1e9
        );
        println!("{line}");
    }
}
