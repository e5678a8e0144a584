//! From sysbench to abtest: command lines translated, and real sysbench logs (1.0.20
//! captured from a run, 0.4 as quoted in seed 003) imported and analysed.

use crate::support::{Sandbox, text};

const LOG_1_0: &str = "tests/fixtures/sysbench-1.0.20-oltp_read_write.log";
const LOG_0_4: &str = "tests/fixtures/sysbench-0.4-seed003.log";

/// Runs `import-sysbench-log` into the sandbox's rounds.csv; returns its output and path.
fn import(
    sandbox: &Sandbox,
    baseline: &[&str],
    variant: &[&str],
) -> (std::process::Output, std::path::PathBuf) {
    let csv = sandbox.path("rounds.csv");
    let mut args = vec!["import-sysbench-log", "--baseline"];
    args.extend(baseline);
    args.push("--variant");
    args.extend(variant);
    args.extend(["-o", csv.to_str().unwrap()]);
    (sandbox.run(&args), csv)
}

#[test]
fn sysbench_logs_become_rounds_for_analyze() {
    let sandbox = Sandbox::new();
    let (output, csv) = import(&sandbox, &[LOG_1_0, LOG_1_0], &[LOG_0_4, LOG_0_4, LOG_0_4]);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("baseline: 2 run(s) read") && stderr.contains("variant: 3 run(s) read"),
        "{stderr}"
    );
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert!(
        rows.starts_with(
            "side,threads,round,tps,qps,latency_mean_ms,latency_p95_ms\nbaseline,8,1,"
        ),
        "{rows}"
    );
    assert!(
        rows.contains("variant,64,3,1182.19,22463.02,54.12,129.41"),
        "{rows}"
    );
    // Different thread counts never pair up, so analyze refuses with a clear message.
    let output = sandbox.run(&["analyze", csv.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output)
            .1
            .contains("variant has 0 round(s) at 8 threads"),
        "{}",
        text(&output).1
    );
}

#[test]
fn a_real_sysbench_log_is_analysed_against_itself() {
    let sandbox = Sandbox::new();
    let (output, csv) = import(&sandbox, &[LOG_1_0, LOG_1_0], &[LOG_1_0, LOG_1_0]);
    assert_eq!(output.status.code(), Some(0));
    let output = sandbox.run(&["analyze", csv.to_str().unwrap(), "--format", "json"]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["comparisons"][0]["metric"], "tps");
    assert_eq!(value["comparisons"][0]["change_pct"], 0.0);
}

#[test]
fn from_sysbench_lists_what_it_cannot_map_and_hides_the_password() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&[
        "from-sysbench",
        "sysbench --test=oltp --oltp-test-mode=nontrx --oltp-nontrx-mode=select --oltp-table-size=500000 \
         --num-threads=16 --max-time=3600 --mysql-password=hunter2 --frobnicate=1 run",
    ]);
    let (stdout, _) = text(&output);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout.contains("--workload oltp_point_select"), "{stdout}");
    assert!(
        stdout.contains("--frobnicate=1: no abtest equivalent"),
        "{stdout}"
    );
    assert!(
        stdout.contains("password_env = \"ABTEST_PASSWORD\"") && !stdout.contains("hunter2"),
        "{stdout}"
    );
}

