//! The net built into the binary, ready to run: its file, name and licence notice are
//! [`super::file::builtin`]'s, loaded here into a [`Network`].

pub use super::file::builtin::{model, BYTES, CREDIT, FILE_NAME, NOTICE};
use super::file::error::ModelError;
use super::net::network::Network;

/// Loads the built-in net for evaluation.
pub fn network() -> Result<Network, ModelError> {
    model().map(|m| Network::from_model(&m))
}
