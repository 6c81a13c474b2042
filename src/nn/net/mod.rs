//! The runnable network: layers folded from a file's descriptions (`network`, `blocks`,
//! `heads`, on `layers`, `transformer` and `winograd`), the forward pass (`forward`) over its
//! `workspace`, the precision of the large products, and the post-processing of the outputs.

pub mod blocks;
pub mod forward;
pub mod heads;
pub mod io;
pub mod layers;
pub mod network;
pub mod output;
pub mod precision;
pub mod shapes;
pub mod transformer;
pub mod winograd;
pub mod workspace;
