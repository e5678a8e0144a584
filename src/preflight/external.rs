//! What only a connection can tell about an external server (`[connection]`), checked
//! by `abtest check` before a run would find it out: the login (with the real
//! password), the connection limits at the largest thread level (the run's own check,
//! `Target::external`), the database, the grants the workload needs, the data set
//! against the server's buffer pool, and its free disk where this host can see it.

use mysql::prelude::Queryable;

use crate::db::Endpoint;
use crate::plan::{Plan, SidePlan, TargetSpec};
use crate::target::Target;

/// The privileges the sbtest workloads need on their database: they create, load,
/// index, read, change and drop their own tables.
const SBTEST_PRIVILEGES: &[&str] = &[
    "SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "INDEX",
];

/// What the check found on one external side that does not stop a run.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    /// One line per thing checked that passed, for the summary.
    pub(crate) passed: Vec<String>,
    /// Things worth a warning.
    pub(crate) warnings: Vec<String>,
}

/// Checks the external server of `side`; an error stops the check with its exit code
/// (1 when the server cannot be reached or refuses the login, 2 for a setting to fix).
pub(crate) fn check(plan: &Plan, side: &SidePlan) -> anyhow::Result<Findings> {
    let TargetSpec::External {
        endpoint,
        user,
        database,
        ..
    } = &side.target
    else {
        return Ok(Findings::default());
    };
    let max_threads = plan.max_threads();
    let target = Target::external(side, max_threads)?;
    let mut findings = Findings::default();
    findings.passed.push(format!(
        "logged in as {user}@{endpoint}, database `{database}` exists; it allows the {} \
         connections of {max_threads} threads",
        max_threads + crate::target::OWN_CONNECTIONS
    ));
    let mut conn = target.admin.connect()?;
    if plan.workload.uses_sbtest() && plan.workload.file().is_none() {
        check_grants(&mut conn, side, database, &mut findings)?;
    }
    let (datadir, pool): (String, u64) = conn
        .query_first("SELECT @@datadir, @@innodb_buffer_pool_size")?
        .unwrap_or_default();
    let data = super::data_size::estimate(&plan.workload, max_threads);
    if let Some(data) = data {
        findings
            .warnings
            .extend(super::data_size::larger_than_pool(side, data, pool));
    }
    findings.passed.push(disk(endpoint, &datadir, data, side)?);
    Ok(findings)
}

/// Refuses a user that lacks a privilege the workload needs on `database` (exit 2,
/// with the GRANT that gives it); privileges from roles are not read, so with a role a
/// missing one is a warning.
fn check_grants(
    conn: &mut mysql::Conn,
    side: &SidePlan,
    database: &str,
    findings: &mut Findings,
) -> anyhow::Result<()> {
    let grants: Vec<String> = conn.query("SHOW GRANTS")?;
    let held = Held::read(&grants, database);
    let missing: Vec<&str> = SBTEST_PRIVILEGES
        .iter()
        .copied()
        .filter(|p| !held.all && !held.privileges.iter().any(|h| h == p))
        .collect();
    if missing.is_empty() {
        findings.passed.push(format!(
            "the user may create, load and drop the sbtest tables in `{database}`"
        ));
        return Ok(());
    }
    let message = format!(
        "{} ({}): the user lacks {} on `{database}`, which the workload needs to create, \
         load and drop its tables; GRANT {} ON `{database}`.* TO the user",
        side.side,
        side.profile.display(),
        missing.join(", "),
        missing.join(", ")
    );
    if held.roles {
        findings.warnings.push(format!(
            "{message} (or check that a role it has gives them: roles are not read)"
        ));
        return Ok(());
    }
    Err(crate::exit::UsageError::err(message))
}

/// The privileges `SHOW GRANTS` gives on a database, globally or on it.
#[derive(Debug, Default, PartialEq)]
struct Held {
    /// ALL PRIVILEGES.
    all: bool,
    /// Each privilege, upper case.
    privileges: Vec<String>,
    /// Whether a role is granted (its privileges are not in these lines).
    roles: bool,
}

