//! The command table: one entry per GTP command, which drives dispatch,
//! `list_commands` and `known_command` alike, and the handlers.
//!
//! The handlers of the commands that set the game up (clock, rules, handicap,
//! SGF) are in [`super::setup`]. Each handler checks its arguments, makes one
//! call into the game, the clock or the engine, and formats the result.
//! Handlers are named after the wire command (`cmd_play` for `play`) and
//! documented where they are defined.

use super::analysis::{AnalyzeArgs, Flavor};
use super::args::{arity, color_arg, empty, number, seconds, text};
use super::network::{human_policy, NETWORK_COMMANDS};
use super::params::PARAM_COMMANDS;
use super::protocol::{self, Command, GtpError};
use super::session::{Entry, MoveUse, Reply, Session};
use super::setup::{
    cmd_fixed_handicap, cmd_kata_get_rules, cmd_kata_list_time_settings, cmd_kata_set_rule,
    cmd_kata_set_rules, cmd_kata_time_settings, cmd_kgs_rules, cmd_kgs_time_settings, cmd_loadsgf,
    cmd_place_free_handicap, cmd_printsgf, cmd_set_free_handicap, cmd_set_position, cmd_time_left,
    cmd_time_settings,
};
use crate::engine::{Decision, Report};
use crate::go::board::{Color, Geometry, Move, Point, Stone};
use crate::go::game::Game;
use crate::go::rules::Scoring;
use crate::go::score::GameResult;
use crate::go::vertex::{self, format_move, format_point, parse_move};
use crate::katago::values::cpp_double;
use std::fmt::Write;
use std::time::Duration;

