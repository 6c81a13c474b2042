//! Every kernel this CPU has runs here against its portable twin: each family's kernel tests
//! are called in turn (they also run on their own, in any order), then the record of what ran
//! is checked against every kernel the dispatchers can choose. A kernel this CPU lacks is named
//! as skipped; one it has that no test ran is named too, and under `CI=true` fails the test.

use super::cpu::Isa;
use super::tested::has_run;
use super::{bf16, fp32, int8, vecmath, winograd};

/// Each family's name in the record, and the levels its dispatcher can choose.
fn families() -> Vec<(&'static str, &'static [Isa])> {
    vec![
        (fp32::tests::FAMILY, fp32::gemm::KERNELS),
        (bf16::tests::FAMILY, bf16::gemm::KERNELS),
        (int8::tests::FAMILY, int8::gemm::KERNELS),
        (int8::tests::QUANTIZER, int8::tests::QUANTIZER_KERNELS),
        (vecmath::tests::FAMILY, vecmath::ops::KERNELS),
        (winograd::tests::FAMILY, winograd::KERNELS),
    ]
}

#[test]
fn every_kernel_this_cpu_has_runs_against_its_portable_twin() {
    fp32::tests::every_kernel_matches_a_naive_product_on_ragged_sizes();
    bf16::tests::the_product_is_the_rounded_operands_product_on_ragged_shapes();
    bf16::tests::repacked_matrices_multiply_as_their_rounded_values();
    bf16::tests::softmax_product_is_the_softmax_times_the_rounded_values();
    #[cfg(target_arch = "x86_64")]
    bf16::tests::native_rounding_of_rows_is_round_to_bf16();
    int8::tests::every_kernel_gives_the_same_sums_and_stays_near_the_float_product();
    int8::tests::quantizing_a_row_in_avx2_gives_the_portable_bytes();
    vecmath::tests::softmax_and_swiglu_match_slow_twins();
    vecmath::tests::silu_and_mish_match_katago_formulas();
    #[cfg(target_arch = "x86_64")]
    vecmath::tests::coarse_exp_is_within_1e_5_of_exp_below_zero();
    #[cfg(target_arch = "aarch64")]
    vecmath::tests::neon_exp_is_close_to_exp_and_to_the_portable_one();
    winograd::tests::transforms_match_their_portable_twins();

    let mut missing = Vec::new();
    for (family, kernels) in families() {
        for &isa in kernels {
            let kernel = format!("the {family} {} kernel", isa.name());
            if !isa.on_cpu() {
                eprintln!("kernels: skipped {kernel} (not on this CPU)");
            } else if has_run(family, isa) {
                eprintln!("kernels: ran {kernel}");
            } else {
                missing.push(kernel);
            }
        }
    }
    if !missing.is_empty() {
        let message = format!(
            "kernels this CPU has that no test ran: {}",
            missing.join(", ")
        );
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
        eprintln!("kernels: {message}");
    }
}
