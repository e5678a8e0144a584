//! The plan in words, for `--dry-run`: what each side is (for a managed server, its
//! command line as it will run), the workload, the schedule and its order, the analysis
//! and the estimate, so a reviewer can check a run before it costs an hour.

use std::time::Duration;

use super::{AA_NOTICE, Plan, SidePlan, TargetSpec};
use crate::stats::sequential::Until;

impl Plan {
    /// Human-readable plan for `--dry-run`.
    pub(crate) fn describe(&self) -> String {
        let mut out = String::new();
        for side in &self.sides {
            out.push_str(&format!(
                "{:<9} {} ({})\n          {}\n",
                side.side.as_str(),
                side.name,
                side.profile.display(),
                describe_target(
                    side,
                    self.schedule.levels.iter().copied().max().unwrap_or(1)
                )
            ));
        }
        if self.is_aa() {
            out.push_str(&format!("notice    {AA_NOTICE}\n"));
        }
        let s = &self.schedule;
        out.push_str(&format!("workload  {}\n", self.workload.describe()));
        out.push_str(&format!(
            "schedule  threads {:?}, {} rounds per side, {} order, warm-up {}, round {}, pause {}\n",
            s.levels,
            s.rounds,
            s.order.as_str(),
            humantime::format_duration(s.warmup),
            humantime::format_duration(s.round_time),
            humantime::format_duration(s.pause),
        ));
        if s.instances > 1 {
            out.push_str(&format!(
                "instances {} per side and level: fresh servers from the prepared data every {} round pairs; compared on instance means\n",
                s.instances,
                s.rounds.div_ceil(s.instances)
            ));
        }
        out.push_str(&match s.rewarm {
            Some(rewarm) => format!(
                "client    connections kept between a side's rounds; later rounds re-warm {}\n",
                humantime::format_duration(rewarm)
            ),
            None => "client    connections opened for every round\n".to_string(),
        });
        let servers = self.sides.iter().filter_map(|side| {
            side.cpus
                .as_ref()
                .map(|cpus| format!("{} server on CPU {cpus}", side.side))
        });
        let placement: Vec<String> = self
            .client
            .cpus
            .iter()
            .map(|cpus| format!("client threads on CPU {cpus}"))
            .chain(servers)
            .collect();
        if !placement.is_empty() {
            out.push_str(&format!("cpus      {}\n", placement.join(", ")));
        }
        if let Some(segment) = &self.segment {
            let shares: Vec<u32> = s.levels.iter().map(|&l| segment.share(l).count).collect();
            out.push_str(&format!(
                "segment   {} of {}: threads {shares:?} of {:?}; first round at {}, guard gap {} after every round\n",
                segment.index,
                segment.count,
                s.levels,
                segment.start_at.as_deref().unwrap_or("once ready"),
                humantime::format_duration(segment.guard)
            ));
        }
        let order: String = s
            .slots(self.seed)
            .iter()
            .map(|slot| slot.side.letter())
            .collect();
        out.push_str(&format!("order     {order} (seed {})\n", self.seed));
        out.push_str(&format!("analysis  {}\n", self.analysis.describe()));
        if let Some(sequential) = &self.sequential {
            let looks: Vec<String> = sequential
                .design
                .rounds
                .iter()
                .map(u32::to_string)
                .collect();
            let until = match sequential.until {
                Until::Decided => "every tolerance is GO or NO-GO".to_string(),
                Until::Precision(h) => format!("the TPS interval is within ±{h} %"),
            };
            out.push_str(&format!(
                "looks     at {} rounds per side (budget {}); stop when {until}\n",
                looks.join(", "),
                humantime::format_duration(sequential.max_time)
            ));
        }
        out.push_str(&format!(
            "estimate  {} for {} rounds, plus server start and data preparation\n",
            humantime::format_duration(round_secs(s.estimated_time())),
            s.total_rounds()
        ));
        out
    }
}

fn round_secs(duration: Duration) -> Duration {
    Duration::from_secs(duration.as_secs())
}

/// A side's server for the dry run: where it is, and for a managed one the full command
/// line it starts with and what became of each option of its defaults file.
fn describe_target(side: &SidePlan, max_threads: u32) -> String {
    let tls = serde_json::to_value(side.client.tls).unwrap_or_default();
    let tls = tls.as_str().unwrap_or("?");
    match &side.target {
        TargetSpec::Managed { defaults_file, .. } => {
            let command = side
                .server_launch(max_threads)
                .map(|launch| crate::server::command_line::preview(&launch))
                .unwrap_or_default();
            let mut out =
                format!("managed server (client TLS {tls}), started as\n          {command}");
            if let Some(file) = defaults_file {
                out.push_str(&format!(
                    "\n          defaults file {}:",
                    file.path.display()
                ));
                for option in &file.options {
                    let written = match &option.value {
                        Some(value) => format!("{}={value}", option.name),
                        None => option.name.clone(),
                    };
                    out.push_str(&format!(
                        "\n            {written}: {}",
                        option.treatment.as_str()
                    ));
                }
            }
            out
        }
        TargetSpec::External {
            endpoint,
            user,
            database,
            ..
        } => format!("external {user}@{endpoint}/{database} (client TLS {tls})"),
    }
}
