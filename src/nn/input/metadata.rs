//! The SGF-metadata inputs of KataGo's human-SL nets: who played (ranks, human or not), the time
//! control, the date and the server, as 192 numbers from the side to move's view, and the
//! named profiles (`rank_8k`, `preaz_3d`, `rank_5k_1d`, `proyear_1920`) users choose them by.
//!
//! Facts from KataGo's `sgfmetadata.cpp` (`fillMetadataRow`, `getProfile`); the net itself
//! turns the row into a bias on its trunk (`forward`).

use crate::Color;

use super::sizes::NUM_META_FEATURES;

/// Where a game was played (KataGo's source numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Ogs = 1,
    Kgs = 2,
    Fox = 3,
    Tygem = 4,
    GoGoD = 5,
    Go4Go = 6,
}

/// The game's time control, as far as the metadata knows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TimeControl {
    Unknown,
    None,
    Absolute {
        main: f64,
    },
    Simple {
        period: f64,
    },
    ByoYomi {
        main: f64,
        period: f64,
        periods: u32,
    },
    Canadian {
        main: f64,
        period: f64,
        stones: u32,
    },
    Fischer {
        main: f64,
        increment: f64,
    },
}

/// One side's player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayerInfo {
    pub human: bool,
    /// `None` when unranked; otherwise KataGo's inverse rank (9d = 1 … 1d = 9, 1k = 10 …
    /// 20k = 29), or `Some(None)` when ranked but the rank is unknown.
    pub rank: Option<Option<u32>>,
}

/// What the human-SL net is told about a game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SgfMetadata {
    pub black: PlayerInfo,
    pub white: PlayerInfo,
    /// `None` when unknown, `Some(true)` for a rated game.
    pub rated: Option<bool>,
    pub time_control: TimeControl,
    /// Year, month, day (proleptic Gregorian).
    pub date: (i32, u32, u32),
    pub source: Source,
}

/// KataGo's inverse rank of `9d` … `1d`, `1k` … `20k`.
fn inverse_rank(text: &str) -> Option<u32> {
    let (number, kind) = text.split_at(text.len().checked_sub(1)?);
    let number: u32 = number.parse().ok()?;
    match kind {
        "d" if (1..=9).contains(&number) => Some(10 - number),
        "k" if (1..=20).contains(&number) => Some(9 + number),
        _ => None,
    }
}

impl SgfMetadata {
    /// The profile named `name` as KataGo names them; `Ok(None)` for the empty profile (`""` or
    /// `_`), KataGo's error text for an unknown name.
    pub fn profile(name: &str) -> Result<Option<SgfMetadata>, String> {
        if name.is_empty() || name == "_" || name == "\"\"" {
            return Ok(None);
        }
        if let Some(year) = name.strip_prefix("proyear_") {
            if let Ok(year) = year.parse::<i32>() {
                let source = match year {
                    1800..=2020 => Some(Source::GoGoD),
                    2021..=2023 => Some(Source::Go4Go),
                    _ => None,
                };
                if let Some(source) = source {
                    let pro = PlayerInfo {
                        human: true,
                        rank: Some(Some(1)),
                    };
                    // KataGo leaves the pros' games rated (not unknown).
                    return Ok(Some(SgfMetadata {
                        black: pro,
                        white: pro,
                        rated: Some(true),
                        time_control: TimeControl::Unknown,
                        date: (year, 6, 1),
                        source,
                    }));
                }
            }
        }
        let ranked = name
            .strip_prefix("rank_")
            .map(|r| (r, false))
            .or_else(|| name.strip_prefix("preaz_").map(|r| (r, true)));
        if let Some((ranks, pre_az)) = ranked {
            let pair = match inverse_rank(ranks) {
                Some(r) => Some((r, r)),
                None => ranks
                    .split_once('_')
                    .and_then(|(b, w)| Some((inverse_rank(b)?, inverse_rank(w)?))),
            };
            if let Some((b, w)) = pair {
                let player = |r| PlayerInfo {
                    human: true,
                    rank: Some(Some(r)),
                };
                return Ok(Some(SgfMetadata {
                    black: player(b),
                    white: player(w),
                    rated: None,
                    time_control: TimeControl::ByoYomi {
                        main: 1200.0,
                        period: 30.0,
                        periods: 5,
                    },
                    date: if pre_az { (2016, 9, 1) } else { (2020, 3, 1) },
                    source: Source::Kgs,
                }));
            }
        }
        Err(format!("Unknown human SL network profile: {name}"))
    }

