//! `distribution`: how ciphertext bytes are spread. The Java stream-security paper
//! (Figs. 1-4) counted the byte values of a serialized object stream before and after
//! encryption, and summarized each histogram by the mean and standard deviation of its 16
//! group means (values 0-15, 16-31, ...). We add Shannon entropy, Pearson's chi-square
//! with its p-value, and the standard deviation a perfectly uniform source of the same
//! length would give, so histograms of any length can be judged. And the ECB picture: a
//! flat BMP encrypted with AES-ECB still shows its shapes; with CBC it is noise.
//!
//! Nothing is timed here: the study makes artifacts only.

use cipherlab_ciphers::{
    CipherSpec, Mode, Padding, catalogue, generate_iv, generate_key, providers,
};

use super::objects::{registry, serialized};
use super::paper::java_stream::{
    FIG3_GROUP_MEAN, FIG3_STD_DEV, FIG4_MESSAGE, FIG4_RSA, FIG4_RSA_AES,
};
use super::{Config, Study, StudyError, err};
use crate::corpus::{self, DataType};
use cipherlab_harness::machine::MachineInfo;
use cipherlab_results::artifact::table::{Table, int, num, text};
use cipherlab_results::artifact::{Artifact, Content, Histogram};
use cipherlab_results::id::{Measurement, Suite, same_cipher};

pub struct DistributionStudy;

const NAME: &str = "distribution";

/// The paper's four, then a chained mode, the AEADs and a stream cipher.
const CIPHERS: [CipherSpec; 10] = [
    CipherSpec::of(&catalogue::DES, 56, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::TDES, 168, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::BLOWFISH, 128, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::AES, 128, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::AES, 128, Some(Mode::Cbc)),
    CipherSpec::of(&catalogue::AES, 128, Some(Mode::Gcm)),
    CipherSpec::aead(&catalogue::CHACHA20_POLY1305),
    CipherSpec::aead(&catalogue::ASCON_AEAD128),
    CipherSpec::aead(&catalogue::XOODYAK),
    CipherSpec::of(&catalogue::RC4, 128, None),
];

/// The picture: 320 x 240 pixels, 24 bits, rows of 960 bytes (a whole number of AES
/// blocks, so each row starts on a block boundary as in the classic ECB penguin).
const PICTURE_WIDTH: u64 = 320;
const PICTURE_HEIGHT: u64 = 240;
const BMP_HEADER: usize = 54;

/// A histogram as the study's artifact.
fn histogram_artifact(h: &Histogram) -> Artifact {
    Artifact::new(
        NAME,
        &format!("histogram/{}/{}", h.algorithm, h.data_type),
        &format!("Byte values of {}", h.label),
        Content::Histogram(h.clone()),
    )
}

/// The histogram of `data`, the output of `cipher` (`None`: the plaintext).
fn histogram(cipher: Option<CipherSpec>, data_type: &str, data: &[u8]) -> Histogram {
    let name = cipher.map_or_else(|| "none".to_string(), |c| c.to_string());
    Histogram::of(&name, data_type, data)
}

/// Encrypts `data` with a fresh key (and IV) through the default provider.
fn encrypt(spec: &CipherSpec, data: &[u8]) -> Result<Vec<u8>, String> {
    let key = generate_key(spec);
    let iv = generate_iv(spec);
    let mut c = providers::init(spec, &key, None).map_err(|e| e.to_string())?;
    let mut buf = data.to_vec();
    buf.resize(spec.output_len(data.len()), 0);
    let n = c
        .encrypt(&iv, &[], &mut buf, data.len())
        .map_err(|e| e.to_string())?;
    buf.truncate(n);
    Ok(buf)
}

/// The inputs counted: the paper's object stream, or the user's files (first 4, 1 MiB
/// each at most).
fn plaintexts(cfg: &Config) -> Result<Vec<(String, Vec<u8>)>, StudyError> {
    match &cfg.data {
        None => Ok(vec![(
            "object-stream".to_string(),
            serialized(&registry(100)),
        )]),
        Some(d) => d
            .files
            .iter()
            .take(4)
            .map(|f| {
                let mut bytes = f.load().map_err(|e| err(NAME, e.to_string()))?.to_vec();
                bytes.truncate(1 << 20);
                Ok((f.label.clone(), bytes))
            })
            .collect(),
    }
}

