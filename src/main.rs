//! `sortnet`: the command-line tool. Sorts files of keys or nibble words with any backend,
//! benchmarks and calibrates the backends on this machine, and lists them.
//!
//! Run `sortnet --help` for the commands; the code lives in `src/tool/`.

mod tool;

fn main() -> std::process::ExitCode {
    tool::main()
}
