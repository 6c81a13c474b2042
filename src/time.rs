//! The game clock as GTP describes it, and how much of it the next move may use.
//!
//! Time systems come from `time_settings` (GTP v2: `B > 0, S = 0` means no
//! limit, `B = 0` absolute, otherwise Canadian), `kgs-time_settings`
//! (`none | absolute | byoyomi | canadian`) and `kata-time_settings` (adds
//! `fischer` and `fischer-capped`). `time_left C T S` reports a player's clock:
//! `S = 0` means T seconds of main time; in overtime `S` is the stones left in
//! the Canadian period or the byo-yomi periods left, and `T` the time left in
//! that period.
//!
//! Between two `time_left` reports the clock is kept by the engine itself: each
//! `genmove` spends its measured time ([`Clock::spend`]).
//!
//! [`Clock::budget`] gives the time for the next move. It never plans to use
//! more than what is left minus a safety margin ([`margin`]), so tengen does
//! not lose on time; the search may refine how the budget is shared out over
//! the game. The margin scales with the time a move may take (a tenth of a
//! 1 s byo-yomi period, a second of a 30 s one, plus a twentieth) and grows
//! with the lag measured between moves: how far a `genmove` overran its
//! budget ([`Clock::observe_overrun`]), and how much less time a controller's
//! `time_left` report gives than the engine's own accounting.

use crate::engine::Limits;
use crate::go::board::Board;
use std::time::Duration;

/// Share of a move's time kept in hand for the network and the client, up to
/// [`SAFETY_SECONDS`].
pub const SAFETY_SHARE: f64 = 0.1;
/// The most [`SAFETY_SHARE`] keeps in hand, in seconds.
pub const SAFETY_SECONDS: f64 = 1.0;
/// Fraction of the usable time also kept in hand.
pub const SAFETY_FRACTION: f64 = 0.05;
/// The largest lag one move may show, in seconds: more is taken for a
/// controller's quirk, not for lag.
pub const MAX_LAG_SECONDS: f64 = 2.0;
/// How much of the lag estimate each later move keeps when it shows less
/// lag (a spike fades over a few dozen moves).
pub const LAG_MEMORY: f64 = 0.9;
/// The shortest budget ever given, in seconds.
pub const MIN_BUDGET_SECONDS: f64 = 0.02;
/// Thinking time per move when neither a clock nor `--time`/`--playouts` limits it.
pub const DEFAULT_MOVE_SECONDS: f64 = 5.0;
/// The longest time taken from any clock, flag or command, in seconds (a
/// year): longer ones are clamped to it.
pub const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;
/// With overtime after main time (byo-yomi, Canadian), the least a move in main
/// time takes, in overtime periods (per stone). Every move made in main time
/// forgoes the period it would have had after it, so main time only adds to
/// the game's thinking when its moves take longer than a period. If strength
/// grows with the logarithm of the time, spending `t` a move until main time
/// `M` is gone gains `(M / t) ln(t / p)`, largest at `t = e·p`; spread over
/// 1.75 times as many moves (later moves decide more games, as KataGo's time
/// control also reasons): `e / 1.75` periods a move.
pub const MAIN_TIME_PERIODS_PER_MOVE: f64 = std::f64::consts::E / 1.75;
/// The win rate (of the player's own last search) from which a player with
/// time to save thinks for only [`CONFIDENT_TIME_FACTOR`] of its budget.
pub const CONFIDENT_WINRATE: f64 = 0.95;
/// The share of the budget a move takes when the game looks won (KataGo's
/// `searchFactorWhenWinning`, 0.4 in its GTP example config): the rest stays
/// on the clock for the moves where the game may still turn.
pub const CONFIDENT_TIME_FACTOR: f64 = 0.4;

/// A number of seconds from outside (GTP, the command line): `None` unless it
/// is finite and not negative; clamped to [`MAX_SECONDS`].
pub fn checked_seconds(seconds: f64) -> Option<f64> {
    (seconds.is_finite() && seconds >= 0.0).then(|| seconds.min(MAX_SECONDS))
}

/// `seconds` as a [`Duration`], clamped to 0..=[`MAX_SECONDS`] (NaN counts
/// as 0): never panics, whatever the arithmetic before gave.
pub fn duration(seconds: f64) -> Duration {
    Duration::from_secs_f64(if seconds > 0.0 {
        seconds.min(MAX_SECONDS)
    } else {
        0.0
    })
}

