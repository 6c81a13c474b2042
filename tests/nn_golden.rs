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

use common::Engine;
use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

const POLICY_TOL: f64 = 1e-4;
const PROB_TOL: f64 = 1e-3;
const SCORE_TOL: f64 = 0.01;

/// One position of `positions.txt`.
#[derive(Debug)]
struct Position {
    name: String,
    size: usize,
    komi: String,
    /// KataGo-style JSON rules for `kata-set-rules`.
    rules_json: String,
    /// `(colour, vertex)` pairs.
    moves: Vec<(String, String)>,
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/katago_golden")
}

fn parse_positions(text: &str) -> Vec<Position> {
    let mut out = Vec::new();
    let mut cur: Option<Position> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        let rest = rest.trim();
        let at = || format!("positions.txt line {}", i + 1);
        match key {
            "position" => {
                assert!(cur.is_none(), "{}: position inside a position", at());
                cur = Some(Position {
                    name: rest.to_string(),
                    size: 19,
                    komi: "7.5".into(),
                    rules_json: String::new(),
                    moves: Vec::new(),
                });
            }
            "end" => out.push(cur.take().unwrap_or_else(|| panic!("{}: stray end", at()))),
            _ => {
                let p = cur
                    .as_mut()
                    .unwrap_or_else(|| panic!("{}: outside a position", at()));
                match key {
                    "size" => p.size = rest.parse().unwrap_or_else(|_| panic!("{}", at())),
                    "komi" => p.komi = rest.to_string(),
                    "rules" => p.rules_json = rules_json(rest, &at()),
                    "moves" => {
                        let words: Vec<&str> = rest.split_whitespace().collect();
                        assert!(words.len().is_multiple_of(2), "{}: odd move list", at());
                        p.moves = words
                            .chunks(2)
                            .map(|c| (c[0].to_string(), c[1].to_string()))
                            .collect();
                    }
                    // Which symmetries were recorded is read from the goldens.
                    "symmetries" => {}
                    _ => panic!("{}: unknown key {key}", at()),
                }
            }
        }
    }
    assert!(cur.is_none(), "positions.txt ends inside a position");
    out
}

/// `ko=positional suicide=0 scoring=area` → KataGo's JSON rules.
fn rules_json(spec: &str, at: &str) -> String {
    let mut fields = HashMap::new();
    for kv in spec.split_whitespace() {
        let (k, v) = kv
            .split_once('=')
            .unwrap_or_else(|| panic!("{at}: bad rules {kv}"));
        fields.insert(k, v);
    }
    let ko = fields.get("ko").copied().unwrap_or("positional");
    let scoring = fields.get("scoring").copied().unwrap_or("area");
    let suicide = fields.get("suicide").copied().unwrap_or("0") == "1";
    format!(
        "{{\"ko\":\"{}\",\"scoring\":\"{}\",\"suicide\":{suicide}}}",
        ko.to_ascii_uppercase(),
        scoring.to_ascii_uppercase()
    )
}

/// One `kata-raw-nn` answer for one symmetry: its lines, split in words.
type Answer = Vec<Vec<String>>;

/// `(position, symmetry, KataGo's response lines)` from a golden file.
fn parse_goldens(text: &str) -> Vec<(String, String, Vec<String>)> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(name) = line.strip_prefix("position ") else {
            continue;
        };
        let sym_line = lines.next().expect("symmetry line");
        let sym = sym_line
            .strip_prefix("symmetry ")
            .expect("symmetry line")
            .trim()
            .to_string();
        // The answer's own first line is its `symmetry N` line.
        let mut answer = vec![sym_line.to_string()];
        for l in lines.by_ref() {
            if l == "end" {
                break;
            }
            answer.push(l.to_string());
        }
        out.push((name.trim().to_string(), sym, answer));
    }
    out
}

/// Splits a response to `kata-raw-nn all` into one answer per symmetry.
fn split_symmetries(text: &str) -> Vec<Answer> {
    let mut out: Vec<Answer> = Vec::new();
    for l in text.lines() {
        let words: Vec<String> = l.split_whitespace().map(String::from).collect();
        if words.first().map(String::as_str) == Some("symmetry") {
            out.push(Vec::new());
        }
        if words.is_empty() {
            continue;
        }
        if let Some(a) = out.last_mut() {
            a.push(words);
        }
    }
    out
}

