//! Published figures the studies print beside ours, typed in from the papers in
//! `../shared/papers/` (facts, with their source named). Machines and years differ, so
//! the studies compare ratios between ciphers, never absolute times.

/// Masram et al., "Analysis and comparison of symmetric key cryptographic algorithms
/// based on various file features" (file-features-symmetric-ciphers.txt): Intel Core
/// i7-2600 3.4 GHz (no AES-NI used by Java 6's providers), OpenJDK 1.6, JCA with the Sun
/// and BouncyCastle providers, ECB with PKCS#5 padding, minimal key sizes.
pub mod file_features {
    use cipherlab_ciphers::{CipherSpec, Mode, catalogue};

    /// The seven ciphers of Table 3, in its column order (minimal key sizes).
    pub const TABLE3_CIPHERS: [CipherSpec; 7] = [
        CipherSpec::of(&catalogue::AES, 128, Some(Mode::Ecb)),
        CipherSpec::of(&catalogue::DES, 56, Some(Mode::Ecb)),
        CipherSpec::of(&catalogue::TDES, 112, Some(Mode::Ecb)),
        CipherSpec::of(&catalogue::RC2, 40, Some(Mode::Ecb)),
        CipherSpec::of(&catalogue::BLOWFISH, 32, Some(Mode::Ecb)),
        CipherSpec::of(&catalogue::SKIPJACK, 80, Some(Mode::Ecb)),
        CipherSpec::of(&catalogue::RC4, 40, None),
    ];

    /// Table 3: encryption time in ms of (file type, size in MB) for each cipher of
    /// [`TABLE3_CIPHERS`].
    pub const TABLE3: [(&str, f64, [f64; 7]); 6] = [
        (
            "BMP",
            10.7,
            [101.0, 272.0, 788.0, 238.0, 133.0, 381.0, 40.0],
        ),
        (
            "BMP",
            50.0,
            [455.0, 1253.0, 3804.0, 1095.0, 614.0, 1729.0, 198.0],
        ),
        (
            "BMP",
            100.0,
            [909.0, 2595.0, 7628.0, 2189.0, 1223.0, 3505.0, 372.0],
        ),
        (
            "FLV",
            50.0,
            [456.0, 1268.0, 3810.0, 1112.0, 629.0, 1731.0, 196.0],
        ),
        (
            "FLV",
            100.0,
            [918.0, 2586.0, 7631.0, 2224.0, 1267.0, 3515.0, 360.0],
        ),
        (
            "FLV",
            482.0,
            [4518.0, 12529.0, 35654.0, 11038.0, 6087.0, 16941.0, 1972.0],
        ),
    ];

    /// Table 4's ciphers as the paper labels them (RC2, Blowfish, Skipjack and RC4 at
    /// 128 bits there, unlike the other case studies), as cipherlab names them.
    pub const TABLE4_CIPHERS: [CipherSpec; 7] = [
        CipherSpec::of(&catalogue::AES, 128, Some(Mode::Ecb)),
        CipherSpec::of(&catalogue::DES, 56, Some(Mode::Ecb)),
        CipherSpec::of(&catalogue::TDES, 112, Some(Mode::Ecb)),
        CipherSpec::of(&catalogue::RC2, 128, Some(Mode::Ecb)),
        CipherSpec::of(&catalogue::BLOWFISH, 128, Some(Mode::Ecb)),
        CipherSpec::of(&catalogue::SKIPJACK, 80, Some(Mode::Ecb)),
        CipherSpec::of(&catalogue::RC4, 128, None),
    ];

    /// Table 4: (dense time ms, dense MB/s, sparse time ms, sparse MB/s) for a dense AIFF
    /// of 61,392,454 bytes and a sparse AIFF of 72,000,118 bytes.
    pub const TABLE4: [(f64, f64, f64, f64); 7] = [
        (539.0, 108.62, 632.0, 108.64),
        (1535.0, 38.14, 1800.0, 38.14),
        (4363.0, 13.42, 5074.0, 13.53),
        (1283.0, 45.63, 1518.0, 45.23),
        (725.0, 80.75, 852.0, 80.59),
        (2040.0, 28.70, 2384.0, 28.80),
        (216.0, 271.05, 251.0, 271.56),
    ];

