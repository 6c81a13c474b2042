//! The network from the outside: `--model` at start, `kata-raw-nn` over GTP
//! (present only with a net, errors for bad arguments, the session going on),
//! and `tengen bench --model`. Uses the b6c96 net from `../shared/nets/`.

use crate::common;

use common::Engine;
use std::path::PathBuf;
use std::process::Command;

fn b6c96() -> Option<PathBuf> {
    common::b6c96_path()
}

#[test]
fn kata_raw_nn_exists_only_with_a_net() {
    let mut plain = Engine::spawn(&[]);
    assert!(plain.fail("kata-raw-nn 0").contains("unknown command"));
    assert_eq!(plain.ok("known_command kata-raw-nn"), "false");
    assert!(!plain
        .ok("list_commands")
        .lines()
        .any(|l| l == "kata-raw-nn"));

    let Some(net) = b6c96() else { return };
    let mut e = Engine::spawn(&["--model", net.to_str().unwrap(), "--size", "9"]);
    assert_eq!(e.ok("known_command kata-raw-nn"), "true");
    assert!(e.ok("list_commands").lines().any(|l| l == "kata-raw-nn"));
    assert!(
        e.stderr_has("network from --model ") && e.stderr_has(": g170-b6c96"),
        "load is reported on stderr"
    );
    for (bad, why) in [
        ("kata-raw-nn", "expected an optional color, a symmetry"),
        ("kata-raw-nn 8", "symmetry must be 'all' or 0-7"),
        ("kata-raw-nn x", "symmetry must be 'all' or 0-7"),
        ("kata-raw-nn 0 2", "optimism must be a number from 0 to 1"),
    ] {
        let reason = e.fail(bad);
        assert!(reason.contains(why), "{bad}: {reason}");
    }
    e.ok("play b E5");
    let one = e.ok("kata-raw-nn 0");
    let lines: Vec<&str> = one.lines().collect();
    assert_eq!(lines[0], "symmetry 0");
    let policy = lines.iter().position(|l| *l == "policy").unwrap();
    // E5 is taken: NAN in the middle of the middle row.
    let row: Vec<&str> = lines[policy + 5].split_whitespace().collect();
    assert_eq!(row.len(), 9);
    assert_eq!(row[4], "NAN");
    let all = e.ok("kata-raw-nn all");
    assert_eq!(
        all.lines().filter(|l| l.starts_with("symmetry ")).count(),
        8
    );
    // Another colour than the player to move: still an answer.
    assert!(e.ok("kata-raw-nn b 3").starts_with("symmetry 3"));
    // A board the nets do not take is an error, and the session goes on.
    e.ok("boardsize 21");
    assert!(e.fail("kata-raw-nn 0").contains("19"));
    e.ok("boardsize 9");
    assert!(e.ok("kata-raw-nn 0").starts_with("symmetry 0"));
}

#[test]
fn a_bad_model_file_is_refused_at_start_with_a_reason() {
    let dir = std::env::temp_dir().join(format!("tengen-nn-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("not-a-net.bin.gz");
    std::fs::write(&bad, b"this is not gzip").unwrap();
    let missing = dir.join("missing.bin.gz");
    for (path, why) in [
        (bad.as_path(), "not a gzip file"),
        (missing.as_path(), "cannot open"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
            .args(["--model", path.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(out.stdout.is_empty(), "nothing on stdout");
        let err = String::from_utf8_lossy(&out.stderr);
        // The file named, then why it is refused.
        let named = format!("tengen: {}: {why}", path.display());
        assert!(err.contains(&named), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_measures_the_network() {
    let Some(net) = b6c96() else { return };
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["bench", "--model", net.to_str().unwrap()])
        .args(["--rounds", "1", "--seconds", "0.05"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let rates: Vec<&str> = text.lines().filter(|l| l.contains("evals/s")).collect();
    assert_eq!(rates.len(), 8, "{text}");
    assert!(rates[0].starts_with("19x19 network, batch 1, 1 thread: "));
    assert!(rates[7].starts_with("9x9 network, batch 8, 2 threads: "));
    // The process's memory is read on Linux only.
    if cfg!(target_os = "linux") {
        assert!(text.contains("peak resident memory"), "{text}");
    }
}
