//! Every check of a plan that needs no server, in one place, run on a plan from the
//! command line and on one read back from a results file (`--resume`, `merge`): a file
//! that parses is not yet a plan that can run, and what a run cannot do must be refused
//! before it starts, not found in its middle.

use super::{ClientOptions, MAX_ROUND_PART, MAX_ROUNDS, MAX_THREADS, Plan, SidePlan, TargetSpec};
use crate::exit::UsageError;
use crate::schedule::Schedule;
use crate::workload::WorkloadSpec;

/// The most rounds of a whole plan (both sides, every level): the schedule is held as
/// one list of rounds, and a week of one-second rounds stays below it.
const MAX_PLANNED_ROUNDS: u64 = 1_000_000;

/// The rounds of a whole plan of `levels` thread levels with `rounds` rounds per side.
fn planned_rounds(levels: usize, rounds: u32) -> u64 {
    2 * levels as u64 * u64::from(rounds)
}

impl Plan {
    /// Refuses a plan that could not run as planned (exit 2, naming the flag to change).
    pub(crate) fn validate(&self) -> anyhow::Result<()> {
        check_shape(self)?;
        let sequential = self.sequential.is_some();
        check_instances(&self.schedule, &self.sides, sequential)?;
        check_swap(&self.schedule, &self.sides, sequential)?;
        check_captured_writes(
            &self.workload,
            &self.sides,
            self.allow_writes || self.client.check_only,
        )?;
        check_answers_can_be_compared(&self.workload, &self.client)?;
        check_classes_can_be_timed(self)?;
        super::arrangement::check_shared(self)?;
        Ok(())
    }

    /// Refuses a plan read back from a results file that does not hold together, before
    /// its schedule is laid out (an edited round count would otherwise allocate first).
    pub(crate) fn check_saved(&self) -> anyhow::Result<()> {
        check_shape(self)
    }
}

/// What a plan from any source must be for the code that runs it: a workload whose
/// settings sysbench would take, thread levels, rounds and round parts within what
/// abtest plans, looks inside the rounds, an α it can use. The flags are checked with
/// their own words when they are read; this catches a results file that parses but
/// does not hold together.
fn check_shape(plan: &Plan) -> anyhow::Result<()> {
    plan.workload.validate()?;
    let s = &plan.schedule;
    if s.levels.is_empty() || s.levels.iter().any(|&t| t == 0 || t > MAX_THREADS) {
        return Err(UsageError::err(format!(
            "thread levels {:?} are not between 1 and {MAX_THREADS}",
            s.levels
        )));
    }
    if s.rounds == 0 || s.rounds > MAX_ROUNDS {
        return Err(UsageError::err(format!(
            "{} rounds per side is not between 1 and {MAX_ROUNDS}",
            s.rounds
        )));
    }
    let planned = planned_rounds(s.levels.len(), s.rounds);
    if planned > MAX_PLANNED_ROUNDS {
        return Err(UsageError::err(format!(
            "{} thread levels of {} rounds per side make {planned} rounds, more than abtest \
             plans ({MAX_PLANNED_ROUNDS}); give fewer --threads levels, fewer --rounds or a \
             shorter --max-time",
            s.levels.len(),
            s.rounds
        )));
    }
    let parts = [
        s.round_time,
        s.warmup,
        s.pause,
        s.rewarm.unwrap_or_default(),
    ];
    if s.round_time.is_zero() || parts.iter().any(|p| *p > MAX_ROUND_PART) {
        return Err(UsageError::err(
            "a round's time is zero, or a round part is longer than a day",
        ));
    }
    if !(plan.analysis.alpha > 0.0 && plan.analysis.alpha < 0.5) {
        return Err(UsageError::err(format!(
            "alpha {} is not between 0 and 0.5",
            plan.analysis.alpha
        )));
    }
    if let Some(sequential) = &plan.sequential {
        let looks = &sequential.design.rounds;
        let increasing = looks.windows(2).all(|w| w[0] < w[1]);
        if looks.is_empty() || !increasing || looks.iter().any(|&r| r == 0 || r > s.rounds) {
            return Err(UsageError::err(format!(
                "the looks at {looks:?} rounds are not increasing within the {} rounds per side",
                s.rounds
            )));
        }
    }
    Ok(())
}

/// `--instances K` restarts managed servers between blocks of rounds; each block needs
/// two rounds per side for a variance within it.
fn check_instances(
    schedule: &Schedule,
    sides: &[SidePlan; 2],
    sequential: bool,
) -> anyhow::Result<()> {
    let k = schedule.instances;
    if k < 2 {
        return Ok(());
    }
    if let Some(side) = sides
        .iter()
        .find(|s| matches!(s.target, TargetSpec::External { .. }))
    {
        return Err(UsageError::err(format!(
            "--instances {k}: the {} side ({}) is an external server, which abtest cannot restart; \
             fresh instances need managed [server] sides. For external servers, run `abtest calibrate` \
             on the pair first (see \"Instance effects\" in README)",
            side.side,
            side.profile.display()
        )));
    }
    if schedule.rounds < 2 * k {
        return Err(UsageError::err(format!(
            "--instances {k} needs at least {} rounds per side (2 per instance), the plan has {}; \
             raise --rounds or --max-time, or lower --instances",
            2 * k,
            schedule.rounds
        )));
    }
    if sequential {
        return Err(UsageError::err(format!(
            "--instances {k} with --until: looks inside an instance block would judge an unfinished \
             instance; give --max-time without --until"
        )));
    }
    Ok(())
}

