//! The GTP client against fake engines (small `sh` scripts) that misbehave:
//! garbage, early exit, hanging, floods on stderr, over-long responses.
//! The tests with such engines are Unix-only, as the scripts are run by `sh`.

#[cfg(unix)]
use crate::match_support;

#[cfg(unix)]
use match_support::TempDir;
use std::time::Duration;
#[cfg(unix)]
use std::time::Instant;
use tengen::match_runner::gtp_client::{GtpClient, GtpError};

#[cfg(unix)]
const SHORT: Duration = Duration::from_millis(700);
const LONG: Duration = Duration::from_secs(10);

/// A well-behaved engine loop with a configurable answer to `genmove`.
#[cfg(unix)]
fn engine_answering_genmove_with(dir: &TempDir, answer: &str) -> String {
    dir.script(
        "engine.sh",
        &format!(
            r#"while IFS= read -r line; do
  case "$line" in
    genmove*) printf '{answer}' ;;
    quit) printf '= \n\n'; exit 0 ;;
    *) printf '= \n\n' ;;
  esac
done
"#
        ),
    )
}

#[cfg(unix)]
#[test]
fn reads_ids_crlf_multiline_and_skips_stray_text() {
    let dir = TempDir::new();
    let cmd = engine_answering_genmove_with(
        &dir,
        r"warming up\nnot a response\n=7 first\r\nsecond line\r\n\r\n",
    );
    let mut c = GtpClient::spawn(&cmd, "fake").unwrap();
    assert_eq!(c.send("genmove b", LONG).unwrap(), "first\nsecond line");
    assert_eq!(c.send("boardsize 9", LONG).unwrap(), "");
    c.quit();
}

#[cfg(unix)]
#[test]
fn failure_responses_keep_the_engine_usable() {
    let dir = TempDir::new();
    let cmd = engine_answering_genmove_with(&dir, r"? illegal move\n\n");
    let mut c = GtpClient::spawn(&cmd, "fake").unwrap();
    match c.send("genmove b", LONG) {
        Err(e @ GtpError::Failed { .. }) => {
            assert!(!e.is_fatal());
            assert!(e.to_string().contains("illegal move"), "{e}");
        }
        other => panic!("expected a failure, got {other:?}"),
    }
    assert_eq!(c.send("clear_board", LONG).unwrap(), "");
}

#[cfg(unix)]
#[test]
fn garbage_without_a_response_times_out() {
    let dir = TempDir::new();
    let cmd = engine_answering_genmove_with(&dir, r"banana\n\001\377\376 junk\nmore junk\n");
    let mut c = GtpClient::spawn(&cmd, "fake").unwrap();
    let start = Instant::now();
    let err = c.send("genmove b", SHORT).unwrap_err();
    assert!(matches!(err, GtpError::Timeout { .. }), "{err:?}");
    assert!(err.is_fatal());
    assert!(start.elapsed() < LONG);
}

#[cfg(unix)]
#[test]
fn endless_garbage_times_out() {
    let dir = TempDir::new();
    let cmd = dir.script("engine.sh", "read line\nyes 'banana banana'\n");
    let mut c = GtpClient::spawn(&cmd, "fake").unwrap();
    let err = c.send("genmove b", SHORT).unwrap_err();
    assert!(matches!(err, GtpError::Timeout { .. }), "{err:?}");
}

#[cfg(unix)]
#[test]
fn an_engine_that_exits_is_reported_with_its_stderr() {
    let dir = TempDir::new();
    let cmd = dir.script("engine.sh", "read line\necho 'out of memory' >&2\nexit 3\n");
    let mut c = GtpClient::spawn(&cmd, "fake").unwrap();
    let err = c.send("list_commands", LONG).unwrap_err();
    match &err {
        GtpError::Exited { detail, .. } => {
            assert!(detail.contains("out of memory"), "{detail}");
            assert!(detail.contains('3'), "exit status missing: {detail}");
        }
        other => panic!("expected an exit, got {other:?}"),
    }
    // Later commands fail at once instead of writing to a closed pipe.
    let err = c.send("name", LONG).unwrap_err();
    assert!(matches!(err, GtpError::Exited { .. }), "{err:?}");
}

#[test]
fn a_command_that_does_not_exist_fails_cleanly() {
    let mut c = GtpClient::spawn("/nonexistent/engine --gtp", "fake").unwrap();
    let err = c.send("list_commands", LONG).unwrap_err();
    assert!(matches!(err, GtpError::Exited { .. }), "{err:?}");
}

/// State letter of a process from /proc, `None` if it is gone.
#[cfg(unix)]
fn process_state(pid: &str) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The state follows the parenthesised command name.
    stat.rsplit(')').next()?.trim().chars().next()
}

