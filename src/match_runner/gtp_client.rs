//! A GTP client: runs an engine as a child process (through the platform's
//! shell: `sh -c`, or `cmd /C` on Windows), sends it
//! one command at a time and reads the response with a deadline.
//!
//! Robustness is the point. Stdout is read on its own thread into a bounded
//! channel, so a deadline can be enforced on any response; stderr is drained on
//! another thread (the last lines are kept for error messages), so an engine
//! that logs a lot never blocks on a full pipe. Text that is not part of a
//! response is skipped, invalid UTF-8 is replaced, over-long lines are split and
//! over-long responses refused. [`GtpClient::kill`] (also run on drop) ends
//! the engine's whole process tree — on Unix the process group it was started
//! in, on Windows the tree below the shell — so a hung engine started through
//! a shell wrapper does not outlive its client.

use std::collections::VecDeque;
use std::fmt;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Longest line read at once; longer lines arrive in pieces.
const MAX_LINE: u64 = 64 * 1024;
/// Largest accepted response, in bytes.
const MAX_RESPONSE: usize = 1024 * 1024;
/// Stdout lines buffered between the reader thread and the client.
const LINE_QUEUE: usize = 4096;
/// Stderr lines kept for error messages.
const STDERR_TAIL: usize = 8;
/// Stray lines logged per command; the rest are only counted.
const STRAY_LOGGED: usize = 3;
/// How long `quit` and the exit after it may take before the engine is killed.
const QUIT_GRACE: Duration = Duration::from_secs(2);
/// After the engine closed its stdout: how long its stderr may stay open
/// before the error is reported with the tail read so far.
const STDERR_GRACE: Duration = Duration::from_secs(1);
/// After the engine closed its stdout: how long to wait for its exit status.
const EXIT_GRACE: Duration = Duration::from_millis(200);

/// Why a command did not produce a success response.
#[derive(Debug)]
pub enum GtpError {
    /// The engine could not be started.
    Spawn(String),
    /// No complete response before the deadline.
    Timeout { command: String, after: Duration },
    /// The engine closed its stdout or stdin (it exited or crashed).
    Exited { command: String, detail: String },
    /// The engine answered with a failure (`? message`).
    Failed { command: String, message: String },
    /// The response broke the protocol (too long).
    Malformed { command: String, detail: String },
}

impl GtpError {
    /// Whether the engine can still be used afterwards: only a failure response
    /// leaves the protocol in sync.
    pub fn is_fatal(&self) -> bool {
        !matches!(self, GtpError::Failed { .. })
    }
}

impl fmt::Display for GtpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GtpError::Spawn(e) => write!(f, "could not start: {e}"),
            GtpError::Timeout { command, after } => {
                write!(
                    f,
                    "no response to '{command}' within {:.1} s",
                    after.as_secs_f64()
                )
            }
            GtpError::Exited { command, detail } => {
                write!(f, "exited during '{command}'")?;
                if !detail.is_empty() {
                    write!(f, " ({detail})")?;
                }
                Ok(())
            }
            GtpError::Failed { command, message } => {
                write!(f, "'{command}' failed: {message}")
            }
            GtpError::Malformed { command, detail } => {
                write!(f, "malformed response to '{command}': {detail}")
            }
        }
    }
}

impl std::error::Error for GtpError {}

/// A running GTP engine. See the module documentation.
pub struct GtpClient {
    label: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// Disconnected once the stderr-draining thread has read the end of the
    /// stream: the tail is then complete.
    stderr_done: Receiver<()>,
    /// The engine closed a pipe: no more commands are sent.
    exited: bool,
    /// [`GtpClient::kill`] has run.
    killed: bool,
}

