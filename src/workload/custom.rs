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
//! ks = { type = "list", lengths = [2, 3], values = [5, 9, 12] }  # k IN ({ks}): 2 or 3 of them
//! d = { type = "pair", values = [["2024-01-01", "2024-03-31"]] }  # {d.low} and {d.high}
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
//! the same values. Table parameters change the statement text and are inlined, and a
//! list's length decides how many `?` its placeholder becomes; all values are bound to
//! server-side prepared statements (one per table number and list length).

use std::collections::BTreeMap;
use std::path::Path;

use mysql::prelude::Queryable;
use mysql::{Conn, Value};
use serde::{Deserialize, Serialize};

use crate::db::sql_text::{self, Action};
use crate::exit::UsageError;
use crate::workload::event_log::{ClassId, ClassNames, EventLog, StatementKind};
use crate::workload::placeholder::{self, Part, Placeholder, placeholders};
use crate::workload::random::WorkloadRng;
use crate::workload::settings::MAX_PLACEHOLDERS;
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
    /// A list for `IN ({name})`, its placeholder one `?` per element: the length one of
    /// `lengths` by `length_weights`, each element one of `values` by `weights` (distinct
    /// while there are enough), or without values a uniform integer in [min, max].
    List {
        /// The lengths a list is drawn with.
        lengths: Vec<u32>,
        /// How often each length is drawn (equal when none).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        length_weights: Vec<u64>,
        /// The elements' values.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        values: Vec<ChoiceValue>,
        /// How often each value is drawn (equal when none).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        weights: Vec<u64>,
        /// Without values: the lowest element.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min: Option<i64>,
        /// Without values: the highest element.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<i64>,
    },
    /// Two values drawn together, `{name.low}` and `{name.high}`: the ends of a range as
    /// they were captured, so the range keeps its width and its order.
    Pair {
        /// The (low, high) pairs.
        values: Vec<(ChoiceValue, ChoiceValue)>,
        /// How often each pair is drawn (equal when none).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        weights: Vec<u64>,
    },
}

