//! The `tengen` binary: command-line parsing and dispatch only.

#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use tengen::config::RuleArgs;
use tengen::engine::Limits;
use tengen::go::rules::Preset;
use tengen::nn::metadata::SgfMetadata;
use tengen::nn::{NetSource, Network, Precision, PrecisionChoice};
use tengen::search::classical::playout::Policy;
use tengen::search::classical::priors::PriorWeights;
use tengen::search::levels::Level;
use tengen::search::puct::PuctConfig;
use tengen::search::value::ScoreShape;
use tengen::search::{MctsEngine, SearchConfig};

#[derive(Parser, Debug)]
#[command(
    name = "tengen",
    version,
    about = "A Go engine: GTP v2 on stdin/stdout, SGF rule checking, benchmarks",
    long_about = "A Go engine. Without a subcommand (or with `gtp`) it speaks GTP version 2 \
                  on stdin/stdout: attach it to Sabaki, GoGui, kgsGtp, gtp2ogs or CGOS.",
    long_version = concat!(env!("CARGO_PKG_VERSION"), "\n", tengen::builtin_net_credit!()),
    after_help = tengen::builtin_net_credit!(),
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    engine: EngineArgs,
}

/// Settings of the GTP engine. GTP commands (`komi`, `boardsize`, `kgs-rules`,
/// `kata-set-rules`, time settings) change them during a session.
#[derive(Args, Debug, Clone)]
struct EngineArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Komi until the controller sends `komi` [default: the rule preset's usual komi].
    #[arg(long, allow_negative_numbers = true)]
    komi: Option<f64>,
    /// Board size until the controller sends `boardsize` (2 to 25).
    #[arg(long, default_value_t = 19, allow_negative_numbers = true,
          value_parser = clap::value_parser!(u8).range(2..=25))]
    size: u8,
    /// Search threads, sharing one tree (virtual loss keeps them apart).
    #[arg(long, default_value_t = 1, allow_negative_numbers = true,
          value_parser = clap::value_parser!(u16).range(1..))]
    threads: u16,
    /// Most playouts per move; with a network, most visits (network evaluations).
    #[arg(long, visible_alias = "visits", allow_negative_numbers = true, value_parser = whole_number)]
    playouts: Option<u64>,
    /// Most seconds per move (more than a year counts as a year); a game clock
    /// may allow less. Without --time and --playouts a move takes at most 5 s.
    #[arg(long, allow_negative_numbers = true, value_parser = positive_seconds)]
    time: Option<f64>,
    /// With a net: leaves each search thread sends to the network in one call
    /// (1 to 32; default 1). Larger batches run a convolution net faster per
    /// leaf, but their leaves are chosen under virtual loss: each visit is
    /// worth less.
    #[arg(long, allow_negative_numbers = true,
          value_parser = clap::value_parser!(u8).range(1..=32))]
    batch: Option<u8>,
    /// Random seed, for reproducible games.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = whole_number)]
    seed: u64,
    /// Memory for the search's transposition table, in MB (kept between
    /// moves); at most three quarters of the machine's memory.
    #[arg(long, default_value_t = 256, allow_negative_numbers = true, value_parser = table_megabytes)]
    tt_mb: u64,
    /// Resign when the win rate stays below this, 0..1 (0 = never resign).
    #[arg(long, default_value_t = 0.1, allow_negative_numbers = true, value_parser = fraction)]
    resign_threshold: f64,
    /// Weight of the final margin in a value, 0 to 0.5 (0 = win or loss
    /// only; 2/7 = KataGo's 0.4 of score utility against 1 of win-loss);
    /// up to 0.5 any win still outweighs any loss.
    #[arg(long, default_value_t = SearchConfig::default().score_weight, allow_negative_numbers = true, value_parser = parse_score_weight)]
    score_weight: f64,
    /// The shape of the margin's part of a value: a tanh about the expected
    /// margin (the default), or KataGo's static and dynamic score utilities
    /// (with --score-weight 0.2857, --cpuct 0.357, --fpu-reduction 0.0714,
    /// --fpu-parent-pow 2 and --subtree-bias 0.45 the search is KataGo's;
    /// for tuning matches).
    #[arg(long, value_enum, default_value_t = ScoreShapeArg::Tanh)]
    score_utility: ScoreShapeArg,
    /// RAVE equivalence: about how many playouts an AMAF estimate is worth
    /// (for tuning matches).
    #[arg(long, default_value_t = SearchConfig::default().rave_equiv,
          allow_negative_numbers = true, value_parser = non_negative)]
    rave_equiv: f32,
    /// UCB exploration constant (0: RAVE and priors explore; for tuning matches).
    #[arg(long, default_value_t = SearchConfig::default().exploration,
          allow_negative_numbers = true, value_parser = non_negative)]
    exploration: f32,
    /// With --model: how far PUCT's exploration follows the spread of the
    /// values below a node, 0 to 1 (0 = off; KataGo's
    /// `cpuctUtilityStdevScale`), on any number of threads. Default: 0.85,
    /// KataGo's, on one search thread, and off on more, where it lost at
    /// equal visits.
    #[arg(long, allow_negative_numbers = true, value_parser = fraction_f32)]
    stdev_scale: Option<f32>,
    /// With --model: how much a node's value leans toward its better
    /// children, 0 to 1 (0 = each child by its visits; KataGo's
    /// `valueWeightExponent`, 0.25 there; for tuning matches).
    #[arg(long, default_value_t = PuctConfig::default().value_weight_exponent,
          allow_negative_numbers = true, value_parser = fraction_f32)]
    value_weight_exponent: f32,
    /// With --model: the value gap (KataGo utility) over which a poor child
    /// with more than twice its policy's share of visits loses most of the
    /// excess in its node's value (0 = off; KataGo's
    /// `noisePruneUtilityScale`, 0.15 there; for tuning matches).
    #[arg(long, default_value_t = PuctConfig::default().noise_prune_scale,
          allow_negative_numbers = true, value_parser = non_negative)]
    noise_prune_scale: f32,
    /// With --model: how much of the error the search has seen in positions
    /// after the same local exchange corrects a node's own evaluation
    /// (0 = off, the default; KataGo's `subtreeValueBiasFactor`, 0.45 there;
    /// for tuning matches).
    #[arg(long, default_value_t = PuctConfig::default().subtree_bias_factor,
          allow_negative_numbers = true, value_parser = fraction_f32)]
    subtree_bias: f32,
    /// With a net of model version 10 or later: how much more a leaf the
    /// net is sure of counts in the search than one it is unsure of
    /// (0 = off, every leaf alike; KataGo's `uncertaintyCoeff`, 0.25 there,
    /// its largest weight 8; for tuning matches).
    #[arg(long, default_value_t = PuctConfig::default().uncertainty_coeff,
          allow_negative_numbers = true, value_parser = non_negative)]
    uncertainty: f32,
    /// With --model: PUCT's exploration constant on tengen's 0..1 values
    /// (KataGo's `cpuctExploration`, 1.0 on its utilities, which span 2.8
    /// of tengen's 1 under its score utility; for tuning matches).
    #[arg(long, default_value_t = PuctConfig::default().c_puct,
          allow_negative_numbers = true, value_parser = non_negative)]
    cpuct: f32,
    /// With --model: how soon first-play urgency starts from a node's mean
    /// rather than its own evaluation as its tried moves cover the policy
    /// (the mean's share is their policy to this power; 0 = the mean
    /// alone, the default; KataGo's `fpuParentWeightByVisitedPolicyPow`, 2
    /// there; for tuning matches).
    #[arg(long, default_value_t = PuctConfig::default().fpu_parent_pow,
          allow_negative_numbers = true, value_parser = non_negative)]
    fpu_parent_pow: f32,
    /// With --model: first-play urgency's reduction below the root, on
    /// tengen's 0..1 values; the root's is half of it (KataGo's
    /// `fpuReductionMax` 0.2 and `rootFpuReductionMax` 0.1 on its
    /// utilities, divided by 2.8 here; for tuning matches).
    #[arg(long, default_value_t = PuctConfig::default().fpu_reduction,
          allow_negative_numbers = true, value_parser = fraction_f32)]
    fpu_reduction: f32,
    /// With --model and more than one thread: how many lost visits a
    /// descent on its way counts for in the moves it passes, steering the
    /// other threads elsewhere (KataGo's `numVirtualLossesPerThread`, 1 in
    /// its engines unless their config says otherwise; for tuning matches).
    #[arg(long, default_value_t = PuctConfig::default().virtual_loss,
          allow_negative_numbers = true, value_parser = non_negative)]
    virtual_loss: f32,
    /// Opening-sense prior on 13x13 and larger boards, in virtual visits at
    /// the first move (0 = off; for tuning matches).
    #[arg(long, default_value_t = PriorWeights::default().opening_sense,
          allow_negative_numbers = true, value_parser = non_negative)]
    opening_sense: f32,
    /// With a net of model version 12 or later: the policy optimism of nodes
    /// below the root, 0 to 1 (KataGo's `policyOptimism`; 1 as in its GTP and
    /// analysis engines).
    #[arg(long, default_value_t = SearchConfig::default().policy_optimism,
          allow_negative_numbers = true, value_parser = fraction_f32)]
    policy_optimism: f32,
    /// With a net of model version 12 or later: the policy optimism of the
    /// root (KataGo's `rootPolicyOptimism`; 0.2 as there).
    #[arg(long, default_value_t = SearchConfig::default().root_policy_optimism,
          allow_negative_numbers = true, value_parser = fraction_f32)]
    root_policy_optimism: f32,
    /// With --model: evaluate every position in this symmetry of the eight
    /// (0 = as given) instead of one at random, as KataGo's `nnRandomize =
    /// false`: a search that can be compared with KataGo's visit for visit.
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=7))]
    nn_symmetry: Option<u8>,
    /// Search a plain tree instead of sharing nodes through the transposition
    /// table (for comparison matches).
    #[arg(long)]
    plain_tree: bool,
    /// With --model: before each search, move the values of the tree kept
    /// from the last move to this search's score-utility center, as KataGo
    /// recomputes its tree (off by default: no gain at 100 visits against
    /// KataGo; for tuning matches).
    #[arg(long)]
    recenter: bool,
    /// Before each search forget the nodes the new root cannot reach, as
    /// KataGo does (by default they stay, folded into leaves once the table
    /// is half full; for tuning matches).
    #[arg(long)]
    drop_unreachable: bool,
    /// Choose the move by lower confidence bounds from the spread of each
    /// move's results about their mean, as KataGo does (by default the
    /// spread about the move's value, in effect the best value among moves
    /// with 15% of the top visits; for tuning matches).
    #[arg(long)]
    lcb_spread: bool,
    /// Playout policy of the search.
    #[arg(long, value_enum, default_value_t = PlayoutArg::Heavy)]
    playouts_policy: PlayoutArg,
    /// No diagnostics on stderr.
    #[arg(long)]
    quiet: bool,
    /// Think on the opponent's time: after each move keep searching until the
    /// next command arrives (what is learnt is reused for the next move).
    #[arg(long)]
    ponder: bool,
    /// A KataGo network (`.bin.gz` or `.txt.gz`, model versions 8 to 17) to
    /// evaluate the search's leaves. Without it: the file named by
    /// TENGEN_MODEL, else the per-user default tengen/default.bin.gz in
    /// $XDG_DATA_HOME or ~/.local/share (Linux, BSD), ~/Library/Application
    /// Support (macOS) or %APPDATA% (Windows), else the net built into the
    /// binary (KataGo's g170 b6c96).
    #[arg(long, value_name = "PATH", conflicts_with = "classical")]
    model: Option<std::path::PathBuf>,
    /// The arithmetic of the net's large matrix products: fp32 (exact to
    /// KataGo), bf16 (a transformer net's projections and attention products,
    /// or a convolution net's trunk convolutions, rounded to bfloat16: native
    /// AVX512-BF16 where the CPU has it, about 1.6x fp32 at batch 1 on 19x19,
    /// else emulated and slower), int8 (the transformer projections in 8-bit
    /// integers: faster, less accurate), auto (bf16 where the CPU has
    /// AVX512-BF16, else fp32).
    #[arg(long, value_name = "KIND", default_value = "fp32", value_parser = precision)]
    precision: PrecisionChoice,
    /// No network: the classical evaluator (priors, heavy playouts and a
    /// tactical reader), for comparison.
    #[arg(long)]
    classical: bool,
    /// The SGF-metadata profile a human-SL net (KataGo's b18c384nbt-humanv0)
    /// plays as: rank_20k … rank_1k, rank_1d … rank_9d, preaz_RANK (before
    /// AlphaZero), rank_BLACK_WHITE, proyear_1800 … proyear_2023. Also
    /// `kata-set-param humanSLProfile NAME` at run time.
    #[arg(long, value_name = "NAME")]
    human_profile: Option<String>,
    /// A human-SL net (KataGo's b18c384nbt-humanv0, or any net with an
    /// SGF-metadata encoder) to play like a person of --human-profile:
    /// `genmove`'s board moves are drawn from its human policy, the main
    /// net's search still deciding passing and resigning and vetoing moves
    /// that throw away a won game. Also enables `kata-raw-human-nn`.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["classical", "level"],
          requires = "human_profile")]
    human_model: Option<std::path::PathBuf>,
    /// How strong `genmove` plays: max (full strength), 20k … 1k, 1d … 9d.
    /// Below max the move comes from the net's policy as KaTrain's
    /// calibrated-rank bot picks it (at the dan ranks the search chooses
    /// among the moves it draws); the search still decides passing and
    /// resigning. Also `tengen-set-level RANK` at run time.
    #[arg(long, value_name = "RANK", default_value = "max",
          value_parser = |s: &str| s.parse::<Level>())]
    level: Level,
}