/// Every command tengen implements, in `list_commands` order.
pub static COMMANDS: &[Entry] = &[
    // Required by GTP v2.
    Entry {
        name: "protocol_version",
        handler: cmd_protocol_version,
    },
    Entry {
        name: "name",
        handler: cmd_name,
    },
    Entry {
        name: "version",
        handler: cmd_version,
    },
    Entry {
        name: "known_command",
        handler: cmd_known_command,
    },
    Entry {
        name: "list_commands",
        handler: cmd_list_commands,
    },
    Entry {
        name: "quit",
        handler: cmd_quit,
    },
    Entry {
        name: "boardsize",
        handler: cmd_boardsize,
    },
    Entry {
        name: "rectangular_boardsize",
        handler: cmd_rectangular_boardsize,
    },
    Entry {
        name: "clear_board",
        handler: cmd_clear_board,
    },
    Entry {
        name: "komi",
        handler: cmd_komi,
    },
    Entry {
        name: "play",
        handler: cmd_play,
    },
    Entry {
        name: "genmove",
        handler: cmd_genmove,
    },
    // Standard.
    Entry {
        name: "undo",
        handler: cmd_undo,
    },
    Entry {
        name: "showboard",
        handler: cmd_showboard,
    },
    Entry {
        name: "final_score",
        handler: cmd_final_score,
    },
    Entry {
        name: "final_status_list",
        handler: cmd_final_status_list,
    },
    Entry {
        name: "time_settings",
        handler: cmd_time_settings,
    },
    Entry {
        name: "time_left",
        handler: cmd_time_left,
    },
    Entry {
        name: "fixed_handicap",
        handler: cmd_fixed_handicap,
    },
    Entry {
        name: "place_free_handicap",
        handler: cmd_place_free_handicap,
    },
    Entry {
        name: "set_free_handicap",
        handler: cmd_set_free_handicap,
    },
    Entry {
        name: "loadsgf",
        handler: cmd_loadsgf,
    },
    Entry {
        name: "printsgf",
        handler: cmd_printsgf,
    },
    Entry {
        name: "reg_genmove",
        handler: cmd_reg_genmove,
    },
    Entry {
        name: "cputime",
        handler: cmd_cputime,
    },
    // KataGo's names for what the commands above do, and its small extras.
    Entry {
        name: "gomill-cpu_time",
        handler: cmd_cputime,
    },
    Entry {
        name: "kata-search",
        handler: cmd_reg_genmove,
    },
    Entry {
        name: "kata-search_cancellable",
        handler: cmd_kata_search_cancellable,
    },
    Entry {
        name: "genmove_debug",
        handler: cmd_genmove,
    },
    Entry {
        name: "kata-search_debug",
        handler: cmd_reg_genmove,
    },
    Entry {
        name: "set_position",
        handler: cmd_set_position,
    },
    Entry {
        name: "get_komi",
        handler: cmd_get_komi,
    },
    Entry {
        name: "clear_cache",
        handler: cmd_clear_cache,
    },
    Entry {
        name: "stop",
        handler: cmd_stop,
    },
    // Servers.
    Entry {
        name: "kgs-rules",
        handler: cmd_kgs_rules,
    },
    Entry {
        name: "kgs-time_settings",
        handler: cmd_kgs_time_settings,
    },
    Entry {
        name: "kgs-genmove_cleanup",
        handler: cmd_kgs_genmove_cleanup,
    },
    Entry {
        name: "kgs-game_over",
        handler: cmd_kgs_game_over,
    },
    Entry {
        name: "kata-list_time_settings",
        handler: cmd_kata_list_time_settings,
    },
    Entry {
        name: "kata-time_settings",
        handler: cmd_kata_time_settings,
    },
    Entry {
        name: "kata-get-rules",
        handler: cmd_kata_get_rules,
    },
    Entry {
        name: "kata-set-rules",
        handler: cmd_kata_set_rules,
    },
    Entry {
        name: "kata-set-rule",
        handler: cmd_kata_set_rule,
    },
    Entry {
        name: "kata-get-models",
        handler: cmd_kata_get_models,
    },
    // Analysis.
    Entry {
        name: "lz-analyze",
        handler: cmd_lz_analyze,
    },
    Entry {
        name: "kata-analyze",
        handler: cmd_kata_analyze,
    },
    Entry {
        name: "lz-genmove_analyze",
        handler: cmd_lz_genmove_analyze,
    },
    Entry {
        name: "kata-genmove_analyze",
        handler: cmd_kata_genmove_analyze,
    },
    Entry {
        name: "kata-search_analyze",
        handler: cmd_kata_search_analyze,
    },
    Entry {
        name: "kata-search_analyze_cancellable",
        handler: cmd_kata_search_analyze_cancellable,
    },
    // GoGui.
    Entry {
        name: "gogui-analyze_commands",
        handler: cmd_gogui_analyze_commands,
    },
    Entry {
        name: "gogui-interrupt",
        handler: cmd_gogui_interrupt,
    },
    Entry {
        name: "tengen-best_moves",
        handler: cmd_tengen_best_moves,
    },
    Entry {
        name: "tengen-ownership",
        handler: cmd_tengen_ownership,
    },
];

/// Every command of this session: the standard table, KataGo's parameter
/// commands, then the network's commands when a network is loaded.
fn entries(network: bool) -> impl Iterator<Item = &'static Entry> {
    let extra: &'static [Entry] = if network { NETWORK_COMMANDS } else { &[] };
    COMMANDS.iter().chain(PARAM_COMMANDS).chain(extra)
}

/// The entry for a command name (already lower-cased).
pub fn find(name: &str, network: bool) -> Option<&'static Entry> {
    entries(network).find(|e| e.name == name)
}

/// `protocol_version` → `2`.
fn cmd_protocol_version(_: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    text("2")
}

/// `name` → `tengen`.
fn cmd_name(_: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    text("tengen")
}

/// `version` → the crate version.
fn cmd_version(_: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    text(env!("CARGO_PKG_VERSION"))
}

/// `known_command NAME` → `true` / `false`. Never fails.
fn cmd_known_command(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    let known = cmd.args.len() == 1
        && find(&cmd.args[0].to_ascii_lowercase(), s.network.is_some()).is_some();
    text(if known { "true" } else { "false" })
}