/// The command lines of the seeds' studies (shared/seeds/000–004) and other shapes.
const SYSBENCH_LINES: &[&str] = &[
    "sysbench --test=oltp --mysql-host=192.168.110.100 -- mysql-port=3306 --mysql-user=root \
     --mysql-password=root --mysql-db=sbtest1 -- oltp-num-tables=10 --oltp-table-size=500000 \
     --report-interval=10 --max-requests=0 -- Oltp-test-mode=nontrx --oltp-nontrx-mode=select \
     --oltp-read-only=off --max-time= $time -- num-threads= $thread run",
    "sysbench --db-driver=mysql  --mysql-host=172.16.1.10 --mysql-port=3306 --mysql-user=root \
     --mysql-password=123456 --mysql-db=sbtest --table_size=25000 --tables=250 --events=0 --time=120 \
     --threads=8 --percentile=95 --report-interval=1 oltp_read_write run",
    "sysbench --db-driver=mysql --num-threads=64 --max-requests=0 --db-driver=mysql --test=oltp \
     --mysql-table-engine=innodb --oltp-table-size=25000000 --max-time=300 --mysql-engine-trx=yes \
     --mysql-user=root --mysql-password= run",
    "sysbench -- test = oltp -- mysql-table-engine = innodb -- oltp-table-size = 10000000 \
     -- max-requests = 0 -- max-time = 900 -- num-threads = 512",
    "sysbench /usr/share/sysbench/oltp_point_select.lua --mysql-socket=/run/mysqld/mysqld.sock \
     --range-selects=off --skip-trx=on --auto-inc=off --create-secondary=off --mysql-ssl=off run",
    "sysbench oltp_read_only --threads=4 --time=60 --rand-type=uniform --mysql-ssl=on run",
];

/// The workload options of the first command from-sysbench printed: its words after
/// `abtest --baseline baseline.toml --variant variant.toml`.
fn command_options(stdout: &str) -> Vec<String> {
    let command = stdout
        .lines()
        .find(|l| l.starts_with("abtest --baseline baseline.toml --variant variant.toml "))
        .unwrap_or_else(|| panic!("no command: {stdout}"));
    command
        .split_whitespace()
        .skip(5)
        .map(String::from)
        .collect()
}

/// from-sysbench's output for `line`: the command's options and the baseline's profile.
fn from_sysbench(sandbox: &Sandbox, line: &str) -> (Vec<String>, String) {
    let output = sandbox.run(&["from-sysbench", line]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{line}: {stderr}");
    let stub: String = stdout
        .lines()
        .skip_while(|l| *l != "# file: baseline.toml")
        .skip(1)
        .take_while(|l| !l.starts_with("# file: "))
        .map(|l| format!("{l}\n"))
        .collect();
    (command_options(&stdout), stub)
}

#[test]
fn every_translation_pastes_back_into_abtest() {
    let sandbox = Sandbox::new();
    for (index, line) in SYSBENCH_LINES.iter().enumerate() {
        let (options, stub) = from_sysbench(&sandbox, line);
        let profile = sandbox.write(&format!("stub{index}.toml"), &stub);
        let profile = profile.to_str().unwrap();
        let mut args = vec!["--baseline", profile, "--variant", profile, "--dry-run"];
        args.extend(options.iter().map(String::as_str));
        // The stub asks for the password in ABTEST_PASSWORD, as its comment says.
        let output = sandbox
            .abtest()
            .args(&args)
            .env("ABTEST_PASSWORD", "from-the-environment")
            .output()
            .unwrap();
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(0), "{line}\n{args:?}\n{stderr}");
        assert!(stdout.contains("workload  "), "{stdout}");
    }
    // Switches, script paths, sysbench's defaults and TLS arrive as written.
    let (options, stub) = from_sysbench(&sandbox, SYSBENCH_LINES[4]);
    let options = options.join(" ");
    for expected in [
        "--workload oltp_point_select",
        "--range-selects off",
        "--threads 1",
        "--rand-type special",
    ] {
        assert!(options.contains(expected), "{options}");
    }
    assert!(stub.contains("tls = \"disabled\""), "{stub}");
    // The time hint and the options line agree.
    let output = sandbox.run(&["from-sysbench", SYSBENCH_LINES[1]]);
    let stdout = text(&output).0;
    assert!(
        stdout.contains("--rounds 10 --round-time 12s")
            && stdout.contains(
                "--rounds 10 --round-time 12s --rewarm 1s: sysbench measured one configuration once for 120 s"
            ),
        "{stdout}"
    );
}

