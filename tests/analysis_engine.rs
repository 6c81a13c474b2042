//! `tengen analysis`, KataGo's JSON analysis engine, driven over pipes as
//! KaTrain and katagoanal drive it: the response fields those clients read,
//! the point of view, errors that leave the engine running, `terminate`,
//! queries sent before the engine is ready, several turns and priorities.
//! Every stdout line must be one JSON object. Needs the b6c96 net of
//! `../shared/nets/` (skipped without it, a failure under `CI=true`).

use crate::common;
use crate::common::analysis_client;
use crate::common::katago_net;

use analysis_client::{Analysis, READY};

use serde_json::{json, Value};
use std::collections::HashMap;

/// A config as KaTrain's, with few visits.
const KATRAIN_CONFIG: &str = "\
# KaTrain's analysis_config.cfg, visits lowered for tests
reportAnalysisWinratesAs = BLACK
conservativePass = true
maxVisits = 40
numAnalysisThreads = 1
numSearchThreads = 1
nnMaxBatchSize = 96
nnCacheSizePowerOfTwo = 20
";

fn is_final(v: &Value, id: &str) -> bool {
    v["id"] == id && v["isDuringSearch"] == false
}

fn query(id: &str, size: u32, moves: &[(&str, &str)]) -> Value {
    let moves: Vec<Value> = moves.iter().map(|(c, v)| json!([c, v])).collect();
    json!({"id": id, "moves": moves, "rules": "japanese", "komi": 6.5,
           "boardXSize": size, "boardYSize": size})
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"))
}

/// The index of vertex `text` in KataGo's row-major order from A19.
fn index(text: &str, size: usize) -> usize {
    let g = tengen::Geometry::new(size).unwrap();
    match common::gtp_move(text, g) {
        tengen::Move::Play(p) => p.y() * size + p.x(),
        tengen::Move::Pass => size * size,
    }
}

/// What KaTrain sends and reads: every field of `katrain/core/engine.py`
/// and `game_node.py`, ownership and policy sizes, −1 policy on occupied
/// points, per-move ownership; one unused-keys warning line on stderr.
#[test]
fn katrain_query_gets_every_field_katrain_reads() {
    let Some(mut e) = Analysis::start(KATRAIN_CONFIG) else {
        return;
    };
    let mut q = query("QUERY:1", 19, &[("B", "Q16"), ("W", "D4"), ("B", "Q4")]);
    let o = q.as_object_mut().unwrap();
    o.insert("analyzeTurns".into(), json!([3]));
    o.insert("priority".into(), json!(0));
    o.insert("includeOwnership".into(), json!(true));
    o.insert("includeMovesOwnership".into(), json!(true));
    o.insert("includePolicy".into(), json!(true));
    o.insert("initialStones".into(), json!([]));
    o.insert("initialPlayer".into(), json!("B"));
    o.insert(
        "overrideSettings".into(),
        json!({"reportAnalysisWinratesAs": "BLACK", "wideRootNoise": 0.04, "maxTime": 8.0}),
    );
    e.send(&q);
    let seen = e.until(|v| is_final(v, "QUERY:1"));
    // wideRootNoise is one of KataGo's own settings: accepted without a
    // warning, as KataGo accepts it.
    assert!(seen.iter().all(|v| v.get("warning").is_none()), "{seen:?}");
    let r = seen.last().unwrap();
    assert_eq!(r["turnNumber"], 3);
    assert!(r.get("noResults").is_none());
    let infos = r["moveInfos"].as_array().unwrap();
    assert!(!infos.is_empty());
    for (i, m) in infos.iter().enumerate() {
        assert_eq!(m["order"], i);
        assert!(common::is_vertex(m["move"].as_str().unwrap(), 19) || m["move"] == "pass");
        assert!(m["visits"].as_u64().unwrap() >= 1);
        assert!((0.0..=1.0).contains(&f(&m["winrate"])));
        assert!((0.0..=1.0).contains(&f(&m["prior"])));
        f(&m["scoreLead"]);
        let pv = m["pv"].as_array().unwrap();
        assert_eq!(pv[0], m["move"]);
        assert_eq!(m["ownership"].as_array().unwrap().len(), 361);
    }
    let root = &r["rootInfo"];
    assert!((0.0..=1.0).contains(&f(&root["winrate"])));
    f(&root["scoreLead"]);
    assert!(root["visits"].as_u64().unwrap() >= 40);
    assert_eq!(root["currentPlayer"], "W");
    for key in ["rawStWrError", "rawStScoreError", "thisHash", "symHash"] {
        assert!(root.get(key).is_some(), "rootInfo.{key}");
    }
    assert_eq!(r["ownership"].as_array().unwrap().len(), 361);
    let policy: Vec<f64> = r["policy"].as_array().unwrap().iter().map(f).collect();
    assert_eq!(policy.len(), 362);
    for occupied in ["Q16", "D4", "Q4"] {
        assert_eq!(policy[index(occupied, 19)], -1.0, "{occupied}");
    }
    let total: f64 = policy.iter().filter(|p| **p > 0.0).sum();
    assert!((total - 1.0).abs() < 1e-3, "policy sums to {total}");
    assert!(policy[361] >= 0.0, "pass is legal");
    let rest = e.finish();
    assert!(rest.is_empty(), "{rest:?}");
}

