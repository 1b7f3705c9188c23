//! Text: words from per-script vocabularies drawn with a Zipf-like skew (so common words
//! repeat, as in real text), in sentences and paragraphs wrapped at 72 columns.

use super::Body;
use cipherlab_harness::rng::Rng;

/// Which encoding and scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flavour {
    /// Basic Latin only.
    Ascii,
    /// Several scripts, UTF-8.
    Utf8,
    /// Several scripts, UTF-16LE (the byte-order mark is the generator's header).
    Utf16,
}

struct Script {
    consonants: &'static [&'static str],
    vowels: &'static [&'static str],
    /// Words are runs of these characters, with no syllable structure (CJK).
    ideographs: bool,
    spaces: bool,
    full_stop: &'static str,
    comma: &'static str,
}

const BASIC: Script = Script {
    consonants: &[
        "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
        "th", "ch", "sh", "st", "tr", "br", "pl",
    ],
    vowels: &["a", "e", "i", "o", "u", "ea", "ou", "ai", "y"],
    ideographs: false,
    spaces: true,
    full_stop: ".",
    comma: ",",
};

const LATIN: Script = Script {
    consonants: &[
        "b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "ß", "ç",
        "ñ", "ł", "ż", "ch", "qu",
    ],
    vowels: &[
        "a", "e", "i", "o", "u", "é", "è", "ê", "à", "ä", "ö", "ü", "ó", "á", "í", "ú", "ie", "au",
    ],
    ideographs: false,
    spaces: true,
    full_stop: ".",
    comma: ",",
};

const GREEK: Script = Script {
    consonants: &[
        "β", "γ", "δ", "ζ", "θ", "κ", "λ", "μ", "ν", "ξ", "π", "ρ", "σ", "τ", "φ", "χ", "ψ",
    ],
    vowels: &[
        "α", "ε", "η", "ι", "ο", "υ", "ω", "ά", "έ", "ή", "ί", "ό", "ύ", "ώ", "ου",
    ],
    ideographs: false,
    spaces: true,
    full_stop: ".",
    comma: ",",
};

const CYRILLIC: Script = Script {
    consonants: &[
        "б", "в", "г", "д", "ж", "з", "к", "л", "м", "н", "п", "р", "с", "т", "ф", "х", "ц", "ч",
        "ш", "щ",
    ],
    vowels: &["а", "е", "ё", "и", "о", "у", "ы", "э", "ю", "я"],
    ideographs: false,
    spaces: true,
    full_stop: ".",
    comma: ",",
};

const CJK: Script = Script {
    consonants: &[],
    vowels: &[],
    ideographs: true,
    spaces: false,
    full_stop: "。",
    comma: "，",
};

/// Four-byte UTF-8 (surrogate pairs in UTF-16).
const EMOJI: &[&str] = &["🙂", "🚀", "🌍", "🔒", "📄", "🎵", "✨"];

const VOCABULARY: usize = 1024;
const WIDTH: usize = 72;

fn make_word(rng: &mut Rng, script: &Script) -> String {
    let mut w = String::new();
    if script.ideographs {
        // CJK Unified Ideographs, the first 4096 (common ones cluster there).
        for _ in 0..1 + rng.below(3) {
            let c = char::from_u32(0x4E00 + rng.below(4096) as u32).unwrap_or('中');
            w.push(c);
        }
        return w;
    }
    for _ in 0..1 + rng.below(3) {
        if rng.below(5) != 0 {
            w.push_str(script.consonants[rng.index(script.consonants.len())]);
        }
        w.push_str(script.vowels[rng.index(script.vowels.len())]);
    }
    if rng.below(3) == 0 {
        w.push_str(script.consonants[rng.index(script.consonants.len())]);
    }
    w
}

