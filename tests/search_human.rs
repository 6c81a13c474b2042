//! Human-like play with a human-SL net: the move draw follows the human
//! policy (a seeded chi-square test over many draws from a fixed position,
//! on a random v15 metadata-encoder net the tests write), the veto keeps a
//! won game from being thrown away, and `genmove` over GTP plays the human
//! net's moves while the search keeps passing to itself. (That the human
//! policy itself equals KataGo's is `nn_golden_synthetic`'s test.)

use crate::common;
use crate::common::katago_net;

use common::Engine;
use std::sync::Arc;
use tengen::engine::{MoveInfo, Report};
use tengen::go::board::{Color, Geometry, Move};
use tengen::go::game::Game;
use tengen::go::rules::Preset;
use tengen::nn::metadata::SgfMetadata;
use tengen::nn::Network;
use tengen::search::human::{draw, HumanPlay, WON};

/// The random human-SL net, written once per test binary.
fn human_net_path() -> std::path::PathBuf {
    let spec = katago_net::Spec {
        policy_gain: 30.0,
        ..katago_net::v15_meta()
    };
    let net = katago_net::random_net_spec(&spec, 2201);
    let bytes = katago_net::gzip(&katago_net::model_bytes(&net, true));
    katago_net::temp_file("human-play-v15-meta.bin.gz", &bytes)
}

fn human_play(profile: &str, seed: u64) -> HumanPlay {
    let human = Arc::new(Network::load(human_net_path()).expect("the test net loads"));
    assert!(human.needs_metadata());
    let main = Arc::new(tengen::nn::builtin::network().expect("the built-in net"));
    let profile = SgfMetadata::profile(profile).expect("a profile");
    HumanPlay::new(human, main, profile, seed)
}

/// 99.9% quantile of chi-square with `k` degrees of freedom (Wilson–Hilferty).
fn chi2_bound(k: f64) -> f64 {
    let z = 3.09;
    k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3)
}

#[test]
fn draws_follow_the_human_policy() {
    let mut play = human_play("rank_8k", 11);
    let mut game = Game::new(Geometry::new(9).unwrap(), Preset::Chinese.rules(), 7.5);
    for (x, y) in [(2, 2), (6, 6), (2, 6)] {
        let c = game.to_move();
        game.play(
            c,
            Move::Play(Geometry::new(9).unwrap().point(x, y).unwrap()),
        )
        .unwrap();
    }
    // One fixed evaluation (symmetry chosen by the seed), then many draws.
    let weights: Vec<(Move, f32)> = play.policy(&game, Color::White).unwrap().to_vec();
    assert_eq!(weights.len(), 78, "every empty point is a legal board move");
    let total: f64 = weights.iter().map(|w| w.1 as f64).sum();
    assert!(total > 0.5 && total <= 1.0 + 1e-4, "{total}");
    let top = weights.iter().map(|w| w.1).fold(0.0, f32::max);
    assert!(
        top < 0.9 && top > 2.0 / 78.0,
        "a spread-out, non-uniform policy: {top}"
    );
    let mut rng = tengen::search::classical::playout::PlayoutRng::new(3);
    let draws = 200_000;
    let mut counts = vec![0u64; weights.len()];
    for _ in 0..draws {
        counts[draw(&weights, &mut rng).unwrap()] += 1;
    }
    let (mut chi2, mut cells) = (0.0, 0);
    for (w, &n) in weights.iter().zip(&counts) {
        let e = w.1 as f64 / total * draws as f64;
        if e >= 5.0 {
            chi2 += (n as f64 - e).powi(2) / e;
            cells += 1;
        }
    }
    assert!(cells > 20);
    let bound = chi2_bound((cells - 1) as f64);
    assert!(
        chi2 < bound,
        "chi2 {chi2:.1} over {cells} cells, bound {bound:.1}"
    );
    // Zero, negative and NaN weights are never drawn; no positive weight, no draw.
    let odd = [
        (Move::Pass, 0.0),
        (weights[0].0, -1.0),
        (weights[1].0, f32::NAN),
        (weights[2].0, 0.5),
    ];
    for _ in 0..100 {
        assert_eq!(draw(&odd, &mut rng), Some(3));
    }
    assert_eq!(draw(&odd[..3], &mut rng), None);
}

