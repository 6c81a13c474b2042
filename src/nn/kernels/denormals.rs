//! Flush-to-zero for the forward pass: a guard that sets FTZ and DAZ in the calling thread's
//! MXCSR (x86-64), or FZ in its FPCR (AArch64: denormal inputs and results both flushed),
//! while it lives and gives the thread back its own setting when dropped. Some nets produce
//! denormal floats (KaTrain's transformer), which x86 cores compute many times slower than
//! normal ones; flushed, they cost nothing and change no output. On other architectures the
//! guard does nothing.

use std::marker::PhantomData;

/// MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6) bits.
#[cfg(target_arch = "x86_64")]
const FTZ_DAZ: u32 = 0x8040;
/// FPCR's flush-to-zero bit (24), for inputs and results alike.
#[cfg(target_arch = "aarch64")]
const FTZ_DAZ: u64 = 1 << 24;

/// The control register's width.
#[cfg(target_arch = "x86_64")]
type Csr = u32;
#[cfg(target_arch = "aarch64")]
type Csr = u64;

/// While alive, denormal results and inputs of this thread's float arithmetic are zero. Not
/// `Send`: MXCSR (FPCR) belongs to the thread that made the guard.
#[must_use = "denormals are flushed only while the guard lives"]
#[derive(Debug)]
pub struct FlushDenormals {
    /// The caller's FTZ and DAZ bits, put back on drop.
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    saved: Csr,
    not_send: PhantomData<*const ()>,
}

impl FlushDenormals {
    /// Sets FTZ and DAZ (FZ) in this thread until the guard drops.
    pub fn new() -> FlushDenormals {
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        {
            let csr = read_csr();
            write_csr(csr | FTZ_DAZ);
            FlushDenormals {
                saved: csr & FTZ_DAZ,
                not_send: PhantomData,
            }
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        FlushDenormals {
            not_send: PhantomData,
        }
    }
}

impl Default for FlushDenormals {
    fn default() -> Self {
        FlushDenormals::new()
    }
}

impl Drop for FlushDenormals {
    fn drop(&mut self) {
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        write_csr((read_csr() & !FTZ_DAZ) | self.saved);
    }
}

/// Whether this thread flushes denormals now (FTZ and DAZ both set, or FZ; never on other
/// architectures than x86-64 and AArch64).
pub fn flushing() -> bool {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    return read_csr() & FTZ_DAZ == FTZ_DAZ;
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    false
}

#[cfg(target_arch = "x86_64")]
fn read_csr() -> u32 {
    let mut csr: u32 = 0;
    // SAFETY: stmxcsr stores the 32-bit MXCSR through a pointer to a valid local.
    unsafe {
        std::arch::asm!("stmxcsr [{0}]", in(reg) &mut csr as *mut u32, options(nostack, preserves_flags));
    }
    csr
}

#[cfg(target_arch = "x86_64")]
fn write_csr(csr: u32) {
    // SAFETY: ldmxcsr loads MXCSR from a valid local; callers change only the FTZ and DAZ bits
    // of a value read from MXCSR, which alter how denormal floats are treated, nothing else.
    unsafe {
        std::arch::asm!("ldmxcsr [{0}]", in(reg) &csr as *const u32, options(nostack, preserves_flags, readonly));
    }
}

/// FPCR, as x86-64's `read_csr` reads MXCSR.
#[cfg(target_arch = "aarch64")]
fn read_csr() -> u64 {
    let csr: u64;
    // SAFETY: mrs copies FPCR, which every AArch64 thread has, into a register.
    unsafe {
        std::arch::asm!("mrs {0}, fpcr", out(reg) csr, options(nomem, nostack, preserves_flags));
    }
    csr
}

/// FPCR set, as x86-64's `write_csr` sets MXCSR.
#[cfg(target_arch = "aarch64")]
fn write_csr(csr: u64) {
    // SAFETY: msr sets FPCR; callers change only its FZ bit in a value read from FPCR, which
    // alters how denormal floats are treated, nothing else.
    unsafe {
        std::arch::asm!("msr fpcr, {0}", in(reg) csr, options(nostack, preserves_flags));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Half the smallest normal float, computed at run time: a denormal unless flushed.
    fn half_smallest_normal() -> f32 {
        std::hint::black_box(f32::MIN_POSITIVE) / std::hint::black_box(2.0)
    }

    #[test]
    fn the_guard_flushes_while_alive_and_restores_the_callers_setting() {
        // Off before: on while the guard lives, off again after.
        let outer = (!flushing()).then(FlushDenormals::new);
        drop(outer);
        assert!(!flushing());
        assert!(half_smallest_normal() > 0.0);
        {
            let _flush = FlushDenormals::new();
            assert!(flushing());
            #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
            assert_eq!(half_smallest_normal(), 0.0);
        }
        assert!(!flushing(), "the caller's setting (off) is back");
        assert!(half_smallest_normal() > 0.0);
        // On before (a caller's own guard): still on after an inner guard drops.
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        {
            let outer = FlushDenormals::new();
            drop(FlushDenormals::new());
            assert!(flushing(), "the caller's setting (on) is kept");
            drop(outer);
            assert!(!flushing());
        }
    }
}
