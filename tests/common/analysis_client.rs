//! A client of `tengen analysis` over pipes, as KaTrain and katagoanal drive
//! it: starts the engine with a config file of its own, sends lines, reads
//! stdout lines as JSON objects (each must be one), and on finishing checks
//! that the engine ends cleanly. Shared by `tests/analysis_engine.rs` and
//! `tests/analysis_katago.rs`.
//!
//! Not part of `common/mod.rs`: a test file includes it with
//! `#[path = "common/analysis_client.rs"] mod analysis_client;` beside its
//! `mod common;`.

#![allow(dead_code)]

use crate::common;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Longest wait for one response.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// KataGo's ready line on stderr.
pub const READY: &str = "Started, ready to begin handling requests";

/// `tengen analysis` with a config file of its own.
pub struct Analysis {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
    config: std::path::PathBuf,
    /// Whether the config file is this client's own, removed at the end.
    remove_config: bool,
}

impl Analysis {
    /// Starts the engine on the b6c96 net with `config` as its `.cfg` text;
    /// `None` when the net is missing.
    pub fn start(config: &str) -> Option<Analysis> {
        Analysis::start_with(config, &[])
    }

    /// As [`Analysis::start`], with more flags after the config.
    pub fn start_with(config: &str, extra: &[&str]) -> Option<Analysis> {
        let net = common::b6c96_path()?;
        Some(Analysis::start_on(&net, config, extra))
    }

    /// As [`Analysis::start_with`], on the net at `net`.
    pub fn start_on(net: &Path, config: &str, extra: &[&str]) -> Analysis {
        static N: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "tengen-analysis-{}-{}.cfg",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&path, config).expect("write the config");
        let mut engine = Analysis::start_on_file(net, &path, extra);
        engine.remove_config = true;
        engine
    }

    /// As [`Analysis::start_on`], with the config file at `config` (left in
    /// place at the end).
    pub fn start_on_file(net: &Path, config: &Path, extra: &[&str]) -> Analysis {
        let mut child = common::tengen_command()
            .arg("analysis")
            .arg("-model")
            .arg(net)
            .arg("-config")
            .arg(config)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn tengen analysis");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let stderr = common::collect_stderr(&mut child);
        let stdin = child.stdin.take();
        Analysis {
            child,
            stdin,
            lines,
            stderr,
            config: config.to_path_buf(),
            remove_config: false,
        }
    }

    /// The config file the engine was started with.
    pub fn config_path(&self) -> &Path {
        &self.config
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    pub fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    pub fn send(&mut self, v: &Value) {
        self.send_raw(&v.to_string());
    }

    /// The next stdout line, which must be a JSON object.
    pub fn next(&mut self) -> Value {
        let line = self.lines.recv_timeout(TIMEOUT).unwrap_or_else(|_| {
            panic!("no response within {TIMEOUT:?}; stderr:\n{}", self.stderr())
        });
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
        assert!(v.is_object(), "stdout line is not an object: {line}");
        v
    }

    /// Lines until (and with) the first one `done` accepts.
    pub fn until(&mut self, done: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let v = self.next();
            let stop = done(&v);
            seen.push(v);
            if stop {
                return seen;
            }
        }
    }

    /// Closes stdin and waits for the end (the queued work first); the
    /// remaining stdout lines.
    pub fn finish(mut self) -> Vec<Value> {
        drop(self.stdin.take());
        let start = Instant::now();
        let mut rest = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(TIMEOUT) {
            rest.push(
                serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}")),
            );
            assert!(start.elapsed() < 2 * TIMEOUT, "the engine does not end");
        }
        let status = self.child.wait().expect("wait");
        assert!(
            status.success(),
            "exit {status}; stderr:\n{}",
            self.stderr()
        );
        rest
    }
}

impl Drop for Analysis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if self.remove_config {
            let _ = std::fs::remove_file(&self.config);
        }
    }
}
