//! How the typed parts of an identity are kept in SQL columns: as their names (the
//! spelling docs/results.md documents), parsed back on reading. A name this build does
//! not know is a conversion error that names the column, not a silent default.

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

use crate::id::{Phase, Runtime, Subject};

impl ToSql for Phase {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for Phase {
    fn column_result(v: ValueRef<'_>) -> FromSqlResult<Phase> {
        let s = v.as_str()?;
        Phase::parse(s).ok_or_else(|| unknown("phase", s))
    }
}

impl ToSql for Runtime {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for Runtime {
    fn column_result(v: ValueRef<'_>) -> FromSqlResult<Runtime> {
        let s = v.as_str()?;
        Runtime::parse(s).ok_or_else(|| unknown("runtime", s))
    }
}

impl ToSql for Subject {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.name()))
    }
}

impl FromSql for Subject {
    fn column_result(v: ValueRef<'_>) -> FromSqlResult<Subject> {
        Ok(Subject::parse(v.as_str()?))
    }
}

fn unknown(what: &str, s: &str) -> FromSqlError {
    FromSqlError::Other(format!("unknown {what} '{s}'").into())
}