/// Running sums of a parameter's weights: of its values, and of a list's lengths.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sums {
    values: Vec<u64>,
    lengths: Vec<u64>,
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

    /// Running sums of the weights a parameter is drawn by: a choice's, a pair's, a
    /// list's, or a table's with captured values.
    pub(super) fn cumulative(&self) -> Option<Sums> {
        let of = |values: usize, weights: &[u64]| Sums {
            values: cumulative(values, weights),
            lengths: Vec::new(),
        };
        match self {
            Param::Choice { values, weights } => Some(of(values.len(), weights)),
            Param::Pair { values, weights } => Some(of(values.len(), weights)),
            Param::Table { values, weights } if !values.is_empty() => {
                Some(of(values.len(), weights))
            }
            Param::List {
                lengths,
                length_weights,
                values,
                weights,
                ..
            } => Some(Sums {
                lengths: cumulative(lengths.len(), length_weights),
                ..of(values.len(), weights)
            }),
            _ => None,
        }
    }

    /// A list's lengths, by drawn index; none for any other parameter.
    fn list_lengths(&self) -> &[u32] {
        match self {
            Param::List { lengths, .. } => lengths,
            _ => &[],
        }
    }

    /// Whether every value the parameter can take is a whole number (an offset may be
    /// added to it).
    fn whole(&self) -> bool {
        let int = |v: &ChoiceValue| matches!(v, ChoiceValue::Int(_));
        match self {
            Param::Id | Param::Int { .. } => true,
            Param::Choice { values, .. } | Param::List { values, .. } => values.iter().all(int),
            Param::Pair { values, .. } => values.iter().all(|(low, high)| int(low) && int(high)),
            Param::Table { .. } | Param::String { .. } => false,
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
                Param::List { .. } => check_list(name, param)?,
                Param::Pair { values, .. } if values.is_empty() => {
                    return Err((
                        format!("{name} ="),
                        format!("parameter `{name}`: a pair needs at least one (low, high) value"),
                    ));
                }
                Param::Pair { values, weights } => check_weights(name, values.len(), weights)?,
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

    /// Whether `placeholder` names a parameter (a pair by one of its ends, nothing else
    /// so), and an offset only a whole number.
    fn check_placeholder(&self, placeholder: Placeholder<'_>) -> Result<(), String> {
        let name = placeholder.name;
        let Some(param) = self.params.get(name) else {
            return Err(format!(
                "unknown parameter {{{name}}}; define it under [params]"
            ));
        };
        let pair = matches!(param, Param::Pair { .. });
        if pair && placeholder.part == Part::Whole {
            return Err(format!(
                "`{name}` is a pair: write its ends as {{{name}.low}} and {{{name}.high}}"
            ));
        }
        if !pair && placeholder.part != Part::Whole {
            return Err(format!(
                "`{name}` is not a pair: .low and .high name the ends of a parameter of type pair"
            ));
        }
        if placeholder.offset != 0 && !param.whole() {
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
    /// The bound parameters in `?` order, each with the part of its values it binds and
    /// the number added to them.
    bound: Vec<(String, Part, i64)>,
    /// Which text it takes for the drawn table and list lengths.
    variants: Variants,
    /// One statement per text, in [`Variants`] order (one when it has no table
    /// parameter and no list).
    texts: Vec<Stmt>,
    /// The bound value sent as NULL, for the server to assign: a captured INSERT id
    /// ([`super::assigned_ids`]).
    assigned: Option<usize>,
}

/// The texts a statement takes: one per number of its table parameter, times one per
/// length of each list it binds (a list of 3 is `?, ?, ?`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Variants {
    /// The table parameter and how many numbers it has.
    table: Option<(String, usize)>,
    /// Each list parameter the statement binds, with its lengths.
    lists: Vec<(String, Vec<u32>)>,
}

impl Variants {
    /// The variants of `sql`.
    pub(crate) fn of(workload: &CustomWorkload, sql: &str, tables: u32) -> Variants {
        let mut variants = Variants::default();
        for found in placeholders(sql).unwrap_or_default() {
            let Some(param) = workload.params.get(found.name) else {
                continue;
            };
            if param.is_table() && variants.table.is_none() {
                let numbers = param.table_numbers(tables).len();
                variants.table = Some((found.name.to_string(), numbers));
            }
            let lengths = param.list_lengths();
            if !lengths.is_empty() && !variants.lists.iter().any(|(n, _)| n == found.name) {
                variants
                    .lists
                    .push((found.name.to_string(), lengths.to_vec()));
            }
        }
        variants
    }

    /// Whether the statement binds a list (its `?` count then depends on the draw).
    pub(crate) fn has_lists(&self) -> bool {
        !self.lists.is_empty()
    }

    /// How many texts there are.
    pub(crate) fn count(&self) -> usize {
        self.lists
            .iter()
            .map(|(_, lengths)| lengths.len())
            .product::<usize>()
            * self.table.as_ref().map_or(1, |(_, n)| *n)
    }

    /// The `n`-th text's table index and list lengths.
    pub(crate) fn nth(&self, mut n: usize) -> (usize, BTreeMap<&str, usize>) {
        let mut lengths = BTreeMap::new();
        for (name, options) in self.lists.iter().rev() {
            lengths.insert(name.as_str(), options[n % options.len()] as usize);
            n /= options.len();
        }
        (n, lengths)
    }

    /// Which text fits the drawn `values`: the table number's and each list's length.
    pub(crate) fn index(&self, values: &BTreeMap<String, Vec<Value>>) -> usize {
        let mut index = self
            .table
            .as_ref()
            .and_then(|(name, _)| values.get(name)?.first())
            .and_then(|v| mysql::from_value_opt::<usize>(v.clone()).ok())
            .map_or(0, |t| t.saturating_sub(1));
        for (name, options) in &self.lists {
            let drawn = values.get(name).map_or(0, Vec::len);
            let at = options
                .iter()
                .position(|&l| l as usize == drawn)
                .unwrap_or(0);
            index = index * options.len() + at;
        }
        index
    }
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
    cumulative: BTreeMap<String, Sums>,
    total_weight: u32,
    /// The values drawn for the event, by parameter: one, a pair's two, a list's all.
    values: BTreeMap<String, Vec<Value>>,
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
            let text = &statement.texts[statement.variants.index(&self.values)];
            let mut params = bind(&statement.bound, &self.values);
            if let Some(value) = statement.assigned.and_then(|at| params.get_mut(at)) {
                *value = Value::NULL;
            }
            log.statement(statement.class, statement.kind, || text.exec(conn, params))?;
        }
        if begin {
            log.statement(self.commit, StatementKind::Other, || {
                conn.query_drop("COMMIT")
            })?;
        }
        Ok(())
    }

    /// Sends the `slot`-th bound value of a transaction's statement as NULL, for the
    /// server to assign ([`super::assigned_ids`]).
    pub(crate) fn leave_to_server(&mut self, transaction: usize, statement: usize, slot: usize) {
        if let Some(found) = self
            .transactions
            .get_mut(transaction)
            .and_then(|t| t.get_mut(statement))
        {
            found.assigned = Some(slot);
        }
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
            match self.values.get_mut(name) {
                Some(slot) => *slot = value,
                None => {
                    self.values.insert(name.clone(), value);
                }
            }
        }
    }
}