/// `--score-utility` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ScoreShapeArg {
    /// ½ + ½·tanh((margin − center) / size), centred on the expected margin.
    Tanh,
    /// KataGo's: 0.1 of a static and 0.3 of a dynamic score utility
    /// (2/π·atan), centred on 0 and on 0.8 of the expected margin.
    Katago,
}

/// `--playouts-policy` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum PlayoutArg {
    /// Uniformly random legal moves that fill no own eye.
    Light,
    /// Answers to the last move (ataris, 3x3 shapes), no group self-atari.
    Heavy,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Speak GTP version 2 on stdin/stdout (the default).
    Gtp(EngineArgs),
    /// Speed figures, single-threaded: light and heavy playouts per second on
    /// 19x19 and 9x9, raw and inside the search. With --model: the network's
    /// evaluations per second instead (19x19 and 9x9, batch 1 and 8, 1 and 2
    /// threads), the GFLOP/s they imply, load time and peak memory. With
    /// --clock: the seconds tengen uses per move under byo-yomi periods of 1,
    /// 2, 5 and 30 s.
    Bench {
        /// A KataGo network to measure instead of the playouts.
        #[arg(long, value_name = "PATH")]
        model: Option<std::path::PathBuf>,
        /// With --model: the arithmetic to measure (fp32, bf16, int8, auto).
        #[arg(long, value_name = "KIND", default_value = "fp32", value_parser = precision)]
        precision: PrecisionChoice,
        /// Instead of speed: play --moves moves on 9x9 under `time_settings 0
        /// P 1` for P = 1, 2, 5 and 30 s (this binary, driven over GTP as a
        /// controller would) and print the median seconds per move.
        #[arg(long)]
        clock: bool,
        /// With --model: visits per second inside the search instead, on
        /// three 19x19 middle-game positions (the net's greedy self-play after
        /// 60, 100 and 140 moves), 1 and 2 threads, batches of 1, 4 and 8.
        #[arg(long, requires = "model")]
        search: bool,
        /// Instead of speed: how the search scales with threads, past the
        /// cores at hand. A simulated net answers every leaf as the net
        /// (--model, else the built-in one) answers a 19x19 middle-game
        /// position, after sleeping --latency-ms; prints the visits a second
        /// at 1 to 64 threads against the ideal `threads / latency`.
        #[arg(long, conflicts_with_all = ["search", "clock"])]
        scaling: bool,
        /// With --scaling: the simulated net's latencies in milliseconds.
        /// Default: about what one evaluation at batch 1 on 19x19 takes one
        /// core of a 2025 x86-64 server for g170 b6c96, g170e b15c192 and
        /// b10c384h6nbttflrs.
        #[arg(long, value_delimiter = ',', default_values_t = [4.0, 16.0, 30.0],
              value_parser = positive_milliseconds)]
        latency_ms: Vec<f64>,
        /// Moves per period length for --clock.
        #[arg(long, default_value_t = 10, allow_negative_numbers = true,
              value_parser = clap::value_parser!(u16).range(1..))]
        moves: u16,
        /// Timed rounds per figure (the median is printed).
        #[arg(long, default_value_t = 5, allow_negative_numbers = true,
              value_parser = clap::value_parser!(u16).range(1..))]
        rounds: u16,
        /// Length of one round, in seconds.
        #[arg(long, default_value_t = 1.0, allow_negative_numbers = true,
              value_parser = positive_seconds)]
        seconds: f64,
        /// Random seed.
        #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = whole_number)]
        seed: u64,
    },
    /// Replay SGF games and report every illegal move (ko, superko, suicide,
    /// occupied point). Exit status: 0 all legal, 1 violations, 2 unreadable
    /// files or no SGF file found.
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
        #[arg(long, allow_negative_numbers = true,
              value_parser = clap::value_parser!(u16).range(1..))]
        threads: Option<u16>,
    },
    /// Play two GTP engines against each other (colours alternate) and print
    /// one line per game and engine A's win rate with a 95% interval.
    Match(tengen::match_runner::MatchArgs),
    /// KataGo's JSON analysis engine on stdin/stdout, for KaTrain and review
    /// tools: `tengen analysis -model NET -config FILE [-override-config
    /// k=v,…] [-human-model NET] [-quit-without-waiting]` (KataGo's
    /// one-dash flags).
    #[command(disable_help_flag = true)]
    Analysis {
        /// KataGo's flags, read by the analysis engine itself.
        #[arg(num_args = 0.., allow_hyphen_values = true, trailing_var_arg = true)]
        args: Vec<String>,
    },
}

