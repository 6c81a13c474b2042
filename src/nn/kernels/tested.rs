//! For the kernel tests: each family's kernels run one by one on this CPU, every run named on
//! stderr (and every kernel the CPU lacks named as skipped), and a record of what ran, which
//! `tests.rs` checks against the kernels the dispatchers can choose.

use super::cpu::Isa;
use std::collections::BTreeSet;
use std::sync::Mutex;

/// The kernels that ran, by family name and level.
static RAN: Mutex<BTreeSet<(&'static str, Isa)>> = Mutex::new(BTreeSet::new());

/// Runs `check` on each of `kernels` this CPU has (whatever `TENGEN_ISA` says), lowest first,
/// naming each on stderr for `test`; names the ones it lacks as skipped.
pub fn run_each(test: &str, family: &'static str, kernels: &[Isa], mut check: impl FnMut(Isa)) {
    for &isa in kernels {
        if isa.on_cpu() {
            check(isa);
            RAN.lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert((family, isa));
            eprintln!("{test}: ran the {family} {} kernel", isa.name());
        } else {
            eprintln!(
                "{test}: skipped the {family} {} kernel (not on this CPU)",
                isa.name()
            );
        }
    }
}

/// Whether the `family` kernel of level `isa` has run in this test process.
pub fn has_run(family: &str, isa: Isa) -> bool {
    RAN.lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .any(|&(f, i)| f == family && i == isa)
}
