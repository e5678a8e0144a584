//! Opening the sides' servers: one managed server for both when the plan and the server
//! allow it (`--servers auto|shared`), two otherwise. The server started for the
//! baseline answers whether each difference can change while it runs; when one cannot,
//! it is stopped and each side gets its own, and the reason is said and recorded.

use anyhow::Context;

use crate::exit::UsageError;
use crate::plan::arrangement::Layout;
use crate::plan::{Plan, ServerMode, TargetSpec};
use crate::results::servers::ServerArrangement;
use crate::server::globals::GlobalSnapshot;
use crate::server::switches::{Discovered, Switches};
use crate::side::Side;
use crate::target::Target;

/// The client connections a managed server is sized for: both sides' on a shared one,
/// which keeps each side's sessions open while the other runs (each opened under its
/// own side's settings, so each keeps that side's session values).
pub(crate) fn server_threads(plan: &Plan, shared: bool) -> u32 {
    if shared {
        plan.max_threads().saturating_mul(2)
    } else {
        plan.max_threads()
    }
}

/// One managed server serving both sides.
pub(crate) struct Shared {
    /// What changes between the sides, put in place before each round.
    pub(crate) switches: Switches,
    /// The server's globals and plugins before anything was switched, put back at the end.
    pub(crate) snapshot: GlobalSnapshot,
}

/// Both sides' targets, and how their servers are arranged.
pub(crate) struct Opened {
    pub(crate) targets: [Target; 2],
    pub(crate) shared: Option<Shared>,
    /// For the record; none when a side is external.
    pub(crate) arrangement: Option<ServerArrangement>,
}

/// Starts the servers of `plan`'s sides: one shared managed server where it can serve
/// both, else one per side (`first` starting first).
pub(crate) fn open(plan: &Plan, first: Side) -> anyhow::Result<Opened> {
    let max_threads = plan.max_threads();
    let separate = |reason: Option<String>| -> anyhow::Result<Opened> {
        crate::terminal::note(format_args!("starting both sides"));
        let targets = crate::target::open_both(&plan.sides, max_threads, first)?;
        let arrangement = reason.map(|why| ServerArrangement {
            shared: false,
            separate_because: Some(why),
            switched: Vec::new(),
            notes: Vec::new(),
            ended_as_began: None,
        });
        Ok(Opened {
            targets,
            shared: None,
            arrangement,
        })
    };
    let differences = match plan.layout() {
        Layout::NotManaged => return separate(None),
        Layout::Separate(reason) => {
            refuse_if_shared(plan, &reason)?;
            crate::terminal::note(format_args!("a managed server per side: {reason}"));
            return separate(Some(reason));
        }
        Layout::Shareable(differences) => differences,
    };
    crate::terminal::note(format_args!("starting one server for both sides"));
    let baseline = crate::target::open_one(&plan.sides[0], server_threads(plan, true))?;
    match discover(plan, &baseline, &differences)? {
        Ok(shared) => {
            let variant = baseline.borrowed_by(&plan.sides[1])?;
            let arrangement = ServerArrangement {
                shared: true,
                separate_because: None,
                switched: shared.switches.lines(),
                notes: shared.switches.kept_plugins(),
                ended_as_began: None,
            };
            for line in &arrangement.switched {
                crate::terminal::note(format_args!("switched before each round: {line}"));
            }
            for note in &arrangement.notes {
                crate::terminal::warning(note);
            }
            Ok(Opened {
                targets: [baseline, variant],
                shared: Some(shared),
                arrangement: Some(arrangement),
            })
        }
        Err(reason) => {
            refuse_if_shared(plan, &reason)?;
            crate::terminal::note(format_args!("a managed server per side: {reason}"));
            drop(baseline);
            separate(Some(reason))
        }
    }
}

/// `--servers shared` with a difference only a restart makes: refused, with the reason.
fn refuse_if_shared(plan: &Plan, reason: &str) -> anyhow::Result<()> {
    if plan.servers == ServerMode::Shared {
        return Err(UsageError::err(format!(
            "--servers shared: one server cannot serve both sides: {reason}; \
             run with --servers separate (or auto)"
        )));
    }
    Ok(())
}