/// `--score-weight`: 0 to 0.5. Above 0.5 a playout lost by a wide margin
/// would be worth more than one won narrowly.
fn parse_score_weight(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(w) if (0.0..=0.5).contains(&w) => Ok(w),
        _ => Err(
            "must be a number from 0 to 0.5 (above 0.5 a big loss would outweigh a narrow win)"
                .to_string(),
        ),
    }
}

/// A fraction as an `f32`, such as `--stdev-scale`.
fn fraction_f32(text: &str) -> Result<f32, String> {
    fraction(text).map(|v| v as f32)
}

/// `--precision`: fp32, bf16, int8 or auto.
fn precision(text: &str) -> Result<PrecisionChoice, String> {
    PrecisionChoice::parse(text).ok_or_else(|| format!("must be {}", PrecisionChoice::NAMES))
}

/// `--time` and other durations: a positive number of seconds, a year at most.
fn positive_seconds(text: &str) -> Result<f64, String> {
    match text
        .parse::<f64>()
        .ok()
        .and_then(tengen::time::checked_seconds)
    {
        Some(v) if v > 0.0 => Ok(v),
        _ => Err("must be a positive number of seconds".into()),
    }
}

/// A latency such as `--latency-ms`: a positive number of milliseconds, at
/// most a minute.
fn positive_milliseconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 60_000.0 => Ok(v),
        _ => Err("must be a number of milliseconds above 0, at most 60000".into()),
    }
}

