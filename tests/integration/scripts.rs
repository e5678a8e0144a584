//! The quick start and the examples' scripts find abtest however it is built: through
//! cargo, which knows where CARGO_TARGET_DIR or a .cargo/config puts the binary, never a
//! hard-coded ./target/release/abtest (with CARGO_TARGET_DIR set, that path does not
//! exist and the quick start ended with exit 127 after minutes of silence). A stand-in
//! cargo builds a stand-in abtest into a scratch CARGO_TARGET_DIR, which prints the
//! command line it got instead of starting servers.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{Sandbox, repo, text};

/// A `cargo` that records its arguments and "builds" an abtest that echoes its own,
/// reporting the executable as cargo's JSON messages do.
const FAKE_CARGO: &str = r#"#!/bin/sh
echo "$*" >> "$CARGO_TARGET_DIR/cargo-calls"
mkdir -p "$CARGO_TARGET_DIR/release"
printf '#!/bin/sh\necho "stand-in abtest: $*"\n' > "$CARGO_TARGET_DIR/release/abtest"
chmod +x "$CARGO_TARGET_DIR/release/abtest"
echo '{"reason":"compiler-artifact","target":{"name":"abtest"},"executable":"'"$CARGO_TARGET_DIR"'/release/abtest","fresh":false}'
echo '{"reason":"build-finished","success":true}'
"#;

/// The sandbox's bin directory holding the stand-in cargo, and the scratch target dir.
fn stand_in(sandbox: &Sandbox) -> (PathBuf, PathBuf) {
    let bin = sandbox.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let cargo = bin.join("cargo");
    std::fs::write(&cargo, FAKE_CARGO).unwrap();
    std::fs::set_permissions(&cargo, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let target = sandbox.path("scratch-target");
    std::fs::create_dir_all(&target).unwrap();
    (bin, target)
}

/// `script` (relative to the checkout) with the stand-in cargo first on PATH.
fn run_script(sandbox: &Sandbox, script: &str, args: &[&str]) -> Output {
    let (bin, target) = stand_in(sandbox);
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    Command::new(repo().join(script))
        .args(args)
        .env("PATH", path)
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("CARGO")
        .env_remove("ABTEST")
        .env("MARIADB_PASSWORD", "unused")
        .env("MYSQL_PASSWORD", "unused")
        .current_dir(sandbox.dir.path())
        .output()
        .unwrap()
}

/// The scripts that run abtest, with the arguments that keep them from starting servers.
const SCRIPTS: &[(&str, &[&str])] = &[
    ("quickstart", &["--dry-run"]),
    ("examples/audit-overhead/run.sh", &[]),
    ("examples/durability/run.sh", &[]),
    ("examples/mariadb-vs-mysql/run.sh", &[]),
    ("examples/server-comparison/run.sh", &["--external"]),
    ("examples/ssl-overhead/run.sh", &[]),
    ("examples/thread-pool/run.sh", &[]),
];

#[test]
fn the_scripts_run_the_abtest_cargo_built_wherever_cargo_put_it() {
    for (script, args) in SCRIPTS {
        let sandbox = Sandbox::new();
        let output = run_script(&sandbox, script, args);
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(0), "{script}: {stdout}{stderr}");
        assert!(
            stdout.contains("stand-in abtest: --baseline "),
            "{script}: {stdout}{stderr}"
        );
        let target = sandbox.path("scratch-target");
        assert!(
            stderr.contains("abtest: building abtest (release")
                && stderr.contains(&format!(
                    "abtest: using {}/release/abtest",
                    target.display()
                )),
            "{script}: {stderr}"
        );
        let calls = std::fs::read_to_string(target.join("cargo-calls")).unwrap();
        assert!(calls.starts_with("build --release"), "{script}: {calls}");
    }
}

#[test]
fn every_script_that_runs_abtest_finds_it_through_the_shared_function() {
    let mut scripts: Vec<PathBuf> = vec![repo().join("quickstart")];
    for entry in std::fs::read_dir(repo().join("examples")).unwrap() {
        let dir = entry.unwrap().path();
        for name in ["run.sh", "local-demo.sh"] {
            if dir.join(name).exists() {
                scripts.push(dir.join(name));
            }
        }
    }
    for script in &scripts {
        let text = std::fs::read_to_string(script).unwrap();
        let shown = script.strip_prefix(repo()).unwrap_or(script).display();
        assert!(
            !text.contains("target/release"),
            "{shown} names target/release"
        );
        assert!(
            text.contains("scripts/find-abtest.sh") && text.contains("\nfind_abtest\n"),
            "{shown} does not call find_abtest"
        );
    }
}

/// Runs `find_abtest` in bash with `env` and prints what ABTEST became.
fn find_abtest(env: &[(&str, &str)]) -> Output {
    let helper: &Path = &repo().join("scripts/find-abtest.sh");
    let mut command = Command::new("bash");
    command
        .arg("-c")
        .arg(format!(
            "source '{}' && find_abtest; code=$?; echo \"ABTEST=${{ABTEST:-}}\"; exit $code",
            helper.display()
        ))
        .env_remove("ABTEST")
        .env_remove("CARGO");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().unwrap()
}

#[test]
fn an_abtest_given_is_used_and_none_at_all_is_named_with_the_fix() {
    let given = env!("CARGO_BIN_EXE_abtest");
    let output = find_abtest(&[("ABTEST", given)]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains(&format!("ABTEST={given}")), "{stdout}");
    assert!(!stderr.contains("building"), "{stderr}");
    // No cargo and no abtest on PATH: the shell's "command not found", with the fix.
    let output = find_abtest(&[("CARGO", "/nonexistent/cargo"), ("PATH", "/usr/bin:/bin")]);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(127), "{stderr}");
    assert!(
        stderr.contains("no abtest to run: install Rust") && stderr.contains("ABTEST="),
        "{stderr}"
    );
    let output = find_abtest(&[("ABTEST", "/nonexistent/abtest")]);
    assert_eq!(output.status.code(), Some(127));
    assert!(text(&output).1.contains("is not an executable"));
    // A directory is not an abtest, though it is "executable".
    let output = find_abtest(&[("ABTEST", "/tmp")]);
    assert_eq!(output.status.code(), Some(127));
    // A relative path is the caller's, though the script changed directory first.
    let (dir, name) = Path::new(given)
        .parent()
        .zip(Path::new(given).file_name())
        .unwrap();
    let output = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "cd '{}' && cd / && source '{}' && find_abtest && echo \"ABTEST=$ABTEST\"",
            dir.display(),
            repo().join("scripts/find-abtest.sh").display()
        ))
        .env("ABTEST", format!("./{}", name.to_string_lossy()))
        .output()
        .unwrap();
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains(&format!("ABTEST={}/./", dir.display())),
        "{stdout}"
    );
}