/// shared/seeds/000's script as it was pasted into the write-up: its line breaks lost,
/// three loops over threads (one per durability setting, edited into my.cnf between).
const SEED_000_SCRIPT: &str = r#"#!/bin/shtime=3600#0.0for thread in {16,32,64,128,256}doecho "Now the number of theads is $thread "echo " ========================================================= =================================================================================== "/bin/sh /home/linzj/ shell/mysql.sh restartsleep 30sysbench --test=oltp --mysql-host=192.168.110.100 -- mysql-port=3306 --mysql-user=root --mysql-password=root --mysql-db=sbtest1 -- oltp-num-tables=10 --oltp-table-size=500000 --report-interval=10 --max-requests=0 -- Oltp-test-mode=nontrx --oltp-nontrx-mode=select --oltp-read-only=off --max-time= $time -- num-threads= $thread runecho "======================================================================= ===================================================================== "done >> /tmp/ sysbench.log.0.0#1.1sed -i ' S/sync_relay_log=0/sync_relay_log=1/g ' /etc/my.cnf sed -i ' s/sync_binlog=0/sync_binlog=1/g ' /etc/my.cnf sed -i ' S/innodb_flush_log_at_trx_commit = 0/innodb_flush_log _at_trx_commit = 1/g ' /etc/my.cnf for thread in {32,256}doecho " now the number of theads is $thread "echo " ================================= =========================================================================================================== "/bin /sh /home/linzj/shell/mysql.sh restartsleep 30sysbench --test=oltp --mysql-host= 192.168.110.100 --mysql-port=3306 --mysql-user=root --mysql-password=root --mysql-db= sbtest1 --oltp-num-tables=10 --oltp-table-size=500000 --report-interval=10 -- max-requests=0 --oltp-test-mode=nontrx --oltp-nontrx-mode=select --oltp-read-only=off -- Max-time= $time --num-threads= $thread runecho "================================================================================= =========================================================== "done >> /tmp/sysbench.log.1.1# 100.2sed -i ' s/sync_relay_log=1/sync_relay_log=100/g ' /etc/my.cnfsed -i ' s/sync_ Binlog=1/sync_binlog=100/g ' /etc/my.cnfsed -i ' s/innodb_flush_log_at_trx_commit = 1/ Innodb_flush_log_at_trx_commit = 2/g ' /etc/my.cnffor thread in {32,256}doecho "now the number of theads is $thread" echo "========================== =============================================================================================================== = = = "/bin/sh /home/linzj/shell/mysql.sh restartsleep 30sysbench --test=oltp -- mysql-host=192.168.110.100 --mysql-port=3306 --mysql-user=root --mysql-password=root -- mysql-db=sbtest1 --oltp-num-tables=10 --oltp-table-size=500000 --report-interval=10 --max-requests=0 -- Oltp-test-mode=nontrx --oltp-nontrx-mode=select --oltp-read-only=off --max-time= $time -- num-threads= $thread runecho "======================================================================= ===================================================================== "done >> /tmp/ sysbench.log.100.2"#;

/// What the seeds' readers would paste: whole scripts and the prepare and run lines of
/// each write-up (shared/seeds/000–004).
const SEED_TEXTS: &[&str] = &[
    SEED_000_SCRIPT,
    "sysbench --db-driver=mysql --mysql-host=172.16.1.10 --mysql-port=3306 --mysql-user=root --mysql-password=123456 --mysql-db=sbtest --table_size=25000 --tables=250 --events=0 --time=600  oltp_read_write prepare
sysbench --db-driver=mysql  --mysql-host=172.16.1.10 --mysql-port=3306 --mysql-user=root --mysql-password=123456 --mysql-db=sbtest --table_size=25000 --tables=250 --events=0 --time=120   --threads=8 --percentile=95 --report-interval=1 oltp_read_write run",
    "sysbench --test=oltp --oltp-table-size=25000000 --mysql-user=root --db-driver=mysql --mysql-password= prepare |
sysbench --db-driver=mysql --num-threads=64 --max-requests=0 --db-driver=mysql --test=oltp --mysql-table-engine=innodb --oltp-table-size=25000000 --max-time=300 --mysql-engine-trx=yes --mysql-user=root --mysql-password= run |",
    "sysbench  --test=oltp --mysql-table-engine=innodb --oltp-table-size=10000000 --max-requests=0 --max-time=900 --num-threads=512 --mysql-host=10.8.8.100 --mysql-port=3308 --mysql-user=admin --mysql-password=123456  --mysql-db=test run",
    "for thread in 16 32 64; do\n  sysbench oltp_read_write --threads=$thread --time=60 --mysql-host=db1 run > run.$thread.log\ndone",
];

