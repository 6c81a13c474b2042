//! Vector kernels.

pub mod ops;
