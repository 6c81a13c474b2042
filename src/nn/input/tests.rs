//! Tests of the network inputs: hand-made positions for each plane and global,
//! and naive references (a recursive ladder reader on board copies, a
//! recompute-everything Benson) diffed against the fast code on random positions.

use super::area::{AreaFlags, AreaScratch};
use super::features::{komi_parity_wave, FeatureScratch};
use super::ladder::LadderScratch;
use super::sizes::{NUM_GLOBAL_FEATURES, NUM_SPATIAL_FEATURES};
use crate::go::board::{Board, Color, Geometry, Move, Point, Stone, CELLS};
use crate::go::game::Game;
use crate::go::random::PlayoutRng;
use crate::go::rules::{HandicapBonus, KoRule, Preset, Rules};

fn game_from(rows: &[&str], rules: Rules, komi: f64, to_move: Color) -> Game {
    let b = Board::from_diagram(rows).expect("diagram");
    let g = b.geometry();
    let mut game = Game::new(g, rules, komi);
    let changes: Vec<_> = g
        .points()
        .filter_map(|p| b.at(p).color().map(|c| (p, Some(c))))
        .collect();
    game.setup(&changes, Some(to_move));
    game
}

struct Features {
    w: usize,
    h: usize,
    spatial: Vec<f32>,
    global: [f32; NUM_GLOBAL_FEATURES],
}

impl Features {
    fn of(game: &Game) -> Features {
        let g = game.board().geometry();
        let (w, h) = (g.width(), g.height());
        let mut spatial = vec![0.0; NUM_SPATIAL_FEATURES * w * h];
        let mut global = [0.0; NUM_GLOBAL_FEATURES];
        FeatureScratch::new()
            .fill_v7(game, &mut spatial, &mut global)
            .expect("features");
        Features {
            w,
            h,
            spatial,
            global,
        }
    }

    fn at(&self, c: usize, x: usize, y: usize) -> bool {
        self.spatial[c * self.w * self.h + y * self.w + x] != 0.0
    }

    /// The points set in plane `c`, as (x, y).
    fn points(&self, c: usize) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for y in 0..self.h {
            for x in 0..self.w {
                if self.at(c, x, y) {
                    v.push((x, y));
                }
            }
        }
        v
    }
}

fn pt(game: &Game, x: usize, y: usize) -> Point {
    game.board().geometry().point(x, y).expect("point")
}

fn play(game: &mut Game, x: usize, y: usize) {
    let p = pt(game, x, y);
    let c = game.to_move();
    game.play(c, Move::Play(p)).expect("legal move");
}

fn pass(game: &mut Game) {
    let c = game.to_move();
    game.play(c, Move::Pass).expect("pass");
}

const LADDER: [&str; 9] = [
    ".........",
    ".........",
    ".........",
    "....XX...",
    "...XO....",
    "....X....",
    ".........",
    ".........",
    ".........",
];

#[test]
fn one_liberty_ladder_works_and_a_breaker_stops_it() {
    let game = game_from(&LADDER, Rules::default(), 7.5, Color::Black);
    let f = Features::of(&game);
    assert_eq!(f.points(14), vec![(4, 4)], "the white stone is laddered");
    assert!(
        f.points(17).is_empty(),
        "one-liberty chains give no capture move"
    );
    assert_eq!(f.points(3), vec![(4, 4)]);

    let mut rows = LADDER;
    rows[7] = ".......O.";
    let game = game_from(&rows, Rules::default(), 7.5, Color::Black);
    let f = Features::of(&game);
    assert!(
        f.points(14).is_empty(),
        "the breaker on the diagonal saves it"
    );
}