#[test]
fn a_move_that_throws_away_a_won_game_is_vetoed() {
    // Black far ahead (komi -30), so that the main net agrees the game is won
    // after every move but the one the fake search below condemns.
    let game = Game::new(Geometry::new(9).unwrap(), Preset::Chinese.rules(), -30.0);
    let mut play = human_play("rank_20k", 5);
    // The human net's favourite, which the fake search below says loses.
    let favourite = play
        .policy(&game, Color::Black)
        .unwrap()
        .iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap()
        .0;
    let report = |winrate: f64| Report {
        winrate,
        moves: vec![MoveInfo {
            mv: favourite,
            visits: 50,
            winrate: 0.05,
            prior: 0.0,
            lcb: 0.0,
            score_lead: -20.0,
            score_mean: -20.0,
            score_stdev: 5.0,
            utility: -0.9,
            pv: vec![favourite],
            pv_visits: vec![50],
        }],
        ..Report::default()
    };
    let picks = |play: &mut HumanPlay, winrate: f64| -> Vec<Option<Move>> {
        (0..300)
            .map(|_| play.choose(&game, Color::Black, &report(winrate)))
            .collect()
    };
    // In a game not yet won the favourite is played now and then...
    let open = picks(&mut play, 0.6);
    assert!(open.contains(&Some(favourite)), "never drawn");
    // ...in a won one never (another draw, or the search's move after
    // MAX_DRAWS vetoes).
    let won = picks(&mut play, WON + 0.05);
    assert!(won.iter().all(|m| *m != Some(favourite)));
    assert!(won.iter().filter(|m| m.is_some()).count() > 250);
}

#[test]
fn genmove_plays_the_human_nets_moves_over_gtp() {
    let path = human_net_path();
    let net = path.to_str().unwrap();
    let mut e = Engine::spawn(&[
        "--human-model",
        net,
        "--human-profile",
        "rank_5k",
        "--size",
        "9",
        "--playouts",
        "16",
    ]);
    assert!(
        e.stderr_has("network from --human-model "),
        "{}",
        e.stderr()
    );
    assert!(e.ok("kata-raw-human-nn 0").contains("whiteWin"));
    assert_ne!(
        e.ok("kata-raw-human-nn 0"),
        e.ok("kata-raw-nn 0"),
        "two nets"
    );
    let mut distinct = std::collections::BTreeSet::new();
    for _ in 0..16 {
        let mv = e.ok("genmove b");
        assert!(mv != "pass" && mv != "resign", "{mv}");
        distinct.insert(mv);
        e.ok("undo");
    }
    assert!(distinct.len() >= 4, "drawn, not argmax: {distinct:?}");
    e.ok("kata-set-param humanSLProfile proyear_1920");
    assert_eq!(e.ok("kata-get-param humanSLProfile"), "proyear_1920");
    // kata-analyze's `humanPolicy true` (a tengen extension) prints the human
    // net's policy for the analysed player, as kata-raw-human-nn gives it.
    e.ok("play B E5");
    for color in ["B", "W"] {
        let raw = e.ok(&format!("kata-raw-human-nn {color} 0"));
        let lines: Vec<&str> = raw.lines().collect();
        let at = lines.iter().position(|l| *l == "policy").unwrap();
        let mut want: Vec<f64> = lines[at + 1..at + 10]
            .iter()
            .flat_map(|row| row.split_whitespace())
            .map(|v| v.parse::<f64>().unwrap())
            .collect();
        let pass = lines[at + 10].strip_prefix("policyPass ").unwrap();
        want.push(pass.trim().parse().unwrap());
        e.send(&format!("kata-analyze {color} 10 humanPolicy true"));
        assert_eq!(e.line(), "=\n");
        let line = e.line();
        e.send("protocol_version");
        while e.line() != "\n" {}
        assert_eq!(e.raw_response(), "= 2\n\n");
        let (_, policy) = line.trim_end().split_once(" humanPolicy ").unwrap();
        let got: Vec<f64> = policy.split(' ').map(|v| v.parse().unwrap()).collect();
        assert_eq!(got.len(), 82, "{line}");
        assert_eq!(got[4 * 9 + 4], -1.0, "E5 is taken");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let w = if w.is_nan() || *w < 0.0 { -1.0 } else { *w };
            assert!((g - w).abs() < 2e-6, "{color} point {i}: {g} against {w}");
        }
    }
    e.ok("undo");
    // Without a profile, or beside --classical or --level, it is refused.
    for extra in [
        &[][..],
        &["--human-profile", "rank_5k", "--classical"],
        &["--human-profile", "rank_5k", "--level", "5k"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tengen"))
            .args(["--human-model", net])
            .args(extra)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{extra:?}");
    }
    // Without a human net, kata-raw-human-nn says so.
    let mut plain = Engine::spawn_default_net(&["--size", "9"]);
    assert!(plain.fail("kata-raw-human-nn 0").contains("--human-model"));
    assert!(plain
        .fail("kata-analyze b 10 humanPolicy true")
        .contains("--human-model"));
}

