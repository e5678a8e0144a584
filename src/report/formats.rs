//! Every output abtest writes, listed once. A format knows its `--format` name, the flag
//! that writes it to a file, what it holds (a results file or a report made again from
//! one), when it is written, and how it renders from a [`ReportView`]. The flags of
//! every command, the saved `plan.outputs`, the checks before anything is written and
//! the writer all read this list, so a new format is one arm of [`formats!`] here and
//! nothing anywhere else.

use super::{ReportView, Run, csv, html, jira, json, junit, markdown, table};
use crate::exit::UsageError;

/// What an output holds: a results file must not replace any existing file; a report
/// may replace an earlier report, never a saved run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Holds {
    /// An abtest results file (`--json` of a run or a merge).
    Results,
    /// A report, a CSV, a workload file: something made again from a saved run.
    Report,
}

/// When an output is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Moment {
    /// After every round, so a crash loses nothing (and again at the end).
    EveryRound,
    /// Once, at the end: also when the run was interrupted or failed.
    End,
}

/// A value of `--format`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Choice {
    /// As typed.
    pub(crate) name: &'static str,
    /// Another spelling that is accepted.
    pub(crate) alias: Option<&'static str>,
    /// Its line in `--help`.
    pub(crate) help: &'static str,
}

/// A flag that writes the format to a file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct File {
    /// `--json`; without the dashes it is also the key in the saved `plan.outputs`.
    pub(crate) flag: &'static str,
    /// Its `--help` text.
    pub(crate) help: &'static str,
}

