//! `tengen check` as a program: arguments, recursion into directories, text
//! and JSON output, `--quiet`, rule flags and exit statuses.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sgf").join(name)
}

/// Runs `tengen check ARGS` and returns (exit code, stdout lines without the
/// summary, summary line).
fn check(args: &[&str]) -> (i32, Vec<String>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .arg("check")
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut lines: Vec<String> = stdout.lines().map(str::to_owned).collect();
    let summary = lines.pop().unwrap_or_default();
    (out.status.code().unwrap(), lines, summary)
}

fn path(name: &str) -> String {
    fixture(name).to_string_lossy().into_owned()
}

/// `text` as written inside a JSON string (a Windows path's `\` escaped).
fn in_json(text: &str) -> String {
    let quoted = serde_json::Value::from(text).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

#[test]
fn legal_games_exit_0() {
    let (code, lines, summary) = check(&[&path("positions/t01-simple-ko.sgf")]);
    assert_eq!(code, 0);
    assert!(lines.is_empty(), "{lines:?}");
    assert!(
        summary.starts_with("checked 1 file(s), 1 game(s), 1 move(s) in "),
        "{summary}"
    );
    assert!(summary.ends_with(": 0 violation(s), 0 file(s) with errors"));
}

#[test]
fn violations_exit_1_in_text_and_json() {
    let t7 = path("positions/t07-psk-only.sgf");
    let (code, lines, _) = check(&["--ko", "positional", &t7]);
    assert_eq!(code, 1);
    assert_eq!(
        lines,
        [format!(
            "{t7}: game 1, move 3: W B19 [ba]: positional superko: repeats the start position"
        )]
    );
    let (code, lines, summary) = check(&["--json", "--rules", "tromp-taylor", &t7]);
    assert_eq!(code, 1);
    let t7_json = in_json(&t7);
    assert_eq!(
        lines,
        [
            format!(
                r#"{{"type":"violation","file":"{t7_json}","game":1,"move":3,"color":"W","point":"B19","sgf_point":"ba","reason":"positional-superko","repeats_move":0}}"#
            ),
            format!(r#"{{"type":"file","file":"{t7_json}","games":1,"moves":3,"violations":1}}"#),
        ]
    );
    assert!(
        summary.starts_with(
            r#"{"type":"summary","files":1,"games":1,"moves":3,"violations":1,"errors":0,"seconds":"#
        ),
        "{summary}"
    );
    // Situational superko allows it; so does --rules over RU.
    assert_eq!(check(&["--ko", "situational", &t7]).0, 0);
    assert_eq!(check(&["--rules", "japanese", &t7]).0, 0);
    // --quiet: the summary only.
    let (code, lines, _) = check(&["--quiet", "--ko", "positional", &t7]);
    assert_eq!((code, lines.len()), (1, 0));
}

#[test]
fn unreadable_files_exit_2_and_say_which() {
    let bad = path("malformed/unescaped-bracket.sgf");
    let t7 = path("positions/t07-psk-only.sgf");
    let (code, lines, summary) = check(&["--ko", "positional", &bad, &t7, "/no/such/file.sgf"]);
    assert_eq!(code, 2, "errors win over violations");
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(
        lines[0],
        format!("{bad}: error: line 2, column 17: expected a property identifier, ';', '(' or ')', found ']'")
    );
    assert!(lines[1].starts_with(&t7));
    assert!(
        lines[2].starts_with("/no/such/file.sgf: error: cannot read: "),
        "{}",
        lines[2]
    );
    assert!(
        summary.ends_with("1 violation(s), 2 file(s) with errors"),
        "{summary}"
    );
    let (_, lines, _) = check(&["--json", &bad]);
    let bad = in_json(&bad);
    assert_eq!(
        lines,
        [format!(
            r#"{{"type":"error","file":"{bad}","message":"line 2, column 17: expected a property identifier, ';', '(' or ')', found ']'"}}"#
        )]
    );
}

#[test]
fn directories_are_searched_recursively_in_order() {
    let dir = std::env::temp_dir().join(format!("tengen-sgf-cli-{}", std::process::id()));
    let sub = dir.join("b");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(dir.join("a.SGF"), "(;SZ[9];B[ee];W[ee])").unwrap();
    std::fs::write(sub.join("c.sgf"), "(;SZ[9];B[aa])").unwrap();
    std::fs::write(dir.join("notes.txt"), "(;SZ[9];B[aa];W[aa])").unwrap();
    let (code, lines, summary) = check(&[&dir.to_string_lossy()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 1);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].ends_with("a.SGF: game 1, move 2: W E5 [ee]: point occupied (move skipped)"));
    assert!(
        summary.starts_with("checked 2 file(s), 2 game(s), 3 move(s)"),
        "{summary}"
    );
}

#[test]
fn output_does_not_depend_on_the_thread_count() {
    let all = path("");
    let (c1, one, _) = check(&["--threads", "1", "--json", &all]);
    let (c2, two, _) = check(&["--threads", "2", "--json", &all]);
    assert_eq!(c1, 2, "sgf/ holds malformed files");
    assert_eq!(c1, c2);
    assert_eq!(one, two);
    assert!(one.len() > 40, "{}", one.len());
}

#[test]
fn a_directory_without_sgf_files_is_an_error() {
    let dir = std::env::temp_dir().join(format!("tengen-empty-check-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("notes.txt"), "no games here").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .arg("check")
        .arg(&dir)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no SGF file found"), "{stderr}");
}

#[test]
fn natural_situational_violations_name_their_rule() {
    let file = path("positions/t03-triple-ko.sgf");
    let (code, lines, _) = check(&["--ko", "natural-situational", &file]);
    assert_eq!(code, 1);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("natural situational superko: ")),
        "{lines:?}"
    );
    let (_, lines, _) = check(&["--json", "--ko", "natural-situational", &file]);
    assert!(
        lines
            .iter()
            .any(|l| l.contains(r#""reason":"natural-situational-superko""#)),
        "{lines:?}"
    );
    // Plain situational superko keeps its name.
    let (_, lines, _) = check(&["--ko", "situational", &file]);
    assert!(
        lines.iter().any(|l| l.contains(": situational superko: ")),
        "{lines:?}"
    );
}