#[test]
fn two_liberty_ladder_gives_the_capturing_moves() {
    let mut rows = LADDER;
    rows[3] = ".....X...";
    let game = game_from(&rows, Rules::default(), 7.5, Color::Black);
    let f = Features::of(&game);
    assert_eq!(f.points(14), vec![(4, 4)]);
    // Black at (4,3) ladders White toward the lower right, at (5,4) toward the upper left.
    assert_eq!(f.points(17), vec![(4, 3), (5, 4)]);

    // A white stone on the upper-left path leaves only one capturing move.
    rows[1] = ".O.......";
    let game = game_from(&rows, Rules::default(), 7.5, Color::Black);
    let f = Features::of(&game);
    assert_eq!(f.points(17), vec![(4, 3)]);

    // With White to move, the laddered chain is our own: plane 14 only.
    let game = game_from(&rows, Rules::default(), 7.5, Color::White);
    let f = Features::of(&game);
    assert_eq!(f.points(14), vec![(4, 4)]);
    assert!(f.points(17).is_empty());
}

#[test]
fn ladder_planes_of_earlier_boards() {
    // Black to move extends the laddered stone; one move later the old board
    // still shows it on plane 15, two moves later on plane 16.
    let mut game = game_from(&LADDER, Rules::default(), 7.5, Color::White);
    play(&mut game, 5, 4); // White extends: two liberties, still laddered.
    let f = Features::of(&game);
    assert_eq!(f.points(15), vec![(4, 4)]);
    assert_eq!(f.points(14), vec![(4, 4), (5, 4)]);
    assert!(f.points(16).iter().all(|p| f.points(15).contains(p)));
    play(&mut game, 0, 0);
    let f = Features::of(&game);
    assert_eq!(f.points(16), vec![(4, 4)]);
    assert_eq!(f.points(15), vec![(4, 4), (5, 4)]);
}

#[test]
fn pass_alive_group_and_territory() {
    let rows = [
        ".X.XO....",
        "XXXXO....",
        "OOOOO....",
        ".........",
        ".........",
        ".........",
        ".........",
        ".........",
        ".........",
    ];
    let game = game_from(&rows, Rules::default(), 7.5, Color::Black);
    let mut area = vec![None; CELLS];
    AreaScratch::default().calculate(game.board(), AreaFlags::PASS_ALIVE_ONLY, false, &mut area);
    let b = game.board();
    for x in 0..4 {
        assert_eq!(area[pt(&game, x, 0).index()], Some(Color::Black), "x {x}");
        assert_eq!(area[pt(&game, x, 1).index()], Some(Color::Black));
    }
    // White's wall is not pass-alive: the open board is one big region.
    assert_eq!(area[pt(&game, 4, 2).index()], None);
    assert_eq!(b.at(pt(&game, 4, 2)), Stone::White);
    assert_eq!(area.iter().filter(|a| a.is_some()).count(), 8);

    let f = Features::of(&game);
    // Own (Black) area: the pass-alive group and its eyes, nothing else.
    assert_eq!(f.points(18).len(), 8);
    // Opponent area: White's stones and the open board bordered only by White.
    assert_eq!(f.points(19).len(), 81 - 8);
}

#[test]
fn seki_is_not_pass_alive() {
    // A corner seki: Black's and White's inside chains share two liberties.
    let rows = [
        "X.OX.O...",
        "XXOXOO...",
        "OOXXO....",
        "..OOO....",
        ".........",
        ".........",
        ".........",
        ".........",
        ".........",
    ];
    let game = game_from(&rows, Rules::default(), 7.5, Color::Black);
    let mut area = vec![None; CELLS];
    AreaScratch::default().calculate(game.board(), AreaFlags::PASS_ALIVE_ONLY, false, &mut area);
    for p in game.board().geometry().points() {
        assert_eq!(
            area[p.index()],
            None,
            "{:?} is not pass-alive",
            (p.x(), p.y())
        );
    }
}

const KO: [&str; 9] = [
    ".........",
    ".........",
    ".........",
    "....XO...",
    "...XO.O..",
    "....XO...",
    ".........",
    ".........",
    ".........",
];

