//! Upgrade: old binary against new binary. A managed server started from an install tree
//! of its own (`[server] basedir`) takes everything from that tree: its binary, its
//! `mariadb-install-db`, error messages and plugins, and the option check runs its
//! binary with its plugins. The second install here is a copy of the system's, laid out
//! under a directory of its own as a package lays it out under /usr.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{QUICK, SHORT_POINT_SELECTS, Sandbox, server_lock, text};

/// The system install's pieces (Debian's mariadb-server-core and mariadb-server).
const SYSTEM_BINARY: &str = "/usr/sbin/mariadbd";
const SYSTEM_PROGRAMS: &[&str] = &[
    "/usr/bin/mariadb-install-db",
    "/usr/bin/my_print_defaults",
    "/usr/bin/resolveip",
];
const SYSTEM_SHARE: &str = "/usr/share/mysql";
const SYSTEM_PLUGINS: &str = "/usr/lib/mysql/plugin";

/// A second install under `<sandbox>/second-install`, a copy of the system's. Its audit
/// plugin is only there, as `tree_audit.so`: loading it proves the plugin directory was
/// the tree's. Its install script leaves a mark in `<sandbox>/marks` when it runs.
fn second_install(sandbox: &Sandbox) -> PathBuf {
    let tree = sandbox.path("second-install");
    for dir in ["sbin", "bin", "share", "lib/mysql/plugin"] {
        std::fs::create_dir_all(tree.join(dir)).unwrap();
    }
    copy(Path::new(SYSTEM_BINARY), &tree.join("sbin"));
    for program in SYSTEM_PROGRAMS {
        copy(Path::new(program), &tree.join("bin"));
    }
    copy(Path::new(SYSTEM_SHARE), &tree.join("share"));
    copy(
        &Path::new(SYSTEM_PLUGINS).join("server_audit.so"),
        &tree.join("lib/mysql/plugin/tree_audit.so"),
    );
    let marks = sandbox.path("marks");
    std::fs::create_dir_all(&marks).unwrap();
    // The server's user (mysql, when the tests run as root) runs the script.
    std::fs::set_permissions(&marks, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    // Its defaults-file reader marks a read of a my.cnf (the install script runs it too,
    // with --no-defaults).
    std::fs::write(
        tree.join("bin/my_print_defaults"),
        format!(
            "#!/bin/sh\ncase \"$1\" in --defaults-file=*) : > '{}/print-defaults';; esac\n\
             exec /usr/bin/my_print_defaults \"$@\"\n",
            marks.display()
        ),
    )
    .unwrap();
    let script = tree.join("bin/mariadb-install-db");
    let text = std::fs::read_to_string(&script).unwrap();
    let (shebang, rest) = text.split_once('\n').unwrap();
    let mark = format!(": > '{}/install-db'", marks.display());
    std::fs::write(&script, format!("{shebang}\n{mark}\n{rest}")).unwrap();
    tree
}

/// `cp -r from to`.
fn copy(from: &Path, to: &Path) {
    let status = Command::new("cp")
        .arg("-r")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success(), "cp {} {}", from.display(), to.display());
}

/// A profile of a server run from `tree`, with the tree's own audit plugin.
fn tree_profile(sandbox: &Sandbox, tree: &Path) -> PathBuf {
    sandbox.write(
        "new.toml",
        &format!(
            "name = \"second install\"\n\n[server]\nbasedir = \"{}\"\n\n[server.options]\n\
             plugin_load_add = \"tree_audit\"\nserver_audit_logging = \"OFF\"\n",
            tree.display()
        ),
    )
}

/// The dry run of `profile` against the stock profile: it must end with `code`; its
/// stdout and stderr.
fn dry_run(sandbox: &Sandbox, profile: &Path, code: i32) -> (String, String) {
    let output = sandbox.dry_run_against_stock(profile);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(code), "{stdout}{stderr}");
    (stdout, stderr)
}

/// The dry run of `profile`, refused (exit 2): its stderr.
fn refused(sandbox: &Sandbox, profile: &Path) -> String {
    dry_run(sandbox, profile, 2).1
}

