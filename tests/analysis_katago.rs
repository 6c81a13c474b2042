//! `tengen analysis` against KataGo's own analysis engine, answer by answer.
//! The lines of `tests/data/katago_analysis/queries.jsonl` (good queries of
//! every kind, the five actions, bad queries) were sent to KataGo 1.17.2's
//! `analysis` on the b6c96 net with `analysis.cfg` of that folder, one line
//! at a time, and its answers recorded in `g170-b6c96.jsonl` (`record.py`;
//! the folder's README says where they came from). Here the same lines go to
//! `tengen analysis` with the same config and net, and for each line:
//! - errors and warnings are the same objects (id, field, text);
//! - an action's echo has the same fields, with the same values but for the
//!   version and the models' descriptions;
//! - the same turns are analysed, each response with the same fields of the
//!   same JSON kinds (recursively: `rootInfo`, every `moveInfos` entry,
//!   arrays of the same length where the board decides it);
//! - the root's raw net outputs (`rawWinrate`, `rawLead`, …) and `policy`
//!   are the same numbers (the net is the same and both evaluate the root in
//!   symmetry 0), and the searched `winrate`, `scoreLead` and `ownership`
//!   agree within the noise of two different searches at equal visits.
//!
//! Needs the b6c96 net of `../shared/nets/` (skipped without it, a failure
//! under `CI=true`).

use crate::common;
use crate::common::analysis_client;

use analysis_client::Analysis;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The recorded answers' folder.
fn data() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/katago_analysis")
}

/// Largest difference in the root's raw net outputs and in the policy: the
/// same net on the same inputs (the goldens of `nn_golden` hold the net to
/// 1e-5 on policy and 1e-3 on scores).
const RAW_TOLERANCE: f64 = 1e-3;
const POLICY_TOLERANCE: f64 = 1e-4;

/// Search noise: two different searches of 20–100 visits on a small net.
/// The largest differences measured over the recorded queries (2026-11-26):
/// win rate 0.034, score lead 0.44, ownership 0.029 on average over the
/// board; these bounds are about three times those.
const WINRATE_TOLERANCE: f64 = 0.10;
const LEAD_TOLERANCE: f64 = 1.5;
const OWNERSHIP_MEAN_TOLERANCE: f64 = 0.10;

/// The differences tengen keeps on purpose, by query id: (id, kind, why).
/// Everything else must be as KataGo answers.
const KNOWN_DIFFERENCES: &[(&str, &str, &str)] = &[(
    "bad-turns-huge",
    "error",
    "KataGo reads analyzeTurns as 32-bit integers and names 4000000000 as \
         -294967296; tengen names the number sent",
)];

fn known_difference(responses: &[Value], kind: &str) -> bool {
    let id = responses.iter().find_map(|v| v["id"].as_str());
    KNOWN_DIFFERENCES
        .iter()
        .any(|(known, k, _)| Some(*known) == id && *k == kind)
}

/// One recorded line: what was sent and what KataGo answered.
struct Record {
    query: String,
    responses: Vec<Value>,
}

fn records() -> Vec<Record> {
    let path = data().join("g170-b6c96.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("a recorded line is JSON");
            Record {
                query: v["query"].as_str().expect("query").to_string(),
                responses: v["responses"]
                    .as_array()
                    .expect("responses")
                    .iter()
                    .map(|r| normalised(r, "$CONFIG"))
                    .collect(),
            }
        })
        .collect()
}

/// How many final responses `line` asks for: `None` for what is not an
/// analysable query (an action, a line that does not parse). As record.py.
fn expected_finals(line: &str) -> Option<usize> {
    let q: Value = serde_json::from_str(line).ok()?;
    let q = q.as_object()?;
    if q.contains_key("action") {
        return None;
    }
    Some(match q.get("analyzeTurns") {
        Some(Value::Array(turns)) => turns.len(),
        _ => 1,
    })
}

/// Sends `line` and reads answers until it is answered, by record.py's rule:
/// an error, an action's echo, or the last expected final response.
fn answer(engine: &mut Analysis, line: &str) -> Vec<Value> {
    let id = serde_json::from_str::<Value>(line)
        .ok()
        .and_then(|q| q.get("id").cloned());
    let mut finals = expected_finals(line);
    let config = engine.config_path().display().to_string();
    engine.send_raw(line);
    let mut got = Vec::new();
    loop {
        let v = normalised(&engine.next(), &config);
        got.push(v.clone());
        if v.get("error").is_some() {
            return got;
        }
        match finals.as_mut() {
            None if v.get("warning").is_none() => return got,
            Some(n) if v.get("id") == id.as_ref() && v["isDuringSearch"] == false => {
                *n -= 1;
                if *n == 0 {
                    return got;
                }
            }
            _ => {}
        }
    }
}

