//! fp32 matrix product.

pub mod gemm;
