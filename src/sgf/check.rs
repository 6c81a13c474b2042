//! `tengen check`: replays the main line of every game in SGF files under a
//! ko rule and collects *every* rule violation (recorded moves are executed
//! even when illegal, as the SGF specification requires), then reports them as
//! text or JSON lines.
//!
//! Move numbers count the B/W nodes of the replayed line from 1, whether or
//! not the move could be executed (a move onto an occupied point is reported
//! and skipped). A superko violation names the move after which the repeated
//! position first stood, 0 for the start position: the empty board, or the
//! position of the last setup node (setup restarts the superko history, see
//! [`Game::setup`]).
//!
//! This module replays one file's bytes and formats the result; finding files,
//! threads and the summary are in [`super::batch`].

use super::parse::{Node, SgfError};
use super::record::{node_steps, point_letters, point_to_gtp, GameRecord, Step};
use crate::config::RuleArgs;
use crate::go::board::{Color, Geometry, Move, Point};
use crate::go::game::{Game, IllegalMove};
use crate::go::rules::{Preset, Rules};
use std::fmt::Write as _;
use std::rc::Rc;

/// One illegal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Game number within the file, from 1.
    pub game: usize,
    /// Line of play within the game: 1 for the main line, then the variations
    /// in file order (only with [`Lines::AllVariations`]).
    pub line: u32,
    /// Move number along the replayed line, from 1.
    pub move_number: u32,
    pub color: Color,
    pub point: Point,
    /// Board shape, for GTP notation.
    pub geometry: Geometry,
    /// Why it is illegal; for superko, `repeats` is an SGF move number (0 =
    /// the start or setup position).
    pub reason: IllegalMove,
}

/// The result of checking one file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileReport {
    /// Games in the file (0 if it could not be parsed).
    pub games: usize,
    /// B/W move nodes replayed.
    pub moves: u64,
    pub violations: Vec<Violation>,
    /// A message for the whole file (unreadable, unparsable), or one per game
    /// that could not be replayed to its end (`game N: line L, column C: …`).
    pub errors: Vec<String>,
}

/// Which rules a game is replayed under: `--rules` if given, else the game's
/// `RU`, else Chinese (positional superko); then `--ko` and `--suicide`.
pub fn rules_for(args: &RuleArgs, ru: Option<Rules>) -> Rules {
    let base = args
        .preset()
        .map(Preset::rules)
        .or(ru)
        .unwrap_or_else(|| Preset::Chinese.rules());
    args.apply_overrides(base)
}

/// Which lines of play to replay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lines {
    /// The main line only (first child at every node).
    #[default]
    MainLine,
    /// Every node of the tree, each variation from its branch point.
    AllVariations,
}

/// Checks the main line of every game in the bytes of one SGF file.
pub fn check_bytes(bytes: &[u8], args: &RuleArgs) -> FileReport {
    check_bytes_lines(bytes, args, Lines::MainLine)
}

/// Checks every game in the bytes of one SGF file, replaying `lines`.
pub fn check_bytes_lines(bytes: &[u8], args: &RuleArgs, lines: Lines) -> FileReport {
    let mut report = FileReport::default();
    let collection = match super::parse(bytes) {
        Ok(c) => c,
        Err(e) => {
            report.errors.push(e.to_string());
            return report;
        }
    };
    report.games = collection.len();
    for (i, root) in collection.games().enumerate() {
        let game_number = i + 1;
        let result = GameRecord::new(root).and_then(|record| {
            let rules = rules_for(args, record.info().rules);
            let replay = Replay::new(&record, rules, game_number);
            match lines {
                Lines::MainLine => check_main_line(&record, replay, &mut report),
                Lines::AllVariations => check_tree(&record, replay, &mut report),
            }
        });
        if let Err(e) = result {
            report.errors.push(format!("game {game_number}: {e}"));
        }
    }
    report
}

fn check_main_line(
    record: &GameRecord<'_>,
    mut replay: Replay,
    report: &mut FileReport,
) -> Result<(), SgfError> {
    for node in record.root().main_line() {
        replay.node(node, record.geometry(), report)?;
    }
    Ok(())
}