/// A fraction such as `--resign-threshold`: a number from 0 to 1.
fn fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err("must be a number from 0 to 1".into()),
    }
}

/// A tuning weight: a finite number, 0 or more.
fn non_negative(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err("must be a finite number, 0 or more".into()),
    }
}

/// A count or a seed: a whole number, 0 or more.
fn whole_number(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| "must be a whole number, 0 or more".into())
}

/// `--tt-mb`: 1 MB or more, and no more than the machine can hold.
fn table_megabytes(text: &str) -> Result<u64, String> {
    let mb = match text.parse::<u64>() {
        Ok(mb) if mb >= 1 => mb,
        _ => return Err("must be a whole number of megabytes, 1 or more".into()),
    };
    tengen::memory::check_request(mb.saturating_mul(1 << 20), tengen::memory::usable_bytes())?;
    Ok(mb)
}

/// Runs the GTP engine until `quit` or the end of input.
fn gtp(args: EngineArgs) -> ExitCode {
    let preset = args.rules.preset().unwrap_or(Preset::Chinese);
    let time = args.time.map(tengen::time::duration);
    let options = tengen::gtp::Options {
        rules: args.rules.resolve(Preset::Chinese),
        komi: args.komi.unwrap_or(preset.default_komi()),
        size: args.size as usize,
        limits: Limits {
            playouts: args.playouts,
            time,
        },
        quiet: args.quiet,
        ponder: args.ponder,
        human_profile: args.human_profile.clone().unwrap_or_default(),
        level: args.level,
        ..tengen::gtp::Options::default()
    };
    let human_profile = match SgfMetadata::profile(&options.human_profile) {
        Ok(profile) => profile,
        Err(e) => {
            tengen::log_line!("tengen: --human-profile: {e}");
            return ExitCode::FAILURE;
        }
    };
    let Ok((network, main_name)) = main_network(&args, human_profile.is_some()) else {
        return ExitCode::FAILURE;
    };
    let config = search_config(&args, human_profile);
    if network.is_none() && !args.quiet {
        tengen::log_line!("tengen: classical search: {}", describe_classical(&config));
    }
    let human_source = args.human_model.clone().map(NetSource::HumanFlag);
    let Ok(human_network) = human_network(human_source.as_ref(), &args) else {
        return ExitCode::FAILURE;
    };
    let engine = match &network {
        Some(net) => MctsEngine::with_network(config, net.clone()),
        None => MctsEngine::try_new(config),
    };
    let mut engine = match engine {
        Ok(engine) => Box::new(engine),
        Err(e) => {
            tengen::log_line!("tengen: --tt-mb {}: {e}", args.tt_mb);
            return ExitCode::FAILURE;
        }
    };
    if let Some(human) = &human_network {
        if let Err(e) = engine.set_human_net(human.clone()) {
            tengen::log_line!("tengen: --human-model: {e}");
            return ExitCode::FAILURE;
        }
    }
    let networks = tengen::gtp::Networks {
        main: network,
        human: human_network,
        main_name,
        human_name: human_source.map_or_else(String::new, |s| s.model_name()),
    };
    match tengen::gtp::run(options, engine, networks) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tengen::log_line!("tengen: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The main net (`None` with `--classical`) and its name for
/// `kata-get-models`; `Err` after a message on stderr.
fn main_network(
    args: &EngineArgs,
    has_profile: bool,
) -> Result<(Option<Arc<Network>>, String), ()> {
    let mut main_name = String::new();
    let network = if args.classical {
        if !args.quiet {
            tengen::log_line!(
                "tengen: no network (--classical): playouts evaluate the search's leaves"
            );
        }
        None
    } else {
        let source = NetSource::choose(args.model.as_deref(), &|name| std::env::var_os(name));
        main_name = source.model_name();
        match load_network(&source, args.precision, args.quiet) {
            Ok(net) if net.needs_metadata() && !has_profile => {
                // KataGo refuses too: the net cannot evaluate without the metadata.
                tengen::log_line!(
                    "tengen: {source}: SGFMetadata is required by this human-SL net: give a \
                     profile with --human-profile (rank_20k … rank_9d, preaz_…, rank_B_W, \
                     proyear_YYYY)"
                );
                return Err(());
            }
            Ok(net) => Some(net),
            Err(e) => {
                tengen::log_line!("tengen: {e}");
                return Err(());
            }
        }
    };
    Ok((network, main_name))
}

/// The search's settings from the command line.
fn search_config(args: &EngineArgs, human_profile: Option<SgfMetadata>) -> SearchConfig {
    SearchConfig {
        human_profile,
        threads: args.threads as usize,
        seed: args.seed,
        tt_mb: args.tt_mb as usize,
        resign_threshold: args.resign_threshold,
        transpositions: !args.plain_tree,
        recenter_kept_tree: args.recenter,
        drop_unreachable: args.drop_unreachable,
        lcb_spread: args.lcb_spread,
        score_weight: args.score_weight,
        score_shape: match args.score_utility {
            ScoreShapeArg::Tanh => ScoreShape::Tanh,
            ScoreShapeArg::Katago => ScoreShape::KataGo,
        },
        batch: args
            .batch
            .map_or(tengen::search::network::DEFAULT_BATCH, usize::from),
        rave_equiv: args.rave_equiv,
        exploration: args.exploration,
        policy_optimism: args.policy_optimism,
        root_policy_optimism: args.root_policy_optimism,
        nn_symmetry: args.nn_symmetry,
        puct: PuctConfig {
            stdev_scale: args
                .stdev_scale
                .unwrap_or(PuctConfig::default().stdev_scale),
            stdev_scale_threaded: args
                .stdev_scale
                .unwrap_or(PuctConfig::default().stdev_scale_threaded),
            value_weight_exponent: args.value_weight_exponent,
            noise_prune_scale: args.noise_prune_scale,
            subtree_bias_factor: args.subtree_bias,
            uncertainty_coeff: args.uncertainty,
            c_puct: args.cpuct,
            fpu_parent_pow: args.fpu_parent_pow,
            fpu_reduction: args.fpu_reduction,
            root_fpu_reduction: args.fpu_reduction / 2.0,
            virtual_loss: args.virtual_loss,
            ..PuctConfig::default()
        },
        priors: PriorWeights {
            opening_sense: args.opening_sense,
            ..PriorWeights::default()
        },
        playout_policy: match args.playouts_policy {
            PlayoutArg::Light => Policy::Light,
            PlayoutArg::Heavy => Policy::Heavy,
        },
        ..SearchConfig::default()
    }
}

/// The `--human-model` net, if any; `Err` after a message on stderr.
fn human_network(
    source: Option<&NetSource>,
    args: &EngineArgs,
) -> Result<Option<Arc<Network>>, ()> {
    Ok(match source {
        None => None,
        Some(source) => match load_network(source, args.precision, args.quiet) {
            Ok(net) => {
                if !net.needs_metadata() {
                    tengen::log_line!(
                        "tengen: warning: the --human-model net takes no SGF metadata: is it a \
                         human-SL net?"
                    );
                }
                Some(net)
            }
            Err(e) => {
                tengen::log_line!("tengen: {e}");
                return Err(());
            }
        },
    })
}

/// Loads a network, saying on stderr where it came from, how long it took
/// and what it holds.
fn load_network(
    source: &NetSource,
    choice: PrecisionChoice,
    quiet: bool,
) -> Result<std::sync::Arc<tengen::nn::Network>, tengen::nn::ModelError> {
    let start = std::time::Instant::now();
    let before = tengen::bench::memory_mb().map(|(_, rss)| rss);
    let mut net = source.load()?;
    let precision = choice.resolve();
    net.set_precision(precision);
    if !quiet {
        // The resident memory where the system tells it (Linux).
        let resident = match (before, tengen::bench::memory_mb()) {
            (Some(before), Some((_, after))) => {
                format!(", {after:.0} MB resident ({:+.0} MB)", after - before)
            }
            _ => String::new(),
        };
        if *source == NetSource::BuiltIn {
            tengen::log_line!("tengen: {}", tengen::nn::builtin::CREDIT);
        }
        tengen::log_line!(
            "tengen: network from {source}: {} (model version {}, {} trunk channels, {:.1} M parameters) loaded in {:.2} s{resident}",
            net.name(),
            net.version(),
            net.trunk_channels(),
            net.parameters() as f64 / 1e6,
            start.elapsed().as_secs_f64(),
        );
        if precision != Precision::Fp32 || choice == PrecisionChoice::Auto {
            tengen::log_line!(
                "tengen: precision: {}",
                choice.describe_on(net.has_transformer())
            );
        }
    }
    Ok(std::sync::Arc::new(net))
}

/// `tengen bench --scaling`: visits a second at 1 to 64 threads against a
/// simulated net of each latency.
fn scaling_bench(
    model: Option<std::path::PathBuf>,
    precision: PrecisionChoice,
    latencies_ms: &[f64],
    rounds: u16,
    seconds: f64,
) -> ExitCode {
    let net = match model {
        Some(path) => {
            load_network(&NetSource::Flag(path), precision, false).map_err(|e| e.to_string())
        }
        None => tengen::nn::builtin::network()
            .map(std::sync::Arc::new)
            .map_err(|e| e.to_string()),
    };
    let net = match net {
        Ok(net) => net,
        Err(e) => {
            tengen::log_line!("tengen bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    let positions = tengen::bench::middle_game_positions(&net, &[60]);
    let Some(game) = positions.first() else {
        tengen::log_line!("tengen bench: the net could not play a position to search");
        return ExitCode::FAILURE;
    };
    let round = tengen::time::duration(seconds.max(0.01));
    for &ms in latencies_ms {
        let latency = std::time::Duration::from_secs_f64(ms / 1e3);
        for threads in [1, 2, 4, 8, 16, 32, 64] {
            let rate = tengen::bench::search_scaling(
                &net,
                game,
                latency,
                threads,
                usize::from(rounds),
                round,
            );
            println!("{rate}");
        }
    }
    ExitCode::SUCCESS
}

/// `tengen bench --clock`: seconds per move under byo-yomi periods of 1, 2, 5
/// and 30 s, this binary driven over GTP (the classical engine, as the
/// figures in the README were measured).
fn clock_bench(moves: usize) -> ExitCode {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            tengen::log_line!("tengen bench: cannot find this program: {e}");
            return ExitCode::FAILURE;
        }
    };
    let engine = format!("'{}' --classical --quiet", exe.display());
    for period in [1.0, 2.0, 5.0, 30.0] {
        match tengen::clock_bench::seconds_per_move(&engine, 9, period, moves) {
            Ok(figure) => println!("{figure}"),
            Err(e) => {
                tengen::log_line!("tengen bench: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Bench {
            clock: true, moves, ..
        }) => clock_bench(usize::from(moves)),
        Some(Command::Bench {
            scaling: true,
            model,
            precision,
            latency_ms,
            rounds,
            seconds,
            ..
        }) => scaling_bench(model, precision, &latency_ms, rounds, seconds),
        Some(Command::Bench {
            model: Some(path),
            rounds,
            seconds,
            search,
            precision,
            ..
        }) => network_bench(path, precision, search, rounds, seconds),
        Some(Command::Bench {
            rounds,
            seconds,
            seed,
            ..
        }) => classical_bench(rounds, seconds, seed),
        Some(Command::Check {
            paths,
            rules,
            json,
            quiet,
            variations,
            threads,
        }) => check(&paths, &rules, json, quiet, variations, threads),
        Some(Command::Match(args)) => {
            match tengen::match_runner::run(&args, &mut std::io::stdout().lock()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    tengen::log_line!("tengen match: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some(Command::Analysis { args }) => {
            let result =
                tengen::analysis::parse_args(&args).and_then(|o| tengen::analysis::run(&o));
            match result {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) if e == tengen::analysis::USAGE => {
                    println!("{e}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    tengen::log_line!("tengen analysis: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some(Command::Gtp(args)) => gtp(args),
        None => gtp(cli.engine),
    }
}

/// `tengen bench --model PATH [--search]`: the net's evaluations per
/// second, or the search's visits per second over it.
fn network_bench(
    path: PathBuf,
    precision: PrecisionChoice,
    search: bool,
    rounds: u16,
    seconds: f64,
) -> ExitCode {
    let rounds = usize::from(rounds);
    let round = tengen::time::duration(seconds.max(0.01));
    let net = match load_network(&NetSource::Flag(path), precision, false) {
        Ok(net) => net,
        Err(e) => {
            tengen::log_line!("tengen bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    if search {
        let positions = tengen::bench::middle_game_positions(&net, &[60, 100, 140]);
        for threads in [1, 2] {
            for batch in [1, 4, 8] {
                let rate = tengen::bench::network_search_speed(
                    &net, &positions, threads, batch, rounds, round,
                );
                println!("{rate}");
            }
        }
    } else {
        for size in [19, 9] {
            for batch in [1, 8] {
                for threads in [1, 2] {
                    let rate =
                        tengen::bench::network_speed(&net, size, batch, threads, rounds, round);
                    println!("{rate}");
                }
            }
        }
    }
    if let Some((peak, _)) = tengen::bench::memory_mb() {
        println!("peak resident memory: {peak:.0} MB");
    }
    ExitCode::SUCCESS
}

/// `tengen bench`: playouts, the classical search and the clock.
fn classical_bench(rounds: u16, seconds: f64, seed: u64) -> ExitCode {
    let rounds = usize::from(rounds);
    let round = tengen::time::duration(seconds.max(0.01));
    for policy in [Policy::Light, Policy::Heavy] {
        for size in [19, 9] {
            println!(
                "{}",
                tengen::bench::playouts(size, policy, rounds, round, seed)
            );
        }
    }
    for policy in [Policy::Light, Policy::Heavy] {
        for size in [19, 9] {
            let rate = tengen::bench::search_speed(size, policy, rounds, round, seed);
            println!("{rate}");
        }
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

/// `tengen check PATHS`: every illegal move of the SGF files found.
fn check(
    paths: &[PathBuf],
    rules: &RuleArgs,
    json: bool,
    quiet: bool,
    variations: bool,
    threads: Option<u16>,
) -> ExitCode {
    let threads = threads.map(usize::from).unwrap_or_else(|| {
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
    match tengen::sgf::batch::run(paths, rules, options, &mut out) {
        Ok(summary) => {
            if summary.files == 0 {
                let names: Vec<_> = paths.iter().map(|p| p.display().to_string()).collect();
                tengen::log_line!(
                    "tengen check: no SGF file found in {} (files must end in .sgf)",
                    names.join(", ")
                );
            }
            ExitCode::from(summary.exit_code())
        }
        Err(e) => {
            tengen::log_line!("tengen check: cannot write the report: {e}");
            ExitCode::from(2)
        }
    }
}

/// The classical search's settings, for its start-up line on stderr.
fn describe_classical(config: &SearchConfig) -> String {
    format!(
        "{}, {} playouts, RAVE equivalence {}, exploration {}, opening sense {}",
        if config.transpositions {
            "transposition table"
        } else {
            "plain tree"
        },
        match config.playout_policy {
            Policy::Light => "light",
            Policy::Heavy => "heavy",
            Policy::Settling => "settling",
        },
        config.rave_equiv,
        config.exploration,
        config.priors.opening_sense
    )
}
