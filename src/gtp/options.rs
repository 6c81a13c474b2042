//! How a GTP session starts: the command line's settings and the nets it
//! runs.

use crate::engine::level::Level;
use crate::engine::Limits;
use crate::go::rules::Rules;
use crate::nn::Network;
use std::sync::Arc;

/// The nets a session runs: the main one (its commands, such as
/// `kata-raw-nn`, exist only with it) and a human-SL one
/// (`kata-raw-human-nn`).
#[derive(Clone, Default)]
pub struct Networks {
    pub main: Option<Arc<Network>>,
    pub human: Option<Arc<Network>>,
    /// Their names in `kata-get-models` ([`crate::nn::NetSource::model_name`]).
    pub main_name: String,
    pub human_name: String,
}

/// How the engine starts: the command-line settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub rules: Rules,
    pub komi: f64,
    /// Board size until the first `boardsize`.
    pub size: usize,
    /// `--playouts` / `--time`: the most a `genmove` may use (the clock may
    /// shorten it).
    pub limits: Limits,
    /// No diagnostics on stderr.
    pub quiet: bool,
    /// Think on the opponent's time: after playing a move, keep searching the
    /// position (for the opponent) until the next input line arrives.
    pub ponder: bool,
    /// The human-SL profile's name (`rank_8k`, …; empty for none), which the
    /// network's evaluations are given.
    pub human_profile: String,
    /// How strong `genmove` plays (`tengen-set-level` changes it).
    pub level: Level,
    /// `genmove` may resign (KataGo's `allowResignation`).
    pub allow_resignation: bool,
    /// Search one of each set of moves a symmetry of the position makes
    /// equal (KataGo's `rootSymmetryPruning`).
    pub root_symmetry_pruning: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            rules: Rules::default(),
            komi: 7.5,
            size: 19,
            limits: Limits::default(),
            quiet: false,
            ponder: false,
            human_profile: String::new(),
            level: Level::Max,
            allow_resignation: true,
            root_symmetry_pruning: true,
        }
    }
}
