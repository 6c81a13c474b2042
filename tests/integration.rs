//! Every integration test in one binary: one link instead of one per file,
//! and the tests of all files share the test threads, so one file's waiting
//! overlaps another's work. `Cargo.toml` sets `autotests = false`; each file
//! of `tests/` is a module here, or a `[[test]]` of its own in `Cargo.toml`
//! when it needs a process to itself (`nn_no_alloc` counts every allocation
//! of the process); the check below fails for a file that is neither.
//! Run one file's tests with `cargo test --test integration gtp_protocol::`.

// The helpers every file shares, compiled once: `crate::common` (the GTP
// client, the analysis client, KataGo's nets and raw answers) and
// `crate::match_support`.
mod common;
mod match_support;

#[path = "analysis_engine.rs"]
mod analysis_engine;
#[path = "analysis_fuzz.rs"]
mod analysis_fuzz;
#[path = "analysis_katago.rs"]
mod analysis_katago;
#[path = "analysis_katagoanal.rs"]
mod analysis_katagoanal;
#[path = "analysis_katrain.rs"]
mod analysis_katrain;
#[path = "gtp_analysis.rs"]
mod gtp_analysis;
#[path = "gtp_clients.rs"]
mod gtp_clients;
#[path = "gtp_network.rs"]
mod gtp_network;
#[path = "gtp_protocol.rs"]
mod gtp_protocol;
#[path = "gtp_rectangular.rs"]
mod gtp_rectangular;
#[path = "gtp_robustness.rs"]
mod gtp_robustness;
#[path = "gtp_sgf.rs"]
mod gtp_sgf;
#[path = "gtp_superko.rs"]
mod gtp_superko;
#[path = "house_layout.rs"]
mod house_layout;
#[path = "katago_compat.rs"]
mod katago_compat;
#[path = "match_gnugo.rs"]
mod match_gnugo;
#[path = "match_gtp_client.rs"]
mod match_gtp_client;
#[path = "match_runner.rs"]
mod match_runner;
#[path = "nn_cli.rs"]
mod nn_cli;
#[path = "nn_default_net.rs"]
mod nn_default_net;
#[path = "nn_features_katago.rs"]
mod nn_features_katago;
#[path = "nn_forward_reference.rs"]
mod nn_forward_reference;
#[path = "nn_golden.rs"]
mod nn_golden;
#[path = "nn_golden_synthetic.rs"]
mod nn_golden_synthetic;
#[path = "nn_precision.rs"]
mod nn_precision;
#[path = "rules_differential.rs"]
mod rules_differential;
#[path = "rules_handicap.rs"]
mod rules_handicap;
#[path = "rules_positions.rs"]
mod rules_positions;
#[path = "rules_suicide_and_ko.rs"]
mod rules_suicide_and_ko;
#[path = "rules_undo.rs"]
mod rules_undo;
#[path = "search_engine.rs"]
mod search_engine;
#[path = "search_human.rs"]
mod search_human;
#[path = "search_legality.rs"]
mod search_legality;
#[path = "search_levels.rs"]
mod search_levels;
#[path = "search_strength.rs"]
mod search_strength;
#[path = "search_tactics.rs"]
mod search_tactics;
#[path = "sgf_check.rs"]
mod sgf_check;
#[path = "sgf_cli.rs"]
mod sgf_cli;
#[path = "sgf_fuzz.rs"]
mod sgf_fuzz;
#[path = "sgf_reader.rs"]
mod sgf_reader;
#[path = "soak.rs"]
mod soak;

/// A file in `tests/` that is neither a module above nor a binary of its own
/// would never run.
#[test]
fn every_test_file_is_a_module_of_this_binary_or_a_binary_of_its_own() {
    let this = include_str!("integration.rs");
    let manifest = include_str!("../Cargo.toml");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests");
    for entry in std::fs::read_dir(dir).expect("tests/ is readable") {
        let path = entry.expect("a directory entry").path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_some_and(|e| e == "rs") && stem != "integration" {
            assert!(
                this.contains(&format!("#[path = \"{stem}.rs\"]\nmod {stem};"))
                    || manifest.contains(&format!("path = \"tests/{stem}.rs\"")),
                "tests/{stem}.rs is neither listed in tests/integration.rs nor a [[test]] in Cargo.toml"
            );
        }
    }
}
