//! The `tengen` binary: command-line parsing and dispatch only.

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(
    name = "tengen",
    version,
    about = "A Go engine: GTP v2 on stdin/stdout, SGF rule checking, benchmarks"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Speed figures, single-threaded: light playouts per second on 19x19 and 9x9,
    /// raw and inside the search.
    Bench {
        /// Timed rounds per figure (the median is printed).
        #[arg(long, default_value_t = 5)]
        rounds: usize,
        /// Length of one round, in seconds.
        #[arg(long, default_value_t = 1.0)]
        seconds: f64,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Bench {
            rounds,
            seconds,
            seed,
        }) => {
            let round = Duration::from_secs_f64(seconds.max(0.01));
            for size in [19, 9] {
                println!(
                    "{}",
                    tengen::bench::light_playouts(size, rounds, round, seed)
                );
            }
            for size in [19, 9] {
                println!("{}", tengen::bench::search_speed(size, rounds, round, seed));
            }
            for size in [19, 9] {
                let taken = tengen::bench::time_limit_taken(size, round, seed);
                println!(
                    "{size}x{size} genmove with a {:.3} s limit: took {:.3} s",
                    round.as_secs_f64(),
                    taken.as_secs_f64()
                );
            }
            ExitCode::SUCCESS
        }
        None => {
            eprintln!("tengen: the GTP engine is not built yet; try `tengen bench`");
            ExitCode::FAILURE
        }
    }
}
