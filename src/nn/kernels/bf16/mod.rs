//! bf16 matrix product.

pub mod gemm;