/// `--swap` moves each side's settings to the other server through its hooks: that
/// needs two external servers, and settings that hooks make.
fn check_swap(schedule: &Schedule, sides: &[SidePlan; 2], sequential: bool) -> anyhow::Result<()> {
    if !schedule.swap {
        return Ok(());
    }
    let refuse = |why: &str| Err(UsageError::err(format!("--swap: {why}")));
    if sides
        .iter()
        .any(|s| !matches!(s.target, TargetSpec::External { .. }))
    {
        return refuse(
            "both sides must be external [connection] servers; managed servers are fresh \
             instances already (see --instances)",
        );
    }
    if super::one_external_server(sides) {
        return refuse("both sides are the same server; there is nothing to swap");
    }
    if sides.iter().all(|s| s.hooks.setup.is_empty()) {
        return refuse(
            "neither profile has setup hooks; --swap exchanges the settings the hooks make \
             (SET GLOBAL, INSTALL SONAME), so the change must be written as hooks",
        );
    }
    let client = |s: &SidePlan| (s.client.tls, s.client.session.clone());
    if client(&sides[0]) != client(&sides[1]) {
        return refuse(
            "the profiles' [connection] tls or [session] settings differ; --swap moves only \
             what the hooks set, so those would stay with the servers and be mixed up with the \
             change: make them the same, or write the difference as hooks",
        );
    }
    if schedule.rounds < 4 || schedule.instances > 1 || sequential {
        return refuse("needs at least 4 rounds per side, and neither --instances nor --until");
    }
    Ok(())
}

/// `--check-results N` compares the answers of the workload's reads; a workload without
/// a read has nothing to compare, and a check that compared nothing must never pass for
/// one that found no difference.
fn check_answers_can_be_compared(
    workload: &WorkloadSpec,
    client: &ClientOptions,
) -> anyhow::Result<()> {
    let n = client.check_results;
    if client.check_all && workload.file().is_none() {
        return Err(UsageError::err(format!(
            "--check-results all compares every captured value of a workload file; the \
             built-in workload {} has none: give a number (--check-results 200)",
            workload.name()
        )));
    }
    let one = crate::workload::check_sample::Coverage::Spread(1);
    if n == 0 || !crate::workload::session::sample_reads(workload, 0, one).is_empty() {
        return Ok(());
    }
    let shown = if client.check_all {
        "all".to_string()
    } else {
        n.to_string()
    };
    Err(UsageError::err(format!(
        "--check-results {shown}: the workload {} has no read statement whose answers could be \
         compared; drop --check-results, or check the answers with a workload that reads \
         (such as oltp_read_only)",
        workload.name()
    )))
}

/// `--class-timing` times the workload's read classes on two servers at once; one server
/// set apart by hooks has one side at a time, and a workload without reads has nothing
/// to time. A zero budget times nothing.
fn check_classes_can_be_timed(plan: &Plan) -> anyhow::Result<()> {
    let Some(budget) = plan.client.class_timing else {
        return Ok(());
    };
    let why = if budget.is_zero() {
        "needs a budget longer than zero, such as --class-timing 2m"
    } else if super::one_external_server(&plan.sides) {
        "times both sides pair by pair on two servers; both profiles name one server, whose \
         sides differ only by their hooks: give each side its own server, or drop \
         --class-timing and --max-class-slowdown"
    } else if crate::workload::session::sample_reads(
        &plan.workload,
        0,
        crate::workload::check_sample::Coverage::Spread(1),
    )
    .is_empty()
    {
        "has no read statement to time in this workload (such as oltp_write_only); use a \
         workload that reads"
    } else {
        return Ok(());
    };
    Err(UsageError::err(format!("--class-timing {why}")))
}

