//! Extra JCA providers for the Java runner (`--java-provider NAME=SPEC`): Conscrypt, Amazon
//! Corretto Crypto Provider, or any jar with a `java.security.Provider`. Each serves as
//! `java-NAME` beside SunJCE and BouncyCastle, through the same JCA calls, and passes the
//! same conformance vectors before any figure of it is kept.
//!
//! SPEC is a jar (`/path/provider.jar`) or Maven coordinates
//! (`GROUP:ARTIFACT:VERSION[:CLASSIFIER]`, fetched once with `mvn dependency:copy` into
//! the runner's folder, `platforms/java/target/providers/`), optionally followed by
//! `@CLASS`, the provider class, when the jar does not declare it in
//! `META-INF/services/java.security.Provider` (Conscrypt does not:
//! `conscrypt=org.conscrypt:conscrypt-openjdk-uber:2.5.2@org.conscrypt.OpenSSLProvider`).
//!
//! Loading a provider runs its code (and its native library) in the runner's JVM: name
//! only jars you trust. The runner gets the list in the environment variable
//! [`ENV_VAR`], one `NAME=JAR[@CLASS]` per line.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::RwLock;

/// The variable the Java runner reads its extra providers from.
pub const ENV_VAR: &str = "CIPHERLAB_JAVA_PROVIDERS";

/// One `--java-provider NAME=SPEC`, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaProvider {
    /// The provider's name without the `java-` prefix (`conscrypt`).
    pub name: String,
    /// Where its jar comes from.
    pub source: Source,
    /// Its provider class, when the jar does not declare one.
    pub class: Option<String>,
}

/// Where a provider's jar comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A jar on disk.
    Jar(PathBuf),
    /// Maven coordinates `GROUP:ARTIFACT:VERSION[:CLASSIFIER]`.
    Maven {
        /// `org.conscrypt`.
        group: String,
        /// `conscrypt-openjdk-uber`.
        artifact: String,
        /// `2.5.2`.
        version: String,
        /// `linux-x86_64`, for artifacts built per platform.
        classifier: Option<String>,
    },
}

/// Why a `--java-provider` could not be used.
#[derive(Debug, thiserror::Error)]
pub enum JavaProviderError {
    /// The text is not `NAME=SPEC`.
    #[error(
        "--java-provider {0:?}: expected NAME=JAR[@CLASS] or NAME=GROUP:ARTIFACT:VERSION[:CLASSIFIER][@CLASS] (NAME: letters, digits and '-')"
    )]
    Syntax(String),
    /// A name given twice, or one the runner has already.
    #[error("--java-provider {0}: the Java runner already has a provider called java-{0}")]
    Clash(String),
    /// The jar is not there.
    #[error("--java-provider {name}: no jar at {path}")]
    NoJar {
        /// The provider.
        name: String,
        /// The path given.
        path: PathBuf,
    },
    /// Maven could not fetch it.
    #[error(
        "--java-provider {name}: `{command}` failed (is Maven installed and the artifact served?): {output}"
    )]
    Fetch {
        /// The provider.
        name: String,
        /// The command run.
        command: String,
        /// What it printed.
        output: String,
    },
}

/// The Java runner's own providers, whose names an extra one may not take.
const BUILT_IN: [&str; 2] = ["sunjce", "bc"];

