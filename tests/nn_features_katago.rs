//! tengen's V7 network inputs against KataGo's own, position by position: every
//! plane, every global and the legal-move mask (`tests/data/nn_features/`, see the
//! header of the data file for how KataGo's features were recorded).

use crate::common;

use tengen::go::board::{Color, Geometry};
use tengen::go::rules::{KoRule, Preset, Rules};
use tengen::nn::features::FeatureScratch;
use tengen::nn::{NUM_GLOBAL_FEATURES as NUM_GLOBAL, NUM_SPATIAL_FEATURES as NUM_SPATIAL};
use tengen::Game;

const DATA: &str = include_str!("data/nn_features/katago_features.txt");

/// tengen's rules for a KataGo rule-set name: the preset of that name, whose
/// handicap bonus and friendly pass are KataGo's (KataGo's `chinese` is simple
/// ko; tengen's is positional, KataGo's `chinese-ogs`).
fn rules_for(katago_name: &str) -> Rules {
    match katago_name {
        "chinese" => Rules {
            ko: KoRule::Simple,
            ..Preset::Chinese.rules()
        },
        "chinese-ogs" => Preset::Chinese.rules(),
        "japanese" => Preset::Japanese.rules(),
        "aga" => Preset::Aga.rules(),
        "nz" => Preset::NewZealand.rules(),
        "tromp-taylor" => Preset::TrompTaylor.rules(),
        other => panic!("unknown rules {other}"),
    }
}

fn game_for(spec: &str) -> Game {
    let mut it = spec.split_whitespace();
    let n: usize = it.next().expect("size").parse().expect("size");
    let komi: f64 = it.next().expect("komi").parse().expect("komi");
    let g = Geometry::new(n).expect("geometry");
    let rules = rules_for(it.next().expect("rules"));
    let mut game = Game::new(g, rules, komi);
    for m in it {
        let (c, v) = m.split_once(':').expect("move");
        let color = if c == "B" { Color::Black } else { Color::White };
        game.play(color, common::gtp_move(v, g))
            .expect("legal move");
    }
    game
}

fn plane_from_hex(hex: &str, len: usize) -> Vec<bool> {
    let mut bits = Vec::with_capacity(len);
    for ch in hex.chars() {
        let v = ch.to_digit(16).expect("hex digit");
        for j in 0..4 {
            if bits.len() < len {
                bits.push(v >> j & 1 == 1);
            }
        }
    }
    assert_eq!(bits.len(), len);
    bits
}

fn show(bits: &[bool], n: usize) -> String {
    bits.chunks(n)
        .map(|r| {
            r.iter()
                .map(|&b| if b { 'X' } else { '.' })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

struct Expected {
    spec: String,
    planes: Vec<Vec<bool>>,
    global: Vec<f32>,
    illegal: Vec<usize>,
}

fn read_data() -> Vec<Expected> {
    let mut out: Vec<Expected> = Vec::new();
    for line in DATA.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (tag, rest) = line.split_once(' ').expect("tagged line");
        if tag == "position" {
            let n: usize = rest.split_whitespace().next().unwrap().parse().unwrap();
            out.push(Expected {
                spec: rest.to_string(),
                planes: vec![vec![false; n * n]; NUM_SPATIAL],
                global: Vec::new(),
                illegal: Vec::new(),
            });
            continue;
        }
        let e = out.last_mut().expect("a position first");
        let n2 = e.planes[0].len();
        match tag {
            "plane" => {
                let (c, hex) = rest.split_once(' ').unwrap();
                e.planes[c.parse::<usize>().unwrap()] = plane_from_hex(hex, n2);
            }
            "global" => {
                e.global = rest
                    .split_whitespace()
                    .map(|t| t.parse().unwrap())
                    .collect()
            }
            "illegal" if rest != "-" => {
                e.illegal = rest
                    .split_whitespace()
                    .map(|t| t.parse().unwrap())
                    .collect()
            }
            "illegal" => {}
            _ => panic!("unknown line {line}"),
        }
    }
    out
}

#[test]
fn features_match_katago() {
    let data = read_data();
    assert!(data.len() >= 50, "{} positions", data.len());
    let mut scratch = FeatureScratch::new();
    let mut failures = Vec::new();
    for (i, e) in data.iter().enumerate() {
        let game = game_for(&e.spec);
        let n = game.board().geometry().width();
        assert!(game.board().geometry().is_square());
        let mut spatial = vec![0.0f32; NUM_SPATIAL * n * n];
        let mut global = [0.0f32; NUM_GLOBAL];
        scratch.fill_v7(&game, &mut spatial, &mut global).unwrap();
        let mut mask = vec![false; n * n + 1];
        scratch.legal_moves_mask(&game, &mut mask).unwrap();
        for c in 0..NUM_SPATIAL {
            let mine: Vec<bool> = spatial[c * n * n..(c + 1) * n * n]
                .iter()
                .map(|&v| v != 0.0)
                .collect();
            if mine != e.planes[c] {
                failures.push(format!(
                    "position {i} ({}): plane {c}\nKataGo:\n{}\ntengen:\n{}",
                    e.spec,
                    show(&e.planes[c], n),
                    show(&mine, n)
                ));
            }
        }
        for (k, (&mine, &kata)) in global.iter().zip(&e.global).enumerate() {
            if (mine - kata).abs() > 1e-4 {
                failures.push(format!(
                    "position {i} ({}): global {k}: KataGo {kata} tengen {mine}",
                    e.spec
                ));
            }
        }
        let illegal: Vec<usize> = (0..=n * n).filter(|&k| !mask[k]).collect();
        if illegal != e.illegal {
            failures.push(format!(
                "position {i} ({}): illegal moves KataGo {:?} tengen {:?}",
                e.spec, e.illegal, illegal
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n\n")
    );
}
