//! The `tengen` binary: command-line parsing and dispatch only.

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::time::Duration;
use tengen::playout::Policy;

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
    /// Speed figures, single-threaded: light and heavy playouts per second on 19x19 and 9x9.
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
    /// Replay SGF games and report every illegal move (ko, superko, suicide,
    /// occupied point). Exit status: 0 all legal, 1 violations, 2 unreadable files.
    Check {
        /// SGF files, or directories searched recursively for `.sgf` files.
        #[arg(required = true)]
        paths: Vec<std::path::PathBuf>,
        /// Rules: `--rules` replaces each game's RU (default: RU, else chinese);
        /// `--ko` and `--suicide` override either.
        #[command(flatten)]
        rules: tengen::config::RuleArgs,
        /// One JSON object per line instead of text.
        #[arg(long)]
        json: bool,
        /// Print only errors and the summary.
        #[arg(long)]
        quiet: bool,
        /// Replay every variation too, not only the main line (violations off
        /// the main line name their variation, numbered from 2 in file order).
        #[arg(long)]
        variations: bool,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
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
            for policy in [Policy::Light, Policy::Heavy] {
                for size in [19, 9] {
                    println!(
                        "{}",
                        tengen::bench::playouts(size, policy, rounds, round, seed)
                    );
                }
            }
            ExitCode::SUCCESS
        }
        Some(Command::Check {
            paths,
            rules,
            json,
            quiet,
            variations,
            threads,
        }) => {
            let threads = threads.unwrap_or_else(|| {
                std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
            });
            let options = tengen::sgf::batch::BatchOptions {
                json,
                quiet,
                threads,
                lines: if variations {
                    tengen::sgf::check::Lines::AllVariations
                } else {
                    tengen::sgf::check::Lines::MainLine
                },
            };
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            match tengen::sgf::batch::run(&paths, &rules, options, &mut out) {
                Ok(summary) => ExitCode::from(summary.exit_code()),
                Err(e) => {
                    eprintln!("tengen check: cannot write the report: {e}");
                    ExitCode::from(2)
                }
            }
        }
        None => {
            eprintln!("tengen: the GTP engine is not built yet; try `tengen bench`");
            ExitCode::FAILURE
        }
    }
}
