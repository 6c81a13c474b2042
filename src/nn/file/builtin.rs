//! The network file built into the binary: KataGo's g170 b6c96 (model version 8,
//! 6 blocks of 96 channels, 3.8 MB), the default evaluator when no other net
//! is found (see [`crate::nn::source`]; [`crate::nn::builtin`] loads it). MIT
//! licence, Copyright David J Wu ("lightvector") and other authors of KataGo:
//! the whole notice is `src/nn/file/builtin/NOTICE`, shown by `tengen --help`
//! and the README.

use super::desc::ModelDesc;
use super::error::ModelError;

/// The built-in net's file name, as KataGo publishes it.
pub const FILE_NAME: &str = "g170-b6c96-s175395328-d26788732.bin.gz";

/// The file itself, gzip-compressed as published.
pub const BYTES: &[u8] = include_bytes!("builtin/g170-b6c96-s175395328-d26788732.bin.gz");

/// The credit line for `--help`, `--version` and the start-up log, as a
/// literal (so `concat!` can use it).
#[macro_export]
macro_rules! builtin_net_credit {
    () => {
        "Built-in network: KataGo g170 b6c96 (g170-b6c96-s175395328-d26788732), MIT licence, \
         Copyright (c) David J Wu (\"lightvector\") and other authors of KataGo."
    };
}

/// The credit line, see [`builtin_net_credit`].
pub const CREDIT: &str = builtin_net_credit!();

/// The licence notice that travels with the built-in net.
pub const NOTICE: &str = include_str!("builtin/NOTICE");

/// Parses the built-in net.
pub fn model() -> Result<ModelDesc, ModelError> {
    ModelDesc::from_file_bytes(FILE_NAME, BYTES)
}
