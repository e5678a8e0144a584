//! Per-round values from a plain CSV, so numbers from any tool (old sysbench logs among
//! them) get the same statistics as an abtest run. The header names the columns:
//! `side,threads,round` and then one column per metric, `tps` at least.

use std::path::Path;

use crate::exit::UsageError;
use crate::report::csv::{KEY_COLUMNS, NOT_METRICS};
use crate::side::Side;
use crate::stats::compare::Sample;
use crate::stats::metric::Metric;

/// Reads per-round samples. Errors name the file, the line and the fix.
pub(crate) fn read(path: &Path) -> anyhow::Result<Vec<Sample>> {
    let file = std::fs::File::open(path)
        .map_err(|e| UsageError::err(format!("{}: cannot read it ({e})", path.display())))?;
    parse(std::io::BufReader::new(file), &path.display().to_string())
}

/// Parses CSV text; `name` is used in error messages.
pub fn parse(input: impl std::io::Read, name: &str) -> anyhow::Result<Vec<Sample>> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(input);
    let file = File(name);
    let columns = Columns::of(
        reader
            .headers()
            .map_err(|e| file.error(1, format!("cannot read the header ({e})")))?,
        &file,
    )?;
    let mut samples = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for record in reader.records() {
        let record =
            record.map_err(|e| file.error(e.position().map_or(0, |p| p.line()), format!("{e}")))?;
        let line = record.position().map_or(0, |p| p.line());
        if !columns.completed(&record) {
            continue;
        }
        let (side, threads, round) = columns.key(&record, line, &file)?;
        if let Some(first) = seen.insert((side, threads, round), line) {
            return Err(file.error(
                line,
                format!(
                    "{side} round {round} at {threads} threads appears twice (first on line {first}); \
                     each round must be listed once"
                ),
            ));
        }
        for (metric, value) in columns.values(&record, line, &file)? {
            samples.push(Sample {
                side,
                threads,
                index: round - 1,
                metric,
                value,
                load: None,
            });
        }
    }
    check_rounds(&samples, name)?;
    Ok(samples)
}

/// The file being read, for messages that name it and the line.
struct File<'a>(&'a str);

impl File<'_> {
    fn error(&self, line: u64, message: String) -> anyhow::Error {
        UsageError::err(format!("{}:{line}: {message}", self.0))
    }
}

/// Where the columns are: the key columns, `status` if any, and every column's name.
struct Columns {
    names: Vec<String>,
    side: usize,
    threads: usize,
    round: usize,
    status: Option<usize>,
}

impl Columns {
    /// The header's columns; side, threads, round and tps are required.
    fn of(header: &csv::StringRecord, file: &File<'_>) -> anyhow::Result<Columns> {
        let names: Vec<String> = header.iter().map(str::to_lowercase).collect();
        let find = |key: &str| names.iter().position(|h| h == key);
        for required in KEY_COLUMNS.iter().chain(&["tps"]) {
            if find(required).is_none() {
                return Err(file.error(
                    1,
                    format!(
                        "missing column `{required}`; the header must start side,threads,round,tps"
                    ),
                ));
            }
        }
        Ok(Columns {
            side: find("side").unwrap_or(0),
            threads: find("threads").unwrap_or(0),
            round: find("round").unwrap_or(0),
            status: find("status"),
            names,
        })
    }

    /// Whether the row is a completed round (a row without a status is).
    fn completed(&self, record: &csv::StringRecord) -> bool {
        self.status
            .and_then(|col| record.get(col))
            .is_none_or(|s| s.is_empty() || s == "completed")
    }

    /// The row's side, thread level and round number (from 1).
    fn key(
        &self,
        record: &csv::StringRecord,
        line: u64,
        file: &File<'_>,
    ) -> anyhow::Result<(Side, u32, u32)> {
        let side = match &record[self.side] {
            "baseline" | "a" | "A" => Side::Baseline,
            "variant" | "b" | "B" => Side::Variant,
            other => {
                return Err(file.error(line, format!("side `{other}` must be baseline or variant")));
            }
        };
        let integer = |col: usize, what: &str| {
            record[col].parse::<u32>().map_err(|_| {
                file.error(
                    line,
                    format!("{what} `{}` is not a whole number", &record[col]),
                )
            })
        };
        let (threads, round) = (
            integer(self.threads, "threads")?,
            integer(self.round, "round")?,
        );
        if round == 0 {
            return Err(file.error(
                line,
                "round 0: rounds are numbered from 1 on each side".into(),
            ));
        }
        Ok((side, threads, round))
    }

