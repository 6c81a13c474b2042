//! The exact command sequences real clients send, transcribed from
//! shared/docs/gtp-clients.md §3–4: Sabaki, GoGui, gogui-twogtp, kgsGtp,
//! gtp2ogs and the CGOS clients. Each test reads the responses the way that
//! client reads them.

use crate::common;
use common::{is_vertex, parse_response, Engine};
use std::time::Duration;

/// Reads `n` responses, checking framing, and returns their results.
fn results(e: &mut Engine, n: usize) -> Vec<String> {
    (0..n)
        .map(|_| {
            let (ok, id, r) = e.response();
            assert!(ok, "failed: {r}");
            assert_eq!(id, None);
            r
        })
        .collect()
}

/// Sabaki (`@sabaki/gtp` + `enginesyncer.js`): everything is written at once
/// without waiting (pipelining); `list_commands` split on `\n` without
/// trimming; sync burst with `komi` first, setup stones as non-alternating
/// plays; moves through `kata-genmove_analyze B 50`; `undo` then plays.
#[test]
fn sabaki_attach_sync_and_generate() {
    let mut e = Engine::spawn(&[]);
    e.write(b"name\nversion\nprotocol_version\nlist_commands\n");
    let r = results(&mut e, 4);
    assert_eq!(r[0], "tengen");
    assert_eq!(r[2], "2");
    let commands: Vec<&str> = r[3].split('\n').collect();
    assert!(commands.iter().all(|c| c.trim() == *c && !c.is_empty()));
    // Sabaki picks the first of these it finds, in this order.
    let genmove_cmd = [
        "genmove_analyze",
        "kata-genmove_analyze",
        "lz-genmove_analyze",
    ]
    .into_iter()
    .find(|c| commands.contains(c))
    .unwrap_or("genmove");
    assert_eq!(genmove_cmd, "kata-genmove_analyze");
    let analyze_cmd = ["analyze", "kata-analyze", "lz-analyze"]
        .into_iter()
        .find(|c| commands.contains(c))
        .unwrap();
    assert_eq!(analyze_cmd, "kata-analyze");
    assert!(commands.contains(&"undo"));
    assert!(!commands.contains(&"analyze") && !commands.contains(&"genmove_analyze"));

    // The sync burst, pipelined: komi before boardsize, setup stones (AB D4
    // Q16, AW D16) as plays of the same colour in a row, then the moves.
    e.write(
        b"komi 6.5\nboardsize 19\nclear_board\nplay B D4\nplay B Q16\nplay W D16\nplay W Q4\nplay B pass\nplay W C3\n",
    );
    results(&mut e, 9);
    e.send("kata-genmove_analyze B 50");
    assert_eq!(e.line(), "=\n");
    let mv = loop {
        let l = e.line();
        if let Some(m) = l.strip_prefix("play ") {
            break m.trim().to_lowercase();
        }
        assert!(l.starts_with("info "), "{l:?}");
    };
    assert_eq!(e.line(), "\n", "the blank line ends the response");
    assert!(
        mv == "pass" || mv == "resign" || is_vertex(&mv.to_uppercase(), 19),
        "{mv}"
    );
    // Navigating back two moves: `undo` twice, then the new branch.
    e.write(b"undo\nundo\nplay W R16\n");
    results(&mut e, 3);
    // A full resync (clear_board + all plays) also works after that.
    e.write(b"clear_board\nplay B D4\nplay B Q16\nplay W D16\n");
    results(&mut e, 4);
    e.send("quit");
    assert_eq!(e.raw_response(), "= \n\n");
    assert!(e.wait().success());
}