impl GtpClient {
    /// Starts `command_line` with the platform's shell (`sh -c`, or `cmd /C`
    /// on Windows); `label` names the engine in logs.
    ///
    /// # Errors
    /// [`GtpError::Spawn`] if the shell cannot be started.
    pub fn spawn(command_line: &str, label: &str) -> Result<GtpClient, GtpError> {
        let mut child = platform::shell(command_line)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| GtpError::Spawn(format!("{} '{command_line}': {e}", platform::SHELL)))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(GtpError::Spawn("no pipes to the child".into()));
        };
        let (tx, lines) = sync_channel(LINE_QUEUE);
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(line) = read_line(&mut reader) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr_tail);
        let (stderr_end, stderr_done) = sync_channel::<()>(0);
        thread::spawn(move || {
            // Dropped at the end of the stream (or a panic): `stderr_done` disconnects.
            let _end = stderr_end;
            let mut reader = BufReader::new(stderr);
            while let Some(line) = read_line(&mut reader) {
                if let Ok(mut t) = tail.lock() {
                    if t.len() == STDERR_TAIL {
                        t.pop_front();
                    }
                    t.push_back(line);
                }
            }
        });
        Ok(GtpClient {
            label: label.to_string(),
            child,
            stdin,
            lines,
            stderr_tail,
            stderr_done,
            exited: false,
            killed: false,
        })
    }

    /// The label given at spawn.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Sends `command` and waits up to `timeout` for its response. Returns the
    /// response text of a success (`= text`), trimmed, lines joined by `\n`.
    ///
    /// # Errors
    /// See [`GtpError`]; after any error but [`GtpError::Failed`] the engine
    /// should be killed, as its responses can no longer be matched to commands.
    pub fn send(&mut self, command: &str, timeout: Duration) -> Result<String, GtpError> {
        let deadline = Instant::now() + timeout;
        let mut stray = 0;
        self.discard_stray_lines(&mut stray);
        let exited = |client: &mut GtpClient| GtpError::Exited {
            command: command.to_string(),
            detail: client.exit_detail(),
        };
        if self.exited {
            return Err(exited(self));
        }
        let written = self
            .stdin
            .write_all(format!("{command}\n").as_bytes())
            .and_then(|()| self.stdin.flush());
        if written.is_err() {
            self.exited = true;
            return Err(exited(self));
        }
        let mut status: Option<bool> = None;
        let mut body = String::new();
        loop {
            let now = Instant::now();
            let line = match self
                .lines
                .recv_timeout(deadline.saturating_duration_since(now))
            {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(GtpError::Timeout {
                        command: command.to_string(),
                        after: timeout,
                    })
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.exited = true;
                    return Err(exited(self));
                }
            };
            let line = clean_line(&line);
            match status {
                None => {
                    if let Some(rest) = line.strip_prefix('=') {
                        status = Some(true);
                        body.push_str(strip_id(rest));
                    } else if let Some(rest) = line.strip_prefix('?') {
                        status = Some(false);
                        body.push_str(strip_id(rest));
                    } else if !line.trim().is_empty() {
                        self.log_stray(&line, &mut stray);
                    }
                }
                Some(ok) => {
                    if line.trim().is_empty() {
                        let text = body.trim().to_string();
                        return if ok {
                            Ok(text)
                        } else {
                            Err(GtpError::Failed {
                                command: command.to_string(),
                                message: text,
                            })
                        };
                    }
                    body.push('\n');
                    body.push_str(&line);
                }
            }
            if body.len() > MAX_RESPONSE {
                return Err(GtpError::Malformed {
                    command: command.to_string(),
                    detail: format!("longer than {MAX_RESPONSE} bytes"),
                });
            }
        }
    }

    /// Sends `quit`, gives the engine a moment to exit, then kills what is left.
    pub fn quit(mut self) {
        if !self.exited {
            let _ = self.send("quit", QUIT_GRACE);
            let until = Instant::now() + QUIT_GRACE;
            while Instant::now() < until {
                if let Ok(Some(_)) = self.child.try_wait() {
                    break;
                }
                thread::sleep(Duration::from_millis(20));
            }
        }
        self.kill();
    }

    /// Kills the engine's whole process tree (its process group on Unix, the
    /// tree below the shell on Windows) and reaps the child. Only the first call acts.
    pub fn kill(&mut self) {
        if self.killed {
            return;
        }
        self.killed = true;
        platform::kill_tree(&self.child);
        // In case the tree could not be killed: at least the shell.
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.exited = true;
    }

    /// The last lines the engine wrote to stderr, joined by ` | `.
    pub fn stderr_tail(&self) -> String {
        self.stderr_tail
            .lock()
            .map(|t| t.iter().map(String::as_str).collect::<Vec<_>>().join(" | "))
            .unwrap_or_default()
    }

    /// Exit status (if known soon) and stderr tail, for error messages. The
    /// engine closed its stdout: its last stderr lines may still be in the
    /// pipe or on their way, so the tail is read once the draining thread has
    /// seen the end of the stream (a bounded wait: a process the engine left
    /// behind may hold stderr open).
    fn exit_detail(&mut self) -> String {
        let _ = self.stderr_done.recv_timeout(STDERR_GRACE);
        // The process may still be closing down; give it a moment.
        let mut status = None;
        let until = Instant::now() + EXIT_GRACE;
        loop {
            if let Ok(Some(s)) = self.child.try_wait() {
                status = Some(s);
                break;
            }
            if Instant::now() >= until {
                break;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let mut parts = Vec::new();
        if let Some(s) = status {
            parts.push(s.to_string());
        }
        let tail = self.stderr_tail();
        if !tail.is_empty() {
            parts.push(format!("stderr: {}", short(&tail)));
        }
        parts.join("; ")
    }

    /// Logs a line that is not part of a response: the first few of each
    /// command, then every thousandth as a count.
    fn log_stray(&self, line: &str, stray: &mut usize) {
        *stray += 1;
        if *stray <= STRAY_LOGGED {
            crate::log_line!("[{}] ignoring stray output: {}", self.label, short(line));
        } else if (*stray).is_multiple_of(1000) {
            crate::log_line!("[{}] ignored {} stray lines so far", self.label, *stray);
        }
    }

    /// Drops lines that arrived outside any response (a reply to nothing).
    fn discard_stray_lines(&mut self, stray: &mut usize) {
        loop {
            match self.lines.try_recv() {
                Ok(line) if !clean_line(&line).trim().is_empty() => {
                    self.log_stray(&line, stray);
                }
                Ok(_) => {}
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    self.exited = true;
                    break;
                }
            }
        }
    }
}

