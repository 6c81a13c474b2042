//! Evaluations per second of a KataGo net on an empty board, one thread, Winograd and im2col
//! 3x3 convolutions alternating so machine load hits both alike:
//! `cargo run --release --example nn_bench -- MODEL [BOARD_SIZE] [SECONDS_PER_ROUND]`.
use std::path::Path;
use std::time::Instant;
use tengen::nn::{
    postprocess, ModelDesc, NetEval, NetInput, Network, PostProcessOptions, RawEval, Workspace,
};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: nn_bench MODEL [BOARD_SIZE] [SECONDS_PER_ROUND]");
        std::process::exit(2);
    };
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(19);
    let seconds: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let start = Instant::now();
    let desc = match ModelDesc::load(Path::new(path)) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let winograd = Network::from_model_with(&desc, true);
    println!(
        "{} (version {}): loaded in {:.2} s, {:.2} GFLOP per {n}x{n} eval (direct-convolution count)",
        winograd.name(),
        winograd.version(),
        start.elapsed().as_secs_f64(),
        winograd.flops(n) / 1e9
    );
    let im2col = Network::from_model_with(&desc, false);
    let area = n * n;
    let mut spatial = vec![0.0f32; 22 * area];
    spatial[..area].fill(1.0);
    let mut global = [0.0f32; 19];
    global[5] = -7.5 / 20.0;
    let mut raw = vec![RawEval::new(); 8];
    for round in 0..3 {
        for &batch in &[1usize, 8] {
            let mut line = format!("round {round} batch {batch}:");
            for (label, net) in [("winograd", &winograd), ("im2col", &im2col)] {
                let mut ws = Workspace::new(net, batch, n);
                let inputs: Vec<NetInput> = (0..batch)
                    .map(|_| NetInput {
                        board_size: n,
                        spatial: &spatial,
                        global: &global,
                    })
                    .collect();
                let syms: Vec<u8> = (0..batch as u8).collect();
                net.evaluate(&mut ws, &inputs, &syms, &mut raw)
                    .expect("evaluate");
                let t = Instant::now();
                let mut evals = 0;
                while t.elapsed().as_secs_f64() < seconds {
                    net.evaluate(&mut ws, &inputs, &syms, &mut raw)
                        .expect("evaluate");
                    evals += batch;
                }
                line += &format!(
                    " {label} {:.1} evals/s",
                    evals as f64 / t.elapsed().as_secs_f64()
                );
            }
            println!("{line}");
        }
    }
    let legal = vec![true; area + 1];
    let mut eval = NetEval::new();
    postprocess(
        &winograd,
        &raw[0],
        tengen::Color::Black,
        &legal,
        &PostProcessOptions::default(),
        &mut eval,
    );
    println!(
        "empty board, Black to move: win {:.6} loss {:.6} lead {:.3} score {:.3} pass {:.6} policy max {:.6}",
        eval.win,
        eval.loss,
        eval.lead,
        eval.score_mean,
        eval.pass_policy,
        eval.policy.iter().cloned().fold(0.0, f32::max)
    );
}
