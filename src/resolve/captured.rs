//! `--threads captured` and `--rate captured`: the concurrency and arrival rate of the
//! log a workload file was captured from (its `[captured]` table), so a pre-upgrade
//! check replays production's mix the way production ran it: as many sessions at once,
//! as many transactions a second.

use crate::exit::UsageError;
use crate::workload::WorkloadSpec;
use crate::workload::custom::CapturedLoad;

/// The word that asks for the captured figure.
const CAPTURED: &str = "captured";

/// The thread levels of `--threads`: numbers, or the captured sessions.
pub(crate) fn levels(threads: &[String], workload: &WorkloadSpec) -> anyhow::Result<Vec<u32>> {
    if threads
        .iter()
        .any(|t| t.trim().eq_ignore_ascii_case(CAPTURED))
    {
        if threads.len() > 1 {
            return Err(UsageError::err(
                "--threads captured stands alone: give it, or a list of numbers, not both",
            ));
        }
        return Ok(vec![load(workload, "--threads")?.sessions.max(1)]);
    }
    threads
        .iter()
        .map(|t| {
            t.trim().parse::<u32>().map_err(|_| {
                UsageError::err(format!(
                    "--threads {t}: give numbers, such as 8 or 16,32,64, or `captured` (the \
                     sessions of a captured log)"
                ))
            })
        })
        .collect()
}

/// The open-loop rate of `--rate`: a number, or the captured transactions per second.
pub(crate) fn rate(rate: Option<&str>, workload: &WorkloadSpec) -> anyhow::Result<Option<f64>> {
    let Some(rate) = rate else {
        return Ok(None);
    };
    if rate.trim().eq_ignore_ascii_case(CAPTURED) {
        return Ok(Some(load(workload, "--rate")?.transactions_per_second));
    }
    let value: f64 = rate
        .trim()
        .parse()
        .ok()
        .filter(|r: &f64| *r > 0.0 && r.is_finite())
        .ok_or_else(|| {
            UsageError::err(format!(
                "--rate {rate} must be a number of events per second above zero, or `captured`"
            ))
        })?;
    Ok(Some(value))
}

/// The captured load of the workload file, or why there is none.
fn load(workload: &WorkloadSpec, flag: &str) -> anyhow::Result<CapturedLoad> {
    workload
        .file()
        .and_then(|custom| custom.captured)
        .ok_or_else(|| {
            UsageError::err(format!(
                "{flag} captured needs a --workload-file written by `abtest capture` from a log \
                 whose statements carry their time (its [captured] table); this workload has \
                 none: give a number"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::WorkloadName;

    fn captured(load: Option<CapturedLoad>) -> WorkloadSpec {
        let text = "[[transaction]]\nname = \"x\"\nstatements = [\"SELECT 1\"]\n";
        let mut custom =
            crate::workload::custom::CustomWorkload::parse(text, std::path::Path::new("w.toml"))
                .unwrap();
        custom.captured = load;
        WorkloadSpec {
            kind: crate::workload::Workload::File(custom),
            ..WorkloadSpec::sysbench(WorkloadName::OltpReadWrite)
        }
    }

    #[test]
    fn captured_threads_and_rate_come_from_the_workload_file() {
        let load = CapturedLoad {
            sessions: 12,
            transactions_per_second: 350.5,
            seconds: 60,
        };
        let workload = captured(Some(load));
        let words = |list: &[&str]| list.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert_eq!(levels(&words(&["captured"]), &workload).unwrap(), [12]);
        assert_eq!(levels(&words(&["4", "8"]), &workload).unwrap(), [4, 8]);
        assert_eq!(rate(Some("captured"), &workload).unwrap(), Some(350.5));
        assert_eq!(rate(Some("90"), &workload).unwrap(), Some(90.0));
        assert!(levels(&words(&["captured", "8"]), &workload).is_err());
        assert!(rate(Some("0"), &workload).is_err());
        let none = captured(None);
        let e = levels(&words(&["captured"]), &none)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("[captured]") && e.contains("give a number"),
            "{e}"
        );
        let builtin = WorkloadSpec::sysbench(WorkloadName::OltpReadWrite);
        assert!(rate(Some("captured"), &builtin).is_err());
    }
}