/// The largest difference seen per kind of output.
#[derive(Default, Debug)]
struct Worst {
    policy: f64,
    winloss: f64,
    ownership: f64,
    score: f64,
}

/// Compares two answers line by line; returns a description of the first
/// difference beyond tolerance.
fn compare(ours: &Answer, theirs: &Answer, worst: &mut Worst) -> Result<(), String> {
    let mut section = "";
    let theirs: Vec<&Vec<String>> = theirs.iter().filter(|l| !l.is_empty()).collect();
    if ours.len() != theirs.len() {
        return Err(format!("{} lines, KataGo has {}", ours.len(), theirs.len()));
    }
    for (row, (a, b)) in ours.iter().zip(theirs).enumerate() {
        if a.len() != b.len() {
            return Err(format!("line {row}: {a:?} vs KataGo {b:?}"));
        }
        let label = if a[0].parse::<f64>().is_err() && a[0] != "NAN" {
            if a[0] != b[0] {
                return Err(format!("line {row}: label {} vs KataGo {}", a[0], b[0]));
            }
            if a.len() == 1 {
                section = if a[0] == "policy" {
                    "policy"
                } else {
                    "ownership"
                };
                continue;
            }
            a[0].as_str()
        } else {
            section
        };
        let first = usize::from(a[0].parse::<f64>().is_err() && a[0] != "NAN");
        for (x, y) in a[first..].iter().zip(&b[first..]) {
            if x == "NAN" || y == "NAN" {
                if x != y {
                    return Err(format!("line {row} ({label}): {x} vs KataGo {y}"));
                }
                continue;
            }
            let (u, v): (f64, f64) = (
                x.parse().map_err(|_| format!("bad number {x}"))?,
                y.parse().map_err(|_| format!("bad KataGo number {y}"))?,
            );
            let d = (u - v).abs();
            let (tol, slot) = match label {
                "symmetry" => (0.0, None),
                "policy" | "policyPass" => (POLICY_TOL, Some(&mut worst.policy)),
                "whiteWin" | "whiteLoss" | "noResult" => (PROB_TOL, Some(&mut worst.winloss)),
                "ownership" => (PROB_TOL, Some(&mut worst.ownership)),
                // A square of the score: the tolerance of a score scaled by it.
                "whiteScoreSelfplaySq" => (SCORE_TOL * (1.0 + v.abs().sqrt() * 2.0), None),
                _ => (SCORE_TOL, Some(&mut worst.score)),
            };
            if let Some(w) = slot {
                *w = w.max(d);
            }
            if d > tol + 1e-9 {
                return Err(format!(
                    "line {row} ({label}): {x} vs KataGo {y}, off by {d:.2e} > {tol:.0e}"
                ));
            }
        }
    }
    Ok(())
}

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
    let positions = parse_positions(
        &fs::read_to_string(data_dir().join("positions.txt")).expect("positions.txt"),
    );
    let by_name: HashMap<&str, &Position> =
        positions.iter().map(|p| (p.name.as_str(), p)).collect();
    let goldens = parse_goldens(
        &fs::read_to_string(data_dir().join(golden)).unwrap_or_else(|e| panic!("{golden}: {e}")),
    );
    assert!(!goldens.is_empty(), "{golden} holds no answers");
    let net_arg = net.to_str().expect("net path is UTF-8");
    let mut engine = Engine::spawn(&["--model", net_arg, "--quiet"]);
    let mut worst = Worst::default();
    let mut failures = Vec::new();
    let mut current = "";
    for (name, sym, theirs) in &goldens {
        let p = by_name
            .get(name.as_str())
            .unwrap_or_else(|| panic!("{golden}: unknown position {name}"));
        if current != name {
            engine.ok(&format!("boardsize {}", p.size));
            engine.ok("clear_board");
            engine.ok(&format!("komi {}", p.komi));
            engine.ok(&format!("kata-set-rules {}", p.rules_json));
            for (c, v) in &p.moves {
                engine.ok(&format!("play {c} {v}"));
            }
            current = name;
        }
        let ask = match optimism {
            Some(o) => format!("kata-raw-nn {sym} {o}"),
            None => format!("kata-raw-nn {sym}"),
        };
        let ours = split_symmetries(&engine.ok(&ask));
        let theirs = split_symmetries(&theirs.join("\n"));
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
        "{golden}: {} answers, largest differences {worst:?}",
        goldens.len()
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