#[test]
fn ko_ban_plane_and_legal_mask() {
    let mut game = game_from(&KO, Rules::default(), 7.5, Color::Black);
    play(&mut game, 5, 4); // Black takes the ko.
    let f = Features::of(&game);
    assert_eq!(f.points(6), vec![(4, 4)]);
    let mut mask = vec![false; 82];
    FeatureScratch::new()
        .legal_moves_mask(&game, &mut mask)
        .unwrap();
    assert!(!mask[4 * 9 + 4], "the ko recapture");
    assert!(mask[81], "pass");
    assert!(!mask[4 * 9 + 5], "occupied");
    assert!(mask[0]);
}

#[test]
fn superko_ban_after_passes() {
    for (preset, banned) in [
        (Preset::Chinese, true),
        (Preset::Aga, true),
        (Preset::Japanese, false),
    ] {
        let mut game = game_from(&KO, preset.rules(), 7.5, Color::Black);
        play(&mut game, 5, 4);
        pass(&mut game);
        pass(&mut game);
        let f = Features::of(&game);
        let mut mask = vec![false; 82];
        FeatureScratch::new()
            .legal_moves_mask(&game, &mut mask)
            .unwrap();
        assert_eq!(f.points(6) == vec![(4, 4)], banned, "{preset}");
        assert_eq!(!mask[4 * 9 + 4], banned, "{preset}");
        assert_eq!(
            mask[4 * 9 + 4],
            game.is_legal(Color::White, Move::Play(pt(&game, 4, 4)))
        );
    }
}

#[test]
fn last_moves_planes() {
    let mut game = Game::new(Geometry::new(9).unwrap(), Rules::default(), 7.5);
    for (x, y) in [(2, 2), (6, 6), (2, 6), (6, 2), (4, 4), (3, 3)] {
        play(&mut game, x, y);
    }
    let f = Features::of(&game);
    assert_eq!(f.points(9), vec![(3, 3)]);
    assert_eq!(f.points(10), vec![(4, 4)]);
    assert_eq!(f.points(11), vec![(6, 2)]);
    assert_eq!(f.points(12), vec![(2, 6)]);
    assert_eq!(f.points(13), vec![(6, 6)]);
    assert_eq!(&f.global[0..5], &[0.0; 5]);
    assert_eq!(f.global[14], 0.0);
    assert_eq!(f.points(1).len(), 3, "Black to move owns three stones");

    // A move by the player not to move clears KataGo's history first.
    game.play(Color::White, Move::Play(pt(&game, 0, 0)))
        .unwrap();
    let f = Features::of(&game);
    assert_eq!(f.points(9), vec![(0, 0)]);
    assert!(f.points(10).is_empty());
}

