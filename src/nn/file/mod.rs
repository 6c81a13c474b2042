//! KataGo network files: the format read into plain descriptions of the layers, and the net
//! built into the binary.

pub mod builtin;
pub mod model;
