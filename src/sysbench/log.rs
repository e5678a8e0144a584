//! `abtest import-sysbench-log`: sysbench 0.4 and 1.0 result logs (final reports and
//! `--report-interval` lines) turned into the per-round CSV that `abtest analyze` reads,
//! so old runs get confidence intervals too.
//!
//! Each run in a log is one round: its final report when there is one, otherwise the
//! mean of its interval lines (a run cut short). A log holding several reports gives
//! several runs, whether or not each has its banner. Logs copied from web pages often
//! have their line breaks flattened; the parser reads labels and numbers, not lines.
//! The thread count comes from the banner or the interval lines; a run that shows
//! neither has none, and the command asks for `--threads` rather than guess.

use std::fmt::Write as _;

use crate::side::Side;

/// One sysbench run, summarised.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Run {
    /// Client threads, when the log shows them; 0 when the log's figure is impossible.
    pub(crate) threads: Option<u32>,
    /// Transactions per second.
    pub(crate) tps: f64,
    /// Queries per second, when reported.
    pub(crate) qps: Option<f64>,
    /// Mean latency, ms.
    pub(crate) latency_mean_ms: Option<f64>,
    /// The reported latency percentile, ms (95th unless `--percentile` said otherwise).
    pub(crate) latency_p95_ms: Option<f64>,
}

/// Splits a log into runs and summarises each.
pub(crate) fn parse(text: &str) -> Vec<Run> {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let starts: Vec<usize> = flat
        .match_indices("Running the test with following options")
        .map(|(i, _)| i)
        .collect();
    let chunks: Vec<&str> = if starts.is_empty() {
        vec![flat.as_str()]
    } else {
        starts
            .iter()
            .enumerate()
            .map(|(k, &start)| &flat[start..starts.get(k + 1).copied().unwrap_or(flat.len())])
            .collect()
    };
    chunks.into_iter().flat_map(parse_chunk).collect()
}

/// The start of a final report: sysbench 1.0, then 0.4.
const REPORT_MARKERS: [&str; 2] = ["SQL statistics:", "OLTP test statistics:"];

/// The runs of one banner's chunk: one per final report in it (a log may hold several
/// reports under one banner, or none), or the interval lines' mean when it has none.
fn parse_chunk(chunk: &str) -> Vec<Run> {
    let threads = number_after(chunk, "Number of threads:").map(thread_count);
    let mut starts: Vec<usize> = REPORT_MARKERS
        .iter()
        .flat_map(|marker| chunk.match_indices(marker).map(|(i, _)| i))
        .collect();
    starts.sort_unstable();
    if starts.len() <= 1 {
        return parse_run(chunk, threads).into_iter().collect();
    }
    // The first report keeps the banner and interval lines before it; each later one
    // reaches from its marker to the next.
    let mut bounds = starts.clone();
    bounds[0] = 0;
    bounds.push(chunk.len());
    bounds
        .windows(2)
        .filter_map(|w| parse_run(&chunk[w[0]..w[1]], threads))
        .collect()
}

fn parse_run(chunk: &str, threads: Option<u32>) -> Option<Run> {
    if let Some(tps) = per_second_after(chunk, "transactions:") {
        let p95 = number_after(chunk, "95th percentile:")
            .or_else(|| number_after(chunk, "95 percentile:"));
        return Some(Run {
            threads,
            tps,
            qps: per_second_after(chunk, " queries:")
                .or_else(|| per_second_after(chunk, "read/write requests:")),
            latency_mean_ms: number_after(chunk, "avg:"),
            latency_p95_ms: p95,
        });
    }
    interval_mean(chunk, threads)
}

/// The mean of a run's `[ Ns ] thds: ... tps: ...` lines.
fn interval_mean(chunk: &str, threads: Option<u32>) -> Option<Run> {
    let lines: Vec<&str> = chunk
        .split("[ ")
        .skip(1)
        .filter(|l| l.contains("tps:"))
        .collect();
    if lines.is_empty() {
        return None;
    }
    let mean = |label: &str| {
        let values: Vec<f64> = lines
            .iter()
            .filter_map(|l| number_after(l, label))
            .collect();
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    Some(Run {
        threads: threads.or_else(|| number_after(lines[0], "thds:").map(thread_count)),
        tps: mean("tps:")?,
        qps: mean("qps:"),
        latency_mean_ms: None,
        latency_p95_ms: mean("%):"),
    })
}

/// A logged thread count, or 0 — a count no run has — when the log's figure is not a
/// whole number from 1 to 100 000 (a damaged or edited log); the import refuses 0.
fn thread_count(logged: f64) -> u32 {
    if logged.fract() == 0.0 && (1.0..=100_000.0).contains(&logged) {
        logged as u32
    } else {
        0
    }
}

/// The first number after `label` (units such as `ms` or `s` stripped).
fn number_after(text: &str, label: &str) -> Option<f64> {
    let rest = &text[text.find(label)? + label.len()..];
    let token = rest.split_whitespace().next()?;
    token
        .trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == ',')
        .parse()
        .ok()
}

/// The rate in `label N (X per sec.)`.
fn per_second_after(text: &str, label: &str) -> Option<f64> {
    let rest = &text[text.find(label)? + label.len()..];
    let open = rest.find('(')?;
    if rest[..open].split_whitespace().count() > 1 {
        return None;
    }
    rest[open + 1..].split_whitespace().next()?.parse().ok()
}

