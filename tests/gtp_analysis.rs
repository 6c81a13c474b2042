//! Analysis streaming over pipes: `lz-analyze` / `kata-analyze` started, then
//! interrupted by an arbitrary next line (`protocol_version`, as Sabaki's
//! `sendAbort` does), with the output parsed the way Sabaki parses it
//! (shared/docs/gtp-clients.md §5.3). Each test runs the classical engine
//! and, when the b6c96 net is at hand, the network engine (`--model`).

use crate::common;
use common::{is_vertex, Engine};

/// `tengen ARGS` and, with the b6c96 net, `tengen ARGS --model b6c96`.
fn engines(args: &[&str]) -> Vec<Engine> {
    let mut v = vec![Engine::spawn(args)];
    if let Some(net) = common::b6c96_path() {
        let net = net.to_string_lossy().into_owned();
        let mut with_net = args.to_vec();
        with_net.extend(["--model", net.as_str()]);
        v.push(Engine::spawn(&with_net));
    }
    v
}

/// One variation as Sabaki reads it.
#[derive(Debug)]
struct Variation {
    mv: String,
    visits: u64,
    /// Percent, 0..=100.
    winrate: f64,
    score_lead: Option<f64>,
    pv: Vec<String>,
}

fn is_move(t: &str) -> bool {
    t == "pass" || {
        let mut c = t.chars();
        c.next().is_some_and(|l| l.is_ascii_alphabetic())
            && !c.as_str().is_empty()
            && c.as_str().chars().all(|d| d.is_ascii_digit())
    }
}

/// Sabaki v0.60 `analysis.js`: the line starts with `info `, splits on
/// `\s*info\s+`; in each segment the PV is the trailing run of vertices or
/// `pass`, the token before it (`pv`) is dropped, the rest are key/value
/// pairs. The PV is cut at the first `pass`; segments whose move is not a
/// vertex are skipped. `kata*` win rates are floats 0..1, others integers
/// 0..10000.
fn sabaki_parse(line: &str, kata: bool) -> Vec<Variation> {
    assert!(line.starts_with("info "), "{line:?}");
    let mut out = Vec::new();
    for segment in line.split("info ").map(str::trim).filter(|s| !s.is_empty()) {
        let tokens: Vec<&str> = segment.split_whitespace().collect();
        let pv_start = tokens
            .iter()
            .rposition(|t| !is_move(t))
            .map_or(0, |i| i + 1);
        assert!(
            pv_start < tokens.len(),
            "a PV ends the segment: {segment:?}"
        );
        assert_eq!(
            tokens[pv_start - 1],
            "pv",
            "pv is the last key: {segment:?}"
        );
        let pairs = &tokens[..pv_start - 1];
        assert!(
            pairs.len().is_multiple_of(2),
            "key value pairs: {segment:?}"
        );
        let get = |k: &str| pairs.chunks(2).find(|p| p[0] == k).map(|p| p[1]);
        let (Some(mv), Some(w)) = (get("move"), get("winrate")) else {
            continue;
        };
        if mv == "pass" {
            continue;
        }
        if kata {
            assert!(w.contains('.'), "kata win rates have a decimal point: {w}");
        } else {
            assert!(w.parse::<i64>().is_ok(), "lz win rates are integers: {w}");
        }
        let w: f64 = w.parse().unwrap();
        let winrate = if kata { w * 100.0 } else { w / 100.0 };
        assert!((0.0..=100.0).contains(&winrate), "{winrate}");
        let pv: Vec<String> = tokens[pv_start..]
            .iter()
            .take_while(|t| **t != "pass")
            .map(|t| t.to_string())
            .collect();
        out.push(Variation {
            mv: mv.to_string(),
            visits: get("visits").unwrap().parse().unwrap(),
            winrate,
            score_lead: get("scoreLead").map(|s| s.parse().unwrap()),
            pv,
        });
    }
    out
}

/// Reads a streamed analysis response until `n` info lines have arrived.
fn info_lines(e: &mut Engine, n: usize) -> Vec<String> {
    let mut lines = Vec::new();
    while lines.len() < n {
        let l = e.line();
        assert!(
            l.starts_with("info ") && l.ends_with('\n') && !l.ends_with("\n\n"),
            "{l:?}"
        );
        lines.push(l.trim_end().to_string());
    }
    lines
}

/// Sends the interrupting line and reads the rest of the stream: more info
/// lines, then the blank line. Returns the interrupting command's response.
fn interrupt(e: &mut Engine, line: &str) -> Vec<String> {
    e.send(line);
    let mut rest = Vec::new();
    loop {
        let l = e.line();
        if l == "\n" {
            return rest;
        }
        assert!(l.starts_with("info "), "{l:?}");
        rest.push(l);
    }
}

