//! Shared by the match tests: a temporary directory removed on drop, for the
//! fake engine scripts and the files a match writes, and the check that GNU Go
//! is installed for the tests that play it.

// Each test file uses a different part of this module.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory under the system temp dir, deleted with its contents on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new() -> TempDir {
        // `create_dir` fails on an existing directory, so two copies of this
        // module in one test binary (each with its own counter) never share one.
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        loop {
            let path = std::env::temp_dir().join(format!(
                "tengen-match-test-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            match std::fs::create_dir(&path) {
                Ok(()) => return TempDir(path),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => panic!("cannot create {}: {e}", path.display()),
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `body` as `name` here and returns `sh <path>`, a command line that runs it.
    pub fn script(&self, name: &str, body: &str) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, body).unwrap();
        format!("sh {}", path.display())
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// GNU Go 3.8 where Debian's `gnugo` package installs it (not on root's PATH).
pub const GNUGO: &str = "/usr/games/gnugo";

/// Whether GNU Go is installed, for a test that plays it. When it is not,
/// the test should return at once: this says so on stderr, naming the test,
/// unless the environment has `CI=true`, where GNU Go must be there (`.ci/run`
/// installs it) and its absence fails the test.
pub fn gnugo_installed() -> bool {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    program_installed(Path::new(GNUGO), ci, "apt-get install gnugo")
}

/// Whether `program` exists; if not, a notice on stderr and `false`, or a
/// panic when `required` (on CI). The notice is written to the process's
/// stderr itself, which the test harness does not capture, so that `cargo
/// test` shows it even for a test that passes.
pub fn program_installed(program: &Path, required: bool, install: &str) -> bool {
    if program.exists() {
        return true;
    }
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let why = format!("{} is not installed ({install})", program.display());
    assert!(!required, "{test}: {why}, and CI=true requires it");
    let _ = writeln!(std::io::stderr(), "{test}: skipped: {why}");
    false
}
