//! Golden `kata-raw-nn` answers recorded with KataGo (`tests/data/katago_golden/record.py`) and
//! their line-by-line diff with tengen's: the positions of `positions.txt`, the golden files'
//! blocks (with the optional `profile NAME` line of a human-SL net's recording), and the
//! comparison under the golden tolerances (policy 1e-4, win/loss and ownership 1e-3, scores
//! 0.01 points; `NAN` on the same points).
//!
//! Not part of `common/mod.rs`: a test file includes it with
//! `#[path = "common/raw_nn.rs"] mod raw_nn;`.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub const POLICY_TOL: f64 = 1e-4;
pub const PROB_TOL: f64 = 1e-3;
pub const SCORE_TOL: f64 = 0.01;

/// `tests/data/katago_golden`.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/katago_golden")
}

/// Where a net (a `.bin.gz` whose name starts with `prefix`) is in `dir`, if it is here.
pub fn find_net(dir: &Path, prefix: &str) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix) && n.ends_with(".bin.gz"))
        })
}

/// One position of `positions.txt`.
#[derive(Debug)]
pub struct Position {
    pub name: String,
    /// Columns (`size N` or `size W:H`).
    pub width: usize,
    /// Rows.
    pub height: usize,
    pub komi: String,
    /// The GTP command that sets the rules: `kata-set-rules` with KataGo-style JSON, or
    /// `kgs-rules NAME` (the `kgs` key).
    pub rules_command: String,
    /// `(colour, vertex)` pairs.
    pub moves: Vec<(String, String)>,
}

impl Position {
    /// The GTP commands that set the position up from any state.
    pub fn setup(&self) -> Vec<String> {
        let size = if self.width == self.height {
            format!("boardsize {}", self.width)
        } else {
            format!("rectangular_boardsize {} {}", self.width, self.height)
        };
        let mut out = vec![
            size,
            "clear_board".to_string(),
            self.rules_command.clone(),
            format!("komi {}", self.komi),
        ];
        out.extend(self.moves.iter().map(|(c, v)| format!("play {c} {v}")));
        out
    }
}

/// The positions of `tests/data/katago_golden/positions.txt`, by name.
pub fn positions() -> HashMap<String, Position> {
    let text = std::fs::read_to_string(data_dir().join("positions.txt")).expect("positions.txt");
    parse_positions(&text)
        .into_iter()
        .map(|p| (p.name.clone(), p))
        .collect()
}

pub fn parse_positions(text: &str) -> Vec<Position> {
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
                    width: 19,
                    height: 19,
                    komi: "7.5".into(),
                    rules_command: String::new(),
                    moves: Vec::new(),
                });
            }
            "end" => out.push(cur.take().unwrap_or_else(|| panic!("{}: stray end", at()))),
            _ => {
                let p = cur
                    .as_mut()
                    .unwrap_or_else(|| panic!("{}: outside a position", at()));
                match key {
                    "size" => {
                        // `N`, or `W:H` for a board W wide and H high.
                        let side = |t: &str| t.parse().unwrap_or_else(|_| panic!("{}", at()));
                        (p.width, p.height) = match rest.split_once(':') {
                            Some((w, h)) => (side(w), side(h)),
                            None => (side(rest), side(rest)),
                        };
                    }
                    "komi" => p.komi = rest.to_string(),
                    "rules" => {
                        p.rules_command = format!("kata-set-rules {}", rules_json(rest, &at()))
                    }
                    "kgs" => p.rules_command = format!("kgs-rules {rest}"),
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

/// One recorded answer of a golden file.
#[derive(Debug)]
pub struct Golden {
    pub position: String,
    /// The human-SL profile KataGo was set to (`profile NAME` line), if any.
    pub profile: Option<String>,
    /// `all` or `0`..`7`.
    pub symmetry: String,
    /// KataGo's response lines, its `symmetry N` line first.
    pub lines: Vec<String>,
}

/// The `# ` comment lines at the top of a golden file and its answers.
pub fn parse_goldens(text: &str) -> (Vec<String>, Vec<Golden>) {
    let comments = text
        .lines()
        .take_while(|l| l.starts_with('#') || l.is_empty())
        .filter_map(|l| l.strip_prefix("# ").map(String::from))
        .collect();
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(name) = line.strip_prefix("position ") else {
            continue;
        };
        let mut next = lines.next().expect("a line after position");
        let profile = next.strip_prefix("profile ").map(|p| p.trim().to_string());
        if profile.is_some() {
            next = lines.next().expect("a symmetry line after profile");
        }
        let symmetry = next
            .strip_prefix("symmetry ")
            .unwrap_or_else(|| panic!("{name}: no symmetry line but {next:?}"))
            .trim()
            .to_string();
        let mut answer = vec![next.to_string()];
        for l in lines.by_ref() {
            if l == "end" {
                break;
            }
            answer.push(l.to_string());
        }
        out.push(Golden {
            position: name.trim().to_string(),
            profile,
            symmetry,
            lines: answer,
        });
    }
    (comments, out)
}

/// One `kata-raw-nn` answer for one symmetry: its non-empty lines, split in words.
pub type Answer = Vec<Vec<String>>;

/// Splits a response to `kata-raw-nn` (one symmetry or `all`) into one answer per symmetry.
pub fn split_symmetries(text: &str) -> Vec<Answer> {
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

/// The largest difference seen per kind of output, and the spread of KataGo's answers (so a
/// test can tell that its net is not saturated: a policy that is not one-hot, a win rate that
/// is not 0 or 1).
#[derive(Default, Debug, Clone, Copy)]
pub struct Worst {
    pub policy: f64,
    pub winloss: f64,
    pub ownership: f64,
    pub score: f64,
    /// Largest policy probability in KataGo's answers (pass included).
    pub katago_max_policy: f64,
    /// Range of KataGo's `whiteWin`.
    pub katago_min_win: f64,
    pub katago_max_win: f64,
}

impl Worst {
    pub fn new() -> Worst {
        Worst {
            katago_min_win: f64::INFINITY,
            katago_max_win: f64::NEG_INFINITY,
            ..Worst::default()
        }
    }
}

/// Compares tengen's answer with KataGo's line by line; the first difference beyond tolerance
/// is the error. Both must have the same lines, labels and grid shapes, and `NAN` (illegal)
/// on the same points.
pub fn compare(ours: &Answer, theirs: &Answer, worst: &mut Worst) -> Result<(), String> {
    let mut section = "";
    if ours.len() != theirs.len() {
        return Err(format!("{} lines, KataGo has {}", ours.len(), theirs.len()));
    }
    let is_number = |w: &str| w == "NAN" || w.parse::<f64>().is_ok();
    for (row, (a, b)) in ours.iter().zip(theirs).enumerate() {
        if a.len() != b.len() {
            return Err(format!("line {row}: {a:?} vs KataGo {b:?}"));
        }
        let labelled = !is_number(&a[0]);
        let label = if labelled {
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
        for (x, y) in a[labelled as usize..].iter().zip(&b[labelled as usize..]) {
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
                "policy" | "policyPass" => {
                    worst.katago_max_policy = worst.katago_max_policy.max(v);
                    (POLICY_TOL, Some(&mut worst.policy))
                }
                "whiteWin" | "whiteLoss" | "noResult" => {
                    if label == "whiteWin" {
                        worst.katago_min_win = worst.katago_min_win.min(v);
                        worst.katago_max_win = worst.katago_max_win.max(v);
                    }
                    (PROB_TOL, Some(&mut worst.winloss))
                }
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
