//! One GTP conversation: the session that owns the [`Game`], the clock and
//! an [`Engine`], reads commands on its own stdin thread and writes
//! responses, and the entry type of the command table its handlers fill.
//!
//! Threads: a reader thread turns every input line into an `Event`; the
//! session handles commands one at a time in order. Thinking (`genmove` and its
//! variants, analysis) runs on a worker thread while the session keeps
//! watching the input:
//! - an analysis (`lz-analyze`, `kata-analyze`) stops at **any** input line,
//!   ends its response with the blank line, and the line is then handled;
//! - a `genmove` stops early only at a comment line (GoGui's `# interrupt`,
//!   which gets no response) and answers with the best move so far; other
//!   lines that arrive meanwhile wait their turn (Sabaki and gtp2ogs pipeline).
//!
//! Responses go to the output only from here (`=`/`?` framing in
//! [`super::protocol`]); diagnostics go to stderr, never to stdout.

use super::analysis::{self, AnalyzeArgs, Flavor};
use super::options::{Networks, Options};
use super::protocol::{self, Command, GtpError};
use crate::engine::root_choices::RootChoices;
use crate::engine::{Decision, Engine, GenmoveOptions, Report};
use crate::go::board::{Color, Geometry, Move, Point};
use crate::go::game::Game;
use crate::go::vertex;
use crate::input_line::{read_bounded, LineRead};
use crate::katago::limits::SearchLimits;
use crate::nn::metadata::SgfMetadata;
use crate::nn::Evaluator;
use crate::time::{self, Clock};
use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A command's handler.
pub type Handler = fn(&mut Session, &Command) -> Result<Reply, GtpError>;

/// One command of the table.
pub struct Entry {
    pub name: &'static str,
    pub handler: Handler,
}

/// Finds a command's entry by its name; the flag says whether the session
/// runs a net (whose own commands exist only then).
pub type Lookup = fn(&str, bool) -> Option<&'static Entry>;

/// The longest command line read; a longer one is answered with an error
/// (with its id, if it starts with one) and the session goes on.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// What the reader thread and the workers tell the session.
pub(super) enum Event {
    /// One input line, control characters other than HT/LF already dropped,
    /// and when it arrived.
    Line(String, Instant),
    /// A line longer than [`MAX_LINE_BYTES`]: its start, cleaned up as a
    /// line is, and when it arrived.
    TooLong(String, Instant),
    /// End of input.
    Eof,
    /// The worker thread has finished.
    WorkerDone,
}

/// What a handler did.
pub enum Reply {
    /// Success with this result text (may be empty or span lines).
    Text(String),
    /// The handler has written its whole response itself (streamed commands).
    Written,
}

/// Which input lines stop a running worker.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum StopOn {
    /// Every line; the worker is finished only once one has come (analysis).
    AnyLine,
    /// Every line, or the worker's own end (KataGo's cancellable searches).
    AnyLineOrDone,
    /// Only comment lines such as `# interrupt` (genmove).
    CommentLine,
}

/// What a move generation does with the move it finds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum MoveUse {
    /// Plays it (`genmove`).
    Play,
    /// Plays it, never passing while dead stones remain and never resigning
    /// (`kgs-genmove_cleanup`).
    Cleanup,
    /// Only answers it (`reg_genmove`, `kata-search`).
    Answer,
    /// Only answers it, unless an input line comes first, which cancels the
    /// search (`kata-search_cancellable`).
    AnswerUnlessCancelled,
}

/// The state of one GTP conversation.
pub struct Session {
    /// Finds a command's entry by name (with or without a net's commands).
    pub(super) commands: Lookup,
    pub(super) game: Game,
    pub(super) engine: Box<dyn Engine>,
    pub(super) clock: Clock,
    pub(super) options: Options,
    pub(super) out: Mutex<Box<dyn Write + Send>>,
    pub(super) events: Receiver<Event>,
    pub(super) sender: Sender<Event>,
    /// Lines that arrived while a worker ran and were not for it.
    pub(super) pending: VecDeque<Event>,
    pub(super) quit: bool,
    /// Handicap stones of the current game, for `printsgf`'s `HA`.
    pub(super) handicap: u32,
    /// Set when a `genmove` played a move: with `--ponder`, think until the
    /// next line.
    pub(super) ponder_next: bool,
    /// The network loaded with `--model`, if any: its commands exist only then.
    pub(super) network: Option<Evaluator>,
    /// The human-SL network of `--human-model`, if any.
    pub(super) human_network: Option<Evaluator>,
    /// `kata-get-models`'s answer: the nets above as KataGo lists them.
    pub(super) models: String,
    /// When the command being handled arrived: a `genmove`'s time counts
    /// from there, as the controller's clock does.
    pub(super) received: Instant,
    /// The visit and time limits: the command line's `--visits`/`--time`,
    /// then `kata-set-param`'s, each kept as given (the most a `genmove` may
    /// use: the clock may shorten it).
    pub(super) search_limits: SearchLimits,
    /// The win rate of the last move `genmove` played: its colour, the move's
    /// number and the win rate the search gave it. The next `genmove` of that
    /// colour, one move later, shares its time by it (see [`time::limits`]).
    pub(super) last_winrate: Option<(Color, u32, f64)>,
}

