//! The network evaluator against KataGo itself: for every position in
//! `tests/data/katago_golden/positions.txt`, tengen's `kata-raw-nn` answer is
//! diffed with the answer KataGo's Eigen build gave on the same net
//! (`tests/data/katago_golden/<net>.txt`, recorded by `record.py` there).
//!
//! Tolerances: every policy probability within 1e-4, win/loss and
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
//!
//! Rectangular boards (the `size W:H` positions): KataGo's GTP evaluates in a
//! buffer of the board's own size, where a transposing symmetry loses its
//! transpose (symmetries 4–7 answer as 0–3); its analysis engine uses a square
//! 19×19 buffer, where they show the net the board turned a quarter.
//! `kata-raw-nn` answers as the GTP engine (the goldens above); the square
//! buffer is checked against KataGo's GTP with `gtpForceMaxNNSize = true`
//! (`g170-b6c96-square-buffer.txt`) through the library's `NetBuffer::Square`.
//!
//! **`TENGEN_GOLDEN_SAMPLE=N`** thins each `kata-raw-nn` golden file to at most `N` answers
//! spread evenly over it (for slow hosts: an emulated CPU runs the large nets for minutes per
//! answer); unset, every answer is checked. The square-buffer checks always take all theirs.

use crate::common;
use crate::common::raw_nn;

use common::Engine;
use raw_nn::{compare, data_dir, find_net, parse_goldens, positions, split_symmetries, Worst};
use std::fs;
use std::io::Write;
use std::path::Path;

/// Diffs every recorded answer in `golden` for the net at `net`. `optimism` is
/// the policy optimism the goldens were recorded with, given to `kata-raw-nn`
/// explicitly (`None`: both engines' default, KataGo's GTP 0.2).
fn check_net(net: &Path, golden: &str, optimism: Option<&str>) {
    let by_name = positions();
    let (_, goldens) = parse_goldens(
        &fs::read_to_string(data_dir().join(golden)).unwrap_or_else(|e| panic!("{golden}: {e}")),
    );
    assert!(!goldens.is_empty(), "{golden} holds no answers");
    let recorded = goldens.len();
    let goldens = sample(goldens);
    if goldens.len() < recorded {
        eprintln!(
            "{golden}: {} of its {recorded} answers ({SAMPLE_VAR})",
            goldens.len()
        );
    }
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
    print_largest_differences(golden, goldens.len(), &worst);
    assert!(
        failures.is_empty(),
        "{} of {} answers differ from KataGo:\n{}",
        failures.len(),
        goldens.len(),
        failures.join("\n")
    );
}

/// The environment variable that thins the golden files (see the module's notes).
const SAMPLE_VAR: &str = "TENGEN_GOLDEN_SAMPLE";

/// At most [`SAMPLE_VAR`]'s count of `goldens`, evenly spread (all of them when it is unset).
fn sample<T>(goldens: Vec<T>) -> Vec<T> {
    let Ok(value) = std::env::var(SAMPLE_VAR) else {
        return goldens;
    };
    let Ok(wanted) = value.trim().parse::<usize>() else {
        panic!("{SAMPLE_VAR}={value} is not a count of answers");
    };
    assert!(wanted > 0, "{SAMPLE_VAR}=0 would check nothing");
    let step = goldens.len().div_ceil(wanted).max(1);
    goldens.into_iter().step_by(step).collect()
}

#[test]
fn b6c96_matches_katago() {
    if let Some(net) = common::b6c96_path() {
        check_net(&net, "g170-b6c96.txt", Some("0"));
    }
}

#[test]
#[ignore = "heavy: .ci/run runs it in its second step"]
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
#[ignore = "heavy: .ci/run runs it in its second step"]
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

