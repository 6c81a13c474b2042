//! `tengen match` with GNU Go: tiny matches (7x7 and 5x5, level 0). Each test
//! skips with a notice when /usr/games/gnugo is not installed.

mod match_support;

use match_support::TempDir;
use std::path::Path;
use std::process::Command;

const GNUGO: &str = "/usr/games/gnugo";

/// The GNU Go command line under the rules our `--rules chinese` uses.
fn gnugo() -> Option<String> {
    if Path::new(GNUGO).exists() {
        Some(format!(
            "{GNUGO} --mode gtp --level 0 --chinese-rules --positional-superko"
        ))
    } else {
        eprintln!("skipped: {GNUGO} is not installed (apt-get install gnugo)");
        None
    }
}

fn run_match(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .arg("match")
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "stdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn gnugo_against_itself_alternates_colours_and_agrees_with_the_referee() {
    let Some(g) = gnugo() else { return };
    let out = run_match(&[
        "--black",
        &g,
        "--white",
        &g,
        "--referee",
        &g,
        "--games",
        "2",
        "--size",
        "7",
        "--rules",
        "chinese",
    ]);
    assert!(out.starts_with("A: GNU Go"), "{out}");
    let games: Vec<&str> = out.lines().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(games.len(), 2, "{out}");
    for line in &games {
        assert!(
            line.contains("dead stones from the referee)") || line.contains("resigned"),
            "{line}"
        );
        // Our count with the referee's dead stones matches its final_score.
        assert!(!line.contains("referee's final_score"), "{line}");
        assert!(!line.contains("forfeits"), "{line}");
    }
    // GNU Go is deterministic: the same engine wins with the same colour, so
    // with colours alternating each engine wins one game.
    let result = |line: &str| {
        let after_colours = line.split(": ").nth(2).unwrap_or_default();
        after_colours
            .split(',')
            .next()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(result(games[0]), result(games[1]), "{out}");
    assert!(
        out.contains("wins: A 1, B 1, draws 0, no result 0"),
        "{out}"
    );
    assert!(out.contains("A win rate 50.0% over 2 games"), "{out}");
}

#[test]
fn gnugo_takes_time_settings_and_beats_a_passer() {
    let Some(g) = gnugo() else { return };
    let dir = TempDir::new();
    let passer = dir.script(
        "passer.sh",
        "while read -r c rest; do\n  case \"$c\" in\n    genmove) printf '= pass\\n\\n' ;;\n    quit) printf '= \\n\\n'; exit 0 ;;\n    *) printf '= \\n\\n' ;;\n  esac\ndone\n",
    );
    let out = run_match(&[
        "--black", &passer, "--white", &g, "--games", "2", "--size", "5", "--time", "1",
    ]);
    assert!(out.contains("1 s per move"), "{out}");
    assert!(out.contains("wins: A 0, B 2"), "{out}");
}

#[test]
fn tengen_against_gnugo_with_a_referee() {
    let Some(g) = gnugo() else { return };
    let tengen = format!("{} --quiet --seed 5", env!("CARGO_BIN_EXE_tengen"));
    let out = run_match(&[
        "--black",
        &tengen,
        "--white",
        &g,
        "--referee",
        &g,
        "--games",
        "2",
        "--size",
        "7",
        "--time",
        "1",
    ]);
    let games: Vec<&str> = out.lines().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(games.len(), 2, "{out}");
    for line in &games {
        assert!(!line.contains("forfeits"), "{line}");
        assert!(!line.contains("referee's final_score"), "{line}");
        assert!(
            line.contains("two passes") || line.contains("resigned"),
            "{line}"
        );
    }
}
