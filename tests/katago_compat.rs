//! The KataGo compatibility layer seen from both front ends: the same rules,
//! search limits and move restrictions, given once to `tengen gtp` (its
//! session in memory) and once in a JSON analysis query, must give the
//! engine the same settings.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tengen::analysis::query::{self, Context, Request};
use tengen::analysis::settings::EngineSettings;
use tengen::engine::{Decision, Engine, GenmoveOptions, Limits, Report};
use tengen::go::board::{Color, Move, Point};
use tengen::gtp::{self, Networks, Options};
use tengen::katago::rules::{self, Komi};
use tengen::{Game, Rules};

/// What the GTP session asked of its engine.
#[derive(Default)]
struct Seen {
    limits: Vec<Limits>,
    excluded: Vec<Vec<Point>>,
}

struct Recorder(Arc<Mutex<Seen>>);

impl Engine for Recorder {
    fn genmove(
        &mut self,
        game: &Game,
        color: Color,
        options: &GenmoveOptions,
        _: &AtomicBool,
        _: &mut dyn FnMut(&Report),
    ) -> (Decision, Report) {
        self.0.lock().unwrap().limits.push(options.limits);
        let mv = game
            .legal_points(color)
            .first()
            .map_or(Move::Pass, |&p| Move::Play(p));
        (Decision::Play(mv), Report::default())
    }

    fn analyze(
        &mut self,
        _: &Game,
        _: Color,
        excluded: &[Point],
        _: Duration,
        stop: &AtomicBool,
        _: &mut dyn FnMut(&Report),
    ) {
        let mut sorted = excluded.to_vec();
        sorted.sort_by_key(|p| p.index());
        self.0.lock().unwrap().excluded.push(sorted);
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    fn dead_stones(&mut self, _: &Game) -> Vec<Point> {
        Vec::new()
    }
}

#[derive(Clone, Default)]
struct Output(Arc<Mutex<Vec<u8>>>);

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Runs `input` through a GTP session; its output and what its engine saw.
fn gtp_session(input: &str) -> (String, Seen) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let out = Output::default();
    gtp::serve(
        io::Cursor::new(input.as_bytes().to_vec()),
        Box::new(out.clone()),
        Options {
            quiet: true,
            ..Options::default()
        },
        Box::new(Recorder(seen.clone())),
        Networks::default(),
    )
    .unwrap();
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    (text, seen)
}

/// Parses an analysis query as `tengen analysis` does.
fn analysis_query(fields: &str) -> query::Query {
    let settings = EngineSettings::default();
    let cx = Context {
        settings: &settings,
        net_needs_profile: false,
    };
    let line = format!(r#"{{"id":"q","moves":[],"boardXSize":19,"boardYSize":19,{fields}}}"#);
    match query::parse(&line, &cx, &mut Vec::new()) {
        Ok(Request::Analyze(q)) => *q,
        other => panic!("{line}: {other:?}"),
    }
}

/// The rules GTP's `kata-get-rules` reports after `kata-set-rules text`.
fn gtp_rules(text: &str) -> Rules {
    let (out, _) = gtp_session(&format!("kata-set-rules {text}\nkata-get-rules\n"));
    let replies: Vec<&str> = out.split("\n\n").collect();
    assert_eq!(replies[0], "= ", "kata-set-rules {text}: {out}");
    let json = replies[1].strip_prefix("= ").unwrap();
    rules::read_text(json, Komi::Refused).unwrap().rules
}

#[test]
fn the_same_rules_give_the_same_engine_rules() {
    for text in [
        "japanese",
        "chinese",
        "chinese-ogs",
        "aga",
        "new-zealand",
        "tromp-taylor",
        "stone-scoring",
        "aga-button",
        "koSITUATIONALscoreAREAtaxNONEsui1whbN",
        "koSIMPLEscoreTERRITORYtaxALL",
        r#"{"ko":"POSITIONAL","scoring":"AREA","suicide":true,"whiteHandicapBonus":"N-1"}"#,
        r#"{"hasButton":true,"scoring":"TERRITORY"}"#,
    ] {
        let through_gtp = gtp_rules(text);
        let json = serde_json::Value::String(text.to_string());
        let through_query = analysis_query(&format!(r#""rules":{json}"#)).rules;
        assert_eq!(through_gtp, through_query, "{text}");
    }
}

#[test]
fn the_same_limits_give_the_same_search_limits() {
    for params in [
        r#"{"maxVisits":50}"#,
        r#"{"maxPlayouts":30,"maxVisits":40}"#,
        r#"{"maxVisits":40,"maxPlayouts":30}"#,
        r#"{"maxVisits":400,"maxTime":2.5}"#,
        r#"{"maxPlayouts":7,"maxTime":1e20}"#,
    ] {
        let (out, seen) = gtp_session(&format!("kata-set-params {params}\ngenmove b\n"));
        assert!(out.starts_with("= \n\n= "), "{params}: {out}");
        let through_query =
            analysis_query(&format!(r#""rules":"chinese","overrideSettings":{params}"#));
        assert_eq!(
            seen.limits,
            [through_query.settings.limits.limits()],
            "{params}"
        );
    }
}

#[test]
fn the_same_restrictions_exclude_the_same_points() {
    for (gtp_args, json) in [
        (
            "avoid b d4,q16,pass 1",
            r#""avoidMoves":[{"player":"B","moves":["D4","Q16","pass"],"untilDepth":1}]"#,
        ),
        (
            // GTP's lists are comma-separated: no `(x,y)` there.
            "avoid b d4 2 avoid b d16 1",
            r#""avoidMoves":[{"player":"B","moves":["D4"],"untilDepth":2},{"player":"B","moves":["(3,3)"],"untilDepth":1}]"#,
        ),
        (
            "allow b c3,r17 1",
            r#""allowMoves":[{"player":"B","moves":["C3","R17"],"untilDepth":1}]"#,
        ),
        (
            "avoid w d4 1",
            r#""avoidMoves":[{"player":"W","moves":["D4"],"untilDepth":1}]"#,
        ),
    ] {
        let (out, seen) = gtp_session(&format!(
            "kata-set-param rootSymmetryPruning false\nkata-analyze b 1000 {gtp_args}\nname\n"
        ));
        assert!(out.contains("= tengen"), "{gtp_args}: {out}");
        let q = analysis_query(&format!(
            r#""rules":"chinese","overrideSettings":{{"rootSymmetryPruning":false}},{json}"#
        ));
        let mut through_query = q.excluded(Color::Black);
        through_query.sort_by_key(|p| p.index());
        through_query.dedup();
        let mut through_gtp = seen.excluded.concat();
        through_gtp.dedup();
        assert_eq!(through_gtp, through_query, "{gtp_args}");
    }
}
