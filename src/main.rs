//! Thin entry point: everything lives in the library so tests can drive it directly.

fn main() {
    std::process::exit(abtest::main_with_args(std::env::args_os()));
}
