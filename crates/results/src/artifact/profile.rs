//! Where a figure's CPU time went: the call stacks a sampling profiler saw while the
//! figure was measured, with how often it saw each. Stored as collapsed ("folded")
//! stacks, one `root;caller;callee count` line per stack, the text format flame-graph
//! tools read (Brendan Gregg's `stackcollapse` output, which `flamegraph.pl`, inferno and
//! speedscope import), so a stored profile can be taken out of the store and opened
//! elsewhere as it is.

use std::collections::BTreeMap;

/// Call stacks and their sample counts, root first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// Each stack (frames root first, joined by `;`) and the samples that saw it.
    pub stacks: BTreeMap<String, u64>,
}

impl Profile {
    /// Adds `count` samples of the stack `frames` (root first). Frame names lose any `;`
    /// or line break, which the stored form uses as separators.
    pub fn add<S: AsRef<str>>(&mut self, frames: &[S], count: u64) {
        if frames.is_empty() || count == 0 {
            return;
        }
        let key = frames
            .iter()
            .map(|f| f.as_ref().replace([';', '\n', '\r'], " "))
            .collect::<Vec<_>>()
            .join(";");
        *self.stacks.entry(key).or_default() += count;
    }

    /// Samples in all.
    pub fn samples(&self) -> u64 {
        self.stacks.values().sum()
    }

    /// The share of the samples whose stack has a frame containing `needle`.
    pub fn share_of(&self, needle: &str) -> f64 {
        let total = self.samples();
        if total == 0 {
            return 0.0;
        }
        let hit: u64 = self
            .stacks
            .iter()
            .filter(|(s, _)| s.split(';').any(|f| f.contains(needle)))
            .map(|(_, n)| n)
            .sum();
        hit as f64 / total as f64
    }

    /// The stored form: folded stacks, one line each, in stack order.
    pub fn to_folded(&self) -> String {
        self.stacks
            .iter()
            .map(|(s, n)| format!("{s} {n}\n"))
            .collect()
    }

    /// Reads folded stacks; the error names the first line that is not `stack count`.
    pub fn from_folded(text: &str) -> Result<Profile, String> {
        let mut p = Profile::default();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let parsed = line
                .rsplit_once(' ')
                .and_then(|(stack, n)| Some((stack, n.parse::<u64>().ok()?)))
                .filter(|(stack, _)| !stack.is_empty());
            let Some((stack, n)) = parsed else {
                return Err(format!("profile line {}: not `stack count`", i + 1));
            };
            *p.stacks.entry(stack.to_string()).or_default() += n;
        }
        Ok(p)
    }

    /// The call tree: each node's name, its samples (its own and its callees') and its
    /// children, by name; the root is unnamed and holds every sample.
    pub fn tree(&self) -> Node {
        let mut root = Node::default();
        for (stack, &n) in &self.stacks {
            root.total += n;
            let mut node = &mut root;
            for frame in stack.split(';') {
                node = node.children.entry(frame.to_string()).or_default();
                node.total += n;
            }
        }
        root
    }
}

/// A frame in a [`Profile`]'s call tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Node {
    /// Samples in this frame and everything it called.
    pub total: u64,
    /// The frames it called, by name.
    pub children: BTreeMap<String, Node>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folded_stacks_round_trip_and_add_up() {
        let mut p = Profile::default();
        p.add(&["main", "encrypt", "aes"], 7);
        p.add(&["main", "encrypt", "aes"], 1);
        p.add(&["main", "write;file"], 2);
        p.add::<&str>(&[], 5);
        assert_eq!(p.samples(), 10);
        assert_eq!(p.to_folded(), "main;encrypt;aes 8\nmain;write file 2\n");
        assert_eq!(Profile::from_folded(&p.to_folded()).unwrap(), p);
        assert!((p.share_of("aes") - 0.8).abs() < 1e-12);
        let tree = p.tree();
        assert_eq!(tree.total, 10);
        assert_eq!(tree.children["main"].total, 10);
        assert_eq!(tree.children["main"].children["encrypt"].total, 8);
        assert!(Profile::from_folded("main;x\n").is_err());
        assert!(Profile::from_folded("main;x many\n").is_err());
        assert!(Profile::from_folded(" 3\n").is_err());
    }
}
