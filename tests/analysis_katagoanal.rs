//! A real client of `tengen analysis`: katagoanal 0.4.0 (PyPI), which
//! starts `BIN analysis -config CFG -model MODEL`, waits for KataGo's ready
//! line, sends one query for a whole game and writes win rate and score lead
//! into every move's SGF comment. Here its `paths.json` points at the built
//! `tengen`, and it annotates a complete 19×19 game of `sgf/games/`.
//!
//! The client comes from `TENGEN_KATAGOANAL`, else from the virtual
//! environment `.ci/run` makes (`target/katagoanal-venv/bin/katagoanal`);
//! without it the test is skipped, a failure under `CI=true`. Needs the b6c96
//! net of `../shared/nets/` too.

use crate::common;

use sgf_parse::go::{Move, Prop};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A complete game tengen played (444 moves, two passes at the end, W+62.5).
const GAME: &str = "sgf/games/selfplay-random-2.sgf";

/// Visits per position: a real search, yet the 445 positions take about
/// 40 s on two cores (8 visits took 60 s).
const VISITS: &str = "4";

/// katagoanal must be done within this, or it is killed and the test fails.
const DEADLINE: Duration = Duration::from_secs(300);

fn katagoanal() -> Option<PathBuf> {
    common::outside_tool("TENGEN_KATAGOANAL", "target/katagoanal-venv/bin/katagoanal")
}

/// The number after `label` on one line of `comment`, up to `unit`.
fn field(comment: &str, label: &str, unit: &str) -> Option<f64> {
    comment.lines().find_map(|l| {
        let rest = l.strip_prefix(label)?;
        let end = rest.find(unit)?;
        rest[..end].trim().parse().ok()
    })
}

/// The moves of the main line as (colour, move), and each move node's comment.
fn moves_and_comments(text: &str) -> (Vec<(char, Move)>, Vec<Option<String>>, String) {
    let games = sgf_parse::go::parse(text).unwrap_or_else(|e| panic!("sgf-parse: {e:?}"));
    let mut moves = Vec::new();
    let mut comments = Vec::new();
    let mut root_comment = String::new();
    for (i, node) in games[0].main_variation().enumerate() {
        let mut mv = None;
        let mut comment = None;
        for p in node.properties() {
            match p {
                Prop::B(m) => mv = Some(('B', *m)),
                Prop::W(m) => mv = Some(('W', *m)),
                Prop::C(t) => comment = Some(t.text.clone()),
                _ => {}
            }
        }
        if i == 0 {
            root_comment = comment.clone().unwrap_or_default();
        }
        if let Some(mv) = mv {
            moves.push(mv);
            comments.push(comment);
        }
    }
    (moves, comments, root_comment)
}

#[test]
fn katagoanal_annotates_a_whole_game_with_tengens_win_rates_and_leads() {
    let Some(client) = katagoanal() else {
        common::skipped(
            "no katagoanal (set TENGEN_KATAGOANAL, or run .ci/run, which installs it into \
             target/katagoanal-venv)",
            true,
        );
        return;
    };
    let Some(model) = common::b6c96_path() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("tengen-katagoanal-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.join("out");
    std::fs::create_dir_all(dir.join("xdg/katagoanal")).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    let config = dir.join("analysis.cfg");
    std::fs::write(
        &config,
        "# katagoanal reads every win rate and lead as Black's\n\
         reportAnalysisWinratesAs = BLACK\n\
         maxVisits = 4\n\
         numAnalysisThreads = 1\n\
         numSearchThreads = 1\n",
    )
    .unwrap();
    let paths = serde_json::json!({
        "binary": env!("CARGO_BIN_EXE_tengen"),
        "config": config,
        "model": model,
    });
    std::fs::write(dir.join("xdg/katagoanal/paths.json"), paths.to_string()).unwrap();

    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join(GAME);
    let log = |name: &str| std::fs::File::create(dir.join(name)).unwrap();
    let start = Instant::now();
    let mut child = Command::new(&client)
        .arg(&game)
        .args(["--visits", VISITS, "-o"])
        .arg(&out)
        .env("XDG_CONFIG_HOME", dir.join("xdg"))
        .stdin(Stdio::null())
        .stdout(log("stdout.txt"))
        .stderr(log("stderr.txt"))
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", client.display()));
    let logs = || {
        let read = |n: &str| std::fs::read_to_string(dir.join(n)).unwrap_or_default();
        format!(
            "stdout:\n{}\nstderr:\n{}",
            read("stdout.txt"),
            read("stderr.txt")
        )
    };
    let Some(status) = common::wait_or_kill(&mut child, start, DEADLINE) else {
        panic!("katagoanal still running after {DEADLINE:?}; {}", logs());
    };
    let elapsed = start.elapsed();
    assert!(status.success(), "katagoanal failed ({status}); {}", logs());
    let annotated = out.join("selfplay-random-2.injected.sgf");
    let text = std::fs::read_to_string(&annotated)
        .unwrap_or_else(|e| panic!("no {}: {e}; {}", annotated.display(), logs()));

    let (input_moves, _, _) = moves_and_comments(&std::fs::read_to_string(&game).unwrap());
    let (moves, comments, root) = moves_and_comments(&text);
    assert_eq!(moves.len(), 444, "the annotated game has every move");
    assert_eq!(moves, input_moves, "the annotated game is the game");
    assert!(
        root.contains("Final Black Winrate: ")
            && root.contains("Network: g170-b6c96-s175395328-d26788732"),
        "root comment: {root}"
    );

    // Every move: the mover's win rate, a percentage, and the mover's lead.
    let mut seen = std::collections::BTreeSet::new();
    let mut values = Vec::new();
    for (n, ((colour, _), comment)) in moves.iter().zip(&comments).enumerate() {
        let n = n + 1;
        let comment = comment
            .as_deref()
            .unwrap_or_else(|| panic!("move {n} has no comment"));
        let label = if *colour == 'B' {
            "Black Winrate: "
        } else {
            "White Winrate: "
        };
        let winrate = field(comment, label, "%")
            .unwrap_or_else(|| panic!("move {n} ({colour}): no `{label}…%` in {comment:?}"));
        let lead = field(comment, "Score Lead: ", " ")
            .unwrap_or_else(|| panic!("move {n}: no `Score Lead: …` in {comment:?}"));
        assert!(
            (0.0..=100.0).contains(&winrate),
            "move {n}: win rate {winrate}%"
        );
        assert!(lead.abs() <= 361.0 + 7.5, "move {n}: lead {lead}");
        assert!(comment.contains("maxVisits = 4"), "move {n}: {comment:?}");
        seen.insert((winrate * 10.0) as i64);
        values.push((*colour, winrate, lead));
    }
    // Real searches, not one number repeated; and each from the right side:
    // over the last ten moves of a game White won by 62.5 points, White's
    // comments show White far ahead and Black's show Black far behind (a
    // win rate reported for the side to move instead of Black would flip
    // every other move).
    assert!(seen.len() > 20, "only {} distinct win rates", seen.len());
    for (n, &(colour, winrate, lead)) in values.iter().enumerate().skip(values.len() - 10) {
        let ok = match colour {
            'W' => winrate >= 90.0 && lead >= 30.0,
            _ => winrate <= 10.0 && lead <= -30.0,
        };
        assert!(
            ok,
            "move {}: {colour}'s win rate {winrate}%, lead {lead}",
            n + 1
        );
    }
    eprintln!(
        "katagoanal annotated {} moves in {elapsed:.1?}",
        moves.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
