//! Seeded mutation test of the SGF reader, the game loader, the writer and
//! the checker: 120,000 inputs derived from the sgf/ fixtures by byte-level
//! mutations that favour SGF's own characters. Nothing may panic (a panic
//! fails the test), every error must carry a line and column inside the
//! input, and whatever loads must survive write → read unchanged.

use std::path::Path;
use tengen::config::{KoArg, RuleArgs, SuicideArg};
use tengen::search::classical::playout::PlayoutRng;
use tengen::sgf::check::{check_bytes_lines, Lines};
use tengen::sgf::{self, GameRecord};
use tengen::{Preset, Rules};

const INPUTS: usize = 120_000;

fn seeds() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sgf");
    let mut out = Vec::new();
    for sub in ["positions", "games", "odd", "malformed"] {
        let mut paths: Vec<_> = std::fs::read_dir(root.join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        paths.sort();
        for p in paths {
            out.push(std::fs::read(p).unwrap());
        }
    }
    out
}

/// Bytes a mutation likes to insert.
const SPECIAL: &[u8] = b"()[];\\:ABWEPLSZKMHAtt \n\r\x00\xFF\xEF\xBB\xBF";

fn mutate(seed: &[u8], rng: &mut PlayoutRng) -> Vec<u8> {
    let mut v = seed.to_vec();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        let len = v.len();
        let at = if len == 0 { 0 } else { rng.below(len + 1) };
        match rng.below(7) {
            0 if at < len => v[at] = rng.next_u64() as u8,
            1 => v.insert(at, SPECIAL[rng.below(SPECIAL.len())]),
            2 if at < len => {
                let end = (at + 1 + rng.below(8)).min(len);
                v.drain(at..end);
            }
            3 if len > 0 => {
                // Copy a random slice somewhere else (nests trees, repeats nodes).
                let a = rng.below(len);
                let b = (a + 1 + rng.below(40)).min(len);
                let chunk = v[a..b].to_vec();
                let at = at.min(v.len());
                v.splice(at..at, chunk);
            }
            4 => v.truncate(at),
            5 if at < len => {
                // A coordinate letter anywhere in a-z, A-Z.
                let c = rng.below(52) as u8;
                v[at] = if c < 26 { b'a' + c } else { b'A' + c - 26 };
            }
            _ if at < len => v[at] = v[at].wrapping_add(1),
            _ => v.push(SPECIAL[rng.below(SPECIAL.len())]),
        }
    }
    v
}

fn rule_args(i: usize) -> RuleArgs {
    let ko = [
        KoArg::Simple,
        KoArg::Positional,
        KoArg::Situational,
        KoArg::NaturalSituational,
    ][i % 4];
    let suicide = [SuicideArg::Allowed, SuicideArg::Forbidden][(i / 4) % 2];
    RuleArgs {
        rules: None,
        ko: Some(ko),
        suicide: Some(suicide),
    }
}

#[test]
#[ignore = "heavy: .ci/run runs it in its second step"]
fn mutated_inputs_never_panic_and_round_trip() {
    let seeds = seeds();
    let mut rng = PlayoutRng::new(0x5EED_5EED);
    let (mut parsed, mut failed, mut loaded) = (0usize, 0usize, 0usize);
    for i in 0..INPUTS {
        let input = mutate(&seeds[i % seeds.len()], &mut rng);
        match sgf::parse(&input) {
            Err(e) => {
                failed += 1;
                assert!(e.line >= 1 && e.column >= 1, "{e}");
                let lines = input.split(|&b| b == b'\n').count() as u32;
                assert!(
                    e.line <= lines.max(1) + input.iter().filter(|&&b| b == b'\r').count() as u32
                );
            }
            Ok(c) => {
                parsed += 1;
                for root in c.games() {
                    let Ok(rec) = GameRecord::new(root) else {
                        continue;
                    };
                    let info = rec.info();
                    let rules = info.rules.unwrap_or(Preset::Chinese.rules());
                    let before = Some(1 + rng.below(20) as u32);
                    let _ = rec.game(rules, 7.5, before);
                    let Ok(game) = rec.game(rules, info.komi.unwrap_or(7.5), None) else {
                        continue;
                    };
                    loaded += 1;
                    let text = sgf::write_game(&game, info.handicap, info.result.as_deref());
                    let back = sgf::load(text.as_bytes(), 0, None, Rules::default(), 0.0)
                        .unwrap_or_else(|e| panic!("writer output must read back: {e}\n{text}"));
                    assert_eq!(back.game.turns(), game.turns());
                    assert_eq!(back.game.board().hash(), game.board().hash());
                    assert_eq!(back.game.rules(), game.rules());
                }
            }
        }
        let lines = if i % 3 == 0 {
            Lines::AllVariations
        } else {
            Lines::MainLine
        };
        let report = check_bytes_lines(&input, &rule_args(i), lines);
        assert!(report.games > 0 || !report.errors.is_empty());
    }
    eprintln!("{INPUTS} inputs: {parsed} parsed, {failed} rejected, {loaded} games loaded");
    // The mutations must exercise both paths, or the test proves little.
    assert!(parsed > INPUTS / 10, "parsed {parsed}");
    assert!(failed > INPUTS / 10, "failed {failed}");
    assert!(loaded > INPUTS / 20, "loaded {loaded}");
}
