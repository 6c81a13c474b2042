//! `tengen analysis`: KataGo's JSON analysis engine (`katago analysis`), so
//! that KaTrain, katagoanal and other review tools run on tengen. One JSON
//! object per line in, one per line out; the protocol is KataGo's
//! `docs/Analysis_Engine.md`, facts in shared/docs/katago-modern.md §3.
//!
//! Rooms: [`katago_config`] (KataGo's `.cfg` text), [`settings`] (what its
//! keys mean here), [`query`] (a line read and checked, the position
//! replayed), [`response`] (a search report into KataGo's response object).
//! This front end sits beside `gtp/` over the same search ([`MctsEngine`]);
//! neither imports the other.
//!
//! Threads: the main thread reads stdin, answers actions and errors at once
//! and queues each turn to analyse; `numAnalysisThreads` workers (at most
//! one per core) each take the pending turn of highest `priority` (the
//! earliest among equals) and search it with their own [`MctsEngine`] of
//! `numSearchThreads` threads, all over one loaded net and one shared
//! evaluation cache. Every turn ends with exactly one final response
//! (`isDuringSearch` false): its analysis, or `noResults` when a
//! `terminate` came before its search began. Lines go out whole, flushed
//! one by one, from any thread; stdout carries nothing else.
//!
//! Input is read only once the net is loaded: queries sent earlier wait in
//! the pipe. At the end of input the queued turns are still analysed (with
//! `-quit-without-waiting`, not), then the program ends.

pub mod katago_config;
pub mod query;
pub mod response;
pub mod settings;

use crate::engine::root_choices::RootChoices;
use crate::engine::{Engine, Limits, Report};
use crate::go::board::{Color, Move};
use crate::input_line::{read_bounded, LineRead};
use crate::nn::{Evaluator, NetEval, Network, PrecisionChoice, KATAGO_GTP_POLICY_OPTIMISM};
use crate::search::net_cache::NetCache;
use crate::search::{MctsEngine, QueryOptions, SearchConfig, MAX_THREADS};
use crate::sync::lock;
use katago_config::KataGoConfig;
use query::{Context, Query, Request};
use serde_json::Value;
use settings::{EngineSettings, MAX_ANALYSIS_THREADS};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::io::{BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// The longest input line read; a longer one is answered with an error and
/// skipped.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// What stderr says once the engine takes requests (katagoanal waits for it).
pub const READY: &str = "Started, ready to begin handling requests";

/// The search table of each analysis thread, in MB, before dividing among
/// threads (at least [`MIN_TABLE_MB`] each).
const TABLE_MB: usize = 256;
const MIN_TABLE_MB: usize = 32;

/// The command line of `tengen analysis`, KataGo's flags.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    pub model: PathBuf,
    pub human_model: Option<PathBuf>,
    pub configs: Vec<PathBuf>,
    pub overrides: Vec<String>,
    pub quit_without_waiting: bool,
    /// `-analysis-threads N`, instead of the config's `numAnalysisThreads`.
    pub analysis_threads: Option<usize>,
}

/// How to call `tengen analysis`.
pub const USAGE: &str = "usage: tengen analysis -model NET.bin.gz -config FILE.cfg \
[-override-config k=v,k=v] [-human-model HUMAN.bin.gz] [-analysis-threads N] [-quit-without-waiting]
KataGo's JSON analysis engine on stdin/stdout (one JSON object per line). \
Flags take one dash as in KataGo (two work too); -config and -override-config may repeat.";