/// tengen's `NetBuffer::Square` (what the analysis engine and the search use)
/// against KataGo with a square 19×19 buffer on the rectangular positions,
/// every symmetry: the transposing ones evaluate the board turned a quarter,
/// and answer differently from symmetries 0–3 (so the file does test them).
/// `optimism` as KataGo's config had it (0, or its GTP default 0.2).
fn check_square_buffer(net: std::sync::Arc<tengen::nn::Network>, golden: &str, optimism: f32) {
    use tengen::nn::{Evaluator, NetBuffer, NetEval};
    let by_name = positions();
    let (_, goldens) = parse_goldens(&fs::read_to_string(data_dir().join(golden)).unwrap());
    assert_eq!(goldens.len(), 32, "{golden}: 4 positions x 8 symmetries");
    let mut evaluator = Evaluator::new(net);
    evaluator.set_buffer(NetBuffer::Square);
    // The positions are set up over GTP exactly as for the other goldens, then
    // read back as a tengen Game through printsgf.
    let mut engine = Engine::spawn(&["--quiet"]);
    let mut worst = Worst::new();
    let mut failures = Vec::new();
    let mut transposes_differ = 0;
    let mut first_four: Vec<Vec<Vec<String>>> = Vec::new();
    for g in &goldens {
        let p = by_name.get(&g.position).expect("a known position");
        assert_ne!(p.width, p.height, "{}: rectangles only", g.position);
        for command in p.setup() {
            engine.ok(&command);
        }
        let sgf = engine.ok("printsgf");
        let loaded = tengen::sgf::load(sgf.as_bytes(), 0, None, tengen::Rules::default(), 0.0)
            .unwrap_or_else(|e| panic!("{}: {e}", g.position));
        let symmetry: u8 = g.symmetry.parse().expect("one symmetry per answer");
        let mut eval = NetEval::new();
        evaluator
            .evaluate(&loaded.game, symmetry, optimism, &mut eval)
            .unwrap_or_else(|e| panic!("{}: {e}", g.position));
        let mut text = String::new();
        tengen::gtp::network::write_answer(
            &mut text,
            symmetry,
            &eval.to_view(tengen::Color::White),
        );
        let ours = split_symmetries(&text);
        let theirs = split_symmetries(&g.lines.join("\n"));
        if let Err(why) = compare(&ours[0], &theirs[0], &mut worst) {
            failures.push(format!("{} symmetry {symmetry}: {why}", g.position));
        }
        if symmetry < 4 {
            first_four.push(theirs[0].clone());
        } else if theirs[0] != first_four[(symmetry & 3) as usize] {
            transposes_differ += 1;
        }
        if symmetry == 7 {
            first_four.clear();
        }
    }
    print_largest_differences(golden, goldens.len(), &worst);
    assert_eq!(
        transposes_differ, 16,
        "{golden}: KataGo's transposed answers are their own"
    );
    assert!(failures.is_empty(), "{golden}:\n{}", failures.join("\n"));
}

#[test]
fn b6c96_square_buffer_matches_katago_on_rectangles() {
    if let Some(net) = common::b6c96() {
        check_square_buffer(net, "g170-b6c96-square-buffer.txt", 0.0);
    }
}

#[test]
#[ignore = "heavy: .ci/run runs it in its second step"]
fn b15c192_square_buffer_matches_katago_on_rectangles() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/nets");
    match find_net(&dir, "g170e-b15c192-") {
        Some(net) => check_square_buffer(
            std::sync::Arc::new(tengen::nn::Network::load(&net).expect("loads")),
            "g170e-b15c192-square-buffer.txt",
            0.0,
        ),
        None => common::skipped("no b15c192 net in target/nets (.ci/fetch-nets)", true),
    }
}

#[test]
#[ignore = "heavy: .ci/run runs it in its second step"]
fn transformer_square_buffer_matches_katago_on_rectangles() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/nets");
    match find_net(&dir, "b10c384h6nbttflrs") {
        Some(net) => check_square_buffer(
            std::sync::Arc::new(tengen::nn::Network::load(&net).expect("loads")),
            "b10c384h6nbttflrs-square-buffer.txt",
            tengen::nn::KATAGO_GTP_POLICY_OPTIMISM,
        ),
        None => common::skipped(
            "no b10c384h6nbttflrs net in target/nets (.ci/fetch-nets)",
            true,
        ),
    }
}

/// One stderr line per golden file: its answers and the largest difference of each kind.
fn print_largest_differences(golden: &str, answers: usize, worst: &Worst) {
    let _ = writeln!(
        std::io::stderr(),
        "{golden}: {answers} answers, largest differences: policy {:.1e}, win/loss {:.1e}, ownership {:.1e}, scores {:.3}",
        worst.policy,
        worst.winloss,
        worst.ownership,
        worst.score
    );
}