impl JavaProvider {
    /// Parses `NAME=SPEC`.
    pub fn parse(text: &str) -> Result<JavaProvider, JavaProviderError> {
        let syntax = || JavaProviderError::Syntax(text.to_string());
        let (name, spec) = text.split_once('=').ok_or_else(syntax)?;
        let name = name.trim().to_ascii_lowercase();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(syntax());
        }
        if BUILT_IN.contains(&name.as_str()) {
            return Err(JavaProviderError::Clash(name));
        }
        let (spec, class) = match spec.rsplit_once('@') {
            Some((s, c)) if !c.is_empty() => (s, Some(c.to_string())),
            Some(_) => return Err(syntax()),
            None => (spec, None),
        };
        let parts: Vec<&str> = spec.split(':').collect();
        let looks_like_path = spec.ends_with(".jar") || spec.contains('/');
        let source = if looks_like_path {
            Source::Jar(PathBuf::from(spec))
        } else if (3..=4).contains(&parts.len()) && parts.iter().all(|p| !p.is_empty()) {
            Source::Maven {
                group: parts[0].to_string(),
                artifact: parts[1].to_string(),
                version: parts[2].to_string(),
                classifier: parts.get(3).map(|c| c.to_string()),
            }
        } else {
            return Err(syntax());
        };
        Ok(JavaProvider {
            name,
            source,
            class,
        })
    }

    /// The jar on disk: the path given, or the Maven artifact fetched into
    /// `java_dir/target/providers/` (once; later runs find it there).
    pub fn jar(&self, java_dir: &Path) -> Result<PathBuf, JavaProviderError> {
        match &self.source {
            Source::Jar(path) if path.is_file() => Ok(path.clone()),
            Source::Jar(path) => Err(JavaProviderError::NoJar {
                name: self.name.clone(),
                path: path.clone(),
            }),
            Source::Maven {
                group,
                artifact,
                version,
                classifier,
            } => {
                // Absolute: Maven runs in that folder and reads the path from there.
                let dir = std::path::absolute(java_dir.join("target").join("providers"))
                    .unwrap_or_else(|_| java_dir.join("target").join("providers"));
                let file = match classifier {
                    Some(c) => format!("{artifact}-{version}-{c}.jar"),
                    None => format!("{artifact}-{version}.jar"),
                };
                let jar = dir.join(&file);
                if jar.is_file() {
                    return Ok(jar);
                }
                let coords = match classifier {
                    Some(c) => format!("{group}:{artifact}:{version}:jar:{c}"),
                    None => format!("{group}:{artifact}:{version}:jar"),
                };
                // Run in the output folder, outside the runner's project: inside it the
                // project's own dependency-plugin set-up made `copy` copy nothing.
                std::fs::create_dir_all(&dir).map_err(|e| JavaProviderError::Fetch {
                    name: self.name.clone(),
                    command: format!("mkdir {}", dir.display()),
                    output: e.to_string(),
                })?;
                let mut cmd = Command::new("mvn");
                cmd.args(["-q", "-B", "dependency:copy"])
                    .arg(format!("-Dartifact={coords}"))
                    .arg(format!("-DoutputDirectory={}", dir.display()))
                    .current_dir(&dir);
                let command = format!("mvn -q -B dependency:copy -Dartifact={coords}");
                let fetch = |output: String| JavaProviderError::Fetch {
                    name: self.name.clone(),
                    command: command.clone(),
                    output,
                };
                let out = cmd.output().map_err(|e| fetch(e.to_string()))?;
                if !out.status.success() || !jar.is_file() {
                    let text = String::from_utf8_lossy(&out.stdout).to_string()
                        + &String::from_utf8_lossy(&out.stderr);
                    return Err(fetch(text.trim().chars().take(2000).collect()));
                }
                Ok(jar)
            }
        }
    }
}

/// The extra providers every Java runner process of this program gets.
static EXTRA: RwLock<Vec<(String, PathBuf, Option<String>)>> = RwLock::new(Vec::new());

/// Resolves `providers` (fetching Maven artifacts into `java_dir`) and hands them to every
/// Java runner this process starts from now on.
pub fn use_providers(providers: &[JavaProvider], java_dir: &Path) -> Result<(), JavaProviderError> {
    let mut resolved = Vec::new();
    for p in providers {
        if resolved.iter().any(|(n, _, _)| *n == p.name) {
            return Err(JavaProviderError::Clash(p.name.clone()));
        }
        resolved.push((p.name.clone(), p.jar(java_dir)?, p.class.clone()));
    }
    *EXTRA
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner()) = resolved;
    Ok(())
}

/// The environment a runner of `runtime` is started with: [`ENV_VAR`] for Java when extra
/// providers were named, nothing otherwise.
pub(crate) fn runner_env(runtime: &str) -> Vec<(&'static str, String)> {
    let extra = EXTRA
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if runtime != "java" || extra.is_empty() {
        return Vec::new();
    }
    let lines: Vec<String> = extra
        .iter()
        .map(|(name, jar, class)| match class {
            Some(c) => format!("{name}={}@{c}", jar.display()),
            None => format!("{name}={}", jar.display()),
        })
        .collect();
    vec![(ENV_VAR, lines.join("\n"))]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_as_jars_or_maven_coordinates() {
        let p = JavaProvider::parse(
            "Conscrypt=org.conscrypt:conscrypt-openjdk-uber:2.5.2@org.conscrypt.OpenSSLProvider",
        )
        .unwrap();
        assert_eq!(p.name, "conscrypt");
        assert_eq!(p.class.as_deref(), Some("org.conscrypt.OpenSSLProvider"));
        assert!(
            matches!(&p.source, Source::Maven { classifier: None, version, .. } if version == "2.5.2")
        );
        let p = JavaProvider::parse(
            "accp=software.amazon.cryptools:AmazonCorrettoCryptoProvider:2.4.1:linux-x86_64",
        )
        .unwrap();
        assert!(
            matches!(&p.source, Source::Maven { classifier: Some(c), .. } if c == "linux-x86_64")
        );
        let p = JavaProvider::parse("mine=/opt/x/provider.jar").unwrap();
        assert_eq!(p.source, Source::Jar(PathBuf::from("/opt/x/provider.jar")));
        for bad in [
            "noequals",
            "=a:b:c",
            "x=a:b",
            "x=a::c",
            "bad name=a:b:c",
            "x=a:b:c@",
        ] {
            assert!(JavaProvider::parse(bad).is_err(), "{bad}");
        }
        assert!(matches!(
            JavaProvider::parse("bc=a:b:c"),
            Err(JavaProviderError::Clash(_))
        ));
    }

    #[test]
    fn a_missing_jar_is_an_error_naming_it() {
        let p = JavaProvider::parse("x=/no/such/provider.jar").unwrap();
        let e = p.jar(Path::new("/tmp")).unwrap_err().to_string();
        assert!(e.contains("/no/such/provider.jar"), "{e}");
    }
}
