//! The two database engines behind one small interface: statements with positional
//! parameters in, rows of [`Value`]s out, and transactions. The store's SQL is written
//! once, in SQLite's spelling (`?1` parameters, SQLite column types); for PostgreSQL the
//! parameters and the few type names that differ are translated ([`postgres_sql`]).
//!
//! PostgreSQL is reached through the `postgres` crate, the blocking client of the
//! rust-postgres project: cipherlab is synchronous from end to end (the harness times on
//! one thread and a run is written once at its end), so an async client (`tokio-postgres`
//! alone, `sqlx`) would bring a runtime for nothing, and the blocking client is a thin
//! wrapper over the same well-kept protocol code. Plain TCP, no TLS: the store is meant
//! for a database on the lab's own network or reached through an SSH tunnel (docs/fleet.md).

use std::cell::RefCell;
use std::collections::HashMap;
use std::error::Error;

use postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};
use rusqlite::types::{ToSqlOutput, ValueRef};

/// One SQL value, the same on both engines (SQLite's storage classes).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// NULL.
    Null,
    /// A 64-bit signed integer (`INTEGER`, `BIGINT`).
    Int(i64),
    /// A double (`REAL`, `DOUBLE PRECISION`).
    Real(f64),
    /// UTF-8 text.
    Text(String),
    /// Bytes (`BLOB`, `BYTEA`).
    Blob(Vec<u8>),
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}
impl From<u32> for Value {
    fn from(v: u32) -> Value {
        Value::Int(i64::from(v))
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Real(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_string())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}
impl From<&String> for Value {
    fn from(v: &String) -> Value {
        Value::Text(v.clone())
    }
}
impl From<&[u8]> for Value {
    fn from(v: &[u8]) -> Value {
        Value::Blob(v.to_vec())
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

/// A row of a result.
#[derive(Debug, Clone, PartialEq)]
pub struct Row(pub Vec<Value>);

/// A column of a row was missing or of the wrong type.
#[derive(Debug, thiserror::Error)]
#[error("column {index}: {reason}")]
pub struct ColumnError {
    /// Its index.
    pub index: usize,
    /// What was wrong.
    pub reason: String,
}

impl Row {
    fn value(&self, index: usize) -> Result<&Value, ColumnError> {
        self.0.get(index).ok_or_else(|| ColumnError {
            index,
            reason: "missing".to_string(),
        })
    }

    fn wrong(index: usize, want: &str, got: &Value) -> ColumnError {
        ColumnError {
            index,
            reason: format!("want {want}, found {got:?}"),
        }
    }

    /// An integer column.
    pub fn int(&self, index: usize) -> Result<i64, ColumnError> {
        match self.value(index)? {
            Value::Int(v) => Ok(*v),
            v => Err(Row::wrong(index, "an integer", v)),
        }
    }

    /// An integer column that fits `T` (counts, sizes).
    pub fn count<T: TryFrom<i64>>(&self, index: usize) -> Result<T, ColumnError> {
        let v = self.int(index)?;
        T::try_from(v).map_err(|_| ColumnError {
            index,
            reason: format!("{v} is out of range"),
        })
    }

    /// A nullable integer column.
    pub fn opt_int(&self, index: usize) -> Result<Option<i64>, ColumnError> {
        match self.value(index)? {
            Value::Null => Ok(None),
            _ => self.int(index).map(Some),
        }
    }

    /// A real column (integers are widened, as SQLite may store a whole number so).
    pub fn real(&self, index: usize) -> Result<f64, ColumnError> {
        match self.value(index)? {
            Value::Real(v) => Ok(*v),
            Value::Int(v) => Ok(*v as f64),
            v => Err(Row::wrong(index, "a number", v)),
        }
    }

    /// A nullable real column.
    pub fn opt_real(&self, index: usize) -> Result<Option<f64>, ColumnError> {
        match self.value(index)? {
            Value::Null => Ok(None),
            _ => self.real(index).map(Some),
        }
    }

    /// A text column.
    pub fn text(&self, index: usize) -> Result<String, ColumnError> {
        match self.value(index)? {
            Value::Text(v) => Ok(v.clone()),
            v => Err(Row::wrong(index, "text", v)),
        }
    }

    /// A text column holding a name of a closed set, parsed by `parse`; `what` names the
    /// set in the error (`phase`, `runtime`).
    pub fn name<T>(
        &self,
        index: usize,
        what: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<T, ColumnError> {
        let s = self.text(index)?;
        parse(&s).ok_or_else(|| ColumnError {
            index,
            reason: format!("unknown {what} '{s}'"),
        })
    }

    /// A blob column.
    pub fn blob(&self, index: usize) -> Result<Vec<u8>, ColumnError> {
        match self.value(index)? {
            Value::Blob(v) => Ok(v.clone()),
            v => Err(Row::wrong(index, "bytes", v)),
        }
    }
}

/// What an engine reported.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// SQLite failed.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL failed (connection, SQL, constraint).
    #[error("{}", postgres_message(.0))]
    Postgres(#[from] postgres::Error),
}

/// PostgreSQL's own message with its detail, when the server sent one (the client's
/// `Display` says only "db error").
fn postgres_message(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => match db.detail() {
            Some(detail) => format!("{}: {} ({detail})", db.code().code(), db.message()),
            None => format!("{}: {}", db.code().code(), db.message()),
        },
        None => match e.source() {
            Some(s) => format!("{e}: {s}"),
            None => e.to_string(),
        },
    }
}

impl EngineError {
    /// Whether a UNIQUE or PRIMARY KEY constraint refused the statement.
    pub fn is_unique_violation(&self) -> bool {
        match self {
            EngineError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => {
                e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                    || e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
            }
            EngineError::Postgres(e) => {
                e.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION)
            }
            EngineError::Sqlite(_) => false,
        }
    }
}

/// Which engine a store runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineKind {
    /// An embedded SQLite file.
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

/// A connection to either engine. Reads take `&self` (the PostgreSQL client needs
/// `&mut`, hence the `RefCell`; a store is used from one thread).
pub(super) enum Engine {
    Sqlite(rusqlite::Connection),
    Postgres(Box<RefCell<PgConnection>>),
}

/// A PostgreSQL client with its prepared statements, kept so that the thousands of
/// sample inserts of a run are parsed by the server once.
pub(super) struct PgConnection {
    client: postgres::Client,
    statements: HashMap<String, postgres::Statement>,
}

impl PgConnection {
    pub(super) fn connect(url: &str) -> Result<PgConnection, EngineError> {
        let client = postgres::Client::connect(url, postgres::NoTls)?;
        Ok(PgConnection {
            client,
            statements: HashMap::new(),
        })
    }

