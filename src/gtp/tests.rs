//! In-process checks of the session loop; the wire-level tests that spawn the
//! binary are in `tests/gtp_*.rs`.

use super::session::Session;
use super::*;
use crate::engine::{Decision, GenmoveOptions, Report};
use crate::go::board::Stone;
use crate::go::board::{Color, Geometry, Move};
use crate::go::game::Game;
use crate::go::rules::Scoring;
use crate::go::vertex;
use crate::search::RandomEngine;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

/// A writer whose bytes the test can read afterwards.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn transcript(input: &str) -> String {
    let out = Shared::default();
    serve(
        io::Cursor::new(input.as_bytes().to_vec()),
        Box::new(out.clone()),
        Options::default(),
        Box::new(RandomEngine::new(1)),
        Networks::default(),
    )
    .unwrap();
    let bytes = out.0.lock().unwrap().clone();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn a_short_session() {
    assert_eq!(
        transcript("1 name\r\n\n# comment\nboardsize 9\r\nplay b e5\nplay w E5\n2 undo\nundo\nquit\nname\n"),
        "=1 tengen\n\n= \n\n= \n\n? illegal move\n\n=2 \n\n? cannot undo\n\n= \n\n"
    );
}

/// KataGo's extras: `get_komi` as KataGo writes numbers, `kata-search`
/// answers without playing, `gomill-cpu_time`, `clear_cache` and `stop`.
#[test]
fn katagos_small_commands() {
    let t = transcript(
        "komi 6.5\nget_komi\nkomi -3\nget_komi\nboardsize 5\nkata-search b\nundo\n\
         clear_cache\nstop\ngomill-cpu_time\n",
    );
    let replies: Vec<&str> = t.split("\n\n").collect();
    assert_eq!(&replies[..5], ["= ", "= 6.5", "= ", "= -3", "= "], "{t}");
    assert!(replies[5].len() > 2 && replies[5] != "= pass", "{t}");
    assert_eq!(&replies[6..9], ["? cannot undo", "= ", "= "], "{t}");
    assert!(
        replies[9]
            .strip_prefix("= ")
            .unwrap()
            .parse::<f64>()
            .is_ok(),
        "{t}"
    );
}

#[test]
fn analysis_ends_at_end_of_input() {
    let t = transcript("lz-analyze b 1");
    assert!(t.starts_with("=\n") && t.ends_with("\n\n"), "{t:?}");
}

/// Input the test feeds line by line, at the moments it chooses.
struct ChannelInput {
    rx: mpsc::Receiver<Vec<u8>>,
    buf: Vec<u8>,
    pos: usize,
}