/// How the time of a game is limited. Times are in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeSystem {
    /// No limit.
    None,
    /// `main` seconds for the whole game.
    Absolute { main: f64 },
    /// Japanese byo-yomi: after main time, `periods` periods of `period` seconds;
    /// a move made within a period does not use it up.
    Byoyomi {
        main: f64,
        period: f64,
        periods: u32,
    },
    /// Canadian: after main time, `stones` moves to be made in each `period`.
    Canadian { main: f64, period: f64, stones: u32 },
    /// Fischer: `increment` is added after each move. `main_cap` caps the time
    /// in hand, `max_per_move` caps one move (KataGo's `fischer-capped`).
    Fischer {
        main: f64,
        increment: f64,
        main_cap: Option<f64>,
        max_per_move: Option<f64>,
    },
}

/// The names `kata-list_time_settings` answers with, in `kata-time_settings` syntax.
pub const KATA_TIME_SYSTEMS: &str = "none absolute byoyomi canadian fischer fischer-capped";

impl TimeSystem {
    /// GTP `time_settings main_time byo_yomi_time byo_yomi_stones`; the
    /// times already checked (see [`checked_seconds`]).
    pub fn from_time_settings(main: f64, period: f64, stones: u32) -> TimeSystem {
        if period > 0.0 && stones == 0 {
            TimeSystem::None
        } else if period <= 0.0 {
            TimeSystem::Absolute { main }
        } else {
            TimeSystem::Canadian {
                main,
                period,
                stones,
            }
        }
    }

    /// `kgs-time_settings` / `kata-time_settings` arguments (the system name and
    /// its numbers). `None` if they do not fit.
    pub fn parse_named(args: &[String], allow_fischer: bool) -> Option<TimeSystem> {
        let (name, rest) = args.split_first()?;
        let nums: Vec<f64> = rest
            .iter()
            .map(|a| a.parse::<f64>().ok().filter(|v| v.is_finite()))
            .collect::<Option<_>>()?;
        let nonneg = checked_seconds;
        let count =
            |v: f64| (v >= 0.0 && v.fract() == 0.0 && v <= u32::MAX as f64).then_some(v as u32);
        // A negative cap means none.
        let optional = checked_seconds;
        Some(
            match (name.to_ascii_lowercase().as_str(), nums.as_slice()) {
                ("none", []) => TimeSystem::None,
                ("absolute", &[m]) => TimeSystem::Absolute { main: nonneg(m)? },
                ("byoyomi" | "byo-yomi", &[m, p, n]) => TimeSystem::Byoyomi {
                    main: nonneg(m)?,
                    period: nonneg(p)?,
                    periods: count(n)?,
                },
                ("canadian", &[m, p, s]) => TimeSystem::Canadian {
                    main: nonneg(m)?,
                    period: nonneg(p)?,
                    stones: count(s)?,
                },
                ("fischer", &[m, i]) if allow_fischer => TimeSystem::Fischer {
                    main: nonneg(m)?,
                    increment: nonneg(i)?,
                    main_cap: None,
                    max_per_move: None,
                },
                ("fischer-capped", &[m, i, cap, max]) if allow_fischer => TimeSystem::Fischer {
                    main: nonneg(m)?,
                    increment: nonneg(i)?,
                    main_cap: optional(cap),
                    max_per_move: optional(max),
                },
                _ => return None,
            },
        )
    }

    /// The clock of a player at the start of the game.
    fn initial(self) -> Remaining {
        let time = match self {
            TimeSystem::None => 0.0,
            TimeSystem::Absolute { main }
            | TimeSystem::Byoyomi { main, .. }
            | TimeSystem::Canadian { main, .. }
            | TimeSystem::Fischer { main, .. } => main,
        };
        let mut r = Remaining { time, count: 0 };
        // A system without main time starts in overtime.
        if time <= 0.0 {
            match self {
                TimeSystem::Byoyomi {
                    period, periods, ..
                } if periods > 0 => {
                    r = Remaining {
                        time: period,
                        count: periods,
                    }
                }
                TimeSystem::Canadian { period, stones, .. } if stones > 0 => {
                    r = Remaining {
                        time: period,
                        count: stones,
                    }
                }
                _ => {}
            }
        }
        r
    }
}

/// One player's clock: `time` seconds, and in overtime (`count > 0`) the
/// Canadian stones or byo-yomi periods left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Remaining {
    pub time: f64,
    pub count: u32,
}

/// Seconds kept in hand when a move may take at most `hard` seconds, given
/// the `lag` measured so far.
pub fn margin(hard: f64, lag: f64) -> f64 {
    (SAFETY_SHARE * hard).min(SAFETY_SECONDS) + SAFETY_FRACTION * hard + lag
}

/// A lag estimate in seconds: the largest lag seen lately. Each new
/// observation (capped at [`MAX_LAG_SECONDS`]) replaces the estimate if larger;
/// otherwise the estimate shrinks by [`LAG_MEMORY`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Lag(f64);