/// The config's unused keys give one warning line; the ready line comes
/// once the net is loaded.
#[test]
fn unused_config_keys_give_one_warning_line() {
    let Some(mut e) = Analysis::start(KATRAIN_CONFIG) else {
        return;
    };
    e.send(&json!({"id": "v", "action": "query_version"}));
    let v = e.next();
    assert_eq!(v["id"], "v");
    assert!(v.get("version").is_some());
    let err = e.stderr();
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    for key in [
        "conservativePass",
        "nnMaxBatchSize",
        "nnCacheSizePowerOfTwo",
    ] {
        assert!(warnings[0].contains(key), "{err}");
    }
    assert_eq!(err.matches(READY).count(), 1, "{err}");
}

/// The `analysis_config.cfg` KaTrain 1.20.0 bundles, as installed:
/// `TENGEN_KATRAIN_CONFIG`, else the copy in the virtual environment `.ci/run`
/// makes (`target/katrain-venv`); `None` after a [`common::skipped`] notice.
fn katrain_bundled_config() -> Option<std::path::PathBuf> {
    if let Some(path) = std::env::var_os("TENGEN_KATRAIN_CONFIG") {
        return Some(path.into());
    }
    let lib = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/katrain-venv/lib");
    let found = std::fs::read_dir(&lib).ok().and_then(|pythons| {
        pythons
            .flatten()
            .map(|p| {
                p.path()
                    .join("site-packages/katrain/KataGo/analysis_config.cfg")
            })
            .find(|cfg| cfg.is_file())
    });
    if found.is_none() {
        common::skipped(
            "no KaTrain config (set TENGEN_KATRAIN_CONFIG, or run .ci/run, which installs \
             katrain 1.20.0 into target/katrain-venv)",
            true,
        );
    }
    found
}

/// KaTrain's own start, on every platform the tests run on (on Windows
/// KaTrain starts `tengen.exe` as it would `katago.exe`): `analysis -model M
/// -config C -override-config homeDataDir=D` with KaTrain's bundled config
/// file unchanged (12 analysis threads, 8 search threads each); then a query
/// with KaTrain's fields, its line ended by `\r\n` as a Windows client may
/// end it.
#[test]
fn katrains_bundled_config_and_command_line_start_the_engine() {
    let Some(config) = katrain_bundled_config() else {
        return;
    };
    let Some(net) = common::b6c96_path() else {
        return;
    };
    let home = std::env::temp_dir().join(format!("tengen-katrain-home-{}", std::process::id()));
    let home_flag = format!("homeDataDir={}", home.display());
    let mut e = Analysis::start_on_file(&net, &config, &["-override-config", &home_flag]);
    let mut q = query("QUERY:0", 19, &[("B", "Q16"), ("W", "D4")]);
    let o = q.as_object_mut().unwrap();
    o.insert("analyzeTurns".into(), json!([2]));
    o.insert("maxVisits".into(), json!(60));
    o.insert("includeOwnership".into(), json!(true));
    o.insert("includePolicy".into(), json!(true));
    o.insert(
        "overrideSettings".into(),
        json!({"reportAnalysisWinratesAs": "BLACK"}),
    );
    e.send_raw(&format!("{q}\r"));
    let seen = e.until(|v| is_final(v, "QUERY:0"));
    let r = seen.last().unwrap();
    assert!(r.get("error").is_none(), "{r}");
    assert_eq!(r["turnNumber"], 2);
    assert_eq!(r["rootInfo"]["currentPlayer"], "B");
    // 60 visits, at most one more per search thread.
    let visits = r["rootInfo"]["visits"].as_u64().unwrap();
    assert!((60..=68).contains(&visits), "{visits} visits");
    assert!(!r["moveInfos"].as_array().unwrap().is_empty());
    assert_eq!(r["ownership"].as_array().unwrap().len(), 361);
    let err = e.stderr();
    assert_eq!(err.matches(READY).count(), 1, "{err}");
    let rest = e.finish();
    assert!(rest.is_empty(), "{rest:?}");
}