/// Runs a session over `input` and `output` with the command table that
/// `commands` looks up.
///
/// # Errors
/// Only if the reader thread cannot be started.
pub(super) fn serve_with<R>(
    input: R,
    output: Box<dyn Write + Send>,
    options: Options,
    engine: Box<dyn Engine>,
    networks: Networks,
    commands: Lookup,
) -> io::Result<()>
where
    R: BufRead + Send + 'static,
{
    let (sender, events) = mpsc::channel();
    let reader = sender.clone();
    std::thread::Builder::new()
        .name("gtp-stdin".into())
        .spawn(move || read_lines(input, reader))?;
    let mut engine = engine;
    engine
        .set_level(options.level)
        .map_err(|e| io::Error::other(format!("--level {}: {e}", options.level)))?;
    let mut session = Session::new(options, engine, output, events, sender, commands);
    let profile = SgfMetadata::profile(&session.options.human_profile).unwrap_or_else(|e| {
        crate::log_line!("tengen: {e}");
        None
    });
    let evaluator = |net| {
        let mut evaluator = Evaluator::new(net);
        evaluator.set_metadata(profile);
        // kata-raw-nn answers as KataGo's GTP engine, whose net buffer is the
        // board's own size: no transpose on a rectangle.
        evaluator.set_buffer(crate::nn::NetBuffer::BoardSized);
        evaluator
    };
    session.models = serde_json::Value::Array(crate::katago::values::model_list([
        (networks.main_name, networks.main.as_deref()),
        (networks.human_name, networks.human.as_deref()),
    ]))
    .to_string();
    session.network = networks.main.map(evaluator);
    session.human_network = networks.human.map(evaluator);
    session.main_loop();
    Ok(())
}

/// The reader thread: every line becomes an event, then the end of input.
fn read_lines<R: BufRead>(mut input: R, sender: Sender<Event>) {
    let mut buf = Vec::new();
    loop {
        let event = match read_bounded(&mut input, &mut buf, MAX_LINE_BYTES) {
            Ok(LineRead::End) | Err(_) => {
                let _ = sender.send(Event::Eof);
                return;
            }
            Ok(LineRead::Line) => Event::Line(protocol::strip_controls(&buf), Instant::now()),
            Ok(LineRead::TooLong) => Event::TooLong(protocol::strip_controls(&buf), Instant::now()),
        };
        if sender.send(event).is_err() {
            return;
        }
    }
}

/// Sends `WorkerDone` when the worker ends, even by a panic.
struct DoneGuard(Sender<Event>);

impl Drop for DoneGuard {
    fn drop(&mut self) {
        let _ = self.0.send(Event::WorkerDone);
    }
}

impl Session {
    pub(super) fn new(
        options: Options,
        engine: Box<dyn Engine>,
        output: Box<dyn Write + Send>,
        events: Receiver<Event>,
        sender: Sender<Event>,
        commands: Lookup,
    ) -> Session {
        let geometry =
            Geometry::new(options.size).unwrap_or_else(|| Geometry::new(19).expect("19x19"));
        Session {
            commands,
            game: Game::new(geometry, options.rules, options.komi),
            search_limits: SearchLimits::from_limits(options.limits),
            engine,
            clock: Clock::default(),
            options,
            out: Mutex::new(output),
            events,
            sender,
            pending: VecDeque::new(),
            quit: false,
            handicap: 0,
            ponder_next: false,
            last_winrate: None,
            network: None,
            human_network: None,
            models: "[]".to_string(),
            received: Instant::now(),
        }
    }

    pub(super) fn next_event(&mut self) -> Event {
        if let Some(e) = self.pending.pop_front() {
            return e;
        }
        self.events.recv().unwrap_or(Event::Eof)
    }

