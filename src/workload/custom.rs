//! Custom workloads from a TOML file (`--workload-file`): weighted transactions of the
//! user's own SQL with typed random parameters, so a DBA can A/B the queries that matter
//! to them, not only sysbench's.
//!
//! ```toml
//! sbtest = true                       # prepare the sbtest tables as usual (default)
//! setup = []                          # SQL run once per side before the first round
//! tables = []                         # tables setup creates, owned by the workload
//!
//! [params]
//! id = { type = "id" }                # a row id from --rand-type over 1..=--table-size
//! t = { type = "table" }              # a table number 1..=--tables (inlined into the SQL)
//! n = { type = "int", min = 1, max = 100 }
//! s = { type = "string", pattern = "###-@@@" }   # # digit, @ letter
//!
//! [[transaction]]
//! name = "lookup"
//! weight = 9
//! statements = ["SELECT c FROM sbtest{t} WHERE id = {id}"]
//!
//! [[transaction]]
//! name = "touch"
//! weight = 1
//! begin = true                        # wrap in BEGIN/COMMIT
//! statements = ["UPDATE sbtest{t} SET k = k + {n} WHERE id = {id}"]
//! ```
//!
//! Parameter values are drawn once per event, so every statement of a transaction sees
//! the same values. Table parameters change the statement text and are inlined; all
//! other parameters are bound to server-side prepared statements.

use std::collections::BTreeMap;
use std::path::Path;

use mysql::prelude::Queryable;
use mysql::{Conn, Value};
use serde::{Deserialize, Serialize};

use crate::db::sql_text::{self, Action};
use crate::exit::UsageError;
use crate::workload::event_log::{ClassId, ClassNames, EventLog, StatementKind};
use crate::workload::placeholder::{self, Placeholder, placeholders};
use crate::workload::random::WorkloadRng;
use crate::workload::statement::Stmt;

/// A custom workload as written in its file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomWorkload {
    /// Whether the sbtest tables are prepared as for the built-in workloads.
    #[serde(default = "yes")]
    pub(crate) sbtest: bool,
    /// SQL run once per side before the first round.
    #[serde(default)]
    pub(crate) setup: Vec<String>,
    /// Tables this workload creates (in `setup`) and owns: the only ones besides sbtestN
    /// that a write workload may find in the database. `abtest cleanup` does not drop
    /// them (they carry no mark of abtest's); it names them for the user to drop.
    #[serde(default)]
    pub(crate) tables: Vec<String>,
    /// Whether the workload writes to tables it does not own (set by `abtest capture`):
    /// a replay against an external server then needs `--allow-writes`.
    #[serde(default)]
    pub(crate) writes: bool,
    /// Typed random parameters.
    #[serde(default)]
    pub(crate) params: BTreeMap<String, Param>,
    /// How the captured server was driven (set by `abtest capture` from a log with
    /// timestamps), for `--threads captured` and `--rate captured`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) captured: Option<CapturedLoad>,
    /// Read statements whose answers change on their own (the time, chance, the session,
    /// the server), each with the reason (set by `abtest capture`; yours to add for what
    /// abtest cannot read, a stored function): `--check-results` compares only what does
    /// not depend on it and never calls the rest a difference.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) nondeterministic: BTreeMap<String, String>,
    /// Weighted transactions.
    #[serde(rename = "transaction")]
    pub(crate) transactions: Vec<Transaction>,
}

/// The load a captured log showed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CapturedLoad {
    /// The most sessions at work at once.
    pub(crate) sessions: u32,
    /// Transactions per second over the log's span.
    pub(crate) transactions_per_second: f64,
    /// The span of the log, in seconds.
    pub(crate) seconds: u64,
}

fn yes() -> bool {
    true
}

/// A typed random parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum Param {
    /// A row id from the workload's distribution over 1..=table_size.
    Id,
    /// A table number inlined into the statement text: 1..=--tables, or one of `values`
    /// by `weights` (a captured workload's tables, `01` kept as written).
    Table {
        /// The numbers to draw from, digits only; none: 1..=--tables.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        values: Vec<String>,
        /// How often each value is drawn, relative to the others (equal when none).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        weights: Vec<u64>,
    },
    /// A uniform integer in [min, max].
    Int {
        /// Lowest value.
        min: i64,
        /// Highest value.
        max: i64,
    },
    /// A string of `pattern` with `#` a random digit and `@` a random letter.
    String {
        /// The pattern.
        pattern: String,
    },
    /// One of `values`, by `weights` (equal weights when none are given): the observed
    /// values of a captured workload.
    Choice {
        /// The values.
        values: Vec<ChoiceValue>,
        /// How often each value is drawn, relative to the others.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        weights: Vec<u64>,
    },
}

