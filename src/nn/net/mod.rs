//! The runnable network: layers folded from a file's descriptions, the forward pass and its
//! workspace, and the post-processing of its outputs.

pub mod forward;
pub mod layers;
pub mod output;
pub mod precision;
pub mod shapes;
pub mod transformer;
pub mod winograd;
