//! The library side of the `cipherlab` binary: entry points the fuzzers (fuzz/) reach
//! without starting a process. Today that is the `cipherlab vectors` request parser
//! ([`vectors::answer`]); the binary compiles the same modules itself. The exit-code
//! table ([`exit`]) is here, so the binary and `vectors` share one copy of it.

#![forbid(unsafe_code)]

pub mod exit;
pub mod vectors;
