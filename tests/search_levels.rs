//! Levels below full strength: KaTrain's calibrated-rank pick against a slow
//! twin written from its description (the count of moves considered, the
//! overrides, and the distribution of the chosen move, by a seeded
//! chi-square test), and the level over GTP with the built-in net.

use crate::common;

use common::Engine;
use tengen::go::board::{Geometry, Move};
use tengen::search::classical::playout::PlayoutRng;
use tengen::search::levels::{moves_considered, pick, plays_top_move, search_chooses, Level};

/// KaTrain's `get_n_moves`, written out as its description reads: N board
/// points, L legal moves with a positive policy, ℓ = L/N.
fn twin_moves_considered(kyu: f64, n_points: usize, l_moves: usize) -> usize {
    let n = n_points as f64;
    let l = l_moves as f64;
    let ell = l / n;
    let orig = 0.063015 + 0.7624 * n / f64::powf(10.0, -0.05737 * kyu + 1.9482);
    let inner = 3.002 * ell * ell - ell - 0.034889 * kyu - 0.5097;
    let modified = (0.3931 + 0.6559 * ell * f64::exp(-(inner * inner)) - 0.01093 * kyu) * orig;
    let n_moves = (n * ell / (1.31165 * (modified + 1.0) - 0.082653)).round();
    f64::max(1.0, n_moves) as usize
}

#[test]
fn moves_considered_follows_katrains_formula() {
    for n_points in [9 * 9, 13 * 13, 19 * 19] {
        for kyu in -8..=20 {
            for l_moves in 1..=n_points {
                assert_eq!(
                    moves_considered(kyu as f64, n_points, l_moves),
                    twin_moves_considered(kyu as f64, n_points, l_moves),
                    "kyu {kyu}, N {n_points}, L {l_moves}"
                );
            }
        }
    }
    // Stronger ranks look at more moves, on an open 19x19 board.
    let open = |kyu| moves_considered(kyu, 361, 300);
    assert!(open(20.0) < open(10.0) && open(10.0) < open(1.0) && open(1.0) < open(-8.0));
}

fn board_move(i: usize) -> Move {
    let g = Geometry::new(19).unwrap();
    Move::Play(g.point(i % 19, i / 19).unwrap())
}

/// A policy over `l` board moves (likeliest first, geometric) and a pass.
fn policy(l: usize, ratio: f32, pass: f32) -> Vec<(Move, f32)> {
    let mut p: Vec<(Move, f32)> = (0..l)
        .map(|i| (board_move(i), ratio.powi(i as i32)))
        .collect();
    let total: f32 = p.iter().map(|m| m.1).sum::<f32>() / (1.0 - pass);
    p.iter_mut().for_each(|m| m.1 /= total);
    p.push((Move::Pass, pass));
    p
}

#[test]
fn the_overrides_play_the_top_move() {
    let sorted = |mut p: Vec<(Move, f32)>| {
        p.sort_by(|a, b| b.1.total_cmp(&a.1));
        p
    };
    // A flat policy over an open board: no override.
    let flat = sorted(policy(300, 0.99, 0.0001));
    assert!(!plays_top_move(10.0, 361, 300, &flat));
    // Pass among the five likeliest.
    let pass_high = sorted(policy(300, 0.99, 0.05));
    assert!(pass_high.iter().take(5).any(|m| m.0 == Move::Pass));
    assert!(plays_top_move(10.0, 361, 300, &pass_high));
    // One clear move: top > 0.8 (1 - filled/2); the bound falls as the board fills.
    let clear = sorted(policy(300, 0.05, 0.0001));
    assert!(clear[0].1 > 0.8 && plays_top_move(10.0, 361, 300, &clear));
    let mut p = vec![(board_move(0), 0.65), (board_move(1), 0.1)];
    p.extend((2..100).map(|i| (board_move(i), 0.25 / 98.0)));
    p.push((Move::Pass, 0.0));
    let p = sorted(p);
    assert!(
        !plays_top_move(10.0, 361, 361, &p),
        "0.65 < 0.8 on an open board"
    );
    assert!(
        plays_top_move(10.0, 361, 100, &p),
        "0.65 > 0.8 (1 - 261/722)"
    );
    // Two moves together: top1 + top2 > 0.85 + max(0, 0.02 (kyu - 8)).
    let mut p = vec![(board_move(0), 0.45), (board_move(1), 0.44)];
    p.extend((2..300).map(|i| (board_move(i), 0.11 / 298.0)));
    p.push((Move::Pass, 0.0));
    let p = sorted(p);
    assert!(plays_top_move(8.0, 361, 300, &p), "0.89 > 0.85");
    assert!(!plays_top_move(12.0, 361, 300, &p), "0.89 < 0.93 at 12k");
}