#[test]
fn the_dry_run_shows_a_server_started_from_its_own_tree() {
    let sandbox = Sandbox::new();
    let tree = second_install(&sandbox);
    let profile = tree_profile(&sandbox, &tree);
    let (stdout, stderr) = dry_run(&sandbox, &profile, 0);
    let tree = tree.display();
    for word in [
        format!("{tree}/sbin/mariadbd --no-defaults --basedir={tree} "),
        format!("--lc-messages-dir={tree}/share/mysql "),
        format!("--plugin-dir={tree}/lib/mysql/plugin "),
    ] {
        assert!(stdout.contains(&word), "{word} not in\n{stdout}");
    }
    // The baseline, the system install, keeps its compiled-in paths.
    assert!(
        stdout.contains("/usr/sbin/mariadbd --no-defaults --ssl-ca"),
        "{stdout}"
    );
    // The option check loaded the tree's plugin: its options are known.
    assert!(!stderr.contains("not checked"), "{stderr}");

    // A `binary` in a tree, without `basedir`, runs from that tree too, and its
    // defaults file is read by the tree's reader.
    sandbox.write("my.cnf", "[mysqld]\nmax_heap_table_size = 32M\n");
    let by_binary = sandbox.write(
        "by-binary.toml",
        &format!("[server]\nbinary = \"{tree}/sbin/mariadbd\"\ndefaults_file = \"my.cnf\"\n"),
    );
    let (stdout, _) = dry_run(&sandbox, &by_binary, 0);
    assert!(sandbox.path("marks/print-defaults").exists(), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "--basedir={tree} --lc-messages-dir={tree}/share/mysql"
        )),
        "{stdout}"
    );

    // A relative basedir starts from the profile's directory; a binary from elsewhere
    // is said.
    let relative = sandbox.write(
        "relative.toml",
        "[server]\nbasedir = \"second-install\"\nbinary = \"/usr/sbin/mariadbd\"\n",
    );
    let (stdout, stderr) = dry_run(&sandbox, &relative, 0);
    assert!(
        stdout.contains(&format!(
            "/usr/sbin/mariadbd --no-defaults --basedir={tree} "
        )),
        "{stdout}"
    );
    assert!(stderr.contains("is not under basedir"), "{stderr}");
}

#[test]
fn an_old_install_and_a_new_one_are_compared() {
    let _lock = server_lock();
    let sandbox = Sandbox::new();
    let tree = second_install(&sandbox);
    let profile = tree_profile(&sandbox, &tree);
    let markdown = sandbox.path("results.md");
    let mut args = vec![
        "--baseline",
        "profiles/mariadb.toml",
        "--variant",
        profile.to_str().unwrap(),
        "--markdown",
        markdown.to_str().unwrap(),
    ];
    args.extend(SHORT_POINT_SELECTS);
    args.extend(QUICK);
    let finished = sandbox.run_json(&args);
    assert_eq!(finished.code, Some(0), "{}", finished.output);
    crate::support::assert_valid_results(&finished.results);
    let facts = |side: &str| finished.results["sides"][side]["facts"].clone();
    let (baseline, variant) = (facts("baseline"), facts("variant"));
    let tree = tree.display().to_string();
    for variable in ["basedir", "plugin_dir", "lc_messages_dir"] {
        let value = variant["variables"][variable].as_str().unwrap();
        assert!(value.starts_with(&tree), "{variable} = {value}");
    }
    assert_eq!(baseline["variables"]["basedir"], "/usr/");
    assert_eq!(variant["plugins"]["SERVER_AUDIT"], "ACTIVE", "{variant}");
    assert!(
        sandbox.path("marks/install-db").exists(),
        "the tree's mariadb-install-db did not run"
    );
    let report = std::fs::read_to_string(&markdown).unwrap();
    assert!(
        report.contains(&format!(
            "(second install): {}",
            variant["version"].as_str().unwrap()
        )) && report.contains(&format!(" from {tree}, ")),
        "{report}"
    );
    // Two installs of one version: their paths are no difference.
    let differences = finished.results["differences"].to_string();
    for path in ["basedir", "lc_messages_dir", "character_sets_dir"] {
        assert!(!differences.contains(path), "{differences}");
    }
    sandbox.assert_nothing_left();
}

#[test]
fn a_basedir_that_is_no_install_is_refused_with_its_line_and_what_was_looked_for() {
    let sandbox = Sandbox::new();
    let empty = sandbox.path("empty-install");
    std::fs::create_dir_all(empty.join("share")).unwrap();
    let profile = sandbox.write(
        "empty.toml",
        &format!("[server]\nbasedir = \"{}\"\n", empty.display()),
    );
    let stderr = refused(&sandbox, &profile);
    assert!(
        stderr.contains("empty.toml:2")
            && stderr.contains("no server binary in basedir")
            && stderr.contains("bin/mariadbd, sbin/mariadbd"),
        "{stderr}"
    );

    let profile = sandbox.write(
        "nowhere.toml",
        "[server]\nbasedir = \"/nonexistent/mariadb\"\n",
    );
    let stderr = refused(&sandbox, &profile);
    assert!(
        stderr.contains("nowhere.toml:2") && stderr.contains("does not exist"),
        "{stderr}"
    );

    // A binary without the rest of its tree: the install script is missing.
    std::fs::create_dir_all(empty.join("bin")).unwrap();
    copy(Path::new(SYSTEM_BINARY), &empty.join("bin/mariadbd"));
    let stderr = refused(&sandbox, &sandbox.path("empty.toml"));
    assert!(
        stderr.contains("empty.toml:2") && stderr.contains("scripts/mariadb-install-db"),
        "{stderr}"
    );

    let typo = sandbox.write("typo.toml", "[server]\nbasdir = \"/opt/mariadb\"\n");
    let stderr = refused(&sandbox, &typo);
    assert!(
        stderr.contains("typo.toml:2") && stderr.contains("did you mean `basedir`"),
        "{stderr}"
    );
}