/// `list_commands` → one command per line, no trailing spaces.
fn cmd_list_commands(s: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    text(
        entries(s.network.is_some())
            .map(|e| e.name)
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// `quit` → empty; the session ends after the response.
fn cmd_quit(s: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    s.quit = true;
    empty()
}

/// Starts a new game on `geometry`: rules and komi kept, clocks full.
fn new_game(s: &mut Session, geometry: Geometry) {
    s.start_game(Game::new(geometry, s.game.rules(), s.game.komi()), 0);
}

/// `boardsize N` (or gtp2ogs's `boardsize W H`) → empty; clears the board,
/// keeps komi. Sizes 2..=25, square only: otherwise `unacceptable size`.
fn cmd_boardsize(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    let (w, h): (usize, usize) = match cmd.args.as_slice() {
        [n] => (number(n)?, number(n)?),
        [w, h] => (number(w)?, number(h)?),
        _ => return Err(GtpError::syntax()),
    };
    let geometry = (w == h)
        .then(|| Geometry::new(w))
        .flatten()
        .ok_or_else(|| GtpError::new("unacceptable size"))?;
    new_game(s, geometry);
    empty()
}

/// `rectangular_boardsize W H` (also `W:H`, or `N` for a square) → empty;
/// clears the board, keeps komi. KataGo's extension, read as KataGo reads it
/// (`command/gtp.cpp`); W columns (letters), H rows, each 2..=25. Errors with
/// KataGo's texts: `Expected int argument for boardsize or pair of ints but got
/// '…'` when the arguments are not one or two integers, `unacceptable size`
/// when a side is below 2 or above 25 (KataGo's second text there names its
/// compiled limit and recompiling, which says nothing about tengen).
fn cmd_rectangular_boardsize(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    let int = |t: &str| t.parse::<i64>().ok();
    let sides = match cmd.args.as_slice() {
        [one] => match one.split_once(':') {
            Some((w, h)) if !h.contains(':') => int(w).zip(int(h)),
            Some(_) => None,
            None => int(one).map(|n| (n, n)),
        },
        [w, h] => int(w).zip(int(h)),
        _ => None,
    };
    let (w, h) = sides.ok_or_else(|| {
        GtpError::new(format!(
            "Expected int argument for boardsize or pair of ints but got '{}'",
            cmd.args.join(" ")
        ))
    })?;
    let side = |n: i64| usize::try_from(n).unwrap_or(0);
    let geometry =
        Geometry::rect(side(w), side(h)).ok_or_else(|| GtpError::new("unacceptable size"))?;
    new_game(s, geometry);
    empty()
}

/// `clear_board` → empty: a new game, same size, rules and komi.
fn cmd_clear_board(s: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    new_game(s, s.game.board().geometry());
    empty()
}

/// `komi K` → empty. Any finite number in any spelling (`6.5`, `7`, `-3.5`).
fn cmd_komi(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    arity(cmd, 1)?;
    let komi: f64 = number(&cmd.args[0])?;
    if !komi.is_finite() {
        return Err(GtpError::syntax());
    }
    s.game.set_komi(komi);
    empty()
}

/// `get_komi` → the komi as KataGo writes it (`7.5`, `7`, `-3.5`).
fn cmd_get_komi(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    arity(cmd, 0)?;
    text(cpp_double(s.game.komi()))
}

/// `clear_cache` → empty; the search forgets what it learnt (its table and
/// cached evaluations), as KataGo's does.
fn cmd_clear_cache(s: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    s.engine.clear();
    empty()
}

/// `stop` → empty. Analysis and pondering already stop at any input line;
/// KataGo's clients send this to make sure.
fn cmd_stop(_: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    empty()
}

/// `play COLOR VERTEX` → empty, or `illegal move` with the game unchanged and
/// the reason on stderr. Either colour may play (non-alternating setup plays).
/// Every play enters the superko history.
fn cmd_play(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    arity(cmd, 2)?;
    let color = color_arg(cmd.args.first())?;
    let geometry = s.game.board().geometry();
    let mv = match parse_move(&cmd.args[1], geometry) {
        Ok(mv) => mv,
        Err(true) => return Err(GtpError::syntax()),
        Err(false) => {
            s.log(&format!(
                "illegal move {} {}: off the board",
                color, cmd.args[1]
            ));
            return Err(GtpError::new("illegal move"));
        }
    };
    match s.game.play(color, mv) {
        Ok(()) => empty(),
        Err(why) => {
            s.log(&format!(
                "illegal move {} {}: {why}",
                color,
                format_move(mv, geometry)
            ));
            Err(GtpError::new("illegal move"))
        }
    }
}

/// The answer to a move generation: the vertex, `pass` or `resign`, or
/// `cancelled` for a cancellable search that an input line stopped.
fn decision_text(s: &Session, d: Option<Decision>) -> String {
    match d {
        None => "cancelled".to_string(),
        Some(Decision::Resign) => "resign".to_string(),
        Some(Decision::Play(mv)) => format_move(mv, s.game.board().geometry()),
    }
}

/// The one-colour move generations: `genmove COLOR` and its variants.
fn generate(s: &mut Session, cmd: &Command, use_: MoveUse) -> Result<Reply, GtpError> {
    arity(cmd, 1)?;
    let color = color_arg(cmd.args.first())?;
    let d = s.generate(color, use_, None);
    text(decision_text(s, d))
}

/// `genmove COLOR` (and KataGo's `genmove_debug COLOR`, whose extra report
/// on stderr is tengen's usual line) → vertex, `pass` or `resign`; the move
/// is played. Stops early at GoGui's `# interrupt` with the best move so far.
fn cmd_genmove(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    generate(s, cmd, MoveUse::Play)
}

/// `reg_genmove COLOR` (and KataGo's `kata-search COLOR` and
/// `kata-search_debug COLOR`) → vertex or `pass`, board unchanged
/// (regression tests).
fn cmd_reg_genmove(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    generate(s, cmd, MoveUse::Answer)
}

/// `kata-search_cancellable COLOR` → like `kata-search`, but any input line
/// that arrives during the search cancels it: the answer is then
/// `cancelled`, and the line is handled next.
fn cmd_kata_search_cancellable(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    generate(s, cmd, MoveUse::AnswerUnlessCancelled)
}

/// `kgs-genmove_cleanup COLOR` → like `genmove`, but never passes while dead
/// opponent stones remain, and never resigns.
fn cmd_kgs_genmove_cleanup(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    generate(s, cmd, MoveUse::Cleanup)
}

/// `undo` → empty, or `cannot undo` at the start position (the empty board,
/// or the last handicap setup).
fn cmd_undo(s: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    if s.game.undo() {
        empty()
    } else {
        Err(GtpError::new("cannot undo"))
    }
}

/// `showboard` → a diagram (X black, O white, the last move in parentheses),
/// then captures, komi, rules and who is to move. No blank lines.
fn cmd_showboard(s: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    let board = s.game.board();
    let (width, height) = (board.geometry().width(), board.geometry().height());
    let last = s.game.last_turn().and_then(|t| match t.mv {
        Move::Play(p) => Some(p),
        Move::Pass => None,
    });
    let letters: String = (0..width)
        .map(|x| format!(" {}", vertex::column_letter(x)))
        .collect();
    let mut lines = vec![String::new(), format!("  {letters}")];
    for y in 0..height {
        let row = height - y;
        let mut line = format!("{row:>2}");
        let mut after_last = false;
        for x in 0..width {
            let p = board.geometry().point(x, y).expect("on board");
            let is_last = Some(p) == last;
            line.push(if is_last {
                '('
            } else if after_last {
                ')'
            } else {
                ' '
            });
            line.push(match board.at(p) {
                Stone::Black => 'X',
                Stone::White => 'O',
                _ => '.',
            });
            after_last = is_last;
        }
        line.push(if after_last { ')' } else { ' ' });
        line.push_str(&row.to_string());
        lines.push(line);
    }
    lines.push(format!("  {letters}"));
    let rules = s.game.rules();
    lines.push(format!(
        "Move {}, {} to play. Captures: black {}, white {}. Komi {}. Rules: ko {}, suicide {}, {} scoring.",
        s.game.move_number(),
        s.game.to_move(),
        board.captures(Color::Black),
        board.captures(Color::White),
        s.game.komi(),
        rules.ko.name(),
        if rules.suicide_allowed { "allowed" } else { "forbidden" },
        match rules.scoring {
            Scoring::Area => "area",
            Scoring::Territory => "territory",
        }
    ));
    text(lines.join("\n"))
}

/// The engine's dead stones, only those actually on the board.
fn dead_stones(s: &mut Session) -> Vec<Point> {
    let mut dead = s.engine.dead_stones(&s.game);
    let board = s.game.board();
    dead.retain(|&p| board.geometry().contains(p) && board.at(p).color().is_some());
    dead
}

/// `final_score` → `B+3.5`, `W+12` or `0`: the board counted under the rules'
/// scoring with the engine's dead stones removed, komi and White's handicap
/// bonus included (a 2-stone game under Chinese rules: komi + 2).
fn cmd_final_score(s: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    let dead = dead_stones(s);
    text(GameResult::of_game(&s.game, &dead).to_string())
}

/// `final_status_list alive|dead|seki` → the stones with that status, one chain
/// per line. Seki comes from the network's ownership (without `--model`,
/// `seki` is empty and seki stones are listed as alive).
fn cmd_final_status_list(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    arity(cmd, 1)?;
    let status = cmd.args[0].to_ascii_lowercase();
    // The status is checked before the (costly) dead stones are computed.
    let wanted: Box<dyn Fn(Point) -> bool> = match status.as_str() {
        "dead" => {
            let dead = dead_stones(s);
            Box::new(move |p| dead.contains(&p))
        }
        "alive" => {
            let dead = dead_stones(s);
            let seki = s.engine.seki_stones(&s.game);
            Box::new(move |p| !dead.contains(&p) && !seki.contains(&p))
        }
        "seki" => {
            let seki = s.engine.seki_stones(&s.game);
            Box::new(move |p| seki.contains(&p))
        }
        _ => return Err(GtpError::syntax()),
    };
    let board = s.game.board();
    let geometry = board.geometry();
    let mut seen = Vec::new();
    let mut lines = Vec::new();
    for p in board.geometry().points() {
        if board.at(p).color().is_none() || !wanted(p) {
            continue;
        }
        let head = board.chain_head(p);
        if seen.contains(&head) {
            continue;
        }
        seen.push(head);
        let mut chain: Vec<Point> = board.chain_stones(p).filter(|&q| wanted(q)).collect();
        chain.sort();
        lines.push(
            chain
                .into_iter()
                .map(|q| format_point(q, geometry))
                .collect::<Vec<_>>()
                .join(" "),
        );
    }
    text(lines.join("\n"))
}

/// `cputime` → seconds of processor time used by tengen, e.g. `12.530`.
fn cmd_cputime(_: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    text(format!("{:.3}", cpu_seconds()))
}

/// Processor time of the whole process: user + system time from
/// `/proc/self/stat` on Linux (in clock ticks of 1/100 s), else the wall
/// time since the first call. Only Linux reads the file: a Windows build run
/// under Wine would read the Wine server's figures there, not its own.
fn cpu_seconds() -> f64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let start = *START.get_or_init(std::time::Instant::now);
    let from_proc = cfg!(target_os = "linux")
        .then(|| std::fs::read_to_string("/proc/self/stat").ok())
        .flatten()
        .and_then(|stat| {
            // Fields after the command name in parentheses; utime and stime are
            // fields 14 and 15 of the whole line.
            let rest = &stat[stat.rfind(')')? + 2..];
            let fields: Vec<&str> = rest.split(' ').collect();
            let utime: f64 = fields.get(11)?.parse().ok()?;
            let stime: f64 = fields.get(12)?.parse().ok()?;
            Some((utime + stime) / 100.0)
        });
    from_proc.unwrap_or_else(|| start.elapsed().as_secs_f64())
}

/// `kgs-game_over` → empty. The game may only be adjourned, so nothing is reset.
fn cmd_kgs_game_over(s: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    s.log("game over (state kept)");
    empty()
}

/// The analysis commands' arguments, with the human policy they ask for,
/// and the colour to analyse (the player to move unless they name one).
fn analyze_args(
    s: &mut Session,
    cmd: &Command,
    flavor: Flavor,
) -> Result<(AnalyzeArgs, Color), GtpError> {
    let mut args = AnalyzeArgs::parse(&cmd.args, flavor, s.game.board().geometry())?;
    let color = args.color.unwrap_or(s.game.to_move());
    if args.human_policy_asked {
        args.human_policy = human_policy(s, color)?;
    }
    Ok((args, color))
}

fn analyze(s: &mut Session, cmd: &Command, flavor: Flavor) -> Result<Reply, GtpError> {
    let (args, color) = analyze_args(s, cmd, flavor)?;
    s.write(&protocol::stream_header(cmd.id.as_deref()));
    s.analyze_stream(color, flavor, &args);
    Ok(Reply::Written)
}

/// `lz-analyze [COLOR] [INTERVAL] [interval N] [maxmoves N] [avoid|allow C V,V N]`
/// → `=` then one `info` line every INTERVAL centiseconds, Leela Zero format,
/// until the next input line, then a blank line.
fn cmd_lz_analyze(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    analyze(s, cmd, Flavor::Lz)
}

/// `kata-analyze` → like `lz-analyze` in KataGo's format; also takes
/// `rootInfo true`, `ownership true`, … and (a tengen extension)
/// `humanPolicy true`.
fn cmd_kata_analyze(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    analyze(s, cmd, Flavor::Kata)
}

fn genmove_analyze(
    s: &mut Session,
    cmd: &Command,
    flavor: Flavor,
    use_: MoveUse,
) -> Result<Reply, GtpError> {
    let (args, color) = analyze_args(s, cmd, flavor)?;
    s.write(&protocol::stream_header(cmd.id.as_deref()));
    let d = s.generate(color, use_, Some((flavor, &args)));
    let line = format!("play {}\n\n", decision_text(s, d));
    s.write(&line);
    Ok(Reply::Written)
}

/// `lz-genmove_analyze [COLOR] [INTERVAL] …` → `=`, `info` lines while
/// thinking, then `play VERTEX` and a blank line; the move is played.
fn cmd_lz_genmove_analyze(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    genmove_analyze(s, cmd, Flavor::Lz, MoveUse::Play)
}

/// `kata-genmove_analyze` → like `lz-genmove_analyze`, KataGo's format.
fn cmd_kata_genmove_analyze(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    genmove_analyze(s, cmd, Flavor::Kata, MoveUse::Play)
}

/// `kata-search_analyze` → like `kata-genmove_analyze`, but the move is not
/// played.
fn cmd_kata_search_analyze(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    genmove_analyze(s, cmd, Flavor::Kata, MoveUse::Answer)
}

/// `kata-search_analyze_cancellable` → like `kata-search_analyze`, but any
/// input line during the search cancels it: `play cancelled` ends the
/// response, and the line is handled next.
fn cmd_kata_search_analyze_cancellable(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    genmove_analyze(s, cmd, Flavor::Kata, MoveUse::AnswerUnlessCancelled)
}

/// `kata-get-models` → KataGo's JSON list of the nets in use: the main net,
/// then the human-SL net, each with `name` (its file, or the built-in net's
/// published file name), `internalName`, `maxBatchSize`,
/// `usesHumanSLProfile`, `version` and `usingFP16`; `[]` without a net
/// (`--classical`).
fn cmd_kata_get_models(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    arity(cmd, 0)?;
    text(s.models.clone())
}

/// `gogui-analyze_commands` → GoGui's analyze menu, `type/label/command`.
fn cmd_gogui_analyze_commands(_: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    text(
        [
            "gfx/Best Moves (1 s)/tengen-best_moves %m 1",
            "gfx/Best Moves (5 s)/tengen-best_moves %m 5",
            "dboard/Ownership (1 s)/tengen-ownership %m 1",
            "plist/Dead Stones/final_status_list dead",
            "string/Final Score/final_score",
            "string/Rules/kata-get-rules",
            "string/Board/showboard",
        ]
        .join("\n"),
    )
}

/// `gogui-interrupt` → empty: tells GoGui that `# interrupt` stops `genmove`
/// and `tengen-best_moves`.
fn cmd_gogui_interrupt(_: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    empty()
}

/// The `COLOR [SECONDS]` arguments of the thinking GoGui commands: the colour
/// and how long to think (default 1 s, at most an hour).
fn color_and_seconds(cmd: &Command) -> Result<(Color, Duration), GtpError> {
    let color = color_arg(cmd.args.first())?;
    let secs = match cmd.args.get(1) {
        None => 1.0,
        Some(t) => seconds(t)?,
    };
    if cmd.args.len() > 2 || secs > 3600.0 {
        return Err(GtpError::syntax());
    }
    Ok((color, crate::time::duration(secs)))
}

/// `tengen-ownership COLOR [SECONDS]` → a GoGui `dboard` after thinking
/// SECONDS for COLOR: each point's expected owner from the search's playouts,
/// +1 Black to -1 White, one board row per line from the top.
fn cmd_tengen_ownership(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    let (color, duration) = color_and_seconds(cmd)?;
    let report = s.analyze_for(color, duration);
    let geometry = s.game.board().geometry();
    let (width, height) = (geometry.width(), geometry.height());
    if report.ownership.len() != geometry.area() {
        return text(vec![vec!["0"; width].join(" "); height].join("\n"));
    }
    // The report's ownership is for the player searched for: turn it to Black's view.
    let sign = if color == Color::Black { 1.0 } else { -1.0 };
    let rows: Vec<String> = report
        .ownership
        .chunks(width)
        .map(|row| {
            row.iter()
                .map(|v| format!("{:.2}", (sign * v).clamp(-1.0, 1.0)))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    text(rows.join("\n"))
}

/// `tengen-best_moves COLOR [SECONDS]` → GoGui graphics after thinking
/// SECONDS (default 1, or until `# interrupt`), see [`best_moves_gfx`].
fn cmd_tengen_best_moves(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    let (color, duration) = color_and_seconds(cmd)?;
    let report = s.analyze_for(color, duration);
    text(best_moves_gfx(&report, color, s.game.board().geometry()))
}

/// How many candidate moves the best-moves graphics show.
const BEST_MOVES_SHOWN: usize = 10;

/// GoGui `gfx` lines for a search of `color`: `VAR` draws the best variation
/// as numbered stones; `LABEL` writes the win rate (percent) of the other
/// candidates on their points, except where a stone of the variation stands,
/// since GoGui keeps one label per point and a label would hide the move
/// number; `TEXT` (GoGui's status bar) gives every candidate's win rate and
/// visits, the best move's included.
pub(super) fn best_moves_gfx(report: &Report, color: Color, geometry: Geometry) -> String {
    let mut lines = Vec::new();
    let mut numbered = Vec::new();
    if let Some(best) = report.moves.first() {
        let mut var = String::from("VAR");
        let mut c = color;
        for &mv in &best.pv {
            let _ = write!(
                var,
                " {} {}",
                if c == Color::Black { "b" } else { "w" },
                format_move(mv, geometry)
            );
            if let Move::Play(p) = mv {
                numbered.push(p);
            }
            c = c.opp();
        }
        lines.push(var);
    }
    let shown = &report.moves[..report.moves.len().min(BEST_MOVES_SHOWN)];
    let labels: Vec<String> = shown
        .iter()
        .filter_map(|m| match m.mv {
            Move::Play(p) if !numbered.contains(&p) => Some(format!(
                "{} {}",
                format_point(p, geometry),
                percent(m.winrate)
            )),
            _ => None,
        })
        .collect();
    if !labels.is_empty() {
        lines.push(format!("LABEL {}", labels.join(" ")));
    }
    if !shown.is_empty() {
        let moves: Vec<String> = shown
            .iter()
            .map(|m| {
                format!(
                    "{} {}% ({} visits)",
                    format_move(m.mv, geometry),
                    percent(m.winrate),
                    m.visits
                )
            })
            .collect();
        let side = if color == Color::Black {
            "Black"
        } else {
            "White"
        };
        lines.push(format!("TEXT {side} to play: {}", moves.join(", ")));
    }
    lines.join("\n")
}

/// A win rate 0..=1 as a whole percentage.
fn percent(winrate: f64) -> String {
    format!("{:.0}", (winrate * 100.0).clamp(0.0, 100.0))
}