/// GoGui (`GoGui.java`, `GtpSynchronizer`): attach sequence, `gogui-interrupt`
/// query, analyze command list, then the synchroniser with `play W PASS`,
/// `time_left` before `genmove b`, and the `# interrupt` line which must get
/// no response; scoring with `final_status_list dead`.
#[test]
fn gogui_attach_and_play() {
    let mut e = Engine::spawn(&[]);
    for cmd in ["name", "protocol_version", "version", "list_commands"] {
        e.ok(cmd);
    }
    assert_eq!(e.ok("gogui-interrupt"), "");
    e.ok("name");
    e.ok("protocol_version");
    let menu = e.ok("gogui-analyze_commands");
    for entry in menu.lines() {
        let fields: Vec<&str> = entry.split('/').collect();
        assert!((3..=5).contains(&fields.len()), "{entry}");
        let types = [
            "gfx", "plist", "string", "dboard", "none", "sboard", "cboard", "pspairs",
        ];
        assert!(types.contains(&fields[0]), "{entry}");
        let name = fields[2].split(' ').next().unwrap();
        e.send(&format!("known_command {name}"));
        assert_eq!(e.response().2, "true", "{entry}");
    }
    // The synchroniser.
    e.ok("boardsize 9");
    e.ok("clear_board");
    e.ok("komi 7");
    e.ok("time_settings 300 30 5");
    e.ok("play B E5");
    e.ok("play W PASS");
    e.ok("time_left b 290 0");
    e.send("# interrupt");
    let mv = e.ok("genmove b");
    assert!(is_vertex(&mv, 9) || mv == "pass", "{mv}");
    assert!(
        e.silent_for(Duration::from_millis(200)),
        "no response to `# interrupt`"
    );
    e.ok(&format!("play W {}", if mv == "C3" { "G7" } else { "C3" }));
    // An analyze command from the menu: graphics after thinking, then scoring.
    // GoGui shows one label per point: win rates never cover the numbered
    // stones of the variation; the status bar text has them all.
    let gfx = e.ok("tengen-best_moves w 0.2");
    let var: Vec<&str> = gfx
        .lines()
        .filter_map(|l| l.strip_prefix("VAR "))
        .flat_map(|v| v.split(' ').skip(1).step_by(2))
        .collect();
    for line in gfx.lines() {
        if let Some(labels) = line.strip_prefix("LABEL ") {
            for point in labels.split(' ').step_by(2) {
                assert!(!var.contains(&point), "label on a numbered stone: {gfx}");
            }
        } else {
            assert!(
                line.starts_with("VAR ") || line.starts_with("TEXT White to play: "),
                "{gfx}"
            );
        }
    }
    assert!(!var.is_empty() && gfx.contains("TEXT "), "{gfx}");
    e.ok("final_status_list dead");
    e.ok("undo");
    e.ok("quit");
}

/// gogui-twogtp: two engines, each gets `protocol_version name version
/// list_commands`, then per game boardsize/clear_board/komi; `genmove` to the
/// side to move and `play` to the other until two passes; `final_score` and
/// `cputime` to both, which must agree.
#[test]
fn gogui_twogtp_game_loop() {
    let mut black = Engine::spawn(&["--seed", "3"]);
    let mut white = Engine::spawn(&["--seed", "4"]);
    for e in [&mut black, &mut white] {
        for cmd in ["protocol_version", "name", "version", "list_commands"] {
            e.ok(cmd);
        }
        e.ok("boardsize 9");
        e.ok("clear_board");
        e.ok("komi 6.5");
    }
    let mut passes = 0;
    let mut moves = 0;
    let mut to_move = 0;
    while passes < 2 && moves < 1000 {
        let (color, mover, other) = if to_move == 0 {
            ("b", &mut black, &mut white)
        } else {
            ("w", &mut white, &mut black)
        };
        let mv = mover.ok(&format!("genmove {color}"));
        assert!(mv.eq_ignore_ascii_case("pass") || is_vertex(&mv, 9), "{mv}");
        assert!(!mv.eq_ignore_ascii_case("resign"));
        // twogtp relays the move as it came; the other engine must accept it.
        other.ok(&format!("play {color} {mv}"));
        passes = if mv == "pass" { passes + 1 } else { 0 };
        moves += 1;
        to_move = 1 - to_move;
    }
    assert!(passes == 2, "the game ends by two passes ({moves} moves)");
    let sb = black.ok("final_score");
    let sw = white.ok("final_score");
    assert_eq!(sb, sw);
    assert!(
        sb == "0" || sb.starts_with("B+") || sb.starts_with("W+"),
        "{sb}"
    );
    assert_eq!(black.ok("showboard"), white.ok("showboard"));
    for e in [&mut black, &mut white] {
        e.ok("cputime");
        e.ok("quit");
    }
}

/// The first of two candidate replies that is not the engine's move `taken`
/// (the engine may well have chosen a point a transcript hard-codes).
fn free_of<'a>(taken: &str, candidates: [&'a str; 2]) -> &'a str {
    if taken.eq_ignore_ascii_case(candidates[0]) {
        candidates[1]
    } else {
        candidates[0]
    }
}