impl Held {
    fn read(grants: &[String], database: &str) -> Held {
        let mut held = Held::default();
        for grant in grants {
            let Some(rest) = grant.strip_prefix("GRANT ") else {
                continue;
            };
            let Some((privileges, on)) = rest.split_once(" ON ") else {
                held.roles = true;
                continue;
            };
            let target = on.split(" TO ").next().unwrap_or("").trim();
            if !covers(target, database) {
                continue;
            }
            for privilege in privileges.split(',').map(|p| p.trim().to_ascii_uppercase()) {
                if privilege == "ALL PRIVILEGES" || privilege == "ALL" {
                    held.all = true;
                }
                held.privileges.push(privilege);
            }
        }
        held
    }
}

/// Whether a grant on `target` (`*.*`, `` `db`.* ``, with `%` and `_` wildcards) covers
/// every table of `database`.
fn covers(target: &str, database: &str) -> bool {
    if target == "*.*" {
        return true;
    }
    let Some(schema) = target.strip_suffix(".*") else {
        return false;
    };
    let pattern = schema.trim_matches('`').replace("``", "`");
    like(pattern.as_bytes(), database.as_bytes())
}

/// SQL LIKE with `%`, `_` and `\` escapes, as grant database names match.
fn like(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((b'%', rest)) => (0..=text.len()).any(|skip| like(rest, &text[skip..])),
        Some((b'_', rest)) => !text.is_empty() && like(rest, &text[1..]),
        Some((b'\\', rest)) if !rest.is_empty() => {
            text.first() == Some(&rest[0]) && like(&rest[1..], &text[1..])
        }
        Some((c, rest)) => text.first() == Some(c) && like(rest, &text[1..]),
    }
}

/// The free disk where the server keeps its data, when this host can see it (a socket,
/// or a TCP host that is this one); refuses a data set that will not fit (exit 2).
fn disk(
    endpoint: &Endpoint,
    datadir: &str,
    data: Option<u64>,
    side: &SidePlan,
) -> anyhow::Result<String> {
    let local = match endpoint {
        Endpoint::Socket { .. } => true,
        Endpoint::Tcp { host, .. } => ["localhost", "127.0.0.1", "::1"].contains(&host.as_str()),
    };
    let free = local
        .then(|| super::free_bytes(std::path::Path::new(datadir)))
        .flatten();
    let Some(free) = free else {
        let why = if local {
            "its datadir cannot be read from here"
        } else {
            "the server is on another host"
        };
        return Ok(format!("free disk: unknown ({why})"));
    };
    match data {
        Some(data) if data > free => Err(crate::exit::UsageError::err(format!(
            "{} ({}): the sbtest data needs about {} but {} is free in the server's datadir \
             {datadir}; lower --table-size or --tables, or free space there",
            side.side,
            side.profile.display(),
            super::bytes(data),
            super::bytes(free)
        ))),
        _ => Ok(format!("free disk in {datadir}: {}", super::bytes(free))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_on_the_database_or_everything_count_and_others_do_not() {
        let grants = [
            "GRANT USAGE ON *.* TO `u`@`localhost` IDENTIFIED BY PASSWORD '*AB'".to_string(),
            "GRANT SELECT, INSERT ON `sbtest`.* TO `u`@`localhost`".to_string(),
            "GRANT ALL PRIVILEGES ON `other`.* TO `u`@`localhost`".to_string(),
            "GRANT DELETE ON `sbt%`.* TO `u`@`localhost`".to_string(),
            "GRANT DROP ON `sb\\_%`.* TO `u`@`localhost`".to_string(),
            "GRANT UPDATE ON `sbtest`.`t` TO `u`@`localhost`".to_string(),
        ];
        let held = Held::read(&grants, "sbtest");
        assert!(!held.all && !held.roles);
        assert_eq!(held.privileges, ["USAGE", "SELECT", "INSERT", "DELETE"]);
        let with_role = ["GRANT `dba` TO `u`@`localhost`".to_string()];
        assert!(Held::read(&with_role, "sbtest").roles);
        let all = ["GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost`".to_string()];
        assert!(Held::read(&all, "sbtest").all);
    }
}
