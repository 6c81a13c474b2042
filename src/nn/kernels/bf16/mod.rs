//! The bfloat16 matrix product (`--precision bf16`): rounding to bf16, the dispatch with the
//! emulation on the fp32 kernels, and the AVX512-BF16 kernel.

#[cfg(target_arch = "x86_64")]
mod avx512_bf16;
pub mod gemm;
pub mod round;
#[cfg(test)]
pub(super) mod tests;

pub use gemm::{best_isa, gemm_bf16, kernel_name, softmax_gemm_bf16, PackedMatrixBf16, KERNELS};
pub use round::{round_slice, round_to_bf16};