/// kgsGtp (decompiled `GtpGame.java`): `list_commands name version` at start
/// (no `protocol_version`); per game `kgs-rules`, `boardsize`, `clear_board`,
/// `komi` as a Java float, `kgs-time_settings`, handicap, replayed moves in
/// lower case, `time_left` for its own colour only, `genmove`, then
/// `final_status_list dead` and `kgs-game_over`; a resumed game continues
/// directly with `genmove`. Responses read as `substring(1).trim()`, the
/// list split on `[\n ]`, vertices matched by `([a-hj-zA-HJ-Z])(\d\d?)`.
#[test]
fn kgsgtp_game_sequence() {
    let mut e = Engine::spawn(&[]);
    e.send("list_commands");
    let raw = e.raw_response();
    let supported: Vec<&str> = raw[1..].trim().split(['\n', ' ']).collect();
    for c in [
        "kgs-rules",
        "kgs-time_settings",
        "kgs-genmove_cleanup",
        "kgs-game_over",
        "final_status_list",
        "place_free_handicap",
        "set_free_handicap",
        "undo",
        "clear_board",
        "time_left",
    ] {
        assert!(supported.contains(&c), "{c}");
    }
    e.ok("name");
    e.ok("version");
    let vertex_or_pass = |s: &str| {
        s.eq_ignore_ascii_case("pass") || s == "resign" || {
            let (l, d) = s.split_at(1);
            l.chars()
                .all(|c| c.is_ascii_alphabetic() && !c.eq_ignore_ascii_case(&'i'))
                && (1..=2).contains(&d.len())
                && d.chars().all(|c| c.is_ascii_digit())
        }
    };
    // Game 1: tengen is Black with 3 free handicap stones, chinese rules.
    e.ok("kgs-rules chinese");
    e.ok("boardsize 19");
    e.ok("clear_board");
    e.ok("komi 0.5");
    e.ok("kgs-time_settings byoyomi 600 30 5");
    let stones = e.ok("place_free_handicap 3");
    let stones: Vec<&str> = stones.split([' ', '\n']).collect();
    assert_eq!(stones.len(), 3);
    assert!(stones.iter().all(|s| is_vertex(s, 19)));
    e.ok("play w q3");
    e.ok("time_left b 587 0");
    let mv = e.ok("genmove b");
    assert!(vertex_or_pass(&mv), "{mv}");
    e.ok(&format!("play w {}", free_of(&mv, ["c17", "r17"])));
    e.ok("time_left b 25 3");
    let mv = e.ok("genmove b");
    assert!(vertex_or_pass(&mv), "{mv}");
    e.ok("play w pass");
    let mv = e.ok("kgs-genmove_cleanup b");
    assert!(vertex_or_pass(&mv) && mv != "resign", "{mv}");
    let dead = e.ok("final_status_list dead");
    for v in dead.split([' ', '\n']).filter(|v| !v.is_empty()) {
        assert!(is_vertex(v, 19), "{v}");
    }
    let board = e.ok("showboard");
    e.ok("kgs-game_over");
    // An adjourned game resumes: the state is kept.
    assert_eq!(e.ok("showboard"), board);
    e.ok("genmove b");
    // Game 2: server-chosen handicap, japanese rules, absolute time.
    e.ok("kgs-rules japanese");
    e.ok("boardsize 19");
    e.ok("clear_board");
    e.ok("komi 6.5");
    e.ok("kgs-time_settings absolute 300");
    e.ok("set_free_handicap d4 q16");
    let white = e.ok("genmove w");
    e.ok(&format!("play b {}", free_of(&white, ["d16", "q4"])));
    e.ok("time_left w 290 0");
    e.ok("genmove w");
    e.ok("undo");
    e.ok("undo");
    e.ok("kgs-time_settings none");
    e.ok("kgs-time_settings canadian 600 300 25");
    e.ok("kgs-rules aga");
    e.ok("kgs-rules new_zealand");
    e.ok("final_status_list dead");
    e.ok("kgs-game_over");
    e.ok("quit");
}