/// Reads the shared server's snapshot and asks it whether each difference can change
/// while it runs: the sharing, or why not.
fn discover(
    plan: &Plan,
    server: &Target,
    differences: &[crate::server::switches::OptionDifference],
) -> anyhow::Result<Result<Shared, String>> {
    let mut conn = server
        .admin
        .connect()
        .context("connecting to the shared server as its administrator")?;
    let snapshot = GlobalSnapshot::read(&mut conn)
        .context("reading the shared server's global variables and plugins")?;
    let defaults_file = matches!(
        plan.sides[0].target,
        TargetSpec::Managed {
            defaults_file: Some(_),
            ..
        }
    );
    let discovered = Switches::discover(&mut conn, differences, defaults_file)
        .context("asking the shared server which differences it can change while it runs")?;
    Ok(match discovered {
        Discovered::Shared(switches) => Ok(Shared { switches, snapshot }),
        Discovered::Separate(reason) => Err(reason),
    })
}

/// What a plan's servers will be, as far as it is known before the run.
enum Answer {
    /// External servers: their own rules.
    NotManaged,
    /// One server; these are switched before each round (none: the same server settings).
    Shared(Vec<String>),
    /// A server per side, for this reason.
    Separate(String),
}

/// Asks the plan, and where only the server can tell, a throwaway server started for
/// the baseline for about a second.
fn answer(plan: &Plan) -> anyhow::Result<Answer> {
    let differences = match plan.layout() {
        Layout::NotManaged => return Ok(Answer::NotManaged),
        Layout::Separate(reason) => return Ok(Answer::Separate(reason)),
        Layout::Shareable(differences) if differences.is_empty() => {
            return Ok(Answer::Shared(Vec::new()));
        }
        Layout::Shareable(differences) => differences,
    };
    let baseline = crate::target::open_one(&plan.sides[0], 1).context(
        "starting a throwaway server to ask which differences it can change while it runs",
    )?;
    let found = discover(plan, &baseline, &differences)?;
    drop(baseline);
    Ok(match found {
        Ok(shared) => Answer::Shared(shared.switches.lines()),
        Err(reason) => Answer::Separate(reason),
    })
}

/// Settles a plan whose rounds' defaults were chosen for one shared server: where only
/// the server can tell whether it can be shared, it is asked before the run, and a
/// plan that needs a server per side takes the two-server defaults instead.
pub(crate) fn settle(plan: &mut Plan) -> anyhow::Result<()> {
    if plan.if_separate.is_some() {
        let answer = answer(plan)?;
        settle_timing(plan, &answer)?;
    }
    Ok(())
}

fn settle_timing(plan: &mut Plan, answer: &Answer) -> anyhow::Result<()> {
    if let Answer::Separate(reason) = answer {
        refuse_if_shared(plan, reason)?;
        plan.use_separate_timing().map_err(|e| {
            UsageError::err(format!(
                "a managed server per side ({reason}), and with the defaults of two servers: {e}"
            ))
        })?;
        // The plan was checked with one server's timing; this one is checked as strictly.
        plan.validate()?;
    }
    Ok(())
}

/// What the dry run says about the servers: one shared server and what is switched, or
/// a server per side and why (the plan settled on it, as [`settle`] does).
pub(crate) fn describe(plan: &mut Plan) -> anyhow::Result<Option<String>> {
    let answer = answer(plan)?;
    settle_timing(plan, &answer)?;
    Ok(match answer {
        Answer::NotManaged => None,
        Answer::Separate(reason) => Some(format!("servers   a managed server per side: {reason}")),
        Answer::Shared(lines) if lines.is_empty() => Some(
            "servers   one managed server for both sides (their server settings are the \
             same; each side connects with its own client settings)"
                .into(),
        ),
        Answer::Shared(lines) => {
            let mut text = "servers   one managed server for both sides; before each round the \
                            side's settings are put in place, read back, and warmed up unmeasured:"
                .to_string();
            for line in lines {
                text.push_str(&format!("\n          {line}"));
            }
            Some(text)
        }
    })
}
