//! `tengen analysis` under mutated queries: 100,000 seeded lines (KaTrain-like
//! queries and actions, each with one to three mutations: a field's value
//! replaced by another JSON type or an absurd number, a field dropped, an
//! unknown field, bytes cut, inserted or swapped) through the running binary
//! in batches. After each batch every line whose id survived must have been
//! answered (an error naming it, an action's echo, or final responses); over
//! the run no (id, turn) has two final responses, the resident memory stays
//! flat, and the engine ends cleanly when its input closes. Set
//! `TENGEN_FUZZ_LINES` for a shorter or longer run.

use crate::common;

use serde_json::{json, Map, Value};
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tengen::search::classical::playout::PlayoutRng;

const CONFIG: &str = "\
reportAnalysisWinratesAs = BLACK
maxVisits = 2
maxTime = 0.05
numAnalysisThreads = 2
numSearchThreads = 1
";

/// Lines per batch: sent at once, then waited for.
const BATCH: usize = 2000;
/// Longest wait for one batch's answers.
const BATCH_TIMEOUT: Duration = Duration::from_secs(300);
/// Most the resident memory may grow from the first batch to the last.
const MEMORY_GROWTH_MB: f64 = 64.0;

/// The actions the protocol has.
const ACTIONS: &[&str] = &[
    "query_version",
    "query_models",
    "clear_cache",
    "terminate",
    "terminate_all",
];