impl io::Read for ChannelInput {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.buf.len() {
            match self.rx.recv() {
                Ok(b) => {
                    self.buf = b;
                    self.pos = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// An engine that thinks for `think` (or until stopped), reporting every few
/// milliseconds, and records whether it was stopped.
struct SlowEngine {
    think: Duration,
    stopped: Arc<AtomicBool>,
}

impl Engine for SlowEngine {
    fn genmove(
        &mut self,
        game: &Game,
        color: Color,
        _: &GenmoveOptions,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(&Report),
    ) -> (Decision, Report) {
        let start = Instant::now();
        let p = game.legal_points(color)[0];
        let report = Report {
            moves: vec![crate::engine::MoveInfo {
                mv: Move::Play(p),
                visits: 1,
                winrate: 0.5,
                prior: 0.5,
                lcb: 0.4,
                score_lead: 0.0,
                score_mean: 0.0,
                score_stdev: 0.0,
                utility: 0.0,
                pv: vec![Move::Play(p)],
                pv_visits: vec![1],
            }],
            ..Report::default()
        };
        while start.elapsed() < self.think {
            if stop.load(Ordering::Relaxed) {
                self.stopped.store(true, Ordering::Relaxed);
                break;
            }
            progress(&report);
            std::thread::sleep(Duration::from_millis(2));
        }
        (Decision::Play(Move::Play(p)), report)
    }

    fn analyze(
        &mut self,
        game: &Game,
        color: Color,
        _excluded: &[crate::go::board::Point],
        _interval: Duration,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(&Report),
    ) {
        let never = AtomicBool::new(false);
        let think = std::mem::replace(&mut self.think, Duration::ZERO);
        let (_, report) =
            self.genmove(game, color, &GenmoveOptions::default(), &never, &mut |_| {});
        self.think = think;
        while !stop.load(Ordering::Relaxed) {
            progress(&report);
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn dead_stones(&mut self, _: &Game) -> Vec<crate::go::board::Point> {
        Vec::new()
    }
}

/// A live session on a [`SlowEngine`]: lines go in when the test says, the
/// output is read back with [`Live::wait_for`].
struct Live {
    tx: mpsc::Sender<Vec<u8>>,
    out: Shared,
    stopped: Arc<AtomicBool>,
}

impl Live {
    fn start(think: Duration) -> Live {
        let stopped = Arc::new(AtomicBool::new(false));
        let engine = SlowEngine {
            think,
            stopped: stopped.clone(),
        };
        Live::with_engine(Box::new(engine), stopped)
    }

    /// A session of `engine`; `stopped` is what the test reads as
    /// [`Live::stopped`].
    fn with_engine(engine: Box<dyn Engine>, stopped: Arc<AtomicBool>) -> Live {
        let (tx, rx) = mpsc::channel();
        let out = Shared::default();
        let sink = out.clone();
        std::thread::spawn(move || {
            let input = io::BufReader::new(ChannelInput {
                rx,
                buf: Vec::new(),
                pos: 0,
            });
            serve(
                input,
                Box::new(sink),
                Options::default(),
                engine,
                Networks::default(),
            )
            .unwrap();
        });
        Live { tx, out, stopped }
    }

    fn send(&self, text: &str) {
        self.tx.send(text.as_bytes().to_vec()).unwrap();
    }

    fn text(&self) -> String {
        String::from_utf8(self.out.0.lock().unwrap().clone()).unwrap()
    }

    /// Waits until the output ends with `suffix`; returns how long it took.
    fn wait_for(&self, suffix: &str) -> Duration {
        let start = Instant::now();
        while !self.text().ends_with(suffix) {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "waiting for {suffix:?}: {:?}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        start.elapsed()
    }
}

#[test]
fn gogui_interrupt_stops_genmove_with_the_best_move_so_far() {
    let live = Live::start(Duration::from_secs(60));
    live.send("boardsize 9\n");
    live.wait_for("= \n\n");
    live.send("1 genmove b\n");
    std::thread::sleep(Duration::from_millis(50));
    assert!(!live.text().contains("=1"), "still thinking");
    live.send("# interrupt\n");
    assert!(live.wait_for("=1 A9\n\n") < Duration::from_secs(10));
    assert!(live.stopped.load(Ordering::Relaxed));
    // The comment got no response; the session goes on.
    live.send("2 name\n");
    live.wait_for("=2 tengen\n\n");
    assert_eq!(live.text(), "= \n\n=1 A9\n\n=2 tengen\n\n");
}

#[test]
fn pipelined_commands_wait_for_genmove_without_stopping_it() {
    let live = Live::start(Duration::from_millis(300));
    let start = Instant::now();
    live.send("1 genmove b\n2 name\n\n3 play w b9\n");
    live.wait_for("=3 \n\n");
    assert!(start.elapsed() >= Duration::from_millis(300));
    assert!(
        !live.stopped.load(Ordering::Relaxed),
        "genmove ran to its end"
    );
    assert_eq!(live.text(), "=1 A19\n\n=2 tengen\n\n=3 \n\n");
}

#[test]
fn analysis_stops_at_any_line_and_streams_at_the_interval() {
    let live = Live::start(Duration::from_millis(10));
    live.send("boardsize 5\n");
    live.wait_for("= \n\n");
    let start = Instant::now();
    live.send("lz-analyze b 5\n");
    std::thread::sleep(Duration::from_millis(300));
    let streamed = live.text();
    let most = start.elapsed().as_millis() / 50 + 2;
    let infos = streamed
        .lines()
        .filter(|l| l.starts_with("info move"))
        .count() as u128;
    assert!(
        (2..=most).contains(&infos),
        "{infos} lines at 50 ms intervals, at most {most}"
    );
    live.send("\n");
    live.wait_for("\n\n");
    live.send("name\n");
    live.wait_for("= tengen\n\n");
    let t = live.text();
    let body = &t["= \n\n=\n".len()..t.len() - "\n= tengen\n\n".len()];
    assert!(
        body.lines().all(|l| l
            .starts_with("info move A5 visits 1 winrate 5000 prior 5000 lcb 4000 order 0 pv A5")),
        "{body:?}"
    );
}

#[test]
fn an_analysis_queued_behind_genmove_is_stopped_by_the_line_after_it() {
    let live = Live::start(Duration::from_millis(100));
    live.send("boardsize 5\n1 genmove b\n2 lz-analyze w 1\n3 name\n");
    live.wait_for("=3 tengen\n\n");
    assert!(
        live.text().starts_with("= \n\n=1 A5\n\n=2\n"),
        "{:?}",
        live.text()
    );
}

#[test]
fn end_of_input_does_not_cut_a_genmove_short() {
    let (tx, rx) = mpsc::channel();
    let out = Shared::default();
    let stopped = Arc::new(AtomicBool::new(false));
    let engine = SlowEngine {
        think: Duration::from_millis(200),
        stopped: stopped.clone(),
    };
    tx.send(b"boardsize 3\ngenmove w\n".to_vec()).unwrap();
    drop(tx);
    let input = io::BufReader::new(ChannelInput {
        rx,
        buf: Vec::new(),
        pos: 0,
    });
    serve(
        input,
        Box::new(out.clone()),
        Options::default(),
        Box::new(engine),
        Networks::default(),
    )
    .unwrap();
    assert!(!stopped.load(Ordering::Relaxed));
    assert_eq!(
        String::from_utf8(out.0.lock().unwrap().clone()).unwrap(),
        "= \n\n= A3\n\n"
    );
}

/// `avoid`/`allow` restrict what the engine searches, not only what is
/// printed: a random engine that honours them streams and plays nothing
/// else (without the restriction it would wander over the whole board).
#[test]
fn avoid_and_allow_restrict_the_search_and_the_move_played() {
    let live = Live::with_engine(Box::new(RandomEngine::new(7)), Arc::default());
    live.send("boardsize 5\n");
    live.wait_for("= \n\n");
    live.send("lz-analyze b 1 avoid w c3 1 allow b c3,pass 1\n");
    std::thread::sleep(Duration::from_millis(150));
    live.send("\n");
    live.wait_for("\n\n");
    let streamed = live.text();
    let infos: Vec<&str> = streamed.lines().filter(|l| l.starts_with("info")).collect();
    assert!(infos.len() >= 3, "{streamed:?}");
    assert!(
        infos.iter().all(|l| l.starts_with("info move C3 ")),
        "{infos:?}"
    );
    // White's own moves are not limited by Black's list.
    for (i, (command, played)) in [
        ("kata-genmove_analyze b 0 allow b d4 1", "D4"),
        ("play w b2", ""),
        ("kata-genmove_analyze b 0 avoid b a1,a2,a3,a4,a5,b1,b3,b4,b5,c1,c2,c4,c5,d1,d2,d3,d5,e1,e2,e3,e4,e5 1", "C3"),
        ("lz-genmove_analyze w 0 allow w e5 1 allow b a1 1", "E5"),
    ]
    .into_iter()
    .enumerate()
    {
        live.send(&format!("{i} {command}\n"));
        let end = if played.is_empty() {
            format!("={i} \n\n")
        } else {
            format!("play {played}\n\n")
        };
        live.wait_for(&end);
    }
}

/// One `genmove`'s options as [`RecordingEngine`] saw them: may resign,
/// playouts, time, and the symmetries of its root choices.
type SeenOptions = (bool, Option<u64>, Option<Duration>, usize);

/// A [`RandomEngine`] that records what the session asks of it: the options
/// of each `genmove` and the number of `dead_stones` calls; its searches end
/// at `winrate` when that is set, and with `resign` it resigns whenever it
/// may.
#[derive(Default)]
struct RecordingEngine {
    inner: Option<RandomEngine>,
    winrate: Option<f64>,
    resign: bool,
    seen: Arc<Mutex<Vec<SeenOptions>>>,
    dead_stone_calls: Arc<std::sync::atomic::AtomicUsize>,
}

impl RecordingEngine {
    fn inner(&mut self) -> &mut RandomEngine {
        self.inner.get_or_insert_with(|| RandomEngine::new(1))
    }
}

impl Engine for RecordingEngine {
    fn genmove(
        &mut self,
        game: &Game,
        color: Color,
        options: &GenmoveOptions,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(&Report),
    ) -> (Decision, Report) {
        let symmetries = options.root.map_or(0, |r| r.symmetries().len());
        self.seen.lock().unwrap().push((
            options.allow_resign,
            options.limits.playouts,
            options.limits.time,
            symmetries,
        ));
        if self.resign && options.allow_resign {
            return (Decision::Resign, Report::default());
        }
        let (decision, report) = self.inner().genmove(game, color, options, stop, progress);
        let winrate = self.winrate.unwrap_or(report.winrate);
        (decision, Report { winrate, ..report })
    }

    fn analyze(
        &mut self,
        game: &Game,
        color: Color,
        excluded: &[crate::go::board::Point],
        interval: Duration,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(&Report),
    ) {
        self.inner()
            .analyze(game, color, excluded, interval, stop, progress);
    }

    fn dead_stones(&mut self, game: &Game) -> Vec<crate::go::board::Point> {
        self.dead_stone_calls.fetch_add(1, Ordering::Relaxed);
        self.inner().dead_stones(game)
    }
}

/// `final_status_list` checks its argument before the costly dead stones,
/// and `seki` needs none.
#[test]
fn final_status_list_computes_dead_stones_only_for_dead_and_alive() {
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let engine = RecordingEngine {
        dead_stone_calls: calls.clone(),
        ..RecordingEngine::default()
    };
    let out = Shared::default();
    let input = "boardsize 5\nplay b c3\nfinal_status_list living\nfinal_status_list\n\
                 final_status_list seki\nfinal_status_list dead\nfinal_status_list ALIVE\n";
    serve(
        io::Cursor::new(input.as_bytes().to_vec()),
        Box::new(out.clone()),
        Options::default(),
        Box::new(engine),
        Networks::default(),
    )
    .unwrap();
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    assert_eq!(
        text,
        "= \n\n= \n\n? syntax error\n\n? syntax error\n\n= \n\n= \n\n= C3\n\n"
    );
    assert_eq!(calls.load(Ordering::Relaxed), 2, "only `dead` and `ALIVE`");
}

/// GoGui keeps one label per point: the win-rate labels stay off the
/// variation's numbered stones, and the status bar text has every rate.
#[test]
fn best_moves_labels_leave_the_variation_numbers_readable() {
    use crate::engine::MoveInfo;
    let size = 9;
    let geometry = Geometry::new(size).unwrap();
    let at = |v: &str| vertex::parse_move(v, geometry).unwrap();
    let info = |mv: &str, winrate: f64, visits: u64, pv: &[&str]| MoveInfo {
        mv: at(mv),
        visits,
        winrate,
        prior: 0.1,
        lcb: 0.0,
        score_lead: 0.0,
        score_mean: 0.0,
        score_stdev: 0.0,
        utility: 2.0 * winrate - 1.0,
        pv: pv.iter().map(|v| at(v)).collect(),
        pv_visits: Vec::new(),
    };
    let report = Report {
        moves: vec![
            info("E5", 0.553, 900, &["E5", "C3", "G7", "pass"]),
            // On the variation's third stone: no label there.
            info("G7", 0.5, 60, &["G7"]),
            info("C7", 0.421, 30, &["C7"]),
            info("pass", 0.1, 2, &["pass"]),
        ],
        ..Report::default()
    };
    assert_eq!(
        commands::best_moves_gfx(&report, Color::White, geometry),
        "VAR w E5 b C3 w G7 b pass\n\
         LABEL C7 42\n\
         TEXT White to play: E5 55% (900 visits), G7 50% (60 visits), C7 42% (30 visits), pass 10% (2 visits)"
    );
    assert_eq!(
        commands::best_moves_gfx(&Report::default(), Color::Black, geometry),
        ""
    );
}

/// A session the test drives command by command; its output is read back
/// (and cleared) by [`Driven::run`].
struct Driven {
    session: Session,
    out: Shared,
}

impl Driven {
    fn new() -> Driven {
        Driven::with_engine(Box::new(RandomEngine::new(1)))
    }

    fn with_engine(engine: Box<dyn Engine>) -> Driven {
        let out = Shared::default();
        let (sender, events) = mpsc::channel();
        let session = Session::new(
            Options::default(),
            engine,
            Box::new(out.clone()),
            events,
            sender,
            commands::find,
        );
        Driven { session, out }
    }

    /// The response to `line`.
    fn run(&mut self, line: &str) -> String {
        self.session.execute(&protocol::parse(line));
        let bytes = std::mem::take(&mut *self.out.0.lock().unwrap());
        String::from_utf8(bytes).unwrap()
    }
}

#[test]
fn huge_time_values_are_clamped_and_bad_ones_leave_the_clock_alone() {
    let mut d = Driven::new();
    for settings in [
        "time_settings 1e25 0 0",
        "time_settings 0 1e300 1",
        "kgs-time_settings byoyomi 1e40 1e40 5",
        "kata-time_settings fischer 1e300 1e300",
        "kata-time_settings fischer-capped 1e300 1e300 1e300 1e300",
    ] {
        assert_eq!(d.run(settings), "= \n\n", "{settings}");
        // A year at most, whatever was asked.
        let main = d.session.clock.remaining(Color::Black).time;
        assert!(main <= 366.0 * 86400.0, "{settings}: {main}");
        for _ in 0..2 {
            let reply = d.run("genmove b");
            assert!(reply.starts_with("= "), "{settings}: {reply:?}");
        }
        assert_eq!(d.run("time_left w 1e30 0"), "= \n\n");
        assert!(d.run("genmove w").starts_with("= "), "{settings}");
    }
    let before = d.session.clock;
    for bad in [
        "time_settings 1e999 0 0",
        "time_settings -5 0 0",
        "time_settings 5 nan 1",
        "time_settings 5 inf 1",
        "time_left b nan 0",
        "time_left b inf 0",
        "kgs-time_settings absolute -1",
        "kgs-time_settings byoyomi 10 1e999 3",
        "kata-time_settings fischer 10 -1",
    ] {
        let reply = d.run(bad);
        assert!(
            reply.starts_with("? ") && !reply.contains("internal error"),
            "{bad}: {reply:?}"
        );
        assert_eq!(d.session.clock, before, "{bad} changed the clock");
    }
}

#[test]
fn a_huge_analysis_interval_is_clamped() {
    for command in ["lz-analyze b 1e50", "kata-analyze b interval 1e300"] {
        let t = transcript(command);
        assert!(
            t.starts_with("=\n") && t.ends_with("\n\n"),
            "{command}: {t:?}"
        );
    }
}

/// Under main time, a `genmove` right after one that found the game won
/// thinks for a share of its budget; one after an open game, or for the
/// other colour, for all of it.
#[test]
fn a_search_that_found_the_game_won_saves_time_on_the_next_move() {
    for (winrate, saves) in [(0.99, true), (0.6, false)] {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let mut d = Driven::with_engine(Box::new(RecordingEngine {
            winrate: Some(winrate),
            seen: seen.clone(),
            ..RecordingEngine::default()
        }));
        assert_eq!(d.run("kgs-time_settings absolute 600"), "= \n\n");
        for line in ["genmove b", "play w D4", "genmove b", "genmove w"] {
            assert!(d.run(line).starts_with("= "), "{line}");
        }
        let seconds: Vec<f64> = seen
            .lock()
            .unwrap()
            .iter()
            .map(|o| o.2.expect("a clock sets a limit").as_secs_f64())
            .collect();
        let ratio = seconds[1] / seconds[0];
        if saves {
            assert!((0.35..0.45).contains(&ratio), "{seconds:?}");
        } else {
            assert!(ratio > 0.9, "{seconds:?}");
        }
        // White's first search: nothing known, the whole budget.
        assert!(seconds[2] / seconds[0] > 0.9, "{seconds:?}");
    }
}

/// KataGo's parameter commands change what the next `genmove` is given, all
/// of a `kata-set-params` or none of it, and read back as KataGo writes them.
#[test]
fn kata_params_reach_the_next_genmove() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut d = Driven::with_engine(Box::new(RecordingEngine {
        resign: true,
        seen: seen.clone(),
        ..RecordingEngine::default()
    }));
    let last = || *seen.lock().unwrap().last().unwrap();
    assert_eq!(d.run("boardsize 9"), "= \n\n");
    assert_eq!(d.run("genmove b"), "= resign\n\n");
    // The empty board's eight symmetries; no limit but the session's
    // default time for a move.
    let (may_resign, playouts, time, symmetries) = last();
    assert_eq!((may_resign, playouts, symmetries), (true, None, 8));
    assert!(time.is_some());
    assert_eq!(
        d.run("kata-get-params"),
        "= {\"allowResignation\":\"true\",\"humanSLProfile\":\"\",\"maxPlayouts\":1125899906842624,\
         \"maxTime\":1e+20,\"maxVisits\":1125899906842624,\"ponderingEnabled\":\"false\",\
         \"rootSymmetryPruning\":true}\n\n"
    );
    assert_eq!(
        d.run(r#"kata-set-params {"allowResignation": false, "maxVisits": 50, "maxTime": 1.5, "rootSymmetryPruning": "false"}"#),
        "= \n\n"
    );
    let reply = d.run("genmove b");
    assert!(
        reply.starts_with("= ") && reply != "= resign\n\n",
        "{reply:?}"
    );
    assert_eq!(
        last(),
        (false, Some(50), Some(Duration::from_millis(1500)), 1)
    );
    assert_eq!(d.run("kata-get-param maxTime"), "= 1.5\n\n");
    assert_eq!(d.run("kata-get-param allowResignation"), "= false\n\n");
    // One bad key: nothing changes.
    assert_eq!(
        d.run(r#"kata-set-params {"maxVisits": 7, "bogus": 1}"#),
        "? Could not set params: Unrecognized or non-overridable parameter in kata-set-params: bogus\n\n"
    );
    assert_eq!(d.run("kata-get-param maxVisits"), "= 50\n\n");
    // The two visit limits are kept apart, as KataGo keeps them, and the
    // smaller applies whatever the order (as in the analysis engine).
    assert_eq!(
        d.run("kata-get-param maxPlayouts"),
        "= 1125899906842624\n\n"
    );
    assert_eq!(d.run("kata-set-param maxPlayouts 30"), "= \n\n");
    assert_eq!(d.run("kata-set-param maxVisits 40"), "= \n\n");
    d.run("genmove b");
    assert_eq!(last().1, Some(30));
    assert_eq!(
        d.run("kata-set-param maxPlayouts 1125899906842624"),
        "= \n\n"
    );
    assert_eq!(d.run("kata-set-param maxVisits 50"), "= \n\n");
    assert_eq!(
        d.run("kata-set-param maxVisits many"),
        "? Could not set params: Could not parse 'many' as int64_t for key 'maxVisits'\n\n"
    );
    assert_eq!(
        d.run("kata-set-param humanSLProfile rank_5k"),
        "? Could not set params: this engine has no human-SL network\n\n"
    );
    assert_eq!(
        d.run("kata-get-param nope"),
        "? Invalid parameter: nope\n\n"
    );
    assert_eq!(
        d.run("kata-set-params [1]"),
        "? Could not set params: Argument to kata-set-params must be a json object\n\n"
    );
    assert_eq!(d.run("kata-set-param allowResignation true"), "= \n\n");
    assert_eq!(d.run("kata-set-param maxTime 1e20"), "= \n\n");
    assert_eq!(d.run("genmove w"), "= resign\n\n");
    // With visits set, no time but the one asked.
    assert_eq!(last(), (true, Some(50), None, 1));
    assert!(d.run("kata-list-params").contains(" rootSymmetryPruning"));
}

/// KataGo's cancellable searches: a line during the search cancels it (the
/// answer `cancelled`, or `play cancelled` after the `info` lines) and is
/// handled next; the board is unchanged.
#[test]
fn a_line_cancels_katagos_cancellable_searches() {
    let live = Live::start(Duration::from_secs(60));
    live.send("boardsize 9\n");
    live.wait_for("= \n\n");
    live.send("1 kata-search_cancellable b\n");
    std::thread::sleep(Duration::from_millis(50));
    assert!(!live.text().contains("=1"), "still searching");
    live.send("2 name\n");
    assert!(live.wait_for("=2 tengen\n\n") < Duration::from_secs(10));
    assert!(live.stopped.load(Ordering::Relaxed));
    assert_eq!(live.text(), "= \n\n=1 cancelled\n\n=2 tengen\n\n");
    live.send("3 kata-search_analyze_cancellable b 1\n");
    std::thread::sleep(Duration::from_millis(50));
    live.send("4 play b a9\n");
    live.wait_for("=4 \n\n");
    let t = live.text();
    let response = &t[t.find("=3\n").expect("stream header")..];
    assert!(response.contains("\ninfo move A9 visits 1"), "{t}");
    assert!(response.ends_with("play cancelled\n\n=4 \n\n"), "{t}");
}

/// A cancellable search that ends before any line answers its move, and
/// `kata-search_analyze` answers `play MOVE` without playing it.
#[test]
fn katagos_searches_answer_without_playing() {
    let live = Live::start(Duration::from_millis(100));
    live.send("boardsize 9\n");
    live.wait_for("= \n\n");
    live.send("1 kata-search_cancellable b\n");
    live.wait_for("=1 A9\n\n");
    assert!(!live.stopped.load(Ordering::Relaxed), "ran to its end");
    live.send("2 kata-search_analyze b 1\n");
    live.wait_for("play A9\n\n");
    live.send("3 play b a9\n");
    live.wait_for("=3 \n\n");
}

/// `set_position`: a new game with these stones and Black to move, on the
/// same size, rules and komi; every refusal leaves the game as it was.
#[test]
fn set_position_sets_up_stones_as_katago_does() {
    let mut d = Driven::new();
    assert_eq!(d.run("boardsize 5"), "= \n\n");
    assert_eq!(d.run("komi 0.5"), "= \n\n");
    assert_eq!(d.run("play w c3"), "= \n\n");
    assert_eq!(d.run("set_position b a1 W b1 black e5"), "= \n\n");
    let stone = |d: &Driven, v: &str| {
        let board = d.session.game.board();
        match vertex::parse_move(v, board.geometry()) {
            Ok(Move::Play(p)) => board.at(p),
            _ => panic!("{v}"),
        }
    };
    assert_eq!(
        ["a1", "b1", "e5", "c3"].map(|v| stone(&d, v)),
        [Stone::Black, Stone::White, Stone::Black, Stone::Empty]
    );
    assert_eq!(d.session.game.to_move(), Color::Black);
    assert_eq!(d.session.game.komi(), 0.5);
    assert_eq!(d.run("undo"), "? cannot undo\n\n", "the setup is the start");
    for (bad, why) in [
        ("set_position b a1 w", "expected COLOR VERTEX pairs"),
        ("set_position red a1", "expected COLOR VERTEX pairs"),
        ("set_position b z9", "expected COLOR VERTEX pairs"),
        ("set_position b pass", "expected COLOR VERTEX pairs"),
        ("set_position b a1 w a1", "illegal stone placements"),
        ("set_position b a1 w a2 w b1", "illegal stone placements"),
    ] {
        assert_eq!(d.run(bad), format!("? {why}\n\n"), "{bad}");
        assert_eq!(stone(&d, "b1"), Stone::White, "{bad} left the game");
    }
    assert_eq!(d.run("set_position"), "= \n\n");
    assert_eq!(d.session.game.board().num_empty(), 25);
}

/// `kata-set-rule KEY VALUE` changes one field and keeps the others;
/// refusals say why and change nothing.
#[test]
fn kata_set_rule_changes_one_field() {
    let mut d = Driven::new();
    assert_eq!(d.run("kata-set-rules chinese-kgs"), "= \n\n");
    assert_eq!(d.run("kata-set-rule ko SITUATIONAL"), "= \n\n");
    assert_eq!(d.run("kata-set-rule suicide true"), "= \n\n");
    let rules = d.session.game.rules();
    assert_eq!(rules.ko, crate::go::rules::KoRule::Situational);
    assert!(rules.suicide_allowed);
    assert_eq!(rules.scoring, Scoring::Area, "kept");
    for bad in [
        "kata-set-rule colour red",
        "kata-set-rule ko SOMETIMES",
        "kata-set-rule hasButton true",
        "kata-set-rule ko",
    ] {
        assert!(d.run(bad).starts_with("? "), "{bad}");
        assert_eq!(d.session.game.rules(), rules, "{bad}");
    }
}

/// `kata-get-models` lists no net without one (the nets' own entries are
/// tested with a real net in `tests/gtp_network.rs`).
#[test]
fn kata_get_models_without_a_net_is_an_empty_list() {
    assert_eq!(Driven::new().run("kata-get-models"), "= []\n\n");
}

/// A line longer than [`MAX_LINE_BYTES`] gets an error answer under its id
/// and is never held whole; the session goes on.
#[test]
fn an_overlong_line_gets_an_error_and_the_session_goes_on() {
    let mut input = String::from("name\n7 ");
    input.push_str(&"x".repeat(MAX_LINE_BYTES + 10));
    input.push_str("\n8 name\n");
    let t = transcript(&input);
    assert_eq!(
        t,
        format!("= tengen\n\n?7 line longer than {MAX_LINE_BYTES} bytes\n\n=8 tengen\n\n")
    );
}

/// An engine whose `genmove` panics (a bug), recording what the session
/// asks of it.
struct PanickingEngine(Arc<Mutex<Vec<&'static str>>>);

impl Engine for PanickingEngine {
    fn genmove(
        &mut self,
        _: &Game,
        _: Color,
        _: &GenmoveOptions,
        _: &AtomicBool,
        _: &mut dyn FnMut(&Report),
    ) -> (Decision, Report) {
        self.0.lock().unwrap().push("genmove");
        panic!("a bug in the search");
    }

    fn analyze(
        &mut self,
        _: &Game,
        _: Color,
        _: &[crate::go::board::Point],
        _: Duration,
        _: &AtomicBool,
        _: &mut dyn FnMut(&Report),
    ) {
    }

    fn dead_stones(&mut self, _: &Game) -> Vec<crate::go::board::Point> {
        Vec::new()
    }

    fn clear(&mut self) {
        self.0.lock().unwrap().push("clear");
    }
}

/// A panic inside a command is answered `? internal error`, and what the
/// search kept is forgotten before the next command.
#[test]
fn a_caught_panic_clears_the_search_state() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let out = Shared::default();
    serve(
        io::Cursor::new(b"boardsize 5\n1 genmove b\n2 name\n".to_vec()),
        Box::new(out.clone()),
        Options::default(),
        Box::new(PanickingEngine(calls.clone())),
        Networks::default(),
    )
    .unwrap();
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    assert_eq!(text, "= \n\n?1 internal error\n\n=2 tengen\n\n");
    let calls = calls.lock().unwrap().clone();
    assert_eq!(calls.last(), Some(&"clear"), "{calls:?}");
    assert_eq!(calls.iter().filter(|&&c| c == "genmove").count(), 1);
}
