//! A side, ready to be measured: how its workload connects, how its hooks connect, and
//! the managed server behind it if abtest started one.

use anyhow::Context;

use crate::db::ConnectSpec;
use crate::plan::{SidePlan, TargetSpec};
use crate::server::launch::ServerLaunch;
use crate::server::sandbox::ManagedServer;
use crate::side::Side;

/// One side's server and connection settings.
#[derive(Debug)]
pub(crate) struct Target {
    /// Which side.
    pub(crate) side: Side,
    /// How workers connect.
    pub(crate) client: ConnectSpec,
    /// How hooks and fact queries connect (root for managed servers).
    pub(crate) admin: ConnectSpec,
    /// The managed server, stopped when the target is dropped.
    pub(crate) server: Option<ManagedServer>,
    /// Whether this side runs on the other target's managed server (`--servers shared`):
    /// abtest's own server, with no process of its own here.
    pub(crate) borrowed: bool,
}

impl Target {
    /// Refuses a managed server that is no longer closed to others (exit 2, naming the
    /// account, port or file); `after` says when, for the message. An external server
    /// is its owner's to guard.
    pub(crate) fn check_confined(&self, after: &str) -> anyhow::Result<()> {
        self.server
            .as_ref()
            .map_or(Ok(()), |server| server.check_confined(after))
    }

    /// A side backed by a managed server that is already running.
    pub(crate) fn managed(plan: &SidePlan, server: ManagedServer) -> Target {
        Target {
            side: plan.side,
            client: server.client_spec(&plan.client),
            admin: server.admin_spec(),
            server: Some(server),
            borrowed: false,
        }
    }

    /// `plan`'s side on this target's managed server, with its own client settings
    /// (TLS, session): both sides on one server.
    pub(crate) fn borrowed_by(&self, plan: &SidePlan) -> anyhow::Result<Target> {
        let server = self
            .server
            .as_ref()
            .context("only a managed server is shared")?;
        Ok(Target {
            side: plan.side,
            client: server.client_spec(&plan.client),
            admin: self.admin.clone(),
            server: None,
            borrowed: true,
        })
    }

    /// Whether abtest started the server this side runs on.
    pub(crate) fn is_managed(&self) -> bool {
        self.server.is_some() || self.borrowed
    }

    /// A side backed by an external server; checks that it answers.
    pub(crate) fn external(plan: &SidePlan, max_threads: u32) -> anyhow::Result<Target> {
        let side = plan.side;
        let TargetSpec::External {
            endpoint,
            user,
            password,
            database,
        } = &plan.target
        else {
            anyhow::bail!("{side}: not an external target");
        };
        let client = ConnectSpec::new(
            endpoint.clone(),
            user,
            password.clone(),
            Some(database),
            &plan.client,
        );
        let mut conn = client.connect().map_err(|e| {
            let fix = crate::db::errors::connect_fix(&e)
                .map(|fix| format!(" — {fix}"))
                .unwrap_or_default();
            anyhow::anyhow!(
                "{side} ({}): cannot connect to {user}@{endpoint}/{database}: {}{fix}",
                plan.profile.display(),
                crate::db::errors::describe(&e)
            )
        })?;
        check_connection_limits(&mut conn, plan, max_threads)?;
        Ok(Target {
            side,
            admin: client.clone(),
            client,
            server: None,
            borrowed: false,
        })
    }
}

/// Opens both sides. Managed servers install in parallel, are spawned from the calling
/// thread (which must outlive them), `first`'s server first, and start up concurrently;
/// if anything fails, what was started is stopped again.
pub(crate) fn open_both(
    sides: &[SidePlan; 2],
    max_threads: u32,
    first: Side,
) -> anyhow::Result<[Target; 2]> {
    let launches: Vec<Option<ServerLaunch<'_>>> =
        sides.iter().map(|s| s.server_launch(max_threads)).collect();
    let mut installed: Vec<Option<ManagedServer>> = std::thread::scope(|scope| {
        let handles: Vec<_> = launches
            .iter()
            .map(|launch| {
                scope.spawn(move || launch.as_ref().map(ManagedServer::install).transpose())
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("an install thread panicked")))
            })
            .collect::<anyhow::Result<Vec<_>>>()
    })?;
    let order = [first as usize, 1 - first as usize];
    for index in order {
        if let (Some(server), Some(launch)) = (installed[index].as_mut(), &launches[index]) {
            server.spawn(launch)?;
        }
    }
    for index in order {
        if let Some(server) = installed[index].as_mut() {
            server.wait_ready()?;
        }
    }
    let mut targets = Vec::with_capacity(2);
    for (plan, server) in sides.iter().zip(installed) {
        targets.push(match server {
            Some(server) => Target::managed(plan, server),
            None => Target::external(plan, max_threads)?,
        });
    }
    let [a, b]: [Target; 2] = targets
        .try_into()
        .map_err(|_| anyhow::anyhow!("two sides expected"))?;
    Ok([a, b])
}

