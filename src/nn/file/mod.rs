//! KataGo network files: the format read into plain descriptions of the layers and heads
//! (`desc`), by a reader that trusts nothing (`read`, `parser`, `blocks`, `model`), and the
//! net built into the binary (`builtin`).

mod blocks;
pub mod builtin;
pub mod desc;
pub mod error;
mod model;
mod parser;
pub mod read;
