//! What goes wrong reading a model file.

use std::fmt;

/// A model file that could not be read, with where it went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelError {
    /// What and where: layer name and byte offset when known.
    pub message: String,
}

impl ModelError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        ModelError {
            message: message.into(),
        }
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ModelError {}