/// Depth-first over the whole tree. Lines are numbered in pre-order (1 = the
/// main line); a node belongs to the first line through it. The children of a
/// node share one snapshot of the state after it, cloned only when a child
/// starts while its siblings still need the snapshot, so memory grows with
/// the branch points on the current path, not with the number of variations.
fn check_tree(
    record: &GameRecord<'_>,
    replay: Replay,
    report: &mut FileReport,
) -> Result<(), SgfError> {
    let mut lines = 1u32;
    let mut stack = vec![(record.root(), Rc::new(replay), false)];
    while let Some((node, shared, new_line)) = stack.pop() {
        let mut replay = Rc::try_unwrap(shared).unwrap_or_else(|rc| (*rc).clone());
        if new_line {
            lines += 1;
            replay.line = lines;
        }
        replay.node(node, record.geometry(), report)?;
        let after = Rc::new(replay);
        let first = node.first_child();
        let mut siblings: Vec<Node<'_>> = node.children().skip(1).collect();
        while let Some(child) = siblings.pop() {
            stack.push((child, Rc::clone(&after), true));
        }
        if let Some(first) = first {
            stack.push((first, after, false));
        }
    }
    Ok(())
}

/// The state of one line being replayed.
#[derive(Clone)]
struct Replay {
    game: Game,
    game_number: usize,
    /// Line number within the game (1 = main line).
    line: u32,
    /// SGF move number of each executed move, indexed by the game's move number.
    sgf_number: Vec<u32>,
    /// The game's move number of the start position (the last setup).
    start: u32,
    /// B/W nodes so far along the line.
    number: u32,
}

impl Replay {
    fn new(record: &GameRecord<'_>, rules: Rules, game_number: usize) -> Replay {
        let mut sgf_number = Vec::with_capacity(512);
        sgf_number.push(0);
        Replay {
            game: Game::new(record.geometry(), rules, 0.0),
            game_number,
            line: 1,
            sgf_number,
            start: 0,
            number: 0,
        }
    }

    /// Applies one node: setup, then its move, recording any violation.
    fn node(
        &mut self,
        node: Node<'_>,
        geometry: crate::go::board::Geometry,
        report: &mut FileReport,
    ) -> Result<(), SgfError> {
        let (setup, mv) = node_steps(node, geometry, self.number > 0)?;
        for step in [setup, mv].into_iter().flatten() {
            match step {
                Step::Setup { changes, to_move } => {
                    self.game.setup(&changes, to_move);
                    self.start = self.game.move_number();
                }
                Step::ToMove(c) => self.game.set_to_move(c),
                Step::Move { color, mv, .. } => self.play(color, mv, geometry, report),
            }
        }
        Ok(())
    }

    fn play(&mut self, color: Color, mv: Move, geometry: Geometry, report: &mut FileReport) {
        self.number += 1;
        report.moves += 1;
        let verdict = self.game.play_recorded(color, mv);
        if verdict != Some(IllegalMove::Occupied) {
            self.sgf_number.push(self.number);
        }
        let (Some(reason), Move::Play(point)) = (verdict, mv) else {
            return;
        };
        let to_sgf = |repeats: u32| {
            if repeats <= self.start {
                0
            } else {
                self.sgf_number.get(repeats as usize).copied().unwrap_or(0)
            }
        };
        let reason = match reason {
            IllegalMove::PositionalSuperko { repeats } => IllegalMove::PositionalSuperko {
                repeats: to_sgf(repeats),
            },
            IllegalMove::SituationalSuperko { repeats } => IllegalMove::SituationalSuperko {
                repeats: to_sgf(repeats),
            },
            IllegalMove::NaturalSituationalSuperko { repeats } => {
                IllegalMove::NaturalSituationalSuperko {
                    repeats: to_sgf(repeats),
                }
            }
            other => other,
        };
        report.violations.push(Violation {
            game: self.game_number,
            line: self.line,
            move_number: self.number,
            color,
            point,
            geometry,
            reason,
        });
    }
}

/// Appends `s` as a JSON string literal.
fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl Violation {
    /// The point in SGF letters.
    pub fn sgf_point(&self) -> String {
        let [a, b] = point_letters(self.point);
        String::from_utf8_lossy(&[a, b]).into_owned()
    }

    /// The point in GTP notation.
    pub fn gtp_point(&self) -> String {
        point_to_gtp(self.point, self.geometry)
    }

    /// One JSON object (no newline).
    pub fn to_json(&self, file: &str) -> String {
        let mut s = String::with_capacity(160);
        s.push_str("{\"type\":\"violation\",\"file\":");
        push_json_str(&mut s, file);
        let _ = write!(s, ",\"game\":{}", self.game);
        if self.line > 1 {
            let _ = write!(s, ",\"variation\":{}", self.line);
        }
        let _ = write!(
            s,
            ",\"move\":{},\"color\":\"{}\",\"point\":\"{}\",\"sgf_point\":\"{}\",\"reason\":\"{}\"",
            self.move_number,
            self.color.letter(),
            self.gtp_point(),
            self.sgf_point(),
            self.reason.code()
        );
        if let Some(r) = self.reason.repeats_move() {
            let _ = write!(s, ",\"repeats_move\":{r}");
        }
        s.push('}');
        s
    }

    /// One human-readable line (no newline).
    pub fn to_text(&self, file: &str) -> String {
        let reason = match self.reason {
            IllegalMove::Occupied => "point occupied (move skipped)".to_owned(),
            IllegalMove::Suicide => "suicide".to_owned(),
            IllegalMove::Ko => "ko (immediate recapture)".to_owned(),
            IllegalMove::PositionalSuperko { repeats } => {
                format!("positional superko: {}", repeated(repeats))
            }
            IllegalMove::SituationalSuperko { repeats } => {
                format!("situational superko: {}", repeated(repeats))
            }
            IllegalMove::NaturalSituationalSuperko { repeats } => {
                format!("natural situational superko: {}", repeated(repeats))
            }
        };
        let variation = if self.line > 1 {
            format!(", variation {}", self.line)
        } else {
            String::new()
        };
        format!(
            "{file}: game {}{variation}, move {}: {} {} [{}]: {reason}",
            self.game,
            self.move_number,
            self.color.letter(),
            self.gtp_point(),
            self.sgf_point()
        )
    }
}

