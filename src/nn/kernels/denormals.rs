//! Flush-to-zero for the forward pass: a guard that sets FTZ and DAZ in the calling thread's
//! MXCSR while it lives and gives the thread back its own setting when dropped. Some nets
//! produce denormal floats (KaTrain's transformer), which x86 cores compute many times slower
//! than normal ones; flushed, they cost nothing and change no output. Elsewhere than x86-64 the
//! guard does nothing.

use std::marker::PhantomData;

/// MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6) bits.
#[cfg(target_arch = "x86_64")]
const FTZ_DAZ: u32 = 0x8040;

/// While alive, denormal results and inputs of this thread's float arithmetic are zero. Not
/// `Send`: MXCSR belongs to the thread that made the guard.
#[must_use = "denormals are flushed only while the guard lives"]
#[derive(Debug)]
pub struct FlushDenormals {
    /// The caller's FTZ and DAZ bits, put back on drop.
    #[cfg(target_arch = "x86_64")]
    saved: u32,
    not_send: PhantomData<*const ()>,
}

impl FlushDenormals {
    /// Sets FTZ and DAZ in this thread until the guard drops.
    pub fn new() -> FlushDenormals {
        #[cfg(target_arch = "x86_64")]
        {
            let csr = read_mxcsr();
            write_mxcsr(csr | FTZ_DAZ);
            FlushDenormals {
                saved: csr & FTZ_DAZ,
                not_send: PhantomData,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
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
        #[cfg(target_arch = "x86_64")]
        write_mxcsr((read_mxcsr() & !FTZ_DAZ) | self.saved);
    }
}

/// Whether this thread flushes denormals now (FTZ and DAZ both set; never off x86-64).
pub fn flushing() -> bool {
    #[cfg(target_arch = "x86_64")]
    return read_mxcsr() & FTZ_DAZ == FTZ_DAZ;
    #[cfg(not(target_arch = "x86_64"))]
    false
}

#[cfg(target_arch = "x86_64")]
fn read_mxcsr() -> u32 {
    let mut csr: u32 = 0;
    // SAFETY: stmxcsr stores the 32-bit MXCSR through a pointer to a valid local.
    unsafe {
        std::arch::asm!("stmxcsr [{0}]", in(reg) &mut csr as *mut u32, options(nostack, preserves_flags));
    }
    csr
}

#[cfg(target_arch = "x86_64")]
fn write_mxcsr(csr: u32) {
    // SAFETY: ldmxcsr loads MXCSR from a valid local; callers change only the FTZ and DAZ bits
    // of a value read from MXCSR, which alter how denormal floats are treated, nothing else.
    unsafe {
        std::arch::asm!("ldmxcsr [{0}]", in(reg) &csr as *const u32, options(nostack, preserves_flags, readonly));
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
            #[cfg(target_arch = "x86_64")]
            assert_eq!(half_smallest_normal(), 0.0);
        }
        assert!(!flushing(), "the caller's setting (off) is back");
        assert!(half_smallest_normal() > 0.0);
        // On before (a caller's own guard): still on after an inner guard drops.
        #[cfg(target_arch = "x86_64")]
        {
            let outer = FlushDenormals::new();
            drop(FlushDenormals::new());
            assert!(flushing(), "the caller's setting (on) is kept");
            drop(outer);
            assert!(!flushing());
        }
    }
}
