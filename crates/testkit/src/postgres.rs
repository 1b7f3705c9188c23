//! A throw-away PostgreSQL server for tests: `initdb` in a temporary directory, `pg_ctl
//! start` on a free loopback port, and `pg_ctl stop` plus the directory's removal when
//! the [`TempCluster`] is dropped, so the server stops even when the test panics.
//!
//! The binaries are `$CIPHERLAB_PG_BIN`, else the newest `/usr/lib/postgresql/*/bin`
//! (Debian's `postgresql` package, which `.ci/setup` installs), else `initdb` on `PATH`.
//! When there are none, [`TempCluster::start`] prints a `SKIP` line and returns `None`
//! for a developer, and panics in CI (`CI=true`, or `CIPHERLAB_REQUIRE_KAT=1` as
//! `.ci/run` sets): there a missing PostgreSQL is a failure, not a skip.
//!
//! PostgreSQL refuses to run as root, so as root (CI containers) the directory is given
//! to `nobody` and the server commands run as that user through `runuser`.

use std::net::TcpListener;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

/// The database user the cluster is made with (trust authentication on loopback).
pub const USER: &str = "cipherlab";

/// Environment variable naming the directory of `initdb` and `pg_ctl`.
pub const BIN_VAR: &str = "CIPHERLAB_PG_BIN";

/// Whether a missing PostgreSQL fails the test: in CI (`CI=true`) or when
/// `CIPHERLAB_REQUIRE_KAT` asks for everything.
pub fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") || crate::kat::required()
}

/// A running throw-away server; dropping it stops the server and deletes its files.
#[derive(Debug)]
pub struct TempCluster {
    bin: PathBuf,
    base: PathBuf,
    run_as: Option<String>,
    port: u16,
}

static NEXT: AtomicU32 = AtomicU32::new(0);

impl TempCluster {
    /// Starts a server, or returns `None` (after a `SKIP` line) when PostgreSQL is not
    /// installed and [`required`] is false.
    pub fn start() -> Option<TempCluster> {
        let Some(bin) = find_bin() else {
            let msg = format!(
                "PostgreSQL's initdb was not found (set {BIN_VAR}, or install Debian's \
                 `postgresql` package as .ci/setup does)"
            );
            assert!(!required(), "{msg}; CI requires it");
            println!("SKIP: {msg}; the PostgreSQL half of this test did not run");
            return None;
        };
        let root = is_root();
        let base = std::env::temp_dir().join(format!(
            "cipherlab-pg-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir(&base).unwrap_or_else(|e| panic!("creating {}: {e}", base.display()));
        let run_as = root.then(|| "nobody".to_string());
        if root {
            let (uid, gid) = ids_of("nobody");
            std::os::unix::fs::chown(&base, Some(uid), Some(gid))
                .unwrap_or_else(|e| panic!("chown {}: {e}", base.display()));
        }
        // From here on the guard exists, so a failure below still cleans up.
        let mut cluster = TempCluster {
            bin,
            base,
            run_as,
            port: 0,
        };
        let data = cluster.base.join("data");
        cluster.server_cmd(
            "initdb",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-U".as_ref(),
                USER.as_ref(),
                "--auth=trust".as_ref(),
                "--no-sync".as_ref(),
                "-E".as_ref(),
                "UTF8".as_ref(),
                "--locale=C".as_ref(),
            ],
        );
        // A free port: the kernel's choice for a listener we close at once. Another
        // process could take it in between; then pg_ctl fails and we try another.
        for attempt in 0..3 {
            cluster.port = free_port();
            let options = format!(
                "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off \
                 -c synchronous_commit=off -c full_page_writes=off -c max_connections=50",
                cluster.port,
                cluster.base.display()
            );
            let log = cluster.base.join("server.log");
            let out = cluster.try_server_cmd(
                "pg_ctl",
                &[
                    "-D".as_ref(),
                    data.as_os_str(),
                    "-l".as_ref(),
                    log.as_os_str(),
                    "-o".as_ref(),
                    options.as_ref(),
                    "-w".as_ref(),
                    "-t".as_ref(),
                    "30".as_ref(),
                    "start".as_ref(),
                ],
            );
            if out.status.success() {
                return Some(cluster);
            }
            let server_log = std::fs::read_to_string(&log).unwrap_or_default();
            assert!(
                attempt < 2,
                "pg_ctl start failed: {}{}\nserver log:\n{server_log}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        unreachable!("the loop returns or panics")
    }

    /// The URL of database `name` (`postgres` exists from the start).
    pub fn url(&self, name: &str) -> String {
        format!("postgres://{USER}@127.0.0.1:{}/{name}", self.port)
    }

    /// Creates an empty database `name` and returns its URL.
    pub fn create_database(&self, name: &str) -> String {
        let port = self.port.to_string();
        let out = Command::new(self.bin.join("createdb"))
            .args(["-h", "127.0.0.1", "-p", &port, "-U", USER, name])
            .output()
            .unwrap_or_else(|e| panic!("running createdb: {e}"));
        assert!(
            out.status.success(),
            "createdb {name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        self.url(name)
    }

    /// The server's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    fn try_server_cmd(&self, program: &str, args: &[&std::ffi::OsStr]) -> Output {
        let exe = self.bin.join(program);
        let mut cmd = match &self.run_as {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(&exe);
                c
            }
            None => Command::new(&exe),
        };
        // The server's files are in `base`; a working directory the user may not read
        // (root's home) only makes the tools warn.
        cmd.args(args)
            .current_dir(&self.base)
            .output()
            .unwrap_or_else(|e| panic!("running {}: {e}", exe.display()))
    }

    fn server_cmd(&self, program: &str, args: &[&std::ffi::OsStr]) {
        let out = self.try_server_cmd(program, args);
        assert!(
            out.status.success(),
            "{program} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for TempCluster {
    fn drop(&mut self) {
        let data = self.base.join("data");
        if self.port != 0 {
            // Immediate: the data is thrown away, so there is nothing to flush.
            let _ = self.try_server_cmd(
                "pg_ctl",
                &[
                    "-D".as_ref(),
                    data.as_os_str(),
                    "-m".as_ref(),
                    "immediate".as_ref(),
                    "-w".as_ref(),
                    "stop".as_ref(),
                ],
            );
        }
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

fn is_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// `user`'s uid and primary gid, from `id`.
fn ids_of(user: &str) -> (u32, u32) {
    let id = |flag: &str| -> u32 {
        let out = Command::new("id")
            .args([flag, user])
            .output()
            .unwrap_or_else(|e| panic!("running id: {e}"));
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .unwrap_or_else(|e| panic!("id {flag} {user}: {e}"))
    };
    (id("-u"), id("-g"))
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("finding a free port: {e}"))
}

/// The directory holding `initdb`, `pg_ctl` and `createdb`.
fn find_bin() -> Option<PathBuf> {
    let has = |d: &Path| d.join("initdb").is_file() && d.join("pg_ctl").is_file();
    if let Some(d) = std::env::var_os(BIN_VAR) {
        let d = PathBuf::from(d);
        return has(&d).then_some(d);
    }
    let mut debian: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            Some((version, e.path().join("bin")))
        })
        .filter(|(_, d)| has(d))
        .collect();
    debian.sort();
    if let Some((_, d)) = debian.pop() {
        return Some(d);
    }
    std::env::split_paths(&std::env::var_os("PATH")?).find(|d| has(d))
}