    pub(super) fn main_loop(&mut self) {
        while !self.quit {
            match self.next_event() {
                Event::Eof => break,
                Event::WorkerDone => {}
                Event::Line(raw, received) => {
                    self.received = received;
                    let line = protocol::clean(&raw);
                    if !line.is_empty() {
                        self.execute(&protocol::parse(&line));
                    }
                }
                Event::TooLong(start, _) => {
                    let id = protocol::parse(&protocol::clean(&start)).id;
                    self.log(&format!(
                        "ignored an input line longer than {MAX_LINE_BYTES} bytes"
                    ));
                    self.write(&protocol::failure(
                        id.as_deref(),
                        &format!("line longer than {MAX_LINE_BYTES} bytes"),
                    ));
                }
            }
            if std::mem::take(&mut self.ponder_next) && self.options.ponder && !self.quit {
                self.ponder();
            }
        }
    }

    /// Searches the current position for the player to move (the opponent)
    /// without output until any input line arrives; the line is then handled
    /// as usual. What the search learns stays in its table for our next move.
    pub(super) fn ponder(&mut self) {
        self.think(StopOn::AnyLine, |engine, game, stop, _out| {
            engine.analyze(
                game,
                game.to_move(),
                &[],
                Duration::from_secs(3600),
                stop,
                &mut |_| {},
            );
        });
    }

    /// Handles one command and writes its response.
    pub(super) fn execute(&mut self, cmd: &Command) {
        let id = cmd.id.as_deref();
        let Some(entry) = (self.commands)(&cmd.name, self.network.is_some()) else {
            self.write(&protocol::failure(id, "unknown command"));
            return;
        };
        let result = panic::catch_unwind(AssertUnwindSafe(|| (entry.handler)(self, cmd)));
        match result {
            Ok(Ok(Reply::Text(text))) => self.write(&protocol::success(id, &text)),
            Ok(Ok(Reply::Written)) => {}
            Ok(Err(e)) => self.write(&protocol::failure(id, &e.0)),
            Err(_) => {
                // A bug, not bad input: what the search kept may be half
                // updated, so it is forgotten (the game itself stays).
                self.engine.clear();
                self.ponder_next = false;
                crate::log_line!(
                    "tengen: internal error in '{}'; the search state was cleared",
                    cmd.name
                );
                self.write(&protocol::failure(id, "internal error"));
            }
        }
    }

