//! Locks across a panic. A thread that panics while holding a lock poisons
//! it; what the lock guards may then be half updated. Two ways on, one for
//! each kind of contents:
//! - [`lock`]: plain data whose every write is whole (an output stream, a
//!   queue of jobs): taken as it is;
//! - [`lock_or_reset`]: state a half-done update can corrupt (a search tree,
//!   an evaluation cache): put back to empty, the poison cleared, and said
//!   on stderr, as a front end does after a caught panic.

use std::sync::{Mutex, MutexGuard};

/// The contents of `m`, whatever a panicking thread left in them.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The contents of `m`; if a thread panicked holding it, first `reset` (so
/// nothing half updated is used again), the poison cleared and a line on
/// stderr naming `what`.
pub fn lock_or_reset<'a, T>(
    m: &'a Mutex<T>,
    what: &str,
    reset: impl FnOnce(&mut T),
) -> MutexGuard<'a, T> {
    match m.lock() {
        Ok(guard) => guard,
        Err(poisoned) => {
            let mut guard = poisoned.into_inner();
            reset(&mut guard);
            m.clear_poison();
            crate::log_line!("tengen: the {what} was cleared after a panic in a thread using it");
            guard
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poisoned(value: Vec<u32>) -> Mutex<Vec<u32>> {
        let m = Mutex::new(value);
        let _ = std::thread::scope(|s| {
            s.spawn(|| {
                let mut guard = m.lock().unwrap();
                guard.push(99); // half an update
                panic!("a bug");
            })
            .join()
        });
        assert!(m.is_poisoned());
        m
    }

    #[test]
    fn plain_data_is_taken_as_it_is() {
        let m = poisoned(vec![1]);
        assert_eq!(*lock(&m), [1, 99]);
    }

    #[test]
    fn state_is_reset_once_and_the_poison_cleared() {
        let m = poisoned(vec![1]);
        let mut resets = 0;
        assert!(lock_or_reset(&m, "test state", |v| {
            resets += 1;
            v.clear();
        })
        .is_empty());
        assert!(!m.is_poisoned());
        m.lock().unwrap().push(2);
        assert_eq!(*lock_or_reset(&m, "test state", |_| resets += 1), [2]);
        assert_eq!(resets, 1);
    }
}