/// Reads KataGo's command line (`-model X`, `-model=X`, `--model X`).
///
/// # Errors
/// An unknown flag, a missing value or a missing `-model`; `-help` gives [`USAGE`].
pub fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut model = None;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let bare = arg.trim_start_matches('-');
        if bare.len() == arg.len() {
            return Err(format!("unexpected argument '{arg}'\n{USAGE}"));
        }
        let (name, inline) = match bare.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (bare, None),
        };
        i += 1;
        let value = |i: &mut usize| -> Result<String, String> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            let v = args
                .get(*i)
                .cloned()
                .ok_or_else(|| format!("-{name} needs a value\n{USAGE}"))?;
            *i += 1;
            Ok(v)
        };
        match name {
            "model" => model = Some(PathBuf::from(value(&mut i)?)),
            "human-model" => o.human_model = Some(PathBuf::from(value(&mut i)?)),
            "config" => o.configs.push(PathBuf::from(value(&mut i)?)),
            "override-config" => o.overrides.push(value(&mut i)?),
            "analysis-threads" => {
                let v = value(&mut i)?;
                match v.parse::<usize>() {
                    Ok(n) if n >= 1 => o.analysis_threads = Some(n),
                    _ => {
                        return Err(format!(
                            "-analysis-threads must be a whole number, 1 or more, not '{v}'"
                        ))
                    }
                }
            }
            "quit-without-waiting" => o.quit_without_waiting = true,
            "help" | "h" => return Err(USAGE.to_string()),
            _ => return Err(format!("unknown flag '{arg}'\n{USAGE}")),
        }
    }
    o.model = model.ok_or_else(|| format!("-model is required\n{USAGE}"))?;
    Ok(o)
}

/// The config's names as KataGo's messages give them: for the config as
/// started (the path of its last `-config` file, with " and/or command-line
/// and query overrides" after it when `-override-config` was given), and for
/// a query's `overrideSettings` (always with that suffix).
fn config_names(options: &Options) -> (String, String) {
    let path = options
        .configs
        .last()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let overridden = format!("{path} and/or command-line and query overrides");
    if options.overrides.is_empty() {
        (path, overridden)
    } else {
        (overridden.clone(), overridden)
    }
}

/// Loads the config and the nets, says [`READY`] on stderr, then serves
/// stdin until its end.
///
/// # Errors
/// A config or net that cannot be read: the message for stderr.
pub fn run(options: &Options) -> Result<(), String> {
    let settings = engine_settings(options)?;
    let net = load(&options.model, settings.precision)?;
    let human = options
        .human_model
        .as_deref()
        .map(|path| load(path, settings.precision))
        .transpose()?;
    if let Some(h) = &human {
        if !h.needs_metadata() {
            crate::log_line!(
                "tengen analysis: warning: the -human-model net takes no SGF metadata: is it a human-SL net?"
            );
        }
    }
    if net.needs_metadata() && settings.search.human_profile.is_none() {
        crate::log_line!(
            "tengen analysis: this is a human-SL net: queries must give humanSLProfile in overrideSettings"
        );
    }
    let (states, cache) = workers(&settings, &net, human.as_ref())?;
    let shared = Arc::new(Shared {
        out: Output::new(Box::new(std::io::stdout())),
        queue: Mutex::new(Queue::default()),
        wake: Condvar::new(),
        open: Mutex::new(HashMap::new()),
        cache,
        models: crate::katago::values::model_list([
            (options.model.display().to_string(), Some(&*net)),
            (
                options
                    .human_model
                    .as_ref()
                    .map_or_else(String::new, |p| p.display().to_string()),
                human.as_deref(),
            ),
        ]),
    });
    crate::log_line!("{READY}");
    let handles: Vec<_> = states
        .into_iter()
        .map(|mut w| {
            let shared = shared.clone();
            std::thread::spawn(move || w.serve(&shared))
        })
        .collect();
    let cx = Context {
        settings: &settings,
        net_needs_profile: net.needs_metadata(),
    };
    read_requests(&mut std::io::stdin().lock(), &shared, &cx);
    if options.quit_without_waiting {
        shared.out.close();
        shared.shut_down();
        return Ok(());
    }
    shared.close_queue();
    for h in handles {
        let _ = h.join();
    }
    Ok(())
}

