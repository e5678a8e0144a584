//! The plan in words, for `--dry-run`: what each side is (for a managed server, its
//! command line as it will run), the workload, the schedule and its order, the analysis
//! and the estimate, so a reviewer can check a run before it costs an hour.

use std::time::Duration;

use super::{AA_NOTICE, Plan, SidePlan, TargetSpec};
use crate::server::defaults_file::FileOption;
use crate::stats::sequential::Until;

impl Plan {
    /// Human-readable plan for `--dry-run`: a line (or a few) per part; `servers` says
    /// whether the managed sides share one server (the server's answer, when it took one).
    pub(crate) fn describe(&self, servers: Option<&str>) -> String {
        let mut out: String = self.sides.iter().map(|s| self.side_lines(s)).collect();
        let lines = [
            servers.map(String::from),
            self.is_aa().then(|| format!("notice    {AA_NOTICE}")),
            Some(format!("workload  {}", self.workload.describe())),
            self.classes_line(),
            Some(self.schedule_line()),
            self.instances_line(),
            Some(self.client_line()),
            self.placement_line(),
            self.segment_line(),
            (!self.client.check_only).then(|| self.order_line()),
            Some(format!("analysis  {}", self.analysis.describe())),
            self.looks_line(),
            Some(self.estimate_line()),
        ];
        for line in lines.into_iter().flatten() {
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    fn side_lines(&self, side: &SidePlan) -> String {
        format!(
            "{:<9} {} ({})\n          {}\n",
            side.side.as_str(),
            side.name,
            side.profile.display(),
            describe_target(side, self.max_threads())
        )
    }

    fn schedule_line(&self) -> String {
        let s = &self.schedule;
        if self.client.check_only {
            return "schedule  no timed round (--check-only): the answers are compared, the \
                    writes counted and skipped"
                .to_string();
        }
        let mut line = format!(
            "schedule  threads {:?}, {} rounds per side, {} order, warm-up {}, round {}, pause {}",
            s.levels,
            s.rounds,
            s.order.as_str(),
            humantime::format_duration(s.warmup),
            humantime::format_duration(s.round_time),
            humantime::format_duration(s.pause),
        );
        if self.if_separate.is_some() {
            line.push_str(&format!(
                "\n          (the defaults on one server for what is not given: {}; short \
                 rounds leave less drift between the sides' rounds; --rounds, --round-time \
                 and --rewarm override them)",
                crate::schedule::RoundDefaults::Shared.summary()
            ));
        }
        line
    }

    fn instances_line(&self) -> Option<String> {
        let s = &self.schedule;
        (s.instances > 1).then(|| {
            format!(
                "instances {} per side and level: fresh servers from the prepared data every {} \
                 round pairs; compared on instance means",
                s.instances,
                s.rounds.div_ceil(s.instances)
            )
        })
    }

    fn client_line(&self) -> String {
        let connections = match self.schedule.rewarm {
            Some(rewarm) => format!(
                "client    connections kept between a side's rounds; later rounds re-warm {}",
                humantime::format_duration(rewarm)
            ),
            None => "client    connections opened for every round".to_string(),
        };
        let mut line = match self.client.rate {
            Some(rate) => format!("{connections}; open loop at {rate:.1} transactions/s"),
            None => connections,
        };
        if let Some(budget) = self.client.class_timing {
            line.push_str(&format!(
                "; before the rounds every read query class timed on both sides on idle \
                 servers, within about {}",
                humantime::format_duration(budget)
            ));
        }
        line
    }

    fn placement_line(&self) -> Option<String> {
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
        (!placement.is_empty()).then(|| format!("cpus      {}", placement.join(", ")))
    }

    fn segment_line(&self) -> Option<String> {
        let segment = self.segment.as_ref()?;
        let levels = &self.schedule.levels;
        let shares: Vec<u32> = levels.iter().map(|&l| segment.share(l).count).collect();
        Some(format!(
            "segment   {} of {}: threads {shares:?} of {levels:?}; first round at {}, guard gap {} \
             after every round",
            segment.index,
            segment.count,
            segment.start_at.as_deref().unwrap_or("once ready"),
            humantime::format_duration(segment.guard)
        ))
    }

    fn order_line(&self) -> String {
        let order: String = self
            .schedule
            .slots(self.seed)
            .iter()
            .map(|slot| slot.side.letter())
            .collect();
        format!("order     {order} (seed {})", self.seed)
    }

    fn looks_line(&self) -> Option<String> {
        let sequential = self.sequential.as_ref()?;
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
        Some(format!(
            "looks     at {} rounds per side (budget {}); stop when {until}",
            looks.join(", "),
            humantime::format_duration(sequential.max_time)
        ))
    }

    fn estimate_line(&self) -> String {
        let s = &self.schedule;
        let timing = match self.client.class_timing {
            Some(budget) => format!(
                " about {} of class timing (cut short past {}),",
                humantime::format_duration(budget),
                humantime::format_duration(budget * super::CLASS_TIMING_OVERRUN)
            ),
            None => String::new(),
        };
        if self.client.check_only {
            return format!(
                "estimate  no timed round (--check-only): the answers check,{timing} server \
                 start and data preparation"
            );
        }
        format!(
            "estimate  {} for {} rounds, plus{timing} server start and data preparation",
            humantime::format_duration(round_secs(s.estimated_time())),
            s.total_rounds()
        )
    }

    /// A workload file's query classes, numbered as `--exclude-class` and
    /// `--only-class` take them.
    fn classes_line(&self) -> Option<String> {
        let file = self.workload.file()?;
        let classes = crate::workload::class_filter::numbered(file);
        let how = if self.class_numbers.is_empty() {
            "query class(es), numbered for --exclude-class/--only-class"
        } else {
            "of the file's query classes (--exclude-class/--only-class chose them), numbered as \
             in the file"
        };
        Some(format!(
            "classes   {} {how}:\n{}",
            classes.len(),
            crate::workload::class_filter::numbered_listing(&classes, &self.class_numbers)
        ))
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
                for option in file.options.iter().map(FileOption::shown) {
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
        } => format!(
            "external {user}@{endpoint}/{database} (client TLS {tls})\n          \
             not connected by the dry run: `abtest check` logs in and reads the grants"
        ),
    }
}
