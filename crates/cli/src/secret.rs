//! Secrets given on the command line: accepted for scripts that have no other way, and
//! called out every time they are used, since `--help` is not read by every script's
//! author.

/// Says that the secret given with `flag` can be seen by others, and what to use instead.
pub fn warn_command_line(flag: &str, instead: &str) {
    eprintln!(
        "cipherlab: warning: {flag} on the command line: other users of this machine can \
         read it in ps, and it stays in the shell's history; prefer {instead}"
    );
}
