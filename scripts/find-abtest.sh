# Finds the abtest binary for the quick start and the examples, however it is built.
# Source it, then call `find_abtest`: it sets ABTEST to a runnable abtest and says on
# stderr what it does, so that a first build of several minutes is never silent.
#
#   1. $ABTEST, when set: that binary, as it is (nothing is built).
#   2. cargo, when there is one: `cargo build --release` of this checkout, and the binary
#      cargo reports having built. Cargo decides where that is: CARGO_TARGET_DIR (a
#      relative one is taken from the checkout's root), build.target-dir in a
#      .cargo/config.toml, or target/. $CARGO names another cargo.
#   3. `abtest` on PATH (an installed one: cargo install --path .).
#
# Otherwise it says what to install and returns 127, the shell's "command not found".

ABTEST_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

find_abtest() {
  if [ -n "${ABTEST:-}" ]; then
    # A relative path is the caller's: the scripts cd into their own directory first,
    # and bash keeps the directory they came from in OLDPWD.
    case $ABTEST in
      /*) ;;
      */*) if [ -n "${OLDPWD:-}" ] && [ -f "$OLDPWD/$ABTEST" ]; then ABTEST=$OLDPWD/$ABTEST; fi ;;
    esac
    if ! { [ -f "$ABTEST" ] && [ -x "$ABTEST" ]; } && ! command -v "$ABTEST" >/dev/null; then
      echo "abtest: ABTEST=$ABTEST is not an executable; unset it to build abtest from this checkout" >&2
      return 127
    fi
    return 0
  fi
  local cargo=${CARGO:-cargo}
  if command -v "$cargo" >/dev/null; then
    echo "abtest: building abtest (release; the first build takes a few minutes) with $cargo build --release in $ABTEST_ROOT …" >&2
    local built
    built=$(cd "$ABTEST_ROOT" && "$cargo" build --release --bin abtest \
      --message-format=json-render-diagnostics |
      sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1) || {
      echo "abtest: the build failed (its messages are above)" >&2
      return 1
    }
    if [ -n "$built" ] && [ -x "$built" ]; then
      ABTEST=$built
      echo "abtest: using $ABTEST" >&2
      return 0
    fi
    echo "abtest: $cargo build --release did not name the abtest binary it built" >&2
    return 1
  fi
  if command -v abtest >/dev/null; then
    ABTEST=$(command -v abtest)
    echo "abtest: using $ABTEST (no cargo to build this checkout with)" >&2
    return 0
  fi
  echo "abtest: no abtest to run: install Rust (https://rustup.rs) so that this script can build it, or set ABTEST=/path/to/abtest" >&2
  return 127
}