/// Everything about one format.
#[derive(Clone, Copy)]
struct Spec {
    /// Its `--format` value, if `abtest report` and `abtest analyze` print it.
    choice: Option<Choice>,
    /// Its file flag, if a command writes it to a file.
    file: Option<File>,
    /// What it holds.
    holds: Holds,
    /// When it is written.
    moment: Moment,
    /// Whether it needs a saved run (its rounds or the results file itself), which a
    /// CSV of rounds given to `abtest analyze` is not.
    needs_run: bool,
    /// Its text.
    render: fn(&ReportView<'_>) -> anyhow::Result<String>,
}

/// Declares [`Format`], its list and its [`Spec`]s, one arm a format.
macro_rules! formats {
    ($($(#[$doc:meta])* $name:ident => $spec:expr,)+) => {
        /// An output format.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum Format {
            $($(#[$doc])* $name,)+
        }

        impl Format {
            /// Every format, in the order the flags and the saved outputs list them.
            pub(crate) const ALL: &[Format] = &[$(Format::$name,)+];

            fn spec(self) -> Spec {
                match self {
                    $(Format::$name => $spec,)+
                }
            }
        }
    };
}

formats! {
    /// The comparison table, in colour on a terminal.
    Table => Spec {
        choice: Some(Choice { name: "table", alias: None, help: "A terminal table" }),
        file: None,
        holds: Holds::Report,
        moment: Moment::End,
        needs_run: false,
        render: |view| Ok(table::render(view)),
    },
    /// The results file itself: plan, rounds, analysis.
    Results => Spec {
        choice: None,
        file: Some(File {
            flag: "--json",
            help: "Write the results as JSON (a run rewrites it after every round)",
        }),
        holds: Holds::Results,
        moment: Moment::EveryRound,
        needs_run: true,
        render: |view| Ok(serde_json::to_string_pretty(&saved_run(view, "--json", "results")?.results())? + "\n"),
    },
    /// The ticket attachment in Markdown.
    Markdown => Spec {
        choice: Some(Choice {
            name: "markdown",
            alias: Some("md"),
            help: "The ticket attachment in Markdown",
        }),
        file: Some(File {
            flag: "--markdown",
            help: "Write a Markdown report for a change ticket",
        }),
        holds: Holds::Report,
        moment: Moment::End,
        needs_run: false,
        render: markdown::render,
    },
    /// A self-contained page with SVG charts.
    Html => Spec {
        choice: Some(Choice { name: "html", alias: None, help: "A self-contained page with charts" }),
        file: Some(File {
            flag: "--html",
            help: "Write a self-contained HTML report with SVG charts",
        }),
        holds: Holds::Report,
        moment: Moment::End,
        needs_run: false,
        render: html::render,
    },
    /// The ticket attachment in Jira wiki markup.
    Jira => Spec {
        choice: Some(Choice {
            name: "jira",
            alias: None,
            help: "The ticket attachment in Jira wiki markup",
        }),
        file: None,
        holds: Holds::Report,
        moment: Moment::End,
        needs_run: false,
        render: jira::render,
    },
    /// The analysis alone as JSON.
    Json => Spec {
        choice: Some(Choice { name: "json", alias: None, help: "The analysis as JSON" }),
        file: None,
        holds: Holds::Report,
        moment: Moment::End,
        needs_run: false,
        render: json::render,
    },
    /// One row per round.
    Csv => Spec {
        choice: Some(Choice {
            name: "csv",
            alias: None,
            help: "One row per round (a saved run only)",
        }),
        file: Some(File {
            flag: "--csv",
            help: "Write one CSV row per round (a run rewrites it after every round)",
        }),
        holds: Holds::Report,
        moment: Moment::EveryRound,
        needs_run: true,
        render: |view| csv::render(&saved_run(view, "--format csv", "rounds")?.record.rounds),
    },
    /// The verdicts as JUnit XML, one test case per tolerance and thread level.
    Junit => Spec {
        choice: None,
        file: Some(File {
            flag: "--junit",
            help: "Write the verdicts as JUnit XML for CI: one test case per tolerance and \
                   thread level, failed for NO-GO, skipped for INCONCLUSIVE",
        }),
        holds: Holds::Report,
        moment: Moment::End,
        needs_run: false,
        render: |view| Ok(junit::render(view)),
    },
}

impl Format {
    /// Its `--format` value, if it has one.
    pub(crate) fn choice(self) -> Option<Choice> {
        self.spec().choice
    }

    /// Its file flag, if it has one.
    pub(crate) fn file(self) -> Option<File> {
        self.spec().file
    }

    /// The formats with a file flag, in order.
    pub(crate) fn files() -> impl Iterator<Item = (Format, File)> {
        Format::ALL.iter().filter_map(|f| Some((*f, f.file()?)))
    }

    /// The formats `--format` offers, in order.
    pub(crate) fn choices() -> impl Iterator<Item = (Format, Choice)> {
        Format::ALL.iter().filter_map(|f| Some((*f, f.choice()?)))
    }

    /// The format a `--format` value (or its alias) names.
    pub(crate) fn from_choice(name: &str) -> Option<Format> {
        Format::choices()
            .find(|(_, c)| c.name == name || c.alias == Some(name))
            .map(|(f, _)| f)
    }

    /// What it holds.
    pub(crate) fn holds(self) -> Holds {
        self.spec().holds
    }

    /// Whether it is written at `moment`: everything at the end, the files a crash must
    /// not lose after every round too.
    pub(crate) fn written_at(self, moment: Moment) -> bool {
        moment == Moment::End || self.spec().moment == Moment::EveryRound
    }

    /// Whether it needs a saved run, which a CSV of rounds is not.
    pub(crate) fn needs_run(self) -> bool {
        self.spec().needs_run
    }

    /// Its text for `view`.
    pub(crate) fn render(self, view: &ReportView<'_>) -> anyhow::Result<String> {
        (self.spec().render)(view)
    }
}

impl File {
    /// The key in the saved `plan.outputs`: the flag without its dashes.
    pub(crate) fn key(&self) -> &'static str {
        self.flag.trim_start_matches('-')
    }
}

/// The saved run behind `view`; a CSV of rounds has none to give `flag` its `what`.
fn saved_run<'a>(view: &ReportView<'a>, flag: &str, what: &str) -> anyhow::Result<Run<'a>> {
    view.run.ok_or_else(|| {
        let already = match what {
            "rounds" => "already is one",
            _ => "has none",
        };
        UsageError::err(format!(
            "{flag} writes a saved run's {what}; a CSV input {already}"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_flags_and_keys_are_each_given_once() {
        let mut names: Vec<&str> = Format::choices()
            .flat_map(|(_, c)| [Some(c.name), c.alias])
            .flatten()
            .collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "{names:?}");
        let keys: Vec<&str> = Format::files().map(|(_, f)| f.key()).collect();
        assert_eq!(keys, ["json", "markdown", "html", "csv", "junit"]);
        assert_eq!(Format::from_choice("md"), Some(Format::Markdown));
        assert_eq!(Format::from_choice("json"), Some(Format::Json));
    }

    #[test]
    fn only_the_results_and_the_rounds_are_rewritten_after_every_round() {
        let every: Vec<Format> = Format::ALL
            .iter()
            .copied()
            .filter(|f| f.written_at(Moment::EveryRound))
            .collect();
        assert_eq!(every, [Format::Results, Format::Csv]);
        assert!(Format::ALL.iter().all(|f| f.written_at(Moment::End)));
        let results: Vec<Format> = Format::ALL
            .iter()
            .copied()
            .filter(|f| f.holds() == Holds::Results)
            .collect();
        assert_eq!(results, [Format::Results]);
    }
}
