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
    /// Speed figures, single-threaded: light playouts per second on 19x19 and 9x9.
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
    /// Play two GTP engines against each other (colours alternate) and print
    /// one line per game and engine A's win rate with a 95% interval.
    Match(tengen::match_runner::MatchArgs),
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
            ExitCode::SUCCESS
        }
        Some(Command::Match(args)) => {
            match tengen::match_runner::run(&args, &mut std::io::stdout().lock()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("tengen match: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        None => {
            eprintln!("tengen: the GTP engine is not built yet; try `tengen bench`");
            ExitCode::FAILURE
        }
    }
}