impl Lag {
    fn observe(&mut self, seconds: f64) {
        let seen = if seconds > 0.0 {
            seconds.min(MAX_LAG_SECONDS)
        } else {
            0.0
        };
        self.0 = seen.max(self.0 * LAG_MEMORY);
    }
}

/// Both players' clocks under one time system, with the lag seen so far.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    system: TimeSystem,
    remaining: [Remaining; 2],
    /// Own moves charged by [`Clock::spend`] since the last `time_left` for
    /// that colour: `remaining` is then the engine's own accounting.
    moves_since_report: [u32; 2],
    /// How far `genmove` ran past its budget.
    overrun: Lag,
    /// How much more than the engine measured the controller charged a move.
    delay: Lag,
}

impl Default for Clock {
    fn default() -> Clock {
        Clock::new(TimeSystem::None)
    }
}

impl Clock {
    /// Both clocks full.
    pub fn new(system: TimeSystem) -> Clock {
        let r = system.initial();
        Clock {
            system,
            remaining: [r, r],
            moves_since_report: [0, 0],
            overrun: Lag::default(),
            delay: Lag::default(),
        }
    }

    /// Both clocks full under `system`, keeping the lag seen so far (new
    /// settings or a new game from the same controller).
    pub fn with_system(&self, system: TimeSystem) -> Clock {
        Clock {
            overrun: self.overrun,
            delay: self.delay,
            ..Clock::new(system)
        }
    }

    /// The lag estimate in seconds: overrun of the budget plus the
    /// controller's delay.
    pub fn lag(&self) -> f64 {
        self.overrun.0 + self.delay.0
    }

    /// A `genmove` given `budget` took `elapsed` (from the command's arrival
    /// to the answer): what it ran over is lag.
    pub fn observe_overrun(&mut self, budget: Duration, elapsed: Duration) {
        self.overrun
            .observe(elapsed.as_secs_f64() - budget.as_secs_f64());
    }

    pub fn system(&self) -> TimeSystem {
        self.system
    }

    /// A player's clock.
    pub fn remaining(&self, color: crate::go::board::Color) -> Remaining {
        self.remaining[color.index()]
    }

    /// GTP `time_left color time stones`. Negative times (seen from servers
    /// late in byo-yomi) count as zero, more than [`MAX_SECONDS`] as that.
    ///
    /// When own moves were charged since the last report and the report is
    /// in the same period (same `count`), the time it shows less than the
    /// own accounting is the controller's delay, shared over those moves. A
    /// whole-second report (KGS) may be rounded down: its first second of
    /// difference says nothing.
    pub fn time_left(&mut self, color: crate::go::board::Color, time: f64, count: u32) {
        let i = color.index();
        let reported = Remaining {
            time: time.clamp(0.0, MAX_SECONDS),
            count,
        };
        let moves = std::mem::take(&mut self.moves_since_report[i]);
        if moves > 0 && self.remaining[i].count == count {
            let rounding = if time.fract() == 0.0 { 1.0 } else { 0.0 };
            let shortfall = self.remaining[i].time - reported.time - rounding;
            self.delay.observe(shortfall / f64::from(moves));
        }
        self.remaining[i] = reported;
    }

    /// Charges `elapsed` for a move `color` just made, the way the server will.
    pub fn spend(&mut self, color: crate::go::board::Color, elapsed: Duration) {
        let mut left = elapsed.as_secs_f64();
        let moves = &mut self.moves_since_report[color.index()];
        *moves = moves.saturating_add(1);
        let r = &mut self.remaining[color.index()];
        match self.system {
            TimeSystem::None => {}
            TimeSystem::Absolute { .. } => r.time = (r.time - left).max(0.0),
            TimeSystem::Fischer {
                increment,
                main_cap,
                ..
            } => {
                r.time = (r.time - left).max(0.0) + increment;
                if let Some(cap) = main_cap {
                    r.time = r.time.min(cap);
                }
            }
            TimeSystem::Canadian { period, stones, .. } => {
                if r.count == 0 {
                    if left <= r.time {
                        r.time -= left;
                        return;
                    }
                    left -= r.time;
                    *r = Remaining {
                        time: period,
                        count: stones.max(1),
                    };
                }
                r.time = (r.time - left).max(0.0);
                r.count -= 1;
                if r.count == 0 {
                    *r = Remaining {
                        time: period,
                        count: stones.max(1),
                    };
                }
            }
            TimeSystem::Byoyomi {
                period, periods, ..
            } => {
                if r.count == 0 {
                    if left <= r.time {
                        r.time -= left;
                        return;
                    }
                    left -= r.time;
                    *r = Remaining {
                        time: period,
                        count: periods.max(1),
                    };
                }
                // Each whole period overrun is lost; the next one starts full.
                while left > r.time && r.count > 1 {
                    left -= r.time;
                    r.count -= 1;
                    r.time = period;
                }
                r.time = period;
            }
        }
    }