#[cfg(unix)]
#[test]
fn a_hung_engine_times_out_and_kill_takes_its_children() {
    let dir = TempDir::new();
    let pid_file = dir.path().join("sleeper.pid");
    let body = format!(
        "read line\nsleep 300 &\necho $! > {}\nwait\n",
        pid_file.display()
    );
    let cmd = dir.script("hang.sh", &body);
    let mut c = GtpClient::spawn(&cmd, "fake").unwrap();
    let err = c.send("genmove b", SHORT).unwrap_err();
    assert!(matches!(err, GtpError::Timeout { .. }), "{err:?}");
    let sleeper = std::fs::read_to_string(&pid_file).unwrap();
    let sleeper = sleeper.trim();
    assert!(matches!(process_state(sleeper), Some('S' | 'R')));
    c.kill();
    // Killed with its group: gone, or a zombie waiting for a reaper.
    wait_until_not_running(sleeper);
}

#[cfg(unix)]
#[test]
fn children_left_behind_by_an_exited_engine_are_killed() {
    let dir = TempDir::new();
    let pid_file = dir.path().join("orphan.pid");
    let body = format!(
        "read line\nsleep 300 &\necho $! > {}\nexit 0\n",
        pid_file.display()
    );
    let cmd = dir.script("leaver.sh", &body);
    let mut c = GtpClient::spawn(&cmd, "fake").unwrap();
    // The orphan keeps stdout open, so the shell's exit alone is not seen.
    let err = c.send("name", SHORT).unwrap_err();
    assert!(err.is_fatal(), "{err:?}");
    let orphan = std::fs::read_to_string(&pid_file).unwrap();
    let orphan = orphan.trim();
    assert!(matches!(process_state(orphan), Some('S' | 'R')));
    c.kill();
    wait_until_not_running(orphan);
}

/// Waits (a bounded time) for a process to stop running, then checks it did.
#[cfg(unix)]
fn wait_until_not_running(pid: &str) {
    let deadline = Instant::now() + LONG;
    while matches!(process_state(pid), Some('S' | 'R')) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let state = process_state(pid);
    assert!(matches!(state, None | Some('Z' | 'X')), "{state:?}");
}

#[cfg(unix)]
#[test]
fn a_flood_on_stderr_does_not_block_the_engine() {
    let dir = TempDir::new();
    // 4 MB on stderr before the answer: far more than a pipe buffer holds.
    let cmd = dir.script(
        "engine.sh",
        r#"read line
i=0
while [ $i -lt 4096 ]; do
  printf '%01023d\n' 0 >&2
  i=$((i+1))
done
printf '= done\n\n'
read line
"#,
    );
    let mut c = GtpClient::spawn(&cmd, "fake").unwrap();
    assert_eq!(
        c.send("genmove b", Duration::from_secs(60)).unwrap(),
        "done"
    );
    assert!(c.stderr_tail().contains("0000"));
}

#[cfg(unix)]
#[test]
fn an_endless_response_is_refused() {
    let dir = TempDir::new();
    let cmd = dir.script(
        "engine.sh",
        "read line\nprintf '= start\\n'\nyes 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'\n",
    );
    let mut c = GtpClient::spawn(&cmd, "fake").unwrap();
    let err = c.send("genmove b", Duration::from_secs(60)).unwrap_err();
    assert!(matches!(err, GtpError::Malformed { .. }), "{err:?}");
}

#[cfg(unix)]
#[test]
fn an_extra_response_does_not_shift_later_answers() {
    let dir = TempDir::new();
    // Two responses to `genmove`: the second must not be taken as the answer
    // to the next command.
    let cmd = engine_answering_genmove_with(&dir, r"= C3\n\n= D4\n\n");
    let mut c = GtpClient::spawn(&cmd, "fake").unwrap();
    assert_eq!(c.send("genmove b", LONG).unwrap(), "C3");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(c.send("name", LONG).unwrap(), "");
}

/// The stderr tail is read to its end before an exit is reported: this engine
/// exits at once (the client sees its stdout close and its exit status), but
/// a process it left behind writes the last words to stderr a moment later,
/// which is the order the stderr-draining thread may see even for one process.
#[cfg(unix)]
#[test]
fn stderr_written_after_stdout_closed_is_still_reported() {
    let dir = TempDir::new();
    let cmd = dir.script(
        "engine.sh",
        "read line\n(exec 1>&-; sleep 0.4; echo 'late last words' >&2) &\nexit 4\n",
    );
    let mut c = GtpClient::spawn(&cmd, "fake").unwrap();
    let err = c.send("genmove b", LONG).unwrap_err();
    match &err {
        GtpError::Exited { detail, .. } => {
            assert!(detail.contains("late last words"), "{detail}");
            assert!(detail.contains('4'), "exit status missing: {detail}");
        }
        other => panic!("expected an exit, got {other:?}"),
    }
}
