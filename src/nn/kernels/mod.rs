//! The arithmetic kernels, and the only place `unsafe` is allowed: matrix products per
//! precision and instruction set, the vector kernels of the forward pass, the Winograd
//! transforms, and the one CPU-feature detection (`cpu`) every choice of kernel asks.

pub mod bf16;
pub mod cpu;
pub mod denormals;
pub mod fp32;
pub mod int8;
#[cfg(test)]
mod tested;
#[cfg(test)]
mod tests;
pub mod vecmath;
pub mod winograd;