/// Each seed comes back as a whole: commands that run, as printed, against the profiles
/// `--write` put on disk, which hold no password.
#[test]
fn every_seed_becomes_a_runnable_whole() {
    let sandbox = Sandbox::new();
    for (index, seed) in SEED_TEXTS.iter().enumerate() {
        let dir = format!("whole{index}");
        let output = sandbox.run(&[
            "from-sysbench",
            "--write",
            sandbox.path(&dir).to_str().unwrap(),
            seed,
        ]);
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(0), "{seed}: {stderr}");
        for file in ["baseline.toml", "variant.toml"] {
            let profile = std::fs::read_to_string(sandbox.path(&dir).join(file)).unwrap();
            assert!(
                profile.contains("[connection]")
                    && (profile.contains("password_env") || !seed.contains("password")),
                "{profile}"
            );
            for secret in ["123456", "\"root\"\npassword ="] {
                assert!(
                    !profile.contains(secret) && !stdout.contains(secret),
                    "{profile}"
                );
            }
            assert!(stderr.contains(&format!(
                "wrote {}",
                sandbox.path(&dir).join(file).display()
            )));
        }
        let commands: Vec<&str> = stdout
            .lines()
            .filter(|l| l.starts_with("abtest "))
            .collect();
        assert!(!commands.is_empty(), "{stdout}");
        for command in commands {
            let words = shlex::split(command).unwrap();
            let output = sandbox
                .abtest()
                .args(&words[1..])
                .arg("--dry-run")
                .env("ABTEST_PASSWORD", "from-the-environment")
                .output()
                .unwrap();
            let (plan, stderr) = text(&output);
            assert_eq!(output.status.code(), Some(0), "{command}\n{stderr}");
            assert!(plan.contains("workload  "), "{plan}");
        }
    }
    // The loops fold into thread lists, one command per loop that differs.
    let output = sandbox.run(&["from-sysbench", SEED_000_SCRIPT]);
    let stdout = text(&output).0;
    let threads: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("abtest "))
        .map(|l| {
            l.split("--threads ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
        })
        .collect();
    assert_eq!(threads, ["16,32,64,128,256", "32,256"], "{stdout}");
    assert!(stdout.contains("--round-time 360s"), "{stdout}");
    // A profile on disk is never replaced.
    let again = sandbox.run(&[
        "from-sysbench",
        "--write",
        sandbox.path("whole1").to_str().unwrap(),
        SEED_TEXTS[1],
    ]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        text(&again).1.contains("baseline.toml exists"),
        "{}",
        text(&again).1
    );
}

/// A prepare line's options that only shape the prepare (seed 002's --time=600) are
/// named as such, never reported as a measured time.
#[test]
fn a_prepare_line_is_not_a_measurement() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&["from-sysbench", SEED_TEXTS[1].lines().next().unwrap()]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        !stdout.contains("600 s") && !stdout.contains("--rounds"),
        "{stdout}"
    );
    assert!(
        stdout.contains("--events=0 --time=600: on the prepare line, these only change how sysbench's prepare runs"),
        "{stdout}"
    );
    assert!(
        command_options(&stdout)
            .join(" ")
            .contains("--table-size 25000 --tables 250")
    );
}

