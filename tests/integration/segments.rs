//! A run split into segments (`--segment I/N --start-at`), each a separate abtest process
//! against the same two real servers, and `abtest merge`: the merged counts, histograms
//! and analysis equal what the segments recorded, computed by hand here; sets that do not
//! belong together are refused; and one segment of one is a plain run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant, SystemTime};

use base64::Engine as _;
use hdrhistogram::serialization::Deserializer;
use serde_json::Value;

use crate::support::{Sandbox, assert_valid_results, server_lock, start_server, text};

const SEGMENTS: u32 = 3;

/// The run every segment shares: 6 threads, so 2 per segment.
fn shared_args(profiles: &[String; 2]) -> Vec<&str> {
    vec![
        "--baseline",
        &profiles[0],
        "--variant",
        &profiles[1],
        "--workload",
        "oltp_point_select",
        "--threads",
        "6",
        "--rounds",
        "3",
        "--round-time",
        "1s",
        "--warmup",
        "500ms",
        "--rewarm",
        "300ms",
        "--table-size",
        "1000",
        "--seed",
        "42",
    ]
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn write(path: &Path, value: &Value) {
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

/// Latency counts by value of an encoded histogram.
fn counts(encoded: &str) -> BTreeMap<u64, u64> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap();
    let histogram: hdrhistogram::Histogram<u64> = Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .unwrap();
    histogram
        .iter_recorded()
        .map(|v| (v.value_iterated_to(), v.count_at_value()))
        .collect()
}

fn wait(child: &mut Child, log: &Path, limit: Duration) -> Option<i32> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!(
                "a segment did not finish within {limit:?}: {}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn merge(sandbox: &Sandbox, files: &[&PathBuf], extra: &[&str]) -> (Option<i32>, String) {
    let mut args: Vec<&str> = vec!["merge"];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    args.extend(extra);
    let output = sandbox.run(&args);
    let (stdout, stderr) = text(&output);
    (output.status.code(), stdout + &stderr)
}

#[test]
fn three_segments_merge_into_one_run_and_odd_sets_are_refused() {
    let _lock = server_lock();
    let servers = [(); 2].map(|_| start_server(&Default::default(), 8));
    let sandbox = Sandbox::new();
    let profiles =
        [0, 1].map(|i| servers[i].socket_profile(&sandbox, &format!("side-{i}.toml"), ""));
    let start_at =
        humantime::format_rfc3339_seconds(SystemTime::now() + Duration::from_secs(10)).to_string();
    let files: Vec<PathBuf> = (1..=SEGMENTS)
        .map(|i| sandbox.path(&format!("segment-{i}.json")))
        .collect();
    let mut children: Vec<(Child, PathBuf)> = (1..=SEGMENTS)
        .map(|i| {
            let log = sandbox.path(&format!("segment-{i}.log"));
            let segment = format!("{i}/{SEGMENTS}");
            let child = sandbox
                .abtest()
                .args(shared_args(&profiles))
                .args(["--segment", &segment, "--start-at", &start_at])
                .arg("--json")
                .arg(&files[i as usize - 1])
                .stderr(std::fs::File::create(&log).unwrap())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap();
            (child, log)
        })
        .collect();
    for (child, log) in &mut children {
        let code = wait(child, log, Duration::from_secs(120));
        let output = std::fs::read_to_string(&*log).unwrap();
        assert_eq!(code, Some(0), "{output}");
        assert!(output.contains("abtest merge"), "{output}");
    }
    let segments: Vec<Value> = files.iter().map(|f| read(f)).collect();
    for (i, segment) in segments.iter().enumerate() {
        assert_valid_results(segment);
        assert_eq!(segment["plan"]["segment"]["index"], i as u64 + 1);
        assert_eq!(segment["rounds"].as_array().unwrap().len(), 6);
        assert!(
            segment["verdict"].is_null(),
            "a segment's own verdict would be partial"
        );
        assert!(segment["rounds"][0]["start_offset_ms"].is_number());
    }

    let merged_path = sandbox.path("merged.json");
    let all: Vec<&PathBuf> = files.iter().collect();
    let (code, output) = merge(&sandbox, &all, &["--json", merged_path.to_str().unwrap()]);
    assert!(matches!(code, Some(0 | 3 | 4)), "{output}");
    let merged = read(&merged_path);
    assert_valid_results(&merged);
    assert!(merged["plan"]["segment"].is_null());
    let rounds = merged["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 6);
    let mut tps_by_side: BTreeMap<String, Vec<(u64, f64)>> = BTreeMap::new();
    for (n, round) in rounds.iter().enumerate() {
        let parts: Vec<&Value> = segments.iter().map(|s| &s["rounds"][n]).collect();
        assert!(parts.iter().all(|p| p["position"] == round["position"]));
        let sum = |key: &str| parts.iter().map(|p| p[key].as_u64().unwrap()).sum::<u64>();
        assert_eq!(round["transactions"].as_u64().unwrap(), sum("transactions"));
        assert_eq!(round["threads"], 6);
        // Every segment saw its own host's other processes; the merged round keeps none.
        assert!(
            parts
                .iter()
                .all(|p| p["host_load"]["other_cpu_pct"].is_number())
        );
        assert!(round["host_load"]["other_cpu_pct"].is_null());
        let tps: f64 = parts.iter().map(|p| p["tps"].as_f64().unwrap()).sum();
        assert!((round["tps"].as_f64().unwrap() - tps).abs() < 1e-6);
        // The merged histogram is every latency the segments recorded, nothing else.
        let mut expected: BTreeMap<u64, u64> = BTreeMap::new();
        for part in &parts {
            for (value, count) in counts(part["histogram"].as_str().unwrap()) {
                *expected.entry(value).or_default() += count;
            }
        }
        let merged_counts = counts(round["histogram"].as_str().unwrap());
        assert_eq!(merged_counts, expected);
        assert_eq!(merged_counts.values().sum::<u64>(), sum("transactions"));
        tps_by_side
            .entry(round["side"].as_str().unwrap().to_string())
            .or_default()
            .push((round["index"].as_u64().unwrap(), tps));
    }
    // The TPS change by hand, as the ABBA design is analysed: each block (rounds 2j and
    // 2j + 1 of each side) gives the log of the ratio of its side means, from the sums.
    let block_mean = |side: &str, block: u64| {
        let values: Vec<f64> = tps_by_side[side]
            .iter()
            .filter(|(index, _)| index / 2 == block)
            .map(|(_, tps)| *tps)
            .collect();
        values.iter().sum::<f64>() / values.len() as f64
    };
    let blocks = [0, 1].map(|b| (block_mean("variant", b) / block_mean("baseline", b)).ln());
    let by_hand = 100.0 * (((blocks[0] + blocks[1]) / 2.0).exp() - 1.0);
    let comparison = merged["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["metric"] == "tps")
        .unwrap();
    assert!(
        (comparison["change_pct"].as_f64().unwrap() - by_hand).abs() < 1e-9,
        "{comparison} vs {by_hand}"
    );
    let sources = merged["segments"].as_array().unwrap();
    assert_eq!(sources.len(), 3);
    let total: u64 = rounds
        .iter()
        .map(|r| r["transactions"].as_u64().unwrap())
        .sum();
    assert_eq!(
        sources
            .iter()
            .map(|s| s["transactions"].as_u64().unwrap())
            .sum::<u64>(),
        total
    );
    let report = sandbox.run(&[
        "report",
        merged_path.to_str().unwrap(),
        "--format",
        "markdown",
    ]);
    assert!(report.status.success(), "{:?}", text(&report));

    refuses_odd_sets(&sandbox, &files);
    late_start_is_refused(&sandbox, &profiles);
    one_segment_of_one_is_a_plain_run(&sandbox, &profiles);
}

fn refuses_odd_sets(sandbox: &Sandbox, files: &[PathBuf]) {
    let refused = |set: &[&PathBuf], needle: &str| {
        let (code, output) = merge(sandbox, set, &[]);
        assert_eq!(code, Some(2), "{output}");
        assert!(output.contains(needle), "`{needle}` not in: {output}");
    };
    refused(&[&files[0], &files[1]], "segment 3/3 is missing");
    refused(
        &[&files[0], &files[1], &files[1], &files[2]],
        "segment 2/3 is given twice",
    );

    let mut other_plan = read(&files[2]);
    other_plan["plan"]["schedule"]["round_time"] = serde_json::json!(2.0);
    let other_plan_file = sandbox.path("other-plan.json");
    write(&other_plan_file, &other_plan);
    refused(
        &[&files[0], &files[1], &other_plan_file],
        "the plans differ at plan.schedule.round_time",
    );

    let mut other_seed = read(&files[2]);
    other_seed["plan"]["seed"] = serde_json::json!(43);
    let other_seed_file = sandbox.path("other-seed.json");
    write(&other_seed_file, &other_seed);
    refused(&[&files[0], &files[1], &other_seed_file], "plan.seed");

    let mut skewed = read(&files[1]);
    let started = skewed["rounds"][2]["started_at"]
        .as_str()
        .unwrap()
        .to_string();
    let later = humantime::parse_rfc3339_weak(&started).unwrap() + Duration::from_secs(2);
    skewed["rounds"][2]["started_at"] =
        Value::String(humantime::format_rfc3339_millis(later).to_string());
    let skewed_file = sandbox.path("skewed.json");
    write(&skewed_file, &skewed);
    refused(&[&files[0], &skewed_file, &files[2]], "segment 2 (");
    let (_, output) = merge(sandbox, &[&files[0], &skewed_file, &files[2]], &[]);
    assert!(output.contains("guard gap"), "{output}");
}

fn late_start_is_refused(sandbox: &Sandbox, profiles: &[String; 2]) {
    let past =
        humantime::format_rfc3339_seconds(SystemTime::now() - Duration::from_secs(60)).to_string();
    let json = sandbox.path("late.json");
    let output = sandbox.run(
        &[
            shared_args(profiles),
            vec![
                "--segment",
                "2/3",
                "--start-at",
                &past,
                "--json",
                json.to_str().unwrap(),
            ],
        ]
        .concat(),
    );
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stdout}{stderr}");
    assert!(stderr.contains("later --start-at"), "{stderr}");
}

/// Everything a results file holds, as key paths (array items folded).
fn shape(value: &Value, path: &str, out: &mut std::collections::BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                let here = format!("{path}.{key}");
                out.insert(here.clone());
                shape(item, &here, out);
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|item| shape(item, &format!("{path}[]"), out)),
        _ => {}
    }
}