/// What the comparison must not see: the config file's path, which errors
/// about settings quote (`$CONFIG` in the recording), and the JSON parser's
/// own words before " - could not parse input line as json request: "
/// (KataGo's parser and tengen's word a syntax error differently).
fn normalised(v: &Value, config: &str) -> Value {
    const PARSE: &str = " - could not parse input line as json request: ";
    // The path as it is written inside JSON text (a Windows path's `\` escaped).
    let quoted = Value::from(config).to_string();
    let config = &quoted[1..quoted.len() - 1];
    let mut v: Value =
        serde_json::from_str(&v.to_string().replace(config, "$CONFIG")).expect("JSON stays JSON");
    if let Some(Value::String(text)) = v.get_mut("error") {
        if let Some(at) = text.find(PARSE) {
            *text = format!("<the parser's message>{}", &text[at..]);
        }
    }
    v
}

/// A response's JSON shape: the kind of each value, objects by key, arrays
/// as the merged shape of their elements (and their length where `exact`).
fn shape(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "bool".into(),
        Value::Number(_) => "number".into(),
        Value::String(_) => "string".into(),
        Value::Array(items) => {
            let mut merged: BTreeMap<String, String> = BTreeMap::new();
            let mut kinds: Vec<String> = Vec::new();
            for item in items {
                match item {
                    Value::Object(map) => {
                        for (k, x) in map {
                            merged.entry(k.clone()).or_insert_with(|| shape(x));
                        }
                    }
                    other => {
                        let s = shape(other);
                        if !kinds.contains(&s) {
                            kinds.push(s);
                        }
                    }
                }
            }
            if !merged.is_empty() {
                kinds.push(format!("{merged:?}"));
            }
            format!("[{}]", kinds.join("|"))
        }
        Value::Object(map) => {
            let fields: BTreeMap<&String, String> =
                map.iter().map(|(k, x)| (k, shape(x))).collect();
            format!("{fields:?}")
        }
    }
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

fn largest_difference(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

fn mean_difference(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum::<f64>() / a.len().max(1) as f64
}

/// Every response of one kind, in order.
fn of_kind<'a>(responses: &'a [Value], kind: &str) -> Vec<&'a Value> {
    responses
        .iter()
        .filter(|v| match kind {
            "error" | "warning" => v.get(kind).is_some(),
            "final" => v.get("turnNumber").is_some() && v["isDuringSearch"] == false,
            "echo" => {
                v.get("error").is_none()
                    && v.get("warning").is_none()
                    && v.get("turnNumber").is_none()
            }
            _ => unreachable!(),
        })
        .collect()
}

/// The largest differences seen, for the report at the end.
#[derive(Default, Debug)]
struct Worst {
    raw: f64,
    policy: f64,
    winrate: f64,
    lead: f64,
    ownership_mean: f64,
}