    fn statement(&mut self, sql: &str) -> Result<postgres::Statement, EngineError> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare(&postgres_sql(sql))?;
        self.statements.insert(sql.to_string(), s.clone());
        Ok(s)
    }
}

impl Engine {
    pub(super) fn kind(&self) -> EngineKind {
        match self {
            Engine::Sqlite(_) => EngineKind::Sqlite,
            Engine::Postgres(_) => EngineKind::Postgres,
        }
    }

    /// Runs statements without parameters (schema changes), in the engine's dialect.
    pub(super) fn batch(&self, sql: &str) -> Result<(), EngineError> {
        match self {
            Engine::Sqlite(c) => Ok(c.execute_batch(sql)?),
            Engine::Postgres(c) => Ok(c.borrow_mut().client.batch_execute(sql)?),
        }
    }

    /// Runs one statement; returns the number of rows it changed.
    pub(super) fn execute(&self, sql: &str, params: &[Value]) -> Result<u64, EngineError> {
        match self {
            Engine::Sqlite(c) => {
                let mut stmt = c.prepare_cached(sql)?;
                Ok(stmt.execute(rusqlite::params_from_iter(params.iter()))? as u64)
            }
            Engine::Postgres(c) => {
                let mut c = c.borrow_mut();
                let stmt = c.statement(sql)?;
                let refs: Vec<&(dyn ToSql + Sync)> =
                    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
                Ok(c.client.execute(&stmt, &refs)?)
            }
        }
    }

    /// Runs a query; returns its rows.
    pub(super) fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Row>, EngineError> {
        match self {
            Engine::Sqlite(c) => {
                let mut stmt = c.prepare_cached(sql)?;
                let columns = stmt.column_count();
                let mut rows = stmt.query(rusqlite::params_from_iter(params.iter()))?;
                let mut out = Vec::new();
                while let Some(r) = rows.next()? {
                    let mut values = Vec::with_capacity(columns);
                    for i in 0..columns {
                        values.push(match r.get_ref(i)? {
                            ValueRef::Null => Value::Null,
                            ValueRef::Integer(v) => Value::Int(v),
                            ValueRef::Real(v) => Value::Real(v),
                            ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into()),
                            ValueRef::Blob(b) => Value::Blob(b.to_vec()),
                        });
                    }
                    out.push(Row(values));
                }
                Ok(out)
            }
            Engine::Postgres(c) => {
                let mut c = c.borrow_mut();
                let stmt = c.statement(sql)?;
                let refs: Vec<&(dyn ToSql + Sync)> =
                    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
                let rows = c.client.query(&stmt, &refs)?;
                let mut out = Vec::with_capacity(rows.len());
                for r in rows {
                    let mut values = Vec::with_capacity(r.len());
                    for i in 0..r.len() {
                        values.push(r.try_get::<_, Value>(i)?);
                    }
                    out.push(Row(values));
                }
                Ok(out)
            }
        }
    }

    /// Runs `f` in a transaction: committed if it returns `Ok`, rolled back otherwise.
    /// SQLite takes its write lock at the start (`BEGIN IMMEDIATE`), so two writers queue
    /// instead of failing at commit.
    /// `wrap` turns the engine's own errors (at BEGIN or COMMIT) into `E`.
    pub(super) fn transaction<T, E>(
        &self,
        wrap: impl Fn(EngineError) -> E,
        f: impl FnOnce(&Engine) -> Result<T, E>,
    ) -> Result<T, E> {
        self.batch(match self {
            Engine::Sqlite(_) => "BEGIN IMMEDIATE",
            Engine::Postgres(_) => "BEGIN",
        })
        .map_err(&wrap)?;
        match f(self) {
            Ok(v) => {
                if let Err(e) = self.batch("COMMIT") {
                    let _ = self.batch("ROLLBACK");
                    return Err(wrap(e));
                }
                Ok(v)
            }
            Err(e) => {
                // The first error is the one to report; a failed rollback leaves the
                // transaction to be discarded with the connection.
                let _ = self.batch("ROLLBACK");
                Err(e)
            }
        }
    }
}