fn one_segment_of_one_is_a_plain_run(sandbox: &Sandbox, profiles: &[String; 2]) {
    let run = |extra: &[&str], name: &str| {
        let json = sandbox.path(name);
        let output = sandbox.run(
            &[
                shared_args(profiles),
                extra.to_vec(),
                vec!["--json", json.to_str().unwrap()],
            ]
            .concat(),
        );
        let (stdout, stderr) = text(&output);
        assert!(
            matches!(output.status.code(), Some(0 | 3 | 4)),
            "{stdout}{stderr}"
        );
        read(&json)
    };
    let plain = run(&[], "plain.json");
    let single = run(&["--segment", "1/1"], "single.json");
    let (mut a, mut b) = (Default::default(), Default::default());
    shape(&plain, "", &mut a);
    shape(&single, "", &mut b);
    let only_single: Vec<&String> = b.difference(&a).collect();
    let only_plain: Vec<&String> = a.difference(&b).collect();
    assert!(only_plain.is_empty(), "{only_plain:?}");
    assert!(
        only_single
            .iter()
            .all(|k| k.starts_with(".plan.segment") || k == &".rounds[].start_offset_ms"),
        "{only_single:?}"
    );
    let order = |v: &Value| -> Vec<(Value, Value, Value)> {
        v["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["side"].clone(),
                    r["threads"].clone(),
                    r["position"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(order(&plain), order(&single));
    let plan = |v: &Value| {
        let mut plan = v["plan"].clone();
        let map = plan.as_object_mut().unwrap();
        map.remove("segment");
        map.remove("outputs");
        map.remove("command_line");
        plan
    };
    assert_eq!(plan(&plain), plan(&single));
    assert!(!single["comparisons"].as_array().unwrap().is_empty());
}

/// Three network namespaces on a bridge stand in for three client hosts; the servers
/// listen on the bridge's address only. Everything is removed on drop.
struct Hosts {
    bridge: String,
    namespaces: Vec<String>,
}

const BRIDGE_IP: &str = "10.201.0.1";

fn ip(args: &[&str]) -> bool {
    std::process::Command::new("ip")
        .args(args)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

impl Hosts {
    /// The namespaces, or none where `ip netns` cannot make them.
    fn create(count: u32) -> Option<Hosts> {
        let tag = std::process::id() % 10_000;
        let hosts = Hosts {
            bridge: format!("abtbr{tag}"),
            namespaces: (1..=count)
                .map(|i| format!("abtest-seg{tag}-{i}"))
                .collect(),
        };
        let ok = ip(&["link", "add", &hosts.bridge, "type", "bridge"])
            && ip(&[
                "addr",
                "add",
                &format!("{BRIDGE_IP}/24"),
                "dev",
                &hosts.bridge,
            ])
            && ip(&["link", "set", &hosts.bridge, "up"])
            && hosts.namespaces.iter().enumerate().all(|(i, ns)| {
                let (outer, inner) = (format!("abtv{tag}{i}"), format!("abtp{tag}{i}"));
                let address = format!("10.201.0.{}/24", 11 + i);
                ip(&["netns", "add", ns])
                    && ip(&[
                        "link", "add", &outer, "type", "veth", "peer", "name", &inner,
                    ])
                    && ip(&["link", "set", &outer, "master", &hosts.bridge, "up"])
                    && ip(&["link", "set", &inner, "netns", ns])
                    && ip(&["-n", ns, "addr", "add", &address, "dev", &inner])
                    && ip(&["-n", ns, "link", "set", &inner, "up"])
                    && ip(&["-n", ns, "link", "set", "lo", "up"])
            });
        ok.then_some(hosts)
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        for ns in &self.namespaces {
            ip(&["netns", "del", ns]);
        }
        ip(&["link", "del", &self.bridge]);
    }
}

/// A MariaDB server listening on the bridge address only, with one password account
/// for the namespaces' addresses; stopped and removed on drop.
struct BridgeServer {
    child: Child,
    /// Removed when dropped, after the server stopped.
    _dir: tempfile::TempDir,
    port: u16,
}

impl BridgeServer {
    fn start(password: &str) -> BridgeServer {
        let dir = tempfile::Builder::new()
            .prefix("abtest-bridge-")
            .tempdir()
            .unwrap();
        let data = dir.path().join("data");
        let socket = dir.path().join("sock");
        let installed = std::process::Command::new("mariadb-install-db")
            .args(["--no-defaults", "--user=root", "--skip-test-db"])
            .arg(format!("--datadir={}", data.display()))
            .output()
            .unwrap();
        assert!(installed.status.success(), "{installed:?}");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = std::process::Command::new("mariadbd")
            .args(["--no-defaults", "--user=root", "--skip-name-resolve"])
            .arg(format!("--datadir={}", data.display()))
            .arg(format!("--socket={}", socket.display()))
            .arg(format!("--bind-address={BRIDGE_IP}"))
            .arg(format!("--port={port}"))
            .arg(format!(
                "--log-error={}",
                dir.path().join("error.log").display()
            ))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let server = BridgeServer {
            child,
            _dir: dir,
            port,
        };
        let sql = format!(
            "CREATE DATABASE sbtest; CREATE USER seg@'10.201.0.%' IDENTIFIED BY '{password}'; \
             GRANT ALL ON sbtest.* TO seg@'10.201.0.%';"
        );
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let done = std::process::Command::new("mariadb")
                .args(["--no-defaults", "-uroot"])
                .arg(format!("--socket={}", socket.display()))
                .args(["-e", &sql])
                .output()
                .unwrap();
            if done.status.success() {
                return server;
            }
            assert!(Instant::now() < deadline, "the bridge server did not start");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn profile(&self, sandbox: &Sandbox, name: &str) -> String {
        sandbox
            .write(
                name,
                &format!(
                    "[connection]\nhost = \"{BRIDGE_IP}\"\nport = {}\nuser = \"seg\"\n\
                     password_env = \"SEG_PASSWORD\"\ndatabase = \"sbtest\"\n",
                    self.port
                ),
            )
            .display()
            .to_string()
    }
}

impl Drop for BridgeServer {
    fn drop(&mut self) {
        // SAFETY: kill(2) on the server this test started.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

#[test]
fn segments_in_three_network_namespaces_merge_like_local_ones() {
    let _lock = server_lock();
    let Some(hosts) = Hosts::create(SEGMENTS) else {
        eprintln!("ip netns is not available here: the namespace variant is skipped");
        return;
    };
    let password = format!("seg-{:x}", std::process::id() ^ 0x5eed_cafe);
    let servers = [
        BridgeServer::start(&password),
        BridgeServer::start(&password),
    ];
    let sandbox = Sandbox::new();
    let profiles = [0, 1].map(|i| servers[i].profile(&sandbox, &format!("side-{i}.toml")));
    let start_at =
        humantime::format_rfc3339_seconds(SystemTime::now() + Duration::from_secs(10)).to_string();
    let files: Vec<PathBuf> = (1..=SEGMENTS)
        .map(|i| sandbox.path(&format!("ns-segment-{i}.json")))
        .collect();
    let tmp = sandbox.path("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut children: Vec<(Child, PathBuf)> = hosts
        .namespaces
        .iter()
        .enumerate()
        .map(|(i, ns)| {
            let log = sandbox.path(&format!("ns-segment-{}.log", i + 1));
            let segment = format!("{}/{SEGMENTS}", i + 1);
            let child = std::process::Command::new("ip")
                .args(["netns", "exec", ns, env!("CARGO_BIN_EXE_abtest")])
                .args(shared_args(&profiles))
                .args(["--segment", &segment, "--start-at", &start_at])
                .arg("--json")
                .arg(&files[i])
                .env("SEG_PASSWORD", &password)
                .env("TMPDIR", &tmp)
                .current_dir(crate::support::repo())
                .stderr(std::fs::File::create(&log).unwrap())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap();
            (child, log)
        })
        .collect();
    for (child, log) in &mut children {
        let code = wait(child, log, Duration::from_secs(120));
        assert_eq!(code, Some(0), "{}", std::fs::read_to_string(&*log).unwrap());
    }
    // Each segment reached the servers from its own namespace's address only.
    for (i, file) in files.iter().enumerate() {
        let segment = read(file);
        assert_eq!(segment["rounds"].as_array().unwrap().len(), 6);
        let log =
            std::fs::read_to_string(sandbox.path(&format!("ns-segment-{}.log", i + 1))).unwrap();
        assert!(
            !log.contains(&password),
            "the password leaked into the output"
        );
    }
    let merged_path = sandbox.path("ns-merged.json");
    let all: Vec<&PathBuf> = files.iter().collect();
    let (code, output) = merge(&sandbox, &all, &["--json", merged_path.to_str().unwrap()]);
    assert!(matches!(code, Some(0 | 3 | 4)), "{output}");
    let merged = read(&merged_path);
    assert_valid_results(&merged);
    let segments: Vec<Value> = files.iter().map(|f| read(f)).collect();
    for (n, round) in merged["rounds"].as_array().unwrap().iter().enumerate() {
        let sum: u64 = segments
            .iter()
            .map(|s| s["rounds"][n]["transactions"].as_u64().unwrap())
            .sum();
        assert_eq!(round["transactions"].as_u64().unwrap(), sum);
    }
    drop(hosts);
}

#[test]
fn a_segment_already_late_is_refused_before_anything_is_written() {
    let sandbox = crate::support::Sandbox::new();
    let profile = sandbox.write(
        "external.toml",
        "[connection]\nhost = \"127.0.0.1\"\nport = 3306\nuser = \"sb\"\ndatabase = \"sbtest\"\n",
    );
    let json = sandbox.path("segment.json");
    for dry in [true, false] {
        let mut args = vec![
            "--baseline",
            profile.to_str().unwrap(),
            "--variant",
            profile.to_str().unwrap(),
            "--segment",
            "1/2",
            "--start-at",
            "2000-01-01T00:00:00Z",
            "--seed",
            "1",
            "--json",
            json.to_str().unwrap(),
        ];
        if dry {
            args.push("--dry-run");
        }
        let output = sandbox.run(&args);
        let (_, stderr) = crate::support::text(&output);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("the first round was due at 2000-01-01"),
            "{stderr}"
        );
        assert!(!json.exists(), "nothing is written");
    }
}