impl Drop for GtpClient {
    fn drop(&mut self) {
        self.kill();
    }
}

/// What differs between platforms in starting an engine and ending it.
mod platform {
    use std::process::{Child, Command, Stdio};

    /// The shell command lines are run with, for messages.
    #[cfg(unix)]
    pub const SHELL: &str = "sh -c";
    /// The shell command lines are run with, for messages.
    #[cfg(windows)]
    pub const SHELL: &str = "cmd /C";

    /// A command running `command_line` with `sh -c` in a process group of
    /// its own (whose id is the shell's pid), so that [`kill_tree`] can end
    /// everything the shell started.
    #[cfg(unix)]
    pub fn shell(command_line: &str) -> Command {
        use std::os::unix::process::CommandExt;
        let mut command = Command::new("sh");
        command.arg("-c").arg(command_line).process_group(0);
        command
    }

    /// A command running `command_line` with `cmd /S /C "command_line"`:
    /// with `/S`, cmd removes just the outer quotes added here and runs the
    /// rest as typed, so quotes inside the line (a path with spaces) survive.
    /// The line is passed raw, since cmd does not follow the quoting rules
    /// of the C runtime that [`Command::arg`] applies.
    #[cfg(windows)]
    pub fn shell(command_line: &str) -> Command {
        use std::os::windows::process::CommandExt;
        let mut command = Command::new("cmd");
        command
            .args(["/S", "/C"])
            .raw_arg(format!("\"{command_line}\""));
        command
    }

    /// Kills the process group [`shell`] started (also what is left of it
    /// after the shell itself exited). Linux does not reuse the group's id
    /// while the group has members.
    #[cfg(unix)]
    pub fn kill_tree(child: &Child) {
        let group = format!("-{}", child.id());
        let _ = Command::new("kill")
            .args(["-KILL", "--", &group])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }

    /// Kills the shell and every process below it with `taskkill /T /F`.
    /// Called before the child is reaped: its open handle keeps Windows from
    /// reusing the pid. A process whose parent already exited is no longer
    /// found in the tree; cmd waits for the engine, so that is only a process
    /// the engine itself left behind.
    #[cfg(windows)]
    pub fn kill_tree(child: &Child) {
        let _ = Command::new("taskkill")
            .args(["/T", "/F", "/PID", &child.id().to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// Reads one line (without its end) of at most [`MAX_LINE`] bytes, `None` at
/// end of stream or on a read error.
fn read_line(reader: &mut impl BufRead) -> Option<String> {
    let mut buf = Vec::new();
    match reader.take(MAX_LINE).read_until(b'\n', &mut buf) {
        Ok(0) | Err(_) => None,
        Ok(_) => {
            if buf.last() == Some(&b'\n') {
                buf.pop();
            }
            Some(String::from_utf8_lossy(&buf).into_owned())
        }
    }
}

/// GTP preprocessing of a response line: control characters other than
/// tab dropped, tabs turned into spaces.
fn clean_line(line: &str) -> String {
    line.chars()
        .filter(|&c| c == '\t' || !c.is_control())
        .map(|c| if c == '\t' { ' ' } else { c })
        .collect()
}

/// The text after `=`/`?`: an optional numeric id is skipped.
fn strip_id(rest: &str) -> &str {
    rest.trim_start_matches(|c: char| c.is_ascii_digit())
}

/// At most 200 characters of `text`, for log lines.
fn short(text: &str) -> String {
    let mut s: String = text.chars().take(200).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_cleaning_and_ids() {
        assert_eq!(clean_line("= D4\r"), "= D4");
        assert_eq!(clean_line("=\tD4\u{7}"), "= D4");
        assert_eq!(strip_id("12 D4"), " D4");
        assert_eq!(strip_id(" D4"), " D4");
    }

    #[test]
    fn long_lines_come_in_pieces_and_bad_utf8_is_replaced() {
        let mut data = vec![b'x'; MAX_LINE as usize + 10];
        data.extend_from_slice(b"\n\xff\xfeok\n");
        let mut reader = BufReader::new(&data[..]);
        assert_eq!(
            read_line(&mut reader).map(|l| l.len()),
            Some(MAX_LINE as usize)
        );
        assert_eq!(read_line(&mut reader).as_deref(), Some("xxxxxxxxxx"));
        assert_eq!(
            read_line(&mut reader).as_deref(),
            Some("\u{fffd}\u{fffd}ok")
        );
        assert_eq!(read_line(&mut reader), None);
    }
}
