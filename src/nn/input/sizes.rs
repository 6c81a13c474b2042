//! The sizes of what the net takes, defined once for every layer: the largest board and the
//! numbers of input planes, global inputs and SGF-metadata inputs (KataGo's V7 features and
//! metaEncoderVersion 1).

/// Largest board side.
pub const MAX_BOARD_SIZE: usize = 19;
/// Spatial input planes per point (KataGo's V7 features).
pub const NUM_SPATIAL_FEATURES: usize = 22;
/// Global inputs (KataGo's V7 features).
pub const NUM_GLOBAL_FEATURES: usize = 19;
/// Inputs of the SGF-metadata encoder (metaEncoderVersion 1).
pub const NUM_META_FEATURES: usize = 192;