/// The engine's settings: the config files, then `-override-config`, then
/// `-analysis-threads`; notes on stderr about what they leave unused.
fn engine_settings(options: &Options) -> Result<EngineSettings, String> {
    let mut config = KataGoConfig::default();
    for path in &options.configs {
        let file = KataGoConfig::load(path)?;
        config.values.extend(file.values);
    }
    for text in &options.overrides {
        config
            .apply_overrides(text)
            .map_err(|e| format!("-override-config: {e}"))?;
    }
    let (started_file, overrides_file) = config_names(options);
    let mut settings =
        EngineSettings::from_config(&config, &started_file).map_err(|e| format!("config: {e}"))?;
    settings.overrides_file = overrides_file;
    if options.analysis_threads.is_some() && config.values.contains_key("numAnalysisThreads") {
        return Err(
            "numAnalysisThreads is in the config: -analysis-threads may not repeat it".into(),
        );
    }
    if let Some(n) = options.analysis_threads {
        settings.analysis_threads = n;
    }
    if !settings.unused.is_empty() {
        crate::log_line!(
            "tengen analysis: warning: config keys tengen does not use (accepted, ignored): {}",
            settings.unused.join(", ")
        );
    }
    if settings.search.limits.limits() == Limits::default() {
        crate::log_line!(
            "tengen analysis: note: the config sets neither maxVisits nor maxTime: \
             a query without maxVisits searches until it is terminated"
        );
    }
    if let Some(rules) = &settings.default_rules {
        // The same reading a query's rules get, so a bad one fails now.
        let probe = format!(
            r#"{{"id":"","moves":[],"boardXSize":9,"boardYSize":9,"rules":{}}}"#,
            Value::String(rules.clone())
        );
        let cx = Context {
            settings: &settings,
            net_needs_profile: false,
        };
        if let Err(e) = query::parse(&probe, &cx, &mut Vec::new()) {
            return Err(format!("config: rules: {}", e.message));
        }
    }
    Ok(settings)
}

/// One analysis thread per core at most, each with its own engine over the
/// one net and one shared evaluation cache.
fn workers(
    settings: &EngineSettings,
    net: &Arc<Network>,
    human: Option<&Arc<Network>>,
) -> Result<(Vec<Worker>, Arc<Mutex<NetCache>>), String> {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let workers = settings
        .analysis_threads
        .min(MAX_ANALYSIS_THREADS)
        .min(cores)
        .max(1);
    let search_threads = settings.search_threads.clamp(1, MAX_THREADS);
    if workers < settings.analysis_threads || search_threads < settings.search_threads {
        crate::log_line!(
            "tengen analysis: {workers} analysis thread(s) of {search_threads} search thread(s) \
             (asked {} of {}; at most one analysis thread per core)",
            settings.analysis_threads,
            settings.search_threads
        );
    }
    let cache = Arc::new(Mutex::new(NetCache::new()));
    let mut states = Vec::with_capacity(workers);
    for _ in 0..workers {
        let config = SearchConfig {
            threads: search_threads,
            tt_mb: (TABLE_MB / workers).max(MIN_TABLE_MB),
            resign_threshold: 0.0,
            human_profile: settings.search.human_profile,
            batch: crate::search::network::DEFAULT_BATCH,
            ..SearchConfig::default()
        };
        let engine = MctsEngine::with_network_cache(config, net.clone(), cache.clone())?;
        states.push(Worker::new(engine, net, human, settings));
    }
    Ok((states, cache))
}

/// Loads a net to run in `precision`, saying on stderr what it is.
fn load(path: &std::path::Path, choice: PrecisionChoice) -> Result<Arc<Network>, String> {
    let start = std::time::Instant::now();
    let mut net = Network::load(path).map_err(|e| e.to_string())?;
    let precision = choice.resolve();
    net.set_precision(precision);
    crate::log_line!(
        "tengen analysis: loaded {} (model version {}, {}) in {:.2} s",
        net.name(),
        net.version(),
        choice.describe_on(net.has_transformer()),
        start.elapsed().as_secs_f64()
    );
    Ok(Arc::new(net))
}