#[test]
fn lz_analyze_interrupted_by_protocol_version() {
    for mut e in engines(&["--size", "9"]) {
        e.ok("play B E5");
        e.send("lz-analyze W 10");
        assert_eq!(e.line(), "=\n", "header");
        for line in info_lines(&mut e, 3) {
            // lz-analyze sends winrates as integers 0..=10000.
            for token in line.split(" winrate ").skip(1) {
                let raw = token.split(' ').next().unwrap();
                assert!(
                    raw.parse::<u32>().is_ok_and(|w| w <= 10_000),
                    "{raw:?} in {line}"
                );
            }
            let vars = sabaki_parse(&line, false);
            assert!(!vars.is_empty(), "{line}");
            for v in vars {
                assert!(
                    is_vertex(&v.mv, 9) && v.visits > 0 && v.pv.first() == Some(&v.mv),
                    "{v:?}"
                );
                assert!(v.pv.iter().all(|m| is_vertex(m, 9)));
                assert_eq!(v.score_lead, None);
                assert!((0.0..=100.0).contains(&v.winrate), "{v:?}");
            }
        }
        interrupt(&mut e, "protocol_version");
        assert_eq!(e.raw_response(), "= 2\n\n");
        // The engine is in sync: the analysis did not change the game.
        assert_eq!(e.fail("play W E5"), "illegal move");
        e.ok("play W D5");
    }
}

#[test]
fn kata_analyze_with_ownership_and_root_info() {
    for mut e in engines(&["--size", "9"]) {
        e.send("7 kata-analyze B interval 10 maxmoves 1 rootInfo true ownership true");
        assert_eq!(e.line(), "=7\n");
        for line in info_lines(&mut e, 2) {
            // Sabaki would not ask for these fields; KataGo clients read them
            // after the last `pv`.
            let (infos, ownership) = line.split_once(" ownership ").unwrap();
            assert_eq!(ownership.split(' ').count(), 81);
            assert!(ownership
                .split(' ')
                .all(|v| v.contains('.') && v.parse::<f64>().unwrap().abs() <= 1.0));
            let (infos, root) = infos.split_once(" rootInfo ").unwrap();
            assert!(root.starts_with("visits "));
            // kata-analyze sends winrates as floats with a decimal point, 0..=1.
            for token in infos.split(" winrate ").skip(1) {
                let raw = token.split(' ').next().unwrap();
                assert!(
                    raw.contains('.') && raw.parse::<f64>().is_ok_and(|w| (0.0..=1.0).contains(&w)),
                    "{raw:?}"
                );
            }
            // KataGo's fields, each with a number (the network engine's
            // score has a spread).
            for key in [
                "utility",
                "scoreMean",
                "scoreStdev",
                "scoreLead",
                "prior",
                "lcb",
            ] {
                let value = infos
                    .split(&format!(" {key} "))
                    .nth(1)
                    .and_then(|rest| rest.split(' ').next())
                    .and_then(|v| v.parse::<f64>().ok());
                assert!(value.is_some_and(f64::is_finite), "{key} in {infos}");
            }
            let vars = sabaki_parse(infos, true);
            assert_eq!(vars.len(), 1, "maxmoves 1");
            assert!(vars[0].score_lead.is_some());
            assert!(
                (0.0..=100.0).contains(&vars[0].winrate),
                "read as a float: {:?}",
                vars[0]
            );
        }
        // Any line stops analysis, even an empty one (which gets no response).
        interrupt(&mut e, "");
        e.send("8 name");
        assert_eq!(e.raw_response(), "=8 tengen\n\n");
    }
}

#[test]
fn analysis_then_pipelined_commands() {
    let mut e = Engine::spawn(&["--size", "9"]);
    e.send("kata-analyze b 5");
    assert_eq!(e.line(), "=\n");
    info_lines(&mut e, 1);
    // Sabaki's abort followed at once by the next queued commands.
    e.write(b"protocol_version\nplay B C3\nkata-analyze W 5\n");
    loop {
        if e.line() == "\n" {
            break;
        }
    }
    assert_eq!(e.raw_response(), "= 2\n\n");
    assert_eq!(e.raw_response(), "= \n\n");
    assert_eq!(e.line(), "=\n");
    let lines = info_lines(&mut e, 2);
    for l in &lines {
        for v in sabaki_parse(l, true) {
            assert_ne!(v.mv, "C3", "C3 is occupied");
        }
    }
    interrupt(&mut e, "quit");
    assert_eq!(e.raw_response(), "= \n\n");
    assert!(e.wait().success());
}

#[test]
fn avoid_and_allow_filter_the_moves() {
    let mut e = Engine::spawn(&["--size", "3"]);
    e.send("lz-analyze b 5 allow b B2,A1 1");
    assert_eq!(e.line(), "=\n");
    // RandomEngine reports one random move: every reported one is allowed.
    let mut seen = 0;
    while seen < 5 {
        let l = e.line_within(std::time::Duration::from_secs(10)).unwrap();
        assert!(l.starts_with("info"), "{l:?}");
        for v in sabaki_parse(l.trim_end(), false) {
            assert!(v.mv == "B2" || v.mv == "A1", "{v:?}");
        }
        seen += 1;
    }
    interrupt(&mut e, "name");
    assert_eq!(e.raw_response(), "= tengen\n\n");
}

