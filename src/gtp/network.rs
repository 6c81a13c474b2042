//! The commands that exist only with a network loaded (`--model`):
//! `kata-raw-nn`, answering in KataGo's exact format so that both engines'
//! answers diff line for line.

use super::args::{arity, text};
use super::protocol::{Command, GtpError};
use super::session::{Entry, Reply, Session};
use crate::go::board::Color;
use crate::go::vertex;
use crate::nn::{NetEval, KATAGO_GTP_POLICY_OPTIMISM};
use crate::search::levels::Level;
use std::fmt::Write;

/// Listed after the standard commands when a network is loaded.
pub static NETWORK_COMMANDS: &[Entry] = &[
    Entry {
        name: "kata-raw-nn",
        handler: cmd_kata_raw_nn,
    },
    Entry {
        name: "kata-raw-human-nn",
        handler: cmd_kata_raw_human_nn,
    },
    Entry {
        name: "tengen-get-level",
        handler: cmd_get_level,
    },
    Entry {
        name: "tengen-set-level",
        handler: cmd_set_level,
    },
];

/// `tengen-get-level` → `max`, `20k` … `1k` or `1d` … `9d`.
fn cmd_get_level(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    arity(cmd, 0)?;
    text(s.options.level.to_string())
}

/// `tengen-set-level RANK` (`max`, `20k` … `1k`, `1d` … `9d`): how strong
/// `genmove` plays from now on; analysis stays at full strength.
fn cmd_set_level(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    arity(cmd, 1)?;
    let level: Level = cmd.args[0].parse().map_err(GtpError::new)?;
    s.engine.set_level(level).map_err(GtpError::new)?;
    s.options.level = level;
    text("")
}

/// What `kata-raw-nn` was asked.
#[derive(Debug, PartialEq)]
struct RawNnArgs {
    /// `None` for the player to move.
    color: Option<Color>,
    /// `None` for all eight.
    symmetry: Option<u8>,
    /// Blend toward the optimistic policy (nets of version 12 and later).
    optimism: f32,
}

/// KataGo's argument order: an optional colour, a symmetry (`all` or 0–7),
/// an optional policy optimism in 0..1 (default KataGo's GTP default,
/// [`KATAGO_GTP_POLICY_OPTIMISM`], so that both engines answer alike).
fn parse_args(args: &[String]) -> Result<RawNnArgs, GtpError> {
    let mut rest = args;
    let mut color = None;
    if let Some(c) = rest.first().and_then(|t| vertex::parse_color(t)) {
        color = Some(c);
        rest = &rest[1..];
    }
    let (sym, optimism) =
        match rest {
            [sym] => (sym, None),
            [sym, opt] => (sym, Some(opt)),
            _ => return Err(GtpError::new(
                "expected an optional color, a symmetry 'all' or 0-7, and an optional optimism 0-1",
            )),
        };
    let symmetry = if sym.eq_ignore_ascii_case("all") {
        None
    } else {
        match sym.parse::<u8>() {
            Ok(s) if s < 8 => Some(s),
            _ => return Err(GtpError::new("symmetry must be 'all' or 0-7")),
        }
    };
    let optimism = match optimism {
        None => KATAGO_GTP_POLICY_OPTIMISM,
        Some(t) => match t.parse::<f32>() {
            Ok(v) if (0.0..=1.0).contains(&v) => v,
            _ => return Err(GtpError::new("optimism must be a number from 0 to 1")),
        },
    };
    Ok(RawNnArgs {
        color,
        symmetry,
        optimism,
    })
}

/// `kata-raw-nn [COLOR] SYMMETRY|all [OPTIMISM]` → the network's raw answer
/// for the position: White's win/loss/no-result, lead and score, the policy
/// grid (top row first, `NAN` on illegal points), the pass policy and White's
/// ownership. A colour other than the player to move evaluates the board with
/// that colour to move and no history (no ko, no previous moves), as KataGo.
fn cmd_kata_raw_nn(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    raw_nn(s, cmd, false)
}

/// `kata-raw-human-nn [COLOR] SYMMETRY|all [OPTIMISM]` → the same for the
/// human-SL net of `--human-model`, under the session's profile.
fn cmd_kata_raw_human_nn(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    raw_nn(s, cmd, true)
}

/// The human-SL policy for `color` to move in the session's position
/// (symmetry 0, KataGo's GTP policy optimism), row by row from the
/// top-left, pass last, -1 where the move is illegal: from `--human-model`,
/// or from the main net when it is a human-SL net itself.
///
/// # Errors
/// No human-SL net, or no profile set.
pub fn human_policy(s: &mut Session, color: Color) -> Result<Vec<f64>, GtpError> {
    let game = s.game.with_to_move(color);
    let main_is_human = s
        .network
        .as_ref()
        .is_some_and(|n| n.network().needs_metadata());
    let evaluator = match (s.human_network.as_mut(), s.network.as_mut()) {
        (Some(h), _) => h,
        (None, Some(n)) if main_is_human => n,
        _ => {
            return Err(GtpError::new(
                "humanPolicy needs a human-SL network (--human-model)",
            ))
        }
    };
    if evaluator.metadata().is_none() {
        return Err(GtpError::new(
            "humanPolicy needs a profile (--human-profile or kata-set-param humanSLProfile)",
        ));
    }
    let mut eval = NetEval::new();
    evaluator
        .evaluate(&game, 0, KATAGO_GTP_POLICY_OPTIMISM, &mut eval)
        .map_err(|e| GtpError::new(e.to_string()))?;
    Ok(eval.listed_policy().collect())
}