    /// The most seconds `color`'s next move may take before its flag falls,
    /// `None` when the clock sets no limit: what is left of main time and
    /// every overtime period it may still use up (Japanese byo-yomi loses a
    /// period for each one overrun; a Canadian period must hold its stones).
    pub fn flag_limit(&self, color: crate::go::board::Color) -> Option<f64> {
        let r = self.remaining[color.index()];
        Some(match self.system {
            TimeSystem::None => return None,
            TimeSystem::Absolute { .. } => r.time,
            TimeSystem::Fischer { max_per_move, .. } => {
                max_per_move.map_or(r.time, |m| m.min(r.time))
            }
            TimeSystem::Canadian { period, stones, .. } => {
                if r.count == 0 && stones > 0 {
                    r.time + period
                } else {
                    r.time
                }
            }
            TimeSystem::Byoyomi {
                period, periods, ..
            } => {
                if r.count == 0 {
                    r.time + period * f64::from(periods)
                } else {
                    r.time + period * f64::from(r.count - 1)
                }
            }
        })
    }

    /// Whether time `color` does not use for the next move is lost: in a
    /// byo-yomi period, or a Canadian period of one stone.
    pub fn use_or_lose(&self, color: crate::go::board::Color) -> bool {
        let r = self.remaining[color.index()];
        match self.system {
            TimeSystem::Byoyomi { .. } => r.count > 0,
            TimeSystem::Canadian { .. } => r.count == 1,
            _ => false,
        }
    }

    /// Seconds `color` may think about the next move, `None` when the clock sets
    /// no limit. `moves_left` is the number of own moves still to be made in
    /// main time (see [`moves_left`]).
    pub fn budget(&self, color: crate::go::board::Color, moves_left: f64) -> Option<f64> {
        let r = self.remaining[color.index()];
        let moves_left = moves_left.max(1.0);
        // `hard`: the most this move can take without losing; `target`: what it
        // should take.
        let (hard, target) = match self.system {
            TimeSystem::None => return None,
            TimeSystem::Absolute { .. } => (r.time, r.time / moves_left),
            TimeSystem::Fischer {
                increment,
                max_per_move,
                ..
            } => {
                let target = r.time / moves_left + 0.8 * increment;
                let hard = max_per_move.map_or(r.time, |m| m.min(r.time));
                (hard, target)
            }
            TimeSystem::Canadian { period, stones, .. } => {
                let per_stone = period / stones.max(1) as f64;
                if r.count == 0 {
                    let overtime = if stones > 0 { per_stone } else { 0.0 };
                    (
                        r.time + overtime,
                        main_time_target(r.time, moves_left, overtime),
                    )
                } else {
                    // The period must last for `count` more stones.
                    let per = r.time / r.count as f64;
                    (r.time - (r.count - 1) as f64 * 0.25 * per, per)
                }
            }
            TimeSystem::Byoyomi {
                period, periods, ..
            } => {
                if r.count == 0 {
                    let overtime = if periods > 0 { period } else { 0.0 };
                    (
                        r.time + overtime,
                        main_time_target(r.time, moves_left, overtime),
                    )
                } else {
                    (r.time, r.time)
                }
            }
        };
        let usable = hard - margin(hard, self.lag());
        Some(if usable > MIN_BUDGET_SECONDS {
            target.clamp(MIN_BUDGET_SECONDS, usable)
        } else {
            // Almost nothing left: answer at once.
            MIN_BUDGET_SECONDS
        })
    }
}

/// What a move in main time should take when `main` seconds of it are left,
/// about `moves_left` own moves remain, and every move after main time gets
/// `overtime` seconds (0: none). With overtime, at least
/// [`MAIN_TIME_PERIODS_PER_MOVE`] periods; and once less than one and a half
/// periods of main time are left, all of it and the first period too (the
/// period is whole again at the next move).
fn main_time_target(main: f64, moves_left: f64, overtime: f64) -> f64 {
    let share = main / moves_left;
    if overtime <= 0.0 {
        share
    } else if main < 1.5 * overtime {
        main + overtime
    } else {
        share.max(MAIN_TIME_PERIODS_PER_MOVE * overtime)
    }
}