/// gtp2ogs (`Bot.ts`, `Game.ts`): CRLF after every command, commands
/// pipelined, responses split on a blank line and read as
/// `substring(1).trim()`; `kata-list_time_settings` then the load sequence;
/// before every genmove the clock for **both** colours; byo-yomi faked for
/// engines without `kgs-time_settings` is not needed since it is listed.
#[test]
fn gtp2ogs_crlf_sequence() {
    let mut e = Engine::spawn(&[]);
    e.write(b"list_commands\r\n");
    let raw = e.raw_response();
    let listed: Vec<&str> = raw
        .split(['\r', '\n'])
        .map(|l| l.trim().trim_start_matches('=').trim())
        .filter(|l| !l.is_empty())
        .collect();
    for c in [
        "kata-list_time_settings",
        "kata-time_settings",
        "kgs-time_settings",
        "time_left",
    ] {
        assert!(listed.contains(&c), "{c}");
    }
    // Load, pipelined.
    e.write(b"kata-list_time_settings\r\nboardsize 9\r\nclear_board\r\nkomi 6.5\r\n");
    let systems = e.response().2;
    assert!(systems.contains("fischer-capped"), "{systems}");
    results(&mut e, 3);
    // Fischer through kata-time_settings, then a move.
    e.write(
        b"kata-time_settings fischer-capped 600 5 1200 -1\r\ntime_left black 587 0\r\ntime_left white 600 0\r\ngenmove black\r\n",
    );
    let r = results(&mut e, 4);
    let mv = r[3].trim().to_lowercase();
    assert!(mv == "pass" || is_vertex(&mv.to_uppercase(), 9), "{mv}");
    let reply = if mv == "c3" { "g7" } else { "c3" };
    e.write(format!("play white {reply}\r\n").as_bytes());
    results(&mut e, 1);
    // Byo-yomi via kgs-time_settings; in overtime the periods left.
    e.write(
        b"kgs-time_settings byoyomi 600 30 5\r\ntime_left black 25 3\r\ntime_left white 0 5\r\ngenmove black\r\n",
    );
    results(&mut e, 4);
    // Canadian and simple; negative times (seen from OGS) are tolerated.
    e.write(b"time_settings 0 30 1\r\ntime_left black 30 1\r\ntime_left white -2 1\r\ngenmove black\r\n");
    results(&mut e, 4);
    // Opponent handicap stones arrive one by one as black plays.
    e.write(b"boardsize 19\r\nclear_board\r\nkomi 0.5\r\nplay black d4\r\nplay black q16\r\nplay black d16\r\ngenmove white\r\n");
    results(&mut e, 7);
    // tengen as Black with free placement must give exactly N stones.
    e.write(b"boardsize 19\r\nclear_board\r\nplace_free_handicap 5\r\n");
    let r = results(&mut e, 3);
    let stones: Vec<&str> = r[2].split_whitespace().collect();
    assert_eq!(stones.len(), 5);
    assert!(stones.iter().all(|s| *s != "pass" && is_vertex(s, 19)));
    e.write(b"quit\r\n");
    assert_eq!(e.raw_response(), "= \n\n");
    assert!(e.wait().success());
}

/// CGOS: the Tcl client reads exactly two lines per command (the response
/// and the blank line) and parses `=\s+(\S+)`; it exits on any `?`. The
/// Python client sends `komi` and `time_settings` before `clear_board`.
#[test]
fn cgos_two_line_reads() {
    let mut e = Engine::spawn(&[]);
    e.send("list_commands");
    let raw = e.raw_response();
    assert!(raw.starts_with("= ") && raw.as_bytes()[2].is_ascii_alphabetic());
    let two_lines = |e: &mut Engine, cmd: &str| -> String {
        e.send(cmd);
        let first = e.line();
        let second = e.line();
        assert_eq!(second, "\n", "{cmd}: two lines");
        let (ok, _, r) = parse_response(&format!("{first}\n")).unwrap();
        assert!(ok, "{cmd}: {r}");
        r
    };
    // Tcl client.
    for cmd in [
        "boardsize 9",
        "clear_board",
        "komi 7.5",
        "time_settings 300 0 0",
        "play b e5",
        "time_left w 295 0",
    ] {
        assert_eq!(two_lines(&mut e, cmd), "");
    }
    let mv = two_lines(&mut e, "genmove w");
    assert!(mv == "pass" || is_vertex(&mv, 9), "{mv}");
    assert_eq!(two_lines(&mut e, "play b PASS"), "");
    assert!(e.silent_for(Duration::from_millis(100)));
    // Python client: komi and time_settings before clear_board; komi stays.
    for cmd in [
        "boardsize 9",
        "komi 7.5",
        "time_settings 300 0 0",
        "clear_board",
        "time_left b 300 0",
    ] {
        assert_eq!(two_lines(&mut e, cmd), "");
    }
    assert_eq!(two_lines(&mut e, "final_score"), "W+7.5");
    let mv = two_lines(&mut e, "genmove b");
    assert!(mv == "pass" || is_vertex(&mv, 9), "{mv}");
    assert_eq!(two_lines(&mut e, "quit"), "");
}
