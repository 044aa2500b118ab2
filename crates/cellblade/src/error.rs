//! The crate's error type: one enum, each variant a layer's failure, each message in lower case
//! naming the entity, the value and what is allowed.

use std::fmt;

/// Which kind of failure an [`Error`] is; the Python bindings map each to an exception class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A bad machine-file key or value, a bad request field or CLI value. Fatal to the run.
    Config,
    /// A simulated program did something the hardware refuses (illegal DMA, LS overflow, ...).
    Program,
    /// Every program is blocked and nothing is pending.
    Deadlock,
    /// A bug in cellblade itself.
    Internal,
    /// The caller asked the run to stop (Ctrl-C): see [`crate::sim::interrupt`].
    Interrupted,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    Config(String),
    /// A request field whose value is not allowed (a [`ErrorKind::Config`] error); the message
    /// begins with the field's name, so a front can put its own name for it (a CLI flag) there.
    Field {
        field: String,
        message: String,
    },
    Program(String),
    Deadlock(String),
    Internal(String),
    Interrupted(String),
}

impl Error {
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Config(_) | Error::Field { .. } => ErrorKind::Config,
            Error::Program(_) => ErrorKind::Program,
            Error::Deadlock(_) => ErrorKind::Deadlock,
            Error::Internal(_) => ErrorKind::Internal,
            Error::Interrupted(_) => ErrorKind::Interrupted,
        }
    }

    pub fn message(&self) -> &str {
        match self {
            Error::Config(m) | Error::Program(m) | Error::Deadlock(m) | Error::Internal(m) | Error::Interrupted(m) => m,
            Error::Field { message, .. } => message,
        }
    }

    /// The request field the error is about, when it is about one.
    pub fn field(&self) -> Option<&str> {
        match self {
            Error::Field { field, .. } => Some(field),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Shorthand constructors used across layers.
pub fn config_err(msg: impl Into<String>) -> Error {
    Error::Config(msg.into())
}

pub fn program_err(msg: impl Into<String>) -> Error {
    Error::Program(msg.into())
}

/// `FIELD VALUE is not allowed: ALLOWED`, about request field `field`.
pub fn field_err(field: &str, value: impl fmt::Display, allowed: impl fmt::Display) -> Error {
    Error::Field { field: field.to_string(), message: format!("{field} {value} is not allowed: {allowed}") }
}

/// An error about request field `field` in words of its own; `message` must begin with the
/// field's name.
pub fn field_msg(field: &str, message: impl Into<String>) -> Error {
    let message = message.into();
    debug_assert!(message.starts_with(field), "a field error begins with its field: {message}");
    Error::Field { field: field.to_string(), message }
}
