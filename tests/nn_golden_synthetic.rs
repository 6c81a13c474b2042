//! The model-version 15-17 features no public net here has, against KataGo itself: small random
//! nets written by `common/katago_net.rs` in KataGo's `.bin.gz` format, evaluated by KataGo
//! 1.17.2 (`tests/data/katago_golden/synth-*.txt`, recorded by `record.py` there) and by
//! tengen's `kata-raw-nn` on the same positions, diffed line by line under the golden
//! tolerances (policy 1e-4, win/loss and ownership 1e-3, scores 0.01).
//!
//! The nets are never stored: each test writes its net from the same spec and seed, checks
//! that the bytes are the ones KataGo was given (the SHA-256 of the uncompressed model that
//! `record.py` wrote into the golden file), then replays every recorded answer. A generator
//! change therefore fails loudly instead of diffing a different net. To write the files for
//! KataGo: `TENGEN_WRITE_TEST_NETS=DIR cargo test --test integration
//! nn_golden_synthetic::write_synthetic_nets -- --ignored` (see the README next to the goldens).

use crate::common;
use crate::common::katago_net;
use crate::common::raw_nn;

use common::Engine;
use katago_net::{
    gzip, model_bytes, random_net_spec, temp_file, v15_meta, v15_transformer, Attn, Block, Net,
    Rope, Spec, TipKind, GQA_FIXED, GQA_FIXED_EVEN, GQA_LEARNABLE, MHA_LEARNABLE, MQA_NO_ROPE,
};
use raw_nn::{compare, data_dir, split_symmetries, Worst};
use std::io::Write;
use std::path::{Path, PathBuf};

/// One synthetic net: its spec and seed, and the golden file KataGo's answers are in.
struct Synthetic {
    /// The net file is `<stem>.bin.gz`, the goldens `synth-<stem>.txt`.
    stem: &'static str,
    spec: Spec,
    seed: u64,
    /// Human-SL profiles the goldens were recorded under (metadata nets only); the first is
    /// the one tengen starts with.
    profiles: &'static [&'static str],
}

/// Plain random weights give near-uniform attention; this gain peaks it (see [`Spec`]).
const QK_GAIN: f32 = 2.0;

/// The nets, each covering what no public net here does.
fn synthetic_nets() -> Vec<Synthetic> {
    vec![
        // (a) The human-SL layout: v15 convolution net with the SGF-metadata encoder.
        Synthetic {
            stem: "v15-meta-conv",
            spec: Spec {
                policy_gain: 6.0,
                ..v15_meta()
            },
            seed: 2201,
            profiles: &["rank_20k", "preaz_3d", "rank_5k_1d", "proyear_1920"],
        },
        // (b) v16: four policy channels, on a nested transformer with multi-head attention and
        // learnable RoPE, a spatial RMSNorm tip, preferPassAliveUnderSuicideRules.
        Synthetic {
            stem: "v16-tf-4ch",
            spec: Spec {
                version: 16,
                attn: &[MHA_LEARNABLE],
                policy_channels: 4,
                prefer_pass_alive: true,
                qk_gain: QK_GAIN,
                policy_gain: 8.0,
                ..v15_transformer()
            },
            seed: 2202,
            profiles: &[],
        },
        // (c) + (d) v17 with policyOutChannels 4: grouped-query attention with fixed RoPE (an
        // odd and an even number of pairs per axis), a per-point RMSNorm tip.
        Synthetic {
            stem: "v17-gqa-fixedrope",
            spec: Spec {
                version: 17,
                attn: &[GQA_FIXED, GQA_FIXED_EVEN],
                tip: TipKind::Rms { spatial: false },
                policy_channels: 4,
                qk_gain: QK_GAIN,
                policy_gain: 12.0,
                ..v15_transformer()
            },
            seed: 2203,
            profiles: &[],
        },
        // (e) v17: multi-query attention without RoPE beside GQA with learnable RoPE, an
        // attention, FFN and gpool block straight in the trunk, random activation kinds, a
        // per-point RMSNorm tip, preferPassAliveUnderSuicideRules.
        Synthetic {
            stem: "v17-norope-mixed",
            spec: Spec {
                version: 17,
                attn: &[GQA_LEARNABLE, MQA_NO_ROPE],
                top_level: true,
                tip: TipKind::Rms { spatial: false },
                policy_channels: 4,
                silu: false,
                prefer_pass_alive: true,
                qk_gain: QK_GAIN,
                policy_gain: 2.5,
                ..v15_transformer()
            },
            seed: 2204,
            profiles: &[],
        },
    ]
}