/// A 24-bit bottom-up BMP's pixels as a PNG (top-down RGB).
fn bmp_to_png(bmp: &[u8], width: usize, height: usize) -> Result<Vec<u8>, String> {
    let row = 3 * width;
    let pixels = bmp
        .get(BMP_HEADER..BMP_HEADER + row * height)
        .ok_or("the BMP is shorter than its pixels")?;
    let mut rgb = Vec::with_capacity(row * height);
    for y in (0..height).rev() {
        for px in pixels[y * row..(y + 1) * row].chunks_exact(3) {
            rgb.extend_from_slice(&[px[2], px[1], px[0]]);
        }
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, width as u32, height as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(|e| e.to_string())?;
        w.write_image_data(&rgb).map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// The picture in plaintext, under AES-128-ECB and under AES-128-CBC: the BMP header
/// stays, its pixel bytes are encrypted (no padding: 230,400 bytes are whole blocks).
pub fn pictures() -> Result<Vec<(String, String, Vec<u8>)>, String> {
    let size = BMP_HEADER as u64 + 3 * PICTURE_WIDTH * PICTURE_HEIGHT;
    let bmp = corpus::generate(DataType::Bmp, size as usize, super::inputs::CORPUS_SEED);
    let (w, h) = (PICTURE_WIDTH as usize, PICTURE_HEIGHT as usize);
    let mut out = vec![(
        "plaintext".to_string(),
        "The plaintext picture (a 24-bit BMP of the built-in corpus)".to_string(),
        bmp_to_png(&bmp, w, h)?,
    )];
    for (mode, caption) in [
        (
            Mode::Ecb,
            "AES-128-ECB: equal blocks give equal ciphertext, and the shapes show",
        ),
        (Mode::Cbc, "AES-128-CBC: chaining hides the picture"),
    ] {
        let spec = CipherSpec::of(&catalogue::AES, 128, Some(mode)).with_padding(Padding::None);
        let name = spec.to_string();
        let mut enc = bmp[..BMP_HEADER].to_vec();
        enc.extend(encrypt(&spec, &bmp[BMP_HEADER..])?);
        out.push((
            name.to_string(),
            caption.to_string(),
            bmp_to_png(&enc, w, h)?,
        ));
    }
    Ok(out)
}

impl Study for DistributionStudy {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "byte distribution of plaintext and ciphertext (histogram, group deviation, entropy, chi-square); the ECB picture"
    }

    fn source(&self) -> &'static str {
        "Java stream-security paper, Figs. 1-4"
    }

    fn plan<'a>(&self, _cfg: &Config, _suite: &mut Suite<'a>) -> Result<(), StudyError> {
        Ok(())
    }

    fn findings(
        &self,
        cfg: &Config,
        _ms: &[&Measurement],
        _machine: &MachineInfo,
    ) -> Result<Vec<Artifact>, StudyError> {
        let mut out = Vec::new();
        let mut t = Table::new(&[
            "cipher",
            "input",
            "paper std dev (group mean 11.25)",
            "paper std dev / mean",
            "ours: group mean",
            "ours: std dev",
            "ours: std dev / mean",
            "ideal random std dev",
            "entropy bits/byte",
            "chi-square p",
        ]);
        let mut uneven = Vec::new();
        for (label, data) in plaintexts(cfg)? {
            let mut hists = vec![(None, histogram(None, &label, &data))];
            for spec in CIPHERS.into_iter().filter(|s| cfg.filter.accepts_spec(s)) {
                let ct = encrypt(&spec, &data).map_err(|e| err(NAME, format!("{spec}: {e}")))?;
                hists.push((Some(spec), histogram(Some(spec), &label, &ct)));
            }
            for (cipher, h) in &hists {
                // A ciphertext whose bytes are unevenly spread (Histogram::uneven).
                if cipher.is_some() && h.uneven() {
                    uneven.push(format!("{} ({label})", h.algorithm));
                }
                let paper = FIG3_STD_DEV
                    .iter()
                    .find(|(c, _)| match (c, cipher) {
                        (None, None) => true,
                        (Some(c), Some(h)) => same_cipher(c, h),
                        _ => false,
                    })
                    .map(|x| x.1);
                t.row(vec![
                    text(&h.algorithm),
                    text(&label),
                    paper.map_or(serde_json::Value::Null, num),
                    paper.map_or(serde_json::Value::Null, |p| num(p / FIG3_GROUP_MEAN)),
                    num(h.group_mean),
                    num(h.group_std_dev),
                    num(h.group_std_dev / h.group_mean),
                    num(h.ideal_group_std_dev),
                    num(h.entropy_bits),
                    num(h.p_value),
                ]);
                out.push(histogram_artifact(h));
            }
        }
        t.note = distribution_note(&uneven);
        out.insert(
            0,
            t.artifact(
                NAME,
                "paper/fig-3",
                "Byte distribution: Fig. 3's statistics",
            ),
        );
        out.insert(
            1,
            fig4().map_err(|e| err(NAME, e))?.artifact(
                NAME,
                "paper/fig-4",
                "Byte distribution: Fig. 4, RSA (PKCS#1 v1.5) beside AES",
            ),
        );
        for (name, caption, png) in pictures().map_err(|e| err(NAME, e))? {
            out.push(Artifact::new(
                NAME,
                &format!("picture/{name}"),
                &caption,
                Content::Image(png),
            ));
        }
        Ok(out)
    }
}