/// `kata-raw-nn` on the main net or, with `human`, on the human-SL net.
fn raw_nn(s: &mut Session, cmd: &Command, human: bool) -> Result<Reply, GtpError> {
    let args = parse_args(&cmd.args)?;
    let game = s.game.with_to_move(args.color.unwrap_or(s.game.to_move()));
    let evaluator = if human {
        s.human_network
            .as_mut()
            .ok_or_else(|| GtpError::new("no human-SL network loaded (--human-model)"))?
    } else {
        s.network
            .as_mut()
            .ok_or_else(|| GtpError::new("no network loaded"))?
    };
    let mut eval = NetEval::new();
    let mut out = String::new();
    for symmetry in 0..8u8 {
        if args.symmetry.is_some_and(|want| want != symmetry) {
            continue;
        }
        evaluator
            .evaluate(&game, symmetry, args.optimism, &mut eval)
            .map_err(|e| GtpError::new(e.to_string()))?;
        write_answer(&mut out, symmetry, &eval.to_view(Color::White));
    }
    text(out.trim_end())
}

/// One symmetry's answer, formatted as KataGo's `kata-raw-nn` formats it.
pub fn write_answer(out: &mut String, symmetry: u8, white: &NetEval) {
    let (width, height) = (white.width, white.height);
    // Writing to a String cannot fail.
    let _ = writeln!(out, "symmetry {symmetry}");
    let _ = writeln!(out, "whiteWin {:.6}", white.win);
    let _ = writeln!(out, "whiteLoss {:.6}", white.loss);
    let _ = writeln!(out, "noResult {:.6}", white.no_result);
    let _ = writeln!(out, "whiteLead {:.3}", white.lead);
    let _ = writeln!(out, "whiteScoreSelfplay {:.3}", white.score_mean);
    let _ = writeln!(out, "whiteScoreSelfplaySq {:.3}", white.score_mean_sq);
    let _ = writeln!(out, "varTimeLeft {:.3}", white.var_time_left);
    let _ = writeln!(
        out,
        "shorttermWinlossError {:.3}",
        white.shortterm_winloss_error
    );
    let _ = writeln!(
        out,
        "shorttermScoreError {:.3}",
        white.shortterm_score_error
    );
    out.push_str("policy\n");
    for row in white.policy.chunks(width.max(1)).take(height) {
        for &p in row {
            push_probability(out, p);
        }
        out.push('\n');
    }
    out.push_str("policyPass ");
    push_probability(out, white.pass_policy);
    out.push('\n');
    out.push_str("whiteOwnership\n");
    for row in white.ownership.chunks(width.max(1)).take(height) {
        for &o in row {
            let _ = write!(out, "{o:9.7} ");
        }
        out.push('\n');
    }
    out.push('\n');
}

/// A policy entry as KataGo prints it: `%8.6f ` or `    NAN ` when illegal.
fn push_probability(out: &mut String, p: f32) {
    if p.is_nan() || p < 0.0 {
        out.push_str("    NAN ");
    } else {
        let _ = write!(out, "{p:8.6} ");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Result<RawNnArgs, GtpError> {
        parse_args(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn arguments_follow_katago_order() {
        let a = args(&["0"]).unwrap();
        assert_eq!(
            (a.color, a.symmetry, a.optimism),
            (None, Some(0), KATAGO_GTP_POLICY_OPTIMISM)
        );
        let a = args(&["0", "0"]).unwrap();
        assert_eq!(a.optimism, 0.0);
        let a = args(&["w", "all", "0.5"]).unwrap();
        assert_eq!(
            (a.color, a.symmetry, a.optimism),
            (Some(Color::White), None, 0.5)
        );
        let a = args(&["black", "7"]).unwrap();
        assert_eq!((a.color, a.symmetry), (Some(Color::Black), Some(7)));
        for bad in [
            &[][..],
            &["8"],
            &["b"],
            &["0", "2"],
            &["x", "0"],
            &["0", "0.1", "1"],
        ] {
            assert!(args(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn answers_use_katagos_number_formats() {
        let mut e = NetEval::new();
        (e.width, e.height) = (2, 2);
        e.view = Color::White;
        e.policy = vec![0.25, f32::NAN, 0.5, 0.125];
        e.pass_policy = 0.125;
        e.ownership = vec![0.5, -1.0, 0.0, 0.25];
        e.win = 0.75;
        e.loss = 0.25;
        e.lead = -1.5;
        let mut out = String::new();
        write_answer(&mut out, 3, &e);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "symmetry 3");
        assert_eq!(lines[1], "whiteWin 0.750000");
        assert_eq!(lines[4], "whiteLead -1.500");
        assert_eq!(lines[10], "policy");
        assert_eq!(lines[11], "0.250000     NAN ");
        assert_eq!(lines[13], "policyPass 0.125000 ");
        assert_eq!(lines[14], "whiteOwnership");
        assert_eq!(lines[15], "0.5000000 -1.0000000 ");
    }
}
