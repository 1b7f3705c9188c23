//! The machine block attached to every result: what ran the benchmark, in enough detail
//! to explain a figure (AES-NI or not, how many cores, which compiler and crate
//! versions), as Google Benchmark's JSON `context` and JMH's run header do.
//!
//! The host name is never stored, only a hash of it ([`MachineInfo::hostname_hash`]),
//! so results can be shared while runs from one machine still group together.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// CPU features a cipher's speed depends on, in the order reported.
pub const CPU_FLAGS: &[&str] = &[
    "aes",
    "pclmulqdq",
    "avx",
    "avx2",
    "avx512f",
    "avx512vl",
    "vaes",
    "sha",
    "bmi2",
];

/// A description of the machine and build that produced a result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineInfo {
    /// CPU model name (`AMD EPYC 7B13`).
    pub cpu_model: String,
    /// Architecture (`x86_64`, `aarch64`).
    pub arch: String,
    /// Each of [`CPU_FLAGS`] (x86) and whether the CPU has it, as detected at run time.
    pub cpu_flags: BTreeMap<String, bool>,
    /// Logical cores available to this process.
    pub logical_cores: u32,
    /// Total memory in bytes (0 where unknown).
    pub memory_bytes: u64,
    /// Operating system (`Debian GNU/Linux 13 (trixie)`, or `linux`).
    pub os: String,
    /// Kernel release (`6.1.0-18-amd64`).
    pub kernel: String,
    /// `rustc --version` of the compiler that built this program.
    pub rustc: String,
    /// Build target triple and profile (`x86_64-unknown-linux-gnu release`).
    pub build: String,
    /// cipherlab's version.
    pub cipherlab_version: String,
    /// Versions of the crates the studies time (from `Cargo.lock` at build time).
    pub crate_versions: BTreeMap<String, String>,
    /// SHA-256 of the host name, first 16 hex digits.
    pub hostname_hash: String,
    /// Versions of other language runtimes a study used (`java` -> `21.0.2`), filled in
    /// by the studies that run them.
    pub runtimes: BTreeMap<String, String>,
    /// The CPU frequency scaling governor of CPU 0 (`performance`, `powersave`, ...),
    /// where the OS shows one (a virtual machine often does not).
    #[serde(default)]
    pub governor: Option<String>,
    /// Whether frequency boost (turbo) is on, where the OS shows it.
    #[serde(default)]
    pub boost: Option<bool>,
    /// CPU 0's caches, e.g. `L1d 32K`, `L2 512K` (from sysfs).
    #[serde(default)]
    pub caches: Vec<String>,
    /// The hypervisor this runs under (`KVMKVMKVM`, `Microsoft Hv`, ...) where the CPU
    /// reports one, `None` on bare metal or where unknown: figures from a virtual
    /// machine share the host with other guests.
    #[serde(default)]
    pub hypervisor: Option<String>,
}