impl Param {
    /// Whether the parameter is a table number, inlined into the text.
    pub(crate) fn is_table(&self) -> bool {
        matches!(self, Param::Table { .. })
    }

    /// A table parameter's numbers as inlined, by drawn index: its values, or 1..=tables.
    fn table_numbers(&self, tables: u32) -> Vec<String> {
        match self {
            Param::Table { values, .. } if !values.is_empty() => values.clone(),
            _ => (1..=tables.max(1)).map(|t| t.to_string()).collect(),
        }
    }

    /// Running sums of the weights a parameter is drawn by: a choice's, or a table's
    /// with captured values.
    pub(super) fn cumulative(&self) -> Option<Vec<u64>> {
        match self {
            Param::Choice { values, weights } => Some(cumulative(values.len(), weights)),
            Param::Table { values, weights } if !values.is_empty() => {
                Some(cumulative(values.len(), weights))
            }
            _ => None,
        }
    }
}

/// A value of a `choice` parameter: a whole number or a string.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum ChoiceValue {
    /// A whole number, bound as an integer.
    Int(i64),
    /// A string (also a decimal kept as written), bound as a string.
    Text(String),
}

impl ChoiceValue {
    pub(super) fn to_value(&self) -> Value {
        match self {
            ChoiceValue::Int(n) => Value::from(*n),
            ChoiceValue::Text(text) => Value::from(text.as_str()),
        }
    }
}

/// One weighted transaction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Transaction {
    /// Name, used in messages.
    pub(crate) name: String,
    /// Relative frequency.
    #[serde(default = "one")]
    pub(crate) weight: u32,
    /// Wrap the statements in BEGIN/COMMIT.
    #[serde(default)]
    pub(crate) begin: bool,
    /// SQL with `{param}` placeholders.
    pub(crate) statements: Vec<String>,
}

fn one() -> u32 {
    1
}

impl CustomWorkload {
    /// Reads and validates a workload file; errors name the file, the line and the statement.
    pub(crate) fn load(path: &Path) -> anyhow::Result<CustomWorkload> {
        let source = std::fs::read_to_string(path).map_err(|e| {
            UsageError::err(format!(
                "workload file {}: cannot read it ({e})",
                path.display()
            ))
        })?;
        Self::parse(&source, path)
    }

    /// Parses and validates workload text read from `path`.
    pub fn parse(source: &str, path: &Path) -> anyhow::Result<CustomWorkload> {
        let workload: CustomWorkload = toml::from_str(source).map_err(|e| {
            let line = e
                .span()
                .map_or(1, |s| crate::profile::line_at(source, s.start));
            UsageError::err(format!(
                "workload file {}:{line}: {}",
                path.display(),
                e.message().trim()
            ))
        })?;
        workload.validate().map_err(|(needle, message)| {
            let line = source
                .lines()
                .position(|l| l.contains(&needle))
                .map_or(1, |i| i + 1);
            UsageError::err(format!(
                "workload file {}:{line}: {message}",
                path.display()
            ))
        })?;
        Ok(workload)
    }

