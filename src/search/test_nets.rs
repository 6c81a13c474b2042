//! Nets the unit tests load from disk: `None`, with a notice on stderr, when
//! the file is missing — and a failure under `CI=true`, where it must be there;
//! and a small engine over one.

use super::config::SearchConfig;
use super::mcts_engine::MctsEngine;
use crate::nn::Network;
use std::sync::Arc;

/// The net at `relative` (to the crate's directory), `what` naming it in the
/// messages and `hint` saying where it comes from.
fn load(relative: &str, what: &str, hint: &str) -> Option<Arc<Network>> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    if !path.exists() {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        assert!(!ci, "no {what} net at {relative} under CI=true");
        crate::log_line!("skipped: no {what} net at {relative} ({hint})");
        return None;
    }
    let net = Network::load(&path).unwrap_or_else(|e| panic!("the {what} net loads: {e}"));
    Some(Arc::new(net))
}

/// The g170 b6c96 net: the copy built into the binary (`src/nn/file/builtin/`),
/// or else the one of `../shared/nets/`.
pub fn b6c96() -> Option<Arc<Network>> {
    const BUILTIN: &str = "src/nn/file/builtin/g170-b6c96-s175395328-d26788732.bin.gz";
    let builtin = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(BUILTIN);
    let relative = if builtin.exists() {
        BUILTIN
    } else {
        "../shared/nets/g170-b6c96-s175395328-d26788732.bin.gz"
    };
    load(
        relative,
        "b6c96",
        "the built-in net's file, or the shared nets beside the repository",
    )
}

/// KaTrain 1.20's transformer (model version 15) in `target/nets/`.
pub fn transformer() -> Option<Arc<Network>> {
    load(
        "target/nets/b10c384h6nbttflrs.bin.gz",
        "transformer",
        ".ci/fetch-nets",
    )
}

/// A network engine with a small table and the default settings.
pub fn small_network_engine(net: &Arc<Network>) -> MctsEngine {
    let cfg = SearchConfig {
        tt_mb: 4,
        ..SearchConfig::default()
    };
    MctsEngine::with_network(cfg, net.clone()).unwrap()
}
