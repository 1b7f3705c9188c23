//! Building a folder into shared libraries: every C compiler present × [`FLAG_SETS`], in
//! a private temporary folder.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::Error;
use crate::source::Source;

/// The flag sets each compiler builds with, after SUPERCOP's habit of trying several
/// (`-shared -fPIC` and `-I DIR` are added to each).
pub const FLAG_SETS: [&str; 5] = [
    "-O2",
    "-O3",
    "-O3 -march=native",
    "-Os",
    "-O2 -fomit-frame-pointer -march=native",
];

/// The compilers looked for on `PATH`, in order; `cc` only when neither of the others is
/// there (it is one of them under another name).
const COMPILERS: [&str; 2] = ["gcc", "clang"];

/// A C compiler found on this machine.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Compiler {
    /// The program (`gcc`, `clang`, `cc`).
    pub program: String,
    /// The first line of its `--version`.
    pub version: String,
}

/// The C compilers on this machine: gcc and clang where found, else cc.
pub fn compilers() -> Vec<Compiler> {
    let found: Vec<Compiler> = COMPILERS.iter().filter_map(|p| probe(p)).collect();
    if found.is_empty() {
        probe("cc").into_iter().collect()
    } else {
        found
    }
}

fn probe(program: &str) -> Option<Compiler> {
    let out = Command::new(program).arg("--version").output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Some(Compiler {
        program: program.to_string(),
        version: text.lines().next().unwrap_or("").trim().to_string(),
    })
}

/// A private folder (mode 0700) for the libraries, removed when dropped.
#[derive(Debug)]
pub struct Workshop {
    dir: tempfile::TempDir,
}

impl Workshop {
    /// A new private folder under the system's temporary folder.
    pub fn new() -> Result<Workshop, Error> {
        let dir = tempfile::Builder::new()
            .prefix("cipherlab-native-")
            .tempdir()
            .map_err(|e| Error::io("making a private build folder", e))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
                .map_err(|e| Error::io("making the build folder private", e))?;
        }
        Ok(Workshop { dir })
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// One build: a compiler and flag set over a source folder.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Build {
    /// The compiler.
    pub compiler: Compiler,
    /// The flag set (one of [`FLAG_SETS`]).
    pub flags: String,
    /// The source folder's hash ([`Source::hash`]).
    pub source_hash: String,
    /// The command run, for the record.
    pub command: String,
    /// The library, if the compiler made one.
    pub library: Option<PathBuf>,
    /// What the compiler said (warnings, or the errors of a failed build).
    pub output: String,
}

/// The framework's header, as the NIST LWC and SUPERCOP frameworks supply it to the code
/// they build: the two functions' prototypes. It is put in the workshop's `include/`,
/// searched after the source folder (a folder's own `crypto_aead.h` wins).
pub const CRYPTO_AEAD_H: &str = "\
/* crypto_aead.h as cipherlab-native supplies it: the NIST LWC / SUPERCOP API. */
#ifndef CRYPTO_AEAD_H
#define CRYPTO_AEAD_H
int crypto_aead_encrypt(unsigned char *c, unsigned long long *clen,
                        const unsigned char *m, unsigned long long mlen,
                        const unsigned char *ad, unsigned long long adlen,
                        const unsigned char *nsec, const unsigned char *npub,
                        const unsigned char *k);
int crypto_aead_decrypt(unsigned char *m, unsigned long long *mlen,
                        unsigned char *nsec, const unsigned char *c,
                        unsigned long long clen, const unsigned char *ad,
                        unsigned long long adlen, const unsigned char *npub,
                        const unsigned char *k);
#endif
";

/// The frameworks' `crypto_hash.h`, supplied as [`CRYPTO_AEAD_H`] is (a folder's own copy
/// wins).
pub const CRYPTO_HASH_H: &str = "\
/* crypto_hash.h as cipherlab-native supplies it: the NIST LWC / SUPERCOP API. */
#ifndef CRYPTO_HASH_H
#define CRYPTO_HASH_H
int crypto_hash(unsigned char *out, const unsigned char *in,
                unsigned long long inlen);
#endif
";

/// Builds `src` with every compiler × flag set into `workshop`; a build that fails is
/// kept with the compiler's output. Both frameworks' headers (`crypto_aead.h`,
/// `crypto_hash.h`) are supplied, whichever API the folder's api.h declares.
pub fn build_all(src: &Source, compilers: &[Compiler], workshop: &Workshop) -> Vec<Build> {
    let include = workshop.path().join("include");
    if let Err(e) = std::fs::create_dir_all(&include)
        .and_then(|()| std::fs::write(include.join("crypto_aead.h"), CRYPTO_AEAD_H))
        .and_then(|()| std::fs::write(include.join("crypto_hash.h"), CRYPTO_HASH_H))
    {
        let why = format!("cannot write crypto_aead.h and crypto_hash.h to the build folder: {e}");
        return compilers
            .iter()
            .flat_map(|c| {
                let why = why.clone();
                FLAG_SETS.iter().map(move |f| Build {
                    compiler: c.clone(),
                    flags: f.to_string(),
                    source_hash: src.hash.clone(),
                    command: String::new(),
                    library: None,
                    output: why.clone(),
                })
            })
            .collect();
    }
    let mut out = Vec::new();
    for (c, compiler) in compilers.iter().enumerate() {
        for (f, flags) in FLAG_SETS.iter().enumerate() {
            let lib = workshop
                .path()
                .join(format!("lib{}-{c}-{f}.so", compiler.program));
            out.push(build_one(src, compiler, flags, &include, &lib));
        }
    }
    out
}

fn build_one(src: &Source, compiler: &Compiler, flags: &str, include: &Path, lib: &Path) -> Build {
    let mut cmd = Command::new(&compiler.program);
    cmd.args(flags.split_whitespace())
        .args(["-shared", "-fPIC", "-I"])
        .arg(&src.dir)
        .arg("-I")
        .arg(include)
        .args(&src.c_files)
        .arg("-o")
        .arg(lib);
    let command = format!(
        "{} {flags} -shared -fPIC -I {} -I {} {} -o {}",
        compiler.program,
        src.dir.display(),
        include.display(),
        src.c_files
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" "),
        lib.display()
    );
    let (library, output) = match cmd.output() {
        Ok(o) => {
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            let made = o.status.success() && lib.is_file();
            let text = if o.status.success() || !text.trim().is_empty() {
                text
            } else {
                format!("{} exited with {}", compiler.program, o.status)
            };
            (made.then(|| lib.to_path_buf()), text)
        }
        Err(e) => (None, format!("{} could not be run: {e}", compiler.program)),
    };
    Build {
        compiler: compiler.clone(),
        flags: flags.to_string(),
        source_hash: src.hash.clone(),
        command,
        library,
        output,
    }
}
