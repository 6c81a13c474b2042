//! The fp32 matrix product: the packed right-hand matrix, the dispatch, and one kernel per
//! instruction set (portable, AVX2+FMA, AVX-512F, NEON).

#[cfg(target_arch = "x86_64")]
pub(super) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(super) mod avx512;
pub mod gemm;
pub mod matrix;
#[cfg(target_arch = "aarch64")]
pub(super) mod neon;
mod portable;
#[cfg(test)]
pub(super) mod tests;

pub use gemm::{available_isas, best_isa, gemm, gemm_with, KERNELS};
pub use matrix::PackedMatrix;