/// C(n, k) as a float.
fn choose(n: usize, k: usize) -> f64 {
    if k > n {
        return 0.0;
    }
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

#[test]
fn the_pick_is_the_best_of_n_moves_drawn_uniformly() {
    // 40 board moves on 9x9, a policy with no override; at 20k the rank
    // considers n of them (8). The chosen move is the likeliest of a uniform
    // n-subset: rank r with probability C(L-1-r, n-1) / C(L, n); ranks less
    // likely than passing give way to the top move.
    let l = 40;
    let pass = 0.02;
    let kyu = 20.0;
    let base = policy(l, 0.93, pass);
    let n = moves_considered(kyu, 81, l);
    assert!(n > 1 && n < l, "n = {n}");
    let mut expected = vec![0.0; l];
    for (r, &(_, p)) in base.iter().take(l).enumerate() {
        let prob = choose(l - 1 - r, n - 1) / choose(l, n);
        let target = if p >= pass { r } else { 0 };
        expected[target] += prob;
    }
    assert!((expected.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    assert!(
        base.iter().filter(|m| m.1 < pass).count() > 10,
        "some ranks give way"
    );
    let mut rng = PlayoutRng::new(7);
    let draws = 200_000;
    let mut counts = vec![0u64; l];
    for _ in 0..draws {
        let mut p = base.clone();
        counts[rank_of(&base, pick(kyu, 81, &mut p, &[], &mut rng))] += 1;
    }
    assert_drawn_as_expected(&expected, &counts);
}

/// A seeded chi-square test of `counts` (draws per rank) against the
/// `expected` probabilities, over the cells expected to hold at least 5
/// draws; the rest must stay near their expectation.
fn assert_drawn_as_expected(expected: &[f64], counts: &[u64]) {
    let draws: u64 = counts.iter().sum();
    let mut chi2 = 0.0;
    let mut cells = 0;
    for (r, (&p, &count)) in expected.iter().zip(counts).enumerate() {
        let e = p * draws as f64;
        if e >= 5.0 {
            chi2 += (count as f64 - e).powi(2) / e;
            cells += 1;
        } else {
            assert!(
                count as f64 <= 5.0 * e.max(1.0) + 10.0,
                "rank {r}: {count} draws"
            );
        }
    }
    // 99.9% quantile of chi-square with k - 1 degrees of freedom (Wilson–Hilferty).
    let k = (cells - 1) as f64;
    let z = 3.09;
    let bound = k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3);
    assert!(
        chi2 < bound,
        "chi2 {chi2:.1} over {cells} cells (bound {bound:.1})"
    );
}

/// The rank (in `base`'s order) of the move `mv`.
fn rank_of(base: &[(Move, f32)], mv: Move) -> usize {
    base.iter()
        .position(|m| m.0 == mv)
        .expect("a move of the policy")
}

#[test]
fn at_a_dan_rank_the_search_chooses_among_the_moves_drawn() {
    // 2 dan on 9x9, 40 board moves; the search visited the policy's ranks 6
    // (most), 2 and 11. The first of 6, 2, 11 that is drawn is played; when
    // none is, the likeliest move drawn. With S the n-subset drawn:
    // P(6 in S) = C(L-1, n-1) / C(L, n), P(6 out, 2 in) = C(L-2, n-1) / C(L, n),
    // P(6, 2 out, 11 in) = C(L-3, n-1) / C(L, n), and the j-th of the other
    // ranks is the likeliest drawn with C(L-4-j, n-1) / C(L, n).
    let l = 40;
    let kyu = -1.0;
    assert!(search_chooses(kyu) && !search_chooses(1.0));
    let base = policy(l, 0.93, 0.0);
    let n = moves_considered(kyu, 81, l);
    assert!(n > 1 && n < l - 3, "n = {n}");
    let searched = [6, 2, 11];
    let visits: Vec<(Move, u64)> = searched
        .iter()
        .zip([90, 40, 10])
        .map(|(&r, v)| (base[r].0, v))
        .collect();
    let all = choose(l, n);
    let mut expected = vec![0.0; l];
    for (i, &r) in searched.iter().enumerate() {
        expected[r] = choose(l - 1 - i, n - 1) / all;
    }
    let others = (0..l).filter(|r| !searched.contains(r));
    for (j, r) in others.enumerate() {
        expected[r] = choose(l - 4 - j, n - 1) / all;
    }
    assert!((expected.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    let mut rng = PlayoutRng::new(11);
    let mut counts = vec![0u64; l];
    for _ in 0..200_000 {
        let mut p = base.clone();
        counts[rank_of(&base, pick(kyu, 81, &mut p, &visits, &mut rng))] += 1;
    }
    assert_drawn_as_expected(&expected, &counts);

    // Where the position leaves no real choice, the search's most visited
    // move is played (the policy's top at a kyu rank).
    let clear = policy(300, 0.05, 0.0001);
    let visits = [(clear[3].0, 50), (clear[0].0, 20)];
    for _ in 0..100 {
        assert_eq!(
            pick(kyu, 361, &mut clear.clone(), &visits, &mut rng),
            clear[3].0
        );
        assert_eq!(
            pick(5.0, 361, &mut clear.clone(), &visits, &mut rng),
            clear[0].0
        );
    }
    // Equally visited, the policy's likelier is played.
    let tied = [(clear[3].0, 50), (clear[2].0, 50), (clear[0].0, 20)];
    assert_eq!(
        pick(kyu, 361, &mut clear.clone(), &tied, &mut rng),
        clear[2].0
    );
}

#[test]
fn a_kyu_rank_ignores_the_search() {
    let base = policy(200, 0.98, 0.001);
    let visits: Vec<(Move, u64)> = (0..200).map(|r| (base[r].0, 200 - r as u64)).collect();
    let (mut a, mut b) = (PlayoutRng::new(5), PlayoutRng::new(5));
    for kyu in [1.0, 5.0, 20.0] {
        for _ in 0..1000 {
            assert_eq!(
                pick(kyu, 361, &mut base.clone(), &[], &mut a),
                pick(kyu, 361, &mut base.clone(), &visits, &mut b)
            );
        }
    }
}

#[test]
fn a_pass_only_policy_passes_and_pass_never_wins_the_draw() {
    let mut rng = PlayoutRng::new(1);
    let mut only_pass = vec![(Move::Pass, 1.0)];
    assert_eq!(pick(10.0, 361, &mut only_pass, &[], &mut rng), Move::Pass);
    for _ in 0..1000 {
        let mut p = policy(200, 0.98, 0.001);
        assert_ne!(pick(20.0, 361, &mut p, &[], &mut rng), Move::Pass);
    }
}

#[test]
fn levels_over_gtp() {
    let mut e = Engine::spawn_default_net(&["--size", "9", "--playouts", "20"]);
    assert!(e
        .ok("list_commands")
        .lines()
        .any(|l| l == "tengen-set-level"));
    assert_eq!(e.ok("tengen-get-level"), "max");
    for bad in [
        "tengen-set-level",
        "tengen-set-level 0k",
        "tengen-set-level 10d",
        "tengen-set-level 5k 1d",
    ] {
        e.fail(bad);
    }
    assert_eq!(e.ok("tengen-get-level"), "max");
    e.ok("tengen-set-level 20K");
    assert_eq!(e.ok("tengen-get-level"), "20k");
    e.ok("tengen-set-level 3d");
    assert_eq!(e.ok("tengen-get-level"), "3d");
    // At 20k the opening moves spread over the board; at max they do not.
    let distinct = |e: &mut Engine, level: &str| {
        e.ok(&format!("tengen-set-level {level}"));
        let mut moves = std::collections::BTreeSet::new();
        for _ in 0..24 {
            let mv = e.ok("genmove b");
            assert!(mv != "pass" && mv != "resign", "{level}: {mv}");
            moves.insert(mv);
            e.ok("undo");
        }
        moves.len()
    };
    let weak = distinct(&mut e, "20k");
    let full = distinct(&mut e, "max");
    assert!(weak >= 6 && full <= 3, "20k: {weak} distinct, max: {full}");
    // The level is the engine's: the classical engine has none.
    let (ok, err) = {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tengen"))
            .args(["--classical", "--level", "5k"])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert!(!ok && err.contains("--level 5k"), "{err}");
    assert_eq!("max".parse::<Level>(), Ok(Level::Max));
}