const RULES: &[&str] = &[
    "japanese",
    "chinese",
    "korean",
    "aga",
    "tromp-taylor",
    "new-zealand",
    "stone_scoring",
];
/// An override's name and a maker of plausible values for it.
type Override = (&'static str, fn(&mut PlayoutRng) -> Value);

const OVERRIDES: &[Override] = &[
    ("reportAnalysisWinratesAs", |r| {
        json!(["BLACK", "WHITE", "SIDETOMOVE"][r.below(3)])
    }),
    ("wideRootNoise", |r| json!(r.below(100) as f64 / 1000.0)),
    ("playoutDoublingAdvantage", |r| {
        json!(r.below(7) as f64 / 2.0 - 1.5)
    }),
    ("antiMirror", |r| json!(r.below(2) == 0)),
    ("rootNumSymmetriesToSample", |r| json!(1 + r.below(8))),
    ("ignorePreRootHistory", |r| json!(r.below(2) == 0)),
];

fn vertex(r: &mut PlayoutRng, size: usize) -> String {
    if r.below(30) == 0 {
        return "pass".into();
    }
    let letters = "ABCDEFGHJKLMNOPQRST";
    format!("{}{}", &letters[r.below(size)..][..1], 1 + r.below(size))
}

/// A query as KaTrain or a review tool sends it, or now and then an action.
fn base(r: &mut PlayoutRng, id: &str) -> Value {
    match r.below(40) {
        0 => return json!({"id": id, "action": "query_version"}),
        1 => return json!({"id": id, "action": "clear_cache"}),
        2 => {
            return json!({"id": id, "action": "terminate", "terminateId": format!("q{}", r.below(1000))})
        }
        3 => return json!({"id": id, "action": "terminate_all"}),
        _ => {}
    }
    let size = [5, 7, 9][r.below(3)];
    let n = r.below(8);
    let moves: Vec<Value> = (0..n)
        .map(|i| json!([if i % 2 == 0 { "B" } else { "W" }, vertex(r, size)]))
        .collect();
    let mut q = json!({
        "id": id,
        "moves": moves,
        "rules": RULES[r.below(RULES.len())],
        "komi": (r.below(31) as f64) / 2.0 - 5.0,
        "boardXSize": size,
        "boardYSize": size,
    });
    let o = q.as_object_mut().unwrap();
    if r.below(3) == 0 {
        o.insert(
            "initialStones".into(),
            json!([["B", vertex(r, size)], ["W", vertex(r, size)]]),
        );
        o.insert("initialPlayer".into(), json!(["B", "W"][r.below(2)]));
    }
    if r.below(3) == 0 {
        let turns: Vec<usize> = (0..1 + r.below(3)).map(|_| r.below(n + 1)).collect();
        o.insert("analyzeTurns".into(), json!(turns));
    }
    for key in [
        "includeOwnership",
        "includeMovesOwnership",
        "includePolicy",
        "includePVVisits",
        "includeOwnershipStdev",
    ] {
        if r.below(3) == 0 {
            o.insert(key.into(), json!(true));
        }
    }
    if r.below(2) == 0 {
        o.insert("maxVisits".into(), json!(1 + r.below(4)));
    }
    if r.below(4) == 0 {
        o.insert("priority".into(), json!(r.below(5) as i64 - 2));
    }
    if r.below(4) == 0 {
        o.insert(
            "avoidMoves".into(),
            json!([{"player": "B", "moves": [vertex(r, size)], "untilDepth": 1 + r.below(3)}]),
        );
    }
    if r.below(3) == 0 {
        let mut s = Map::new();
        for _ in 0..1 + r.below(3) {
            let (k, f) = OVERRIDES[r.below(OVERRIDES.len())];
            s.insert(k.into(), f(r));
        }
        o.insert("overrideSettings".into(), Value::Object(s));
    }
    q
}

/// A value of another kind than the field expects, or an absurd one.
fn odd_value(r: &mut PlayoutRng) -> Value {
    match r.below(14) {
        0 => Value::Null,
        1 => json!(true),
        2 => json!(-1),
        3 => json!(1e308),
        4 => json!(u64::MAX),
        5 => json!(i64::MIN),
        6 => json!("x"),
        7 => json!([]),
        8 => json!({}),
        9 => json!([[[[[[1]]]]]]),
        10 => json!("Q4".repeat(5000)),
        11 => json!((0..3000).collect::<Vec<u32>>()),
        12 => json!(0.5),
        _ => json!([["B", "ZZ99"], ["Q", "A1"], [1, 2], "pass"]),
    }
}

/// One to three mutations of `q`'s fields or of its text (the id is
/// touched now and then too).
fn mutate(r: &mut PlayoutRng, mut q: Value) -> String {
    for _ in 0..1 + r.below(3) {
        let Some(o) = q.as_object_mut() else { break };
        let keys: Vec<String> = o.keys().cloned().collect();
        if keys.is_empty() {
            break;
        }
        let key = keys[r.below(keys.len())].clone();
        if key == "id" && r.below(10) != 0 {
            continue;
        }
        match r.below(6) {
            0 | 1 => {
                o.insert(key, odd_value(r));
            }
            2 => {
                o.remove(&key);
            }
            3 => {
                o.insert(format!("unknown{}", r.below(5)), odd_value(r));
            }
            4 => {
                // Absurd sizes and counts.
                let field = [
                    "boardXSize",
                    "boardYSize",
                    "maxVisits",
                    "analyzeTurns",
                    "komi",
                    "analysisPVLen",
                ][r.below(6)];
                let v = match r.below(4) {
                    0 => json!(1_000_000_000u64),
                    1 => json!([0, 1_000_000_000u64, 3]),
                    2 => json!(-5),
                    _ => json!(0),
                };
                o.insert(field.into(), v);
            }
            _ => {
                let o2 = o.entry("overrideSettings").or_insert(json!({}));
                if let Some(s) = o2.as_object_mut() {
                    s.insert(
                        [
                            "humanSLProfile",
                            "maxVisits",
                            "unknownSetting",
                            "reportAnalysisWinratesAs",
                        ][r.below(4)]
                        .into(),
                        odd_value(r),
                    );
                }
            }
        }
    }
    let mut text = q.to_string();
    if r.below(4) == 0 {
        let mut bytes = text.into_bytes();
        match r.below(3) {
            0 => bytes.truncate(r.below(bytes.len().max(1))),
            1 => {
                let at = r.below(bytes.len() + 1);
                let b = [b'"', b'{', b'}', b'[', b',', b':', b'\\', 0xff, b'0'][r.below(9)];
                bytes.insert(at, b);
            }
            _ => {
                if bytes.len() > 1 {
                    let (i, j) = (r.below(bytes.len()), r.below(bytes.len()));
                    bytes.swap(i, j);
                }
            }
        }
        text = String::from_utf8_lossy(&bytes).into_owned();
    }
    text.replace('\n', " ")
}

fn resident_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

#[test]
#[ignore = "heavy: .ci/run runs it in its second step"]
fn a_hundred_thousand_mutated_queries() {
    let Some(net) = common::b6c96_path() else {
        return;
    };
    let lines: usize = std::env::var("TENGEN_FUZZ_LINES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let config = std::env::temp_dir().join(format!("tengen-fuzz-{}.cfg", std::process::id()));
    std::fs::write(&config, CONFIG).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["analysis", "-model"])
        .arg(&net)
        .arg("-config")
        .arg(&config)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tengen analysis");
    let pid = child.id();
    let stderr = common::collect_stderr(&mut child);
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    let mut rng = PlayoutRng::new(20261126);
    // Per id: answered at all, and the turns with a final response.
    let mut answered: HashSet<String> = HashSet::new();
    let mut finals: HashMap<(String, i64), usize> = HashMap::new();
    let mut general_errors = 0usize;
    let mut read = |line: String, answered: &mut HashSet<String>, general_errors: &mut usize| {
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
        assert!(v.is_object(), "{line}");
        match v.get("id").and_then(Value::as_str) {
            None => {
                assert!(v.get("error").is_some(), "no id and no error: {line}");
                *general_errors += 1;
            }
            Some(id) => {
                if v.get("warning").is_some() {
                    return;
                }
                answered.insert(id.to_string());
                // Only the ids this test gave out are unique (a mutated id
                // such as "x" stands on many lines).
                let ours = id
                    .strip_prefix('q')
                    .is_some_and(|n| n.parse::<usize>().is_ok());
                if ours && v.get("isDuringSearch") == Some(&json!(false)) {
                    let turn = v.get("turnNumber").and_then(Value::as_i64).unwrap_or(-1);
                    *finals.entry((id.to_string(), turn)).or_default() += 1;
                }
            }
        }
    };
    let mut expected_general = 0usize;
    let mut first_mb = None;
    let mut last_mb = 0.0;
    let mut sent = 0;
    let started = Instant::now();
    while sent < lines {
        let mut expected = Vec::new();
        let mut batch = String::new();
        for _ in 0..BATCH.min(lines - sent) {
            let id = format!("q{sent}");
            let q = base(&mut rng, &id);
            let text = mutate(&mut rng, q);
            // Lines that still parse as an object with this id must be
            // answered by id, unless they name an unknown action (as KataGo,
            // an error without an id); lines that do not parse get an error
            // without an id.
            match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(o)) => {
                    let unknown_action = o
                        .get("action")
                        .and_then(Value::as_str)
                        .is_some_and(|a| !ACTIONS.contains(&a));
                    // No turn to analyse: no answer (as KataGo).
                    let no_turns = o.get("analyzeTurns") == Some(&json!([]));
                    if unknown_action {
                        expected_general += 1;
                    } else if o.get("id") == Some(&json!(id)) && !no_turns {
                        expected.push((id, text.clone()));
                    }
                }
                _ => expected_general += 1,
            }
            batch.push_str(&text);
            batch.push('\n');
            sent += 1;
        }
        stdin
            .write_all(batch.as_bytes())
            .expect("the engine reads its input");
        stdin.flush().unwrap();
        let deadline = Instant::now() + BATCH_TIMEOUT;
        while !expected.iter().all(|(id, _)| answered.contains(id)) {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => read(line, &mut answered, &mut general_errors),
                Err(_) => {
                    let missing: Vec<_> = expected
                        .iter()
                        .filter(|(id, _)| !answered.contains(id))
                        .map(|(_, text)| clip(text))
                        .take(5)
                        .collect();
                    panic!(
                        "lines {}..{sent}: no answer within {BATCH_TIMEOUT:?} to:\n{}\nstderr tail:\n{}",
                        sent - BATCH.min(sent),
                        missing.join("\n"),
                        tail(&stderr.lock().unwrap())
                    );
                }
            }
        }
        let mb = resident_mb(pid);
        last_mb = mb;
        let first = *first_mb.get_or_insert(mb);
        assert!(
            mb <= first + MEMORY_GROWTH_MB,
            "resident memory grew from {first:.0} MB to {mb:.0} MB after {sent} lines"
        );
    }
    drop(stdin);
    let end = Instant::now() + BATCH_TIMEOUT;
    while let Ok(line) = rx.recv_timeout(end.saturating_duration_since(Instant::now())) {
        read(line, &mut answered, &mut general_errors);
    }
    let status = child.wait().unwrap();
    let err = stderr.lock().unwrap().clone();
    assert!(
        status.success(),
        "exit {status}; stderr tail:\n{}",
        tail(&err)
    );
    assert!(!err.contains("panicked"), "{}", tail(&err));
    assert!(
        general_errors >= expected_general,
        "{general_errors} errors without an id for {expected_general} lines that must get one"
    );
    let twice: Vec<_> = finals.iter().filter(|(_, &n)| n > 1).take(5).collect();
    assert!(twice.is_empty(), "final responses given twice: {twice:?}");
    let _ = std::fs::remove_file(&config);
    let _ = writeln!(
        std::io::stderr(),
        "analysis fuzz: {sent} lines in {:.0} s: {} ids answered, {} final responses, {general_errors} errors without an id; resident {:.0} MB at the first batch, {:.0} MB at the last",
        started.elapsed().as_secs_f64(),
        answered.len(),
        finals.len(),
        first_mb.unwrap_or(0.0),
        last_mb,
    );
    assert!(
        finals.len() > sent / 10,
        "too few queries ran: the mutations break nearly everything"
    );
}

/// A long line's first 400 characters.
fn clip(text: &str) -> String {
    text.chars().take(400).collect()
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}
