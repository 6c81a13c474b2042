//! Evaluations per second of a KataGo net on an empty board, one thread:
//! `cargo run --release --example nn_bench -- MODEL [BOARD_SIZE] [SECONDS]`.
use std::time::Instant;
use tengen::nn::{postprocess, NetEval, NetInput, Network, PostProcessOptions, RawEval, Workspace};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: nn_bench MODEL [BOARD_SIZE] [SECONDS]");
        std::process::exit(2);
    };
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(19);
    let seconds: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(3.0);
    let start = Instant::now();
    let net = match Network::load(path) {
        Ok(net) => net,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    println!(
        "{} (version {}): loaded in {:.2} s, {:.2} GFLOP per {n}x{n} eval",
        net.name(),
        net.version(),
        start.elapsed().as_secs_f64(),
        net.flops(n) / 1e9
    );
    let area = n * n;
    let mut spatial = vec![0.0f32; 22 * area];
    spatial[..area].fill(1.0);
    let mut global = [0.0f32; 19];
    global[5] = -7.5 / 20.0;
    let mut raw = vec![RawEval::new(); 8];
    let mut eval = NetEval::new();
    let legal = vec![true; area + 1];
    for &batch in &[1usize, 8] {
        let mut ws = Workspace::new(&net, batch, n);
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
        let rate = evals as f64 / t.elapsed().as_secs_f64();
        println!(
            "batch {batch}: {rate:.1} evals/s ({:.1} GFLOP/s)",
            rate * net.flops(n) / 1e9
        );
    }
    postprocess(
        &net,
        &raw[0],
        tengen::Color::Black,
        &legal,
        &PostProcessOptions::default(),
        &mut eval,
    );
    println!(
        "win {:.6} loss {:.6} lead {:.3} score {:.3} pass {:.6} policy max {:.6}",
        eval.win,
        eval.loss,
        eval.lead,
        eval.score_mean,
        eval.pass_policy,
        eval.policy.iter().cloned().fold(0.0, f32::max)
    );
}