/// A rough number of moves `color` still has to make, weighted so that main
/// time goes where games are decided: stretched in the opening (the first
/// tenth of the board, where moves matter least), shrunk in the middle game
/// (up to about half the board filled). Used to share out main time.
pub fn moves_left(board: &Board) -> f64 {
    let area = board.geometry().area() as f64;
    let filled = 1.0 - board.num_empty() as f64 / area;
    let weight = if filled < 0.1 {
        0.7
    } else if filled < 0.5 {
        1.4
    } else {
        1.0
    };
    (board.num_empty() as f64 * 0.3).max(15.0) / weight
}

/// The limits for the next `genmove`: the configured `--playouts`/`--time`,
/// tightened by the clock's budget; [`DEFAULT_MOVE_SECONDS`] when nothing at
/// all limits the search. `winrate`: the player's win rate from its own
/// previous search in this game, if known; at [`CONFIDENT_WINRATE`] or more
/// a budget whose unused time stays on the clock shrinks by
/// [`CONFIDENT_TIME_FACTOR`].
pub fn limits(
    configured: Limits,
    clock: &Clock,
    color: crate::go::board::Color,
    board: &Board,
    winrate: Option<f64>,
) -> Limits {
    let confident = winrate.is_some_and(|w| w >= CONFIDENT_WINRATE) && !clock.use_or_lose(color);
    let budget = clock.budget(color, moves_left(board)).map(|b| {
        if confident {
            (b * CONFIDENT_TIME_FACTOR).max(MIN_BUDGET_SECONDS)
        } else {
            b
        }
    });
    let time = match (configured.time, budget) {
        (Some(t), Some(b)) => Some(t.min(duration(b))),
        (Some(t), None) => Some(t),
        (None, Some(b)) => Some(duration(b)),
        (None, None) if configured.playouts.is_none() => Some(duration(DEFAULT_MOVE_SECONDS)),
        (None, None) => None,
    };
    Limits {
        playouts: configured.playouts,
        time,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_middle_game_gets_more_main_time_than_the_opening() {
        use crate::go::board::{Board, Color, Geometry};
        let g = Geometry::new(19).unwrap();
        let opening = Board::new(g);
        let mut middle = Board::new(g);
        // Fill a fifth of the board (scattered, no captures).
        for (i, p) in g.points().enumerate().filter(|(i, _)| i % 5 == 0) {
            middle.set_stone(
                p,
                Some(if i % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                }),
            );
        }
        assert!(moves_left(&middle) < moves_left(&opening) * 0.6);
    }

    use super::*;
    use crate::go::board::{Color, Geometry};

    fn args(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn the_flag_falls_after_main_time_and_every_period() {
        let byoyomi = TimeSystem::Byoyomi {
            main: 10.0,
            period: 3.0,
            periods: 2,
        };
        let mut c = Clock::new(byoyomi);
        assert_eq!(c.flag_limit(Color::Black), Some(16.0));
        c.spend(Color::Black, Duration::from_secs_f64(12.0));
        // 2 s into the first period, which a move in time restores.
        assert_eq!(
            c.remaining(Color::Black),
            Remaining {
                time: 3.0,
                count: 2
            }
        );
        assert_eq!(c.flag_limit(Color::Black), Some(6.0));
        c.spend(Color::Black, Duration::from_secs_f64(4.0));
        // One period overrun and lost: the last one left.
        assert_eq!(
            c.remaining(Color::Black),
            Remaining {
                time: 3.0,
                count: 1
            }
        );
        assert_eq!(c.flag_limit(Color::Black), Some(3.0));
        assert_eq!(c.flag_limit(Color::White), Some(16.0));
        let mut a = Clock::new(TimeSystem::Absolute { main: 5.0 });
        a.spend(Color::White, Duration::from_secs_f64(2.0));
        assert_eq!(a.flag_limit(Color::White), Some(3.0));
        assert_eq!(Clock::new(TimeSystem::None).flag_limit(Color::Black), None);
        let canadian = Clock::new(TimeSystem::Canadian {
            main: 0.0,
            period: 2.0,
            stones: 1,
        });
        assert_eq!(canadian.flag_limit(Color::Black), Some(2.0));
    }

    #[test]
    fn time_settings_follows_the_spec() {
        assert_eq!(
            TimeSystem::from_time_settings(0.0, 1.0, 0),
            TimeSystem::None
        );
        assert_eq!(
            TimeSystem::from_time_settings(300.0, 0.0, 0),
            TimeSystem::Absolute { main: 300.0 }
        );
        assert_eq!(
            TimeSystem::from_time_settings(600.0, 300.0, 25),
            TimeSystem::Canadian {
                main: 600.0,
                period: 300.0,
                stones: 25
            }
        );
    }

    #[test]
    fn named_settings() {
        assert_eq!(
            TimeSystem::parse_named(&args("byoyomi 600 30 5"), false),
            Some(TimeSystem::Byoyomi {
                main: 600.0,
                period: 30.0,
                periods: 5
            })
        );
        assert_eq!(
            TimeSystem::parse_named(&args("none"), false),
            Some(TimeSystem::None)
        );
        assert_eq!(TimeSystem::parse_named(&args("fischer 300 5"), false), None);
        assert_eq!(
            TimeSystem::parse_named(&args("fischer-capped 300 5 600 -1"), true),
            Some(TimeSystem::Fischer {
                main: 300.0,
                increment: 5.0,
                main_cap: Some(600.0),
                max_per_move: None
            })
        );
        assert_eq!(TimeSystem::parse_named(&args("absolute"), false), None);
        assert_eq!(TimeSystem::parse_named(&args("absolute -5"), false), None);
        assert_eq!(
            TimeSystem::parse_named(&args("canadian 1 2 2.5"), false),
            None
        );
        assert_eq!(TimeSystem::parse_named(&args("martian 1"), true), None);
    }

    /// Whatever the clock says, the budget leaves the safety margin in hand.
    #[test]
    fn budgets_never_spend_the_margin() {
        let systems = [
            TimeSystem::Absolute { main: 60.0 },
            TimeSystem::Byoyomi {
                main: 10.0,
                period: 5.0,
                periods: 3,
            },
            TimeSystem::Canadian {
                main: 0.0,
                period: 30.0,
                stones: 10,
            },
            TimeSystem::Fischer {
                main: 20.0,
                increment: 2.0,
                main_cap: None,
                max_per_move: Some(3.0),
            },
        ];
        for system in systems {
            let mut clock = Clock::new(system);
            for left in [0.0, 0.3, 1.0, 2.0, 5.0, 30.0, 100.0] {
                for count in [0, 1, 3] {
                    clock.time_left(Color::Black, left, count);
                    let b = clock.budget(Color::Black, 15.0).unwrap();
                    let hard = match (system, count) {
                        (TimeSystem::Byoyomi { period, .. }, 0) => left + period,
                        (TimeSystem::Canadian { period, stones, .. }, 0) => {
                            left + period / stones as f64
                        }
                        (TimeSystem::Fischer { .. }, _) => left.min(3.0),
                        _ => left,
                    };
                    assert!(b > 0.0, "{system:?} {left} {count}");
                    assert!(
                        b <= (hard - margin(hard, 0.0)).max(MIN_BUDGET_SECONDS),
                        "{system:?} {left} {count}: {b} of {hard}"
                    );
                }
            }
        }
        assert_eq!(Clock::default().budget(Color::White, 10.0), None);
    }

    /// Budgets under `time_settings 0 P 1` (what `tengen match --time P`
    /// sends) and Japanese byo-yomi of P seconds: a short period is mostly
    /// used, a long one keeps a real reserve.
    #[test]
    fn short_periods_get_most_of_their_time_and_long_ones_keep_a_reserve() {
        for (period, low, high) in [
            (1.0, 0.75, 0.9),
            (2.0, 1.55, 1.85),
            (5.0, 4.0, 4.7),
            (30.0, 26.0, 28.5),
        ] {
            let canadian = Clock::new(TimeSystem::from_time_settings(0.0, period, 1));
            let japanese = Clock::new(TimeSystem::Byoyomi {
                main: 0.0,
                period,
                periods: 5,
            });
            for clock in [canadian, japanese] {
                let b = clock.budget(Color::Black, 40.0).unwrap();
                assert!((low..=high).contains(&b), "{period} s: {b}");
            }
        }
    }

    #[test]
    fn time_left_reports_set_the_budget() {
        // Canadian 1 s per stone: a report of half a second left in the period
        // leaves less than that.
        let mut clock = Clock::new(TimeSystem::from_time_settings(0.0, 1.0, 1));
        clock.time_left(Color::Black, 0.5, 1);
        let b = clock.budget(Color::Black, 40.0).unwrap();
        assert!((0.3..0.45).contains(&b), "{b}");
        // Main time: a share of what is left, so far below the hard limit.
        let mut clock = Clock::new(TimeSystem::Absolute { main: 600.0 });
        assert!((9.0..11.0).contains(&clock.budget(Color::Black, 60.0).unwrap()));
        clock.time_left(Color::Black, 60.0, 0);
        assert!((0.9..1.1).contains(&clock.budget(Color::Black, 60.0).unwrap()));
        // Almost out of main time: the margin still holds.
        clock.time_left(Color::Black, 1.0, 0);
        let b = clock.budget(Color::Black, 1.0).unwrap();
        assert!((0.5..0.9).contains(&b), "{b}");
        // Main time left, then a 1 s byo-yomi: main time and the period together.
        let mut clock = Clock::new(TimeSystem::Byoyomi {
            main: 10.0,
            period: 1.0,
            periods: 3,
        });
        clock.time_left(Color::Black, 0.2, 0);
        let b = clock.budget(Color::Black, 40.0).unwrap();
        assert!((0.75..1.05).contains(&b), "{b}");
    }

    #[test]
    fn measured_lag_widens_the_margin_and_fades() {
        let period = Clock::new(TimeSystem::from_time_settings(0.0, 1.0, 1));
        let base = period.budget(Color::Black, 40.0).unwrap();
        // A genmove ran 0.2 s over its budget.
        let mut clock = period;
        clock.observe_overrun(Duration::from_millis(500), Duration::from_millis(700));
        let b = clock.budget(Color::Black, 40.0).unwrap();
        assert!((b - (base - 0.2)).abs() < 1e-9, "{base} {b}");
        // Moves without overrun let it fade.
        for _ in 0..30 {
            clock.observe_overrun(Duration::from_millis(500), Duration::from_millis(400));
        }
        assert!(clock.budget(Color::Black, 40.0).unwrap() > base - 0.02);

        // Main time: the controller charged 0.3 s more per move than we measured.
        let mut clock = Clock::new(TimeSystem::Absolute { main: 100.0 });
        clock.spend(Color::Black, Duration::from_secs(2));
        clock.spend(Color::Black, Duration::from_secs(2));
        assert_eq!(clock.remaining(Color::Black).time, 96.0);
        clock.time_left(Color::Black, 95.4, 0);
        assert!((clock.lag() - 0.3).abs() < 1e-9, "{}", clock.lag());
        assert_eq!(clock.remaining(Color::Black).time, 95.4);
        // A whole-second report (KGS rounds down) shows no lag under a second.
        let mut clock = Clock::new(TimeSystem::Absolute { main: 100.0 });
        clock.spend(Color::Black, Duration::from_millis(2300));
        clock.time_left(Color::Black, 97.0, 0);
        assert_eq!(clock.lag(), 0.0);
        // A report without own moves since the last one says nothing about
        // lag; a lag beyond reason counts as MAX_LAG_SECONDS.
        clock.time_left(Color::Black, 50.0, 0);
        assert_eq!(clock.lag(), 0.0);
        clock.spend(Color::Black, Duration::from_secs(1));
        clock.time_left(Color::Black, 1.0, 0);
        assert_eq!(clock.lag(), MAX_LAG_SECONDS);
        // New settings keep what was learnt about the controller.
        let next = clock.with_system(TimeSystem::from_time_settings(0.0, 30.0, 1));
        assert_eq!(next.lag(), MAX_LAG_SECONDS);
        assert_eq!(next.remaining(Color::Black).time, 30.0);
    }

    #[test]
    fn only_period_time_is_use_or_lose() {
        let mut canadian = Clock::new(TimeSystem::from_time_settings(0.0, 1.0, 1));
        assert!(canadian.use_or_lose(Color::Black));
        canadian.time_left(Color::Black, 20.0, 0);
        assert!(!canadian.use_or_lose(Color::Black), "main time");
        let five_stones = Clock::new(TimeSystem::from_time_settings(0.0, 60.0, 5));
        assert!(!five_stones.use_or_lose(Color::Black));
        let byoyomi = Clock::new(TimeSystem::Byoyomi {
            main: 0.0,
            period: 30.0,
            periods: 3,
        });
        assert!(byoyomi.use_or_lose(Color::White));
        assert!(!Clock::new(TimeSystem::Absolute { main: 60.0 }).use_or_lose(Color::White));
        assert!(!Clock::default().use_or_lose(Color::White));
    }

    #[test]
    fn huge_clocks_give_durations() {
        let board = Board::new(Geometry::new(9).unwrap());
        for clock in [
            Clock::new(TimeSystem::Absolute { main: 1e25 }),
            Clock::new(TimeSystem::from_time_settings(0.0, 1e300, 1)),
        ] {
            let l = limits(Limits::default(), &clock, Color::Black, &board, None);
            assert!(l.time.is_some_and(|t| t.as_secs_f64() <= 366.0 * 86400.0));
        }
    }

    #[test]
    fn byoyomi_budget_uses_the_period() {
        let mut clock = Clock::new(TimeSystem::Byoyomi {
            main: 0.0,
            period: 30.0,
            periods: 5,
        });
        assert_eq!(
            clock.remaining(Color::White),
            Remaining {
                time: 30.0,
                count: 5
            }
        );
        let b = clock.budget(Color::White, 100.0).unwrap();
        assert!((25.0..29.0).contains(&b), "{b}");
        clock.spend(Color::White, Duration::from_secs(40));
        assert_eq!(
            clock.remaining(Color::White),
            Remaining {
                time: 30.0,
                count: 4
            }
        );
    }

    #[test]
    fn own_accounting_between_reports() {
        let mut clock = Clock::new(TimeSystem::Canadian {
            main: 10.0,
            period: 20.0,
            stones: 2,
        });
        clock.spend(Color::Black, Duration::from_secs(4));
        assert_eq!(
            clock.remaining(Color::Black),
            Remaining {
                time: 6.0,
                count: 0
            }
        );
        clock.spend(Color::Black, Duration::from_secs(8));
        assert_eq!(
            clock.remaining(Color::Black),
            Remaining {
                time: 18.0,
                count: 1
            }
        );
        clock.spend(Color::Black, Duration::from_secs(3));
        assert_eq!(
            clock.remaining(Color::Black),
            Remaining {
                time: 20.0,
                count: 2
            }
        );
        assert_eq!(
            clock.remaining(Color::White),
            Remaining {
                time: 10.0,
                count: 0
            }
        );

        let mut f = Clock::new(TimeSystem::Fischer {
            main: 10.0,
            increment: 5.0,
            main_cap: Some(12.0),
            max_per_move: None,
        });
        f.spend(Color::White, Duration::from_secs(1));
        assert_eq!(f.remaining(Color::White).time, 12.0);
    }

    #[test]
    fn limits_combine_flags_and_clock() {
        let board = Board::new(Geometry::new(19).unwrap());
        let none = Limits::default();
        let free = limits(none, &Clock::default(), Color::Black, &board, None);
        assert_eq!(
            free.time,
            Some(Duration::from_secs_f64(DEFAULT_MOVE_SECONDS))
        );
        let playouts = Limits {
            playouts: Some(100),
            time: None,
        };
        assert_eq!(
            limits(playouts, &Clock::default(), Color::Black, &board, None),
            playouts
        );
        let clock = Clock::new(TimeSystem::Absolute { main: 60.0 });
        let l = limits(
            Limits {
                playouts: None,
                time: Some(Duration::from_secs(10)),
            },
            &clock,
            Color::Black,
            &board,
            None,
        );
        assert!(l.time.unwrap() < Duration::from_secs(1), "{l:?}");
    }

    /// KGS's 5:00 + 5×10 s: main time goes at about one and a half periods a
    /// move (not one, which would make it add nothing to the game), and its
    /// last seconds go together with the first period.
    #[test]
    fn main_time_before_byoyomi_is_spent_at_more_than_a_period_a_move() {
        let board = Board::new(Geometry::new(19).unwrap());
        for system in [
            TimeSystem::Byoyomi {
                main: 300.0,
                period: 10.0,
                periods: 5,
            },
            TimeSystem::Canadian {
                main: 300.0,
                period: 100.0,
                stones: 10,
            },
        ] {
            let mut clock = Clock::new(system);
            let seconds = |clock: &Clock| clock.budget(Color::Black, moves_left(&board)).unwrap();
            let opening = seconds(&clock);
            assert!((14.0..16.0).contains(&opening), "{system:?}: {opening}");
            clock.time_left(Color::Black, 12.0, 0);
            let last = seconds(&clock);
            assert!((19.0..21.5).contains(&last), "{system:?}: {last}");
        }
        // Without overtime, main time is shared out as before.
        let clock = Clock::new(TimeSystem::Absolute { main: 300.0 });
        let b = clock.budget(Color::Black, moves_left(&board)).unwrap();
        assert!((1.0..3.0).contains(&b), "{b}");
    }

    #[test]
    fn a_won_game_saves_main_time_but_never_a_period() {
        let board = Board::new(Geometry::new(19).unwrap());
        let seconds = |clock: &Clock, winrate| {
            limits(Limits::default(), clock, Color::White, &board, winrate)
                .time
                .unwrap()
                .as_secs_f64()
        };
        let main = Clock::new(TimeSystem::Absolute { main: 600.0 });
        let full = seconds(&main, None);
        assert_eq!(seconds(&main, Some(0.9)), full);
        let saved = seconds(&main, Some(0.97));
        assert!((0.35..0.45).contains(&(saved / full)), "{full} {saved}");
        // In a byo-yomi period unused time is lost: a won game thinks as long.
        let period = Clock::new(TimeSystem::from_time_settings(0.0, 2.0, 1));
        assert_eq!(seconds(&period, Some(0.99)), seconds(&period, None));
    }
}