/// Human-like play resigns later, as a level does: after twice the losing
/// streak (the search judges by its own play, which the engine then does not
/// play). White owns the 5×5 board; Black, to move after 14 moves, has nothing.
#[test]
fn human_like_play_resigns_after_twice_the_streak() {
    use tengen::engine::{Decision, Engine, GenmoveOptions, Limits};
    use tengen::search::{MctsEngine, SearchConfig, RESIGN_AFTER};
    let g = Geometry::new(5).unwrap();
    let mut game = Game::new(g, Preset::Chinese.rules(), 0.5);
    let mut color = Color::Black;
    for p in g.points().take(14) {
        game.play(color, Move::Play(p)).unwrap();
        color = color.opp();
    }
    let lost = [
        ". . . O .",
        "O O O O O",
        ". O . O .",
        "O O O O O",
        ". O . O .",
    ];
    let mut setup: Vec<_> = g.points().map(|p| (p, None)).collect();
    for (y, row) in lost.iter().enumerate() {
        for (x, ch) in row.split_whitespace().enumerate() {
            let stone = (ch == "O").then_some(Color::White);
            setup.push((g.point(x, y).unwrap(), stone));
        }
    }
    game.setup(&setup, Some(Color::Black));
    let main = Arc::new(tengen::nn::builtin::network().unwrap());
    let config = SearchConfig {
        tt_mb: 4,
        human_profile: SgfMetadata::profile("rank_5k").unwrap(),
        ..SearchConfig::default()
    };
    let mut e = MctsEngine::with_network(config, main).unwrap();
    let human = Arc::new(Network::load(human_net_path()).unwrap());
    e.set_human_net(human).unwrap();
    let options = GenmoveOptions {
        limits: Limits {
            playouts: Some(500),
            time: None,
        },
        allow_resign: true,
        ..GenmoveOptions::default()
    };
    let after = RESIGN_AFTER as usize;
    let stop = std::sync::atomic::AtomicBool::new(false);
    let decisions: Vec<Decision> = (0..2 * after)
        .map(|_| {
            e.genmove(&game, Color::Black, &options, &stop, &mut |_| {})
                .0
        })
        .collect();
    let first = decisions.iter().position(|d| *d == Decision::Resign);
    assert_eq!(first, Some(2 * after - 1), "{decisions:?}");
}