fn repeated(repeats: u32) -> String {
    if repeats == 0 {
        "repeats the start position".to_owned()
    } else {
        format!("repeats the position after move {repeats}")
    }
}

impl FileReport {
    /// The JSON lines of this report: violations, errors, then the file line
    /// (omitted when the file could not be parsed at all).
    pub fn to_json(&self, file: &str, quiet: bool) -> String {
        let mut out = String::new();
        if !quiet {
            for v in &self.violations {
                out.push_str(&v.to_json(file));
                out.push('\n');
            }
        }
        for e in &self.errors {
            out.push_str("{\"type\":\"error\",\"file\":");
            push_json_str(&mut out, file);
            out.push_str(",\"message\":");
            push_json_str(&mut out, e);
            out.push_str("}\n");
        }
        if self.games > 0 && !quiet {
            out.push_str("{\"type\":\"file\",\"file\":");
            push_json_str(&mut out, file);
            let _ = writeln!(
                out,
                ",\"games\":{},\"moves\":{},\"violations\":{}}}",
                self.games,
                self.moves,
                self.violations.len()
            );
        }
        out
    }

    /// The human-readable lines of this report: violations, then errors.
    pub fn to_text(&self, file: &str, quiet: bool) -> String {
        let mut out = String::new();
        if !quiet {
            for v in &self.violations {
                out.push_str(&v.to_text(file));
                out.push('\n');
            }
        }
        for e in &self.errors {
            let _ = writeln!(out, "{file}: error: {e}");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{KoArg, RulesArg};

    fn args(ko: Option<KoArg>) -> RuleArgs {
        RuleArgs {
            rules: None,
            ko,
            suicide: None,
        }
    }

    #[test]
    fn simple_ko_violation_and_repeat_numbers() {
        // T1 corner ko, then White retakes at once and Black retakes again.
        let text = b"(;SZ[19]AB[br][cs]AW[ar][bs]PL[B];B[as];W[bs];B[as])";
        let r = check_bytes(text, &RuleArgs::default());
        assert_eq!(r.games, 1);
        assert_eq!(r.moves, 3);
        let reasons: Vec<(u32, IllegalMove)> = r
            .violations
            .iter()
            .map(|v| (v.move_number, v.reason))
            .collect();
        assert_eq!(
            reasons,
            [(2, IllegalMove::Ko), (3, IllegalMove::Ko)],
            "Chinese rules: both recaptures are immediate ko captures"
        );
        let v = r.violations[0];
        assert_eq!(
            v.to_json("x.sgf"),
            r#"{"type":"violation","file":"x.sgf","game":1,"move":2,"color":"W","point":"B1","sgf_point":"bs","reason":"ko"}"#
        );
    }

    #[test]
    fn occupied_moves_are_skipped_but_counted() {
        // Move 2 is on an occupied point: reported, skipped, counted.
        let text = b"(;SZ[9];B[aa];W[aa];W[];B[])";
        let r = check_bytes(text, &args(None));
        assert_eq!(r.moves, 4);
        assert_eq!(r.violations.len(), 1);
        assert_eq!(r.violations[0].move_number, 2);
        assert_eq!(r.violations[0].reason, IllegalMove::Occupied);
        // After a skipped move, superko numbers still name SGF moves: T11 with an
        // occupied move inserted as move 2, so its final W B19 (now move 9)
        // repeats the position after its move 5, now move 6.
        let text = b"(;SZ[19]PL[B];B[bb];W[bb];W[ab];B[cb];W[ba];B[da];W[ca];B[aa];W[ba])";
        let r = check_bytes(text, &args(Some(KoArg::Positional)));
        let last = r.violations.last().unwrap();
        assert_eq!(last.move_number, 9);
        assert_eq!(
            last.reason,
            IllegalMove::PositionalSuperko { repeats: 6 },
            "{:?}",
            r.violations
        );
    }

    #[test]
    fn mid_game_setup_restarts_the_history() {
        // T1's ko shape set up after two moves: B takes, both pass, W retakes,
        // recreating the setup position (B to move), which is "move 0".
        let text = b"(;SZ[19];B[pd];W[dp];AB[br][cs]AW[ar][bs]PL[B];B[as];W[];B[];W[bs])";
        for (ko, want) in [
            (KoArg::Simple, None),
            (
                KoArg::Positional,
                Some(IllegalMove::PositionalSuperko { repeats: 0 }),
            ),
            (
                KoArg::Situational,
                Some(IllegalMove::SituationalSuperko { repeats: 0 }),
            ),
            (KoArg::NaturalSituational, None),
        ] {
            let r = check_bytes(text, &args(Some(ko)));
            let got: Vec<(u32, IllegalMove)> = r
                .violations
                .iter()
                .map(|v| (v.move_number, v.reason))
                .collect();
            assert_eq!(
                got,
                want.map(|w| (6, w)).into_iter().collect::<Vec<_>>(),
                "{ko:?}"
            );
        }
        // A position from before the setup can no longer be repeated.
        let r = check_bytes(
            b"(;SZ[9];B[aa];AE[aa];B[aa])",
            &args(Some(KoArg::Positional)),
        );
        assert_eq!(r.violations, []);
        assert_eq!(r.moves, 2);
    }

    #[test]
    fn variations_are_replayed_from_their_branch_point() {
        let text = b"(;SZ[9];B[aa](;W[ab];B[ba])(;W[aa])(;W[bb];B[bb](;W[cc])(;W[bb])))";
        let main = check_bytes(text, &RuleArgs::default());
        assert_eq!((main.moves, main.violations.len()), (3, 0));
        let all = check_bytes_lines(text, &RuleArgs::default(), Lines::AllVariations);
        assert_eq!(all.moves, 8, "every move node once");
        let got: Vec<(u32, u32, IllegalMove)> = all
            .violations
            .iter()
            .map(|v| (v.line, v.move_number, v.reason))
            .collect();
        assert_eq!(
            got,
            [
                (2, 2, IllegalMove::Occupied),
                (3, 3, IllegalMove::Occupied),
                (4, 4, IllegalMove::Occupied),
            ]
        );
        let v = all.violations[0];
        assert!(v
            .to_json("v.sgf")
            .contains(r#""game":1,"variation":2,"move":2,"#));
        assert_eq!(
            v.to_text("v.sgf"),
            "v.sgf: game 1, variation 2, move 2: W A9 [aa]: point occupied (move skipped)"
        );
    }

    #[test]
    fn rules_choice_order() {
        let ru = Some(Preset::Japanese.rules());
        assert_eq!(
            rules_for(&RuleArgs::default(), ru),
            Preset::Japanese.rules()
        );
        assert_eq!(
            rules_for(&RuleArgs::default(), None),
            Preset::Chinese.rules()
        );
        let forced = RuleArgs {
            rules: Some(RulesArg::Aga),
            ko: None,
            suicide: None,
        };
        assert_eq!(rules_for(&forced, ru), Preset::Aga.rules());
        let ko = rules_for(&args(Some(KoArg::Simple)), None);
        assert_eq!(ko.ko, crate::KoRule::Simple);
    }

    #[test]
    fn errors_per_file_and_per_game() {
        let r = check_bytes(b"(;SZ[19];B[aa]", &RuleArgs::default());
        assert_eq!(r.games, 0);
        assert!(r.errors[0].contains("line 1, column 15"), "{:?}", r.errors);
        let r = check_bytes(
            b"(;SZ[6:30];B[aa])(;SZ[9];B[aa];W[aa])",
            &RuleArgs::default(),
        );
        assert_eq!(r.games, 2);
        assert_eq!(r.errors.len(), 1);
        assert!(
            r.errors[0].starts_with("game 1: line 1, column 3: board size 6:30 is not supported"),
            "{:?}",
            r.errors
        );
        assert_eq!(r.violations.len(), 1);
        assert_eq!(r.violations[0].game, 2);
        let json = r.to_json("a \"b\".sgf", false);
        assert!(json.contains(r#"{"type":"error","file":"a \"b\".sgf","message":"game 1: "#));
        assert!(json.ends_with(
            "{\"type\":\"file\",\"file\":\"a \\\"b\\\".sgf\",\"games\":2,\"moves\":2,\"violations\":1}\n"
        ));
    }
}