/// The values `bound` binds, in `?` order, from the drawn `values`.
pub(super) fn bind(
    bound: &[(String, Part, i64)],
    values: &BTreeMap<String, Vec<Value>>,
) -> Vec<Value> {
    bound
        .iter()
        .flat_map(|(name, part, by)| {
            part.of(&values[name])
                .iter()
                .map(|v| placeholder::offset(v, *by))
        })
        .collect()
}

/// The values of `param` for one event: one value; a pair's two ends; a list's
/// elements. A choice, pair or list uses its running sums of weights.
pub(super) fn draw(
    param: &Param,
    sums: Option<&Sums>,
    rng: &mut WorkloadRng,
    tables: u32,
    table_size: u32,
) -> Vec<Value> {
    let values_sums = sums.map(|s| s.values.as_slice());
    let one = match param {
        Param::Id => Value::from(rng.row_id(table_size.max(1))),
        Param::Table { values, .. } if !values.is_empty() => {
            Value::from(weighted_index(values_sums, rng, values.len()) + 1)
        }
        Param::Table { .. } => Value::from(rng.uniform(1, tables.max(1))),
        Param::Int { min, max } => Value::from(rng.int_in(*min, *max)),
        Param::String { pattern } => Value::from(rng.template_string(pattern)),
        Param::Choice { values, .. } => {
            values[weighted_index(values_sums, rng, values.len())].to_value()
        }
        Param::Pair { values, .. } => {
            let (low, high) = &values[weighted_index(values_sums, rng, values.len())];
            return vec![low.to_value(), high.to_value()];
        }
        Param::List { lengths, .. } => {
            let at = weighted_index(sums.map(|s| s.lengths.as_slice()), rng, lengths.len());
            return draw_list(param, lengths[at] as usize, values_sums, rng);
        }
    };
    vec![one]
}

/// A list of `length` elements of the list parameter `param`, distinct while its values
/// allow (a few draws that repeat one are tried again, then kept).
fn draw_list(
    param: &Param,
    length: usize,
    sums: Option<&[u64]>,
    rng: &mut WorkloadRng,
) -> Vec<Value> {
    let Param::List {
        values, min, max, ..
    } = param
    else {
        return Vec::new();
    };
    let mut element = || match (values.is_empty(), min, max) {
        (false, _, _) => values[weighted_index(sums, rng, values.len())].to_value(),
        (true, Some(low), Some(high)) => Value::from(rng.int_in(*low, *high)),
        _ => Value::NULL,
    };
    let mut list: Vec<Value> = Vec::with_capacity(length);
    let mut retries = 8 * length;
    while list.len() < length {
        let value = element();
        if !list.contains(&value) || retries == 0 {
            list.push(value);
        } else {
            retries -= 1;
        }
    }
    list
}

/// An index below `len` drawn by the running sums of its weights.
fn weighted_index(cumulative: Option<&[u64]>, rng: &mut WorkloadRng, len: usize) -> usize {
    let sums = cumulative.unwrap_or_default();
    let total = sums.last().copied().unwrap_or(1).clamp(1, i64::MAX as u64);
    let ticket = rng.int_in(1, total as i64) as u64;
    sums.partition_point(|&c| c < ticket).min(len - 1)
}

impl CustomWorkload {
    /// Every statement as the server is asked to prepare it (its first table inlined,
    /// each list of its first length, every other placeholder a `?`), with its
    /// transaction and the statement as written.
    pub(crate) fn prepared_texts(&self, tables: u32) -> Vec<(&str, &str, String)> {
        self.transactions
            .iter()
            .flat_map(|t| {
                t.statements.iter().map(move |sql| {
                    let variants = Variants::of(self, sql, tables);
                    let (table, lengths) = variants.nth(0);
                    let text = render(sql, self, tables, table, &lengths);
                    (t.name.as_str(), sql.as_str(), text)
                })
            })
            .collect()
    }