    /// Checks weights, placeholders and parameter ranges. The error carries a text to
    /// find its line by, and the message.
    fn validate(&self) -> Result<(), (String, String)> {
        if self.transactions.is_empty() {
            return Err((
                "[[transaction]]".into(),
                "no [[transaction]] defined; add at least one".into(),
            ));
        }
        if self.transactions.iter().all(|t| t.weight == 0) {
            return Err(("weight".into(), "every transaction has weight 0".into()));
        }
        for (name, param) in &self.params {
            match param {
                Param::Int { min, max } if min > max => {
                    return Err((
                        format!("{name} ="),
                        format!("parameter `{name}`: min {min} is above max {max}"),
                    ));
                }
                Param::String { pattern } if pattern.is_empty() => {
                    return Err((
                        format!("{name} ="),
                        format!("parameter `{name}`: the pattern is empty"),
                    ));
                }
                Param::Choice { values, .. } if values.is_empty() => {
                    return Err((
                        format!("{name} ="),
                        format!("parameter `{name}`: a choice needs at least one value"),
                    ));
                }
                Param::Choice { values, weights } => check_weights(name, values.len(), weights)?,
                Param::Table { values, weights } => {
                    if let Some(bad) = values
                        .iter()
                        .find(|v| v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()))
                    {
                        return Err((
                            format!("{name} ="),
                            format!(
                                "parameter `{name}`: table value \"{bad}\" is not a number; a table parameter's values are digits, inlined into the table name"
                            ),
                        ));
                    }
                    check_weights(name, values.len(), weights)?;
                }
                _ => {}
            }
        }
        for transaction in &self.transactions {
            if transaction.statements.is_empty() {
                return Err((
                    format!("\"{}\"", transaction.name),
                    format!("transaction `{}` has no statements", transaction.name),
                ));
            }
            for (index, sql) in transaction.statements.iter().enumerate() {
                for placeholder in placeholders(sql).map_err(|m| (sql.clone(), m))? {
                    let where_ = format!(
                        "transaction `{}`, statement {}",
                        transaction.name,
                        index + 1
                    );
                    self.check_placeholder(placeholder)
                        .map_err(|m| (sql.clone(), format!("{where_}: {m}")))?;
                }
            }
        }
        self.check_nondeterministic()
    }

    /// Every statement `[nondeterministic]` names is one of the file's.
    fn check_nondeterministic(&self) -> Result<(), (String, String)> {
        let statements = self.transactions.iter().flat_map(|t| &t.statements);
        match self
            .nondeterministic
            .keys()
            .find(|key| !statements.clone().any(|sql| sql == *key))
        {
            Some(key) => Err((
                "[nondeterministic]".into(),
                format!(
                    "[nondeterministic] names a statement that no transaction has: {key:?}; \
                     write it exactly as in `statements`"
                ),
            )),
            None => Ok(()),
        }
    }

    /// The query classes: every statement as written, in file order, with BEGIN first
    /// and COMMIT last when a transaction uses them.
    pub(crate) fn class_names(&self) -> ClassNames {
        let mut names = ClassNames::default();
        let begin = self.transactions.iter().any(|t| t.begin);
        if begin {
            names.id("BEGIN");
        }
        for sql in self.transactions.iter().flat_map(|t| &t.statements) {
            names.id(sql);
        }
        if begin {
            names.id("COMMIT");
        }
        names
    }

    /// Whether a statement may change data: not provably a read, transaction control or
    /// a session setting (a comment in front of a DELETE hides nothing).
    pub(crate) fn is_write(sql: &str) -> bool {
        sql_text::is_write(sql)
    }

    /// Whether `placeholder` names a parameter, and an offset only a whole number.
    fn check_placeholder(&self, placeholder: Placeholder<'_>) -> Result<(), String> {
        let name = placeholder.name;
        let Some(param) = self.params.get(name) else {
            return Err(format!(
                "unknown parameter {{{name}}}; define it under [params]"
            ));
        };
        let whole = match param {
            Param::Id | Param::Int { .. } => true,
            Param::Choice { values, .. } => values.iter().all(|v| matches!(v, ChoiceValue::Int(_))),
            Param::Table { .. } | Param::String { .. } => false,
        };
        if placeholder.offset != 0 && !whole {
            return Err(format!(
                "{{{name} {:+}}} adds a number to `{name}`, whose values are not all whole numbers; use a parameter of type id, int, or a choice of numbers",
                placeholder.offset
            ));
        }
        Ok(())
    }

    /// What a statement does, for the read/write/other counts, read as the server
    /// executes it (`db::sql_text`): anything not provably read-only, transaction
    /// control or a session setting counts as a write.
    pub(super) fn kind(sql: &str) -> StatementKind {
        match sql_text::classify(sql) {
            Action::Read => StatementKind::Read,
            Action::Write => StatementKind::Write,
            Action::Begin | Action::End | Action::Session | Action::Empty => StatementKind::Other,
        }
    }
}

