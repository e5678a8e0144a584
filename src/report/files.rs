//! The outputs of a command and their one writer. A run, a resumed run and a merge take
//! their outputs from the plan; `report` and `analyze` from their flags. The results
//! JSON and the rounds CSV are rewritten after every round, so a crash loses nothing;
//! the rest is written at the end, also when the run was interrupted or failed. Every
//! file is replaced atomically; `-` is stdout for a report (a results file is always a
//! file).

use std::path::{Path, PathBuf};

use super::ReportView;
use super::formats::{Format, Holds, Moment};

/// Each output format with where it goes, in the order of [`Format::ALL`].
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Outputs(Vec<(Format, PathBuf)>);

impl Outputs {
    /// `outputs`, put in the formats' order (a format may go to more than one place).
    pub(crate) fn new(outputs: impl IntoIterator<Item = (Format, PathBuf)>) -> Outputs {
        let mut outputs: Vec<(Format, PathBuf)> = outputs.into_iter().collect();
        outputs.sort_by_key(|(f, _)| Format::ALL.iter().position(|a| a == f));
        Outputs(outputs)
    }

    /// The outputs a plan saved.
    pub(crate) fn of_plan(saved: &crate::plan::Outputs) -> Outputs {
        Outputs::new(
            Format::files().filter_map(|(f, file)| Some((f, saved.path(file.key())?.into()))),
        )
    }

    /// The outputs as a plan saves them: every file format's key, null when not written.
    pub(crate) fn saved(&self) -> crate::plan::Outputs {
        let mut saved = crate::plan::Outputs::default();
        for (format, file) in Format::files() {
            saved.set(file.key(), self.path(format).map(Path::to_path_buf));
        }
        saved
    }

    /// Each format with its path.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (Format, &Path)> {
        self.0.iter().map(|(f, p)| (*f, p.as_path()))
    }

    /// Where `format` goes, if anywhere.
    pub(crate) fn path(&self, format: Format) -> Option<&Path> {
        self.iter().find(|(f, _)| *f == format).map(|(_, p)| p)
    }

    /// Sends `format` to `path` instead of where it went.
    pub(crate) fn set(&mut self, format: Format, path: PathBuf) {
        self.0.retain(|(f, _)| *f != format);
        self.add(format, path);
    }

    /// Sends `format` to `path` too.
    pub(crate) fn add(&mut self, format: Format, path: PathBuf) {
        let outputs = std::mem::take(&mut self.0);
        *self = Outputs::new(outputs.into_iter().chain([(format, path)]));
    }

    /// Writes the outputs due at `moment`, each rendered from `view`, in the formats'
    /// order (the results file first); the first that fails stops the rest.
    pub(crate) fn write(&self, moment: Moment, view: &ReportView<'_>) -> anyhow::Result<()> {
        for (format, path) in self.iter().filter(|(f, _)| f.written_at(moment)) {
            match (format.holds(), view.run) {
                (Holds::Results, Some(run)) => crate::results::save(path, run.results())?,
                _ => super::stdout::write_to(Some(path), &rendered(format, path, view)?, None)?,
            }
        }
        Ok(())
    }
}

/// `format`'s text for `path`: a table written to a file has no colour and whole lines,
/// whatever the terminal the command runs in.
fn rendered(format: Format, path: &Path, view: &ReportView<'_>) -> anyhow::Result<String> {
    if format == Format::Table && path.as_os_str() != "-" {
        return Ok(super::table::render_styled(view, false, None));
    }
    format.render(view)
}