impl MachineInfo {
    /// Describes this machine and this build. The crate versions are the program's to
    /// add ([`MachineInfo::with_crate_versions`]): which crates its figures depend on is
    /// not this crate's to know.
    pub fn detect() -> MachineInfo {
        let cpuinfo = read("/proc/cpuinfo");
        MachineInfo {
            cpu_model: cpu_model(&cpuinfo),
            arch: std::env::consts::ARCH.to_string(),
            cpu_flags: cpu_flags(),
            logical_cores: std::thread::available_parallelism()
                .map(|n| n.get() as u32)
                .unwrap_or(1),
            memory_bytes: memory_bytes(&read("/proc/meminfo")),
            os: os_name(&read("/etc/os-release")),
            kernel: first_line(&read("/proc/sys/kernel/osrelease")),
            rustc: env!("CIPHERLAB_RUSTC_VERSION").to_string(),
            build: format!("{} {}", env!("CIPHERLAB_TARGET"), env!("CIPHERLAB_PROFILE")),
            cipherlab_version: env!("CARGO_PKG_VERSION").to_string(),
            crate_versions: BTreeMap::new(),
            hostname_hash: hash_hostname(&hostname()),
            runtimes: BTreeMap::new(),
            governor: read_trimmed("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
            boost: read_trimmed("/sys/devices/system/cpu/cpufreq/boost").map(|b| b == "1"),
            caches: caches("/sys/devices/system/cpu/cpu0/cache"),
            hypervisor: hypervisor(),
        }
    }

    /// The frequency, cache and virtualization facts as one line (`governor unknown,
    /// boost unknown; L1d 32K L1i 64K L2 512K L3 8192K; virtual machine (KVMKVMKVM)`).
    pub fn platform_summary(&self) -> String {
        format!(
            "governor {}, boost {}; caches {}; {}",
            self.governor.as_deref().unwrap_or("unknown"),
            self.boost
                .map_or("unknown", |b| if b { "on" } else { "off" }),
            if self.caches.is_empty() {
                "unknown".to_string()
            } else {
                self.caches.join(" ")
            },
            match &self.hypervisor {
                Some(h) => format!("virtual machine ({h})"),
                None => "no hypervisor reported".to_string(),
            }
        )
    }

    /// The same block with the versions of the crates the figures depend on, given as
    /// `name=version;name=version` (what a build script reads from `Cargo.lock`); two
    /// versions of one crate are joined with `, `.
    pub fn with_crate_versions(mut self, spec: &str) -> MachineInfo {
        self.crate_versions = crate_versions(spec);
        self
    }

    /// One line for a table's header: `CPU model (N cores; flags)`.
    pub fn summary(&self) -> String {
        format!(
            "{} ({} cores; {})",
            self.cpu_model,
            self.logical_cores,
            self.flags_present()
        )
    }

    /// The flags this CPU has, space-separated, in [`CPU_FLAGS`] order.
    pub fn flags_present(&self) -> String {
        CPU_FLAGS
            .iter()
            .filter(|f| self.cpu_flags.get(**f).copied().unwrap_or(false))
            .copied()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A stable identifier of this machine and build: the first 16 hex digits of the
    /// SHA-256 of its JSON form. Two runs on the same machine with the same build share
    /// it; the store keeps one machine row per fingerprint.
    pub fn fingerprint(&self) -> String {
        let json = serde_json::to_string(self).unwrap_or_default();
        hex16(&Sha256::digest(json.as_bytes()))
    }

    /// The block as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn read_trimmed(path: &str) -> Option<String> {
    let s = std::fs::read_to_string(path).ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// `L1d 32K`, `L1i 64K`, `L2 512K`, ... from a sysfs `cache` directory.
fn caches(dir: &str) -> Vec<String> {
    let mut out = Vec::new();
    for i in 0..8 {
        let at = |f: &str| read_trimmed(&format!("{dir}/index{i}/{f}"));
        let (Some(level), Some(kind), Some(size)) = (at("level"), at("type"), at("size")) else {
            continue;
        };
        let suffix = match kind.as_str() {
            "Data" => "d",
            "Instruction" => "i",
            _ => "",
        };
        out.push(format!("L{level}{suffix} {size}"));
    }
    out
}

/// The hypervisor's vendor string (CPUID leaf 0x4000_0000) when CPUID says one is
/// present (leaf 1, ECX bit 31).
fn hypervisor() -> Option<String> {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::__cpuid;
        if __cpuid(1).ecx & (1 << 31) == 0 {
            return None;
        }
        let r = __cpuid(0x4000_0000);
        let bytes: Vec<u8> = [r.ebx, r.ecx, r.edx]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .filter(|b| *b != 0)
            .collect();
        let name = String::from_utf8_lossy(&bytes).trim().to_string();
        Some(if name.is_empty() {
            "unknown".to_string()
        } else {
            name
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

fn first_line(s: &str) -> String {
    let l = s.lines().next().unwrap_or("").trim();
    if l.is_empty() {
        "unknown".to_string()
    } else {
        l.to_string()
    }
}

fn hex16(bytes: &[u8]) -> String {
    bytes.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 of `name`, first 16 hex digits: groups runs by machine without revealing it.
pub fn hash_hostname(name: &str) -> String {
    hex16(&Sha256::digest(name.trim().as_bytes()))
}

fn hostname() -> String {
    let h = first_line(&read("/proc/sys/kernel/hostname"));
    if h != "unknown" {
        return h;
    }
    let h = first_line(&read("/etc/hostname"));
    if h != "unknown" {
        return h;
    }
    std::env::var("HOSTNAME")
        .or_else(|_| std::env::var("COMPUTERNAME"))
        .unwrap_or_else(|_| "unknown".to_string())
}

/// The `model name` of `/proc/cpuinfo` (or the ARM `Hardware`/`CPU part` lines), else
/// the CPUID brand string on x86-64.
fn cpu_model(cpuinfo: &str) -> String {
    for key in ["model name", "Hardware", "cpu model", "Processor"] {
        if let Some(v) = cpuinfo
            .lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim() == key)
            .map(|(_, v)| v.trim().to_string())
            && !v.is_empty()
        {
            return v;
        }
    }
    cpuid_brand().unwrap_or_else(|| "unknown".to_string())
}

#[cfg(target_arch = "x86_64")]
fn cpuid_brand() -> Option<String> {
    use core::arch::x86_64::__cpuid;
    if __cpuid(0x8000_0000).eax < 0x8000_0004 {
        return None;
    }
    let mut bytes = Vec::with_capacity(48);
    for leaf in 0x8000_0002u32..=0x8000_0004 {
        let r = __cpuid(leaf);
        for w in [r.eax, r.ebx, r.ecx, r.edx] {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
    }
    let s = String::from_utf8_lossy(&bytes)
        .trim_matches(char::from(0))
        .trim()
        .to_string();
    (!s.is_empty()).then_some(s)
}

#[cfg(not(target_arch = "x86_64"))]
fn cpuid_brand() -> Option<String> {
    None
}

#[cfg(target_arch = "x86_64")]
fn cpu_flags() -> BTreeMap<String, bool> {
    let detected = [
        std::arch::is_x86_feature_detected!("aes"),
        std::arch::is_x86_feature_detected!("pclmulqdq"),
        std::arch::is_x86_feature_detected!("avx"),
        std::arch::is_x86_feature_detected!("avx2"),
        std::arch::is_x86_feature_detected!("avx512f"),
        std::arch::is_x86_feature_detected!("avx512vl"),
        std::arch::is_x86_feature_detected!("vaes"),
        std::arch::is_x86_feature_detected!("sha"),
        std::arch::is_x86_feature_detected!("bmi2"),
    ];
    CPU_FLAGS
        .iter()
        .zip(detected)
        .map(|(f, d)| (f.to_string(), d))
        .collect()
}

#[cfg(target_arch = "aarch64")]
fn cpu_flags() -> BTreeMap<String, bool> {
    [
        ("aes", std::arch::is_aarch64_feature_detected!("aes")),
        ("pmull", std::arch::is_aarch64_feature_detected!("pmull")),
        ("sha2", std::arch::is_aarch64_feature_detected!("sha2")),
        ("sha3", std::arch::is_aarch64_feature_detected!("sha3")),
        ("neon", std::arch::is_aarch64_feature_detected!("neon")),
    ]
    .into_iter()
    .map(|(f, d)| (f.to_string(), d))
    .collect()
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn cpu_flags() -> BTreeMap<String, bool> {
    BTreeMap::new()
}

/// `MemTotal` of `/proc/meminfo`, in bytes.
fn memory_bytes(meminfo: &str) -> u64 {
    meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|kb| kb.parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

/// `PRETTY_NAME` of `/etc/os-release`, else the OS family.
fn os_name(os_release: &str) -> String {
    os_release
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim().trim_matches('"').to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| std::env::consts::OS.to_string())
}

/// Parses `name=version;name=version` (several versions of one crate are joined with
/// `, `).
fn crate_versions(spec: &str) -> BTreeMap<String, String> {
    let mut map: BTreeMap<String, String> = BTreeMap::new();
    for (name, version) in spec.split(';').filter_map(|p| p.split_once('=')) {
        map.entry(name.to_string())
            .and_modify(|v| {
                v.push_str(", ");
                v.push_str(version);
            })
            .or_insert_with(|| version.to_string());
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_caches_from_a_sysfs_directory() {
        let dir = std::env::temp_dir().join(format!("cipherlab-caches-{}", std::process::id()));
        for (i, (level, kind, size)) in [
            ("1", "Data", "32K"),
            ("1", "Instruction", "64K"),
            ("2", "Unified", "512K"),
        ]
        .iter()
        .enumerate()
        {
            let d = dir.join(format!("index{i}"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("level"), format!("{level}\n")).unwrap();
            std::fs::write(d.join("type"), format!("{kind}\n")).unwrap();
            std::fs::write(d.join("size"), format!("{size}\n")).unwrap();
        }
        let got = caches(dir.to_str().unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(got, vec!["L1d 32K", "L1i 64K", "L2 512K"]);
        assert!(caches("/nonexistent-cipherlab").is_empty());
    }

    #[test]
    fn parses_proc_files() {
        assert_eq!(
            cpu_model("processor\t: 0\nmodel name\t: AMD EPYC 7B13 64-Core Processor\n"),
            "AMD EPYC 7B13 64-Core Processor"
        );
        assert_eq!(
            memory_bytes("MemTotal:       24608148 kB\nMemFree: 1 kB\n"),
            24608148 * 1024
        );
        assert_eq!(
            os_name("NAME=\"Debian\"\nPRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\n"),
            "Debian GNU/Linux 13 (trixie)"
        );
        let v = crate_versions("aes=0.9.4;ascon-aead=0.4.4;ascon-aead=0.6.0");
        assert_eq!(v["aes"], "0.9.4");
        assert_eq!(v["ascon-aead"], "0.4.4, 0.6.0");
    }

    #[test]
    fn detects_this_machine() {
        let m = MachineInfo::detect();
        assert!(m.rustc.starts_with("rustc "), "{}", m.rustc);
        assert!(m.logical_cores >= 1);
        assert_eq!(m.hostname_hash.len(), 16);
        assert!(m.crate_versions.is_empty(), "{:?}", m.crate_versions);
        #[cfg(target_arch = "x86_64")]
        assert_eq!(m.cpu_flags.len(), CPU_FLAGS.len());
        assert_ne!(
            m.hostname_hash,
            hostname(),
            "the raw host name must not be stored"
        );
        assert_eq!(m.fingerprint(), MachineInfo::detect().fingerprint());
        let with = m.clone().with_crate_versions("serde=1.0.1;aes=0.9.4");
        assert_eq!(with.crate_versions["aes"], "0.9.4");
        assert_ne!(
            with.fingerprint(),
            m.fingerprint(),
            "the versions are part of it"
        );
        println!("machine: {}", m.to_json());
    }
}