/// The per-round CSV of runs from the baseline and variant logs; every run has its
/// thread count by now (see the command).
pub(crate) fn to_csv(sides: &[(Side, Vec<Run>)]) -> String {
    let mut out = String::from("side,threads,round,tps,qps,latency_mean_ms,latency_p95_ms\n");
    let cell = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    for (side, runs) in sides {
        let mut rounds_per_level: std::collections::BTreeMap<u32, u32> = Default::default();
        for run in runs {
            let threads = run.threads.unwrap_or(0);
            let round = rounds_per_level.entry(threads).or_default();
            *round += 1;
            let _ = writeln!(
                out,
                "{side},{threads},{round},{},{},{},{}",
                run.tps,
                cell(run.qps),
                cell(run.latency_mean_ms),
                cell(run.latency_p95_ms)
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SYSBENCH_1_0: &str = "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)

Running the test with following options:
Number of threads: 8
Report intermediate results every 1 second(s)

[ 1s ] thds: 8 tps: 280.95 qps: 5682.94 (r/w/o: 3985.26/1128.80/568.88) lat (ms,95%): 55.82 err/s: 0.00 reconn/s: 0.00
[ 2s ] thds: 8 tps: 290.01 qps: 5800.26 (r/w/o: 4060.18/1160.05/580.03) lat (ms,95%): 51.02 err/s: 0.00 reconn/s: 0.00
SQL statistics:
    queries performed:
        read:                            480130
        write:                           137180
        other:                           68590
        total:                           685900
    transactions:                        34295  (285.56 per sec.)
    queries:                             685900 (5711.24 per sec.)
    ignored errors:                      0      (0.00 per sec.)
    reconnects:                          0      (0.00 per sec.)

General statistics:
    total time:                          120.0947s
    total number of events:              34295

Latency (ms):
         min:                                    5.66
         avg:                                   27.99
         max:                                  230.17
         95th percentile:                       52.89
         sum:                               959974.27
";

    /// Seed 003's sysbench 0.4 report, line breaks flattened as on the web page.
    const SYSBENCH_0_4_FLAT: &str = "Running the test with following options: Number of threads: 64 Doing OLTP test. Running mixed OLTP test Using Special distribution (12 iterations, 1 pct of values are returned in 75 pct cases) Using \"BEGIN\" for starting transactions Using auto_inc on the id column Threads started! Time limit exceeded, exiting... (last message repeated 63 times) Done. OLTP test statistics: queries performed: read: 4966262 write: 1773587 other: 709440 total: 7449289 transactions: 354707 (1182.19 per sec.) deadlocks: 26 (0.09 per sec.) read/write requests: 6739849 (22463.02 per sec.) other operations: 709440 (2364.47 per sec.) Test execution summary: total time: 300.0420s total number of events: 354707 total time taken by event execution: 19197.5151 per-request statistics: min: 2.77ms avg: 54.12ms max: 801.67ms approx. 95 percentile: 129.41ms Threads fairness: events (avg/stddev): 5542.2969/65.25 execution time (avg/stddev): 299.9612/0.02 |";

    #[test]
    fn reads_a_sysbench_1_0_final_report() {
        let runs = parse(SYSBENCH_1_0);
        assert_eq!(
            runs,
            vec![Run {
                threads: Some(8),
                tps: 285.56,
                qps: Some(5711.24),
                latency_mean_ms: Some(27.99),
                latency_p95_ms: Some(52.89)
            }]
        );
    }

    #[test]
    fn reads_seed_003_sysbench_0_4_report() {
        let runs = parse(SYSBENCH_0_4_FLAT);
        assert_eq!(
            runs,
            vec![Run {
                threads: Some(64),
                tps: 1182.19,
                qps: Some(22463.02),
                latency_mean_ms: Some(54.12),
                latency_p95_ms: Some(129.41)
            }]
        );
    }

    #[test]
    fn a_run_cut_short_is_the_mean_of_its_intervals() {
        let cut = SYSBENCH_1_0.split("SQL statistics").next().unwrap();
        let runs = parse(cut);
        assert_eq!(runs.len(), 1);
        assert!((runs[0].tps - 285.48).abs() < 1e-9 && runs[0].threads == Some(8));
        assert!((runs[0].latency_p95_ms.unwrap() - 53.42).abs() < 1e-9);
    }

    #[test]
    fn reports_without_banners_are_separate_runs_without_threads() {
        let report = SYSBENCH_1_0.split("SQL statistics").nth(1).unwrap();
        let log = format!(
            "SQL statistics{report}\nSQL statistics{}",
            report.replace("285.56", "290.00")
        );
        let runs = parse(&log);
        assert_eq!(runs.len(), 2, "{runs:?}");
        assert_eq!((runs[0].tps, runs[1].tps), (285.56, 290.0));
        assert!(runs.iter().all(|r| r.threads.is_none()));
        // Two reports under one banner share its thread count.
        let two = format!(
            "{SYSBENCH_1_0}\nSQL statistics{}",
            report.replace("285.56", "290.00")
        );
        let runs = parse(&two);
        assert_eq!(runs.len(), 2);
        assert!(runs.iter().all(|r| r.threads == Some(8)));
    }

    #[test]
    fn several_runs_become_several_rounds() {
        let log = format!(
            "{SYSBENCH_1_0}\n{}",
            SYSBENCH_1_0.replace("285.56", "290.00")
        );
        let runs = parse(&log);
        let csv = to_csv(&[
            (Side::Baseline, runs),
            (Side::Variant, parse(SYSBENCH_0_4_FLAT)),
        ]);
        assert_eq!(
            csv,
            "side,threads,round,tps,qps,latency_mean_ms,latency_p95_ms\n\
             baseline,8,1,285.56,5711.24,27.99,52.89\n\
             baseline,8,2,290,5711.24,27.99,52.89\n\
             variant,64,1,1182.19,22463.02,54.12,129.41\n"
        );
    }
}