    /// How many statements one connection prepares: each distinct text once, a
    /// statement with a table parameter once per table and with a list once per length.
    pub(crate) fn prepared_per_connection(&self, tables: u32) -> u64 {
        self.distinct_texts(tables, |_| true).len() as u64
    }

    /// Every distinct text the statements `which` keeps take: each table number, each
    /// list length.
    pub(crate) fn distinct_texts(
        &self,
        tables: u32,
        which: impl Fn(&str) -> bool,
    ) -> std::collections::BTreeSet<String> {
        let mut texts = std::collections::BTreeSet::new();
        for sql in self.transactions.iter().flat_map(|t| &t.statements) {
            if !which(sql) {
                continue;
            }
            let variants = Variants::of(self, sql, tables);
            texts.extend((0..variants.count()).map(|n| {
                let (table, lengths) = variants.nth(n);
                render(sql, self, tables, table, &lengths)
            }));
        }
        texts
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

/// Refuses a list without lengths, one longer than a statement can bind, with a length of 0, or without elements to draw:
/// neither values nor both of min and max, or min above max.
fn check_list(name: &str, param: &Param) -> Result<(), (String, String)> {
    let Param::List {
        lengths,
        length_weights,
        values,
        weights,
        min,
        max,
    } = param
    else {
        return Ok(());
    };
    let refuse = |why: &str| Err((format!("{name} ="), format!("parameter `{name}`: {why}")));
    if lengths.is_empty() || lengths.contains(&0) {
        return refuse("a list needs its lengths, each at least 1 (lengths = [2, 3])");
    }
    if let Some(long) = lengths.iter().find(|&&l| l > MAX_PLACEHOLDERS) {
        return refuse(&format!(
            "a list of {long} values is more than a prepared statement can bind \
             ({MAX_PLACEHOLDERS} placeholders at most)"
        ));
    }
    match (values.is_empty(), min, max) {
        (false, None, None) => {}
        (true, Some(low), Some(high)) if low <= high => {}
        (true, Some(low), Some(high)) => {
            return refuse(&format!("min {low} is above max {high}"));
        }
        _ => {
            return refuse(
                "a list draws its elements from values = [...] or from min and max, one of the two",
            );
        }
    }
    check_weights(name, values.len(), weights)?;
    check_weights(name, lengths.len(), length_weights)
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
    let bound = bound(workload, sql);
    let variants = Variants::of(workload, sql, tables);
    let texts = (0..variants.count())
        .map(|n| {
            let (table, lengths) = variants.nth(n);
            let text = render(sql, workload, tables, table, &lengths);
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
        variants,
        texts,
        assigned: None,
    })
}

/// The placeholders of `sql` that are bound (all but its table's), in order: each with
/// the part of its values it binds and its offset.
pub(super) fn bound(workload: &CustomWorkload, sql: &str) -> Vec<(String, Part, i64)> {
    let is_table = |p: &Placeholder<'_>| workload.params.get(p.name).is_some_and(Param::is_table);
    placeholders(sql)
        .unwrap_or_default()
        .iter()
        .filter(|p| !is_table(p))
        .map(|p| (p.name.to_string(), p.part, p.offset))
        .collect()
}

/// The statement text: table parameters inlined as their number at index `table`
/// (0-based), a list as one `?` per element (`lengths`, else its first length), every
/// other placeholder a `?`.
pub(super) fn render(
    sql: &str,
    workload: &CustomWorkload,
    tables: u32,
    table: usize,
    lengths: &BTreeMap<&str, usize>,
) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let end = after.find('}').unwrap_or(after.len());
        let name = placeholder::parse(after[..end].trim()).map_or("", |p| p.name);
        match workload.params.get(name) {
            Some(param) if param.is_table() => {
                let numbers = param.table_numbers(tables);
                out.push_str(&numbers[table.min(numbers.len() - 1)]);
            }
            Some(param) if !param.list_lengths().is_empty() => {
                let first = param.list_lengths()[0] as usize;
                let length = lengths.get(name).copied().unwrap_or(first).max(1);
                out.push_str(&vec!["?"; length].join(", "));
            }
            _ => out.push('?'),
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
            render(&w.transactions[1].statements[0], &w, 4, 2, &BTreeMap::new()),
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
        assert_eq!(
            Variants::of(&w, sql, 8).count(),
            2,
            "--tables does not matter"
        );
        assert_eq!(
            render(sql, &w, 8, 1, &BTreeMap::new()),
            "SELECT c FROM t_2024_02 WHERE id BETWEEN ? AND ?"
        );
        let mut rng = WorkloadRng::seeded(1);
        let sums = w.params["t"].cumulative();
        let firsts = (0..4000)
            .filter(|_| {
                draw(&w.params["t"], sums.as_ref(), &mut rng, 8, 10) == [Value::from(1_usize)]
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

    #[test]
    fn a_list_is_drawn_with_its_lengths_and_a_pair_whole() {
        let w = load(
            "[params]\nks = { type = \"list\", lengths = [2, 4], length_weights = [3, 1], values = [1, 2, 3, 4, 5] }\n\
             d = { type = \"pair\", values = [[\"2024-01-01\", \"2024-03-31\"], [\"2024-02-01\", \"2024-05-01\"]] }\n\
             [[transaction]]\nname = \"x\"\n\
             statements = [\"SELECT c FROM t WHERE k IN ({ks}) AND d BETWEEN {d.low} AND {d.high}\"]\n",
        )
        .unwrap();
        let sql = &w.transactions[0].statements[0];
        let variants = Variants::of(&w, sql, 1);
        assert_eq!(variants.count(), 2);
        let texts: Vec<String> = (0..2)
            .map(|n| {
                let (table, lengths) = variants.nth(n);
                render(sql, &w, 1, table, &lengths)
            })
            .collect();
        assert_eq!(
            texts,
            [
                "SELECT c FROM t WHERE k IN (?, ?) AND d BETWEEN ? AND ?",
                "SELECT c FROM t WHERE k IN (?, ?, ?, ?) AND d BETWEEN ? AND ?",
            ]
        );
        let mut rng = WorkloadRng::seeded(5);
        let bound = bound(&w, sql);
        let mut twos = 0;
        for _ in 0..2000 {
            let mut values = BTreeMap::new();
            for name in ["ks", "d"] {
                let sums = w.params[name].cumulative();
                values.insert(
                    name.to_string(),
                    draw(&w.params[name], sums.as_ref(), &mut rng, 1, 1),
                );
            }
            let list = &values["ks"];
            assert!(list.len() == 2 || list.len() == 4, "{list:?}");
            let mut distinct = list.clone();
            distinct.dedup();
            assert_eq!(distinct.len(), list.len(), "distinct elements: {list:?}");
            twos += usize::from(list.len() == 2);
            let params = bind(&bound, &values);
            assert_eq!(params.len(), list.len() + 2);
            let range = (params[list.len()].clone(), params[list.len() + 1].clone());
            assert!(
                range == (Value::from("2024-01-01"), Value::from("2024-03-31"))
                    || range == (Value::from("2024-02-01"), Value::from("2024-05-01")),
                "{range:?}"
            );
            assert_eq!(variants.index(&values), usize::from(list.len() == 4));
        }
        assert!(
            (1350..1650).contains(&twos),
            "lengths by weight 3:1: {twos}"
        );
        for (bad, statement, why) in [
            (
                "p = { type = \"pair\", values = [[1, 2]] }",
                "SELECT {p}",
                "write its ends as {p.low} and {p.high}",
            ),
            (
                "p = { type = \"int\", min = 1, max = 2 }",
                "SELECT {p.low}",
                "`p` is not a pair",
            ),
            (
                "p = { type = \"list\", lengths = [0], values = [1] }",
                "SELECT {p}",
                "each at least 1",
            ),
            (
                "p = { type = \"list\", lengths = [2, 4000000000], values = [1] }",
                "SELECT {p}",
                "more than a prepared statement can bind (65535",
            ),
            (
                "p = { type = \"list\", lengths = [2] }",
                "SELECT {p}",
                "from values = [...] or from min and max",
            ),
            (
                "p = { type = \"pair\", values = [] }",
                "SELECT {p.low}",
                "at least one (low, high)",
            ),
        ] {
            let text = format!(
                "[params]\n{bad}\n[[transaction]]\nname = \"x\"\nstatements = [\"{statement}\"]\n"
            );
            let e = load(&text).unwrap_err().to_string();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