#[test]
fn what_is_not_a_sysbench_command_line_is_refused() {
    let sandbox = Sandbox::new();
    for (line, needle) in [
        ("", "nothing to translate"),
        (
            "mysqlslap --concurrency=50 --iterations=10",
            "`mysqlslap` is not sysbench",
        ),
        (
            "sysbench oltp_read_writ --threads=8 run",
            "did you mean `oltp_read_write`?",
        ),
        ("sysbench --threads=8 run", "names no test"),
    ] {
        let output = sandbox.run(&["from-sysbench", line]);
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(2), "{line:?}: {stdout}{stderr}");
        assert!(stderr.contains(needle), "{line:?}: {stderr}");
    }
}

#[test]
fn import_places_threads_exactly_and_reads_every_report() {
    let sandbox = Sandbox::new();
    let log = std::fs::read_to_string(LOG_1_0).unwrap();
    let report = &log[log.find("SQL statistics").unwrap()..];
    // Seed 002 quotes the final report alone: no banner, no interval lines.
    let bare = sandbox.write("bare.log", report);
    let bare = bare.to_str().unwrap();
    let (output, _) = import(&sandbox, &[bare], &[bare]);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("run 1 does not say how many threads it used")
            && stderr.contains("--threads N"),
        "{stderr}"
    );
    let mut args = vec!["import-sysbench-log", "--baseline", bare, "--variant", bare];
    args.extend(["--threads", "8"]);
    let output = sandbox.run(&args);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.lines().nth(1).unwrap().starts_with("baseline,8,1,"),
        "{stdout}"
    );
    // --threads that contradicts the banner is refused, not applied.
    let output = sandbox.run(&[
        "import-sysbench-log",
        "--baseline",
        LOG_1_0,
        "--variant",
        LOG_1_0,
        "--threads",
        "16",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output)
            .1
            .contains("used 8 threads, but --threads says 16")
    );
    // Two reports in one file are two runs.
    let two = sandbox.write("two.log", &format!("{report}\n{report}"));
    let two = two.to_str().unwrap();
    let output = sandbox.run(&[
        "import-sysbench-log",
        "--baseline",
        two,
        "--variant",
        LOG_1_0,
        "--threads",
        "8",
    ]);
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("baseline: 2 run(s) read"), "{stderr}");
}

/// The seeds' command lines (and short and warmed-up ones): what `from-sysbench` says the
/// run takes is what the dry run of the options it emits estimates.
#[test]
fn translated_run_times_are_what_the_dry_run_estimates() {
    let sandbox = Sandbox::new();
    for sysbench in [
        // seed 002, the measured run
        "sysbench --db-driver=mysql --mysql-host=172.16.1.10 --mysql-port=3306 --mysql-user=root \
         --mysql-password=123456 --mysql-db=sbtest --table_size=25000 --tables=250 --events=0 \
         --time=120 --threads=8 --percentile=95 oltp_read_write run",
        // seed 003
        "sysbench --test=oltp --mysql-table-engine=innodb --oltp-table-size=25000000 --max-time=300 \
         --num-threads=64 run",
        // seed 004
        "sysbench --test=oltp --mysql-table-engine=innodb --oltp-table-size=10000000 \
         --max-requests=0 --max-time=900 --num-threads=512 run",
        "sysbench oltp_read_write --threads=8 --time=60 run",
        "sysbench oltp_point_select --time=20 run",
        "sysbench oltp_point_select --time=100 --warmup-time=10 run",
    ] {
        let output = sandbox.run(&["from-sysbench", sysbench]);
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(0), "{sysbench}: {stderr}");
        let options = command_options(&stdout);
        assert!(options.contains(&"--rounds".to_string()), "{stdout}");
        let said = stdout
            .split("so the rounds of both sides take ")
            .nth(1)
            .and_then(|rest| rest.split(" with their warm-ups").next())
            .unwrap_or_else(|| panic!("no time note: {stdout}"));
        let mut args = vec![
            "--baseline",
            "profiles/mariadb.toml",
            "--variant",
            "profiles/mariadb.toml",
            "--dry-run",
        ];
        args.extend(options.iter().map(String::as_str));
        let dry = sandbox.run(&args);
        let (plan, stderr) = text(&dry);
        assert_eq!(dry.status.code(), Some(0), "{sysbench}: {stderr}");
        assert!(
            plan.contains(&format!("estimate  {said} for ")),
            "{sysbench}: the note says {said}; the dry run:\n{plan}"
        );
    }
}