    /// The 192 inputs for `to_move` on a board of `board_area` points.
    pub fn fill_row(&self, to_move: Color, board_area: usize, row: &mut [f32; NUM_META_FEATURES]) {
        row.fill(0.0);
        let (pla, opp) = match to_move {
            Color::Black => (self.black, self.white),
            Color::White => (self.white, self.black),
        };
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        row[0] = flag(pla.human);
        row[1] = flag(opp.human);
        row[2] = flag(pla.rank.is_none());
        row[3] = flag(opp.rank.is_none());
        row[4] = flag(pla.rank == Some(None));
        row[5] = flag(opp.rank == Some(None));
        for (start, player) in [(6, pla), (40, opp)] {
            // An unknown rank counts as 0 steps of the thermometer.
            if let Some(rank) = player.rank {
                let steps = rank.unwrap_or(0).min(34) as usize;
                row[start..start + steps].fill(1.0);
            }
        }
        row[74] = match self.rated {
            None => 0.5,
            Some(false) => 1.0,
            Some(true) => 0.0,
        };
        let (slot, main, period, periods, stones) = match self.time_control {
            TimeControl::Unknown => (75, 0.0, 0.0, 0, 0),
            TimeControl::None => (76, 0.0, 0.0, 0, 0),
            TimeControl::Absolute { main } => (77, main, 0.0, 0, 0),
            TimeControl::Simple { period } => (78, 0.0, period, 0, 0),
            TimeControl::ByoYomi {
                main,
                period,
                periods,
            } => (79, main, period, periods, 0),
            TimeControl::Canadian {
                main,
                period,
                stones,
            } => (80, main, period, 0, stones),
            TimeControl::Fischer { main, increment } => (81, main, increment, 0, 0),
        };
        row[slot] = 1.0;
        let main = main.clamp(0.0, 3.0 * 86400.0);
        let period = period.clamp(0.0, 86400.0);
        row[82] = (0.4 * ((main + 60.0).ln() - 6.5)) as f32;
        row[83] = (0.3 * ((period + 1.0).ln() - 3.0)) as f32;
        row[84] = (0.5 * ((periods.min(50) as f64 + 2.0).ln() - 1.5)) as f32;
        row[85] = (0.25 * ((stones.min(50) as f64 + 2.0).ln() - 1.5)) as f32;
        row[86] = (0.5 * (board_area as f64 / 361.0).ln()) as f32;
        let (y, m, d) = self.date;
        let days = days_since_1970(y, m, d) as f64;
        let factor = 80000f64.powf(1.0 / 31.0);
        let mut period_days = 7.0;
        for i in 0..32 {
            let turns = days / period_days;
            let angle = turns * std::f64::consts::TAU;
            row[87 + 2 * i] = angle.cos() as f32;
            row[88 + 2 * i] = angle.sin() as f32;
            period_days *= factor;
        }
        row[151 + self.source as usize] = 1.0;
    }
}

/// Days from 1970-01-01 to `y-m-d` in the proleptic Gregorian calendar (negative before).
pub fn days_since_1970(y: i32, m: u32, d: u32) -> i64 {
    // Howard Hinnant's days_from_civil.
    let y = i64::from(y) - i64::from(m <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_count_from_the_epoch() {
        assert_eq!(days_since_1970(1970, 1, 1), 0);
        assert_eq!(days_since_1970(1970, 3, 1), 59);
        assert_eq!(days_since_1970(2000, 3, 1), 11_017);
        assert_eq!(days_since_1970(2020, 3, 1), 18_322);
        assert_eq!(days_since_1970(1969, 12, 31), -1);
        // A slow count, day by day, over a leap century.
        let leap = |y: i32| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        let mut days = 0i64;
        for y in 1970..2101 {
            assert_eq!(days_since_1970(y, 1, 1), days, "{y}");
            days += if leap(y) { 366 } else { 365 };
        }
        assert_eq!(days_since_1970(1800, 6, 1), -61_940);
    }

    #[test]
    fn profiles_by_name() {
        let p = SgfMetadata::profile("rank_8k").unwrap().unwrap();
        assert_eq!(p.black.rank, Some(Some(17)));
        assert_eq!(p.source, Source::Kgs);
        assert_eq!(p.date, (2020, 3, 1));
        let p = SgfMetadata::profile("preaz_3d").unwrap().unwrap();
        assert_eq!((p.black.rank, p.date), (Some(Some(7)), (2016, 9, 1)));
        let p = SgfMetadata::profile("rank_5k_1d").unwrap().unwrap();
        assert_eq!(
            (p.black.rank, p.white.rank),
            (Some(Some(14)), Some(Some(9)))
        );
        let p = SgfMetadata::profile("proyear_1920").unwrap().unwrap();
        assert_eq!(
            (p.source, p.time_control),
            (Source::GoGoD, TimeControl::Unknown)
        );
        let p = SgfMetadata::profile("proyear_2022").unwrap().unwrap();
        assert_eq!(p.source, Source::Go4Go);
        assert_eq!(SgfMetadata::profile("_"), Ok(None));
        for bad in [
            "rank_21k",
            "rank_0d",
            "proyear_2024",
            "proyear_1799",
            "rank_",
            "bogus",
        ] {
            let err = SgfMetadata::profile(bad).unwrap_err();
            assert!(
                err.starts_with("Unknown human SL network profile"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn rows_are_from_the_side_to_move() {
        let p = SgfMetadata::profile("rank_20k_9d").unwrap().unwrap();
        let mut row = [0.0; NUM_META_FEATURES];
        p.fill_row(Color::Black, 361, &mut row);
        // Black (20k, inverse 29) is the player: 29 ones, then the 9d opponent: one.
        assert_eq!(row[6..40].iter().sum::<f32>(), 29.0);
        assert_eq!(row[40..74].iter().sum::<f32>(), 1.0);
        assert_eq!((row[74], row[79], row[86], row[153]), (0.5, 1.0, 0.0, 1.0));
        assert!((row[82] - (0.4 * ((1260f64).ln() - 6.5)) as f32).abs() < 1e-7);
        p.fill_row(Color::White, 81, &mut row);
        assert_eq!(row[6..40].iter().sum::<f32>(), 1.0);
        assert_eq!(row[40..74].iter().sum::<f32>(), 29.0);
        assert!((row[86] - (0.5 * (81.0f64 / 361.0).ln()) as f32).abs() < 1e-7);
        // Each (cos, sin) pair is a point on the unit circle; the first turns once a week.
        for i in 0..32 {
            let (c, s) = (row[87 + 2 * i], row[88 + 2 * i]);
            assert!((c * c + s * s - 1.0).abs() < 1e-5);
        }
        let turns = days_since_1970(2020, 3, 1) as f64 / 7.0;
        assert!((row[87] - (turns * std::f64::consts::TAU).cos() as f32).abs() < 1e-6);
    }
}
