//! The network engine (`--model`, the b6c96 net) at the end of a game, over
//! GTP: `final_score` agrees with GNU Go's on finished games, and a seki is
//! listed as seki, its stones neither dead nor alive; boards beyond 19×19
//! fall back to the classical search. The tests with GNU Go as referee are
//! Unix-only: they run `/usr/games/gnugo`.

use crate::common;
#[cfg(unix)]
use crate::match_support;

use common::Engine;
#[cfg(unix)]
use std::io::Write;
#[cfg(unix)]
use std::process::{Command, Stdio};

/// GNU Go's answers to `commands` (one GTP command per line), response texts
/// only, in order (the last is `quit`'s).
#[cfg(unix)]
fn gnugo(commands: &str) -> Vec<String> {
    let mut child = Command::new(match_support::GNUGO)
        .args(["--mode", "gtp", "--chinese-rules", "--positional-superko"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("GNU Go starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{commands}\nquit\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split("\n\n")
        .filter_map(|r| r.strip_prefix("= ").or(r.strip_prefix("=")))
        .map(|r| r.trim().to_string())
        .collect()
}

fn net_engine(size: &str) -> Option<Engine> {
    let net = common::b6c96_path()?;
    Some(Engine::spawn(&[
        "--size",
        size,
        "--model",
        net.to_str().unwrap(),
    ]))
}

/// GNU Go writes `B+2.0`; GTP engines may write `B+2`.
fn same_score(a: &str, b: &str) -> bool {
    let parse = |s: &str| -> Option<f64> {
        if s == "0" {
            return Some(0.0);
        }
        let (side, points) = s.split_once('+')?;
        let v: f64 = points.parse().ok()?;
        match side {
            "B" => Some(v),
            "W" => Some(-v),
            _ => None,
        }
    };
    parse(a).is_some() && parse(a) == parse(b)
}

/// The finished games of `sgf/scoring/` (capture races, an invasion, an open
/// fight, a long game), but for `b24-vs-b23.sgf`, where GNU Go reads a seki
/// in the lower left that the net (and tengen's playouts) read as dead.
#[cfg(unix)]
#[test]
fn final_score_agrees_with_gnu_go_on_finished_games() {
    if !match_support::gnugo_installed() {
        return;
    }
    let Some(mut e) = net_engine("9") else {
        return;
    };
    let dir = format!("{}/sgf/scoring", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sgf"))
        .filter(|p| !p.ends_with("b24-vs-b23.sgf"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    for file in files {
        let load = format!("loadsgf {}", file.display());
        e.ok(&load);
        let ours = e.ok("final_score");
        let theirs = gnugo(&format!("{load}\nfinal_score"));
        assert!(
            same_score(&ours, &theirs[1]),
            "{}: tengen {ours}, GNU Go {}",
            file.display(),
            theirs[1]
        );
    }
}

/// Black's B9-B8-A8 (eye A9) and White's chain (eye E9) share the liberty
/// C9 that neither can fill: a seki inside Black's wall.
#[cfg(unix)]
const SEKI: &str = "play b B9\nplay w D9\nplay b A8\nplay w F9\nplay b B8\nplay w C8\n\
play b G9\nplay w D8\nplay b G8\nplay w E8\nplay b D7\nplay w F8\nplay b E7\nplay w A7\n\
play b F7\nplay w B7\nplay b G7\nplay w C7\nplay b A6\nplay w pass\nplay b B6\nplay w pass\n\
play b C6\nplay w pass\nplay b D6\nplay w pass";

#[cfg(unix)]
#[test]
fn a_seki_is_listed_as_seki_and_counted_as_gnu_go_does() {
    let Some(mut e) = net_engine("9") else {
        return;
    };
    e.ok("komi 7.5");
    for line in SEKI.lines() {
        e.ok(line);
    }
    let seki = e.ok("final_status_list seki");
    let mut chains: Vec<&str> = seki.lines().collect();
    chains.sort();
    assert_eq!(chains, ["B9 A8 B8", "D9 F9 C8 D8 E8 F8 A7 B7 C7"], "{seki}");
    assert_eq!(e.ok("final_status_list dead"), "");
    let alive = e.ok("final_status_list alive");
    assert!(
        !alive.contains("B9") && !alive.contains("D9") && alive.contains("G9"),
        "{alive}"
    );
    let ours = e.ok("final_score");
    if match_support::gnugo_installed() {
        let theirs = gnugo(&format!(
            "boardsize 9\nclear_board\nkomi 7.5\n{SEKI}\nfinal_score"
        ));
        let theirs = &theirs[theirs.len() - 2];
        assert!(same_score(&ours, theirs), "tengen {ours}, GNU Go {theirs}");
    }
    // The classical engine cannot tell a seki: it lists none.
    let mut classical = Engine::spawn(&["--size", "9"]);
    for line in SEKI.lines() {
        classical.ok(line);
    }
    assert_eq!(classical.ok("final_status_list seki"), "");
}

/// Boards larger than the net takes (19×19) are searched the classical way:
/// moves, analysis and a count, without a single failed evaluation.
#[test]
#[ignore = "heavy: .ci/run runs it in its second step"]
fn boards_beyond_the_net_fall_back_to_the_classical_search() {
    let Some(mut e) = net_engine("21") else {
        return;
    };
    e.ok("komi 7.5");
    let mv = e.ok("reg_genmove b");
    assert!(common::is_vertex(&mv, 21), "{mv}");
    e.ok(&format!("play b {mv}"));
    let reply = e.ok("genmove w");
    assert!(common::is_vertex(&reply, 21), "{reply}");
    let score = e.ok("final_score");
    assert!(same_score(&score, &score), "{score}");
    e.ok("boardsize 19");
    let mv = e.ok("genmove b");
    assert!(common::is_vertex(&mv, 19), "{mv}");
    e.ok("quit");
    assert!(!e.stderr_has("evaluation failed"), "{}", e.stderr());
}

/// A search that ends before any root move is visited (here one evaluation:
/// the root's own) still plays the policy's favourite, not a pass: with a
/// slow net and a short clock that is what a move's time buys.
#[test]
fn a_search_with_no_visited_move_plays_the_policys_favourite() {
    let Some(net) = common::b6c96_path() else {
        return;
    };
    let net = net.to_str().expect("UTF-8 path");
    let mut e = Engine::spawn(&["--size", "9", "--model", net, "--playouts", "1"]);
    for color in ["b", "w", "b"] {
        let mv = e.ok(&format!("genmove {color}"));
        assert!(
            !mv.eq_ignore_ascii_case("pass") && !mv.eq_ignore_ascii_case("resign"),
            "genmove {color} after one evaluation: {mv}"
        );
    }
}

/// `kata-get-models` lists the net as KataGo does: the file as given, the
/// name inside it, its version and batch, no human-SL profile.
#[test]
fn kata_get_models_lists_the_net_in_use() {
    let Some(net) = common::b6c96_path() else {
        return;
    };
    let Some(mut e) = net_engine("19") else {
        return;
    };
    let list: serde_json::Value =
        serde_json::from_str(&e.ok("kata-get-models")).expect("a JSON answer");
    let models = list.as_array().expect("a list");
    assert_eq!(models.len(), 1, "{list}");
    let m = &models[0];
    assert_eq!(m["name"], net.to_str().unwrap(), "{list}");
    assert_eq!(
        m["internalName"], "g170-b6c96-s175395328-d26788732",
        "{list}"
    );
    assert_eq!(m["version"], 8, "{list}");
    assert_eq!(m["usesHumanSLProfile"], false, "{list}");
    assert!(m["maxBatchSize"].as_u64().is_some_and(|b| b >= 1), "{list}");
}
