//! KaTrain itself as the client: its own engine wrapper (`KataGoEngine` of
//! the `katrain` 1.20.0 wheel, headless) starts `tengen analysis` with
//! KaTrain's bundled `analysis_config.cfg` (8 search threads, 12 analysis
//! threads) and analyses a real 19×19 game as KaTrain does when a game is
//! loaded: every node queued at once (`tests/katrain/stability.py`). At 25
//! visits a node, what KaTrain's score graph and mistake finder read must
//! hold up at 8 threads: each node gets the visits asked, at most one per
//! search thread more; the first move listed has at least a tenth of the
//! top move's visits; and the score lead does not zig-zag with the side to
//! move from one node to the next.
//!
//! The Python comes from `TENGEN_KATRAIN_PYTHON`, else from the virtual
//! environment `.ci/run` makes (`target/katrain-venv/bin/python`); without
//! it the test is skipped, a failure under `CI=true`. Needs the b6c96 net of
//! `../shared/nets/` too.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A real game (tengen against itself at 100 visits), its first 70 nodes.
const GAME: &str = "sgf/games/match-19x19-bf16-fp32.sgf";
const NODES: usize = 70;
const VISITS: u64 = 25;
/// KaTrain's bundled config runs 8 threads a search.
const SEARCH_THREADS: u64 = 8;
/// KataGo 1.17.2 on the same net, game, nodes and visits through the same
/// wrapper (2026-11-28): its lead moved 0.415 points from node to node on
/// average; tengen's 0.56. Before its root figures were weighted as
/// KataGo's (and before its visit limit was exact), tengen's moved 0.8 at
/// 100 visits and swung with the side to move. The bound leaves room for
/// the run-to-run spread of an 8-thread search.
const MAX_MEAN_LEAD_CHANGE: f64 = 0.75;
const DEADLINE: Duration = Duration::from_secs(600);

#[test]
#[ignore = "heavy: .ci/run runs it in its second step"]
fn katrains_engine_wrapper_gets_exact_visits_and_a_steady_score_graph_at_8_threads() {
    let Some(python) =
        common::outside_tool("TENGEN_KATRAIN_PYTHON", "target/katrain-venv/bin/python")
    else {
        common::skipped(
            "no KaTrain (set TENGEN_KATRAIN_PYTHON, or run .ci/run, which installs katrain 1.20.0 \
             into target/katrain-venv)",
            true,
        );
        return;
    };
    let Some(model) = common::b6c96_path() else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("tengen-katrain-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let log = |name: &str| std::fs::File::create(dir.join(name)).unwrap();
    let start = Instant::now();
    let mut child = Command::new(&python)
        .arg(root.join("tests/katrain/stability.py"))
        .arg(env!("CARGO_BIN_EXE_tengen"))
        .arg(&model)
        .arg(root.join(GAME))
        .arg(NODES.to_string())
        .arg(VISITS.to_string())
        .env("HOME", &dir)
        .stdin(Stdio::null())
        .stdout(log("stdout.txt"))
        .stderr(log("stderr.txt"))
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    let read = |n: &str| std::fs::read_to_string(dir.join(n)).unwrap_or_default();
    let Some(status) = common::wait_or_kill(&mut child, start, DEADLINE) else {
        panic!(
            "KaTrain still analysing after {DEADLINE:?}; stderr:\n{}",
            read("stderr.txt")
        );
    };
    let (stdout, stderr) = (read("stdout.txt"), read("stderr.txt"));
    assert!(
        status.success(),
        "{status}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    // KaTrain prints the engine's stderr lines too: the summary is the last line.
    let summary: serde_json::Value = stdout
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no summary line\nstdout:\n{stdout}\nstderr:\n{stderr}"));
    let number = |k: &str| {
        summary[k]
            .as_f64()
            .unwrap_or_else(|| panic!("no {k}: {summary}"))
    };
    assert_eq!(number("nodes") as usize, NODES);
    let most = (VISITS + SEARCH_THREADS) as f64;
    assert!(
        number("mean_visits") >= VISITS as f64 && number("mean_visits") <= most,
        "{summary}"
    );
    assert!(number("max_visits") <= most, "{summary}");
    assert_eq!(
        number("thin_first"),
        0.0,
        "a thin move listed first: {summary}"
    );
    let change = number("mean_lead_change");
    assert!(
        change <= MAX_MEAN_LEAD_CHANGE,
        "the lead moved {change} a node: {summary}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