/// The store's SQL in PostgreSQL's spelling: `?N` parameters become `$N`; SQLite's
/// `INTEGER PRIMARY KEY` (an alias of the 64-bit rowid) becomes an identity column,
/// `INTEGER` `BIGINT` (SQLite's integers are 64-bit, PostgreSQL's `INTEGER` is not),
/// `REAL` `DOUBLE PRECISION` (PostgreSQL's `REAL` is 32-bit), `BLOB` `BYTEA`, and
/// `WITHOUT ROWID` (a SQLite storage hint) is dropped. The store's SQL has no `?` or
/// these words inside string literals, which is what makes a token replacement enough.
pub fn postgres_sql(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 32);
    let mut rest = sql;
    while let Some(i) = rest.find(['?', 'I', 'R', 'B', 'W', ')']) {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let word_start = out
            .chars()
            .last()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        let replaced = [
            (
                "INTEGER PRIMARY KEY",
                "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
            ),
            ("INTEGER", "BIGINT"),
            ("REAL", "DOUBLE PRECISION"),
            ("BLOB", "BYTEA"),
            (") WITHOUT ROWID", ")"),
        ]
        .into_iter()
        .find(|(from, _)| {
            rest.starts_with(from)
                && (word_start || from.starts_with(')'))
                && !rest[from.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        });
        if let Some((from, to)) = replaced {
            out.push_str(to);
            rest = &rest[from.len()..];
        } else if rest.starts_with('?') {
            out.push('$');
            rest = &rest[1..];
        } else {
            let c = rest.chars().next().unwrap_or_default();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out.push_str(rest);
    out
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Value::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Value::Int(v) => ToSqlOutput::Borrowed(ValueRef::Integer(*v)),
            Value::Real(v) => ToSqlOutput::Borrowed(ValueRef::Real(*v)),
            Value::Text(v) => ToSqlOutput::Borrowed(ValueRef::Text(v.as_bytes())),
            Value::Blob(v) => ToSqlOutput::Borrowed(ValueRef::Blob(v)),
        })
    }
}

type BoxError = Box<dyn Error + Sync + Send>;

impl ToSql for Value {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> Result<IsNull, BoxError> {
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(v) => match *ty {
                Type::INT2 => i16::try_from(*v)?.to_sql(ty, out),
                Type::INT4 => i32::try_from(*v)?.to_sql(ty, out),
                Type::FLOAT8 => (*v as f64).to_sql(ty, out),
                _ => v.to_sql(ty, out),
            },
            Value::Real(v) => v.to_sql(ty, out),
            Value::Text(v) => v.to_sql(ty, out),
            Value::Blob(v) => v.to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

impl<'a> FromSql<'a> for Value {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Value, BoxError> {
        Ok(match *ty {
            Type::INT2 => Value::Int(i64::from(i16::from_sql(ty, raw)?)),
            Type::INT4 => Value::Int(i64::from(i32::from_sql(ty, raw)?)),
            Type::INT8 => Value::Int(i64::from_sql(ty, raw)?),
            Type::FLOAT4 => Value::Real(f64::from(f32::from_sql(ty, raw)?)),
            Type::FLOAT8 => Value::Real(f64::from_sql(ty, raw)?),
            Type::BYTEA => Value::Blob(Vec::<u8>::from_sql(ty, raw)?),
            _ => Value::Text(String::from_sql(ty, raw)?),
        })
    }

    fn from_sql_null(_: &Type) -> Result<Value, BoxError> {
        Ok(Value::Null)
    }

    fn accepts(ty: &Type) -> bool {
        matches!(
            *ty,
            Type::INT2 | Type::INT4 | Type::INT8 | Type::FLOAT4 | Type::FLOAT8 | Type::BYTEA
        ) || <String as FromSql>::accepts(ty)
    }
}

#[cfg(test)]
mod tests {
    use super::postgres_sql;

    #[test]
    fn sqlite_spelling_becomes_postgres_spelling() {
        assert_eq!(
            postgres_sql(
                "CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, x REAL, b BLOB, \
                 integers_seen INTEGER) WITHOUT ROWID; SELECT a FROM t WHERE id = ?1 AND n = ?12"
            ),
            "CREATE TABLE t (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, \
             n BIGINT NOT NULL, x DOUBLE PRECISION, b BYTEA, integers_seen BIGINT); \
             SELECT a FROM t WHERE id = $1 AND n = $12"
        );
        // Words that merely contain a type name are left alone.
        assert_eq!(
            postgres_sql("SELECT REALITY, XINTEGER"),
            "SELECT REALITY, XINTEGER"
        );
    }
}