    /// The row's metric values: every non-empty cell of a metric column, a finite
    /// number, and TPS above 0.
    fn values(
        &self,
        record: &csv::StringRecord,
        line: u64,
        file: &File<'_>,
    ) -> anyhow::Result<Vec<(Metric, f64)>> {
        let mut values = Vec::new();
        for (col, name) in self.names.iter().enumerate() {
            let cell = record.get(col).unwrap_or("");
            if KEY_COLUMNS.contains(&name.as_str())
                || NOT_METRICS.contains(&name.as_str())
                || cell.is_empty()
            {
                continue;
            }
            let value: f64 = cell
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| file.error(line, format!("{name} `{cell}` is not a number")))?;
            let metric = Metric::from_key(name);
            if metric == Metric::Tps && value <= 0.0 {
                return Err(file.error(line, format!("tps `{cell}` must be above 0")));
            }
            values.push((metric, value));
        }
        Ok(values)
    }
}

fn check_rounds(samples: &[Sample], name: &str) -> anyhow::Result<()> {
    let mut levels: Vec<u32> = samples.iter().map(|s| s.threads).collect();
    levels.sort_unstable();
    levels.dedup();
    if levels.is_empty() {
        return Err(UsageError::err(format!("{name}: no rounds found")));
    }
    for threads in levels {
        for side in Side::BOTH {
            let n = samples
                .iter()
                .filter(|s| s.side == side && s.threads == threads && s.metric == Metric::Tps)
                .count();
            if n < 2 {
                return Err(UsageError::err(format!(
                    "{name}: {side} has {n} round(s) at {threads} threads; at least 2 per side are needed"
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse(text.as_bytes(), "r.csv").unwrap_err().to_string()
    }

    #[test]
    fn reads_rounds_and_extra_metrics() {
        let text = "side,threads,round,tps,latency_p95_ms,cpu\nbaseline,8,1,100,2.0,5\nvariant,8,1,90,2.5,6\nbaseline,8,2,101,2.1,5\nvariant,8,2,91,,6\n";
        let samples = parse(text.as_bytes(), "r.csv").unwrap();
        assert_eq!(samples.len(), 11);
        assert!(
            samples
                .iter()
                .any(|s| s.metric == Metric::Other("cpu".into()) && s.value == 6.0)
        );
        assert_eq!(
            samples
                .iter()
                .filter(|s| s.metric == Metric::from_key("latency_p95_ms"))
                .count(),
            3
        );
    }

    #[test]
    fn recorded_only_columns_are_not_compared() {
        let text = "side,threads,round,transactions,client_cpu_us_per_tx,tps\n\
                    baseline,8,1,1000,12.5,100\nvariant,8,1,900,13.5,90\n\
                    baseline,8,2,1010,12.4,101\nvariant,8,2,910,13.6,91\n";
        let samples = parse(text.as_bytes(), "r.csv").unwrap();
        assert!(
            samples.iter().all(|s| s.metric == Metric::Tps),
            "{samples:?}"
        );
        assert_eq!(samples.len(), 4);
    }

    #[test]
    fn duplicate_rounds_round_zero_and_non_positive_tps_are_refused() {
        let rows = "side,threads,round,tps\nbaseline,8,1,100\nvariant,8,1,90\n";
        let duplicate = format!("{rows}baseline,8,2,101\nvariant,8,2,91\nbaseline,8,1,99\n");
        assert!(
            err(&duplicate)
                .contains("r.csv:6: baseline round 1 at 8 threads appears twice (first on line 2)"),
            "{}",
            err(&duplicate)
        );
        let zero = format!("{rows}baseline,8,0,101\nvariant,8,2,91\n");
        assert!(err(&zero).contains("r.csv:4: round 0"), "{}", err(&zero));
        for tps in ["-90", "0"] {
            let negative = format!("{rows}baseline,8,2,101\nvariant,8,2,{tps}\n");
            assert!(
                err(&negative).contains(&format!("r.csv:5: tps `{tps}` must be above 0")),
                "{}",
                err(&negative)
            );
        }
    }

    #[test]
    fn errors_name_the_line() {
        assert!(err("side,threads,tps\n").contains("r.csv:1: missing column `round`"));
        let bad = "side,threads,round,tps\nbaseline,8,1,100\nvariant,8,1,fast\n";
        assert!(
            err(bad).contains("r.csv:3: tps `fast` is not a number"),
            "{}",
            err(bad)
        );
        let few = "side,threads,round,tps\nbaseline,8,1,100\nbaseline,8,2,100\nvariant,8,1,90\n";
        assert!(err(few).contains("variant has 1 round(s) at 8 threads"));
        assert!(err("side,threads,round,tps\nother,8,1,1\n").contains("r.csv:2: side `other`"));
    }
}