    /// The paper's file sizes for case study 2 (BMP 10.7, 50, 100 MB; FLV up to 482 MB),
    /// in bytes (MB = 10^6 bytes: the paper does not say, and its Table 4 rates match
    /// 2^20-byte megabytes only roughly either way).
    pub const CASE2_SIZES: [u64; 4] = [10_700_000, 50_000_000, 100_000_000, 482_000_000];

    /// Case study 1's files were "nearly 50 MB".
    pub const CASE1_SIZE: u64 = 50_000_000;

    /// Case study 4 used a 50.5 MB BMP.
    pub const CASE4_SIZE: u64 = 50_500_000;
}

/// Chromiak and Łojewski, "Stream security particularities in Java" (2008)
/// (java-stream-security.txt): Core 2 Duo E6600, Sun JDK 1.6 with BouncyCastle; 100
/// objects of about 5 KB.
pub mod java_stream {
    use cipherlab_ciphers::{CipherSpec, Mode, catalogue};

    /// The size of one serialized object.
    pub const OBJECT_BYTES: usize = 5 * 1024;

    /// Fig. 3: the standard deviation of the 16 group means of the byte histogram of an
    /// encrypted object stream (the mean of the group means was 11.25 for all); `None`
    /// is the plaintext.
    pub const FIG3_STD_DEV: [(Option<CipherSpec>, f64); 5] = [
        (None, 175.39095),
        (
            Some(CipherSpec::of(&catalogue::DES, 56, Some(Mode::Ecb))),
            0.33479,
        ),
        (
            Some(CipherSpec::of(&catalogue::TDES, 168, Some(Mode::Ecb))),
            0.33791,
        ),
        (
            Some(CipherSpec::of(&catalogue::BLOWFISH, 128, Some(Mode::Ecb))),
            0.32474,
        ),
        (
            Some(CipherSpec::of(&catalogue::AES, 128, Some(Mode::Ecb))),
            0.30951,
        ),
    ];

    /// Fig. 3 and 4: the mean of the group means for the symmetric ciphers.
    pub const FIG3_GROUP_MEAN: f64 = 11.25;

    /// Fig. 4: RSA-1024 (PKCS#1 v1.5) of zero bytes: group mean 8, standard deviation
    /// 0.07.
    pub const FIG4_RSA: (f64, f64) = (8.0, 0.07);

    /// Fig. 4: RSA + AES (the stream under AES, its key under RSA): 11.25 and 0.3291.
    pub const FIG4_RSA_AES: (f64, f64) = (11.25, 0.3291);

    /// Fig. 4's RSA messages: 117 bytes, the most PKCS#1 v1.5 carries in a 1024-bit block
    /// (its footnote 3).
    pub const FIG4_MESSAGE: usize = 117;
}

/// The README of a header-only C++ ISAP library (isap-library-readme.txt): Google
/// Benchmark on an Intel Core i5-8279U at 2.4 GHz, Clang.
pub mod isap_library {
    use cipherlab_ciphers::{CipherSpec, catalogue};

    /// Message sizes of its table (associated data is 32 bytes throughout).
    pub const SIZES: [u64; 7] = [64, 128, 256, 512, 1024, 2048, 4096];

    /// Encryption time in ns per message size of [`SIZES`], per ISAP variant.
    pub const ENCRYPT_NS: [(CipherSpec, [f64; 7]); 4] = [
        (
            CipherSpec::aead(&catalogue::ISAP_A_128A),
            [2105.0, 2708.0, 3910.0, 6246.0, 10944.0, 20418.0, 39222.0],
        ),
        (
            CipherSpec::aead(&catalogue::ISAP_A_128),
            [
                12825.0, 13628.0, 15187.0, 18145.0, 24355.0, 36498.0, 60919.0,
            ],
        ),
        (
            CipherSpec::aead(&catalogue::ISAP_K_128A),
            [
                18668.0, 22815.0, 29827.0, 44277.0, 72972.0, 131380.0, 246820.0,
            ],
        ),
        (
            CipherSpec::aead(&catalogue::ISAP_K_128),
            [
                143033.0, 143498.0, 153301.0, 171353.0, 230412.0, 286222.0, 440289.0,
            ],
        ),
    ];