fn synthetic(stem: &str) -> Synthetic {
    synthetic_nets()
        .into_iter()
        .find(|s| s.stem == stem)
        .unwrap_or_else(|| panic!("no synthetic net {stem}"))
}

/// The uncompressed `.bin` model of a synthetic net.
fn net_bytes(s: &Synthetic) -> Vec<u8> {
    model_bytes(&random_net_spec(&s.spec, s.seed), true)
}

/// Writes every synthetic net as `<stem>.bin.gz` into `$TENGEN_WRITE_TEST_NETS` (default
/// `target/synthetic-nets`), for `record.py` to give to KataGo.
#[test]
#[ignore = "writes the synthetic nets for re-recording the goldens with KataGo"]
fn write_synthetic_nets() {
    let dir = std::env::var_os("TENGEN_WRITE_TEST_NETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/synthetic-nets"));
    std::fs::create_dir_all(&dir).expect("create the output directory");
    for s in synthetic_nets() {
        let bytes = net_bytes(&s);
        let path = dir.join(format!("{}.bin.gz", s.stem));
        std::fs::write(&path, gzip(&bytes)).expect("write the net");
        let _ = writeln!(
            std::io::stderr(),
            "{}: sha256 {} of {} bytes uncompressed",
            path.display(),
            sha256_hex(&bytes),
            bytes.len()
        );
    }
}

/// How a golden file is replayed.
#[derive(Clone, Copy, Default)]
struct Replay {
    /// Only the answers recorded under these profiles (`None`: all).
    profiles: Option<&'static [&'static str]>,
    /// The policy optimism given to `kata-raw-nn` (`None`: none, the engine's default, KataGo's
    /// GTP 0.2).
    optimism: Option<&'static str>,
    /// A change to the net after generating it: the net is then not the one KataGo evaluated,
    /// and the answers should differ.
    mutate: Option<fn(&mut Net)>,
    /// Load the net as the human-SL net (`--human-model`, beside the built-in main net) and
    /// ask `kata-raw-human-nn`, which must answer as KataGo's `kata-raw-nn` on the same net.
    human: bool,
}

/// What a replay found.
struct Outcome {
    golden_name: String,
    answers: usize,
    worst: Worst,
    failures: Vec<String>,
}

/// Replays the answers of `synth-<stem>.txt` on tengen with the regenerated net.
fn replay(stem: &str, how: Replay) -> Outcome {
    let s = synthetic(stem);
    let golden_name = format!("synth-{stem}.txt");
    let text = std::fs::read_to_string(data_dir().join(&golden_name))
        .unwrap_or_else(|e| panic!("{golden_name}: {e}"));
    let (comments, goldens) = raw_nn::parse_goldens(&text);
    assert!(!goldens.is_empty(), "{golden_name} holds no answers");

    // Every profile of the spec was recorded, and only those.
    let mut seen: Vec<&str> = Vec::new();
    for g in &goldens {
        let p = g.profile.as_deref().unwrap_or("");
        if !seen.contains(&p) {
            seen.push(p);
        }
    }
    let recorded: Vec<&str> = if s.profiles.is_empty() {
        vec![""]
    } else {
        s.profiles.to_vec()
    };
    assert_eq!(seen, recorded, "{golden_name}: profiles recorded");
    let wanted = how.profiles.unwrap_or(s.profiles);
    assert!(wanted.iter().all(|p| s.profiles.contains(p)));

    let mut net = random_net_spec(&s.spec, s.seed);
    let mut file = format!("golden-synth-{stem}.bin.gz");
    if let Some(mutate) = how.mutate {
        mutate(&mut net);
        file = format!("golden-synth-{stem}-mutant.bin.gz");
    }
    let bytes = model_bytes(&net, true);
    if how.mutate.is_none() {
        // The net KataGo evaluated, byte for byte.
        let recorded = comments
            .iter()
            .find_map(|c| c.strip_prefix("model sha256 "))
            .unwrap_or_else(|| panic!("{golden_name}: no `# model sha256` line"));
        let ours = format!("{} {} bytes", sha256_hex(&bytes), bytes.len());
        assert!(
            recorded.trim() == ours,
            "{golden_name} was recorded on a net with sha256 {recorded}, but the generator \
             now writes {ours}: the generator (tests/common/katago_net.rs) or the spec changed. \
             Re-record the goldens with KataGo (tests/data/katago_golden/README.md) or restore \
             the generator."
        );
    }
    let net = temp_file(&file, &gzip(&bytes));

    let positions = raw_nn::positions();
    let net_arg = net.to_str().expect("a UTF-8 temp path");
    let mut args = vec![
        if how.human {
            "--human-model"
        } else {
            "--model"
        },
        net_arg,
        "--quiet",
    ];
    let mut profile = wanted.first().copied().unwrap_or("");
    if !profile.is_empty() {
        args.extend(["--human-profile", profile]);
    }
    let mut engine = Engine::spawn(&args);
    let mut current = "";
    let mut worst = Worst::new();
    let mut failures = Vec::new();
    let mut answers = 0;
    for g in &goldens {
        let want = g.profile.as_deref().unwrap_or("");
        if !want.is_empty() && !wanted.contains(&want) {
            continue;
        }
        answers += 1;
        let p = positions
            .get(&g.position)
            .unwrap_or_else(|| panic!("{golden_name}: unknown position {}", g.position));
        if current != g.position {
            for command in p.setup() {
                engine.ok(&command);
            }
            current = &g.position;
        }
        if want != profile {
            engine.ok(&format!("kata-set-param humanSLProfile {want}"));
            profile = want;
        }
        let command = if how.human {
            "kata-raw-human-nn"
        } else {
            "kata-raw-nn"
        };
        let ask = match how.optimism {
            Some(o) => format!("{command} {} {o}", g.symmetry),
            None => format!("{command} {}", g.symmetry),
        };
        let ours = split_symmetries(&engine.ok(&ask));
        let theirs = split_symmetries(&g.lines.join("\n"));
        let expected = if g.symmetry == "all" { 8 } else { 1 };
        let at = format!("{} profile {want:?} symmetry {}", g.position, g.symmetry);
        assert_eq!(theirs.len(), expected, "{golden_name}: {at}");
        if ours.len() != expected {
            failures.push(format!("{at}: {} answers", ours.len()));
            continue;
        }
        for (a, b) in ours.iter().zip(&theirs) {
            if let Err(why) = compare(a, b, &mut worst) {
                failures.push(format!("{at}: {why}"));
            }
        }
    }
    Outcome {
        golden_name,
        answers,
        worst,
        failures,
    }
}

