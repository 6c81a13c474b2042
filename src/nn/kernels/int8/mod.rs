//! The eight-bit matrix product (`--precision int8`): the quantized operands, the dispatch, and
//! one kernel per instruction set (portable, AVX2, AVX-VNNI, AVX512-VNNI).

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512_vnni;
pub mod gemm;
pub mod matrix;
mod portable;
#[cfg(test)]
pub(super) mod tests;

pub use gemm::{best_isa, gemm_i8, gemm_i8_with, kernel_name, KERNELS};
pub use matrix::PackedMatrixI8;
