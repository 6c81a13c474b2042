//! Checking many files for `tengen check`: finding `.sgf` files under the
//! given paths, checking them on several threads, printing each file's report
//! in input order, a progress line on a terminal, the summary and the exit status.

use super::check::{check_bytes_lines, FileReport, Lines};
use crate::config::RuleArgs;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Output and threading choices.
#[derive(Clone, Copy, Debug)]
pub struct BatchOptions {
    /// JSON lines instead of text.
    pub json: bool,
    /// Only errors and the summary.
    pub quiet: bool,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// The main line only, or every variation too.
    pub lines: Lines,
}

/// Totals over all files.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    pub files: usize,
    pub games: usize,
    pub moves: u64,
    pub violations: usize,
    /// Files with at least one error (unreadable, unparsable, or a bad game).
    pub files_with_errors: usize,
    pub seconds: f64,
}

impl Summary {
    /// 0 when every move is legal, 1 when there are violations, 2 when a file
    /// could not be read or parsed, or there was no file at all.
    pub fn exit_code(&self) -> u8 {
        if self.files_with_errors > 0 || self.files == 0 {
            2
        } else if self.violations > 0 {
            1
        } else {
            0
        }
    }

    fn to_text(self) -> String {
        let rate = if self.seconds > 0.0 {
            format!(
                " ({:.0} games/s, {:.0} moves/s)",
                self.games as f64 / self.seconds,
                self.moves as f64 / self.seconds
            )
        } else {
            String::new()
        };
        format!(
            "checked {} file(s), {} game(s), {} move(s) in {:.3} s{rate}: {} violation(s), {} file(s) with errors\n",
            self.files, self.games, self.moves, self.seconds, self.violations, self.files_with_errors
        )
    }

    fn to_json(self) -> String {
        format!(
            "{{\"type\":\"summary\",\"files\":{},\"games\":{},\"moves\":{},\"violations\":{},\"errors\":{},\"seconds\":{:.3}}}\n",
            self.files, self.games, self.moves, self.violations, self.files_with_errors, self.seconds
        )
    }
}

/// A file to check, or a path that could not be listed.
enum Input {
    File(PathBuf),
    Unreadable(PathBuf, String),
}

/// The files under `paths`: each file named directly, and every `.sgf` file
/// (any case) under each directory, recursively, in sorted order.
fn collect(paths: &[PathBuf]) -> Vec<Input> {
    let mut out = Vec::new();
    for p in paths {
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => walk(p, &mut out),
            Ok(_) => out.push(Input::File(p.clone())),
            Err(e) => out.push(Input::Unreadable(p.clone(), e.to_string())),
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<Input>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            out.push(Input::Unreadable(dir.to_path_buf(), e.to_string()));
            return;
        }
    };
    let mut paths: Vec<(PathBuf, bool)> = entries
        .filter_map(Result::ok)
        .map(|e| {
            // Symbolic links to directories are not followed (no cycles).
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            (e.path(), is_dir)
        })
        .collect();
    paths.sort();
    for (p, is_dir) in paths {
        if is_dir {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("sgf")) {
            out.push(Input::File(p));
        }
    }
}

fn check_input(input: &Input, args: &RuleArgs, lines: Lines) -> FileReport {
    match input {
        Input::File(p) => match std::fs::read(p) {
            Ok(bytes) => check_bytes_lines(&bytes, args, lines),
            Err(e) => FileReport {
                errors: vec![format!("cannot read: {e}")],
                ..FileReport::default()
            },
        },
        Input::Unreadable(_, e) => FileReport {
            errors: vec![format!("cannot read: {e}")],
            ..FileReport::default()
        },
    }
}

fn path_of(input: &Input) -> &Path {
    match input {
        Input::File(p) | Input::Unreadable(p, _) => p,
    }
}

/// Files a worker takes at a time (fewer messages and wake-ups than one by one).
const CHUNK: usize = 16;