    /// Writes response text and flushes. A closed output ends the session.
    pub(super) fn write(&self, text: &str) {
        let mut out = crate::sync::lock(&self.out);
        if out
            .write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            drop(out);
            std::process::exit(0);
        }
    }

    /// A diagnostic on stderr (unless `--quiet`).
    pub(super) fn log(&self, message: &str) {
        if !self.options.quiet {
            crate::log_line!("tengen: {message}");
        }
    }

    /// Runs `work` on a worker thread, watching the input meanwhile: lines
    /// selected by `stop_on` set the stop flag, the others are kept for later.
    /// With [`StopOn::AnyLine`] the worker is only finished once a line (or
    /// the end of input) has arrived, even if `work` returns earlier.
    pub(super) fn think<T: Send>(
        &mut self,
        stop_on: StopOn,
        work: impl FnOnce(&mut dyn Engine, &Game, &AtomicBool, &Mutex<Box<dyn Write + Send>>) -> T
            + Send,
    ) -> T {
        let Session {
            game,
            engine,
            out,
            events,
            sender,
            pending,
            ..
        } = self;
        // A line already waiting stops an analysis (or a cancellable search) at
        // once: it came after the command that started it.
        let stop = AtomicBool::new(stop_on != StopOn::CommentLine && !pending.is_empty());
        let (game, out, stop_ref) = (&*game, &*out, &stop);
        let engine: &mut dyn Engine = engine.as_mut();
        std::thread::scope(|scope| {
            let guard = DoneGuard(sender.clone());
            let handle = scope.spawn(move || {
                let _guard = guard;
                work(engine, game, stop_ref, out)
            });
            let mut done = false;
            while !done || (stop_on == StopOn::AnyLine && !stop.load(Ordering::Relaxed)) {
                match events.recv().unwrap_or(Event::Eof) {
                    Event::WorkerDone => done = true,
                    Event::Line(raw, received) => match stop_on {
                        StopOn::AnyLine | StopOn::AnyLineOrDone => {
                            stop.store(true, Ordering::Relaxed);
                            pending.push_back(Event::Line(raw, received));
                        }
                        StopOn::CommentLine if protocol::is_comment(&raw) => {
                            stop.store(true, Ordering::Relaxed);
                        }
                        StopOn::CommentLine => pending.push_back(Event::Line(raw, received)),
                    },
                    Event::TooLong(start, received) => {
                        if stop_on != StopOn::CommentLine {
                            stop.store(true, Ordering::Relaxed);
                        }
                        pending.push_back(Event::TooLong(start, received));
                    }
                    Event::Eof => {
                        // The end of input ends an analysis or a cancellable
                        // search; a genmove still
                        // gets its full time (`echo genmove b | tengen`).
                        if stop_on != StopOn::CommentLine {
                            stop.store(true, Ordering::Relaxed);
                        }
                        pending.push_back(Event::Eof);
                    }
                }
            }
            match handle.join() {
                Ok(v) => v,
                Err(p) => panic::resume_unwind(p),
            }
        })
    }

    /// `genmove` and its variants: asks the engine for a move for `color`
    /// within the clock's budget, makes sure it is legal, and does with it what
    /// `use_` says. With `analysis`, streams `info` lines to the output while
    /// thinking (the caller wrote the header). `None` only for a
    /// [`MoveUse::AnswerUnlessCancelled`] search that an input line stopped.
    pub(super) fn generate(
        &mut self,
        color: Color,
        use_: MoveUse,
        analysis: Option<(Flavor, &AnalyzeArgs)>,
    ) -> Option<Decision> {
        let cleanup = use_ == MoveUse::Cleanup;
        let play = matches!(use_, MoveUse::Play | MoveUse::Cleanup);
        let cancellable = use_ == MoveUse::AnswerUnlessCancelled;
        let previous_winrate = self
            .last_winrate
            .filter(|&(c, number, _)| c == color && number + 1 == self.game.move_number())
            .map(|(_, _, w)| w);
        let avoided = analysis.map_or_else(Vec::new, |(_, args)| {
            args.excluded(color, self.game.board().geometry())
        });
        let choices = self.root_choices(color, avoided);
        let options = GenmoveOptions {
            limits: time::limits(
                self.search_limits.limits(),
                &self.clock,
                color,
                self.game.board(),
                previous_winrate,
            ),
            cleanup,
            allow_resign: play && !cleanup && self.options.allow_resignation,
            use_all_time: self.clock.use_or_lose(color),
            root: Some(&choices),
        };
        let started = self.received;
        let stop_on = if cancellable {
            StopOn::AnyLineOrDone
        } else {
            StopOn::CommentLine
        };
        let (decision, summary) = self.think(stop_on, |engine, game, stop, out| {
            // The visits of the last `info` line written, so that the final
            // state is written once, after the search, whatever the interval.
            let mut written: Option<u64> = None;
            let mut last: Option<Instant> = None;
            let mut progress = |report: &Report| {
                let Some((flavor, args)) = analysis else {
                    return;
                };
                let Some(interval) = args.interval else {
                    return;
                };
                if last.is_some_and(|t| t.elapsed() < interval) {
                    return;
                }
                last = Some(Instant::now());
                if let Some(line) = analysis::info_line(report, color, args, flavor, game, &choices)
                {
                    write_line(out, &line);
                    written = Some(report.visits);
                }
            };
            let (decision, report) = engine.genmove(game, color, &options, stop, &mut progress);
            if let Some((flavor, args)) = analysis {
                if written != Some(report.visits) {
                    if let Some(line) =
                        analysis::info_line(&report, color, args, flavor, game, &choices)
                    {
                        write_line(out, &line);
                    }
                }
            }
            // A cancellable search stops early only for an input line.
            let decision = if cancellable && stop.load(Ordering::Relaxed) {
                None
            } else {
                Some(decision)
            };
            (decision, (report.visits, report.winrate, report.score_lead))
        });
        let elapsed = started.elapsed();
        let (visits, winrate, lead) = summary;
        let Some(decision) = decision else {
            self.log(&format!(
                "{} search cancelled after {visits} visits in {:.2} s",
                color.letter(),
                elapsed.as_secs_f64()
            ));
            return None;
        };
        let chosen = match decision {
            Decision::Play(mv) => vertex::format_move(mv, self.game.board().geometry()),
            Decision::Resign => "resign".to_string(),
        };
        self.log(&format!(
            "{} {chosen} after {visits} visits in {:.2} s ({:.0}/s), win rate {:.1}%, lead {:+.1}",
            color.letter(),
            elapsed.as_secs_f64(),
            visits as f64 / elapsed.as_secs_f64().max(1e-3),
            100.0 * winrate,
            lead
        ));
        if play {
            self.clock.spend(color, elapsed);
        }
        if let Some(budget) = options.limits.time {
            self.clock.observe_overrun(budget, elapsed);
        }
        let decision = self.checked(color, decision, options.allow_resign);
        if let (true, Decision::Play(mv)) = (play, decision) {
            self.game.play(color, mv).expect("checked move is legal");
            self.ponder_next = true;
            self.last_winrate = Some((color, self.game.move_number(), winrate));
        }
        Some(decision)
    }

    /// Starts `game` as a new game: the clocks full, the engine's search
    /// forgotten, `handicap` stones for `printsgf`'s `HA`.
    pub(super) fn start_game(&mut self, game: Game, handicap: u32) {
        self.game = game;
        self.clock = self.clock.with_system(self.clock.system());
        self.engine.clear();
        self.handicap = handicap;
    }

    /// What a search for `color` may begin with: all but `avoided`, and with
    /// root symmetry pruning on, one move of each symmetric set.
    pub(super) fn root_choices(&self, color: Color, avoided: Vec<Point>) -> RootChoices {
        let pruning = self.options.root_symmetry_pruning;
        RootChoices::for_search(&self.game, color, avoided, pruning)
    }

    /// The engine's decision if it is allowed; otherwise (an engine bug) a legal
    /// fallback move, with a note on stderr. `genmove` never answers an
    /// illegal move.
    pub(super) fn checked(&self, color: Color, decision: Decision, allow_resign: bool) -> Decision {
        match decision {
            Decision::Resign if allow_resign => return decision,
            Decision::Play(mv) => match self.game.check(color, mv) {
                Ok(()) => return decision,
                Err(why) => self.log(&format!("engine chose an illegal move ({why}); replaced")),
            },
            Decision::Resign => self.log("engine resigned where it may not; replaced"),
        }
        let board = self.game.board();
        let fallback = self
            .game
            .legal_points(color)
            .into_iter()
            .find(|&p| !board.is_true_eye(p, color))
            .map_or(Move::Pass, Move::Play);
        Decision::Play(fallback)
    }

    /// Streams an analysis for `color` until the next input line, then ends the
    /// response with the blank line. The caller wrote the header.
    pub(super) fn analyze_stream(&mut self, color: Color, flavor: Flavor, args: &AnalyzeArgs) {
        let interval = args.interval.unwrap_or(analysis::DEFAULT_INTERVAL);
        let avoided = args.excluded(color, self.game.board().geometry());
        let choices = self.root_choices(color, avoided);
        let excluded = choices.excluded();
        self.think(StopOn::AnyLine, |engine, game, stop, out| {
            let mut last: Option<Instant> = None;
            let mut progress = |report: &Report| {
                if args.interval.is_none() || last.is_some_and(|t| t.elapsed() < interval) {
                    return;
                }
                last = Some(Instant::now());
                if let Some(line) = analysis::info_line(report, color, args, flavor, game, &choices)
                {
                    write_line(out, &line);
                }
            };
            engine.analyze(game, color, &excluded, interval, stop, &mut progress);
        });
        self.write("\n");
    }

    /// Thinks for `color` for `duration` (or until `# interrupt`) and returns
    /// the last report (GoGui's analyze commands, which do not stream).
    pub(super) fn analyze_for(&mut self, color: Color, duration: Duration) -> Report {
        self.think(StopOn::CommentLine, |engine, game, stop, _out| {
            let mut last = Report::default();
            let started = Instant::now();
            let mut progress = |report: &Report| last = report.clone();
            // The engine is stopped when the time is up by a timer thread
            // sharing the flag.
            let done = AtomicBool::new(false);
            std::thread::scope(|s| {
                s.spawn(|| {
                    while started.elapsed() < duration && !done.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    stop.store(true, Ordering::Relaxed);
                });
                let step =
                    (duration / 4).clamp(Duration::from_millis(10), Duration::from_millis(250));
                engine.analyze(game, color, &[], step, stop, &mut progress);
                done.store(true, Ordering::Relaxed);
            });
            last
        })
    }
}

/// Writes one streamed line and flushes.
fn write_line(out: &Mutex<Box<dyn Write + Send>>, line: &str) {
    let mut out = crate::sync::lock(out);
    let _ = out.write_all(line.as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}
