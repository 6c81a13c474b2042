//! The elementwise kernels of the forward pass: `e^x`, SiLU and Mish over slices, softmax over
//! rows and the SwiGLU gate, one kernel per instruction set (portable, AVX2+FMA, AVX-512F, NEON).

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
pub(super) mod avx512;
pub mod exp;
#[cfg(target_arch = "aarch64")]
pub(super) mod neon;
pub mod ops;
mod portable;
#[cfg(test)]
pub(super) mod tests;

pub use exp::{fast_exp, sum_of_squares};
pub use ops::{best_isa, mish, silu, softmax_rows, swiglu, KERNELS};