/// Prints reports in input order as they arrive, and adds them to the summary.
struct Printer<'a> {
    inputs: &'a [Input],
    options: BatchOptions,
    out: &'a mut dyn Write,
    pending: Vec<Option<FileReport>>,
    printed: usize,
    summary: Summary,
    write_result: io::Result<()>,
    started: Instant,
    last_progress: Instant,
    show_progress: bool,
    /// The length of the longest progress line written, which the end blanks out.
    progress_width: usize,
}

impl Printer<'_> {
    fn receive(&mut self, i: usize, report: FileReport) {
        self.pending[i] = Some(report);
        while let Some(report) = self.pending.get_mut(self.printed).and_then(Option::take) {
            let file = path_of(&self.inputs[self.printed]).to_string_lossy();
            let s = &mut self.summary;
            s.games += report.games;
            s.moves += report.moves;
            s.violations += report.violations.len();
            s.files_with_errors += usize::from(!report.errors.is_empty());
            let text = if self.options.json {
                report.to_json(&file, self.options.quiet)
            } else {
                report.to_text(&file, self.options.quiet)
            };
            if self.write_result.is_ok() && !text.is_empty() {
                self.write_result = self.out.write_all(text.as_bytes());
            }
            self.printed += 1;
        }
        if self.show_progress
            && self.started.elapsed() > Duration::from_secs(1)
            && self.last_progress.elapsed() > Duration::from_millis(200)
        {
            self.last_progress = Instant::now();
            let line = format!("checked {}/{} files", self.printed, self.inputs.len());
            self.progress_width = self.progress_width.max(line.len());
            let _ = write!(io::stderr(), "\r{line}");
        }
    }
}

/// Checks every file under `paths`, writing reports to `out` in input order
/// and the summary last. A progress line goes to stderr when it is a terminal
/// and the job takes more than a second.
///
/// # Errors
/// Only failures to write to `out`.
pub fn run(
    paths: &[PathBuf],
    args: &RuleArgs,
    options: BatchOptions,
    out: &mut dyn Write,
) -> io::Result<Summary> {
    let started = Instant::now();
    let inputs = collect(paths);
    let total = inputs.len();
    let threads = options.threads.clamp(1, total.max(1));
    let mut printer = Printer {
        inputs: &inputs,
        options,
        out,
        pending: (0..total).map(|_| None).collect(),
        printed: 0,
        summary: Summary {
            files: total,
            ..Summary::default()
        },
        write_result: Ok(()),
        started,
        last_progress: started,
        show_progress: io::stderr().is_terminal(),
        progress_width: 0,
    };
    if threads == 1 {
        for (i, input) in inputs.iter().enumerate() {
            printer.receive(i, check_input(input, args, options.lines));
        }
    } else {
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            let (tx, rx) = mpsc::channel::<Vec<(usize, FileReport)>>();
            for _ in 0..threads {
                let tx = tx.clone();
                let (inputs, next) = (&inputs, &next);
                scope.spawn(move || loop {
                    let first = next.fetch_add(CHUNK, Ordering::Relaxed);
                    if first >= inputs.len() {
                        break;
                    }
                    let last = (first + CHUNK).min(inputs.len());
                    let reports = (first..last)
                        .map(|i| (i, check_input(&inputs[i], args, options.lines)))
                        .collect();
                    if tx.send(reports).is_err() {
                        break;
                    }
                });
            }
            drop(tx);
            for batch in rx {
                for (i, report) in batch {
                    printer.receive(i, report);
                }
            }
        });
    }
    // Blanked out with spaces, not an escape sequence: a Windows console
    // without VT processing would print the escape as text.
    if printer.progress_width > 0 {
        let blank = " ".repeat(printer.progress_width);
        let _ = write!(io::stderr(), "\r{blank}\r");
    }
    let Printer {
        mut summary,
        write_result,
        out,
        ..
    } = printer;
    write_result?;
    summary.seconds = started.elapsed().as_secs_f64();
    let text = if options.json {
        summary.to_json()
    } else {
        summary.to_text()
    };
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(summary)
}
