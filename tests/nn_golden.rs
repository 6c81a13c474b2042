//! The network evaluator against KataGo itself: for every position in
//! `tests/data/katago_golden/positions.txt`, tengen's `kata-raw-nn` answer is
//! diffed with the answer KataGo's Eigen build gave on the same net
//! (`tests/data/katago_golden/<net>.txt`, recorded by `record.py` there).
//!
//! Tolerances (issue 11): every policy probability within 1e-4, win/loss and
//! ownership within 1e-3, scores within 0.01 points. Illegal points must be
//! `NAN` in both answers, and the two answers must have the same lines in the
//! same order (labels, grid shapes), so they diff line for line.
//!
//! Nets: b6c96 from `../shared/nets/`; b15c192, b18c384nbt and the
//! b10c384h6nbttflrs transformer (model version 15) from `target/nets/`
//! (`.ci/fetch-nets` puts them there). A missing net is a loud skip on stderr,
//! and under `CI=true` a failure for b6c96, b15c192 and the transformer.
//! The older goldens were recorded with policy optimism 0, the transformer's
//! with KataGo's GTP default (0.2), which `kata-raw-nn` then uses on both sides.

mod common;
#[path = "common/raw_nn.rs"]
mod raw_nn;

use common::Engine;
use raw_nn::{compare, data_dir, parse_goldens, positions, split_symmetries, Worst};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where a net is, if it is here.
fn find_net(dir: &Path, prefix: &str) -> Option<PathBuf> {
    fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix) && n.ends_with(".bin.gz"))
        })
}

/// Diffs every recorded answer in `golden` for the net at `net`. `optimism` is
/// the policy optimism the goldens were recorded with, given to `kata-raw-nn`
/// explicitly (`None`: both engines' default, KataGo's GTP 0.2).
fn check_net(net: &Path, golden: &str, optimism: Option<&str>) {
    let by_name = positions();
    let (_, goldens) = parse_goldens(
        &fs::read_to_string(data_dir().join(golden)).unwrap_or_else(|e| panic!("{golden}: {e}")),
    );
    assert!(!goldens.is_empty(), "{golden} holds no answers");
    let net_arg = net.to_str().expect("net path is UTF-8");
    let mut engine = Engine::spawn(&["--model", net_arg, "--quiet"]);
    let mut worst = Worst::new();
    let mut failures = Vec::new();
    let mut current = "";
    for g in &goldens {
        let (name, sym) = (g.position.as_str(), g.symmetry.as_str());
        let p = by_name
            .get(name)
            .unwrap_or_else(|| panic!("{golden}: unknown position {name}"));
        if current != name {
            for command in p.setup() {
                engine.ok(&command);
            }
            current = name;
        }
        let ask = match optimism {
            Some(o) => format!("kata-raw-nn {sym} {o}"),
            None => format!("kata-raw-nn {sym}"),
        };
        let ours = split_symmetries(&engine.ok(&ask));
        let theirs = split_symmetries(&g.lines.join("\n"));
        let expected = if sym == "all" { 8 } else { 1 };
        assert_eq!(theirs.len(), expected, "{golden}: {name} symmetry {sym}");
        if ours.len() != expected {
            failures.push(format!("{name} symmetry {sym}: {} answers", ours.len()));
            continue;
        }
        for (a, b) in ours.iter().zip(&theirs) {
            if let Err(why) = compare(a, b, &mut worst) {
                failures.push(format!("{name} symmetry {sym}: {why}"));
            }
        }
    }
    let _ = writeln!(
        std::io::stderr(),
        "{golden}: {} answers, largest differences: policy {:.1e}, win/loss {:.1e}, ownership {:.1e}, scores {:.3}",
        goldens.len(),
        worst.policy,
        worst.winloss,
        worst.ownership,
        worst.score
    );
    assert!(
        failures.is_empty(),
        "{} of {} answers differ from KataGo:\n{}",
        failures.len(),
        goldens.len(),
        failures.join("\n")
    );
}

#[test]
fn b6c96_matches_katago() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/nets");
    match find_net(&shared, "g170-b6c96-") {
        Some(net) => check_net(&net, "g170-b6c96.txt", Some("0")),
        None => common::skipped("no b6c96 net in ../shared/nets", true),
    }
}

#[test]
fn b15c192_matches_katago() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/nets");
    match find_net(&dir, "g170e-b15c192-") {
        Some(net) => check_net(&net, "g170e-b15c192.txt", Some("0")),
        None => common::skipped("no b15c192 net in target/nets (.ci/fetch-nets)", true),
    }
}

#[test]
fn b18c384nbt_matches_katago() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/nets");
    match find_net(&dir, "kata1-b18c384nbt-") {
        Some(net) => check_net(&net, "kata1-b18c384nbt.txt", Some("0")),
        None => common::skipped(
            "no b18c384nbt net in target/nets (.ci/fetch-nets --b18)",
            false,
        ),
    }
}

#[test]
fn b10c384h6nbttflrs_transformer_matches_katago() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/nets");
    match find_net(&dir, "b10c384h6nbttflrs") {
        Some(net) => check_net(&net, "b10c384h6nbttflrs.txt", None),
        None => common::skipped(
            "no b10c384h6nbttflrs net in target/nets (.ci/fetch-nets)",
            true,
        ),
    }
}
