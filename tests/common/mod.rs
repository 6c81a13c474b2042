//! A GTP client for the integration tests: spawns the built `tengen` binary
//! and talks to it over pipes, the way the real clients do.

#![allow(dead_code)]

pub mod analysis_client;
pub mod katago_net;
pub mod raw_nn;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The environment variable naming a runner for the engine the tests start, as a command
/// line split at spaces (`qemu-aarch64 -L /usr/aarch64-linux-gnu`): for a cross-built test
/// binary on a host that runs it through that runner, and so cannot start the engine directly.
pub const RUNNER_VAR: &str = "TENGEN_TEST_RUNNER";

/// A command starting the built `tengen`: directly, or under the runner in [`RUNNER_VAR`].
pub fn tengen_command() -> Command {
    let exe = env!("CARGO_BIN_EXE_tengen");
    let runner = std::env::var(RUNNER_VAR).unwrap_or_default();
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(program) => {
            let mut command = Command::new(program);
            command.args(words).arg(exe);
            command
        }
        None => Command::new(exe),
    }
}

/// How long any single read may wait before the test fails (not hangs).
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// [`TIMEOUT`], or 20 times as long for an engine under the runner of [`RUNNER_VAR`] (an
/// emulator: a large net's first answer there takes minutes).
pub fn read_timeout() -> Duration {
    let emulated = std::env::var(RUNNER_VAR).is_ok_and(|r| !r.trim().is_empty());
    if emulated {
        TIMEOUT * 20
    } else {
        TIMEOUT
    }
}

/// `XDG_DATA_HOME` (and `APPDATA`, its counterpart on Windows) for the
/// engines the tests start: a directory that does not exist, so no per-user
/// default net changes what a test runs.
pub const NO_USER_DATA: &str = "/nonexistent/tengen-test-data";

pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Raw stdout lines, each with its `\n`.
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
}

impl Engine {
    /// `tengen ARGS…` with `--quiet` off, so stderr can be inspected: the
    /// classical engine (`--classical`) unless ARGS name a net or say
    /// `--classical` themselves.
    pub fn spawn(args: &[&str]) -> Engine {
        Engine::spawn_in(Path::new("."), args)
    }

    /// `tengen ARGS…` with its default net: the built-in one, as neither
    /// `TENGEN_MODEL` nor a per-user default file reaches the tests.
    pub fn spawn_default_net(args: &[&str]) -> Engine {
        Engine::start(Path::new("."), args, false)
    }

    /// `tengen ARGS…` running in directory `dir` (relative file names of
    /// `loadsgf`/`printsgf` resolve there).
    ///
    /// Unless the test sets them, the engine searches 300 playouts per move
    /// and never resigns, so games are quick and end by two passes, and its
    /// search table has 16 MB (plenty for 300 playouts; the default 256 MB
    /// costs time to clear at the start and at every `clear_board`).
    pub fn spawn_in(dir: &Path, args: &[&str]) -> Engine {
        Engine::start(dir, args, true)
    }

    fn start(dir: &Path, args: &[&str], classical: bool) -> Engine {
        let mut full: Vec<&str> = args.to_vec();
        let names_a_net = ["--model", "--classical", "--human-model"]
            .iter()
            .any(|f| args.contains(f));
        if classical && !names_a_net {
            full.push("--classical");
        }
        if !args.contains(&"--playouts") {
            full.extend(["--playouts", "300"]);
        }
        if !args.contains(&"--tt-mb") {
            full.extend(["--tt-mb", "16"]);
        }
        if !args.contains(&"--resign-threshold") {
            full.extend(["--resign-threshold", "0"]);
        }
        let mut command = tengen_command();
        command
            .args(&full)
            .env_remove("TENGEN_MODEL")
            .env("XDG_DATA_HOME", NO_USER_DATA)
            .env("APPDATA", NO_USER_DATA)
            .current_dir(dir);
        Engine::spawn_command(command)
    }