/// A captured workload that writes changes an external server's data: that needs
/// `--allow-writes`. Managed servers are thrown away, so they need nothing.
fn check_captured_writes(
    workload: &WorkloadSpec,
    sides: &[SidePlan; 2],
    allowed: bool,
) -> anyhow::Result<()> {
    let writes = workload.file().is_some_and(|c| c.writes);
    let external = sides
        .iter()
        .find(|s| matches!(s.target, TargetSpec::External { .. }));
    match external {
        Some(side) if writes && !allowed => Err(UsageError::err(format!(
            "the workload file is marked `writes = true` (a captured mix with INSERT/UPDATE/DELETE) \
             and the {} side ({}) is an external server: its data would change. Replay on managed \
             servers, on a copy, or add --allow-writes",
            side.side,
            side.profile.display()
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::plan::example;
    use crate::profile::TlsMode;
    use crate::workload::WorkloadName;
    use crate::workload::custom::CustomWorkload;

    fn refusal(plan: &Plan) -> String {
        format!("{:#}", plan.validate().expect_err("refused"))
    }

    fn managed() -> TargetSpec {
        TargetSpec::Managed {
            binary: "/usr/sbin/mariadbd".into(),
            tree: None,
            options: BTreeMap::new(),
            redirects: BTreeMap::new(),
            defaults_file: None,
        }
    }

    fn swap_plan() -> Plan {
        let mut plan = example::external(4, &[8]);
        plan.schedule.swap = true;
        if let TargetSpec::External { endpoint, .. } = &mut plan.sides[1].target {
            *endpoint = crate::db::Endpoint::Tcp {
                host: "127.0.0.2".into(),
                port: 1,
            };
        }
        plan.sides[1].hooks.setup = vec!["SET GLOBAL max_connect_errors = 7".into()];
        plan
    }

    #[test]
    fn the_example_plan_is_valid() {
        example::external(2, &[8, 16]).validate().unwrap();
        swap_plan().validate().unwrap();
    }

    #[test]
    fn a_plan_that_parses_but_does_not_hold_together_is_refused() {
        let mut plan = example::external(2, &[8]);
        plan.schedule.levels.clear();
        assert!(refusal(&plan).contains("thread levels"));
        let mut plan = example::external(2, &[8]);
        plan.schedule.rounds = 0;
        assert!(refusal(&plan).contains("rounds per side"));
        let mut plan = example::external(2, &[8]);
        plan.analysis.alpha = 0.7;
        assert!(refusal(&plan).contains("alpha"));
        let mut plan = example::external(4, &[8]);
        plan.sequential = Some(crate::plan::Sequential {
            until: crate::stats::sequential::Until::Decided,
            design: crate::stats::sequential::Design::new(8, 2, 0.05, None),
            max_time: std::time::Duration::from_secs(60),
        });
        assert!(refusal(&plan).contains("looks"));
        let mut plan = example::external(2, &[8]);
        plan.workload.tables.count = 0;
        assert!(refusal(&plan).contains("--tables"));
    }

    #[test]
    fn instances_need_managed_servers_two_rounds_each_and_no_looks() {
        let mut plan = example::external(4, &[8]);
        plan.schedule.instances = 2;
        assert!(refusal(&plan).contains("external server"));
        for side in &mut plan.sides {
            side.target = managed();
        }
        plan.validate().unwrap();
        plan.schedule.rounds = 3;
        assert!(refusal(&plan).contains("at least 4 rounds"));
        plan.schedule.rounds = 4;
        plan.sequential = Some(crate::plan::Sequential {
            until: crate::stats::sequential::Until::Decided,
            design: crate::stats::sequential::Design::new(4, 2, 0.05, None),
            max_time: std::time::Duration::from_secs(60),
        });
        assert!(refusal(&plan).contains("--until"));
    }

    #[test]
    fn a_swap_needs_two_external_servers_hooks_and_the_same_client() {
        let mut plan = swap_plan();
        plan.sides[0].target = managed();
        assert!(refusal(&plan).contains("external"));
        let mut plan = swap_plan();
        plan.sides[1].target = plan.sides[0].target.clone();
        assert!(refusal(&plan).contains("same server"));
        let mut plan = swap_plan();
        plan.sides[1].hooks.setup.clear();
        assert!(refusal(&plan).contains("setup hooks"));
        let mut plan = swap_plan();
        plan.sides[1].client.tls = TlsMode::Required;
        assert!(refusal(&plan).contains("tls"));
        let mut plan = swap_plan();
        plan.schedule.rounds = 3;
        assert!(refusal(&plan).contains("at least 4 rounds"));
    }

    #[test]
    fn a_captured_workload_that_writes_needs_allow_writes_on_an_external_server() {
        let mut plan = example::external(2, &[8]);
        let custom = CustomWorkload::parse(
            "writes = true\n[[transaction]]\nname = \"t\"\nstatements = [\"UPDATE sbtest1 SET k = k + 1 WHERE id = 1\"]\n",
            std::path::Path::new("w.toml"),
        )
        .unwrap();
        plan.workload.kind = crate::workload::Workload::File(custom);
        assert!(refusal(&plan).contains("--allow-writes"));
        plan.allow_writes = true;
        plan.validate().unwrap();
    }

    #[test]
    fn answers_are_compared_only_where_the_workload_reads() {
        let mut plan = example::external(2, &[8]);
        plan.client.check_results = 10;
        plan.workload = crate::workload::WorkloadSpec::sysbench(WorkloadName::OltpWriteOnly);
        assert!(refusal(&plan).contains("--check-results 10"));
        plan.workload = crate::workload::WorkloadSpec::sysbench(WorkloadName::OltpReadOnly);
        plan.validate().unwrap();
    }
}
