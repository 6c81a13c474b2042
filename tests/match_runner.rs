//! `tengen match` end to end with scripted fake engines: every move checked,
//! every kind of engine failure turned into a lost game, colours alternating,
//! dead stones only when both engines agree.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory for one test's files.
fn temp_dir() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "tengen-match-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A fake engine: `genmove` answers the next word of `moves` (then `pass`;
/// the list restarts on `clear_board`), where `CRASH` exits and `HANG`
/// sleeps; `final_status_list dead` answers `dead`; `play` answers `play_answer`.
fn fake_engine(moves: &str, dead: &str, play_answer: &str) -> String {
    let path = temp_dir().join("fake.sh");
    let body = format!(
        r#"all="{moves}"
moves="$all"
while IFS= read -r line; do
  set -- $line
  case "$1" in
    list_commands) printf '= protocol_version\nname\nversion\nlist_commands\nboardsize\nclear_board\nkomi\nplay\ngenmove\nfinal_status_list\nquit\n\n' ;;
    name) printf '= fake\n\n' ;;
    clear_board) moves="$all"; printf '= \n\n' ;;
    play) printf '{play_answer}' ;;
    genmove)
      set -- $moves
      if [ $# -gt 0 ]; then m=$1; shift; moves="$*"; else m=pass; fi
      case "$m" in
        CRASH) echo 'fake: crashing' >&2; exit 1 ;;
        HANG) sleep 30 ;;
      esac
      printf '= %s\n\n' "$m" ;;
    final_status_list) printf '= {dead}\n\n' ;;
    quit) printf '= \n\n'; exit 0 ;;
    *) printf '= \n\n' ;;
  esac
done
"#
    );
    std::fs::write(&path, body).unwrap();
    format!("sh {}", path.display())
}

fn passer() -> String {
    fake_engine("", "", r"= \n\n")
}

/// Runs `tengen match` with the given engines and extra arguments; returns
/// stdout, after checking the exit status.
fn run_match(black: &str, white: &str, extra: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["match", "--black", black, "--white", white])
        .args(extra)
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

fn game_lines(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.starts_with("game ")).collect()
}

#[test]
fn two_passers_alternate_colours_and_white_wins_on_komi() {
    let out = run_match(
        &passer(),
        &passer(),
        &["--games", "2", "--size", "5", "--komi", "0.5"],
    );
    let games = game_lines(&out);
    assert_eq!(
        games,
        [
            "game 1: A black, B white: W+0.5, B wins, 2 moves, two passes",
            "game 2: A white, B black: W+0.5, A wins, 2 moves, two passes",
        ],
        "{out}"
    );
    assert!(
        out.contains("wins: A 1, B 1, draws 0, no result 0"),
        "{out}"
    );
    assert!(out.contains("A win rate 50.0% over 2 games"), "{out}");
    assert!(out.contains("as black 0/1, as white 1/1"), "{out}");
}

#[test]
fn an_illegal_move_loses_the_game() {
    // A plays C3 every time: the second time the point is occupied.
    let a = fake_engine("C3 C3", "", r"= \n\n");
    let out = run_match(&a, &passer(), &["--games", "2", "--size", "5"]);
    let games = game_lines(&out);
    assert_eq!(games.len(), 2, "{out}");
    for line in &games {
        assert!(
            line.contains("B wins") && line.contains("A forfeits: illegal move C3: point occupied"),
            "{line}"
        );
    }
    assert!(games[0].contains("W+F, B wins, 2 moves"), "{}", games[0]);
    assert!(games[1].contains("B+F, B wins, 3 moves"), "{}", games[1]);
    assert!(out.contains("wins: A 0, B 2"), "{out}");
}

#[test]
fn unreadable_moves_lose() {
    // Off the 5x5 board, and not a vertex at all.
    let a = fake_engine("E6", "", r"= \n\n");
    let out = run_match(&a, &passer(), &["--games", "1", "--size", "5"]);
    assert!(out.contains("A forfeits: unreadable move 'E6'"), "{out}");
    let a = fake_engine("banana", "", r"= \n\n");
    let out = run_match(&a, &passer(), &["--games", "1", "--size", "5"]);
    assert!(
        out.contains("W+F, B wins, 0 moves, A forfeits: unreadable move 'banana'"),
        "{out}"
    );
}

#[test]
fn superko_is_checked_under_the_chosen_rules() {
    // On 2x2, Black's third A2 captures three stones and recreates the
    // position after move 1: legal under simple ko, not under positional superko.
    let black = fake_engine("A2 A1 A2 A2", "", r"= \n\n");
    let white = fake_engine("B2 B1 A1", "", r"= \n\n");
    let args = |rules| {
        [
            "--games", "1", "--size", "2", "--komi", "0.5", "--rules", rules,
        ]
    };
    let out = run_match(&black, &white, &args("chinese"));
    assert!(
        out.contains("W+F, B wins, 6 moves, A forfeits: illegal move A2: positional superko: repeats the position after move 1"),
        "{out}"
    );
    let out = run_match(&black, &white, &args("japanese"));
    assert!(out.contains(", 9 moves, two passes"), "{out}");
}