/// A statement prepared for every table number it can take.
#[derive(Debug)]
struct PreparedStatement {
    kind: StatementKind,
    /// Its query class: the statement as written in the file.
    class: ClassId,
    /// The bound parameters in `?` order, each with the number added to its value.
    bound: Vec<(String, i64)>,
    /// The table parameter inlined into the text, if any.
    table_param: Option<String>,
    /// One statement per table number (one entry when no table parameter is used).
    per_table: Vec<Stmt>,
}

/// A connection's prepared custom workload.
#[derive(Debug)]
pub(crate) struct CustomSession {
    workload: CustomWorkload,
    /// The classes of BEGIN and COMMIT.
    begin: ClassId,
    commit: ClassId,
    transactions: Vec<Vec<PreparedStatement>>,
    /// The parameters each transaction uses: only those are drawn for its event.
    used: Vec<Vec<String>>,
    /// Cumulative weights of each `choice` parameter.
    cumulative: BTreeMap<String, Vec<u64>>,
    total_weight: u32,
    values: BTreeMap<String, Value>,
    tables: u32,
    table_size: u32,
}

impl CustomSession {
    /// Prepares every statement on `conn`.
    pub(crate) fn prepare(
        conn: &mut Conn,
        workload: &CustomWorkload,
        tables: u32,
        table_size: u32,
        prepared: bool,
    ) -> Result<CustomSession, mysql::Error> {
        let mut transactions = Vec::new();
        // One server-side statement per distinct text: a captured workload repeats its
        // statements across many transaction shapes, and every prepared statement counts
        // against the server's max_prepared_stmt_count.
        let mut cache = BTreeMap::new();
        let mut classes = workload.class_names();
        for transaction in &workload.transactions {
            let statements = transaction
                .statements
                .iter()
                .map(|sql| {
                    let mut statement =
                        prepare_statement(conn, workload, sql, tables, prepared, &mut cache)?;
                    statement.class = classes.id(sql);
                    Ok(statement)
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(|(e, sql)| naming(e, &sql, &transaction.name))?;
            transactions.push(statements);
        }
        let used = workload
            .transactions
            .iter()
            .map(|t| {
                let mut names: Vec<String> = t
                    .statements
                    .iter()
                    .flat_map(|sql| placeholders(sql).unwrap_or_default())
                    .map(|p| p.name.to_string())
                    .collect();
                names.sort();
                names.dedup();
                names
            })
            .collect();
        let cumulative = workload
            .params
            .iter()
            .filter_map(|(name, param)| Some((name.clone(), param.cumulative()?)))
            .collect();
        Ok(CustomSession {
            begin: classes.id("BEGIN"),
            commit: classes.id("COMMIT"),
            total_weight: workload.transactions.iter().map(|t| t.weight).sum(),
            used,
            cumulative,
            workload: workload.clone(),
            transactions,
            values: BTreeMap::new(),
            tables,
            table_size,
        })
    }

    /// Runs one event: a transaction chosen by weight.
    pub(crate) fn event(
        &mut self,
        conn: &mut Conn,
        rng: &mut WorkloadRng,
        log: &mut EventLog,
    ) -> Result<(), mysql::Error> {
        let index = self.pick(rng);
        self.draw(index, rng);
        let begin = self.workload.transactions[index].begin;
        if begin {
            log.statement(self.begin, StatementKind::Other, || {
                conn.query_drop("BEGIN")
            })?;
        }
        for statement in &self.transactions[index] {
            let table = statement
                .table_param
                .as_ref()
                .and_then(|name| self.values.get(name))
                .and_then(|v| mysql::from_value_opt::<u32>(v.clone()).ok())
                .map_or(0, |t| t as usize - 1);
            let params = statement
                .bound
                .iter()
                .map(|(name, by)| placeholder::offset(&self.values[name], *by))
                .collect();
            log.statement(statement.class, statement.kind, || {
                statement.per_table[table].exec(conn, params)
            })?;
        }
        if begin {
            log.statement(self.commit, StatementKind::Other, || {
                conn.query_drop("COMMIT")
            })?;
        }
        Ok(())
    }

    /// Whether any transaction runs inside BEGIN/COMMIT (a failed one needs a ROLLBACK).
    pub(crate) fn uses_transactions(&self) -> bool {
        self.workload.transactions.iter().any(|t| t.begin)
    }

    fn pick(&self, rng: &mut WorkloadRng) -> usize {
        let mut ticket = rng.uniform(1, self.total_weight);
        for (index, transaction) in self.workload.transactions.iter().enumerate() {
            if ticket <= transaction.weight {
                return index;
            }
            ticket -= transaction.weight;
        }
        self.workload.transactions.len() - 1
    }

    /// Draws the values of the parameters transaction `index` uses.
    fn draw(&mut self, index: usize, rng: &mut WorkloadRng) {
        for name in &self.used[index] {
            let param = &self.workload.params[name];
            let value = draw(
                param,
                self.cumulative.get(name),
                rng,
                self.tables,
                self.table_size,
            );
            self.values.insert(name.clone(), value);
        }
    }
}

/// One value of `param`; a choice uses its running sums of weights.
pub(super) fn draw(
    param: &Param,
    cumulative: Option<&Vec<u64>>,
    rng: &mut WorkloadRng,
    tables: u32,
    table_size: u32,
) -> Value {
    match param {
        Param::Id => Value::from(rng.row_id(table_size.max(1))),
        Param::Table { values, .. } if !values.is_empty() => {
            Value::from(weighted_index(cumulative, rng, values.len()) + 1)
        }
        Param::Table { .. } => Value::from(rng.uniform(1, tables.max(1))),
        Param::Int { min, max } => Value::from(rng.int_in(*min, *max)),
        Param::String { pattern } => Value::from(rng.template_string(pattern)),
        Param::Choice { values, .. } => {
            values[weighted_index(cumulative, rng, values.len())].to_value()
        }
    }
}

/// An index below `len` drawn by the running sums of its weights.
fn weighted_index(cumulative: Option<&Vec<u64>>, rng: &mut WorkloadRng, len: usize) -> usize {
    let sums = cumulative.map_or(&[][..], Vec::as_slice);
    let total = sums.last().copied().unwrap_or(1).clamp(1, i64::MAX as u64);
    let ticket = rng.int_in(1, total as i64) as u64;
    sums.partition_point(|&c| c < ticket).min(len - 1)
}

impl CustomWorkload {
    /// Every statement as the server is asked to prepare it (its first table inlined,
    /// every other placeholder a `?`), with its transaction and the statement as written.
    pub(crate) fn prepared_texts(&self, tables: u32) -> Vec<(&str, &str, String)> {
        self.transactions
            .iter()
            .flat_map(|t| {
                t.statements
                    .iter()
                    .map(move |sql| (t.name.as_str(), sql.as_str(), render(sql, self, tables, 0)))
            })
            .collect()
    }

    /// How many statements one connection prepares: each distinct text once, a
    /// statement with a table parameter once per table.
    pub(crate) fn prepared_per_connection(&self, tables: u32) -> u64 {
        let mut texts = std::collections::BTreeSet::new();
        for sql in self.transactions.iter().flat_map(|t| &t.statements) {
            let count = table_count(self, sql, tables);
            texts.extend((0..count).map(|t| render(sql, self, tables, t)));
        }
        texts.len() as u64
    }
}

/// `error` with the statement that caused it and its transaction, so that a round that
/// cannot start names what to fix instead of only the server's "near '?'".
fn naming(error: mysql::Error, sql: &str, transaction: &str) -> mysql::Error {
    match error {
        mysql::Error::MySqlError(mut e) => {
            e.message = format!(
                "{} — while preparing `{sql}` of transaction \"{transaction}\" in the workload \
                 file; fix or remove that statement, or send statements as text (--ps-mode \
                 disable)",
                e.message
            );
            mysql::Error::MySqlError(e)
        }
        other => other,
    }
}

/// Refuses weights that do not fit `values` values: given, but not one per value, or
/// all 0.
fn check_weights(name: &str, values: usize, weights: &[u64]) -> Result<(), (String, String)> {
    if weights.is_empty() || (weights.len() == values && weights.iter().any(|&w| w > 0)) {
        return Ok(());
    }
    Err((
        format!("{name} ="),
        format!(
            "parameter `{name}`: {} weights for {values} values (give one per value, not all 0, or none)",
            weights.len()
        ),
    ))
}

/// Running sums of `values` weights (all 1 when none are given).
fn cumulative(values: usize, weights: &[u64]) -> Vec<u64> {
    let mut sum = 0u64;
    (0..values)
        .map(|i| {
            sum = sum.saturating_add(weights.get(i).copied().unwrap_or(1));
            sum
        })
        .collect()
}

fn prepare_statement(
    conn: &mut Conn,
    workload: &CustomWorkload,
    sql: &str,
    tables: u32,
    prepared: bool,
    cache: &mut BTreeMap<String, Stmt>,
) -> Result<PreparedStatement, (mysql::Error, String)> {
    let found = placeholders(sql).unwrap_or_default();
    let is_table = |p: &Placeholder<'_>| workload.params.get(p.name).is_some_and(Param::is_table);
    let table_param = found
        .iter()
        .find(|p| is_table(p))
        .map(|p| p.name.to_string());
    let bound: Vec<(String, i64)> = found
        .iter()
        .filter(|p| !is_table(p))
        .map(|p| (p.name.to_string(), p.offset))
        .collect();
    let per_table = (0..table_count(workload, sql, tables))
        .map(|table| {
            let text = render(sql, workload, tables, table);
            if let Some(known) = cache.get(&text) {
                return Ok(known.clone());
            }
            let statement = Stmt::new(conn, &text, prepared).map_err(|e| (e, text.clone()))?;
            cache.insert(text, statement.clone());
            Ok(statement)
        })
        .collect::<Result<Vec<_>, (mysql::Error, String)>>()?;
    Ok(PreparedStatement {
        kind: CustomWorkload::kind(sql),
        class: 0,
        bound,
        table_param,
        per_table,
    })
}

/// How many texts a statement has: one per number of its table parameter, or one.
fn table_count(workload: &CustomWorkload, sql: &str, tables: u32) -> usize {
    placeholders(sql)
        .unwrap_or_default()
        .iter()
        .find_map(|found| workload.params.get(found.name).filter(|p| p.is_table()))
        .map_or(1, |param| param.table_numbers(tables).len())
}

/// The statement text: table parameters inlined as their number at index `table`
/// (0-based), every other placeholder a `?`.
pub(super) fn render(sql: &str, workload: &CustomWorkload, tables: u32, table: usize) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let end = after.find('}').unwrap_or(after.len());
        let name = after[..end].trim();
        match workload.params.get(name).filter(|p| p.is_table()) {
            Some(param) => {
                let numbers = param.table_numbers(tables);
                out.push_str(&numbers[table.min(numbers.len() - 1)]);
            }
            None => out.push('?'),
        }
        rest = after.get(end + 1..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) const SAMPLE: &str = r#"
[params]
id = { type = "id" }
t = { type = "table" }
s = { type = "string", pattern = "@##" }

[[transaction]]
name = "lookup"
weight = 3
statements = ["SELECT c FROM sbtest{t} WHERE id = {id}"]

[[transaction]]
name = "write"
begin = true
statements = ["UPDATE sbtest{t} SET c = {s} WHERE id = {id}"]
"#;

    #[test]
    fn a_statement_is_prepared_once_per_text() {
        let workload = load(&format!(
            "{SAMPLE}\n[[transaction]]\nname = \"again\"\nstatements = [\"SELECT c FROM sbtest{{t}} WHERE id = {{id}}\", \"SELECT 1\"]\n"
        ))
        .unwrap();
        // Two distinct statements with a table parameter at 4 tables, one without.
        assert_eq!(workload.prepared_per_connection(4), 9);
    }

    pub(crate) fn load(text: &str) -> anyhow::Result<CustomWorkload> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.toml");
        std::fs::write(&path, text).unwrap();
        CustomWorkload::load(&path)
    }