fn capitalize(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

pub(super) struct Text {
    rng: Rng,
    flavour: Flavour,
    scripts: Vec<(&'static Script, Vec<String>)>,
    script: usize,
    words_left: u64,
    sentences_left: u64,
    line_chars: usize,
    first_word: bool,
    pending: Vec<u8>,
    pending_pos: usize,
    filler: bool,
    /// Body bytes emitted so far.
    emitted: u64,
}

impl Text {
    pub(super) fn new(mut rng: Rng, flavour: Flavour) -> Text {
        let scripts: Vec<&'static Script> = match flavour {
            Flavour::Ascii => vec![&BASIC],
            Flavour::Utf8 | Flavour::Utf16 => vec![&LATIN, &GREEK, &CYRILLIC, &CJK, &BASIC],
        };
        let scripts = scripts
            .into_iter()
            .map(|s| (s, (0..VOCABULARY).map(|_| make_word(&mut rng, s)).collect()))
            .collect();
        Text {
            rng,
            flavour,
            scripts,
            script: 0,
            words_left: 0,
            sentences_left: 0,
            line_chars: 0,
            first_word: true,
            pending: Vec::new(),
            pending_pos: 0,
            filler: false,
            emitted: 0,
        }
    }

    /// A vocabulary index with a Zipf-like skew, using integers only: a uniform exponent
    /// `e` in 0..=10, then a uniform index below `2^e` (probability ~ 1/rank).
    fn zipf_index(&mut self) -> usize {
        let e = self.rng.below(11);
        (self.rng.below(1 << e) as usize).min(VOCABULARY - 1)
    }

    /// The next piece of text: a word with what follows it.
    fn next_token(&mut self) -> String {
        let mut t = String::new();
        if self.sentences_left == 0 {
            self.sentences_left = 3 + self.rng.below(5);
            self.script = self.rng.index(self.scripts.len());
        }
        if self.words_left == 0 {
            self.words_left = 4 + self.rng.below(13);
            self.first_word = true;
        }
        let i = self.zipf_index();
        let (script, vocab) = &self.scripts[self.script];
        let script: &Script = script;
        let word = if self.first_word && !script.ideographs {
            capitalize(&vocab[i])
        } else {
            vocab[i].clone()
        };
        self.first_word = false;
        self.words_left -= 1;
        let chars = word.chars().count();
        // Wrap before a word that would pass the margin.
        if self.line_chars > 0 && self.line_chars + 1 + chars > WIDTH {
            t.push('\n');
            self.line_chars = 0;
        } else if self.line_chars > 0 && script.spaces {
            t.push(' ');
            self.line_chars += 1;
        }
        t.push_str(&word);
        self.line_chars += chars;
        if self.words_left == 0 {
            let end = match self.rng.below(10) {
                0 => "?",
                1 => "!",
                _ => script.full_stop,
            };
            t.push_str(if script.ideographs && end != script.full_stop {
                script.full_stop
            } else {
                end
            });
            self.line_chars += 1;
            if self.flavour != Flavour::Ascii && self.rng.below(12) == 0 {
                t.push(' ');
                t.push_str(EMOJI[self.rng.index(EMOJI.len())]);
                self.line_chars += 2;
            }
            self.sentences_left -= 1;
            if self.sentences_left == 0 {
                t.push_str("\n\n");
                self.line_chars = 0;
            }
        } else if self.rng.below(8) == 0 {
            t.push_str(script.comma);
            self.line_chars += 1;
        }
        t
    }

    fn encode(&self, s: &str) -> Vec<u8> {
        match self.flavour {
            Flavour::Ascii | Flavour::Utf8 => s.as_bytes().to_vec(),
            Flavour::Utf16 => s.encode_utf16().flat_map(u16::to_le_bytes).collect(),
        }
    }
}

impl Body for Text {
    fn fill(&mut self, out: &mut [u8], remaining: u64) {
        let total = out.len() as u64 + remaining;
        for (i, b) in out.iter_mut().enumerate() {
            let left = total - i as u64; // bytes due from here, this one included
            if !self.filler && self.pending_pos == self.pending.len() {
                let t = self.next_token();
                self.pending = self.encode(&t);
                self.pending_pos = 0;
                // UTF-16 bodies of odd length end with a byte outside any unit.
                let odd_tail = self.flavour == Flavour::Utf16 && (self.emitted + left) % 2 == 1;
                if self.pending.len() as u64 >= left - u64::from(odd_tail) {
                    // The word does not fit before the last byte: end the file with
                    // blanks and a newline so that it stays valid text.
                    self.filler = true;
                }
            }
            *b = if self.filler {
                match self.flavour {
                    Flavour::Ascii | Flavour::Utf8 => {
                        if left == 1 {
                            b'\n'
                        } else {
                            b' '
                        }
                    }
                    Flavour::Utf16 => {
                        // Units start at even body offsets; an odd-sized body ends with
                        // one zero byte that belongs to no unit.
                        let odd_tail = (self.emitted + left) % 2 == 1;
                        let units_left = (left - u64::from(odd_tail)).div_ceil(2);
                        if (left == 1 && odd_tail) || self.emitted % 2 == 1 {
                            0
                        } else if units_left == 1 {
                            b'\n'
                        } else {
                            b' '
                        }
                    }
                }
            } else {
                self.pending_pos += 1;
                self.pending[self.pending_pos - 1]
            };
            self.emitted += 1;
        }
    }
}
