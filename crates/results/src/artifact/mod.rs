//! What a study makes besides timings, as values: the tables of a paper's figures beside
//! ours, byte histograms, pictures, notes and CPU profiles. Studies return these types; the terminal
//! printer and the report read them as they are, and only the store turns them into
//! bytes (docs/results.md gives each kind's stored form).

pub mod histogram;
pub mod profile;
pub mod table;

use serde::{Deserialize, Serialize};

pub use histogram::Histogram;
pub use profile::Profile;
pub use table::{Cell, Table, cell_text};

/// One thing a study made, with where it belongs and a caption.
#[derive(Debug, Clone, PartialEq)]
pub struct Artifact {
    /// The study that made it.
    pub study: String,
    /// Unique within the study and run, e.g. `histogram/aes-128-ecb/bmp`.
    pub name: String,
    /// A caption for people.
    pub title: String,
    /// What it holds.
    pub content: Content,
}

/// What an [`Artifact`] holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    /// A byte histogram with its statistics.
    Histogram(Histogram),
    /// Columns and rows: the paper's figures beside ours.
    Table(Table),
    /// A PNG picture.
    Image(Vec<u8>),
    /// Text.
    Note(String),
    /// Where a figure's CPU time went (`cipherlab bench --profile`).
    Profile(Profile),
}

/// The kind of an [`Artifact`], as the store's `kind` column names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArtifactKind {
    /// Stored as JSON: a byte histogram with its statistics.
    Histogram,
    /// Stored as JSON: a table with columns and rows.
    Table,
    /// Stored as PNG bytes.
    Image,
    /// Stored as UTF-8 text.
    Note,
    /// Stored as folded stacks (`root;caller;callee count` lines).
    Profile,
}

impl ArtifactKind {
    /// The name stored in the `kind` column.
    pub fn as_str(self) -> &'static str {
        match self {
            ArtifactKind::Histogram => "histogram",
            ArtifactKind::Table => "table",
            ArtifactKind::Image => "image",
            ArtifactKind::Note => "note",
            ArtifactKind::Profile => "profile",
        }
    }

    /// The media type of the stored bytes.
    pub fn media_type(self) -> &'static str {
        match self {
            ArtifactKind::Histogram | ArtifactKind::Table => "application/json",
            ArtifactKind::Image => "image/png",
            ArtifactKind::Note | ArtifactKind::Profile => "text/plain; charset=utf-8",
        }
    }

    /// The kind named `s` in the `kind` column.
    pub fn parse(s: &str) -> Option<ArtifactKind> {
        match s {
            "histogram" => Some(ArtifactKind::Histogram),
            "table" => Some(ArtifactKind::Table),
            "image" => Some(ArtifactKind::Image),
            "note" => Some(ArtifactKind::Note),
            "profile" => Some(ArtifactKind::Profile),
            _ => None,
        }
    }
}

impl Artifact {
    /// A table artifact.
    pub fn table(study: &str, name: &str, title: &str, table: Table) -> Artifact {
        Artifact::new(study, name, title, Content::Table(table))
    }

    /// An artifact of `content`.
    pub fn new(study: &str, name: &str, title: &str, content: Content) -> Artifact {
        Artifact {
            study: study.to_string(),
            name: name.to_string(),
            title: title.to_string(),
            content,
        }
    }

    /// Its kind.
    pub fn kind(&self) -> ArtifactKind {
        match self.content {
            Content::Histogram(_) => ArtifactKind::Histogram,
            Content::Table(_) => ArtifactKind::Table,
            Content::Image(_) => ArtifactKind::Image,
            Content::Note(_) => ArtifactKind::Note,
            Content::Profile(_) => ArtifactKind::Profile,
        }
    }

    /// The table it holds, if it is one.
    pub fn as_table(&self) -> Option<&Table> {
        match &self.content {
            Content::Table(t) => Some(t),
            _ => None,
        }
    }

    /// Its stored form: JSON for histograms and tables, the PNG's bytes, UTF-8 text.
    pub fn to_bytes(&self) -> Vec<u8> {
        match &self.content {
            // Serializing these types cannot fail: string keys, and non-finite numbers
            // become null.
            Content::Histogram(h) => serde_json::to_vec(h).unwrap_or_default(),
            Content::Table(t) => serde_json::to_vec(t).unwrap_or_default(),
            Content::Image(png) => png.clone(),
            Content::Note(s) => s.as_bytes().to_vec(),
            Content::Profile(p) => p.to_folded().into_bytes(),
        }
    }

    /// Reads an artifact back from its stored form; the error says what is wrong with it.
    pub fn from_bytes(
        study: String,
        name: String,
        kind: ArtifactKind,
        title: String,
        data: Vec<u8>,
    ) -> Result<Artifact, String> {
        let content = match kind {
            ArtifactKind::Histogram => Content::Histogram(
                serde_json::from_slice(&data).map_err(|e| format!("histogram JSON: {e}"))?,
            ),
            ArtifactKind::Table => Content::Table(
                serde_json::from_slice(&data).map_err(|e| format!("table JSON: {e}"))?,
            ),
            ArtifactKind::Image => {
                if !data.starts_with(b"\x89PNG\r\n\x1a\n") {
                    return Err("image is not a PNG".to_string());
                }
                Content::Image(data)
            }
            ArtifactKind::Note => {
                Content::Note(String::from_utf8(data).map_err(|e| format!("note: {e}"))?)
            }
            ArtifactKind::Profile => Content::Profile(Profile::from_folded(
                &String::from_utf8(data).map_err(|e| format!("profile: {e}"))?,
            )?),
        };
        Ok(Artifact {
            study,
            name,
            title,
            content,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use table::{num, text};

    #[test]
    fn every_kind_round_trips_through_its_stored_form() {
        let mut t = Table::new(&["cipher", "ratio"]);
        t.row(vec![text("aes-128-ecb"), num(1.5)]);
        let contents = [
            Content::Table(t),
            Content::Histogram(Histogram::of("none", "dense", &[1, 2, 3, 3])),
            Content::Image(b"\x89PNG\r\n\x1a\nrest".to_vec()),
            Content::Note("a note".to_string()),
            Content::Profile(Profile::from_folded("main;aes 3\nmain;write 1\n").unwrap()),
        ];
        for c in contents {
            let a = Artifact::new("s", "n", "title", c);
            let back = Artifact::from_bytes(
                a.study.clone(),
                a.name.clone(),
                a.kind(),
                a.title.clone(),
                a.to_bytes(),
            )
            .unwrap();
            assert_eq!(back, a);
        }
    }

    #[test]
    fn damaged_stored_forms_are_refused() {
        let bad = |kind, data: &[u8]| {
            Artifact::from_bytes("s".into(), "n".into(), kind, "t".into(), data.to_vec())
        };
        assert!(bad(ArtifactKind::Table, b"{not json").is_err());
        assert!(bad(ArtifactKind::Image, b"GIF89a").is_err());
        assert!(bad(ArtifactKind::Note, &[0xff, 0xfe]).is_err());
        assert!(bad(ArtifactKind::Profile, b"main;aes three\n").is_err());
    }
}