fn compare_final(
    what: &str,
    katago: &Value,
    ours: &Value,
    worst: &mut Worst,
    failures: &mut Vec<String>,
) {
    let mut fail = |m: String| failures.push(format!("{what}: {m}"));
    if shape(katago) != shape(ours) {
        fail(format!(
            "fields differ\n  KataGo: {}\n  tengen: {}",
            shape(katago),
            shape(ours)
        ));
    }
    for key in [
        "rawWinrate",
        "rawLead",
        "rawScoreSelfplay",
        "rawScoreSelfplayStdev",
        "rawNoResultProb",
        "rawStWrError",
        "rawStScoreError",
        "rawVarTimeLeft",
    ] {
        let (k, o) = (&katago["rootInfo"][key], &ours["rootInfo"][key]);
        if let (Some(k), Some(o)) = (k.as_f64(), o.as_f64()) {
            let d = (k - o).abs();
            worst.raw = worst.raw.max(d);
            if d > RAW_TOLERANCE {
                fail(format!("rootInfo.{key}: KataGo {k}, tengen {o}"));
            }
        }
    }
    for (key, tolerance, slot) in [
        ("winrate", WINRATE_TOLERANCE, &mut worst.winrate),
        ("scoreLead", LEAD_TOLERANCE, &mut worst.lead),
    ] {
        let (Some(k), Some(o)) = (
            katago["rootInfo"][key].as_f64(),
            ours["rootInfo"][key].as_f64(),
        ) else {
            continue;
        };
        let d = (k - o).abs();
        *slot = slot.max(d);
        if d > tolerance {
            fail(format!("rootInfo.{key}: KataGo {k}, tengen {o}"));
        }
    }
    for key in ["policy", "ownership"] {
        let (k, o) = (numbers(&katago[key]), numbers(&ours[key]));
        if k.len() != o.len() {
            fail(format!(
                "{key}: {} values from KataGo, {} from tengen",
                k.len(),
                o.len()
            ));
            continue;
        }
        if key == "policy" {
            let d = largest_difference(&k, &o);
            worst.policy = worst.policy.max(d);
            if d > POLICY_TOLERANCE {
                fail(format!("policy differs by {d}"));
            }
        } else if !k.is_empty() {
            let d = mean_difference(&k, &o);
            worst.ownership_mean = worst.ownership_mean.max(d);
            if d > OWNERSHIP_MEAN_TOLERANCE {
                fail(format!("ownership differs by {d} on average"));
            }
        }
    }
}

/// An action's echo: the same fields and values, but the version and the
/// models' descriptions, which are the engine's own.
fn compare_echo(what: &str, katago: &Value, ours: &Value, failures: &mut Vec<String>) {
    let (Some(k), Some(o)) = (katago.as_object(), ours.as_object()) else {
        failures.push(format!("{what}: echo is not an object: {katago} / {ours}"));
        return;
    };
    if shape(katago) != shape(ours) {
        failures.push(format!(
            "{what}: echo fields differ\n  KataGo: {katago}\n  tengen: {ours}"
        ));
        return;
    }
    for (key, value) in k {
        if ["version", "git_hash", "models"].contains(&key.as_str()) {
            continue;
        }
        if o.get(key) != Some(value) {
            failures.push(format!(
                "{what}: echo field {key}: KataGo {value}, tengen {:?}",
                o.get(key)
            ));
        }
    }
}

#[test]
fn the_same_queries_get_katagos_answers() {
    let Some(net) = common::b6c96_path() else {
        return;
    };
    let config = std::fs::read_to_string(data().join("analysis.cfg")).expect("analysis.cfg");
    let mut engine = Analysis::start_on(&net, &config, &[]);
    let mut failures = Vec::new();
    let mut worst = Worst::default();
    let mut finals = 0;
    for record in records() {
        let ours = answer(&mut engine, &record.query);
        let what = &record.query[..record.query.len().min(70)];
        for kind in ["error", "warning"] {
            let (k, o) = (of_kind(&record.responses, kind), of_kind(&ours, kind));
            if k != o && !known_difference(&record.responses, kind) {
                failures.push(format!(
                    "{what}: {kind}s differ\n  KataGo: {k:?}\n  tengen: {o:?}"
                ));
            }
        }
        let (k, o) = (of_kind(&record.responses, "echo"), of_kind(&ours, "echo"));
        if k.len() != o.len() {
            failures.push(format!(
                "{what}: {} echoes from KataGo, {} from tengen",
                k.len(),
                o.len()
            ));
        }
        for (k, o) in k.iter().zip(&o) {
            compare_echo(what, k, o, &mut failures);
        }
        let turn = |v: &&Value| v["turnNumber"].as_u64();
        let mut k = of_kind(&record.responses, "final");
        let mut o = of_kind(&ours, "final");
        k.sort_by_key(turn);
        o.sort_by_key(turn);
        let (kt, ot): (Vec<_>, Vec<_>) =
            (k.iter().map(turn).collect(), o.iter().map(turn).collect());
        if kt != ot {
            failures.push(format!(
                "{what}: KataGo analysed turns {kt:?}, tengen {ot:?}"
            ));
            continue;
        }
        for (k, o) in k.iter().zip(&o) {
            finals += 1;
            let what = format!("{what} (turn {:?})", turn(k));
            compare_final(&what, k, o, &mut worst, &mut failures);
        }
    }
    engine.finish();
    eprintln!("analysis against KataGo: {finals} analysed turns; largest differences {worst:?}");
    assert!(finals >= 15, "only {finals} analysed turns compared");
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