#[test]
fn the_0_4_distribution_becomes_the_rand_type() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&[
        "from-sysbench",
        "sysbench --test=oltp --oltp-dist-type=uniform --max-time=60 run",
    ]);
    let (stdout, _) = text(&output);
    assert!(stdout.contains("--rand-type uniform"), "{stdout}");
    assert!(!stdout.contains("--rand-type special"), "{stdout}");
    assert!(!stdout.contains("no abtest equivalent"), "{stdout}");
}

#[test]
fn every_password_form_is_masked() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&[
        "from-sysbench",
        "sysbench oltp_read_write --pgsql-password=SECRET1 --password=SECRET2 -pSECRET3 \
         --mysql-password SECRET4 --pgsql-password SECRET5 --mysql-password=SECRET6 run",
    ]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        !stdout.contains("SECRET") && !stderr.contains("SECRET"),
        "{stdout}{stderr}"
    );
    assert!(
        stdout.contains("--pgsql-password=…: a password, not copied"),
        "{stdout}"
    );
    assert!(stdout.contains("-p…: a password, not copied"), "{stdout}");
}

#[test]
fn garbage_in_a_log_is_refused_not_imported() {
    let sandbox = Sandbox::new();
    let good = std::fs::read_to_string(LOG_1_0).unwrap();
    for (name, from, to, needle) in [
        (
            "negative.log",
            "(1366.62",
            "(-1366.62",
            "reports TPS -1366.62",
        ),
        ("nan.log", "(1366.62 per", "(NaN per", "reports TPS NaN"),
        (
            "zero-threads.log",
            "Number of threads: 8",
            "Number of threads: 0",
            "thread count no run can have",
        ),
        (
            "huge-threads.log",
            "Number of threads: 8",
            "Number of threads: 18446744073709551616",
            "thread count no run can have",
        ),
    ] {
        assert!(good.contains(from), "the fixture has `{from}`");
        let bad = sandbox.write(name, &good.replacen(from, to, 1));
        let bad = bad.to_str().unwrap();
        let (output, csv) = import(&sandbox, &[bad, LOG_1_0], &[LOG_1_0, LOG_1_0]);
        let (_, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains(needle), "{name}: {stderr}");
        assert!(!csv.exists(), "{name}: nothing is written");
    }
    // `-o -` is stdout, not a file named `-`.
    let output = sandbox
        .abtest()
        .current_dir(sandbox.path(""))
        .args([
            "import-sysbench-log",
            "--baseline",
            &crate::support::repo().join(LOG_1_0).display().to_string(),
            "--variant",
            &crate::support::repo().join(LOG_1_0).display().to_string(),
            "-o",
            "-",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output).1);
    assert!(text(&output).0.starts_with("side,threads,round,tps"));
    assert!(!sandbox.path("-").exists());
}

#[test]
fn plan_rounds_refuses_what_no_run_can_decide() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&["plan-rounds", "--cv", "1e308%", "--effect", "1e-300%"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output).1.contains("between 0 % and 1000 %"),
        "{}",
        text(&output).1
    );
    let output = sandbox.run(&["plan-rounds", "--cv", "100%", "--effect", "1e-300%"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output)
            .1
            .contains("needs more than 10 million rounds per side"),
        "{}",
        text(&output).1
    );
}