#[test]
fn passes_and_the_friendly_pass_rule() {
    let opening = |preset: Preset| {
        let mut game = Game::new(Geometry::new(9).unwrap(), preset.rules(), 7.5);
        play(&mut game, 2, 2);
        pass(&mut game);
        game
    };
    // Where a friendly pass is fine (Chinese, AGA, New Zealand, GOE), KataGo
    // hides the history and the game-ending pass from the net.
    for preset in [
        Preset::Chinese,
        Preset::Aga,
        Preset::NewZealand,
        Preset::Goe,
    ] {
        assert!(preset.rules().friendly_pass_ok);
        let f = Features::of(&opening(preset));
        assert_eq!(f.global[0], 0.0, "{preset}");
        assert!(f.points(10).is_empty(), "{preset}");
        assert_eq!(f.global[14], 0.0, "{preset}");
    }
    // Without a friendly pass the net sees everything: Tromp-Taylor, or any
    // rules with `friendly_pass_ok` off.
    let unfriendly = Rules {
        friendly_pass_ok: false,
        ..Preset::Chinese.rules()
    };
    for rules in [Preset::TrompTaylor.rules(), unfriendly] {
        let mut game = Game::new(Geometry::new(9).unwrap(), rules, 7.5);
        play(&mut game, 2, 2);
        pass(&mut game);
        let f = Features::of(&game);
        assert_eq!(f.global[0], 1.0);
        assert_eq!(f.points(10), vec![(2, 2)]);
        assert_eq!(f.global[14], 1.0);
    }
    // Japanese: a pass only ends the phase.
    let f = Features::of(&opening(Preset::Japanese));
    assert_eq!(f.global[0], 1.0);
    assert_eq!(f.global[14], 1.0);

    // Two passes end the game: only the last move is shown.
    let mut game = opening(Preset::Chinese);
    pass(&mut game);
    let f = Features::of(&game);
    assert_eq!(&f.global[0..5], &[1.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(f.global[14], 1.0);
    // Passes in the middle of the history.
    let mut game = Game::new(Geometry::new(9).unwrap(), Preset::TrompTaylor.rules(), 7.5);
    play(&mut game, 2, 2);
    pass(&mut game);
    play(&mut game, 3, 3);
    play(&mut game, 4, 4);
    let f = Features::of(&game);
    assert_eq!(&f.global[0..5], &[0.0, 0.0, 1.0, 0.0, 0.0]);
    assert_eq!(f.points(9), vec![(4, 4)]);
    assert_eq!(f.points(12), vec![(2, 2)]);
}

#[test]
fn rule_and_komi_globals() {
    let mut game = Game::new(Geometry::new(19).unwrap(), Rules::default(), 7.5);
    let f = Features::of(&game);
    assert_eq!(f.global[5], -7.5 / 20.0);
    assert_eq!(
        (f.global[6], f.global[7], f.global[8], f.global[9]),
        (1.0, 0.5, 0.0, 0.0)
    );
    assert_eq!(f.global[18], -0.5);
    play(&mut game, 3, 3);
    let f = Features::of(&game);
    assert_eq!(f.global[5], 7.5 / 20.0);
    assert_eq!(f.global[18], 0.5);

    let f = Features::of(&Game::new(
        Geometry::new(9).unwrap(),
        Preset::NewZealand.rules(),
        7.0,
    ));
    assert_eq!((f.global[6], f.global[7], f.global[8]), (1.0, -0.5, 1.0));
    assert_eq!(f.global[18], 0.0, "komi -7 on an odd board can draw");

    // Territory scoring: KataGo's "japanese" (tax seki), no area planes or parity wave,
    // and komi adjusted by the stones each side has played.
    let mut game = Game::new(Geometry::new(9).unwrap(), Preset::Japanese.rules(), 6.5);
    play(&mut game, 2, 2);
    play(&mut game, 6, 6);
    play(&mut game, 4, 4);
    let f = Features::of(&game);
    assert_eq!(f.global[5], 7.5 / 20.0);
    assert_eq!(
        (f.global[6], f.global[7], f.global[9], f.global[10]),
        (0.0, 0.0, 1.0, 1.0)
    );
    assert_eq!(f.global[18], 0.0);
    assert!(f.points(18).is_empty() && f.points(19).is_empty());
}

#[test]
fn handicap_bonus_follows_katago_rules() {
    let rows = [
        ".........",
        ".........",
        "..X......",
        ".........",
        ".........",
        ".........",
        "......X..",
        ".........",
        ".........",
    ];
    for (preset, rule, bonus) in [
        (Preset::Chinese, HandicapBonus::N, 2.0),
        (Preset::Aga, HandicapBonus::NMinusOne, 1.0),
        (Preset::NewZealand, HandicapBonus::Zero, 0.0),
        (Preset::Japanese, HandicapBonus::Zero, 0.0),
    ] {
        assert_eq!(preset.rules().handicap_bonus, rule, "{preset}");
        let game = game_from(&rows, preset.rules(), 7.5, Color::White);
        let f = Features::of(&game);
        let territory = if preset == Preset::Japanese { 2.0 } else { 0.0 };
        assert_eq!(f.global[5], (7.5 + bonus + territory) / 20.0, "{preset}");
        // The net's komi is the one the game is counted with.
        assert_eq!(game.effective_komi(), 7.5 + f64::from(bonus), "{preset}");
        // With the bonus off, komi is komi.
        let mut no_bonus = game.clone();
        no_bonus.set_rules(Rules {
            handicap_bonus: HandicapBonus::Zero,
            ..preset.rules()
        });
        let f = Features::of(&no_bonus);
        assert_eq!(f.global[5], (7.5 + territory) / 20.0, "{preset}");
    }
    // Two black moves in a row from the empty board count as handicap too.
    let mut game = Game::new(Geometry::new(9).unwrap(), Preset::Chinese.rules(), 7.5);
    game.play(Color::Black, Move::Play(pt(&game, 2, 2)))
        .unwrap();
    game.play(Color::Black, Move::Play(pt(&game, 6, 6)))
        .unwrap();
    assert_eq!(Features::of(&game).global[5], 9.5 / 20.0);
}

#[test]
fn komi_parity_wave_values() {
    // Odd boards (9x9, 19x19): integer komi of odd parity can draw.
    for area in [81, 361] {
        assert_eq!(komi_parity_wave(7.0, area), 0.0);
        assert_eq!(komi_parity_wave(7.5, area), 0.5);
        assert_eq!(komi_parity_wave(8.0, area), 0.0);
        assert_eq!(komi_parity_wave(8.5, area), -0.5);
        assert_eq!(komi_parity_wave(6.5, area), -0.5);
        assert_eq!(komi_parity_wave(-7.5, area), -0.5);
        assert_eq!(komi_parity_wave(7.25, area), 0.25);
        assert_eq!(komi_parity_wave(0.0, area), 1.0 - 1.0);
    }
    // Even boards: even komi can draw.
    assert_eq!(komi_parity_wave(6.0, 64), 0.0);
    assert_eq!(komi_parity_wave(6.5, 64), 0.5);
    assert_eq!(komi_parity_wave(7.5, 64), -0.5);
    assert_eq!(komi_parity_wave(0.5, 4), 0.5);
}

#[test]
fn sizes_and_lengths_are_checked() {
    let game = Game::new(Geometry::new(21).unwrap(), Rules::default(), 7.5);
    let mut global = [0.0; NUM_GLOBAL_FEATURES];
    assert!(FeatureScratch::new()
        .fill_v7(&game, &mut vec![0.0; 22 * 441], &mut global)
        .is_err());
    let game = Game::new(Geometry::new(2).unwrap(), Rules::default(), 7.5);
    let mut s = FeatureScratch::new();
    assert!(s.fill_v7(&game, &mut [0.0; 22 * 4], &mut global).is_ok());
    assert!(s.fill_v7(&game, &mut [0.0; 22 * 5], &mut global).is_err());
    assert!(s.legal_moves_mask(&game, &mut [false; 5]).is_ok());
    assert!(s.legal_moves_mask(&game, &mut [false; 4]).is_err());
}

// ---------------------------------------------------------------------------
// Naive references.

/// A random position from `moves` random plays (no suicide, simple ko).
fn random_board(rng: &mut PlayoutRng, n: usize, moves: usize) -> Board {
    let mut b = Board::new(Geometry::new(n).unwrap());
    let mut color = Color::Black;
    for _ in 0..moves {
        let empties: Vec<Point> = b
            .empty_points()
            .filter(|&p| b.is_legal_simple(p, color))
            .collect();
        if empties.is_empty() {
            break;
        }
        let p = empties[rng.below(empties.len())];
        b.play(p, color);
        if rng.below(5) != 0 {
            color = color.opp();
        }
    }
    b
}

fn chain_libs(b: &Board, p: Point) -> Vec<Point> {
    let mut libs = Vec::new();
    for s in b.chain_stones(p) {
        for q in s.neighbors() {
            if b.at(q) == Stone::Empty && !libs.contains(&q) {
                libs.push(q);
            }
        }
    }
    libs
}

fn naive_legal(b: &Board, ko: Option<Point>, p: Point, c: Color) -> bool {
    b.at(p) == Stone::Empty && Some(p) != ko && !b.is_suicide(p, c)
}

fn naive_play(b: &Board, p: Point, c: Color) -> (Board, Option<Point>) {
    let mut nb = b.clone();
    nb.play(p, c);
    let ko = nb.ko().map(|(k, _)| k);
    (nb, ko)
}

/// Is the target (one liberty, its owner to move) captured?
fn naive_defend(b: &Board, ko: Option<Point>, target: Point) -> bool {
    let pla = b.at(target).color().unwrap();
    if b.liberties(target) >= 2 || ko.is_some() {
        return false;
    }
    let mut moves = Vec::new();
    for s in b.chain_stones(target) {
        for q in s.neighbors() {
            if b.at(q) == pla.opp().stone() && b.liberties(q) == 1 {
                for l in chain_libs(b, q) {
                    if !moves.contains(&l) {
                        moves.push(l);
                    }
                }
            }
        }
    }
    for l in chain_libs(b, target) {
        if !moves.contains(&l) {
            moves.push(l);
        }
    }
    for m in moves {
        if naive_legal(b, ko, m, pla) {
            let (nb, nko) = naive_play(b, m, pla);
            if !naive_attack(&nb, nko, target) {
                return false;
            }
        }
    }
    true
}

fn naive_ko_mouth(b: &Board, p: Point, attacker: Color) -> bool {
    let mut capturable = Vec::new();
    for q in p.neighbors() {
        match b.at(q) {
            Stone::Border => {}
            s if s == attacker.opp().stone() => {
                if b.liberties(q) == 1 {
                    capturable.push(q);
                }
            }
            _ => return false,
        }
    }
    capturable.len() == 1 && b.chain_size(capturable[0]) == 1
}

/// Is the target (two liberties or fewer, attacker to move) captured?
fn naive_attack(b: &Board, ko: Option<Point>, target: Point) -> bool {
    let pla = b.at(target).color().unwrap();
    let libs = chain_libs(b, target);
    if libs.len() <= 1 {
        return true;
    }
    if libs.len() >= 3 {
        return false;
    }
    let immediate = |p: Point| b.neighbor_count(p, Stone::Empty);
    if immediate(libs[0]) == 0
        && immediate(libs[1]) == 0
        && libs.iter().all(|&l| naive_ko_mouth(b, l, pla.opp()))
        && libs
            .iter()
            .all(|&l| chain_libs(&naive_play(b, l, pla).0, l).len() <= 2)
        && !b.chain_stones(target).any(|s| {
            s.neighbors()
                .iter()
                .any(|&q| b.at(q) == pla.opp().stone() && b.liberties(q) == 1)
        })
    {
        return true;
    }
    for &m in &libs {
        if naive_legal(b, ko, m, pla.opp()) {
            let (nb, nko) = naive_play(b, m, pla.opp());
            if naive_defend(&nb, nko, target) {
                return true;
            }
        }
    }
    false
}

#[test]
fn ladder_reader_matches_a_naive_reader() {
    let mut rng = PlayoutRng::new(11);
    let mut scratch = LadderScratch::default();
    let (mut checked, mut captured, mut working_seen) = (0, 0, 0);
    for round in 0..300 {
        let n = 5 + round % 9;
        let moves = n * n * 2 / 3 + rng.below(n * n / 3);
        let b = random_board(&mut rng, n, moves);
        let ko = b.ko().map(|(k, _)| k);
        scratch.board.load(&b, ko);
        for p in b.geometry().points() {
            if b.at(p) == Stone::Empty || b.chain_head(p) != p {
                continue;
            }
            let libs = b.liberties(p);
            if libs == 1 {
                let fast = scratch.is_ladder_captured(p, true);
                let slow = naive_defend(&b, None, p);
                assert_eq!(fast, slow, "one liberty at {:?}\n{:?}", (p.x(), p.y()), b);
                checked += 1;
                captured += fast as u32;
            } else if libs == 2 {
                let fast = scratch.two_liberty_ladder(p);
                let mut working: Vec<Point> = scratch.working_moves().to_vec();
                let mut slow = Vec::new();
                for l in chain_libs(&b, p) {
                    if naive_legal(&b, ko, l, b.at(p).color().unwrap().opp()) {
                        let (nb, _) = naive_play(&b, l, b.at(p).color().unwrap().opp());
                        if naive_defend(&nb, None, p) {
                            slow.push(l);
                        }
                    }
                }
                working.sort();
                slow.sort();
                assert_eq!(
                    fast,
                    !slow.is_empty(),
                    "two liberties at {:?}\n{:?}",
                    (p.x(), p.y()),
                    b
                );
                if fast {
                    assert_eq!(working, slow, "{:?}", b);
                    working_seen += 1;
                }
                checked += 1;
            }
        }
    }
    assert!(
        checked > 1000 && captured > 100 && working_seen > 100,
        "{checked} {captured} {working_seen}"
    );
}

/// Benson by recomputation: regions, vitality and deaths recomputed each round.
fn naive_area(b: &Board, flags: AreaFlags, suicide: bool) -> Vec<Option<Color>> {
    let g = b.geometry();
    let mut out = vec![None; CELLS];
    for pla in Color::BOTH {
        let own = pla.stone();
        let mut regions: Vec<Vec<Point>> = Vec::new();
        let mut seen = vec![false; CELLS];
        for p in g.points() {
            if b.at(p) != Stone::Empty || seen[p.index()] {
                continue;
            }
            let mut region = vec![p];
            seen[p.index()] = true;
            let mut i = 0;
            while i < region.len() {
                for q in region[i].neighbors() {
                    if g.contains(q) && b.at(q) != own && !seen[q.index()] {
                        seen[q.index()] = true;
                        region.push(q);
                    }
                }
                i += 1;
            }
            regions.push(region);
        }
        let heads: Vec<Point> = g
            .points()
            .filter(|&p| b.at(p) == own && b.chain_head(p) == p)
            .collect();
        let touches = |q: Point, h: Point| {
            q.neighbors()
                .iter()
                .any(|&s| b.at(s) == own && b.chain_head(s) == h)
        };
        let mut dead = vec![false; heads.len()];
        let borders_dead = |r: &Vec<Point>, dead: &Vec<bool>| {
            r.iter().any(|&q| {
                q.neighbors().iter().any(|&s| {
                    b.at(s) == own
                        && heads
                            .iter()
                            .position(|&h| h == b.chain_head(s))
                            .is_some_and(|i| dead[i])
                })
            })
        };
        loop {
            let mut changed = false;
            for (i, &h) in heads.iter().enumerate() {
                if dead[i] {
                    continue;
                }
                let vital = regions
                    .iter()
                    .filter(|r| !borders_dead(r, &dead))
                    .filter(|r| {
                        r.iter()
                            .all(|&q| !(suicide || b.at(q) == Stone::Empty) || touches(q, h))
                    })
                    .count();
                if vital < 2 {
                    dead[i] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let any_own = !heads.is_empty();
        for (i, &h) in heads.iter().enumerate() {
            if !dead[i] {
                for s in b.chain_stones(h) {
                    out[s.index()] = Some(pla);
                }
            }
        }
        for r in &regions {
            let internal = r.iter().filter(|&&q| b.neighbor_count(q, own) == 0).count();
            let contains_opp = r.iter().any(|&q| b.at(q) != Stone::Empty);
            let bd = borders_dead(r, &dead);
            if (internal <= 1 && !bd && any_own)
                || (flags.safe_big_territories && !contains_opp && !bd && any_own)
            {
                for q in r {
                    out[q.index()] = Some(pla);
                }
            } else if flags.unsafe_big_territories && !contains_opp && any_own {
                for q in r {
                    if out[q.index()].is_none() {
                        out[q.index()] = Some(pla);
                    }
                }
            }
        }
    }
    if flags.non_pass_alive_stones {
        for p in g.points() {
            if out[p.index()].is_none() {
                out[p.index()] = b.at(p).color();
            }
        }
    }
    out
}

#[test]
fn area_matches_a_naive_benson() {
    let mut rng = PlayoutRng::new(5);
    let mut scratch = AreaScratch::default();
    let mut fast = vec![None; CELLS];
    let mut alive_seen = 0;
    for round in 0..400 {
        let n = 3 + round % 8;
        let moves = rng.below(n * n * 2);
        let b = random_board(&mut rng, n, moves);
        for suicide in [false, true] {
            for flags in [AreaFlags::PASS_ALIVE_ONLY, AreaFlags::FEATURES] {
                scratch.calculate(&b, flags, suicide, &mut fast);
                let slow = naive_area(&b, flags, suicide);
                for p in b.geometry().points() {
                    assert_eq!(
                        fast[p.index()],
                        slow[p.index()],
                        "{:?} {flags:?} {suicide}\n{b:?}",
                        (p.x(), p.y())
                    );
                    if flags == AreaFlags::PASS_ALIVE_ONLY && fast[p.index()].is_some() {
                        alive_seen += 1;
                    }
                }
            }
        }
    }
    assert!(alive_seen > 500, "{alive_seen}");
}

#[test]
fn legal_mask_matches_the_game_under_each_ko_rule() {
    let mut rng = PlayoutRng::new(3);
    let mut scratch = FeatureScratch::new();
    for ko in [KoRule::Simple, KoRule::Positional, KoRule::Situational] {
        for suicide_allowed in [false, true] {
            let rules = Rules {
                ko,
                suicide_allowed,
                ..Preset::TrompTaylor.rules()
            };
            let mut bans = 0;
            for _ in 0..40 {
                let n = 4 + rng.below(3);
                let mut game = Game::new(Geometry::new(n).unwrap(), rules, 7.5);
                for _ in 0..3 * n * n {
                    let c = game.to_move();
                    let mut mask = vec![false; n * n + 1];
                    scratch.legal_moves_mask(&game, &mut mask).unwrap();
                    let mut spatial = vec![0.0; 22 * n * n];
                    let mut global = [0.0; NUM_GLOBAL_FEATURES];
                    scratch.fill_v7(&game, &mut spatial, &mut global).unwrap();
                    let mut legal = vec![Move::Pass];
                    for p in game.board().geometry().points() {
                        let ok = game.is_legal(c, Move::Play(p));
                        assert_eq!(
                            mask[p.y() * n + p.x()],
                            ok,
                            "{ko:?} {:?}\n{:?}",
                            (p.x(), p.y()),
                            game.board()
                        );
                        let plane6 = spatial[6 * n * n + p.y() * n + p.x()] != 0.0;
                        let repeats = matches!(
                            game.check(c, Move::Play(p)),
                            Err(crate::go::game::IllegalMove::Ko
                                | crate::go::game::IllegalMove::PositionalSuperko { .. }
                                | crate::go::game::IllegalMove::SituationalSuperko { .. })
                        );
                        assert_eq!(
                            plane6,
                            repeats,
                            "{ko:?} {:?}\n{:?}",
                            (p.x(), p.y()),
                            game.board()
                        );
                        bans += (repeats && ko != KoRule::Simple) as u32;
                        if ok {
                            legal.push(Move::Play(p));
                        }
                    }
                    let mv = if rng.below(8) == 0 {
                        Move::Pass
                    } else {
                        legal[rng.below(legal.len())]
                    };
                    game.play(c, mv).unwrap();
                }
            }
            if ko != KoRule::Simple {
                assert!(bans > 0, "{ko:?}: some superko or ko bans were seen");
            }
        }
    }
}