/// Replays `synth-<stem>.txt` and fails on any difference beyond tolerance; prints the
/// largest difference per kind of output.
fn check_synthetic(stem: &str, how: Replay) {
    let Outcome {
        golden_name,
        answers,
        worst,
        failures,
    } = replay(stem, how);
    let profiles = how.profiles.map_or(String::new(), |p| format!(" {p:?}"));
    let _ = writeln!(
        std::io::stderr(),
        "{golden_name}{profiles}: {answers} answers, largest differences: policy {:.2e}, \
         win/loss {:.2e}, ownership {:.2e}, scores {:.2e} (KataGo's largest policy {:.3}, \
         whiteWin {:.3}..{:.3})",
        worst.policy,
        worst.winloss,
        worst.ownership,
        worst.score,
        worst.katago_max_policy,
        worst.katago_min_win,
        worst.katago_max_win,
    );
    assert!(
        failures.is_empty(),
        "{golden_name}{profiles}: {} differences from KataGo in {answers} answers:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // A saturated net would make a weak test: KataGo's answers must spread.
    assert!(
        worst.katago_max_policy < 0.9,
        "{golden_name}: a near one-hot policy ({:.3})",
        worst.katago_max_policy
    );
    assert!(
        worst.katago_min_win > 0.01 && worst.katago_max_win < 0.99,
        "{golden_name}: a saturated win rate ({:.3}..{:.3})",
        worst.katago_min_win,
        worst.katago_max_win
    );
}

/// KataGo evaluates a net with metadata inputs at policy optimism 0 whatever it is asked
/// (`NNEvaluator::evaluate`, "Avoid using policy optimism for humanSL"), so its goldens for
/// the metadata net hold the plain policy.
const RANK_PROFILES: &[&str] = &["rank_20k", "preaz_3d", "rank_5k_1d"];

#[test]
fn v15_metadata_encoder_under_rank_profiles_matches_katago() {
    check_synthetic(
        "v15-meta-conv",
        Replay {
            profiles: Some(RANK_PROFILES),
            optimism: Some("0"),
            ..Replay::default()
        },
    );
}

/// KataGo's `proyear_*` profiles leave the game's ratedness known and rated (metadata input
/// 74 is 0, `makeHistoricalProProfile`/`makeModernProProfile` in `sgfmetadata.cpp`); with it
/// marked unknown (0.5) every answer under `proyear_1920` differed, win rate by up to 1.8e-3
/// and the lead by up to 0.07 points.
#[test]
fn v15_metadata_encoder_under_a_proyear_profile_matches_katago() {
    check_synthetic(
        "v15-meta-conv",
        Replay {
            profiles: Some(&["proyear_1920"]),
            optimism: Some("0"),
            ..Replay::default()
        },
    );
}

/// The human policy of human-like play (`--human-model`, `kata-raw-human-nn`) is KataGo's,
/// under every profile: the net as the human-SL net beside the main one answers as KataGo did
/// with it as its only net.
#[test]
fn the_human_sl_net_beside_the_main_net_matches_katago_under_every_profile() {
    check_synthetic(
        "v15-meta-conv",
        Replay {
            optimism: Some("0"),
            human: true,
            ..Replay::default()
        },
    );
}

/// As KataGo: `kata-raw-nn` without an optimism on a metadata net gives the plain policy
/// (KataGo forces optimism 0 for such nets; the default 0.2 was off by up to 8.6e-3 in a
/// probability).
#[test]
fn v15_metadata_net_ignores_policy_optimism_as_katago() {
    check_synthetic(
        "v15-meta-conv",
        Replay {
            profiles: Some(RANK_PROFILES),
            ..Replay::default()
        },
    );
}

#[test]
fn v16_four_policy_channels_transformer_matches_katago() {
    check_synthetic("v16-tf-4ch", Replay::default());
}

#[test]
fn v17_grouped_query_attention_with_fixed_rope_and_per_point_rmsnorm_matches_katago() {
    check_synthetic("v17-gqa-fixedrope", Replay::default());
}

#[test]
fn v17_attention_without_rope_and_top_level_blocks_matches_katago() {
    check_synthetic("v17-norope-mixed", Replay::default());
}

/// The goldens can catch a wrong net: small changes to the nets give answers beyond tolerance.
#[test]
fn slightly_changed_nets_differ_from_the_goldens() {
    let cases: [(&str, Replay, &str); 3] = [
        (
            "v17-gqa-fixedrope",
            Replay {
                mutate: Some(|net| {
                    for_each_attention(net, &mut |a| {
                        if let Rope::Fixed { theta, .. } = &mut a.rope {
                            *theta *= 2.0;
                        }
                    })
                }),
                ..Replay::default()
            },
            "fixed RoPE theta doubled",
        ),
        (
            "v16-tf-4ch",
            Replay {
                mutate: Some(|net| {
                    let mut first = true;
                    for_each_attention(net, &mut |a| {
                        if std::mem::take(&mut first) {
                            a.k.w[0] += 0.05;
                        }
                    })
                }),
                ..Replay::default()
            },
            "one key weight of one attention block 0.05 larger",
        ),
        (
            "v15-meta-conv",
            Replay {
                profiles: Some(&["rank_20k"]),
                optimism: Some("0"),
                mutate: Some(|net| {
                    let enc = net.meta.as_mut().expect("a metadata encoder");
                    // The weights from input 6, the first step of the side to move's rank.
                    let hidden = enc.mul1.cout;
                    enc.mul1.w[6 * hidden..7 * hidden]
                        .iter_mut()
                        .for_each(|w| *w += 0.02);
                }),
                human: false,
            },
            "the metadata encoder's weights from one input 0.02 larger",
        ),
    ];
    for (stem, how, what) in cases {
        let out = replay(stem, how);
        let _ = writeln!(
            std::io::stderr(),
            "{stem} with {what}: {} of {} answers differ, largest differences {:?}",
            out.failures.len(),
            out.answers,
            out.worst
        );
        assert!(
            out.failures.len() * 4 >= out.answers,
            "{stem} with {what}: only {} of {} answers differ from KataGo's",
            out.failures.len(),
            out.answers
        );
    }
}

/// Calls `f` on every attention block of `net`, nested ones included.
fn for_each_attention(net: &mut Net, f: &mut dyn FnMut(&mut Attn)) {
    fn walk(blocks: &mut [Block], f: &mut dyn FnMut(&mut Attn)) {
        for b in blocks {
            match b {
                Block::Attention(a) => f(a),
                Block::Nested { blocks, .. } => walk(blocks, f),
                _ => {}
            }
        }
    }
    walk(&mut net.blocks, f);
}

// ---------------------------------------------------------------------------------------------
// SHA-256 (FIPS 180-4), for the net fingerprints `record.py` writes with Python's hashlib.

fn sha256_hex(data: &[u8]) -> String {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&(data.len() as u64 * 8).to_be_bytes());
    for chunk in msg.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, word) in chunk.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes(word.try_into().expect("4 bytes"));
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }
    h.iter().map(|x| format!("{x:08x}")).collect()
}

#[test]
fn sha256_matches_the_standard_test_vectors() {
    assert_eq!(
        sha256_hex(b""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    // Padding into a second block; several blocks.
    assert_eq!(
        sha256_hex(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
    assert_eq!(
        sha256_hex(&[b'a'; 1000]),
        "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"
    );
}