/// Opens one side on its own (a managed server is installed, started and awaited from
/// the calling thread, which must outlive it).
pub(crate) fn open_one(plan: &SidePlan, max_threads: u32) -> anyhow::Result<Target> {
    match plan.server_launch(max_threads) {
        Some(launch) => {
            let mut server = ManagedServer::install(&launch)?;
            server.spawn(&launch)?;
            server.wait_ready()?;
            Ok(Target::managed(plan, server))
        }
        None => Target::external(plan, max_threads),
    }
}

impl Target {
    /// A managed side keeps a copy of its prepared datadir for later instances.
    pub(crate) fn keep_prepared(
        &mut self,
        plan: &SidePlan,
        max_threads: u32,
    ) -> anyhow::Result<()> {
        match (self.server.as_mut(), plan.server_launch(max_threads)) {
            (Some(server), Some(launch)) => server.keep_prepared(&launch),
            _ => Ok(()),
        }
    }

    /// A managed side moves to a fresh server process on a fresh copy of that datadir.
    pub(crate) fn fresh_instance(
        &mut self,
        plan: &SidePlan,
        max_threads: u32,
    ) -> anyhow::Result<()> {
        match (self.server.as_mut(), plan.server_launch(max_threads)) {
            (Some(server), Some(launch)) => server.fresh_instance(&launch),
            _ => Ok(()),
        }
    }
}

/// abtest's own connections besides the workers: facts, hooks and the status probe.
pub(crate) const OWN_CONNECTIONS: u32 = 3;

/// Refuses a thread level an external server cannot accept, before any round runs.
fn check_connection_limits(
    conn: &mut mysql::Conn,
    plan: &SidePlan,
    max_threads: u32,
) -> anyhow::Result<()> {
    use mysql::prelude::Queryable;
    let limits: Option<(u32, u32)> = conn
        .query_first("SELECT @@max_connections, @@max_user_connections")
        .with_context(|| format!("{}: reading max_connections", plan.side))?;
    let Some((max_connections, max_user)) = limits else {
        return Ok(());
    };
    let needed = max_threads + OWN_CONNECTIONS;
    let limit = if max_user > 0 {
        max_user.min(max_connections)
    } else {
        max_connections
    };
    if needed > limit {
        return Err(crate::exit::UsageError::err(format!(
            "{} server allows {limit} connections (max_connections {max_connections}, max_user_connections {max_user}), \
             but {max_threads} threads need {needed}; lower --threads or raise max_connections on that server",
            plan.side
        )));
    }
    Ok(())
}

/// Refuses a run whose prepared statements would not fit the server: `per_connection`
/// statements on each of `connections` connections, beside those already prepared on
/// it, must stay within `max_prepared_stmt_count`, or round 1 fails with error 1461.
pub(crate) fn check_prepared_statements(
    target: &Target,
    per_connection: u64,
    connections: u32,
) -> anyhow::Result<()> {
    use mysql::prelude::Queryable;
    if per_connection == 0 {
        return Ok(());
    }
    let mut conn = target.admin.connect()?;
    let limit: Option<u64> = conn.query_first("SELECT @@max_prepared_stmt_count")?;
    let in_use: Option<(String, u64)> =
        conn.query_first("SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'")?;
    let (Some(limit), in_use) = (limit, in_use.map_or(0, |(_, n)| n)) else {
        return Ok(());
    };
    let needed = per_connection * u64::from(connections);
    if needed + in_use <= limit {
        return Ok(());
    }
    Err(crate::exit::UsageError::err(format!(
        "{}: the workload prepares {per_connection} statements per connection, {needed} at \
         {connections} connections, but the server allows max_prepared_stmt_count = {limit} \
         ({in_use} in use): raise it (SET GLOBAL max_prepared_stmt_count = {}) or send the \
         statements as text (--ps-mode disable)",
        target.side,
        needed + in_use
    )))
}