/// `reportAnalysisWinratesAs`: BLACK keeps Black's view on both players'
/// turns, SIDETOMOVE turns with the player; the net's raw values flip
/// exactly, the search's agree with them.
#[test]
fn black_point_of_view_holds_on_both_players_turns() {
    let Some(mut e) = Analysis::start("maxVisits = 30\n") else {
        return;
    };
    // Black is 14 points ahead by komi (-7, where 7 is fair): a won game.
    let base = json!({"moves": [["B", "E5"]], "rules": "chinese", "komi": -7,
                      "boardXSize": 9, "boardYSize": 9, "analyzeTurns": [0, 1],
                      "includeOwnership": true});
    let mut results: HashMap<(String, u64), Value> = HashMap::new();
    for (id, view) in [("black", "BLACK"), ("side", "SIDETOMOVE")] {
        let mut q = base.clone();
        q["id"] = json!(id);
        q["overrideSettings"] = json!({"reportAnalysisWinratesAs": view});
        e.send(&q);
    }
    while results.len() < 4 {
        let v = e.next();
        if v["isDuringSearch"] == false {
            let key = (
                v["id"].as_str().unwrap().to_string(),
                v["turnNumber"].as_u64().unwrap(),
            );
            assert!(
                results.insert(key, v).is_none(),
                "one final response per turn"
            );
        }
    }
    let get = |id: &str, turn: u64| &results[&(id.to_string(), turn)];
    for turn in [0, 1] {
        let b = get("black", turn);
        assert!(f(&b["rootInfo"]["winrate"]) > 0.9, "{turn}: {b}");
        assert!(f(&b["rootInfo"]["scoreLead"]) > 5.0, "{turn}");
        assert!(f(&b["moveInfos"][0]["winrate"]) > 0.9, "{turn}");
        let own: f64 = b["ownership"].as_array().unwrap().iter().map(f).sum();
        assert!(own > 0.0, "Black owns more of the board: {own}");
    }
    // Black to move: both views agree; White to move: they are mirrored.
    let (b0, s0) = (get("black", 0), get("side", 0));
    assert_eq!(b0["rootInfo"]["rawWinrate"], s0["rootInfo"]["rawWinrate"]);
    let (b1, s1) = (get("black", 1), get("side", 1));
    assert_eq!(s1["rootInfo"]["currentPlayer"], "W");
    let raw_b = f(&b1["rootInfo"]["rawWinrate"]);
    let raw_s = f(&s1["rootInfo"]["rawWinrate"]);
    assert!((raw_b + raw_s - 1.0).abs() < 1e-6, "{raw_b} {raw_s}");
    let lead_b = f(&b1["rootInfo"]["rawLead"]);
    let lead_s = f(&s1["rootInfo"]["rawLead"]);
    assert!((lead_b + lead_s).abs() < 1e-4, "{lead_b} {lead_s}");
    assert!(f(&s1["rootInfo"]["winrate"]) < 0.1);
    assert!(f(&s1["rootInfo"]["scoreLead"]) < -5.0);
    assert!(f(&s1["moveInfos"][0]["winrate"]) < 0.1);
    let own: f64 = s1["ownership"].as_array().unwrap().iter().map(f).sum();
    assert!(own < 0.0, "from White's side Black owns more: {own}");
}