    /// Decryption time in ns per message size of [`SIZES`], per ISAP variant (the same
    /// table's `isap_*_aead_decrypt` rows).
    pub const DECRYPT_NS: [(CipherSpec, [f64; 7]); 4] = [
        (
            CipherSpec::aead(&catalogue::ISAP_A_128A),
            [2118.0, 2736.0, 3885.0, 6256.0, 10963.0, 20541.0, 39546.0],
        ),
        (
            CipherSpec::aead(&catalogue::ISAP_A_128),
            [
                13638.0, 13597.0, 15066.0, 18174.0, 24244.0, 36350.0, 60678.0,
            ],
        ),
        (
            CipherSpec::aead(&catalogue::ISAP_K_128A),
            [
                18529.0, 22610.0, 29807.0, 44022.0, 73282.0, 131033.0, 248281.0,
            ],
        ),
        (
            CipherSpec::aead(&catalogue::ISAP_K_128),
            [
                136099.0, 141048.0, 151099.0, 169892.0, 209167.0, 285025.0, 440478.0,
            ],
        ),
    ];

    /// Permutation time in ns by (permutation, rounds).
    pub const PERMUTATION_NS: [(&str, usize, f64); 8] = [
        ("ascon-p", 1, 4.19),
        ("ascon-p", 6, 23.7),
        ("ascon-p", 12, 45.9),
        ("keccak-p400", 1, 42.0),
        ("keccak-p400", 8, 334.0),
        ("keccak-p400", 12, 501.0),
        ("keccak-p400", 16, 670.0),
        ("keccak-p400", 20, 835.0),
    ];
}

/// "Harnessing Lightweight Ciphers for PDF Encryption" (pdf-lightweight-ciphers.txt):
/// iText (Java) with AES-128 at R 4 (its AES: iText's pure-Java engine), ASCON-128 from
/// the iaik Java implementation and Xoodyak from o1c swapped in with the tag dropped
/// (Section 2.4: "we ignore the tag"), on an Intel i5-7200U, an AMD Ryzen 7 3700U and an
/// Intel i7-5500U; JMH average time (Fig. 10) and single shot (Fig. 11) in µs/op.
///
/// Figs. 10 and 11 survive only as plots: the text states no value from them. What it
/// does state is the ordering, in both modes, which is what this module records, as the
/// paper's ratio of each cipher to AES-128: "in every one of the cases AES performs
/// poorly with respect to ASCON and XOODYAK", and "using ASCON ... we can have best
/// performance overall" (Section 5). Its reference (1) points at the iaik folder
/// `ascon128av12` (Ascon-128a v1.2) while Section 2.4 says ASCON-128; we compare with
/// `ascon-128` and say so.
pub mod pdf_lwc {
    use cipherlab_pdf::{Cipher, LwcCipher, StdCipher};

    /// The average-time figure.
    pub const FIG_AVERAGE: &str = "Fig. 10";

    /// The single-shot figure.
    pub const FIG_SINGLE: &str = "Fig. 11";

    /// The paper's AES: AES-128 with the Standard handler's revision 4 (Section 1: "we
    /// focused majorly on PDF encryption with value of R being 4").
    pub const AES: Cipher = Cipher::Standard(StdCipher::Aes128);

    /// The paper's Ascon (Section 2.4).
    pub const ASCON: Cipher = Cipher::Lwc(LwcCipher::ASCON_128);

    /// Each cipher's time relative to AES-128 as the paper reports it (both figures), in
    /// words because the text gives the direction only; ciphers the paper did not time
    /// are absent.
    pub const RATIO_TO_AES: [(Cipher, &str); 3] = [
        (AES, "1 (reference)"),
        (ASCON, "< 1 (fastest)"),
        (Cipher::Lwc(LwcCipher::XOODYAK), "< 1"),
    ];