#[test]
fn ko_recapture_is_illegal() {
    // 4x4 ko: Black B4 A3 B2, White C4 D3 C2, then Black C3, White B3
    // captures C3, and Black's immediate recapture at C3 is a ko violation.
    let black = fake_engine("B4 A3 B2 C3 C3", "", r"= \n\n");
    let white = fake_engine("C4 D3 C2 B3", "", r"= \n\n");
    for rules in ["japanese", "chinese", "aga", "new-zealand", "tromp-taylor"] {
        let out = run_match(
            &black,
            &white,
            &["--games", "1", "--size", "4", "--rules", rules],
        );
        assert!(
            out.contains("W+F, B wins, 8 moves, A forfeits: illegal move C3: ko"),
            "{rules}: {out}"
        );
    }
}

#[test]
fn resignation_crash_and_timeout_lose_and_the_next_game_still_runs() {
    let resigner = fake_engine("resign", "", r"= \n\n");
    let out = run_match(&resigner, &passer(), &["--games", "2", "--size", "5"]);
    let games = game_lines(&out);
    assert!(
        games[0].contains("W+R, B wins, 0 moves, A resigned"),
        "{out}"
    );
    assert!(
        games[1].contains("B+R, B wins, 1 moves, A resigned"),
        "{out}"
    );

    let crasher = fake_engine("CRASH", "", r"= \n\n");
    let out = run_match(&crasher, &passer(), &["--games", "2", "--size", "5"]);
    let games = game_lines(&out);
    assert_eq!(games.len(), 2, "{out}");
    for line in games {
        assert!(
            line.contains("B wins") && line.contains("A forfeits: exited during 'genmove"),
            "{line}"
        );
    }
    assert!(
        out.contains("fake: crashing"),
        "the stderr tail is reported: {out}"
    );

    let hanger = fake_engine("HANG", "", r"= \n\n");
    let out = run_match(
        &hanger,
        &passer(),
        &["--games", "2", "--size", "5", "--move-timeout", "0.5"],
    );
    let games = game_lines(&out);
    assert!(
        games[0].contains("W+T, B wins, 0 moves, A forfeits: no response to 'genmove b'"),
        "{out}"
    );
    assert!(games[1].contains("B+T, B wins, 1 moves"), "{out}");
}

#[test]
fn refusing_a_legal_move_loses() {
    let refuser = fake_engine("", "", r"? illegal move\n\n");
    let stone = fake_engine("C3", "", r"= \n\n");
    let out = run_match(&stone, &refuser, &["--games", "1", "--size", "5"]);
    assert!(
        out.contains("B+F, A wins, 1 moves, B forfeits: refused the legal move 'play b C3'"),
        "{out}"
    );
}

#[test]
fn dead_stones_count_only_when_both_engines_agree() {
    // Black plays C3 and passes; the lone stone is dead if both engines say so.
    let args = ["--games", "1", "--size", "5", "--komi", "0.5"];
    let out = run_match(
        &fake_engine("C3", "C3", r"= \n\n"),
        &fake_engine("", "c3", r"= \n\n"),
        &args,
    );
    assert!(
        out.contains("W+0.5, B wins, 3 moves, two passes (dead stones agreed by both engines)"),
        "{out}"
    );
    let out = run_match(&fake_engine("C3", "C3", r"= \n\n"), &passer(), &args);
    assert!(
        out.contains(
            "B+24.5, A wins, 3 moves, two passes (no dead stones removed (engines disagree))"
        ),
        "{out}"
    );
    // A referee decides alone.
    let referee = fake_engine("", "C3", r"= \n\n");
    let with_referee = [&args[..], &["--referee", &referee]].concat();
    let out = run_match(&fake_engine("C3", "", r"= \n\n"), &passer(), &with_referee);
    assert!(
        out.contains("W+0.5, B wins, 3 moves, two passes (dead stones from the referee)"),
        "{out}"
    );
}

#[test]
fn the_move_cap_ends_a_game_without_result() {
    let black = fake_engine("A1 B1 C1 D1", "", r"= \n\n");
    let white = fake_engine("A3 B3 C3 D3", "", r"= \n\n");
    let out = run_match(
        &black,
        &white,
        &["--games", "1", "--size", "5", "--max-moves", "5"],
    );
    assert!(
        out.contains("Void, no result, 5 moves, move cap reached"),
        "{out}"
    );
    assert!(out.contains("A win rate: no game with a result"), "{out}");
}

#[test]
fn bad_options_are_refused_without_running_engines() {
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args([
            "match", "--black", "false", "--white", "false", "--size", "30",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--size 30"));
    assert!(out.stdout.is_empty());
}
