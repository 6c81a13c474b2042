//! The arithmetic kernels: matrix products per precision and instruction set, and the vector
//! kernels of the forward pass.

pub mod bf16;
pub mod fp32;
pub mod int8;
pub mod vecmath;
