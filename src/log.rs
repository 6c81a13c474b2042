//! Diagnostics on stderr that never stop the program: with a closed or broken
//! stderr (`tengen match … 2>&1 | head -1`) a message is lost, where
//! `eprintln!` would panic.

/// `eprintln!` without the panic: write errors on stderr are ignored.
#[macro_export]
macro_rules! log_line {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::writeln!(::std::io::stderr(), $($arg)*);
    }};
}
