//! Neural-network evaluation: KataGo-format networks run by tengen's own
//! inference, in pure Rust. The rooms, lowest first; each imports only the
//! ones before it (and `go/`):
//!
//! - `kernels`: the arithmetic, and the only place `unsafe` is allowed. One
//!   CPU-feature detection (`cpu`, capped by `TENGEN_ISA`) chooses every
//!   kernel: the fp32, bf16 and int8 matrix products and the vector kernels,
//!   each per instruction set, the Winograd transforms, and flush-to-zero
//!   (`denormals`).
//! - `input`: what the net takes from a [`crate::Game`]: its sizes, KataGo's
//!   V7 planes and globals (`features`, with `history`, `ladder`, `area`), the
//!   SGF-metadata inputs and the eight board symmetries.
//! - `file`: the model format, read into plain descriptions of the layers,
//!   and the built-in net's file.
//! - `net`: the runnable network: shapes, layers folded from the file,
//!   transformer blocks, Winograd convolutions, the forward pass over a
//!   workspace, the precision of the large products, and post-processing of
//!   the raw outputs into probabilities and scores as KataGo does.
//!
//! On top, `evaluator` ties them together (a game in, a [`NetEval`] out),
//! `source` decides which net an engine runs (`--model`, `TENGEN_MODEL`, the
//! per-user default, the built-in) and `builtin` loads the built-in net.
//!
//! ```no_run
//! use tengen::nn::{Network, Workspace, NetInput, RawEval};
//! let net = Network::load("model.bin.gz").expect("load");
//! let mut ws = Workspace::new(&net, 1, 19);
//! let spatial = vec![0.0f32; 22 * 19 * 19];
//! let global = [0.0f32; 19];
//! let input = NetInput { width: 19, height: 19, spatial: &spatial, global: &global, meta: None };
//! let mut out = [RawEval::new()];
//! net.evaluate(&mut ws, &[input], &[0], &mut out).expect("evaluate");
//! ```

pub mod builtin;
pub mod evaluator;
pub mod file;
pub mod input;
#[allow(unsafe_code)] // the one place: its safe functions check what they rely on
pub mod kernels;
pub mod net;
pub mod source;

pub use input::{features, metadata, symmetry};

pub use evaluator::{Evaluator, NetBuffer};
pub use file::desc::ModelDesc;
pub use file::error::ModelError;
pub use input::sizes::{
    MAX_BOARD_SIZE, NUM_GLOBAL_FEATURES, NUM_META_FEATURES, NUM_SPATIAL_FEATURES,
};
pub use kernels::denormals::FlushDenormals;
pub use net::io::{EvalError, NetInput, RawEval};
pub use net::network::Network;
pub use net::output::{postprocess, NetEval, PostProcessOptions, KATAGO_GTP_POLICY_OPTIMISM};
pub use net::precision::{Precision, PrecisionChoice};
pub use net::workspace::Workspace;
pub use source::NetSource;