/// Fig. 4: RSA-1024 with PKCS#1 v1.5 (the paper's) over a stream of zero bytes in
/// 117-byte messages, and the same zeros under AES-128 (the paper's "RSA + AES": the
/// stream under AES, only its key under RSA), each beside the paper's statistics. The
/// paper's RSA group mean of 8 means 2,048 ciphertext bytes: 16 RSA blocks.
fn fig4() -> Result<Table, String> {
    use cipherlab_ciphers::asym::{AsymSpec, Encryptor, Keypair, RsaPadding};
    const BLOCKS: usize = 16;
    let spec = AsymSpec::Rsa {
        bits: 1024,
        padding: RsaPadding::Pkcs1,
    };
    let pair = Keypair::generate(spec).map_err(|e| e.to_string())?;
    let mut enc = Encryptor::new(&pair.public_key().map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let mut rsa_ct = Vec::with_capacity(BLOCKS * 128);
    for _ in 0..BLOCKS {
        let mut block = Vec::new();
        enc.encrypt(&[0u8; FIG4_MESSAGE], &mut block)
            .map_err(|e| e.to_string())?;
        rsa_ct.extend_from_slice(&block);
    }
    let aes_spec = CipherSpec::of(&catalogue::AES, 128, Some(Mode::Ecb));
    // As many zero bytes as the RSA stream carried, under AES.
    let aes_ct = encrypt(&aes_spec, &vec![0u8; BLOCKS * FIG4_MESSAGE])?;
    let mut t = Table::new(&[
        "stream",
        "paper: group mean",
        "paper: std dev",
        "ours: bytes",
        "ours: group mean",
        "ours: std dev",
        "uniform source: std dev",
        "ours: chi-square p",
        "evenly spread?",
    ]);
    let rows = [
        ("RSA-1024 PKCS#1 v1.5 of zeros", FIG4_RSA, &rsa_ct),
        ("AES-128-ECB of the same zeros", FIG4_RSA_AES, &aes_ct),
    ];
    for (label, paper, ct) in rows {
        let h = Histogram::of("fig-4", label, ct);
        t.row(vec![
            text(label),
            num(paper.0),
            num(paper.1),
            int(h.bytes),
            num(h.group_mean),
            num(h.group_std_dev),
            num(h.ideal_group_std_dev),
            num(h.p_value),
            text(if h.uneven() { "no" } else { "yes" }),
        ]);
    }
    t.note = "Paper (Fig. 4): RSA's output of a zero stream had group mean 8 and standard deviation \
              0.07 against 11.25 and 0.3291 for RSA + AES, so \"the byte distribution provided by the \
              RSA outperforms the symmetric ciphers\". The deviation depends on the stream's length \
              (read it against the uniform source's column), and one stream each gives no interval, \
              so this run draws no verdict on \"outperforms\"; it says whether each stream is evenly \
              spread (chi-square p >= 0.001 or a deviation within twice a uniform source's). AES in \
              ECB repeats itself on repeated zeros; PKCS#1 v1.5's random padding gives RSA fresh \
              blocks every time, but a block is a number below the modulus, so its first byte is \
              not uniform."
        .to_string();
    Ok(t)
}

/// What the table shows, from the data: which ciphertexts are not evenly spread.
fn distribution_note(uneven: &[String]) -> String {
    let head = "Paper (Fig. 3): the group means' standard deviation fell from 175 (plaintext) to \
                about 0.31-0.34 for DES, 3DES, Blowfish and AES. It depends on the stream's length, \
                so read ours against the ideal column: what a uniform random source of the same \
                length gives on average.";
    if uneven.is_empty() {
        format!(
            "{head} Every ciphertext here lands near the ideal, with entropy near 8 bits/byte and \
             chi-square p-values that are not tiny: no cipher leaks through its byte histogram. \
             ECB's weakness is in repeated blocks, which the picture shows."
        )
    } else if uneven.iter().any(|u| !u.contains("-ecb")) {
        format!(
            "{head} Uneven here (chi-square p < 0.001 and over twice the ideal deviation): {}. \
             A cipher that is not in ECB mode should not show this: check its inputs and key.",
            uneven.join(", ")
        )
    } else {
        format!(
            "{head} Uneven here (chi-square p < 0.001 and over twice the ideal deviation): {}. \
             That is ECB repeating itself: equal plaintext blocks (a stream of small fixed-width \
             integers has many) give equal ciphertext blocks, and with 8-byte blocks they repeat \
             often enough to skew the histogram. The paper's 5 KB objects were too short to show \
             it; chained modes, CTR, stream ciphers and AEADs are even.",
            uneven.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cipher_of_the_paper_figure_is_measured() {
        for (paper, _) in FIG3_STD_DEV {
            if let Some(p) = paper {
                assert!(
                    CIPHERS.iter().any(|c| same_cipher(c, &p)),
                    "Fig. 3's {p} is not among the study's ciphers"
                );
            }
        }
    }

    #[test]
    fn fig4_streams_are_measured() {
        let t = fig4().unwrap();
        assert_eq!(t.rows.len(), 2);
        // 16 RSA-1024 blocks, as the paper's group mean of 8 implies.
        assert_eq!(t.rows[0][3], serde_json::json!(2048));
        // AES-ECB of zeros repeats one block: nothing like an even spread.
        assert_eq!(t.rows[1][8], serde_json::json!("no"));
    }

    #[test]
    fn ecb_shows_the_picture_and_cbc_does_not() {
        let pics = pictures().unwrap();
        assert_eq!(pics.len(), 3);
        // Decode each PNG and count distinct 16-byte blocks of its pixels: the flat
        // picture and its ECB encryption repeat blocks; CBC almost never does.
        let distinct = |png_bytes: &[u8]| {
            let dec = png::Decoder::new(std::io::Cursor::new(png_bytes));
            let mut r = dec.read_info().unwrap();
            let mut buf = vec![0; r.output_buffer_size().unwrap()];
            let info = r.next_frame(&mut buf).unwrap();
            assert_eq!((info.width, info.height), (320, 240));
            let mut blocks: Vec<&[u8]> = buf[..info.buffer_size()].chunks(16).collect();
            blocks.sort();
            blocks.dedup();
            blocks.len()
        };
        let total = 320 * 240 * 3 / 16;
        let (plain, ecb, cbc) = (
            distinct(&pics[0].2),
            distinct(&pics[1].2),
            distinct(&pics[2].2),
        );
        assert!(plain < total / 10, "plaintext {plain} of {total}");
        assert!(
            ecb < total / 5,
            "ECB {ecb} distinct blocks of {total}: the picture leaks"
        );
        assert!(cbc > total * 99 / 100, "CBC {cbc} of {total}");
    }
}
