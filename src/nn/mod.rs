//! Neural-network evaluation: KataGo-format networks run by tengen's own
//! inference, in pure Rust.
//!
//! Inputs: `features` computes KataGo's V7 planes and globals from a
//! [`crate::Game`] (with `history`, KataGo's view of the game's history;
//! `ladder`, ladder reading; `area`, pass-alive area) and the legal-move mask.
//!
//! Network: `model` reads the files, `forward` folds the batch norms and runs
//! the batched forward pass on NHWC activations (`layers` holds its kernels,
//! `gemm` the matrix product, `winograd` the 3×3 convolutions), `symmetry` maps board points under the eight symmetries, and `output`
//! post-processes raw outputs into probabilities and scores as KataGo does.
//! `precision` chooses the arithmetic of the large products: fp32, or the
//! reduced kinds of `gemm_bf16` and `gemm_i8`.
//!
//! `evaluator` ties them together: a game in, a [`NetEval`] out. `builtin`
//! holds the net compiled into the binary, `source` decides which net an
//! engine runs (`--model`, `TENGEN_MODEL`, the per-user default, the built-in).
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
pub use net::forward::{EvalError, NetInput, Network, RawEval, Workspace};
pub use net::output::{postprocess, NetEval, PostProcessOptions, KATAGO_GTP_POLICY_OPTIMISM};
pub use net::precision::{Precision, PrecisionChoice};
pub use source::NetSource;
