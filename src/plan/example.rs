//! Plans for tests: complete, valid, and against servers nobody connects to, so a test
//! changes only what it is about.

use std::path::PathBuf;
use std::time::Duration;

use super::{ClientOptions, Outputs, Plan, SidePlan, TargetSpec};
use crate::analysis::AnalysisOptions;
use crate::db::{ClientSpec, Endpoint, errors::IgnoreErrors};
use crate::profile::Hooks;
use crate::schedule::{Connections, LevelOrder, RoundOrder, Schedule};
use crate::server::OnServerLoss;
use crate::side::Side;
use crate::thread_policy::ClientSched;
use crate::workload::{WorkloadName, WorkloadSpec};

/// A plan of `rounds` rounds per side at `levels`, in ABBA order, against two external
/// servers nobody connects to.
pub(crate) fn external(rounds: u32, levels: &[u32]) -> Plan {
    let side = |side: Side| SidePlan {
        side,
        name: side.to_string(),
        profile: PathBuf::from(format!("{side}.toml")),
        target: TargetSpec::External {
            endpoint: Endpoint::Tcp {
                host: "127.0.0.1".into(),
                port: 1,
            },
            user: "nobody".into(),
            password: None,
            database: "sbtest".into(),
        },
        client: ClientSpec::default(),
        hooks: Hooks::default(),
        cpus: None,
        password_file: None,
    };
    Plan {
        sides: [side(Side::Baseline), side(Side::Variant)],
        workload: WorkloadSpec::sysbench(WorkloadName::OltpPointSelect),
        schedule: Schedule {
            levels: levels.to_vec(),
            rounds,
            round_time: Duration::from_secs(1),
            warmup: Duration::ZERO,
            rewarm: None,
            pause: Duration::ZERO,
            order: RoundOrder::Abba,
            level_order: LevelOrder::Asc,
            instances: 1,
            swap: false,
        },
        client: ClientOptions {
            rate: None,
            ignore_errors: IgnoreErrors::default(),
            on_server_loss: OnServerLoss::Fail,
            query_timeout: None,
            report_interval: None,
            client_sched: ClientSched::Batch,
            freeze_idle: false,
            connections: Connections::Persistent,
            cpus: None,
            check_results: 0,
            check_all: false,
            check_order: false,
            continue_after_differences: false,
            check_only: false,
            class_timing: None,
        },
        analysis: AnalysisOptions::default(),
        seed: 1,
        outputs: Outputs::default(),
        allow_foreign_tables: false,
        allow_writes: false,
        restore_data: true,
        sequential: None,
        segment: None,
        command_line: String::new(),
        servers: super::ServerMode::Auto,
        warnings: Vec::new(),
        class_numbers: Vec::new(),
        if_separate: None,
    }
}

/// The same plan against two managed servers of the system install, set up alike.
pub(crate) fn managed(rounds: u32, levels: &[u32]) -> Plan {
    let mut plan = external(rounds, levels);
    for side in &mut plan.sides {
        side.target = TargetSpec::Managed {
            binary: PathBuf::from("/usr/sbin/mariadbd"),
            tree: None,
            options: Default::default(),
            redirects: Default::default(),
            defaults_file: None,
        };
    }
    plan
}
