//! int8 matrix product.

pub mod gemm;