    /// The paper's JMH protocol (Section 5): average time, 5 warm-up iterations (Section
    /// 4.1.1), 10 iterations, 2 forks ("a total iteration of 20 times in two instances").
    pub const AVERAGE_TIME: (u32, u32, u32) = (5, 10, 2);

    /// Single shot: "run 10 times in 2 iterations" (read as 10 calls in each of 2 forks).
    pub const SINGLE_SHOT: (u32, u32) = (10, 2);

    /// The paper's conclusion, as checked by the study.
    pub const CONCLUSION: &str =
        "Ascon is faster than AES for PDF encryption and decryption (Section 5; Figs. 10, 11)";
}

/// "The cost of AES encryption and decryption on web platforms"
/// (aes-web-platforms.txt): AES-CBC with 128, 192 and 256-bit keys on Java, PHP, Node.js
/// and Python, each file encrypted and decrypted 100 times, the average per call.
pub mod web_platforms {
    /// The runtimes of Table 2, in its column order, by cipherlab's runtime names.
    pub const RUNTIMES: [&str; 4] = ["java", "php", "node", "python"];

    /// The paper's ranking, fastest first (section 4 and the conclusion: "Java ... the
    /// most efficient", "PHP is the second best option", Node.js third, "Python ... by
    /// far the slowest").
    pub const RANKING: [&str; 4] = ["java", "php", "node", "python"];