/// Bad lines each get an error response in KataGo's shape and the engine
/// goes on: malformed JSON, wrong types, absurd sizes and counts, illegal
/// moves, unknown actions.
#[test]
fn bad_queries_get_errors_and_the_engine_goes_on() {
    let Some(mut e) = Analysis::start("maxVisits = 10\n") else {
        return;
    };
    let ok = query("ok", 9, &[("B", "E5")]);
    let with = |extra: Value| {
        let mut q = ok.clone();
        for (k, v) in extra.as_object().unwrap() {
            q[k] = v.clone();
        }
        q["id"] = json!("bad");
        q
    };
    let cases: Vec<(String, Option<&str>)> = vec![
        ("{\"id\":".to_string(), None),
        ("not json at all".to_string(), None),
        ("[1,2,3]".to_string(), None),
        (r#"{"moves":[]}"#.to_string(), None),
        (r#"{"id":"bad","action":"explode"}"#.to_string(), None),
        (
            with(json!({"moves": [["B", "E5"], ["W", "E5"]]})).to_string(),
            Some("moves"),
        ),
        (
            with(json!({"moves": [["B", "Z99"]]})).to_string(),
            Some("moves"),
        ),
        (with(json!({"moves": "E5"})).to_string(), Some("moves")),
        (
            with(json!({"boardXSize": 1_000_000_000_000u64, "boardYSize": 1_000_000_000_000u64}))
                .to_string(),
            Some("boardXSize"),
        ),
        (
            with(json!({"boardXSize": 9, "boardYSize": 20})).to_string(),
            Some("boardYSize"),
        ),
        (
            with(json!({"analyzeTurns": [4_000_000_000u64]})).to_string(),
            Some("analyzeTurns"),
        ),
        (
            with(json!({"analyzeTurns": "all"})).to_string(),
            Some("analyzeTurns"),
        ),
        (
            with(json!({"maxVisits": 1u64 << 60})).to_string(),
            Some("maxVisits"),
        ),
        (
            with(json!({"maxVisits": -5})).to_string(),
            Some("maxVisits"),
        ),
        (
            with(json!({"analysisPVLen": 1_000_000})).to_string(),
            Some("analysisPVLen"),
        ),
        (with(json!({"komi": "lots"})).to_string(), Some("komi")),
        (
            with(json!({"rules": "calvinball"})).to_string(),
            Some("rules"),
        ),
        (
            with(json!({"includePolicy": "yes"})).to_string(),
            Some("includePolicy"),
        ),
        (
            with(json!({"overrideSettings": {"maxTime": -1}})).to_string(),
            Some("overrideSettings"),
        ),
        (
            with(json!({"overrideSettings": {"reportAnalysisWinratesAs": "RED"}})).to_string(),
            Some("overrideSettings"),
        ),
        (
            with(json!({"reportDuringSearchEvery": 0})).to_string(),
            Some("reportDuringSearchEvery"),
        ),
        (
            with(json!({"avoidMoves": [{"player": "B", "moves": ["E5"]}]})).to_string(),
            Some("avoidMoves"),
        ),
        (
            r#"{"id":"bad","action":"terminate"}"#.to_string(),
            Some("terminateId"),
        ),
    ];
    for (line, field) in &cases {
        e.send_raw(line);
        let v = e.next();
        assert!(v.get("error").is_some(), "{line} → {v}");
        match field {
            None => assert!(v.get("id").is_none(), "{line} → {v}"),
            Some(field) => {
                assert_eq!(v["id"], "bad", "{line} → {v}");
                assert_eq!(v["field"], *field, "{line} → {v}");
            }
        }
    }
    e.send_raw(&with(json!({"moves": [["B", "E5"], ["W", "D4"], ["B", "D4"]]})).to_string());
    let v = e.next();
    assert_eq!(
        v,
        json!({"id": "bad", "field": "moves", "error": "Illegal move 2: D4"})
    );
    // Blank lines are ignored; a good query still works.
    e.send_raw("");
    e.send(&ok);
    let seen = e.until(|v| is_final(v, "ok"));
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(e.finish().is_empty());
}

/// KaTrain's pondering: unlimited visits with reports every 0.1 s, stopped
/// by `terminate`, which is echoed; the search's partial result is its one
/// final response. A queued turn terminated before its search answers
/// `noResults`; the others are still analysed.
#[test]
fn terminate_is_echoed_and_each_turn_ends_once() {
    let Some(mut e) = Analysis::start("maxVisits = 20\n") else {
        return;
    };
    let mut ponder = query("QUERY:ponder", 9, &[("B", "E5")]);
    ponder["maxVisits"] = json!(10_000_000);
    ponder["reportDuringSearchEvery"] = json!(0.1);
    e.send(&ponder);
    let seen = e.until(|v| v["id"] == "QUERY:ponder");
    assert_eq!(seen.last().unwrap()["isDuringSearch"], true);
    // Queued behind the ponder (one analysis thread): turns 0, 1, 2.
    let mut queued = query("later", 9, &[("B", "E5"), ("W", "C3")]);
    queued["analyzeTurns"] = json!([0, 1, 2]);
    e.send(&queued);
    e.send(&json!({"id": "t1", "action": "terminate", "terminateId": "later", "turnNumbers": [1]}));
    let seen = e.until(|v| v["id"] == "t1");
    let echo = seen.last().unwrap();
    assert_eq!(echo["terminateId"], "later");
    assert_eq!(echo["action"], "terminate");
    let no_results: Vec<&Value> = seen.iter().filter(|v| v["id"] == "later").collect();
    assert_eq!(no_results.len(), 1, "{seen:?}");
    assert_eq!(
        *no_results[0],
        json!({"id": "later", "turnNumber": 1, "isDuringSearch": false, "noResults": true})
    );
    e.send(&json!({"id": "t2", "action": "terminate", "terminateId": "QUERY:ponder"}));
    let mut finals: HashMap<(String, u64), usize> = HashMap::new();
    let mut echoed = false;
    let mut rest = e.finish();
    rest.retain(|v| {
        if v["id"] == "t2" {
            echoed = true;
            return false;
        }
        true
    });
    assert!(echoed, "{rest:?}");
    for v in &rest {
        if v["isDuringSearch"] == false {
            let key = (
                v["id"].as_str().unwrap().to_string(),
                v["turnNumber"].as_u64().unwrap(),
            );
            *finals.entry(key).or_default() += 1;
            assert!(v.get("moveInfos").is_some(), "{v}");
        }
    }
    let expected: HashMap<(String, u64), usize> = [
        (("QUERY:ponder".to_string(), 1), 1),
        (("later".to_string(), 0), 1),
        (("later".to_string(), 2), 1),
    ]
    .into_iter()
    .collect();
    assert_eq!(finals, expected);
}

/// KaTrain sends at once, without waiting for the ready line: the query
/// waits in the pipe while the net loads and is then answered. The net is
/// read through a named pipe that gets its bytes only after the query was
/// sent, so the query is certain to come before the ready line.
#[cfg(unix)]
#[test]
fn a_query_sent_before_the_ready_line_is_answered() {
    let Some(net) = common::b6c96_path() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("tengen-ready-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("net.bin.gz");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let mut e = Analysis::start_on(&fifo, "maxVisits = 10\n", &[]);
    e.send(&query("early", 9, &[]));
    // The engine cannot be ready: its net has not been given yet.
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert!(!e.stderr().contains(READY), "{}", e.stderr());
    std::fs::write(&fifo, std::fs::read(&net).unwrap()).expect("feed the net");
    let seen = e.until(|v| is_final(v, "early"));
    assert_eq!(seen.len(), 1);
    assert!(e.stderr().contains(READY));
    let _ = std::fs::remove_dir_all(&dir);
}

/// katagoanal's query: every turn of a game at once, each answered exactly
/// once; a later query of higher priority overtakes the queued turns.
#[test]
fn analyze_turns_answers_every_turn_once_by_priority() {
    let Some(mut e) = Analysis::start("maxVisits = 8\n") else {
        return;
    };
    let game = [
        ("B", "E5"),
        ("W", "C3"),
        ("B", "G3"),
        ("W", "C6"),
        ("B", "pass"),
        ("W", "G7"),
    ];
    let mut all = query("KataGoAnal", 9, &game);
    all["analyzeTurns"] = json!([0, 1, 2, 3, 4, 5, 6]);
    all["includePVVisits"] = json!(true);
    e.send(&all);
    let mut urgent = query("urgent", 9, &[]);
    urgent["priority"] = json!(10);
    e.send(&urgent);
    let mut order = Vec::new();
    while order.len() < 8 {
        let v = e.next();
        assert_eq!(v["isDuringSearch"], false, "no reports were asked: {v}");
        if v["id"] == "KataGoAnal" {
            let pv = v["moveInfos"][0]["pv"].as_array().unwrap().len();
            let pv_visits = v["moveInfos"][0]["pvVisits"].as_array().unwrap().len();
            assert_eq!(pv, pv_visits);
            let to_move = if v["turnNumber"].as_u64().unwrap() % 2 == 0 {
                "B"
            } else {
                "W"
            };
            assert_eq!(v["rootInfo"]["currentPlayer"], to_move);
        }
        order.push((
            v["id"].as_str().unwrap().to_string(),
            v["turnNumber"].as_u64().unwrap(),
        ));
    }
    let mut turns: Vec<u64> = order
        .iter()
        .filter(|(id, _)| id == "KataGoAnal")
        .map(|(_, t)| *t)
        .collect();
    turns.sort_unstable();
    assert_eq!(turns, [0, 1, 2, 3, 4, 5, 6]);
    let urgent_at = order.iter().position(|(id, _)| id == "urgent").unwrap();
    assert!(urgent_at < 7, "the urgent query waited for all: {order:?}");
    assert!(e.finish().is_empty());
}

/// The other actions echo the query: `query_models` lists the net,
/// `clear_cache` and `terminate_all` answer at once.
#[test]
fn actions_echo_the_query() {
    let Some(mut e) = Analysis::start("maxVisits = 10\n") else {
        return;
    };
    e.send(&json!({"id": "m", "action": "query_models"}));
    let v = e.next();
    assert_eq!(v["action"], "query_models");
    let models = v["models"].as_array().unwrap();
    assert_eq!(models.len(), 1);
    assert_eq!(models[0]["version"], 8);
    assert_eq!(models[0]["usesHumanSLProfile"], false);
    e.send(&json!({"id": "c", "action": "clear_cache"}));
    assert_eq!(e.next(), json!({"id": "c", "action": "clear_cache"}));
    e.send(&json!({"id": "a", "action": "terminate_all", "turnNumbers": [3]}));
    assert_eq!(
        e.next(),
        json!({"id": "a", "action": "terminate_all", "turnNumbers": [3]})
    );
    assert!(e.finish().is_empty());
}

/// The `policy` of a response is the net's, as tengen's `kata-raw-nn 0`
/// gives it for the same position (within 1e-4; −1 where it says NAN).
/// The analysis engine's policy equals the one `kata-raw-nn` printed, point
/// by point, within 1e-4.
fn assert_policies_match(ours: &[f64], raw_nn: &[f64], what: &str) {
    assert_eq!(ours.len(), raw_nn.len(), "{what}");
    for (i, (a, b)) in ours.iter().zip(raw_nn).enumerate() {
        assert!((a - b).abs() < 1e-4, "{what}: point {i}: {a} against {b}");
    }
}

/// The policy of a `kata-raw-nn` answer of `rows` rows, pass last, in the
/// analysis engine's terms: `NAN` (an illegal point) becomes -1.
fn raw_nn_policy(raw: &str, rows: usize) -> Vec<f64> {
    let number = |t: &str| {
        t.parse::<f64>()
            .ok()
            .filter(|v| !v.is_nan())
            .unwrap_or(-1.0)
    };
    let mut lines = raw.lines();
    let mut policy = Vec::new();
    while let Some(l) = lines.next() {
        if l.trim() == "policy" {
            for row in lines.by_ref().take(rows) {
                policy.extend(row.split_whitespace().map(number));
            }
        } else if let Some(pass) = l.trim().strip_prefix("policyPass") {
            policy.push(number(pass.trim()));
        }
    }
    policy
}

/// `policy` is the net's, as `kata-raw-nn 0` gives it for the same moves
/// under KataGo's `chinese` when the net is shown the moves
/// (`ignorePreRootHistory` false); by default it is not, which changes it.
#[test]
fn policy_is_the_nets_as_kata_raw_nn_gives_it() {
    let Some(net) = common::b6c96_path() else {
        return;
    };
    let Some(mut e) = Analysis::start("maxVisits = 5\n") else {
        return;
    };
    let moves = [("B", "E5"), ("W", "C3"), ("B", "G7")];
    let mut q = query("p", 9, &moves);
    q["rules"] = json!("chinese");
    q["komi"] = json!(7);
    q["includePolicy"] = json!(true);
    // kata-raw-nn shows the net the moves; so must the analysis here.
    q["overrideSettings"] = json!({"ignorePreRootHistory": false});
    e.send(&q);
    let r = e.until(|v| is_final(v, "p")).pop().unwrap();
    let policy: Vec<f64> = r["policy"].as_array().unwrap().iter().map(f).collect();
    let mut gtp = common::Engine::spawn(&["--model", net.to_str().unwrap()]);
    gtp.ok("boardsize 9");
    gtp.ok("komi 7");
    // KataGo's `chinese`, as the analysis engine reads the name.
    gtp.ok("kata-set-rules chinese");
    for (c, v) in moves {
        gtp.ok(&format!("play {c} {v}"));
    }
    let raw = gtp.ok("kata-raw-nn 0");
    let expected = raw_nn_policy(&raw, 9);
    assert_eq!(expected.len(), 82, "{raw}");
    assert_eq!(policy.len(), 82);
    assert_policies_match(&policy, &expected, "analysis policy against kata-raw-nn");
    // By default (ignorePreRootHistory, as KataGo's analysis engine) the net
    // is not shown the moves: another policy.
    q["id"] = json!("p2");
    q.as_object_mut().unwrap().remove("overrideSettings");
    e.send(&q);
    let r = e.until(|v| is_final(v, "p2")).pop().unwrap();
    let without: Vec<f64> = r["policy"].as_array().unwrap().iter().map(f).collect();
    let largest = without
        .iter()
        .zip(&policy)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(largest > 1e-3, "the history changes the policy ({largest})");
}

/// A board 19 wide and 13 high (boardXSize 19, boardYSize 13), then 13 wide
/// and 19 high: ownership and policy in the board's own row-major order
/// (boardXSize entries a row), −1 on the stones, moves only on the board, a
/// vertex beyond the width or height refused; the policy equals tengen's
/// `kata-raw-nn 0` after `rectangular_boardsize` within 1e-4.
#[test]
fn rectangular_boards_answer_in_their_own_shape() {
    let Some(net) = common::b6c96_path() else {
        return;
    };
    let Some(mut e) = Analysis::start("maxVisits = 8\n") else {
        return;
    };
    const COLS: &str = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
    for (w, h, stones, off_board) in [
        (
            19usize,
            13usize,
            [("B", "T13"), ("W", "A1"), ("B", "K7")],
            "A14",
        ),
        (13, 19, [("B", "N19"), ("W", "A1"), ("B", "G10")], "O1"),
    ] {
        let id = format!("r{w}x{h}");
        let moves: Vec<Value> = stones.iter().map(|(c, v)| json!([c, v])).collect();
        let q = json!({"id": id, "moves": moves, "rules": "chinese", "komi": 7,
                       "boardXSize": w, "boardYSize": h,
                       "includeOwnership": true, "includePolicy": true,
                       "overrideSettings": {"ignorePreRootHistory": false}});
        e.send(&q);
        let r = e.until(|v| is_final(v, &id)).pop().unwrap();
        assert!(r.get("error").is_none(), "{r}");
        assert_eq!(r["ownership"].as_array().unwrap().len(), w * h);
        let policy: Vec<f64> = r["policy"].as_array().unwrap().iter().map(f).collect();
        assert_eq!(policy.len(), w * h + 1);
        let at = |v: &str| {
            let x = COLS.find(&v[..1]).unwrap();
            let row: usize = v[1..].parse().unwrap();
            (h - row) * w + x
        };
        for (_, v) in stones {
            assert_eq!(policy[at(v)], -1.0, "{w}x{h} {v}");
        }
        for m in r["moveInfos"].as_array().unwrap() {
            let mv = m["move"].as_str().unwrap();
            if mv != "pass" {
                let x = COLS.find(&mv[..1]).unwrap();
                let row: usize = mv[1..].parse().unwrap();
                assert!(x < w && (1..=h).contains(&row), "{mv} on {w}x{h}");
            }
        }
        // The same position over GTP: kata-raw-nn 0 prints h rows of w.
        let mut gtp = common::Engine::spawn(&["--model", net.to_str().unwrap()]);
        gtp.ok(&format!("rectangular_boardsize {w} {h}"));
        gtp.ok("komi 7");
        gtp.ok("kata-set-rules chinese");
        for (c, v) in stones {
            gtp.ok(&format!("play {c} {v}"));
        }
        let raw = gtp.ok("kata-raw-nn 0");
        let expected = raw_nn_policy(&raw, h);
        assert_eq!(expected.len(), w * h + 1, "{raw}");
        assert_policies_match(&policy, &expected, &format!("{w}x{h} against kata-raw-nn"));
        // A vertex off this board is an error naming the moves field.
        let bad = format!("{id}-bad");
        e.send(
            &json!({"id": bad, "moves": [["B", off_board]], "rules": "chinese",
                       "boardXSize": w, "boardYSize": h}),
        );
        let err = e.until(|v| v["id"] == bad.as_str()).pop().unwrap();
        assert_eq!(err["field"], "moves", "{err}");
        assert!(err["error"].as_str().unwrap().contains(off_board), "{err}");
    }
    assert!(e.finish().is_empty());
}

/// With `-human-model` and a profile, `humanPolicy` is the human-SL net's
/// policy for that profile (symmetry 0, as tengen's `kata-raw-human-nn 0`
/// gives it, whose numbers equal KataGo's: nn_golden_synthetic), -1 on
/// illegal points, pass last; without a profile there is none.
#[test]
fn human_policy_is_the_human_nets() {
    let Some(net) = common::b6c96_path() else {
        return;
    };
    let spec = katago_net::Spec {
        policy_gain: 6.0,
        ..katago_net::v15_meta()
    };
    let bytes = katago_net::gzip(&katago_net::model_bytes(
        &katago_net::random_net_spec(&spec, 2201),
        true,
    ));
    let human = katago_net::temp_file("analysis-human-v15-meta.bin.gz", &bytes);
    let Some(mut e) = Analysis::start_with(
        "maxVisits = 5\n",
        &["-human-model", human.to_str().unwrap()],
    ) else {
        return;
    };
    let moves = [("B", "E5"), ("W", "C3")];
    let mut q = query("h", 9, &moves);
    q["rules"] = json!("chinese");
    q["komi"] = json!(7);
    q["includePolicy"] = json!(true);
    q["overrideSettings"] = json!({"humanSLProfile": "rank_5k", "ignorePreRootHistory": false});
    e.send(&q);
    let r = e.until(|v| is_final(v, "h")).pop().unwrap();
    let human_policy: Vec<f64> = r["humanPolicy"]
        .as_array()
        .unwrap_or_else(|| panic!("no humanPolicy: {r}"))
        .iter()
        .map(f)
        .collect();
    let policy: Vec<f64> = r["policy"].as_array().unwrap().iter().map(f).collect();
    assert_eq!(human_policy.len(), 82);
    assert!(
        human_policy
            .iter()
            .zip(&policy)
            .any(|(a, b)| (a - b).abs() > 1e-3),
        "two nets"
    );
    let mut gtp = common::Engine::spawn(&[
        "--model",
        net.to_str().unwrap(),
        "--human-model",
        human.to_str().unwrap(),
        "--human-profile",
        "rank_5k",
    ]);
    gtp.ok("boardsize 9");
    gtp.ok("komi 7");
    gtp.ok("kata-set-rules chinese");
    for (c, v) in moves {
        gtp.ok(&format!("play {c} {v}"));
    }
    let raw = gtp.ok("kata-raw-human-nn 0");
    let expected = raw_nn_policy(&raw, 9);
    assert_eq!(expected.len(), 82, "{raw}");
    assert_policies_match(
        &human_policy,
        &expected,
        "humanPolicy against kata-raw-human-nn",
    );
    // No profile: no human policy.
    let mut q = query("h2", 9, &moves);
    q["includePolicy"] = json!(true);
    e.send(&q);
    let r = e.until(|v| is_final(v, "h2")).pop().unwrap();
    assert!(r.get("humanPolicy").is_none(), "{r}");
}

/// Root symmetry pruning (KataGo's `rootSymmetryPruning`, on by default): on
/// the empty board each searched move is listed again for its images, marked
/// `isSymmetryOf` with its statistics and its `pv` turned; no move is listed
/// twice. With the setting off, nothing is marked.
#[test]
fn symmetric_moves_are_listed_with_is_symmetry_of_unless_pruning_is_off() {
    let Some(mut e) = Analysis::start("maxVisits = 30\n") else {
        return;
    };
    let mut q = query("sym", 9, &[]);
    e.send(&q);
    let r = e.until(|v| is_final(v, "sym")).pop().unwrap();
    let infos = r["moveInfos"].as_array().unwrap();
    let moves: Vec<&str> = infos.iter().map(|m| m["move"].as_str().unwrap()).collect();
    let mut unique = moves.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), moves.len(), "a move listed twice: {moves:?}");
    let copies: Vec<&Value> = infos
        .iter()
        .filter(|m| m.get("isSymmetryOf").is_some())
        .collect();
    assert!(!copies.is_empty(), "{r}");
    for copy in copies {
        let of = copy["isSymmetryOf"].as_str().unwrap();
        let original = infos
            .iter()
            .find(|m| m["move"] == of)
            .expect("the original is listed");
        assert_eq!(copy["visits"], original["visits"], "{copy}");
        assert_eq!(copy["pv"][0], copy["move"], "{copy}");
        assert_eq!(
            copy["pv"].as_array().unwrap().len(),
            original["pv"].as_array().unwrap().len()
        );
    }
    q["id"] = json!("nosym");
    q["overrideSettings"] = json!({"rootSymmetryPruning": false});
    e.send(&q);
    let r = e.until(|v| is_final(v, "nosym")).pop().unwrap();
    let infos = r["moveInfos"].as_array().unwrap();
    assert!(!infos.is_empty());
    assert!(infos.iter().all(|m| m.get("isSymmetryOf").is_none()), "{r}");
    assert!(e.finish().is_empty());
}