    /// Another GTP program (GNU Go as a referee), spoken to like tengen.
    pub fn spawn_program(program: &str, args: &[&str]) -> Engine {
        let mut command = Command::new(program);
        command.args(args);
        Engine::spawn_command(command)
    }

    fn spawn_command(mut command: Command) -> Engine {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the engine");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut line = String::new();
                match r.read_line(&mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if tx.send(line).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let stderr = collect_stderr(&mut child);
        let stdin = child.stdin.take();
        Engine {
            child,
            stdin,
            lines,
            stderr,
        }
    }

    /// Writes raw bytes to the engine's stdin and flushes.
    pub fn write(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to tengen");
        stdin.flush().unwrap();
    }

    /// Writes one command line with `\n`.
    pub fn send(&mut self, line: &str) {
        self.write(format!("{line}\n").as_bytes());
    }

    /// The next raw stdout line (with its `\n`); panics after [`read_timeout`].
    pub fn line(&mut self) -> String {
        self.line_within(read_timeout())
            .unwrap_or_else(|| panic!("no output from tengen; stderr:\n{}", self.stderr()))
    }

    /// The next raw line, or `None` if none comes within `d` (or stdout closed).
    pub fn line_within(&mut self, d: Duration) -> Option<String> {
        match self.lines.recv_timeout(d) {
            Ok(l) => Some(l),
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// One whole response, exactly as written: every line up to and including
    /// the empty line that ends it.
    pub fn raw_response(&mut self) -> String {
        let mut text = String::new();
        loop {
            let l = self.line();
            let end = l == "\n";
            text.push_str(&l);
            if end {
                return text;
            }
        }
    }

    /// One response, checked for framing, as (ok, id, result): the result is
    /// the text after `=id ` / `?id `, lines joined with `\n`.
    pub fn response(&mut self) -> (bool, Option<String>, String) {
        let raw = self.raw_response();
        parse_response(&raw).unwrap_or_else(|| panic!("malformed response {raw:?}"))
    }

    /// Sends a command and returns its successful result; panics on `?`.
    pub fn ok(&mut self, line: &str) -> String {
        self.send(line);
        let (ok, _, result) = self.response();
        assert!(ok, "`{line}` failed: {result}\nstderr:\n{}", self.stderr());
        result
    }

    /// Sends a command and returns its failure message; panics on `=`.
    pub fn fail(&mut self, line: &str) -> String {
        self.send(line);
        let (ok, _, result) = self.response();
        assert!(!ok, "`{line}` succeeded with {result:?}");
        result
    }

    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Everything tengen wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Whether stderr contains `text` within a few seconds (stderr is read
    /// by its own thread, so it may lag behind stdout).
    pub fn stderr_has(&self, text: &str) -> bool {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(5) {
            if self.stderr().contains(text) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    /// Closes stdin (end of input).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits for the process to exit; panics after [`TIMEOUT`].
    pub fn wait(&mut self) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s;
            }
            assert!(start.elapsed() < TIMEOUT, "tengen did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Whether stdout has nothing more to say within `d`.
    pub fn silent_for(&mut self, d: Duration) -> bool {
        self.line_within(d).is_none()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Collects a child's stderr in the background (for failure messages); the
/// child must have been spawned with a piped stderr.
pub fn collect_stderr(child: &mut Child) -> Arc<Mutex<String>> {
    let stderr = Arc::new(Mutex::new(String::new()));
    let sink = stderr.clone();
    let mut err = child.stderr.take().expect("stderr is piped");
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = err.read(&mut buf) {
            if n == 0 {
                return;
            }
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    stderr
}

/// Checks GTP framing of one raw response (ending in the blank line) and
/// splits it into (ok, id, result). `None` if it is not well formed: status
/// character, optional digits, one space, then lines without any empty one.
pub fn parse_response(raw: &str) -> Option<(bool, Option<String>, String)> {
    let body = raw.strip_suffix("\n\n")?;
    if body.contains("\n\n") || body.contains('\r') {
        return None;
    }
    let ok = match body.chars().next()? {
        '=' => true,
        '?' => false,
        _ => return None,
    };
    let rest = &body[1..];
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let id = (digits > 0).then(|| rest[..digits].to_string());
    let after = rest[digits..].strip_prefix(' ')?;
    Some((ok, id, after.to_string()))
}

/// A vertex string on a board of `size`, for checks: letter without I, row.
pub fn is_vertex(text: &str, size: usize) -> bool {
    const COLS: &str = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
    let mut chars = text.chars();
    let Some(c) = chars.next() else { return false };
    let Some(x) = COLS.find(c) else { return false };
    let Ok(row) = chars.as_str().parse::<usize>() else {
        return false;
    };
    x < size && (1..=size).contains(&row)
}

/// The move of test data written as GTP writes it (`D4`, `pass`), read by
/// the engine's own vertex parser; panics on anything else.
pub fn gtp_move(text: &str, g: tengen::Geometry) -> tengen::Move {
    tengen::go::vertex::parse_move(text, g).unwrap_or_else(|_| panic!("{text} is no move here"))
}

/// Reports that a test cannot run here because `why` (a missing net or
/// program): a notice on the process's own stderr, which the test harness
/// does not capture, so `cargo test` shows it even for a passing test; under
/// `CI=true` a panic when `required_in_ci`.
pub fn skipped(why: &str, required_in_ci: bool) {
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    assert!(
        !(ci && required_in_ci),
        "{test}: {why}, and CI=true requires it"
    );
    let _ = writeln!(std::io::stderr(), "{test}: skipped: {why}");
}

/// The path of KataGo's small test net (b6c96): in `../shared/nets/`, else the copy
/// built into the binary (`src/nn/…/builtin/`); or
/// `None` after a [`skipped`] notice (a failure under `CI=true`).
pub fn b6c96_path() -> Option<std::path::PathBuf> {
    const FILE: &str = "g170-b6c96-s175395328-d26788732.bin.gz";
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = crate_dir.join("../shared/nets").join(FILE);
    if shared.exists() {
        return Some(shared);
    }
    // The same file is the net built into the binary: its copy in the
    // source tree serves when `../shared` is absent.
    if let Some(builtin) = find_file(&crate_dir.join("src/nn"), FILE) {
        return Some(builtin);
    }
    skipped("no b6c96 net in ../shared/nets nor in src/nn", true);
    None
}

/// The first file named `name` under `dir`, searched depth first.
fn find_file(dir: &Path, name: &str) -> Option<std::path::PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = find_file(&path, name) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|n| n == name) {
            return Some(path);
        }
    }
    None
}

/// An outside client for a test: the path in the environment variable
/// `var`, else `relative` under the crate (where `.ci/run` installs it) if it
/// is there.
pub fn outside_tool(var: &str, relative: &str) -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os(var) {
        return Some(std::path::PathBuf::from(p));
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    p.exists().then_some(p)
}

/// Waits for `child` to exit; past `deadline` after `start` it is killed and
/// `None` comes back (the caller fails the test with what it knows).
pub fn wait_or_kill(child: &mut Child, start: Instant, deadline: Duration) -> Option<ExitStatus> {
    loop {
        if let Some(s) = child.try_wait().expect("the child can be waited for") {
            return Some(s);
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The b6c96 net, loaded once per test module; `None` as for [`b6c96_path`].
pub fn b6c96() -> Option<Arc<tengen::nn::Network>> {
    static NET: std::sync::OnceLock<Arc<tengen::nn::Network>> = std::sync::OnceLock::new();
    if let Some(net) = NET.get() {
        return Some(net.clone());
    }
    let path = b6c96_path()?;
    let net = Arc::new(tengen::nn::Network::load(&path).expect("the b6c96 net loads"));
    Some(NET.get_or_init(|| net).clone())
}