#[test]
fn genmove_analyze_ends_with_play() {
    for mut e in engines(&["--size", "9"]) {
        e.send("lz-genmove_analyze b 1");
        assert_eq!(e.line(), "=\n");
        let mv = loop {
            let l = e.line();
            if let Some(m) = l.strip_prefix("play ") {
                break m.trim().to_string();
            }
            sabaki_parse(l.trim_end(), false);
        };
        assert_eq!(e.line(), "\n");
        assert!(is_vertex(&mv, 9) || mv == "pass", "{mv}");
        // The move was played.
        if mv != "pass" {
            assert_eq!(e.fail(&format!("play w {mv}")), "illegal move");
        }
        // Interval 0: no line while thinking, and one with the final state.
        e.send("3 kata-genmove_analyze w 0");
        assert_eq!(e.line(), "=3\n");
        let mut infos = Vec::new();
        let played = loop {
            let l = e.line();
            if let Some(m) = l.strip_prefix("play ") {
                break m.trim().to_string();
            }
            infos.push(l);
        };
        assert_eq!(e.line(), "\n");
        assert_eq!(infos.len(), 1, "{infos:?}");
        assert!(
            infos[0].starts_with(&format!("info move {played} ")),
            "the final line leads with the move played, {played}: {}",
            infos[0]
        );
        e.ok("undo");
        e.ok("undo");
        assert_eq!(e.fail("undo"), "cannot undo");
    }
}

/// GoGui's ownership `dboard`: one row per board line, values in [-1, 1] from
/// Black's point of view whoever is to move, and listed for the Analyze menu.
#[test]
fn gogui_ownership_dboard_reads_from_blacks_side() {
    for mut e in engines(&["--size", "5"]) {
        assert!(e
            .ok("gogui-analyze_commands")
            .lines()
            .any(|l| l.starts_with("dboard/") && l.contains("tengen-ownership")));
        // Black holds the two bottom lines behind a wall on line 3, White the top
        // line behind a wall on line 4.
        for x in ["A", "B", "C", "D", "E"] {
            e.ok(&format!("play b {x}3"));
            e.ok(&format!("play w {x}4"));
        }
        for color in ["b", "w"] {
            let board = e.ok(&format!("tengen-ownership {color} 0.3"));
            let rows: Vec<Vec<f64>> = board
                .lines()
                .map(|l| l.split(' ').map(|v| v.parse().unwrap()).collect())
                .collect();
            assert_eq!(rows.len(), 5, "{board}");
            assert!(
                rows.iter()
                    .all(|r| r.len() == 5 && r.iter().all(|v| v.abs() <= 1.0)),
                "{board}"
            );
            assert!(
                rows[4][0] > 0.5 && rows[3][4] > 0.5,
                "Black's side, {color} to move:\n{board}"
            );
            assert!(
                rows[0][0] < -0.5 && rows[0][4] < -0.5,
                "White's side, {color} to move:\n{board}"
            );
        }
    }
}

/// `minmoves` (KataGo's): every legal move listed once when more are asked
/// for than there are, those the search has not visited after the visited
/// ones, with no visits, by falling prior.
#[test]
fn minmoves_lists_unvisited_moves_by_policy() {
    for mut e in engines(&["--size", "9"]) {
        e.ok("play B E5");
        e.ok("play W C3");
        e.send("kata-analyze B 10 minmoves 100");
        assert_eq!(e.line(), "=\n");
        let line = info_lines(&mut e, 2).pop().unwrap();
        interrupt(&mut e, "protocol_version");
        assert_eq!(e.raw_response(), "= 2\n\n");
        let blocks: Vec<(String, u64, f64)> = line
            .split("info move ")
            .skip(1)
            .map(|b| {
                let t: Vec<&str> = b.split_whitespace().collect();
                let get = |k: &str| t[t.iter().position(|x| *x == k).unwrap() + 1];
                (
                    t[0].to_string(),
                    get("visits").parse().unwrap(),
                    get("prior").parse().unwrap(),
                )
            })
            .collect();
        // 79 empty points and the pass, each once.
        let mut names: Vec<&str> = blocks.iter().map(|b| b.0.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!((blocks.len(), names.len()), (80, 80), "{line}");
        assert!(!names.contains(&"E5") && !names.contains(&"C3"));
        let first_unvisited = blocks.iter().position(|b| b.1 == 0).unwrap();
        assert!(first_unvisited > 0, "the search visited some: {line}");
        let unvisited = &blocks[first_unvisited..];
        assert!(unvisited.iter().all(|b| b.1 == 0), "{line}");
        assert!(
            unvisited.windows(2).all(|w| w[0].2 >= w[1].2),
            "by falling prior: {line}"
        );
    }
}