    /// Table 2: (the paper's size label, bytes, [encryption, decryption] ms per call for
    /// each of [`RUNTIMES`]). The paper gives sizes as labels; KB and MB are read as 1,024
    /// and 1,048,576 bytes ("1.1MB" and "1.5MB" rounded to whole bytes). Its rows are in
    /// the paper's order (1.1 MB before 1 MB, 2 MB before 1.5 MB).
    pub const TABLE2: [(&str, u64, [[f64; 2]; 4]); 30] = [
        (
            "145B",
            145,
            [
                [0.0013, 0.0005],
                [0.0018, 0.0017],
                [0.0070, 0.0097],
                [0.0400, 0.0400],
            ],
        ),
        (
            "232B",
            232,
            [
                [0.0017, 0.0005],
                [0.0020, 0.0018],
                [0.0070, 0.0144],
                [0.0300, 0.0600],
            ],
        ),
        (
            "333B",
            333,
            [
                [0.0022, 0.0005],
                [0.0426, 0.0335],
                [0.0073, 0.0118],
                [0.0400, 0.0500],
            ],
        ),
        (
            "459B",
            459,
            [
                [0.0027, 0.0005],
                [0.0024, 0.0026],
                [0.0091, 0.0320],
                [0.0400, 0.0600],
            ],
        ),
        (
            "579B",
            579,
            [
                [0.0035, 0.0006],
                [0.0026, 0.0027],
                [0.0091, 0.0137],
                [0.0500, 0.0400],
            ],
        ),
        (
            "581B",
            581,
            [
                [0.0035, 0.0006],
                [0.0025, 0.0018],
                [0.0079, 0.0116],
                [0.0300, 0.0600],
            ],
        ),
        (
            "659B",
            659,
            [
                [0.0041, 0.0006],
                [0.0027, 0.0019],
                [0.0102, 0.0122],
                [0.0300, 0.0600],
            ],
        ),
        (
            "926B",
            926,
            [
                [0.0046, 0.0007],
                [0.0114, 0.0082],
                [0.0099, 0.0163],
                [0.0200, 0.1000],
            ],
        ),
        (
            "1KB",
            1 << 10,
            [
                [0.0056, 0.0009],
                [0.0034, 0.0022],
                [0.0189, 0.0267],
                [0.0200, 0.0800],
            ],
        ),
        (
            "2KB",
            2 << 10,
            [
                [0.0071, 0.0010],
                [0.0035, 0.0021],
                [0.0114, 0.0177],
                [0.0200, 0.0800],
            ],
        ),
        (
            "28KB",
            28 << 10,
            [
                [0.1773, 0.0198],
                [0.0519, 0.0154],
                [0.0809, 0.1683],
                [0.3200, 0.3299],
            ],
        ),
        (
            "56KB",
            56 << 10,
            [
                [0.3295, 0.0369],
                [0.1028, 0.0300],
                [0.1443, 0.2662],
                [0.6599, 0.5999],
            ],
        ),
        (
            "84KB",
            84 << 10,
            [
                [0.4882, 0.0550],
                [0.1547, 0.0453],
                [0.2527, 0.3828],
                [0.9698, 0.8999],
            ],
        ),
        (
            "112KB",
            112 << 10,
            [
                [0.6819, 0.0742],
                [0.2053, 0.0573],
                [0.2439, 0.5109],
                [1.2199, 1.2098],
            ],
        ),
        (
            "143KB",
            143 << 10,
            [
                [0.8419, 0.0945],
                [0.2723, 0.0748],
                [0.3543, 0.6993],
                [1.5498, 1.5098],
            ],
        ),
        (
            "223KB",
            223 << 10,
            [
                [1.3651, 0.1516],
                [0.4106, 0.1149],
                [0.6092, 1.1449],
                [2.3996, 2.3397],
            ],
        ),
        (
            "285KB",
            285 << 10,
            [
                [1.7549, 0.1888],
                [0.5273, 0.1460],
                [0.7792, 1.7376],
                [3.2994, 2.9898],
            ],
        ),
        (
            "334KB",
            334 << 10,
            [
                [2.1195, 0.2474],
                [0.6196, 0.1695],
                [1.0055, 1.9356],
                [3.8194, 3.5796],
            ],
        ),
        (
            "445KB",
            445 << 10,
            [
                [2.8507, 0.3381],
                [0.8234, 0.2226],
                [1.2196, 2.4182],
                [5.4602, 4.7795],
            ],
        ),
        (
            "557KB",
            557 << 10,
            [
                [3.6301, 0.4341],
                [1.0220, 0.2803],
                [1.4020, 3.6863],
                [6.9892, 6.3091],
            ],
        ),
        (
            "570KB",
            570 << 10,
            [
                [3.9280, 0.4403],
                [1.0383, 0.2833],
                [1.4466, 1.7638],
                [6.6889, 6.1593],
            ],
        ),
        (
            "668KB",
            668 << 10,
            [
                [4.4380, 0.4758],
                [1.2305, 0.3390],
                [1.7143, 2.1266],
                [8.1588, 7.1591],
            ],
        ),
        (
            "779KB",
            779 << 10,
            [
                [5.6277, 0.6444],
                [1.4393, 0.3943],
                [2.2629, 2.5276],
                [9.8085, 8.8790],
            ],
        ),
        (
            "891KB",
            891 << 10,
            [
                [5.7979, 0.6153],
                [1.6400, 0.4470],
                [2.0848, 2.5663],
                [11.1185, 10.0487],
            ],
        ),
        (
            "1.1MB",
            1_153_434,
            [
                [8.4281, 0.8539],
                [2.6979, 1.1123],
                [2.5725, 3.0785],
                [14.2283, 13.0181],
            ],
        ),
        (
            "1MB",
            1 << 20,
            [
                [6.5089, 0.6842],
                [1.9483, 0.5476],
                [2.5700, 3.1188],
                [12.2284, 10.8585],
            ],
        ),
        (
            "2MB",
            2 << 20,
            [
                [16.8804, 1.8979],
                [5.7596, 2.4347],
                [6.3440, 6.5832],
                [30.5859, 28.0662],
            ],
        ),
        (
            "1.5MB",
            1_572_864,
            [
                [9.7235, 1.2348],
                [3.7038, 1.5790],
                [3.2954, 4.3860],
                [19.0072, 17.4979],
            ],
        ),
        (
            "4MB",
            4 << 20,
            [
                [28.4921, 3.7201],
                [9.9686, 4.2270],
                [10.5812, 11.5297],
                [52.2828, 48.2036],
            ],
        ),
        (
            "8MB",
            8 << 20,
            [
                [56.8131, 17.6285],
                [19.7981, 8.5810],
                [20.2340, 29.9842],
                [98.9467, 91.9176],
            ],
        ),
    ];
}