    #[test]
    fn parses_and_renders() {
        let w = load(SAMPLE).unwrap();
        assert_eq!(w.transactions.len(), 2);
        assert_eq!(
            render(&w.transactions[1].statements[0], &w, 4, 2),
            "UPDATE sbtest3 SET c = ? WHERE id = ?"
        );
        assert_eq!(CustomWorkload::kind("  select 1"), StatementKind::Read);
        assert_eq!(CustomWorkload::kind("UPDATE x"), StatementKind::Write);
        assert_eq!(
            CustomWorkload::kind("/* purge */ DELETE FROM orders"),
            StatementKind::Write
        );
        assert_eq!(CustomWorkload::kind("-- x\nSELECT 1"), StatementKind::Read);
        assert_eq!(CustomWorkload::kind("TRUNCATE t"), StatementKind::Write);
        assert_eq!(CustomWorkload::kind("BEGIN"), StatementKind::Other);
    }

    #[test]
    fn a_captured_table_parameter_draws_its_numbers_as_written() {
        let w = load(
            "[params]\nt = { type = \"table\", values = [\"01\", \"02\"], weights = [3, 1] }\n\
             id = { type = \"id\" }\n[[transaction]]\nname = \"x\"\n\
             statements = [\"SELECT c FROM t_2024_{t} WHERE id BETWEEN {id} AND {id + 9}\"]\n",
        )
        .unwrap();
        let sql = &w.transactions[0].statements[0];
        assert_eq!(table_count(&w, sql, 8), 2, "--tables does not matter");
        assert_eq!(
            render(sql, &w, 8, 1),
            "SELECT c FROM t_2024_02 WHERE id BETWEEN ? AND ?"
        );
        let mut rng = WorkloadRng::seeded(1);
        let sums = w.params["t"].cumulative();
        let firsts = (0..4000)
            .filter(|_| {
                draw(&w.params["t"], sums.as_ref(), &mut rng, 8, 10) == Value::from(1_usize)
            })
            .count();
        assert!(
            (2800..3200).contains(&firsts),
            "drawn by weight 3:1: {firsts}"
        );
        for (bad, why) in [
            (
                "t = { type = \"table\", values = [\"1; DROP\"] }",
                "is not a number",
            ),
            (
                "t = { type = \"table\", values = [\"1\"], weights = [1, 2] }",
                "2 weights for 1 values",
            ),
            (
                "t = { type = \"string\", pattern = \"@\" }",
                "not all whole numbers",
            ),
        ] {
            let text = format!(
                "[params]\n{bad}\n[[transaction]]\nname = \"x\"\nstatements = [\"SELECT {{t + 1}}\"]\n"
            );
            let e = load(&text).unwrap_err().to_string();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn a_choice_is_drawn_by_its_weights() {
        let values = [ChoiceValue::Int(7), ChoiceValue::Text("x".into())];
        assert_eq!(cumulative(values.len(), &[3, 1]), [3, 4]);
        assert_eq!(cumulative(values.len(), &[]), [1, 2]);
        let w = load(
            "[params]\nc = { type = \"choice\", values = [1, \"a\"], weights = [1] }\n\
             [[transaction]]\nname = \"x\"\nstatements = [\"SELECT {c}\"]\n",
        );
        assert!(
            w.unwrap_err()
                .to_string()
                .contains("1 weights for 2 values")
        );
        let w = load(
            "writes = true\n[params]\nc = { type = \"choice\", values = [1, \"a\"] }\n\
             [[transaction]]\nname = \"x\"\nstatements = [\"SELECT {c}\"]\n",
        )
        .unwrap();
        assert!(w.writes);
        assert_eq!(
            w.params["c"],
            Param::Choice {
                values: vec![ChoiceValue::Int(1), ChoiceValue::Text("a".into())],
                weights: vec![]
            }
        );
    }

    #[test]
    fn errors_name_the_line_and_statement() {
        let bad = SAMPLE.replace(
            "WHERE id = {id}\"]\n\n[[transaction]]",
            "WHERE id = {nope}\"]\n\n[[transaction]]",
        );
        let message = load(&bad).unwrap_err().to_string();
        assert!(message.contains("w.toml:10:"), "{message}");
        assert!(
            message.contains("transaction `lookup`, statement 1: unknown parameter {nope}"),
            "{message}"
        );
        let message = load("[[transaction]]\nname = \"x\"\nstatments = []\n")
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("w.toml:3:") && message.contains("unknown field `statments`"),
            "{message}"
        );
        let message = load("[params]\nn = { type = \"int\", min = 5, max = 1 }\n[[transaction]]\nname = \"x\"\nstatements = [\"SELECT {n}\"]\n").unwrap_err().to_string();
        assert!(
            message.contains("w.toml:2:") && message.contains("min 5 is above max 1"),
            "{message}"
        );
    }
}