/// Reads requests until the end of input.
fn read_requests(input: &mut impl BufRead, shared: &Shared, cx: &Context) {
    let mut line = Vec::new();
    loop {
        match read_bounded(input, &mut line, MAX_LINE_BYTES) {
            Ok(LineRead::End) => return,
            Ok(LineRead::TooLong) => {
                shared.out.line(&serde_json::json!({
                    "error": format!("request line longer than {MAX_LINE_BYTES} bytes, ignored")
                }));
                continue;
            }
            Ok(LineRead::Line) => {}
            Err(e) => {
                crate::log_line!("tengen analysis: cannot read stdin: {e}");
                return;
            }
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if !text.is_empty() {
            shared.handle(text, cx);
        }
    }
}

/// Writes whole lines to stdout, flushed one by one, from any thread.
struct Output {
    inner: Mutex<OutputState>,
}

struct OutputState {
    out: Box<dyn Write + Send>,
    /// No more output (`-quit-without-waiting`, or the reader has gone).
    closed: bool,
}

impl Output {
    fn new(out: Box<dyn Write + Send>) -> Output {
        Output {
            inner: Mutex::new(OutputState { out, closed: false }),
        }
    }

    fn line(&self, v: &Value) {
        let mut text = v.to_string();
        text.push('\n');
        let mut o = lock(&self.inner);
        if o.closed {
            return;
        }
        if o.out
            .write_all(text.as_bytes())
            .and_then(|()| o.out.flush())
            .is_err()
        {
            o.closed = true;
        }
    }

    fn close(&self) {
        lock(&self.inner).closed = true;
    }
}

const QUEUED: u8 = 0;
const RUNNING: u8 = 1;
const TERMINATED: u8 = 2;

/// One turn of one query to analyse.
struct Job {
    /// Unique, in order of arrival.
    seq: u64,
    query: Arc<Query>,
    turn: usize,
    /// [`QUEUED`] → [`RUNNING`] (a worker took it) or → [`TERMINATED`]
    /// (stopped before its search: `noResults` written).
    status: AtomicU8,
    /// Stops the running search (its partial result is the final response).
    stop: AtomicBool,
}

struct Pending {
    /// Higher first, then earlier first.
    key: (i64, Reverse<u64>),
    job: Arc<Job>,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pending {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

#[derive(Default)]
struct Queue {
    heap: BinaryHeap<Pending>,
    next_seq: u64,
    closed: bool,
}

/// What the reader and the workers share.
struct Shared {
    out: Output,
    queue: Mutex<Queue>,
    wake: Condvar,
    /// Turns queued or running, by `seq`, for `terminate`.
    open: Mutex<HashMap<u64, Arc<Job>>>,
    cache: Arc<Mutex<NetCache>>,
    models: Vec<Value>,
}

impl Shared {
    fn handle(&self, text: &str, cx: &Context) {
        let mut warnings = Vec::new();
        let request = query::parse(text, cx, &mut warnings);
        for w in &warnings {
            self.out.line(&response::warning(w));
        }
        match request {
            Err(f) => self.out.line(&response::error(&f)),
            Ok(Request::Version(mut echo)) => {
                echo.insert("version".into(), env!("CARGO_PKG_VERSION").into());
                echo.insert("git_hash".into(), "tengen".into());
                self.out.line(&Value::Object(echo));
            }
            Ok(Request::Models(mut echo)) => {
                echo.insert("models".into(), Value::Array(self.models.clone()));
                self.out.line(&Value::Object(echo));
            }
            Ok(Request::ClearCache(echo)) => {
                // Each turn's search starts from an empty tree already.
                lock(&self.cache).clear();
                self.out.line(&Value::Object(echo));
            }
            Ok(Request::Terminate {
                echo,
                target,
                turns,
            }) => {
                self.terminate(target.as_deref(), turns.as_deref());
                self.out.line(&Value::Object(echo));
            }
            Ok(Request::Analyze(q)) => self.enqueue(Arc::new(*q)),
        }
    }

    fn enqueue(&self, query: Arc<Query>) {
        let mut queue = lock(&self.queue);
        let mut open = lock(&self.open);
        for &(turn, priority) in &query.turns {
            let seq = queue.next_seq;
            queue.next_seq += 1;
            let job = Arc::new(Job {
                seq,
                query: query.clone(),
                turn,
                status: AtomicU8::new(QUEUED),
                stop: AtomicBool::new(false),
            });
            open.insert(seq, job.clone());
            queue.heap.push(Pending {
                key: (priority, Reverse(seq)),
                job,
            });
        }
        drop(open);
        drop(queue);
        self.wake.notify_all();
    }

    /// Stops the turns of `target` (every id when `None`), only those of
    /// `turns` when given: a queued one answers `noResults` now, a running
    /// one stops and answers with what it found.
    fn terminate(&self, target: Option<&str>, turns: Option<&[i64]>) {
        let mut open = lock(&self.open);
        let mut finished = Vec::new();
        for job in open.values() {
            if target.is_some_and(|t| t != job.query.id)
                || turns.is_some_and(|ts| !ts.iter().any(|&t| t == job.turn as i64))
            {
                continue;
            }
            match job.status.compare_exchange(
                QUEUED,
                TERMINATED,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    self.out
                        .line(&response::no_results(&job.query.id, job.turn));
                    finished.push(job.seq);
                }
                Err(_) => job.stop.store(true, Ordering::Release),
            }
        }
        for seq in finished {
            open.remove(&seq);
        }
    }

    /// The next turn to analyse; `None` once the queue is closed and empty.
    fn pop(&self) -> Option<Arc<Job>> {
        let mut queue = lock(&self.queue);
        loop {
            if let Some(p) = queue.heap.pop() {
                return Some(p.job);
            }
            if queue.closed {
                return None;
            }
            queue = self
                .wake
                .wait(queue)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    /// No more turns will come: workers end once the queue is empty.
    fn close_queue(&self) {
        lock(&self.queue).closed = true;
        self.wake.notify_all();
    }

    /// Stops everything at once (`-quit-without-waiting`).
    fn shut_down(&self) {
        {
            let mut queue = lock(&self.queue);
            queue.heap.clear();
            queue.closed = true;
        }
        for job in lock(&self.open).values() {
            job.stop.store(true, Ordering::Release);
        }
        self.wake.notify_all();
    }
}

/// One analysis thread: its search engine and its net evaluators (the
/// root's policy and raw values, the positions after each move for
/// `includeMovesOwnership`, the human-SL net).
struct Worker {
    engine: MctsEngine,
    evaluator: Evaluator,
    human: Option<Evaluator>,
    /// The main net needs a profile, and the one the engine has now.
    net_needs_profile: bool,
    profile: Option<crate::nn::metadata::SgfMetadata>,
}

impl Worker {
    fn new(
        engine: MctsEngine,
        net: &Arc<Network>,
        human: Option<&Arc<Network>>,
        settings: &EngineSettings,
    ) -> Worker {
        let mut evaluator = Evaluator::new(net.clone());
        evaluator.set_metadata(settings.search.human_profile);
        Worker {
            engine,
            evaluator,
            human: human.map(|h| Evaluator::new(h.clone())),
            net_needs_profile: net.needs_metadata(),
            profile: settings.search.human_profile,
        }
    }

    fn serve(&mut self, shared: &Shared) {
        while let Some(job) = shared.pop() {
            if job
                .status
                .compare_exchange(QUEUED, RUNNING, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                continue; // terminated while queued: answered already
            }
            let done = panic::catch_unwind(AssertUnwindSafe(|| self.analyse(&job, &shared.out)));
            if done.is_err() {
                // A bug, not bad input; the turn still gets its one answer.
                self.engine.clear_tree();
                shared.out.line(&serde_json::json!({
                    "id": job.query.id,
                    "field": "analyzeTurns",
                    "error": format!("internal error while analysing turn {}", job.turn),
                }));
            }
            lock(&shared.open).remove(&job.seq);
        }
    }

    fn analyse(&mut self, job: &Job, out: &Output) {
        let q = &*job.query;
        let game = q.game_at(job.turn);
        let to_move = game.to_move();
        let profile = q.settings.human_profile;
        if self.net_needs_profile && profile != self.profile {
            // Only a human-SL main net reads the profile; other nets would
            // forget their table for nothing.
            let _ = self.engine.set_human_profile(profile);
            self.evaluator.set_metadata(profile);
            self.profile = profile;
        }
        // KataGo's ignorePreRootHistory: the root with no history, a node
        // below it (movesOwnership) with the moves since the root.
        let floor = q
            .settings
            .ignore_pre_root_history
            .then(|| game.turns().len());
        self.engine.set_query_options(QueryOptions {
            ignore_pre_root_history: q.settings.ignore_pre_root_history,
            root_policy_temperature: q.settings.root_policy_temperature as f32,
            policy_optimism: q.settings.policy_optimism as f32,
            root_policy_optimism: q.settings.root_policy_optimism() as f32,
        });
        self.evaluator.set_history_floor(floor);
        let mut root = NetEval::new();
        let root_ok = self
            .evaluator
            .evaluate(&game, 0, KATAGO_GTP_POLICY_OPTIMISM, &mut root)
            .is_ok();
        let mut human_eval = NetEval::new();
        let human_ok = match (&mut self.human, profile) {
            (Some(h), Some(p)) => {
                h.set_metadata(Some(p));
                h.set_history_floor(floor);
                h.evaluate(&game, 0, KATAGO_GTP_POLICY_OPTIMISM, &mut human_eval)
                    .is_ok()
            }
            _ => false,
        };
        let hashes = response::position_hashes(game.board(), to_move);
        let avoided = q.excluded(to_move);
        let choices =
            RootChoices::for_search(&game, to_move, avoided, q.settings.root_symmetry_pruning);
        let excluded = choices.excluded();
        let limits = q.settings.limits.limits();
        let interval = q.report_every.map_or(Duration::MAX, crate::time::duration);
        let mut moves_ownership: Vec<(Move, Vec<f32>)> = Vec::new();
        let evaluator = &mut self.evaluator;
        let mut write = |report: &Report, during: bool, own: &mut Vec<(Move, Vec<f32>)>| {
            let listing = choices.listing(&report.moves);
            if q.include_moves_ownership {
                let moves = listing.iter().map(|l| l.info.mv);
                add_moves_ownership(evaluator, &game, to_move, moves, own);
            }
            let turn = response::Turn {
                query: q,
                turn: job.turn,
                board: game.board(),
                to_move,
                root: root_ok.then_some(&root),
                human: human_ok.then_some(&human_eval),
                moves_ownership: own,
                hashes: hashes.clone(),
                listing: &listing,
            };
            out.line(&response::analysis(&turn, report, during));
        };
        self.engine.clear_tree();
        let report = self.engine.analyze_within(
            &game,
            to_move,
            limits,
            &excluded,
            interval,
            &job.stop,
            &mut |r| write(r, true, &mut moves_ownership),
        );
        write(&report, false, &mut moves_ownership);
    }
}

/// Black's ownership after each of `moves` not yet in `own` (the listed
/// ones, symmetric copies too): the net's view of the position the move
/// makes (tengen's search keeps no ownership per move).
fn add_moves_ownership(
    evaluator: &mut Evaluator,
    game: &crate::go::game::Game,
    to_move: Color,
    moves: impl Iterator<Item = Move>,
    own: &mut Vec<(Move, Vec<f32>)>,
) {
    let mut eval = NetEval::new();
    for mv in moves {
        if own.iter().any(|(m, _)| *m == mv) {
            continue;
        }
        let mut after = game.clone();
        if after.play(to_move, mv).is_err() {
            continue;
        }
        if evaluator
            .evaluate(&after, 0, KATAGO_GTP_POLICY_OPTIMISM, &mut eval)
            .is_ok()
        {
            own.push((mv, eval.to_view(Color::Black).ownership));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn katago_command_lines_read() {
        let o = parse_args(&args(
            "-model m.bin.gz -config a.cfg -override-config homeDataDir=~/.katrain -human-model h.bin.gz",
        ))
        .unwrap();
        assert_eq!(o.model, PathBuf::from("m.bin.gz"));
        assert_eq!(o.configs, [PathBuf::from("a.cfg")]);
        assert_eq!(o.overrides, ["homeDataDir=~/.katrain"]);
        assert_eq!(o.human_model, Some(PathBuf::from("h.bin.gz")));
        assert!(!o.quit_without_waiting);
        let o = parse_args(&args("--model=m -quit-without-waiting -analysis-threads 2")).unwrap();
        assert!(o.quit_without_waiting);
        assert_eq!(o.analysis_threads, Some(2));
        for bad in [
            "-config a.cfg",
            "-model",
            "-model m -colour red",
            "-model m stray",
            "-help",
        ] {
            assert!(parse_args(&args(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_queue_serves_high_priority_first_then_arrival_order() {
        let mut heap = BinaryHeap::new();
        let q = Arc::new(
            match query::parse(
                r#"{"id":"a","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9}"#,
                &Context {
                    settings: &EngineSettings::default(),
                    net_needs_profile: false,
                },
                &mut Vec::new(),
            ) {
                Ok(Request::Analyze(q)) => *q,
                other => panic!("{other:?}"),
            },
        );
        for (seq, priority) in [(0, 0), (1, 5), (2, 0), (3, 5), (4, -1)] {
            heap.push(Pending {
                key: (priority, Reverse(seq)),
                job: Arc::new(Job {
                    seq,
                    query: q.clone(),
                    turn: 0,
                    status: AtomicU8::new(QUEUED),
                    stop: AtomicBool::new(false),
                }),
            });
        }
        let order: Vec<u64> = std::iter::from_fn(|| heap.pop().map(|p| p.job.seq)).collect();
        assert_eq!(order, [1, 3, 0, 2, 4]);
    }
}
